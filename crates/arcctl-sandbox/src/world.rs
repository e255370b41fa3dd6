//! The simulated world both fake APIs share: GitHub registrations, Kubernetes objects, jobs,
//! request statistics, and the seeded randomness behind faults.
//!
//! The HTTP layers (`github_api`, `kube_api`) read it and mutate it only through the methods
//! here, so every mutation runs the simulation's reactions (a deleted pod kills its job, the
//! controller replaces it) inside the same lock, at the moment it happens.
//!
//! Time: the world has a clock ([`World::now`]) that is wall-clock time, or later when a test
//! drove [`World::tick`] ahead; everything time-based (job ends, pod start-up, list-cache
//! staleness, the `unsafe-204` window) reads that clock, so tests can step the world without
//! sleeping.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::controller::Pending;
use crate::jobs::Jobs;
use crate::noise::{self, ContainerLife, LogView, Noise};
use crate::options::{FaultKind, Options};
use crate::runners::{Pool, RunnerSlot};
use crate::stats::Stats;
use crate::store::{DeleteOptions, Deletion, ResourceType, Store, StoreError};

/// The world behind one lock. Never hold it across an `.await`.
pub type SharedWorld = Arc<Mutex<World>>;

/// Locks the world, recovering from a poisoned lock (a panicked handler must not wedge the rest).
pub fn lock(world: &SharedWorld) -> std::sync::MutexGuard<'_, World> {
    world
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where runners are registered on the simulated GitHub.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Org(String),
    Repo(String, String),
    Enterprise(String),
}

/// A GitHub runner label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub id: u64,
    pub name: String,
    /// `read-only` or `custom`.
    pub label_type: &'static str,
}

/// A runner group of the simulated organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerGroup {
    pub id: u64,
    pub name: String,
    pub default: bool,
}

/// A runner registration on the simulated GitHub.
#[derive(Debug, Clone)]
pub struct Registration {
    pub id: u64,
    pub name: String,
    pub scope: Scope,
    pub os: String,
    /// `online` or `offline`.
    pub status: &'static str,
    /// Live busy state: GET by id and DELETE see this.
    pub busy: bool,
    /// What runner lists report while the list cache (`--list-cache`) is stale.
    pub listed_busy: bool,
    /// When `listed_busy` was last brought up to date.
    pub listed_at: Instant,
    pub labels: Vec<Label>,
    pub runner_group_id: u64,
    pub ephemeral: bool,
    pub version: Option<String>,
    /// The running job, if any.
    pub job: Option<u64>,
    /// When the running job was assigned (for `unsafe-204`).
    pub job_assigned_at: Option<Instant>,
}

/// What GitHub answers to `DELETE …/actions/runners/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unregister {
    /// 204: removed (possibly unsafely, with a job still running: `unsafe-204`).
    Removed,
    /// 404: no such runner.
    NotFound,
    /// 422: `Bad request - Runner "NAME" is still running a job`.
    Busy { name: String },
}

/// How long the simulated controller and runners take. Internal knobs (not command-line
/// options): tests may shorten them through [`World::timing`] before traffic starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// From a runner pod's creation (Pending) to Running with its registration online and
    /// `Listening for Jobs` in its log. Default 1.5 s, about what an image-cached pod takes.
    pub pod_start: Duration,
    /// From a runner's container exiting after its job to ARC deleting the finished runner
    /// (and creating its replacement). Default 500 ms.
    pub reap: Duration,
    /// How long a DELETE after a job assignment may still get an unsafe 204. Default 1 s.
    pub unsafe_204_window: Duration,
    /// From an EphemeralRunner's deletion (or its runner's exit while it is being deleted) to
    /// ARC's finalizer work on it. Default 300 ms.
    pub finalize: Duration,
    /// ARC's requeue while the service says the runner's job still runs ("Runner is not
    /// finished yet, retrying in 30s"). Default 30 s.
    pub finalize_retry: Duration,
    /// From an idle runner's registration being deleted to the runner noticing at its next
    /// message poll, drawn from `notice_min..=notice_max` (docs/design.md §7.5: seconds to a
    /// minute). Default 1–10 s. A runner running a job does not poll: it never notices.
    pub notice_min: Duration,
    pub notice_max: Duration,
    /// From the notice to the runner container's exit: `run-helper.sh` re-launches the listener
    /// after a retryable error in 5 s, it fails to create a session again and exits. Default 5 s.
    pub exit_after_notice: Duration,
    /// The runner container's exit code then. Default 0: the listener returns its terminated
    /// error (1) and actions/runner's `run-helper.sh` maps that to 0, so ARC sees a finished
    /// runner and replaces it. Non-zero: ARC deletes a scale-set pod as failed and recreates it
    /// with the same, dead registration (a zombie, counted stuck).
    pub notice_exit_code: i32,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            pod_start: Duration::from_millis(1500),
            reap: Duration::from_millis(500),
            unsafe_204_window: Duration::from_secs(1),
            finalize: Duration::from_millis(300),
            finalize_retry: Duration::from_secs(30),
            notice_min: Duration::from_secs(1),
            notice_max: Duration::from_secs(10),
            exit_after_notice: Duration::from_secs(5),
            notice_exit_code: 0,
        }
    }
}

