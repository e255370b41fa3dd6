//! The drain pipeline of docs/design.md §4, per runner, for many runners at once.
//!
//! Invariant: no pod or ARC object is deleted unless GitHub answered 204 or 404 to this run's
//! unregister of that runner and the idle check passed afterwards.
//!
//! Each runner is its own task. Every GitHub call (unregisters and reads) passes the one
//! [`Pacer`], which spaces unregisters and, after a rate-limit refusal, holds every call, lets
//! one probe go alone and lowers the pace; reads and Kubernetes work take a slot of
//! `--concurrency`; waiting (confirm window, `--wait` polls, rate-limit waits, retry back-off)
//! holds no slot, so with 1,000 runners the confirm window is paid about once, not 1,000 /
//! concurrency times.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use backon::BackoffBuilder;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;
use tracing::instrument::WithSubscriber;

use crate::context::Interrupt;
use crate::drain::Rate;
use crate::drain::event::{Event, Mutation, Outcome, WaitReason};
use crate::drain::evidence::{self, Proof, Tracker, Unseen, Verdict};
use crate::drain::ops::{
    ClusterError, ClusterOps, Deleted, GitHubOps, ReadError, RunnerNow, Unregistered,
};
use crate::drain::pacer::{Answer, Call, Pacer, Permit, RateReport};
use crate::drain::plan::{Action, DeleteTarget, SkipReason, Step};
use crate::error::Failure;

/// How the pipeline behaves.
#[derive(Debug, Clone)]
pub struct Settings {
    pub wait: bool,
    /// Bound on all waiting; `None` waits as long as it takes.
    pub timeout: Option<Duration>,
    pub poll_interval: Duration,
    pub confirm_window: Duration,
    pub concurrency: usize,
    pub rate: Rate,
    /// Attempts for a request that fails transiently (5xx, timeout, reset).
    pub attempts: usize,
    /// First back-off between attempts (doubles, with jitter).
    pub backoff: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            wait: false,
            timeout: None,
            poll_interval: Duration::from_secs(10),
            confirm_window: Duration::from_secs(20),
            concurrency: 8,
            rate: Rate {
                count: 1,
                per: Duration::from_secs(1),
            },
            attempts: 5,
            backoff: Duration::from_millis(500),
        }
    }
}

/// What a run did.
#[derive(Debug)]
pub struct RunResult {
    /// Every step with its outcome, in plan order.
    pub outcomes: Vec<(Step, Outcome)>,
    /// Set when GitHub or Kubernetes denied permission and the run stopped.
    pub denied: Option<Failure>,
    /// Whether Ctrl-C stopped the run.
    pub interrupted: bool,
    /// What GitHub's rate limits cost the run (so far, with a pacer shared across runs).
    pub rate_limits: RateReport,
}

/// The shortest `--confirm-window`: below it a lagging job trace is likely to be missed.
pub const MIN_CONFIRM_WINDOW: Duration = Duration::from_secs(2);

/// Bounds waits for rate limits when no `--timeout` is given, so no loop is endless.
const MAX_RATE_LIMIT_WAITS: usize = 50;
/// Bounds re-registrations followed for one runner (a RunnerSet pod re-registers by name).
const MAX_REREGISTRATIONS: usize = 3;
/// Bounds retries of a 422 that is not "still running a job" (`--wait`).
const MAX_REFUSALS: usize = 5;
/// How far before the unregister the runner log is read: a job that began earlier and still
/// runs would have made GitHub answer 422, but clocks differ and traces lag.
const LOG_LOOKBACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(600);
/// Pages of a long log read in one look before it counts as unreadable.
const MAX_LOG_PAGES: usize = 16;
/// The first look for proof after the unregister; the gaps then double up to
/// [`MAX_LOOK_INTERVAL`] until the window ends.
const FIRST_LOOK: Duration = Duration::from_secs(1);
const MAX_LOOK_INTERVAL: Duration = Duration::from_secs(4);

