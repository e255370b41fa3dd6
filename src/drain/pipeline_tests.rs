//! The pipeline's decisions against scripted GitHub and cluster fakes: every branch of
//! docs/design.md §4, and the invariant (§4.2) that nothing is deleted without a 204/404 and an idle check.
//! Time is tokio's paused clock, so waits cost nothing and nothing here is time-sensitive.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::context::Interrupt;
use crate::drain::Rate;
use crate::drain::event::{Event, Outcome};
use crate::drain::evidence::{LogRead, Observation, PodNow};
use crate::drain::ops::*;
use crate::drain::pacer::{Limit, LimitKind, RateHint};
use crate::drain::pipeline::{RunResult, Settings, run};
use crate::drain::plan::*;
use crate::error::{Failure, Kind};

/// Everything the fakes saw, in order.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Log {
    fn push(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }
    fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

#[derive(Clone, Default)]
struct FakeGitHub {
    /// Scripted unregister answers per id; when empty: 204.
    answers: Arc<Mutex<BTreeMap<u64, VecDeque<Unregistered>>>>,
    /// Scripted busy readings per id for GET; when empty: not busy. `None` entries mean 404.
    busy: Arc<Mutex<BTreeMap<u64, VecDeque<Option<bool>>>>>,
    /// Registrations by name for `?name=`.
    by_name: Arc<Mutex<BTreeMap<String, u64>>>,
    /// When not empty, `?name=` answers these ids one after another (a runner that keeps
    /// re-registering).
    reregistered: Arc<Mutex<VecDeque<u64>>>,
    log: Arc<Log>,
    /// When each GitHub call was answered (tokio's clock), with its log line.
    calls: Arc<Mutex<Vec<(tokio::time::Instant, String)>>>,
}

impl FakeGitHub {
    fn called(&self, line: String) {
        self.calls
            .lock()
            .unwrap()
            .push((tokio::time::Instant::now(), line.clone()));
        self.log.push(line);
    }
}

impl GitHubOps for FakeGitHub {
    async fn unregister(&self, id: u64) -> (Unregistered, RateHint) {
        let a = self
            .answers
            .lock()
            .unwrap()
            .get_mut(&id)
            .and_then(VecDeque::pop_front)
            .unwrap_or(Unregistered::Removed);
        self.called(format!("unregister {id} -> {}", a.status()));
        (a, RateHint::default())
    }

    async fn runner(&self, id: u64) -> Result<Option<RunnerNow>, ReadError> {
        let b = self
            .busy
            .lock()
            .unwrap()
            .get_mut(&id)
            .and_then(VecDeque::pop_front)
            .unwrap_or(Some(false));
        self.called(format!("get {id}"));
        Ok(b.map(|busy| RunnerNow { id, busy }))
    }

    async fn runner_named(&self, name: &str) -> Result<Option<RunnerNow>, ReadError> {
        self.called(format!("find {name}"));
        if let Some(id) = self.reregistered.lock().unwrap().pop_front() {
            return Ok(Some(RunnerNow { id, busy: false }));
        }
        Ok(self
            .by_name
            .lock()
            .unwrap()
            .get(name)
            .map(|&id| RunnerNow { id, busy: false }))
    }
}

#[derive(Clone, Default)]
struct FakeCluster {
    /// Scripted idle-check looks per pod name; when empty: a running pod with a quiet log.
    looks: Arc<Mutex<BTreeMap<String, VecDeque<Observation>>>>,
    /// Scripted delete answers per pod name; when empty: deleted.
    deletes: Arc<Mutex<BTreeMap<String, Deleted>>>,
    denied: Arc<Mutex<bool>>,
    log: Arc<Log>,
}