/// Something that happened in the world, for the demo's live view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldEvent {
    /// Increases by one per event, so a reader can ask for what came after.
    pub seq: u64,
    /// Wall-clock time, RFC 3339.
    pub at: String,
    pub what: EventKind,
}

/// The kinds of [`WorldEvent`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    JobStarted { job: String, runner: String },
    JobCompleted { job: String, runner: String },
    JobKilled { job: String, runner: String },
    RunnerOnline { runner: String },
    RunnerStuck { runner: String },
    Unregistered { runner: String, unsafe_204: bool },
    Deleted { kind: &'static str, name: String },
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventKind::JobStarted { job, runner } => write!(f, "job {job} started on {runner}"),
            EventKind::JobCompleted { job, runner } => {
                write!(f, "job {job} completed on {runner}")
            }
            EventKind::JobKilled { job, runner } => write!(f, "job {job} KILLED on {runner}"),
            EventKind::RunnerOnline { runner } => write!(f, "runner {runner} online"),
            EventKind::RunnerStuck { runner } => {
                write!(f, "runner {runner} stuck: its registration is gone")
            }
            EventKind::Unregistered { runner, unsafe_204 } => {
                if *unsafe_204 {
                    write!(
                        f,
                        "runner {runner} unregistered while its job runs (unsafe 204)"
                    )
                } else {
                    write!(f, "runner {runner} unregistered")
                }
            }
            EventKind::Deleted { kind, name } => write!(f, "{kind} {name} deleted"),
        }
    }
}

/// A bound on the event steps one tick runs (a tick far ahead stops there; the next continues).
const MAX_EVENTS_PER_TICK: usize = 100_000;

/// How many events the world keeps for readers.
const EVENT_LOG_LEN: usize = 2000;

/// The simulated world.
pub struct World {
    pub options: Options,
    pub store: Store,
    pub registrations: BTreeMap<u64, Registration>,
    pub runner_groups: Vec<RunnerGroup>,
    /// The token the fake GitHub accepts.
    pub token: String,
    pub stats: Stats,
    /// Where a webhook's `clientConfig.service` lands: (namespace, name, port) → a local
    /// address, as a cluster's Service would route it (`kube_api::admission`).
    pub webhook_services: BTreeMap<(String, String, u16), std::net::SocketAddr>,
    pub started: Instant,
    pub timing: Timing,
    /// How far in the past the world's wall clock runs (only while populating).
    pub(crate) backdate: Duration,
    /// The origin of the controller work running now (see `controller::Pending::origin`).
    pub(crate) cause: Option<Instant>,
    rng: ChaCha8Rng,
    /// Draws of the runner-process model (`--job-lag` delays, when an idle runner notices its
    /// registration gone), apart from `rng` so that they never shift the draws of a seed's
    /// world, traffic and faults.
    runner_rng: ChaCha8Rng,
    /// The latest instant [`World::tick`] was driven to.
    clock: Instant,
    /// Wall-clock time at `started`, for timestamps in logs and objects.
    wall_start: jiff::Timestamp,
    /// The runner pools (scale sets, RunnerDeployments, RunnerSets) by name.
    pub(crate) pools: BTreeMap<String, Pool>,
    /// The runner processes, by (namespace, pod name).
    pub(crate) runners: BTreeMap<(String, String), RunnerSlot>,
    pub(crate) jobs: Jobs,
    /// Controller work scheduled for later (pod start-up, reaping finished runners, lagging job
    /// traces, runners noticing their registration gone).
    pub(crate) pending: Vec<Pending>,
    /// When each runner container ran and ran jobs, by pod uid (`--log-noise` only).
    pub(crate) lives: BTreeMap<String, ContainerLife>,
    /// Registrations removed through GitHub's DELETE (for the report's stuck runners).
    pub(crate) unregistered: BTreeSet<u64>,
    next_runner_id: u64,
    label_ids: BTreeMap<String, u64>,
    events: VecDeque<WorldEvent>,
    next_event: u64,
}