struct Shared<G, K> {
    gh: G,
    k8s: K,
    settings: Settings,
    pacer: Arc<Pacer>,
    slots: Semaphore,
    events: mpsc::UnboundedSender<Event>,
    interrupt: Interrupt,
    /// Triggered by Ctrl-C or a permission error: stop every runner at its next safe point.
    halt: Interrupt,
    denied: Mutex<Option<Failure>>,
    deadline: Option<Instant>,
}

/// Why a runner stopped waiting early.
enum Stop {
    Halted,
    Deadline,
}

/// Runs `steps` and reports each outcome; events go to `events` as they happen.
pub async fn run<G: GitHubOps, K: ClusterOps>(
    gh: G,
    k8s: K,
    steps: Vec<Step>,
    settings: Settings,
    events: mpsc::UnboundedSender<Event>,
    interrupt: Interrupt,
) -> RunResult {
    let pacer = Arc::new(Pacer::new(settings.rate, settings.concurrency));
    run_paced(gh, k8s, steps, settings, events, interrupt, pacer).await
}

/// [`run`] through `pacer`, which a caller running several pipelines one after another
/// (`recreate`'s batches) shares between them, so that a rate-limit wait and a lowered pace
/// carry over.
pub async fn run_paced<G: GitHubOps, K: ClusterOps>(
    gh: G,
    k8s: K,
    steps: Vec<Step>,
    settings: Settings,
    events: mpsc::UnboundedSender<Event>,
    interrupt: Interrupt,
    pacer: Arc<Pacer>,
) -> RunResult {
    let halt = Interrupt::default();
    let shared = Arc::new(Shared {
        gh,
        k8s,
        pacer,
        slots: Semaphore::new(settings.concurrency.max(1)),
        deadline: settings
            .timeout
            .filter(|t| !t.is_zero())
            .map(|t| Instant::now() + t),
        settings,
        events,
        interrupt: interrupt.clone(),
        halt: halt.clone(),
        denied: Mutex::new(None),
    });
    let forward = tokio::spawn({
        let halt = halt.clone();
        async move {
            interrupt.triggered().await;
            halt.trigger();
        }
    });
    let mut tasks = tokio::task::JoinSet::new();
    for (index, step) in steps.iter().cloned().enumerate() {
        let shared = Arc::clone(&shared);
        // Runner tasks log (`-v`) to the run's subscriber.
        tasks.spawn(
            async move {
                let runner = step.candidate.name.clone();
                let outcome = drive(&shared, step).await;
                shared.emit(Event::Finished {
                    runner,
                    outcome: outcome.clone(),
                });
                (index, outcome)
            }
            .with_current_subscriber(),
        );
    }
    let mut outcomes: Vec<Option<Outcome>> = vec![None; steps.len()];
    while let Some(joined) = tasks.join_next().await {
        // A panicked runner task leaves its slot empty; it is reported as failed below.
        if let Ok((index, outcome)) = joined {
            outcomes[index] = Some(outcome);
        }
    }
    forward.abort();
    let denied = shared
        .denied
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    RunResult {
        outcomes: steps
            .into_iter()
            .zip(outcomes)
            .map(|(s, o)| {
                let o = o.unwrap_or(Outcome::Failed {
                    failure: Failure::failed(
                        "internal error: the runner's task ended unexpectedly",
                    ),
                });
                (s, o)
            })
            .collect(),
        denied,
        interrupted: shared.interrupt.is_triggered(),
        rate_limits: shared.pacer.report(),
    }
}

impl<G: GitHubOps, K: ClusterOps> Shared<G, K> {
    fn emit(&self, e: Event) {
        // The receiver only goes away when output is gone; the drain itself must go on.
        let _ = self.events.send(e);
    }

    fn deny(&self, failure: Failure) {
        let mut d = self
            .denied
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if d.is_none() {
            *d = Some(failure);
        }
        self.halt.trigger();
    }

