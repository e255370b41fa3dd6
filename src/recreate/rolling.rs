//! Batch after batch: each batch through drain's pipeline, then a wait until every deleted
//! runner's replacement is ready, and only then the next batch.
//!
//! Capacity: the runners of a batch are out of service until their replacements are ready,
//! so with `--wait-ready` at most `--batch-size` runners are ever out at once. A runner
//! unregistered but kept (held by a job that started during unregistration, or failed after
//! the unregister) stays out of service, so it uses up room in every later batch; a
//! replacement that never comes stops the run from starting more batches.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::cluster::{Cluster, NamespaceScope, PodSelection, RunnerPod};
use crate::context::Interrupt;
use crate::drain::edges::{ClusterEdge, GitHubEdge};
use crate::drain::event::{Event, Outcome};
use crate::drain::pacer::{Answer, Call, Pacer, RateReport};
use crate::drain::pipeline::{self, Settings};
use crate::drain::plan::Step;
use crate::error::{Failure, Kind};
use crate::github::{GitHubClient, ReadError as GhReadError};
use crate::recreate::batch;
use crate::recreate::ready::{self, Expectation, PodKey, Replacement};

/// Name look-ups per poll beyond two per awaited replacement (ARC may be starting other
/// runners of the same pool at the same time).
const MAX_EXTRA_LOOKUPS: usize = 8;
/// Name look-ups in flight at once.
const LOOKUP_CONCURRENCY: usize = 4;

/// How the rolling recreate behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// Runners per batch.
    pub batch: usize,
    /// Wait for replacements before the next batch.
    pub wait_ready: bool,
    /// How long to wait for the replacements of one batch.
    pub ready_timeout: Duration,
    /// How often to look for replacements.
    pub ready_poll: Duration,
}

/// What became of a runner's replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplacementStatus {
    /// Found: Running and online.
    Ready(Replacement),
    /// Not ready within `--ready-timeout` (or the wait was cut short by Ctrl-C).
    Missing {
        waited: Duration,
        last_error: Option<Failure>,
    },
    /// `--no-wait-ready`, or the run stopped before the wait.
    NotWaited,
    /// Its pod or ARC object was already gone when its turn came (it took a job, finished and
    /// ARC replaced it, as ephemeral runners are): nothing of ours to wait for.
    AlreadyReplaced,
    /// Nothing will replace it, and why.
    NotExpected(String),
}

/// One selected runner and what the recreate did with it.
#[derive(Debug, Clone)]
pub struct Row {
    pub step: Step,
    pub outcome: Outcome,
    /// The batch it was in (1-based); `None` for skipped or never started runners.
    pub batch: Option<usize>,
    /// Its replacement, for runners whose pod or ARC object was deleted.
    pub replacement: Option<ReplacementStatus>,
}

/// One batch, for the summary.
#[derive(Debug, Clone)]
pub struct BatchRecord {
    pub index: usize,
    pub runners: Vec<String>,
    pub ready: usize,
    pub missing: usize,
}

/// What a rolling recreate reports while it runs, for `output`.
#[derive(Debug)]
pub enum Progress<'a> {
    BatchStarted { index: usize, runners: &'a [String] },
    Replaced { old: &'a str, by: &'a Replacement },
    Missing { old: &'a str, waited: Duration },
    Halted { reason: &'a str },
}

/// What a rolling recreate did.
#[derive(Debug)]
pub struct RollingResult {
    /// Every step with its outcome, in plan order.
    pub rows: Vec<Row>,
    pub batches: Vec<BatchRecord>,
    pub interrupted: bool,
    /// Set when GitHub or Kubernetes denied permission and the run stopped.
    pub denied: Option<Failure>,
    /// Why no further batch was started, when the run stopped early.
    pub halted: Option<String>,
    /// What GitHub's rate limits cost the whole run.
    pub rate_limits: RateReport,
}

/// The clients a recreate talks to.
pub struct Clients {
    pub github: Arc<GitHubClient>,
    pub cluster: Arc<Cluster>,
    /// Where replacements may appear: the namespaces the runners were listed in.
    pub namespaces: NamespaceScope,
}

/// What the event tap learnt about a batch's runners.
#[derive(Debug, Default)]
struct Tap {
    finished: HashMap<String, Instant>,
    /// Runners whose pod or ARC object this run deleted (200), so ARC replaces them.
    deleted: HashSet<String>,
    unregistered: HashSet<String>,
}

/// Forwards a batch's events to the reporter and notes deletions and finish times.
fn tap(
    mut rx: mpsc::UnboundedReceiver<Event>,
    out: mpsc::UnboundedSender<Event>,
) -> tokio::task::JoinHandle<Tap> {
    tokio::spawn(async move {
        let mut t = Tap::default();
        while let Some(e) = rx.recv().await {
            match &e {
                Event::Finished { runner, .. } => {
                    t.finished.insert(runner.clone(), Instant::now());
                }
                // A runner that may be unregistered is out of service as far as the batch
                // size is concerned.
                Event::Unregistered { runner, .. } | Event::MaybeUnregistered { runner } => {
                    t.unregistered.insert(runner.clone());
                }
                // The target is `pod/NS/NAME` or `ephemeralrunner/NS/NAME`; both names equal
                // the runner's name in every ARC mode.
                Event::Mutated(m) if m.action == "delete" && m.status == 200 => {
                    if let Some(name) = m.target.rsplit('/').next() {
                        t.deleted.insert(name.to_owned());
                    }
                }
                _ => {}
            }
            let _ = out.send(e);
        }
        t
    })
}

/// Where a recreate reports: drain's events (progress lines, audit log) and its own progress.
pub struct Sinks<'a> {
    pub events: mpsc::UnboundedSender<Event>,
    pub progress: &'a (dyn Fn(Progress<'_>) + Send + Sync),
}