impl ClusterOps for FakeCluster {
    async fn observe(
        &self,
        t: &DeleteTarget,
        _from: jiff::Timestamp,
    ) -> Result<Observation, ClusterError> {
        self.log.push(format!("check {}", t.pod_name()));
        Ok(self
            .looks
            .lock()
            .unwrap()
            .get_mut(t.pod_name())
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| log_says(&[])))
    }

    async fn refresh(&self, t: &DeleteTarget) -> Result<Option<DeleteTarget>, ClusterError> {
        Ok(Some(t.clone()))
    }

    async fn annotate_unregistered(&self, t: &DeleteTarget) -> Result<u16, ClusterError> {
        self.log.push(format!("annotate {}", t.pod_name()));
        Ok(200)
    }

    async fn delete(&self, t: &DeleteTarget) -> Result<Deleted, ClusterError> {
        if *self.denied.lock().unwrap() {
            return Err(ClusterError::Denied(Failure::new(
                Kind::Auth,
                "pods is forbidden",
            )));
        }
        self.log.push(format!("delete {}", t.display()));
        Ok(self
            .deletes
            .lock()
            .unwrap()
            .get(t.pod_name())
            .copied()
            .unwrap_or(Deleted::Deleted))
    }

    async fn cordon(&self, _node: &str) -> Result<bool, ClusterError> {
        Ok(false)
    }
}

/// A running pod whose log (since the watch began) holds `lines`, each stamped now.
fn log_says(lines: &[&str]) -> Observation {
    let at = jiff::Timestamp::now();
    Observation {
        pod: PodNow::Running { started_at: None },
        log: LogRead::Text {
            text: lines
                .iter()
                .map(|l| format!("{at} 2026-12-01 12:00:00Z: {l}\n"))
                .collect(),
            complete: true,
        },
        recorded_job: None,
    }
}

fn look(pod: PodNow) -> Observation {
    Observation {
        pod,
        ..log_says(&[])
    }
}

/// The fakes' log with repeated idle-check looks shown once.
fn squash(log: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in log {
        if out.last() != Some(l) {
            out.push(l.clone());
        }
    }
    out
}

fn script(k8s: &FakeCluster, pod: &str, looks: Vec<Observation>) {
    k8s.looks
        .lock()
        .unwrap()
        .insert(pod.into(), VecDeque::from(looks));
}

/// GitHub's 422 for a runner with a job.
const BUSY_422: &str = "Bad request - Runner \"r1\" is still running a job";

fn fakes() -> (FakeGitHub, FakeCluster, Arc<Log>) {
    let log = Arc::new(Log::default());
    (
        FakeGitHub {
            log: Arc::clone(&log),
            ..Default::default()
        },
        FakeCluster {
            log: Arc::clone(&log),
            ..Default::default()
        },
        log,
    )
}

fn candidate(name: &str, id: u64, state: State, owner: Owner) -> Candidate {
    Candidate {
        name: name.into(),
        runner_id: Some(id),
        state,
        job: (state == State::Busy).then(|| "build".to_owned()),
        pod: Some(PodRef {
            namespace: "ns".into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            node: None,
            owner,
        }),
    }
}

fn er(name: &str) -> Owner {
    Owner::EphemeralRunner {
        name: name.into(),
        uid: format!("er-{name}"),
    }
}

fn settings(wait: bool) -> Settings {
    Settings {
        wait,
        timeout: None,
        poll_interval: Duration::from_secs(1),
        confirm_window: Duration::from_secs(2),
        concurrency: 4,
        rate: Rate {
            count: 0,
            per: Duration::from_secs(1),
        },
        attempts: 3,
        backoff: Duration::from_millis(100),
    }
}

async fn drain(
    gh: FakeGitHub,
    k8s: FakeCluster,
    cands: Vec<Candidate>,
    s: Settings,
    interrupt: Interrupt,
) -> (RunResult, Vec<Event>) {
    let steps = plan(&cands, PlanOptions { wait: s.wait });
    let (tx, mut rx) = mpsc::unbounded_channel();
    let r = run(gh, k8s, steps, s, tx, interrupt).await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (r, events)
}