    /// Sleeps `d`, cut short by a halt or the deadline.
    async fn pause(&self, d: Duration) -> Result<(), Stop> {
        if self.halt.is_triggered() {
            return Err(Stop::Halted);
        }
        let wake = Instant::now() + d;
        let (until, hits_deadline) = match self.deadline {
            Some(dl) if dl <= wake => (dl, true),
            _ => (wake, false),
        };
        tokio::select! {
            () = tokio::time::sleep_until(until) => {
                if hits_deadline { Err(Stop::Deadline) } else { Ok(()) }
            }
            () = self.halt.triggered() => Err(Stop::Halted),
        }
    }

    /// Sleeps `d` after a runner's unregister: only a halt cuts it short, since a deadline
    /// must not strand an unregistered runner with its pod.
    async fn pause_after_unregister(&self, d: Duration) -> Result<(), Stop> {
        if self.halt.is_triggered() {
            return Err(Stop::Halted);
        }
        tokio::select! {
            () = tokio::time::sleep(d) => Ok(()),
            () = self.halt.triggered() => Err(Stop::Halted),
        }
    }

    /// The last moment an unregister may start: one confirm window before the deadline, so
    /// every runner unregistered can still be confirmed and deleted.
    fn unregister_deadline(&self) -> Option<Instant> {
        self.deadline.map(|d| {
            d.checked_sub(self.settings.confirm_window)
                .unwrap_or(d)
                .max(Instant::now().min(d))
        })
    }

    fn backoff(&self) -> impl Iterator<Item = Duration> + use<G, K> {
        backon::ExponentialBuilder::default()
            .with_min_delay(self.settings.backoff)
            .with_max_delay(self.settings.backoff * 16)
            .with_jitter()
            .with_max_times(self.settings.attempts.saturating_sub(1))
            .build()
    }

    fn stopped(&self, stop: Stop, stage: &str) -> Outcome {
        match stop {
            Stop::Deadline => Outcome::TimedOut {
                stage: stage.to_owned(),
            },
            Stop::Halted if self.interrupt.is_triggered() => Outcome::Stopped {
                stage: format!("interrupted {stage}"),
            },
            Stop::Halted => Outcome::Stopped {
                stage: format!("stopped by a permission error {stage}"),
            },
        }
    }