/// Runs the recreate: skipped steps at once, then the rest batch by batch. `pods` are the
/// selected runners' pods by runner name, as the inventory saw them.
pub async fn run(
    clients: &Clients,
    steps: Vec<Step>,
    pods: &HashMap<String, RunnerPod>,
    settings: Settings,
    opts: &Options,
    sinks: Sinks<'_>,
    interrupt: Interrupt,
) -> RollingResult {
    let Sinks { events, progress } = sinks;
    let gh = GitHubEdge(Arc::clone(&clients.github));
    let k8s = ClusterEdge(Arc::clone(&clients.cluster));
    let n = steps.len();
    let queue = batch::queue(&steps);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; n];
    let mut batch_of: Vec<Option<usize>> = vec![None; n];
    let mut repl: Vec<Option<ReplacementStatus>> = vec![None; n];
    let mut batches = Vec::new();
    let mut denied = None;
    let mut halted: Option<String> = None;
    let deadline = settings.timeout.map(|t| Instant::now() + t);
    // One pacer for every batch and the replacement lookups: a rate-limit wait and a lowered
    // pace carry over from one batch to the next.
    let pacer = Arc::new(Pacer::new(settings.rate, settings.concurrency));

    // Skipped runners: the pipeline reports them without touching anything.
    let queued: HashSet<usize> = queue.iter().copied().collect();
    let skips: Vec<usize> = (0..n).filter(|i| !queued.contains(i)).collect();
    if !skips.is_empty() {
        let r = pipeline::run_paced(
            gh.clone(),
            k8s.clone(),
            skips.iter().map(|&i| steps[i].clone()).collect(),
            settings.clone(),
            events.clone(),
            interrupt.clone(),
            Arc::clone(&pacer),
        )
        .await;
        for (&i, (_, o)) in skips.iter().zip(r.outcomes) {
            outcomes[i] = Some(o);
        }
    }

    let mut taken: BTreeSet<PodKey> = BTreeSet::new();
    // Runners this run unregistered that are neither deleted nor replaced: out of service.
    let mut out_of_service = 0usize;
    let mut pos = 0;
    while pos < queue.len() {
        if interrupt.is_triggered() {
            halted = Some("interrupted".into());
            break;
        }
        let room = opts.batch.saturating_sub(out_of_service);
        if room == 0 {
            halted = Some(format!(
                "{out_of_service} runner(s) unregistered but not replaced use up the batch size"
            ));
            break;
        }
        let remaining = match deadline {
            Some(d) => {
                let r = d.saturating_duration_since(Instant::now());
                if r.is_zero() {
                    halted = Some("--timeout reached".into());
                    break;
                }
                Some(r)
            }
            None => None,
        };
        let take: Vec<usize> = queue[pos..(pos + room).min(queue.len())].to_vec();
        let before = if opts.wait_ready {
            match snapshot(clients).await {
                Ok(b) => b,
                Err(e) => {
                    if e.kind() == Kind::Auth {
                        denied = Some(Failure::from(&e));
                    }
                    halted = Some(format!("could not list the runner pods: {e}"));
                    break;
                }
            }
        } else {
            BTreeSet::new()
        };
        pos += take.len();
        let index = batches.len() + 1;
        let names: Vec<String> = take
            .iter()
            .map(|&i| steps[i].candidate.name.clone())
            .collect();
        progress(Progress::BatchStarted {
            index,
            runners: &names,
        });
        for &i in &take {
            batch_of[i] = Some(index);
        }

        let (btx, brx) = mpsc::unbounded_channel();
        let tapped = tap(brx, events.clone());
        let mut s = settings.clone();
        s.timeout = remaining;
        let r = pipeline::run_paced(
            gh.clone(),
            k8s.clone(),
            take.iter().map(|&i| steps[i].clone()).collect(),
            s,
            btx,
            interrupt.clone(),
            Arc::clone(&pacer),
        )
        .await;
        let t = tapped.await.unwrap_or_default();

        let mut expected: Vec<(usize, Expectation)> = Vec::new();
        for (&i, (_, o)) in take.iter().zip(r.outcomes) {
            let name = &steps[i].candidate.name;
            if matches!(o, Outcome::Drained { .. }) {
                repl[i] = Some(expectation_for(&steps[i], pods, &t, &mut expected, i));
            } else if t.unregistered.contains(name) {
                out_of_service += 1;
            }
            outcomes[i] = Some(o);
        }
        let mut record = BatchRecord {
            index,
            runners: names,
            ready: 0,
            missing: 0,
        };
        if r.denied.is_some() {
            denied = r.denied;
            batches.push(record);
            halted = Some("permission denied".into());
            break;
        }
        if !opts.wait_ready || r.interrupted {
            for (i, _) in &expected {
                repl[*i] = Some(ReplacementStatus::NotWaited);
            }
            batches.push(record);
            continue;
        }
        let gate = Gate {
            pacer: &pacer,
            events: &events,
        };
        let waited = wait_ready(
            clients,
            (&expected, &before),
            &mut taken,
            opts,
            &interrupt,
            gate,
        )
        .await;
        for ((i, e), found) in expected.iter().zip(waited.found) {
            let status = match found {
                Some(rep) => {
                    progress(Progress::Replaced {
                        old: &e.old,
                        by: &rep,
                    });
                    record.ready += 1;
                    ReplacementStatus::Ready(rep)
                }
                // Ctrl-C cut the wait short: not a replacement that failed to come.
                None if waited.interrupted => ReplacementStatus::NotWaited,
                None => {
                    let w = Instant::now().saturating_duration_since(e.since);
                    progress(Progress::Missing {
                        old: &e.old,
                        waited: w,
                    });
                    record.missing += 1;
                    ReplacementStatus::Missing {
                        waited: w,
                        last_error: waited.last_error.clone(),
                    }
                }
            };
            repl[*i] = Some(status);
        }
        let missing = record.missing;
        batches.push(record);
        if let Some(d) = waited.denied {
            denied = Some(d);
            halted = Some("permission denied".into());
            break;
        }
        if waited.interrupted {
            halted = Some("interrupted".into());
            break;
        }
        if missing > 0 {
            halted = Some(format!(
                "{missing} replacement(s) of batch {index} not ready within --ready-timeout"
            ));
            break;
        }
    }

    if let Some(reason) = &halted
        && pos < queue.len()
    {
        progress(Progress::Halted { reason });
    }
    for &i in &queue[pos..] {
        outcomes[i] = Some(Outcome::Stopped {
            stage: format!(
                "not started: {}; nothing changed",
                halted.as_deref().unwrap_or("the run stopped")
            ),
        });
    }
    let rows = steps
        .into_iter()
        .enumerate()
        .map(|(i, step)| Row {
            step,
            outcome: outcomes[i].take().unwrap_or(Outcome::Failed {
                failure: Failure::failed("internal error: no outcome was recorded"),
            }),
            batch: batch_of[i],
            replacement: repl[i].take(),
        })
        .collect();
    RollingResult {
        rows,
        batches,
        interrupted: interrupt.is_triggered(),
        denied,
        halted,
        rate_limits: pacer.report(),
    }
}