fn outcome(r: &RunResult, i: usize) -> &Outcome {
    &r.outcomes[i].1
}

/// The invariant, checked on the fakes' log: every delete of a runner's object comes after an
/// unregister of it answered 204 or 404 and a later idle check.
fn assert_safe(log: &[String]) {
    for (i, line) in log.iter().enumerate() {
        if let Some(obj) = line.strip_prefix("delete ") {
            let name = obj.rsplit('/').next().unwrap();
            let check = log[..i]
                .iter()
                .rposition(|l| l == &format!("check {name}"))
                .unwrap_or_else(|| panic!("delete of {name} without an idle check: {log:?}"));
            let unreg = log[..check].iter().any(|l| {
                l.starts_with("unregister ") && (l.ends_with("204") || l.ends_with("404"))
            });
            assert!(
                unreg,
                "delete of {name} without a 204/404 before its check: {log:?}"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn idle_scale_set_runner_is_unregistered_checked_and_its_ephemeral_runner_deleted() {
    let (gh, k8s, log) = fakes();
    let (r, events) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert_eq!(
        outcome(&r, 0),
        &Outcome::Drained {
            deleted: "ephemeralrunner/ns/r1".into(),
            note: Some("idle: no job seen in the confirm window".into())
        }
    );
    assert_eq!(
        squash(&log.all()),
        [
            "unregister 1 -> 204",
            "check r1",
            "delete ephemeralrunner/ns/r1"
        ]
    );
    let mutations: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Mutated(m) => Some((m.action, m.status)),
            _ => None,
        })
        .collect();
    assert_eq!(mutations, [("unregister", 204), ("delete", 200)]);
}

#[tokio::test(start_paused = true)]
async fn legacy_pods_are_annotated_before_the_delete() {
    let (gh, k8s, log) = fakes();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate(
            "r1",
            1,
            State::Offline,
            Owner::Runner { name: "r1".into() },
        )],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert_eq!(
        squash(&log.all()),
        [
            "unregister 1 -> 204",
            "check r1",
            "annotate r1",
            "delete pod/ns/r1"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn busy_in_the_list_is_skipped_without_any_call() {
    let (gh, k8s, log) = fakes();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Busy, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert_eq!(outcome(&r, 0).label(), "skipped-busy");
    assert!(log.all().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_422_means_busy_and_the_pod_is_left_alone() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::Busy {
            message: "Bad request - Runner \"r1\" is still running a job".into(),
        }]),
    );
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert_eq!(outcome(&r, 0).label(), "skipped-busy");
    assert_eq!(log.all(), ["unregister 1 -> 422"]);
}

#[tokio::test(start_paused = true)]
async fn with_wait_a_422_is_polled_until_idle_then_drained() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::Busy {
            message: BUSY_422.into(),
        }]),
    );
    gh.busy
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([Some(true), Some(true), Some(false)]));
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(true),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    let l = log.all();
    assert_eq!(l.iter().filter(|x| x.starts_with("get 1")).count(), 3);
    assert_safe(&l);
}

#[tokio::test(start_paused = true)]
async fn a_job_seen_after_a_204_holds_the_pod() {
    let (gh, k8s, log) = fakes();
    script(
        &k8s,
        "r1",
        vec![log_says(&["Listening for Jobs", "Running job: deploy"])],
    );
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert_eq!(
        outcome(&r, 0),
        &Outcome::Held {
            job: Some("deploy".into()),
            reason: None,
            cause: None,
        }
    );
    assert!(!log.all().iter().any(|l| l.starts_with("delete")));
}