impl World {
    /// An empty world; [`World::populated`] fills one.
    pub fn empty(options: Options) -> Self {
        let seed = options.seed;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let next_runner_id = rng.random_range(1_000..90_000);
        let now = Instant::now();
        World {
            store: Store::new(seed),
            registrations: BTreeMap::new(),
            runner_groups: vec![RunnerGroup {
                id: 1,
                name: "Default".to_owned(),
                default: true,
            }],
            token: format!(
                "ghs_sandbox{:024x}",
                u128::from(seed).wrapping_mul(0x2545_F491_4F6C_DD1D)
            ),
            stats: Stats::default(),
            webhook_services: BTreeMap::new(),
            started: now,
            timing: Timing::default(),
            backdate: Duration::ZERO,
            cause: None,
            rng,
            runner_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x7275_6e6e_6572_2121),
            clock: now,
            wall_start: jiff::Timestamp::now(),
            pools: BTreeMap::new(),
            runners: BTreeMap::new(),
            jobs: Jobs::new(now),
            pending: Vec::new(),
            lives: BTreeMap::new(),
            unregistered: BTreeSet::new(),
            next_runner_id,
            label_ids: BTreeMap::new(),
            events: VecDeque::new(),
            next_event: 1,
            options,
        }
    }

    /// A world populated per `options` (mode, runners, nodes, busy share), its job traffic
    /// ready to run on [`World::tick`].
    pub fn populated(options: Options) -> Self {
        let mut world = World::empty(options);
        world.populate();
        world
    }

    pub fn shared(self) -> SharedWorld {
        Arc::new(Mutex::new(self))
    }

    /// The world's clock: wall-clock time, or later if a test drove [`World::tick`] ahead.
    pub fn now(&self) -> Instant {
        Instant::now().max(self.clock)
    }

    /// The world's clock as a wall-clock timestamp.
    ///
    /// While the world is being populated, [`World::backdate`] moves it into the past, so a
    /// world starts with objects, pods and log lines of some age, as a running cluster has.
    pub fn wall_now(&self) -> jiff::Timestamp {
        let elapsed = self.now().saturating_duration_since(self.started);
        let elapsed = jiff::SignedDuration::try_from(elapsed).unwrap_or(jiff::SignedDuration::ZERO);
        let back =
            jiff::SignedDuration::try_from(self.backdate).unwrap_or(jiff::SignedDuration::ZERO);
        self.wall_start
            .checked_add(elapsed)
            .and_then(|t| t.checked_sub(back))
            .unwrap_or(self.wall_start)
    }

    /// Stores a new object with the world's (possibly backdated) creation time.
    pub(crate) fn create_object(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        mut obj: Value,
    ) -> Result<Value, StoreError> {
        if obj["metadata"]["creationTimestamp"].is_null() {
            obj["metadata"]["creationTimestamp"] = Value::String(self.k8s_now());
        }
        self.store.create(rt, ns, obj)
    }

    /// Runs everything due by `now`: job arrivals, assignments and completions, controller
    /// work, list-cache refreshes. The sandbox calls it a few times a second; tests call it
    /// with instants ahead of the wall clock to step the world.
    ///
    /// Events are processed in time order, each at its own instant, so a long step runs chains
    /// (a job ends → the runner is reaped → its replacement starts) as they would have unfolded.
    pub fn tick(&mut self, now: Instant) {
        let target = now.max(Instant::now());
        for _ in 0..MAX_EVENTS_PER_TICK {
            let next = [self.next_pending_due(), self.next_job_event()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(at) if at <= target => {
                    self.clock = self.clock.max(at);
                    let at = self.now();
                    self.run_pending(at);
                    self.run_jobs(at);
                    self.refresh_list_cache(at);
                }
                _ => break,
            }
        }
        self.clock = self.clock.max(target);
        let now = self.now();
        self.run_pending(now);
        self.run_jobs(now);
        self.refresh_list_cache(now);
    }

    /// When the next unparked controller action falls due.
    fn next_pending_due(&self) -> Option<Instant> {
        self.pending
            .iter()
            .filter(|p| !p.is_parked())
            .map(|p| p.due)
            .min()
    }

    /// True with probability `p`, from the world's seeded generator.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.random_bool(p.min(1.0))
    }

    /// A uniformly drawn integer in `range`.
    pub fn draw(&mut self, range: std::ops::Range<u64>) -> u64 {
        if range.is_empty() {
            range.start
        } else {
            self.rng.random_range(range)
        }
    }

    /// A delay drawn uniformly from `0..=max`, from the runner-process model's own stream.
    pub(crate) fn draw_delay(&mut self, max: Duration) -> Duration {
        let ms = u64::try_from(max.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(self.runner_rng.random_range(0..=ms))
    }

    /// A uniformly drawn float in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// The probability configured for `fault` (0 when not configured).
    pub fn fault_probability(&self, fault: FaultKind) -> f64 {
        self.options
            .faults
            .iter()
            .filter(|(k, _)| *k == fault)
            .map(|(_, p)| *p)
            .fold(0.0, f64::max)
    }

    /// Whether `fault` strikes this request.
    pub fn fault(&mut self, fault: FaultKind) -> bool {
        let p = self.fault_probability(fault);
        self.chance(p)
    }

    /// Deletes a Kubernetes object (with an optional uid precondition, background propagation)
    /// and runs the world's reactions to it: see [`World::delete_with`].
    pub fn delete_object(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        precondition_uid: Option<&str>,
    ) -> Result<Value, StoreError> {
        self.delete_with(rt, ns, name, &DeleteOptions::with_uid(precondition_uid))
    }

    /// Deletes a Kubernetes object with `DeleteOptions` and runs the world's reactions: an
    /// object without finalizers goes at once (a running job on a deleted pod is killed, the
    /// controller replaces what ARC would replace); one with finalizers (an EphemeralRunner) is
    /// marked and stays until the garbage collector and ARC's finalizer work are done. Answers
    /// the object as the delete left it.
    pub fn delete_with(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Value, StoreError> {
        match self.store.delete(rt, ns, name, opts)? {
            Deletion::Removed(obj) => {
                self.on_deleted(rt, &obj);
                Ok(obj)
            }
            Deletion::Marked { object, first } => {
                self.on_deleting(rt, &object, first);
                Ok(object)
            }
        }
    }

    /// Applies a JSON merge patch to a Kubernetes object and runs the world's reactions (a
    /// patch that removes the last finalizer of an object being deleted deletes it).
    pub fn patch_object(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        patch: &Value,
    ) -> Result<Value, StoreError> {
        let obj = self.store.merge_patch(rt, ns, name, patch)?;
        let still_there = self
            .store
            .get(rt, ns, name)
            .is_some_and(|o| o["metadata"]["uid"] == obj["metadata"]["uid"]);
        if still_there {
            self.on_patched(rt, &obj);
        } else {
            self.on_deleted(rt, &obj);
        }
        Ok(obj)
    }

    /// What the list endpoints show as `busy` for `reg` now (stale by up to `--list-cache`).
    pub fn listed_busy(&self, reg: &Registration) -> bool {
        let cache = self.options.list_cache;
        if cache.is_zero() || self.now() >= reg.listed_at + cache {
            reg.busy
        } else {
            reg.listed_busy
        }
    }

    /// Brings each registration's listed `busy` up to date once its cache entry has expired.
    fn refresh_list_cache(&mut self, now: Instant) {
        let cache = self.options.list_cache;
        for reg in self.registrations.values_mut() {
            if cache.is_zero() || now >= reg.listed_at + cache {
                reg.listed_busy = reg.busy;
                reg.listed_at = now;
            }
        }
    }

    /// GitHub's `DELETE …/actions/runners/{id}`: 404 unknown, 422 busy, 204 otherwise; with
    /// `unsafe-204=P`, a DELETE within a second of a job's assignment gets 204 with
    /// probability P although the job runs on.
    pub fn unregister(&mut self, id: u64) -> Unregister {
        let now = self.now();
        let window = self.timing.unsafe_204_window;
        let Some(reg) = self.registrations.get(&id) else {
            return Unregister::NotFound;
        };
        let name = reg.name.clone();
        let just_assigned = reg
            .job_assigned_at
            .is_some_and(|at| now.saturating_duration_since(at) <= window);
        if reg.busy {
            if !(just_assigned && self.fault(FaultKind::Unsafe204)) {
                return Unregister::Busy { name };
            }
            self.stats.unsafe_204s += 1;
            self.registrations.remove(&id);
            self.unregistered.insert(id);
            self.event(EventKind::Unregistered {
                runner: name,
                unsafe_204: true,
            });
            return Unregister::Removed;
        }
        self.registrations.remove(&id);
        self.unregistered.insert(id);
        self.schedule_notice(id, &name);
        self.event(EventKind::Unregistered {
            runner: name,
            unsafe_204: false,
        });
        Unregister::Removed
    }

    /// A container's log as a kubelet serves it: the lines written to it and, for a runner
    /// container under `--log-noise`, its dockerd noise up to the world's clock. Cheap to take
    /// under the lock; [`LogView::entries`] does the work outside it.
    pub fn log_view(&self, ns: &str, pod: &str, container: &str) -> LogView {
        let real = self.store.log_entries(ns, pod, container, 0);
        let rate = self.options.log_noise;
        let noise = (rate > 0 && container == "runner")
            .then(|| self.store.get(crate::store::PODS, Some(ns), pod))
            .flatten()
            .and_then(|p| p["metadata"]["uid"].as_str())
            .and_then(|uid| {
                let life = self.lives.get(uid)?.clone();
                Some(Noise {
                    seed: noise::seed(self.options.seed, uid),
                    rate,
                    life,
                    until: self.wall_now(),
                })
            });
        LogView { real, noise }
    }

    /// Records an event for readers of [`World::events_since`].
    pub(crate) fn event(&mut self, what: EventKind) {
        let at = self
            .wall_now()
            .round(jiff::Unit::Second)
            .unwrap_or(self.wall_start)
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        self.events.push_back(WorldEvent {
            seq: self.next_event,
            at,
            what,
        });
        self.next_event += 1;
        while self.events.len() > EVENT_LOG_LEN {
            self.events.pop_front();
        }
    }

    /// The sequence number of the latest event (0 before the first).
    pub fn last_event_seq(&self) -> u64 {
        self.next_event - 1
    }

    /// The events after sequence number `seq` that are still kept (the last 2,000).
    pub fn events_since(&self, seq: u64) -> Vec<WorldEvent> {
        self.events
            .iter()
            .filter(|e| e.seq > seq)
            .cloned()
            .collect()
    }

    /// A fresh GitHub runner id (ids only grow, as on GitHub).
    pub(crate) fn next_runner_id(&mut self) -> u64 {
        let id = self.next_runner_id;
        self.next_runner_id += 1 + self.draw(0..3);
        id
    }

    /// The id of the label `name`, the same for every runner that carries it.
    pub(crate) fn label(&mut self, name: &str, label_type: &'static str) -> Label {
        let next = self.label_ids.len() as u64 + 1;
        let id = *self.label_ids.entry(name.to_owned()).or_insert(next);
        Label {
            id,
            name: name.to_owned(),
            label_type,
        }
    }

    /// Whether any controller work is still scheduled (waiting for a node doesn't count).
    pub fn is_settled(&self) -> bool {
        self.pending.iter().all(Pending::is_parked)
    }

    /// Whether the controller work that began by `t` (deletions, job ends, and everything they
    /// led to: replacements created and started) is done. Later work doesn't count.
    pub fn settled_since(&self, t: Instant) -> bool {
        self.pending.iter().all(|p| p.is_parked() || p.origin > t)
    }
}