/// What to wait for after a drained runner: its replacement, or why there is none.
fn expectation_for(
    step: &Step,
    pods: &HashMap<String, RunnerPod>,
    t: &Tap,
    expected: &mut Vec<(usize, Expectation)>,
    i: usize,
) -> ReplacementStatus {
    let name = &step.candidate.name;
    if !t.deleted.contains(name) {
        return ReplacementStatus::AlreadyReplaced;
    }
    let since = t.finished.get(name).copied().unwrap_or_else(Instant::now);
    let e = pods.get(name).and_then(|p| {
        ready::expectation(p, step.candidate.runner_id.unwrap_or_default(), since, name)
    });
    match e {
        Some(e) => {
            expected.push((i, e));
            // Replaced by the wait's result; stays so with --no-wait-ready.
            ReplacementStatus::NotWaited
        }
        None => ReplacementStatus::NotExpected(
            "the pod has no ARC owner (or pool) that would replace it".into(),
        ),
    }
}

/// The runner pods that exist now, in the namespaces replacements may appear in.
async fn snapshot(clients: &Clients) -> crate::error::Result<BTreeSet<PodKey>> {
    let pods = clients
        .cluster
        .list_runner_pods(&clients.namespaces, &PodSelection::default())
        .await?;
    Ok(pods.into_iter().map(|p| (p.namespace, p.name)).collect())
}