#[tokio::test(start_paused = true)]
async fn with_wait_a_held_runner_is_deleted_once_its_job_ends() {
    let (gh, k8s, log) = fakes();
    script(
        &k8s,
        "r1",
        vec![
            log_says(&["Running job: deploy"]),
            // Later reads hold only noise: the job still runs.
            log_says(&["time=\"x\" level=info msg=\"pulling layer\""]),
            log_says(&["Job deploy completed with result: Succeeded"]),
        ],
    );
    let (r, events) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(true),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    let l = log.all();
    assert_eq!(l.iter().filter(|x| x.starts_with("check")).count(), 3);
    assert_safe(&l);
    assert!(
        events.iter().any(
            |e| matches!(e, Event::Proven { proof, .. } if proof == "job \"deploy\" completed")
        )
    );
}

#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_then_fail_with_the_pod_untouched() {
    let (gh, k8s, log) = fakes();
    let t = || Unregistered::Transient {
        status: Some(502),
        reason: "502 Bad Gateway".into(),
    };
    gh.answers
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([t(), t(), Unregistered::Removed]));
    gh.answers
        .lock()
        .unwrap()
        .insert(2, VecDeque::from([t(), t(), t(), t()]));
    let (r, _) = drain(
        gh,
        k8s,
        vec![
            candidate("r1", 1, State::Idle, er("r1")),
            candidate("r2", 2, State::Idle, er("r2")),
        ],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert!(
        matches!(outcome(&r, 1), Outcome::Failed { failure } if failure.message.contains("after 3 attempts"))
    );
    let l = log.all();
    assert!(!l.iter().any(|x| x == "delete ephemeralrunner/ns/r2"));
    assert_eq!(
        l.iter().filter(|x| x.starts_with("unregister 2")).count(),
        3
    );
    assert_safe(&l);
}

#[tokio::test(start_paused = true)]
async fn rate_limits_pause_and_retry() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::RateLimited {
            status: 429,
            limit: Limit {
                kind: LimitKind::Secondary,
                wait: Some(Duration::from_secs(60)),
            },
        }]),
    );
    let start = tokio::time::Instant::now();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert!(tokio::time::Instant::now() - start >= Duration::from_secs(60));
    assert_eq!(
        log.all()[..2],
        ["unregister 1 -> 429", "unregister 1 -> 204"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_rate_limit_holds_every_github_call_of_every_runner_and_is_told_once() {
    let (gh, k8s, _log) = fakes();
    gh.answers.lock().unwrap().insert(
        2,
        VecDeque::from([Unregistered::RateLimited {
            status: 429,
            limit: Limit {
                kind: LimitKind::Secondary,
                wait: Some(Duration::from_secs(30)),
            },
        }]),
    );
    // r4 is busy: with --wait it is polled (GET by id) until idle, next to the unregisters.
    gh.busy
        .lock()
        .unwrap()
        .insert(4, VecDeque::from(vec![Some(true); 5]));
    let calls = Arc::clone(&gh.calls);
    let (r, events) = drain(
        gh,
        k8s,
        vec![
            candidate("r1", 1, State::Idle, er("r1")),
            candidate("r2", 2, State::Idle, er("r2")),
            candidate("r3", 3, State::Idle, er("r3")),
            candidate("r4", 4, State::Busy, er("r4")),
        ],
        settings(true),
        Interrupt::default(),
    )
    .await;
    for i in 0..4 {
        assert!(
            matches!(outcome(&r, i), Outcome::Drained { .. }),
            "{:?}",
            outcome(&r, i)
        );
    }
    let calls = calls.lock().unwrap().clone();
    let refused = calls
        .iter()
        .position(|(_, c)| c == "unregister 2 -> 429")
        .expect("the refusal");
    let at = calls[refused].0;
    let after: Vec<_> = calls[refused + 1..].iter().collect();
    assert!(
        after.iter().any(|(_, c)| c.starts_with("get 4")),
        "{calls:?}"
    );
    assert!(
        after.iter().any(|(_, c)| c.starts_with("unregister")),
        "{calls:?}"
    );
    // Nobody called GitHub during the wait: neither the other unregisters nor the polls.
    assert!(
        after
            .iter()
            .all(|(t, _)| *t - at >= Duration::from_secs(30)),
        "{calls:?}"
    );
    let told: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::RateLimited(spell) => Some(spell),
            _ => None,
        })
        .collect();
    assert_eq!(told.len(), 1, "told once, not per runner: {events:?}");
    assert_eq!(told[0].wait, Duration::from_secs(30));
    assert_eq!((r.rate_limits.refused, r.rate_limits.waits), (1, 1));
}

