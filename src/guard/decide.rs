//! One eviction, decided: look the pod up, plan its runner as `drain` would, and deny, allow,
//! or start (or join) the runner's drain (docs/design.md §8).
//!
//! The drain itself is `drain::pipeline`, run for one runner through the guard's one
//! [`Pacer`], so GitHub's pacing and rate-limit waits are shared by every eviction. A drain
//! outlives the review that started it: the review waits a moment for a quick answer (GitHub's
//! 422 comes back in one request), then answers 429 and the evictor's retry reads the result
//! from the map of drains in flight, keyed by pod, so concurrent evictions share one drain.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tracing::instrument::WithSubscriber;

use crate::cluster::{Cluster, ContainerState, Mode, RunnerPod, running_job};
use crate::context::Interrupt;
use crate::drain::edges::{self, ClusterEdge, GitHubEdge};
use crate::drain::event::{Event, Outcome, WaitReason};
use crate::drain::pacer::{Answer as PacerAnswer, Call, Pacer};
use crate::drain::pipeline::{self, Settings};
use crate::drain::plan::{self, Action, PlanOptions, SkipReason, Step};
use crate::github::{self, GitHubClient};
use crate::guard::metrics::Metrics;
use crate::guard::review::{Answer, Eviction};
use crate::inventory::{self, Inventory};

/// How the guard drains and answers.
#[derive(Debug, Clone)]
pub struct GuardSettings {
    /// The pipeline's settings for each runner (`--confirm-window`, `--max-unregister-rate`).
    pub pipeline: Settings,
    /// How long a review waits for a drain's first result before answering "being drained".
    pub quick_answer: Duration,
    /// Only pods of these namespaces are guarded (`-n`); `None`: every namespace the webhook
    /// configuration sends.
    pub namespaces: Option<Vec<String>>,
}

impl Default for GuardSettings {
    fn default() -> Self {
        GuardSettings {
            pipeline: Settings::default(),
            quick_answer: Duration::from_secs(2),
            namespaces: None,
        }
    }
}

/// What the guard decided for one eviction, and why (for the evictor, logs and metrics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Let the eviction through.
    Allow(String),
    /// The runner runs a job: 429, retry later.
    Busy(String),
    /// The runner is being drained (or has been, and its pod is going): 429, retry.
    Draining(String),
    /// The guard could not decide safely: 429, retry.
    Failed(String),
}

impl Decision {
    /// The answer to the API server: every refusal is a 429, so every evictor retries.
    pub fn answer(&self) -> Answer {
        match self {
            Decision::Allow(_) => Answer::Allow,
            Decision::Busy(m) | Decision::Draining(m) | Decision::Failed(m) => Answer::Deny {
                code: 429,
                message: m.clone(),
            },
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Decision::Allow(_) => "allowed",
            Decision::Busy(_) => "denied-busy",
            Decision::Draining(_) => "denied-draining",
            Decision::Failed(_) => "failed",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Decision::Allow(m)
            | Decision::Busy(m)
            | Decision::Draining(m)
            | Decision::Failed(m) => m,
        }
    }
}

/// A runner's drain in flight (or finished, while its pod is still there).
#[derive(Clone)]
struct Drain {
    pod_uid: String,
    /// `None` while it runs.
    outcome: watch::Receiver<Option<Outcome>>,
    /// While it waits for a job to end (before the unregister, or held after it): the job,
    /// when known.
    busy: Arc<Mutex<Option<Option<String>>>>,
    /// Stops this drain at its next safe point (shutdown, or its pod was let go).
    cancel: Interrupt,
    /// Where the job it waits for comes from, as ARC recorded it when the drain started.
    origin: JobOrigin,
}

/// The repository and workflow run of a runner's job, when ARC recorded them (an
/// EphemeralRunner's `status.jobRepositoryName` and `status.workflowRunId`, docs/design.md §7.3);
/// an EphemeralRunner runs one job, so what its drain started with stays true.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct JobOrigin {
    repository: Option<String>,
    run: Option<String>,
}

/// The webhook's state: clients, the one pacer, the drains in flight, the counters.
pub struct Guard {
    github: Arc<GitHubClient>,
    cluster: Arc<Cluster>,
    settings: GuardSettings,
    pacer: Arc<Pacer>,
    drains: Mutex<HashMap<(String, String), Drain>>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Stops every drain at its next safe point (shutdown).
    stop: Interrupt,
    pub metrics: Metrics,
}