struct Waited {
    found: Vec<Option<Replacement>>,
    last_error: Option<Failure>,
    interrupted: bool,
    denied: Option<Failure>,
}

/// The run's pacer, which the replacement lookups pass like the pipeline's GitHub calls, and
/// where a rate-limit wait they begin is told.
#[derive(Clone, Copy)]
struct Gate<'a> {
    pacer: &'a Pacer,
    events: &'a mpsc::UnboundedSender<Event>,
}

impl Gate<'_> {
    /// Looks a runner up by name once the pacer lets a read go; `None` when Ctrl-C or
    /// `until` came first (the lookup was not made).
    async fn find(
        self,
        clients: &Clients,
        name: &str,
        until: Instant,
        interrupt: &Interrupt,
    ) -> Option<Result<Option<crate::github::Runner>, GhReadError>> {
        let permit = tokio::select! {
            p = self.pacer.enter(Call::Read) => p,
            () = tokio::time::sleep_until(until) => return None,
            () = interrupt.triggered() => return None,
        };
        let r = clients.github.find_runner_by_name(name).await;
        let answer = match &r {
            Ok(_) | Err(GhReadError::Denied(_)) => Answer::Accepted,
            Err(GhReadError::RateLimited { limit, .. }) => Answer::Refused(*limit),
            Err(GhReadError::Other(_)) => Answer::Lost,
        };
        if let Some(spell) = permit.finish(answer) {
            let _ = self.events.send(Event::RateLimited(spell));
        }
        Some(r)
    }
}

/// Polls pods and registrations until every expectation has a ready replacement, the ready
/// timeout passes, or Ctrl-C.
async fn wait_ready(
    clients: &Clients,
    (expected, before): (&[(usize, Expectation)], &BTreeSet<PodKey>),
    taken: &mut BTreeSet<PodKey>,
    opts: &Options,
    interrupt: &Interrupt,
    gate: Gate<'_>,
) -> Waited {
    let mut w = Waited {
        found: vec![None; expected.len()],
        last_error: None,
        interrupted: false,
        denied: None,
    };
    let until = Instant::now() + opts.ready_timeout;
    loop {
        let open: Vec<usize> = (0..expected.len())
            .filter(|&k| w.found[k].is_none())
            .collect();
        if open.is_empty() {
            return w;
        }
        let all = PodSelection::default();
        let mut nap = opts.ready_poll;
        match clients
            .cluster
            .list_runner_pods(&clients.namespaces, &all)
            .await
        {
            Ok(pods) => {
                let waiting: Vec<&Expectation> = open.iter().map(|&k| &expected[k].1).collect();
                let lookups = ready::candidates(&waiting, before, taken, &pods);
                let mut regs = Vec::new();
                // A few at a time, and never more than a handful beyond what is waited for.
                let names: Vec<String> = lookups
                    .iter()
                    .take(open.len() * 2 + MAX_EXTRA_LOOKUPS)
                    .map(|p| p.name.clone())
                    .collect();
                let mut found = futures::stream::iter(names)
                    .map(|n| async move { gate.find(clients, &n, until, interrupt).await })
                    .buffer_unordered(LOOKUP_CONCURRENCY);
                while let Some(r) = found.next().await {
                    let Some(r) = r else { continue };
                    match r {
                        Ok(Some(reg)) => regs.push(reg),
                        Ok(None) => {}
                        Err(GhReadError::Denied(e)) => {
                            w.denied = Some(Failure::from(e));
                            return w;
                        }
                        Err(GhReadError::RateLimited { wait, error, .. }) => {
                            nap = nap.max(wait);
                            w.last_error = Some(Failure::from(error));
                        }
                        Err(GhReadError::Other(e)) => w.last_error = Some(Failure::from(e)),
                    }
                }
                let now = Instant::now();
                for (j, rep) in ready::pair_ready(&waiting, before, taken, &pods, &regs, now) {
                    w.found[open[j]] = Some(rep);
                }
                if w.found.iter().all(Option::is_some) {
                    return w;
                }
            }
            Err(e) if e.kind() == Kind::Auth => {
                w.denied = Some(Failure::from(e));
                return w;
            }
            // Transient: keep looking until the ready timeout; say what went wrong if it passes.
            Err(e) => w.last_error = Some(Failure::from(e)),
        }
        let now = Instant::now();
        if now >= until {
            return w;
        }
        let nap = nap.min(until - now);
        tokio::select! {
            () = tokio::time::sleep(nap) => {}
            () = interrupt.triggered() => {
                w.interrupted = true;
                return w;
            }
        }
    }
}