#[tokio::test(start_paused = true)]
async fn a_permission_error_stops_everything_and_touches_no_pod() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::Denied {
            status: 403,
            failure: Failure::new(
                Kind::Auth,
                "GitHub denied the request (403 Resource not accessible by integration)",
            ),
        }]),
    );
    let mut s = settings(false);
    s.confirm_window = Duration::from_secs(30);
    let (r, _) = drain(
        gh,
        k8s,
        vec![
            candidate("r1", 1, State::Idle, er("r1")),
            candidate("r2", 2, State::Idle, er("r2")),
        ],
        s,
        Interrupt::default(),
    )
    .await;
    // The denial as data: named for the runner, GitHub's words below it, exit 4's kind.
    let denied = r.denied.as_ref().expect("the run was denied");
    assert_eq!(denied.kind, Kind::Auth);
    assert_eq!(denied.message, "failed to unregister runner `r1`");
    assert!(denied.causes[0].contains("403"), "{denied:?}");
    assert!(
        matches!(outcome(&r, 0), Outcome::Failed { failure } if failure == denied),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(matches!(
        outcome(&r, 1),
        Outcome::Stopped { .. } | Outcome::Failed { .. }
    ));
    assert!(
        !log.all().iter().any(|l| l.starts_with("delete")),
        "{:?}",
        log.all()
    );
}

#[tokio::test(start_paused = true)]
async fn a_404_follows_a_re_registration_by_name() {
    let (gh, k8s, log) = fakes();
    gh.answers
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([Unregistered::NotFound]));
    gh.by_name.lock().unwrap().insert("r1".into(), 9);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate(
            "r1",
            1,
            State::Idle,
            Owner::StatefulSet { name: "s".into() },
        )],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    let l = log.all();
    assert_eq!(
        l[..3],
        ["unregister 1 -> 404", "find r1", "unregister 9 -> 204"]
    );
    assert_safe(&l);
}

#[tokio::test(start_paused = true)]
async fn a_404_for_a_gone_runner_still_checks_before_deleting() {
    let (gh, k8s, log) = fakes();
    gh.answers
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([Unregistered::NotFound]));
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert_eq!(
        squash(&log.all()),
        [
            "unregister 1 -> 404",
            "find r1",
            "check r1",
            "delete ephemeralrunner/ns/r1"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_replaced_pod_is_not_deleted_and_is_reported() {
    let (gh, k8s, _log) = fakes();
    k8s.deletes
        .lock()
        .unwrap()
        .insert("r1".into(), Deleted::Replaced);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Drained { note: Some(n), .. } if n.contains("replaced"))
    );
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_before_the_start_changes_nothing() {
    let (gh, k8s, log) = fakes();
    let interrupt = Interrupt::default();
    interrupt.trigger();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        interrupt,
    )
    .await;
    assert!(r.interrupted);
    assert_eq!(outcome(&r, 0).label(), "stopped");
    assert!(log.all().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_in_the_confirm_window_keeps_the_pod() {
    let (gh, k8s, log) = fakes();
    let interrupt = Interrupt::default();
    let mut s = settings(false);
    s.confirm_window = Duration::from_secs(60);
    let trigger = interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(10)).await;
        trigger.trigger();
    });
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        s,
        interrupt,
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Stopped { stage } if stage.contains("pod kept")));
    assert_eq!(squash(&log.all()), ["unregister 1 -> 204", "check r1"]);
}