type Key = (String, String);

impl Guard {
    pub fn new(github: Arc<GitHubClient>, cluster: Arc<Cluster>, settings: GuardSettings) -> Self {
        Guard {
            github,
            cluster,
            pacer: Arc::new(Pacer::new(
                settings.pipeline.rate,
                settings.pipeline.concurrency,
            )),
            settings,
            drains: Mutex::new(HashMap::new()),
            tasks: Mutex::new(Vec::new()),
            stop: Interrupt::default(),
            metrics: Metrics::default(),
        }
    }

    fn drains(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Drain>> {
        self.drains
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stops the drains in flight at their next safe point and waits for them.
    pub async fn shutdown(&self) {
        self.stop.trigger();
        for d in self.drains().values() {
            d.cancel.trigger();
        }
        let tasks = std::mem::take(
            &mut *self
                .tasks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for t in tasks {
            let _ = t.await;
        }
    }

    /// Decides one eviction.
    pub async fn decide(self: &Arc<Self>, e: &Eviction) -> Decision {
        let key = (e.namespace.clone(), e.pod.clone());
        if let Some(only) = &self.settings.namespaces
            && !only.contains(&e.namespace)
        {
            return Decision::Allow(format!("namespace `{}` is not guarded", e.namespace));
        }
        let pod = match self.cluster.get_runner_pod(&e.namespace, &e.pod).await {
            Ok(Some(pod)) => pod,
            Ok(None) => {
                self.drains().remove(&key);
                return Decision::Allow("not an ARC runner pod (or gone)".to_owned());
            }
            Err(err) => {
                return Decision::Failed(format!(
                    "arcctl guard could not read pod `{}/{}` ({}); retry",
                    e.namespace,
                    e.pod,
                    explain(&err)
                ));
            }
        };
        if pod.deleting {
            self.drains().remove(&key);
            return Decision::Allow(format!("runner pod `{}` is already terminating", pod.name));
        }
        let running = self.in_flight(&key, &pod.uid);
        // A drain waiting for a job is looked past when the runner container of a legacy pod
        // is not running: between two jobs a RunnerSet pod restarts its runner and registers
        // anew, and at that moment (no registration, no runner) it can go.
        let look_again = running.as_ref().is_some_and(|d| d.is_busy())
            && pod.mode != Mode::ScaleSet
            && !container_running(pod.runner_container.as_ref());
        if let Some(d) = &running
            && !look_again
        {
            return self
                .follow(&key, &pod.name, d.clone(), Duration::ZERO)
                .await;
        }
        let (step, container, origin) = match self.step(pod).await {
            Ok(found) => found,
            Err(d) => return d,
        };
        let runner = step.candidate.name.clone();
        if let Some(d) = running {
            if !matches!(step.action, Action::Skip(SkipReason::PodOnly)) {
                return self.follow(&key, &runner, d, Duration::ZERO).await;
            }
            let decision = self.unregistered(&step, container.as_ref(), &origin).await;
            // A dry run changes nothing, not even the drain it looked past.
            if matches!(decision, Decision::Allow(_)) && !e.dry_run {
                d.cancel.trigger();
                self.drains().remove(&key);
            }
            return decision;
        }
        match &step.action {
            Action::Skip(SkipReason::Busy { job }) => {
                Decision::Busy(busy(&runner, job.as_deref(), &origin))
            }
            Action::Skip(SkipReason::BusyAtUnregister) => {
                Decision::Busy(busy(&runner, None, &origin))
            }
            Action::Skip(SkipReason::PodOnly | SkipReason::RegistrationOnly) => {
                self.unregistered(&step, container.as_ref(), &origin).await
            }
            Action::Skip(SkipReason::Conflict) => Decision::Failed(format!(
                "runner pod `{runner}` records another runner id than GitHub's registration of that name; arcctl leaves it alone"
            )),
            Action::Drain {
                wait_first: true, ..
            } if e.dry_run => Decision::Busy(busy(&runner, step.candidate.job.as_deref(), &origin)),
            Action::Drain { .. } if e.dry_run => Decision::Allow(format!(
                "dry run: runner `{runner}` is idle and would be drained"
            )),
            Action::Drain { .. } => {
                let d = self.start(key.clone(), step, origin);
                self.follow(&key, &runner, d, self.settings.quick_answer)
                    .await
            }
        }
    }

    /// The drain of `key`'s pod, if one is in flight for this very pod (a pod of the same
    /// name with another uid starts over).
    fn in_flight(&self, key: &Key, uid: &str) -> Option<Drain> {
        let mut drains = self.drains();
        match drains.get(key) {
            Some(d) if d.pod_uid == uid => Some(d.clone()),
            Some(_) => {
                drains.remove(key);
                None
            }
            None => None,
        }
    }

    /// The runner of `pod` as `drain` would plan it: GitHub's registration of its name
    /// (through the pacer), its EphemeralRunner, the job from its log when busy; and where
    /// that job comes from, when its EphemeralRunner says.
    async fn step(
        &self,
        pod: RunnerPod,
    ) -> Result<(Step, Option<ContainerState>, JobOrigin), Decision> {
        let name = pod.name.clone();
        let registration = {
            let permit = self.pacer.enter(Call::Read).await;
            let found = self.github.find_runner_by_name(&name).await;
            let _ = permit.finish(match &found {
                Err(github::ReadError::RateLimited { limit, .. }) => PacerAnswer::Refused(*limit),
                Err(github::ReadError::Other(_)) => PacerAnswer::Lost,
                _ => PacerAnswer::Accepted,
            });
            match found {
                Ok(r) => r,
                Err(
                    github::ReadError::Denied(err)
                    | github::ReadError::Other(err)
                    | github::ReadError::RateLimited { error: err, .. },
                ) => {
                    return Err(Decision::Failed(format!(
                        "arcctl guard could not look runner `{name}` up on GitHub ({}); retry",
                        explain(&err)
                    )));
                }
            }
        };
        let ephemeral = match (&pod.mode, &pod.owner) {
            (Mode::ScaleSet, Some(owner)) => {
                match self
                    .cluster
                    .get_ephemeral_runner(&pod.namespace, &owner.name)
                    .await
                {
                    Ok(er) => er,
                    Err(err) => {
                        return Err(Decision::Failed(format!(
                            "arcctl guard could not read the EphemeralRunner of `{name}` ({}); retry",
                            explain(&err)
                        )));
                    }
                }
            }
            _ => None,
        };
        let origin = ephemeral
            .as_ref()
            .filter(|er| er.job_id.is_some())
            .map(|er| JobOrigin {
                repository: er.job_repository.clone(),
                run: er.workflow_run_id.clone(),
            })
            .unwrap_or_default();
        let mut inv = Inventory {
            entries: inventory::join(
                registration.into_iter().collect(),
                vec![pod],
                ephemeral.into_iter().collect(),
            ),
            warnings: Vec::new(),
        };
        inventory::fill_jobs_from_logs(&self.cluster, &mut inv).await;
        let Some(entry) = inv.entries.iter().find(|e| e.pod.is_some()) else {
            return Err(Decision::Failed(format!(
                "arcctl guard lost runner pod `{name}` while looking it up; retry"
            )));
        };
        // `--wait`: a busy runner's drain waits for its job to end and unregisters it at once,
        // before GitHub can hand it the next job (a persistent runner is rarely idle for long).
        let mut steps = plan::plan(&[edges::candidate(entry)], PlanOptions { wait: true });
        let container = entry.pod.as_ref().and_then(|p| p.runner_container.clone());
        Ok((steps.remove(0), container, origin))
    }

    /// A runner pod with no registration (starting up, re-registering, or unregistered by
    /// someone): a running runner container may register and take a job the next moment, and
    /// a bare scale-set pod would come back with a used registration (docs/design.md §7.1), so
    /// only a legacy pod whose runner container has ended (and logged no job) goes.
    async fn unregistered(
        &self,
        step: &Step,
        container: Option<&ContainerState>,
        origin: &JobOrigin,
    ) -> Decision {
        let runner = &step.candidate.name;
        let Some(pod) = &step.candidate.pod else {
            return Decision::Allow(format!("runner `{runner}` has no pod"));
        };
        let legacy = !matches!(pod.owner, plan::Owner::EphemeralRunner { .. });
        if legacy && !container_running(container) {
            // No runner process: no job runs, and none can be taken before the eviction lands
            // (a restarted runner needs seconds to register).
            return Decision::Allow(format!(
                "runner `{runner}` has no GitHub registration and its runner container is not running"
            ));
        }
        match self
            .cluster
            .runner_log_tail(&pod.namespace, &pod.name, 200)
            .await
        {
            Ok(log) => {
                if let Some(job) = running_job(&log) {
                    return Decision::Busy(busy(runner, Some(&job), origin));
                }
            }
            Err(err) => {
                return Decision::Failed(format!(
                    "runner `{runner}` has no GitHub registration and its log cannot be read ({}); retry",
                    explain(&err)
                ));
            }
        }
        match pod.owner {
            plan::Owner::EphemeralRunner { .. } => Decision::Draining(format!(
                "runner `{runner}` has no GitHub registration (starting up, or being removed by ARC); retry"
            )),
            _ => Decision::Draining(format!(
                "runner `{runner}` has no GitHub registration yet and its runner may register at any moment; retry"
            )),
        }
    }

    /// Starts the drain of `key`, or joins the one already in flight.
    fn start(self: &Arc<Self>, key: Key, step: Step, origin: JobOrigin) -> Drain {
        let pod_uid = step
            .candidate
            .pod
            .as_ref()
            .map(|p| p.uid.clone())
            .unwrap_or_default();
        let mut drains = self.drains();
        if let Some(d) = drains.get(&key).filter(|d| d.pod_uid == pod_uid) {
            return d.clone();
        }
        let (tx, rx) = watch::channel(None);
        let busy_now = match &step.action {
            Action::Drain {
                wait_first: true, ..
            } => Some(step.candidate.job.clone()),
            _ => None,
        };
        let drain = Drain {
            pod_uid,
            outcome: rx,
            busy: Arc::new(Mutex::new(busy_now)),
            cancel: Interrupt::default(),
            origin,
        };
        if self.stop.is_triggered() {
            drain.cancel.trigger();
        }
        let status = Arc::clone(&drain.busy);
        let cancel = drain.cancel.clone();
        drains.insert(key, drain.clone());
        drop(drains);
        Metrics::inc(&self.metrics.drains);
        let guard = Arc::clone(self);
        let runner = step.candidate.name.clone();
        tracing::info!(runner = %runner, "drain started");
        let task = tokio::spawn(
            async move {
                let (events, mut rx_events) = mpsc::unbounded_channel();
                let log = tokio::spawn(
                    async move {
                        while let Some(event) = rx_events.recv().await {
                            tracing::info!(event = ?event, "drain");
                            let mut busy = status
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                            match event {
                                Event::Waiting {
                                    reason: WaitReason::Busy | WaitReason::Held,
                                    job,
                                    ..
                                } => *busy = Some(job.or_else(|| busy.clone().flatten())),
                                Event::Waiting { .. }
                                | Event::Unregistered { .. }
                                | Event::Proven { .. } => *busy = None,
                                _ => {}
                            }
                        }
                    }
                    .with_current_subscriber(),
                );
                let result = pipeline::run_paced(
                    GitHubEdge(Arc::clone(&guard.github)),
                    ClusterEdge(Arc::clone(&guard.cluster)),
                    vec![step],
                    guard.settings.pipeline.clone(),
                    events,
                    cancel,
                    Arc::clone(&guard.pacer),
                )
                .await;
                let _ = log.await;
                let outcome = result.outcomes.into_iter().next().map(|(_, o)| o);
                let outcome = outcome.unwrap_or(Outcome::Stopped {
                    stage: "the drain task ended without an outcome".to_owned(),
                });
                if matches!(
                    outcome,
                    Outcome::Failed { .. } | Outcome::TimedOut { .. } | Outcome::Stopped { .. }
                ) {
                    Metrics::inc(&guard.metrics.failures);
                }
                tracing::info!(runner = %runner, outcome = outcome.label(), "drain finished");
                tx.send_replace(Some(outcome));
            }
            .with_current_subscriber(),
        );
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
        drain
    }

    /// The answer for a runner whose drain is (or was) in flight, after waiting up to `wait`
    /// for its result. A drain that ended without unregistering (busy, failed) is forgotten,
    /// so the next retry starts over; a drained or held runner is remembered until its pod goes.
    async fn follow(&self, key: &Key, runner: &str, d: Drain, wait: Duration) -> Decision {
        let mut rx = d.outcome.clone();
        if !wait.is_zero() {
            let _ = tokio::time::timeout(wait, rx.wait_for(Option::is_some)).await;
        }
        let outcome = rx.borrow().clone();
        let busy_now = d
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let forget = || {
            let mut drains = self.drains();
            if drains.get(key).is_some_and(|x| x.pod_uid == d.pod_uid) {
                drains.remove(key);
            }
        };
        match outcome {
            None if busy_now.is_some() => Decision::Busy(format!(
                "{} (arcctl drains it when the job ends)",
                busy(runner, busy_now.flatten().as_deref(), &d.origin)
            )),
            None => Decision::Draining(format!(
                "runner `{runner}` is being drained by arcctl (unregistered, confirming it idle); retry"
            )),
            Some(Outcome::Drained { deleted, .. }) => Decision::Draining(format!(
                "runner `{runner}` was drained by arcctl ({deleted} deleted); its pod is going away, retry"
            )),
            Some(Outcome::Held { job, reason, .. }) => {
                let mut m = busy(runner, job.as_deref(), &d.origin);
                if let Some(reason) = reason {
                    m.push_str(&format!(" (held: {reason})"));
                }
                Decision::Busy(m)
            }
            Some(Outcome::Skipped { reason }) => {
                forget();
                match reason {
                    SkipReason::Busy { job } => {
                        Decision::Busy(busy(runner, job.as_deref(), &d.origin))
                    }
                    SkipReason::BusyAtUnregister => Decision::Busy(busy(runner, None, &d.origin)),
                    other => Decision::Failed(format!(
                        "runner `{runner}` was not drained: {}; retry",
                        other.describe()
                    )),
                }
            }
            Some(Outcome::Failed { failure }) => {
                forget();
                Decision::Failed(format!(
                    "the drain of runner `{runner}` failed ({}); retry",
                    chain(&failure.message, &failure.causes)
                ))
            }
            Some(Outcome::TimedOut { stage } | Outcome::Stopped { stage }) => {
                forget();
                Decision::Failed(format!(
                    "the drain of runner `{runner}` stopped ({stage}); retry"
                ))
            }
        }
    }
}

impl Drain {
    /// Whether it waits for a job to end.
    fn is_busy(&self) -> bool {
        self.busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some()
    }
}

/// An error's message and its cause chain, for the evictor (what `kubectl drain` prints):
/// "failed to read pod `ns/p`: Kubernetes denied `get` on `pods` …".
fn explain(err: &crate::error::Error) -> String {
    chain(err.message(), &err.causes())
}

fn chain(message: &str, causes: &[String]) -> String {
    let mut out = message.to_owned();
    for c in causes {
        out.push_str(": ");
        out.push_str(c);
    }
    out
}

/// Whether the runner container runs (unknown counts as running).
fn container_running(c: Option<&ContainerState>) -> bool {
    c.is_none_or(|c| c.state == "running")
}

/// The denial of a busy runner: names it, its job and, when known, the job's repository and
/// workflow run ("runner `r` is running job \"build\" of acme/app (workflow run 7001); …").
fn busy(runner: &str, job: Option<&str>, origin: &JobOrigin) -> String {
    let mut m = match job {
        Some(job) => format!("runner `{runner}` is running job \"{job}\""),
        None => format!("runner `{runner}` is running a job"),
    };
    if let Some(repo) = &origin.repository {
        m.push_str(&format!(" of {repo}"));
    }
    if let Some(run) = &origin.run {
        m.push_str(&format!(" (workflow run {run})"));
    }
    m.push_str("; retry after it ends");
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_is_a_429_that_names_the_runner() {
        let d = Decision::Busy(busy("r-1", Some("build"), &JobOrigin::default()));
        assert_eq!(
            d.answer(),
            Answer::Deny {
                code: 429,
                message: "runner `r-1` is running job \"build\"; retry after it ends".into()
            }
        );
        assert_eq!(
            Decision::Failed("x".into()).answer(),
            Answer::Deny {
                code: 429,
                message: "x".into()
            }
        );
        assert_eq!(Decision::Allow("y".into()).answer(), Answer::Allow);
    }

    #[test]
    fn a_busy_denial_names_the_repository_and_run_when_known() {
        let origin = JobOrigin {
            repository: Some("acme/app".into()),
            run: Some("7001".into()),
        };
        assert_eq!(
            busy("r-1", Some("build"), &origin),
            "runner `r-1` is running job \"build\" of acme/app (workflow run 7001); retry after it ends"
        );
        assert_eq!(
            busy(
                "r-1",
                None,
                &JobOrigin {
                    run: None,
                    ..origin
                }
            ),
            "runner `r-1` is running a job of acme/app; retry after it ends"
        );
        assert_eq!(
            busy("r-1", None, &JobOrigin::default()),
            "runner `r-1` is running a job; retry after it ends"
        );
    }
}