    /// Waits for a GitHub call's turn at the pacer, cut short by a halt and by `last`.
    ///
    /// An unregister must not start after `last` (one confirm window before the deadline):
    /// when its turn and `last` come together, `last` wins. A read goes when its turn comes;
    /// only a wait that would outlast `last` (the deadline) stops it, as any pause does.
    async fn github_turn(&self, call: Call, last: Option<Instant>) -> Result<Permit<'_>, Stop> {
        if self.halt.is_triggered() {
            return Err(Stop::Halted);
        }
        let strict = call == Call::Unregister;
        if strict && last.is_some_and(|d| d <= Instant::now()) {
            return Err(Stop::Deadline);
        }
        let deadline = async {
            match last {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        let permit = if strict {
            tokio::select! {
                biased;
                () = self.halt.triggered() => return Err(Stop::Halted),
                () = deadline => return Err(Stop::Deadline),
                p = self.pacer.enter(call) => p,
            }
        } else {
            tokio::select! {
                biased;
                () = self.halt.triggered() => return Err(Stop::Halted),
                p = self.pacer.enter(call) => p,
                () = deadline => return Err(Stop::Deadline),
            }
        };
        if strict && last.is_some_and(|d| d <= Instant::now()) {
            return Err(Stop::Deadline);
        }
        if self.halt.is_triggered() {
            return Err(Stop::Halted);
        }
        Ok(permit)
    }

    /// Reports a call's answer to the pacer; a refusal that begins a wait is told, once.
    fn answered(&self, permit: Permit<'_>, verdict: Answer) {
        if let Some(spell) = permit.finish(verdict) {
            self.emit(Event::RateLimited(spell));
        }
    }

    /// A GitHub read with bounded retries, through the pacer's gate.
    async fn read_runner(&self, by: Lookup<'_>) -> Result<Option<RunnerNow>, ReadFail> {
        let mut backoff = self.backoff();
        let mut rate_waits = 0;
        loop {
            let permit = self
                .github_turn(Call::Read, self.deadline)
                .await
                .map_err(ReadFail::Stop)?;
            let result = {
                let _slot = self.slots.acquire().await;
                // A refusal came in while this read waited for its slot: back to the gate.
                if !permit.is_current() {
                    continue;
                }
                match by {
                    Lookup::Id(id) => self.gh.runner(id).await,
                    Lookup::Name(n) => self.gh.runner_named(n).await,
                }
            };
            let verdict = match &result {
                Ok(_) | Err(ReadError::Denied(_)) => Answer::Accepted,
                Err(ReadError::RateLimited(limit)) => Answer::Refused(*limit),
                Err(ReadError::Other(_)) => Answer::Lost,
            };
            self.answered(permit, verdict);
            match result {
                Ok(r) => return Ok(r),
                Err(ReadError::Denied(f)) => {
                    self.deny(f);
                    return Err(ReadFail::Stop(Stop::Halted));
                }
                // The pacer holds the next try until GitHub's wait is over.
                Err(ReadError::RateLimited(_)) if rate_waits < MAX_RATE_LIMIT_WAITS => {
                    rate_waits += 1;
                }
                Err(ReadError::RateLimited(_)) => {
                    return Err(ReadFail::Failed(Failure::failed(
                        "rate limited by GitHub too many times",
                    )));
                }
                Err(ReadError::Other(f)) => match backoff.next() {
                    Some(d) => self.pause(d).await.map_err(ReadFail::Stop)?,
                    None => return Err(ReadFail::Failed(f)),
                },
            }
        }
    }

    /// A cluster call with bounded retries; `bounded`: `--timeout` may end the retries (only
    /// before the unregister).
    async fn cluster<T, F, Fut>(&self, mut call: F, bounded: bool) -> Result<T, ReadFail>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, ClusterError>>,
    {
        let mut backoff = self.backoff();
        loop {
            let result = {
                let _slot = self.slots.acquire().await;
                call().await
            };
            match result {
                Ok(v) => return Ok(v),
                Err(ClusterError::Denied(f)) => {
                    self.deny(f.clone());
                    return Err(ReadFail::Failed(f));
                }
                Err(ClusterError::Other(f)) => match backoff.next() {
                    Some(d) if bounded => self.pause(d).await.map_err(ReadFail::Stop)?,
                    Some(d) => self
                        .pause_after_unregister(d)
                        .await
                        .map_err(ReadFail::Stop)?,
                    None => return Err(ReadFail::Failed(f)),
                },
            }
        }
    }

    /// Unregisters once the pacer allows, retrying transient failures and rate limits.
    /// `maybe_sent` is set once a DELETE went out whose answer was lost: it may have worked.
    async fn unregister(
        &self,
        runner: &str,
        id: u64,
        maybe_sent: &mut bool,
    ) -> Result<Unregistered, ReadFail> {
        let mut backoff = self.backoff();
        let mut rate_waits = 0;
        loop {
            if self.halt.is_triggered() {
                return Err(ReadFail::Stop(Stop::Halted));
            }
            // Queued at the pacer (possibly behind a long rate-limit wait): a halt or the
            // deadline ends the wait, and no DELETE goes out after them, nor too late to be
            // confirmed.
            let permit = self
                .github_turn(Call::Unregister, self.unregister_deadline())
                .await
                .map_err(ReadFail::Stop)?;
            let (answer, hint) = self.gh.unregister(id).await;
            self.pacer.observe(hint);
            let verdict = match &answer {
                Unregistered::RateLimited { limit, .. } => Answer::Refused(*limit),
                Unregistered::Transient { .. } => Answer::Lost,
                _ => Answer::Accepted,
            };
            self.answered(permit, verdict);
            self.emit(Event::Mutated(Mutation {
                action: "unregister",
                target: format!("runner/{runner}"),
                runner_id: Some(id),
                status: answer.status(),
            }));
            match answer {
                // The pacer holds the next try (everyone's) until GitHub's wait is over.
                Unregistered::RateLimited { .. } if rate_waits < MAX_RATE_LIMIT_WAITS => {
                    rate_waits += 1;
                    self.emit(Event::Waiting {
                        runner: runner.to_owned(),
                        reason: WaitReason::RateLimited,
                        job: None,
                    });
                }
                Unregistered::RateLimited { .. } => {
                    return Err(ReadFail::Failed(Failure::failed(
                        "rate limited by GitHub too many times; unregister not confirmed",
                    )));
                }
                Unregistered::Transient { reason, .. } => {
                    // No answer, or a server error: GitHub may have removed the runner anyway.
                    *maybe_sent = true;
                    match backoff.next() {
                        Some(d) => {
                            self.emit(Event::Waiting {
                                runner: runner.to_owned(),
                                reason: WaitReason::Retrying,
                                job: None,
                            });
                            self.pause(d).await.map_err(ReadFail::Stop)?;
                        }
                        None => {
                            return Err(ReadFail::Failed(Failure::failed(format!(
                                "unregister failed after {} attempts: {reason}; the runner may be unregistered; pod untouched",
                                self.settings.attempts
                            ))));
                        }
                    }
                }
                Unregistered::Denied { failure, .. } => {
                    let f = failure.context(format!("failed to unregister runner `{runner}`"));
                    self.deny(f.clone());
                    return Err(ReadFail::Failed(f));
                }
                other => return Ok(other),
            }
        }
    }

    /// Polls the runner until GitHub says it is not busy (`Ok(None)`: it is gone).
    async fn wait_until_idle(
        &self,
        runner: &str,
        id: u64,
        job: Option<String>,
    ) -> Result<Option<RunnerNow>, ReadFail> {
        loop {
            match self.read_runner(Lookup::Id(id)).await? {
                Some(r) if r.busy => {
                    self.emit(Event::Waiting {
                        runner: runner.to_owned(),
                        reason: WaitReason::Busy,
                        job: job.clone(),
                    });
                    self.pause(self.settings.poll_interval)
                        .await
                        .map_err(ReadFail::Stop)?;
                }
                other => return Ok(other),
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Lookup<'a> {
    Id(u64),
    Name(&'a str),
}

enum ReadFail {
    Stop(Stop),
    Failed(Failure),
}

/// One runner, from selection to its outcome.
async fn drive<G: GitHubOps, K: ClusterOps>(sh: &Shared<G, K>, step: Step) -> Outcome {
    let (mut id, mut target, wait_first) = match step.action {
        Action::Skip(reason) => return Outcome::Skipped { reason },
        Action::Drain {
            runner_id,
            target,
            wait_first,
        } => (runner_id, target, wait_first),
    };
    let name = step.candidate.name;
    let job = step.candidate.job;
    if sh.halt.is_triggered() {
        return sh.stopped(Stop::Halted, "before it started; nothing changed");
    }
    sh.emit(Event::Started {
        runner: name.clone(),
    });
    let fail = |f: ReadFail, stage: &str| match f {
        ReadFail::Stop(s) => sh.stopped(s, stage),
        ReadFail::Failed(failure) => Outcome::Failed { failure },
    };

    if wait_first && let Err(f) = sh.wait_until_idle(&name, id, job.clone()).await {
        return fail(f, "while waiting for the busy runner; nothing changed");
    }

    // Unregister: the atomic check. 204/404 means no new job will be assigned.
    let mut reregistrations = 0;
    let mut refusals = 0;
    // We waited for a job, then GitHub no longer knew the runner: it left after its job.
    let mut waited = wait_first;
    let mut left_on_its_own = false;
    let watch_from;
    loop {
        // The watch of the runner log starts shortly before the DELETE goes out.
        let sent_around = jiff::Timestamp::now();
        let mut maybe_sent = false;
        let answer = match sh.unregister(&name, id, &mut maybe_sent).await {
            Ok(a) => a,
            Err(f) if maybe_sent => {
                // A DELETE whose answer was lost may have gone through.
                sh.emit(Event::MaybeUnregistered {
                    runner: name.clone(),
                });
                return fail(
                    f,
                    "before GitHub confirmed the unregister; the runner may be unregistered, pod kept",
                );
            }
            Err(f) => return fail(f, "before the unregister; nothing changed"),
        };
        match answer {
            Unregistered::Removed => {
                sh.emit(Event::Unregistered {
                    runner: name.clone(),
                    id,
                    status: 204,
                });
                watch_from = sent_around;
                break;
            }
            Unregistered::NotFound => {
                // Gone already, or re-registered under another id (a RunnerSet pod keeps its
                // name): look the name up before deciding.
                match sh.read_runner(Lookup::Name(&name)).await {
                    Ok(Some(again)) if again.id != id => {
                        if reregistrations >= MAX_REREGISTRATIONS {
                            return Outcome::Failed {
                                failure: Failure::failed(format!(
                                    "runner `{name}` re-registered {} times during the drain (now id {}); nothing deleted",
                                    reregistrations + 1,
                                    again.id
                                )),
                            };
                        }
                        reregistrations += 1;
                        id = again.id;
                        match sh.cluster(|| sh.k8s.refresh(&target), true).await {
                            Ok(Some(t)) => target = t,
                            Ok(None) => {
                                return Outcome::Skipped {
                                    reason: SkipReason::RegistrationOnly,
                                };
                            }
                            Err(f) => return fail(f, "while following a re-registration"),
                        }
                        if again.busy {
                            if !sh.settings.wait {
                                return Outcome::Skipped {
                                    reason: SkipReason::Busy { job: None },
                                };
                            }
                            if let Err(f) = sh.wait_until_idle(&name, id, None).await {
                                return fail(
                                    f,
                                    "while waiting for the busy runner; nothing changed",
                                );
                            }
                        }
                        continue;
                    }
                    Ok(_) => {
                        sh.emit(Event::Unregistered {
                            runner: name.clone(),
                            id,
                            status: 404,
                        });
                        left_on_its_own = waited;
                        watch_from = sent_around;
                        break;
                    }
                    Err(f) => return fail(f, "while looking up a runner GitHub no longer knows"),
                }
            }
            Unregistered::Busy { message } => {
                let running = is_busy_refusal(&message);
                if !sh.settings.wait {
                    return if running {
                        Outcome::Skipped {
                            reason: if wait_first || job.is_some() {
                                SkipReason::Busy { job }
                            } else {
                                SkipReason::BusyAtUnregister
                            },
                        }
                    } else {
                        Outcome::Failed {
                            failure: Failure::failed(format!(
                                "GitHub refused the unregister (422): {message}; nothing changed"
                            )),
                        }
                    };
                }
                refusals += 1;
                if !running && refusals >= MAX_REFUSALS {
                    return Outcome::Failed {
                        failure: Failure::failed(format!(
                            "GitHub refused the unregister {refusals} times (422): {message}; nothing changed"
                        )),
                    };
                }
                waited = true;
                // Never ask again at the pacer's pace: GitHub's GET can say idle while the
                // DELETE still finds the job.
                sh.emit(Event::Waiting {
                    runner: name.clone(),
                    reason: if running {
                        WaitReason::Busy
                    } else {
                        WaitReason::Refused
                    },
                    job: job.clone(),
                });
                if let Err(s) = sh.pause(sh.settings.poll_interval).await {
                    return sh.stopped(s, "while waiting for the busy runner; nothing changed");
                }
                if running && let Err(f) = sh.wait_until_idle(&name, id, job.clone()).await {
                    return fail(f, "while waiting for the busy runner; nothing changed");
                }
            }
            // `unregister` only returns the three answers above.
            other => {
                return Outcome::Failed {
                    failure: Failure::failed(format!(
                        "unexpected unregister answer {}",
                        other.status()
                    )),
                };
            }
        }
    }

    // Unregistered: from here on the runner is out of service, so nothing but Ctrl-C stops it
    // before it is confirmed and deleted or held; `--timeout` no longer applies.
    let proof = match confirm(sh, &name, &target, watch_from).await {
        Ok(Confirmed::Gone) if !matches!(target, DeleteTarget::EphemeralRunner { .. }) => {
            return Outcome::Drained {
                deleted: target.display(),
                note: Some(if left_on_its_own {
                    "already gone: the runner left after its job and ARC removed it".into()
                } else {
                    "pod already gone".into()
                }),
            };
        }
        // The pod went away or was replaced: nothing runs on our pod any more. A scale-set
        // EphemeralRunner may still be there with a dead registration: delete it below.
        Ok(Confirmed::Gone) => None,
        Ok(Confirmed::Idle(p)) => Some(p),
        Err(outcome) => return outcome,
    };
    let proof = proof.map(|p| p.describe());
    if let Some(p) = &proof {
        sh.emit(Event::Proven {
            runner: name.clone(),
            proof: p.clone(),
        });
    }

    // Unregistered and confirmed idle: delete the right object, guarded by its uid.
    if let DeleteTarget::Pod { annotate: true, .. } = target {
        match sh
            .cluster(|| sh.k8s.annotate_unregistered(&target), false)
            .await
        {
            Ok(status) => {
                sh.emit(Event::Mutated(Mutation {
                    action: "annotate",
                    target: format!("pod/{}/{}", target.namespace(), target.pod_name()),
                    runner_id: Some(id),
                    status,
                }));
                // 404: gone; 409: a replacement under the same name. Neither is ours to delete.
                if status == 404 || status == 409 {
                    return Outcome::Drained {
                        deleted: target.display(),
                        note: Some(if status == 404 {
                            "pod already gone".into()
                        } else {
                            "replaced by a new pod of the same name, which was left alone".into()
                        }),
                    };
                }
            }
            Err(f) => return fail(f, "while annotating the pod; unregistered, pod kept"),
        }
    }
    match sh.cluster(|| sh.k8s.delete(&target), false).await {
        Ok(d) => {
            sh.emit(Event::Mutated(Mutation {
                action: "delete",
                target: target.display(),
                runner_id: Some(id),
                status: d.status(),
            }));
            Outcome::Drained {
                deleted: target.display(),
                note: match d {
                    // How it was proven idle, for the summary and the JSON document.
                    Deleted::Deleted => proof.map(|p| format!("idle: {p}")),
                    // An ephemeral runner unregisters itself after its job and ARC removes it.
                    Deleted::NotFound if left_on_its_own => Some(
                        "already gone: the runner left after its job and ARC removed it".into(),
                    ),
                    Deleted::NotFound => Some("already gone".into()),
                    Deleted::Replaced => Some(
                        "replaced by a new object of the same name, which was left alone".into(),
                    ),
                },
            }
        }
        Err(f) => fail(f, "while deleting; unregistered, pod kept"),
    }
}

/// Whether a 422 is GitHub's "a job is running" (`Bad request - Runner "NAME" is still running a
/// job`) rather than a validation failure or a refusal for spamming the endpoint.
fn is_busy_refusal(message: &str) -> bool {
    message.contains("still running a job")
}

/// How the idle check ended for a runner that was not held.
enum Confirmed {
    /// The pod with the expected uid is gone or was replaced.
    Gone,
    /// Proven idle.
    Idle(Proof),
}

/// After the unregister: watches the runner until it is proven idle, its pod goes, or a job is
/// seen (held). Proof by absence needs the whole confirm window; positive proof ends it early.
async fn confirm<G: GitHubOps, K: ClusterOps>(
    sh: &Shared<G, K>,
    name: &str,
    target: &DeleteTarget,
    watch_from: jiff::Timestamp,
) -> Result<Confirmed, Outcome> {
    let window_end = Instant::now() + sh.settings.confirm_window;
    let mut tracker = Tracker::new(watch_from.checked_sub(LOG_LOOKBACK).unwrap_or(watch_from));
    let mut step = FIRST_LOOK;
    let mut pages = 0;
    let mut held: Option<String> = None;
    sh.emit(Event::Waiting {
        runner: name.to_owned(),
        reason: WaitReason::ConfirmWindow,
        job: None,
    });
    loop {
        let obs = match sh
            .cluster(|| sh.k8s.observe(target, tracker.read_from()), false)
            .await
        {
            Ok(o) => o,
            Err(ReadFail::Stop(s)) => {
                return Err(sh.stopped(s, "after the unregister, during the idle check; pod kept"));
            }
            Err(ReadFail::Failed(why)) => {
                return Err(Outcome::Held {
                    job: held,
                    reason: Some("not proven idle: the runner could not be observed".into()),
                    cause: Some(why),
                });
            }
        };
        match evidence::judge(&mut tracker, obs) {
            Verdict::Gone => return Ok(Confirmed::Gone),
            Verdict::Idle(proof) => return Ok(Confirmed::Idle(proof)),
            Verdict::Busy(job) => {
                if !sh.settings.wait {
                    return Err(Outcome::Held {
                        job: Some(job),
                        reason: None,
                        cause: None,
                    });
                }
                if held.as_deref() != Some(job.as_str()) {
                    sh.emit(Event::Waiting {
                        runner: name.to_owned(),
                        reason: WaitReason::Held,
                        job: Some(job.clone()),
                    });
                    held = Some(job.clone());
                }
                // Released only by the job's completion line, the container ending or the
                // pod going away: the tracker never forgets a job it has seen.
                if let Err(s) = sh.pause(sh.settings.poll_interval).await {
                    return Err(match s {
                        Stop::Deadline => Outcome::Held {
                            job: Some(job),
                            reason: None,
                            cause: None,
                        },
                        s => sh.stopped(s, "while a held job runs; pod kept"),
                    });
                }
            }
            Verdict::Unproven(Some(Unseen::Cut | Unseen::Earlier)) if pages < MAX_LOG_PAGES => {
                // The rest of a long log, or the part before the first read, right away.
                pages += 1;
            }
            Verdict::Unproven(_) if held.is_some() => {
                // A job was seen: only its completion, the container ending or the pod going
                // away releases the runner, never a quiet spell.
                pages = 0;
                if let Err(s) = sh.pause(sh.settings.poll_interval).await {
                    return Err(match s {
                        Stop::Deadline => Outcome::Held {
                            job: held,
                            reason: None,
                            cause: None,
                        },
                        s => sh.stopped(s, "while a held job runs; pod kept"),
                    });
                }
            }
            Verdict::Unproven(unseen) => {
                pages = 0;
                let now = Instant::now();
                if now >= window_end {
                    let Some(unseen) = unseen else {
                        return Ok(Confirmed::Idle(Proof::Quiet));
                    };
                    let reason = unseen.describe();
                    let cause = unseen.cause().cloned();
                    if !sh.settings.wait {
                        return Err(Outcome::Held {
                            job: None,
                            reason: Some(reason),
                            cause,
                        });
                    }
                    if let Err(s) = sh.pause(sh.settings.poll_interval).await {
                        return Err(match s {
                            Stop::Deadline => Outcome::Held {
                                job: None,
                                reason: Some(reason),
                                cause,
                            },
                            s => sh.stopped(
                                s,
                                "after the unregister, during the idle check; pod kept",
                            ),
                        });
                    }
                    continue;
                }
                let next = (now + step).min(window_end);
                step = (step * 2).min(MAX_LOOK_INTERVAL);
                if let Err(s) = sh.pause_after_unregister(next - now).await {
                    return Err(
                        sh.stopped(s, "after the unregister, in the confirm window; pod kept")
                    );
                }
            }
        }
    }
}