#[tokio::test(start_paused = true)]
async fn the_timeout_bounds_waiting_for_busy_runners() {
    let (gh, k8s, log) = fakes();
    gh.busy
        .lock()
        .unwrap()
        .insert(1, VecDeque::from(vec![Some(true); 1000]));
    let mut s = settings(true);
    s.timeout = Some(Duration::from_secs(30));
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Busy, er("r1"))],
        s,
        Interrupt::default(),
    )
    .await;
    assert_eq!(outcome(&r, 0).label(), "timed-out");
    assert!(!log.all().iter().any(|l| l.starts_with("unregister")));
}

#[tokio::test(start_paused = true)]
async fn many_runners_pay_the_confirm_window_about_once() {
    let (gh, k8s, _log) = fakes();
    let cands: Vec<_> = (0..200)
        .map(|i| candidate(&format!("r{i}"), i, State::Idle, er(&format!("r{i}"))))
        .collect();
    let mut s = settings(false);
    s.concurrency = 2;
    s.confirm_window = Duration::from_secs(10);
    let start = tokio::time::Instant::now();
    let (r, _) = drain(gh, k8s, cands, s, Interrupt::default()).await;
    assert!(r.outcomes.iter().all(|(_, o)| o.label() == "drained"));
    // 200 runners at concurrency 2 would take 1,000 s if each held a slot through its window.
    assert!(tokio::time::Instant::now() - start < Duration::from_secs(20));
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_ends_a_long_rate_limit_pause_without_sending_the_delete() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::RateLimited {
            status: 429,
            limit: Limit {
                kind: LimitKind::Secondary,
                wait: Some(Duration::from_secs(3600)),
            },
        }]),
    );
    let interrupt = Interrupt::default();
    let trigger = interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        trigger.trigger();
    });
    let start = tokio::time::Instant::now();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        interrupt,
    )
    .await;
    assert!(tokio::time::Instant::now() - start < Duration::from_secs(60));
    assert_eq!(outcome(&r, 0).label(), "stopped");
    assert_eq!(
        log.all(),
        ["unregister 1 -> 429"],
        "no second DELETE after the interrupt"
    );
}

fn elapsed_since(start: tokio::time::Instant) -> Duration {
    tokio::time::Instant::now() - start
}

#[tokio::test(start_paused = true)]
async fn proof_of_idleness_ends_the_window_early() {
    let (gh, k8s, log) = fakes();
    script(
        &k8s,
        "r1",
        vec![
            log_says(&["Listening for Jobs"]),
            log_says(&[
                "The runner registration has been deleted from the server, please re-configure.",
            ]),
        ],
    );
    let mut s = settings(false);
    s.confirm_window = Duration::from_secs(20);
    let start = tokio::time::Instant::now();
    let (r, events) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        s,
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert!(elapsed_since(start) < Duration::from_secs(5));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Proven { proof, .. }
        if proof == "runner saw its registration deleted"))
    );
    assert_safe(&log.all());
}

#[tokio::test(start_paused = true)]
async fn a_runner_that_never_started_is_drained_at_once() {
    for reason in ["ContainerCreating", "ImagePullBackOff", "ErrImagePull"] {
        let (gh, k8s, log) = fakes();
        script(
            &k8s,
            "r1",
            vec![look(PodNow::Waiting {
                reason: reason.into(),
            })],
        );
        let (r, _) = drain(
            gh,
            k8s,
            vec![candidate("r1", 1, State::Offline, er("r1"))],
            settings(false),
            Interrupt::default(),
        )
        .await;
        assert!(
            matches!(outcome(&r, 0), Outcome::Drained { .. }),
            "{reason}"
        );
        assert_eq!(
            log.all(),
            [
                "unregister 1 -> 204",
                "check r1",
                "delete ephemeralrunner/ns/r1"
            ]
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_unreadable_log_is_held_and_never_deleted() {
    let (gh, k8s, log) = fakes();
    let unreadable = Observation {
        pod: PodNow::Running { started_at: None },
        log: LogRead::Unreadable(Failure::failed(
            "the server was unable to return a response",
        )),
        recorded_job: None,
    };
    script(&k8s, "r1", vec![unreadable; 50]);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Held { job: None, reason: Some(why), cause: Some(c) }
            if why.contains("could not be read") && c.message.contains("unable to return")),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(!log.all().iter().any(|l| l.starts_with("delete")));
}

#[tokio::test(start_paused = true)]
async fn a_cut_log_is_read_on_and_a_job_in_the_rest_holds_the_pod() {
    let (gh, k8s, log) = fakes();
    let mut first = log_says(&["time=\"x\" level=info msg=\"noise\""]);
    first.log = match first.log {
        LogRead::Text { text, .. } => LogRead::Text {
            text: text + "2026-12-01T12:00:01Z 2026-12-01 12:00:01Z: Runn",
            complete: false,
        },
        other => other,
    };
    script(&k8s, "r1", vec![first, log_says(&["Running job: e2e-4"])]);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert_eq!(
        outcome(&r, 0),
        &Outcome::Held {
            job: Some("e2e-4".into()),
            reason: None,
            cause: None,
        }
    );
    // The rest was read at once, not after a pause.
    assert_eq!(log.all(), ["unregister 1 -> 204", "check r1", "check r1"]);
}

#[tokio::test(start_paused = true)]
async fn a_log_cut_on_every_page_is_never_proof() {
    let (gh, k8s, log) = fakes();
    let cut = Observation {
        pod: PodNow::Running { started_at: None },
        log: LogRead::Text {
            text: String::new(),
            complete: false,
        },
        recorded_job: None,
    };
    script(&k8s, "r1", vec![cut; 500]);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Held { reason: Some(why), .. }
            if why.contains("larger than the read limit")),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(!log.all().iter().any(|l| l.starts_with("delete")));
}

#[tokio::test(start_paused = true)]
async fn with_wait_a_held_job_is_never_released_by_silence() {
    let (gh, k8s, log) = fakes();
    // The job line, then nothing at all: no completion, the container still runs.
    script(&k8s, "r1", vec![log_says(&["Running job: deploy"])]);
    let mut s = settings(true);
    s.timeout = Some(Duration::from_secs(120));
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        s,
        Interrupt::default(),
    )
    .await;
    assert_eq!(
        outcome(&r, 0),
        &Outcome::Held {
            job: Some("deploy".into()),
            reason: None,
            cause: None,
        }
    );
    assert!(!log.all().iter().any(|l| l.starts_with("delete")));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_never_strands_an_unregistered_runner() {
    let (gh, k8s, log) = fakes();
    // r1 is idle; r2 and r3 are busy in the list and GitHub reads them idle after 8 s and
    // 16 s. The window is 20 s and the deadline 30 s: r1 and r2 can finish their windows
    // before it, r3 could not and is not unregistered.
    gh.busy
        .lock()
        .unwrap()
        .insert(2, VecDeque::from([Some(true), Some(true), Some(false)]));
    gh.busy.lock().unwrap().insert(
        3,
        VecDeque::from([Some(true), Some(true), Some(true), Some(true), Some(false)]),
    );
    let cands = vec![
        candidate("r1", 1, State::Idle, er("r1")),
        candidate("r2", 2, State::Busy, er("r2")),
        candidate("r3", 3, State::Busy, er("r3")),
    ];
    let mut s = settings(true);
    s.poll_interval = Duration::from_secs(4);
    s.confirm_window = Duration::from_secs(20);
    s.timeout = Some(Duration::from_secs(30));
    let (r, _) = drain(gh, k8s, cands, s, Interrupt::default()).await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    assert!(
        matches!(outcome(&r, 1), Outcome::Drained { .. }),
        "{:?}",
        outcome(&r, 1)
    );
    assert!(
        matches!(outcome(&r, 2), Outcome::TimedOut { stage } if stage.contains("nothing changed")),
        "{:?}",
        outcome(&r, 2)
    );
    let l = log.all();
    assert!(!l.iter().any(|x| x.starts_with("unregister 3")));
    assert_safe(&l);
}

#[tokio::test(start_paused = true)]
async fn a_runner_that_keeps_re_registering_fails_without_a_delete() {
    let (gh, k8s, log) = fakes();
    {
        let mut a = gh.answers.lock().unwrap();
        for id in [1, 11, 12, 13] {
            a.insert(id, VecDeque::from([Unregistered::NotFound]));
        }
    }
    *gh.reregistered.lock().unwrap() = VecDeque::from([11, 12, 13, 14]);
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Failed { failure } if failure.message.contains("re-registered")),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(
        !log.all()
            .iter()
            .any(|l| l.starts_with("delete") || l.starts_with("check"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_422_that_is_not_a_running_job_is_reported_with_githubs_message() {
    let (gh, k8s, log) = fakes();
    gh.answers.lock().unwrap().insert(
        1,
        VecDeque::from([Unregistered::Busy {
            message: "Validation Failed".into(),
        }]),
    );
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Failed { failure }
            if failure.message.contains("Validation Failed") && failure.message.contains("nothing changed")),
        "{:?}",
        outcome(&r, 0)
    );
    assert_eq!(log.all(), ["unregister 1 -> 422"]);
}

#[tokio::test(start_paused = true)]
async fn with_wait_a_non_busy_422_is_retried_at_the_poll_interval_and_bounded() {
    let (gh, k8s, log) = fakes();
    let spam = || Unregistered::Busy {
        message: "Validation failed, or the endpoint has been spammed.".into(),
    };
    gh.answers
        .lock()
        .unwrap()
        .insert(1, (0..10).map(|_| spam()).collect());
    let mut s = settings(true);
    s.poll_interval = Duration::from_secs(10);
    let start = tokio::time::Instant::now();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        s,
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Failed { failure } if failure.message.contains("spammed"))
    );
    let deletes = log
        .all()
        .iter()
        .filter(|l| l.starts_with("unregister"))
        .count();
    assert_eq!(deletes, 5);
    assert!(elapsed_since(start) >= Duration::from_secs(40));
}

#[tokio::test(start_paused = true)]
async fn with_wait_a_422_while_github_reads_idle_waits_the_poll_interval() {
    let (gh, k8s, log) = fakes();
    let busy = || Unregistered::Busy {
        message: BUSY_422.into(),
    };
    gh.answers
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([busy(), busy(), Unregistered::Removed]));
    let mut s = settings(true);
    s.poll_interval = Duration::from_secs(10);
    let start = tokio::time::Instant::now();
    let (r, _) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        s,
        Interrupt::default(),
    )
    .await;
    assert!(matches!(outcome(&r, 0), Outcome::Drained { .. }));
    // GitHub's GET said idle each time, yet the DELETEs were 10 s apart, not at the pacer's pace.
    assert!(elapsed_since(start) >= Duration::from_secs(20));
    assert_safe(&log.all());
}

#[tokio::test(start_paused = true)]
async fn a_lost_answer_then_failures_may_have_unregistered_the_runner() {
    let (gh, k8s, log) = fakes();
    let lost = || Unregistered::Transient {
        status: None,
        reason: "the connection was reset".into(),
    };
    gh.answers
        .lock()
        .unwrap()
        .insert(1, VecDeque::from([lost(), lost(), lost()]));
    let (r, events) = drain(
        gh,
        k8s,
        vec![candidate("r1", 1, State::Idle, er("r1"))],
        settings(false),
        Interrupt::default(),
    )
    .await;
    assert!(
        matches!(outcome(&r, 0), Outcome::Failed { failure } if failure.message.contains("may be unregistered")),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::MaybeUnregistered { runner } if runner == "r1"))
    );
    assert!(!log.all().iter().any(|l| l.starts_with("delete")));
}
