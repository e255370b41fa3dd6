//! The ARC-like controller: creates runners for the pools, starts them, and reacts to deletions
//! as ARC does in each mode (docs/design.md §7):
//!
//! - scale sets: a deleted bare pod is recreated under the same name, bound to the same
//!   registration (a runner whose registration is gone is then stuck); a deleted
//!   EphemeralRunner is marked (its finalizers) and the EphemeralRunnerSet creates a fresh one
//!   at once; ARC's finalizer work then removes the runner from the service — retrying every
//!   30 s while its job runs, the pod kept — deletes the pod (a job still on it dies), drops the
//!   finalizers, and the object goes; a pod whose job was killed gets its EphemeralRunner
//!   deleted;
//! - RunnerDeployments: a deleted pod takes its Runner with it (the pod finalizer unregisters
//!   unless the pod is annotated `actions-runner/unregistration-complete-timestamp`) and the
//!   RunnerReplicaSet creates a new Runner with a new name;
//! - RunnerSets: a deleted pod is recreated as `<sts>-0` and registers anew (new id);
//! - owners cascade to their dependents, as Kubernetes' garbage collector does: after the owner
//!   went (background), before it (foreground: dependents first, the owner waits in
//!   `foregroundDeletion` for those with `blockOwnerDeletion`), or not at all (orphan: their
//!   owner references are removed).
//!
//! `--pending FRACTION`: that share of new runner pods waits 5–40 s before its containers start
//! (`ContainerCreating`; a third of them fail their image pull, `ErrImagePull` alternating with
//! `ImagePullBackOff`). A scale-set runner is registered (offline) all that time; a legacy one
//! registers only when its container starts.
//!
//! The runner process is modelled too: an idle runner whose registration is deleted notices at
//! its next message poll, logs actions/runner's registration-deleted line and exits (exit code
//! 0 by default, as `run.sh` ends after the listener's terminated error); ARC then treats it as
//! any terminated runner container (docs/design.md §7.4).
//!
//! Reactions run synchronously inside the world's lock; a pod's start-up (Pending → Running,
//! registration online), its waiting reasons, the reaping of an exited runner, ARC's finalizer
//! work, a runner noticing its registration gone and exiting, and lagging job traces
//! (`--job-lag`) are scheduled for later ([`crate::world::Timing`]), as [`Pending`]
//! work that settling waits for.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::objects;
use crate::objects::{EPHEMERAL_RUNNER_FINALIZER, REGISTRATION_FINALIZER};
use crate::runners::{Owner, Pool, PoolKind, RunnerSlot, SlotState};
use crate::store::{
    self, DeleteOptions, Deletion, EPHEMERAL_RUNNER_SETS, EPHEMERAL_RUNNERS, FOREGROUND_DELETION,
    FieldSelector, LabelSelector, NODES, ORPHAN, PODS, Propagation, RUNNER_REPLICA_SETS,
    RUNNER_SETS, RUNNERS, ResourceType, STATEFUL_SETS,
};
use crate::world::{EventKind, Registration, Scope, World};

/// The pod annotation with which ARC's pod finalizer skips unregistration.
pub(crate) const UNREGISTRATION_COMPLETE: &str = "actions-runner/unregistration-complete-timestamp";
/// The pod annotation recording a legacy runner's GitHub id.
pub(crate) const RUNNER_ID: &str = "actions-runner/id";
/// Legacy ARC's runner-pod finalizer: it unregisters (unless told it's done), then lets go.
pub(crate) const LEGACY_POD_FINALIZER: &str = "actions.summerwind.dev/runner-pod";

/// `--pending`: how long a held pod waits before its containers start, in milliseconds.
const PENDING_DELAY_MS: std::ops::Range<u64> = 5_000..40_001;
/// `--pending`: the share of held pods whose image pull fails until they start.
const PULL_FAILURE_SHARE: f64 = 1.0 / 3.0;
/// A failing image pull: `ErrImagePull` this long after the pod was created, then
/// `ImagePullBackOff` a second later, and again after each back-off (10 s, doubling).
const FIRST_PULL_FAILURE: Duration = Duration::from_secs(2);
const FIRST_PULL_BACKOFF: Duration = Duration::from_secs(10);

/// Controller work due at a later instant, on one pod (identified by uid).
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub due: Instant,
    pub action: Action,
    pub namespace: String,
    pub pod: String,
    pub uid: String,
    /// When the chain of work this belongs to began (a deletion, a job's end): settling
    /// waits for chains that began before it did.
    pub origin: Instant,
    /// Waiting for something other than time (a schedulable node); not counted by settling.
    parked: bool,
    /// Part of a start held back by `--pending`: population, which starts every other pod at
    /// once, leaves it to its time.
    held: bool,
}

impl Pending {
    pub(crate) fn is_parked(&self) -> bool {
        self.parked
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// The pod's containers start; the runner connects (or finds its registration gone).
    Start,
    /// The kubelet reports the pending pod's runner container waiting for this reason.
    Waiting(&'static str),
    /// The runner exited (after its job, or after its registration was deleted); ARC acts on
    /// the terminated container.
    Reap,
    /// ARC's finalizer work on an object being deleted (`pod`/`uid` name the object): an
    /// EphemeralRunner, or a legacy pod with the runner-pod finalizer.
    Finalize(ResourceType),
    /// `--job-lag`: the runner's worker starts and logs `Running job:` for this job.
    LogJob(u64),
    /// `--job-lag`: ARC's listener patches this job's fields onto the EphemeralRunner.
    RecordJob(u64),
    /// An idle runner's message poll finds its registration deleted.
    Notice,
    /// The runner that noticed exits; its container terminates.
    Exit,
}

/// What actions/runner prints when its session cannot be created because the registration
/// was deleted (`Runner.Listener`'s `MessageListener`).
pub(crate) const REGISTRATION_DELETED: &str = "Failed to create a session. The runner registration has been deleted from the server, please re-configure.";

fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj["metadata"][key].as_str().unwrap_or_default()
}

/// A runner log line as actions/runner prints it: `2026-11-29 21:30:00Z: TEXT`.
pub(crate) fn log_line(at: jiff::Timestamp, text: &str) -> String {
    format!("{}: {text}", at.strftime("%Y-%m-%d %H:%M:%SZ"))
}

impl World {
    /// Kubernetes' timestamp format for the world's clock.
    pub(crate) fn k8s_now(&self) -> String {
        self.wall_now()
            .round(jiff::Unit::Second)
            .unwrap_or_else(|_| self.wall_now())
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    /// Appends a line to a runner container's log, stamped with the world's clock (kubelet
    /// time and the runner's own stamp agree, also in a backdated, populated world).
    pub(crate) fn runner_log(&mut self, ns: &str, pod: &str, text: &str) {
        let at = self.wall_now();
        self.store
            .append_log_at(ns, pod, "runner", at, log_line(at, text));
    }

    /// Appends a line the runner's scripts (`run.sh`, dockerd) print, without the runner's stamp.
    pub(crate) fn runner_log_raw(&mut self, ns: &str, pod: &str, line: String) {
        let at = self.wall_now();
        self.store.append_log_at(ns, pod, "runner", at, line);
    }

    /// Schedules controller work on pod `ns/pod` (uid `uid`) at `due`, in the chain of work
    /// running now (or a new chain from now).
    pub(crate) fn schedule(
        &mut self,
        due: Instant,
        action: Action,
        ns: &str,
        pod: &str,
        uid: &str,
    ) {
        let origin = self.cause.unwrap_or_else(|| self.now());
        self.pending.push(Pending {
            due,
            action,
            namespace: ns.to_owned(),
            pod: pod.to_owned(),
            uid: uid.to_owned(),
            origin,
            parked: false,
            held: false,
        });
    }

    /// After an API unregister: an idle, connected runner of that registration notices at its
    /// next message poll (a runner running a job does not poll).
    pub(crate) fn schedule_notice(&mut self, id: u64, name: &str) {
        let key = (self.options.namespace.clone(), name.to_owned());
        let Some(slot) = self.runners.get(&key) else {
            return;
        };
        if slot.registration != Some(id) || slot.state != SlotState::Running || slot.job.is_some() {
            return;
        }
        let uid = slot.pod_uid.clone();
        let (min, max) = (self.timing.notice_min, self.timing.notice_max);
        let after = min + self.draw_delay(max.saturating_sub(min));
        let due = self.now() + after;
        self.schedule(due, Action::Notice, &key.0, name, &uid);
    }

    /// Creates one more runner in `pool` if its replica set exists and wants more runners.
    /// Returns the new pod's name.
    pub(crate) fn add_replica(&mut self, pool_name: &str) -> Option<String> {
        let pool = self.pools.get(pool_name)?.clone();
        // A runner being deleted counts as gone: its replacement comes at once.
        let have = self
            .runners
            .values()
            .filter(|s| s.pool == pool.name && !s.deleting)
            .count();
        if have >= pool.replicas as usize {
            return None;
        }
        let ns = pool.namespace.clone();
        let org = self.options.org.clone();
        match pool.kind {
            PoolKind::ScaleSet => {
                let ers = self
                    .store
                    .get(
                        EPHEMERAL_RUNNER_SETS,
                        Some(&ns),
                        pool.replica_set.as_deref()?,
                    )?
                    .clone();
                let er = self
                    .create_object(
                        EPHEMERAL_RUNNERS,
                        Some(&ns),
                        objects::ephemeral_runner(&pool, &org, &ers),
                    )
                    .ok()?;
                let name = meta_str(&er, "name").to_owned();
                // The JIT config registers the runner before its pod starts: offline until then.
                let id = self.register(&name, &pool, "offline");
                let _ = self.store.modify(EPHEMERAL_RUNNERS, Some(&ns), &name, |o| {
                    store::merge(
                        &mut o["status"],
                        &json!({"runnerId": id, "runnerName": name}),
                    );
                });
                let pod = objects::scale_set_pod(&pool, &org, &er);
                self.create_runner_pod(&pool, pod, Owner::EphemeralRunner(name), Some(id), false)
            }
            PoolKind::Deployment => {
                let rrs = self
                    .store
                    .get(RUNNER_REPLICA_SETS, Some(&ns), pool.replica_set.as_deref()?)?
                    .clone();
                let runner = self
                    .create_object(RUNNERS, Some(&ns), objects::runner(&pool, &org, &rrs))
                    .ok()?;
                let name = meta_str(&runner, "name").to_owned();
                let pod = objects::legacy_pod(&pool, &org, &runner, self.options.log_noise > 0);
                self.create_runner_pod(&pool, pod, Owner::Runner(name), None, false)
            }
            PoolKind::RunnerSet => {
                let rs = self.store.get(RUNNER_SETS, Some(&ns), &pool.name)?.clone();
                let sts = self
                    .create_object(STATEFUL_SETS, Some(&ns), objects::stateful_set(&pool, &rs))
                    .ok()?;
                let name = meta_str(&sts, "name").to_owned();
                let pod = objects::stateful_set_pod(&pool, &org, &sts, self.options.log_noise > 0);
                self.create_runner_pod(&pool, pod, Owner::StatefulSet(name), None, false)
            }
        }
    }

    /// A new registration for runner `name` of `pool`.
    pub(crate) fn register(&mut self, name: &str, pool: &Pool, status: &'static str) -> u64 {
        let id = self.next_runner_id();
        let now = self.now();
        let online = status == "online";
        self.registrations.insert(
            id,
            Registration {
                id,
                name: name.to_owned(),
                scope: Scope::Org(self.options.org.clone()),
                os: "linux".to_owned(),
                status,
                busy: false,
                listed_busy: false,
                listed_at: now,
                labels: pool.labels.clone(),
                runner_group_id: pool.runner_group_id,
                ephemeral: true,
                version: online.then(|| objects::RUNNER_VERSION.to_owned()),
                job: None,
                job_assigned_at: None,
            },
        );
        id
    }

    /// Stores a runner pod (Pending, scheduled on a node when one is schedulable), records its
    /// runner process and schedules its start.
    fn create_runner_pod(
        &mut self,
        pool: &Pool,
        mut pod: Value,
        owner: Owner,
        registration: Option<u64>,
        recreated: bool,
    ) -> Option<String> {
        let node = self.pick_node();
        let at = self.k8s_now();
        if let Some(node) = &node {
            pod["spec"]["nodeName"] = json!(node);
        }
        pod["status"] = objects::pending_status(&pod, node.is_some(), &at);
        // `--pending`: held back for a while; a third of those fail their image pull first.
        let held = self.chance(self.options.pending);
        let (delay, pull_fails) = if held {
            let delay = Duration::from_millis(self.draw(PENDING_DELAY_MS));
            (delay, self.chance(PULL_FAILURE_SHARE))
        } else {
            (Duration::ZERO, false)
        };
        // A pod of a populated world has been failing its pull for a while already.
        let populating = !self.backdate.is_zero();
        if pull_fails && populating && node.is_some() {
            objects::set_runner_waiting(&mut pod, "ImagePullBackOff");
        }
        let pod = self.create_object(PODS, Some(&pool.namespace), pod).ok()?;
        let name = meta_str(&pod, "name").to_owned();
        let uid = meta_str(&pod, "uid").to_owned();
        self.runners.insert(
            (pool.namespace.clone(), name.clone()),
            RunnerSlot {
                pool: pool.name.clone(),
                owner,
                pod_uid: uid.clone(),
                registration,
                state: SlotState::Starting,
                job: None,
                recreated,
                deleting: false,
            },
        );
        let now = self.now();
        let start = now + self.timing.pod_start + delay;
        let origin = self.cause.unwrap_or(now);
        let at = |due: Instant, action: Action| Pending {
            due,
            action,
            namespace: pool.namespace.clone(),
            pod: name.clone(),
            uid: uid.clone(),
            origin,
            parked: false,
            held,
        };
        let mut work = vec![at(start, Action::Start)];
        if pull_fails {
            // The kubelet alternates: ErrImagePull, ImagePullBackOff, retry after the back-off.
            let first = if populating {
                Duration::from_secs(1)
            } else {
                FIRST_PULL_FAILURE
            };
            let (mut fail, mut backoff) = (now + first, FIRST_PULL_BACKOFF);
            while fail < start {
                work.push(at(fail, Action::Waiting("ErrImagePull")));
                let waiting = fail + Duration::from_secs(1);
                if waiting < start {
                    work.push(at(waiting, Action::Waiting("ImagePullBackOff")));
                }
                fail = waiting + backoff;
                backoff *= 2;
            }
        }
        self.pending.extend(work);
        Some(name)
    }

    /// The schedulable node with the fewest pods (ties: the first by name), as a spreading
    /// scheduler would pick.
    fn pick_node(&self) -> Option<String> {
        let all = (LabelSelector::default(), FieldSelector::default());
        let nodes: Vec<String> = self
            .store
            .list(NODES, None, &all.0, &all.1)
            .into_iter()
            .filter(|n| n["spec"]["unschedulable"] != json!(true))
            .map(|n| meta_str(n, "name").to_owned())
            .collect();
        nodes
            .into_iter()
            .map(|n| (self.store.pods_on_node(&n), n))
            .min()
            .map(|(_, n)| n)
    }

    /// Runs the controller work due by `now`, earliest first.
    pub(crate) fn run_pending(&mut self, now: Instant) {
        let mut due: Vec<Pending> = Vec::new();
        self.pending.retain(|p| {
            let take = !p.parked && p.due <= now;
            if take {
                due.push(p.clone());
            }
            !take
        });
        due.sort_by_key(|p| p.due);
        for p in due {
            self.run_action(p);
        }
    }

    /// Runs every scheduled start at once (population: the world begins in a steady state),
    /// except those `--pending` holds back: a drain at the start meets them pending.
    pub(crate) fn start_all_now(&mut self) {
        let (held, starts): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.held);
        self.pending = held;
        for p in starts {
            self.run_action(p);
        }
    }

    fn run_action(&mut self, p: Pending) {
        // Work this action causes belongs to the same chain.
        let outer = self.cause.replace(p.origin);
        self.run_action_inner(p);
        self.cause = outer;
    }

    fn run_action_inner(&mut self, p: Pending) {
        if let Action::Finalize(rt) = p.action {
            // Objects without a runner slot (a hand-built world) have finalizers too.
            if rt == EPHEMERAL_RUNNERS {
                self.finalize_ephemeral_runner(&p.namespace, &p.pod, &p.uid);
            } else if rt == PODS {
                self.finalize_legacy_pod(&p.namespace, &p.pod, &p.uid);
            }
            return;
        }
        let key = (p.namespace.clone(), p.pod.clone());
        let Some(slot) = self.runners.get(&key) else {
            return;
        };
        if slot.pod_uid != p.uid {
            return;
        }
        let idle = slot.state == SlotState::Running && slot.job.is_none();
        let dead = slot
            .registration
            .is_none_or(|id| !self.registrations.contains_key(&id));
        match p.action {
            Action::Start if slot.state == SlotState::Starting => self.start_runner(p),
            Action::Waiting(reason) if slot.state == SlotState::Starting => {
                let _ = self.store.modify(PODS, Some(&key.0), &key.1, |o| {
                    // Only a scheduled pod has container statuses to show.
                    if o["spec"]["nodeName"].is_string() {
                        objects::set_runner_waiting(o, reason);
                    }
                });
            }
            Action::Reap if matches!(slot.state, SlotState::Exited | SlotState::Failed) => {
                self.reap(&key);
            }
            Action::LogJob(job) => self.log_job_start(job, &p.uid),
            Action::RecordJob(job) => self.record_job(job, &p.uid),
            Action::Notice if idle && dead => {
                // The poll fails; the listener cannot recreate its session and stops with a
                // retryable error, which `run-helper.sh` re-launches after 5 s.
                self.runner_log(&p.namespace, &p.pod, REGISTRATION_DELETED);
                self.runner_log_raw(
                    &p.namespace,
                    &p.pod,
                    "Runner listener exit with retryable error, re-launch runner in 5 seconds."
                        .into(),
                );
                let due = self.now() + self.timing.exit_after_notice;
                self.schedule(due, Action::Exit, &p.namespace, &p.pod, &p.uid);
            }
            Action::Exit if idle => self.exit_after_notice(&p.namespace, &p.pod),
            _ => {}
        }
    }

    /// The pod starts: scheduled if it wasn't, containers running, the runner connects.
    fn start_runner(&mut self, mut p: Pending) {
        let (ns, name) = (p.namespace.clone(), p.pod.clone());
        let Some(pod) = self.store.get(PODS, Some(&ns), &name).cloned() else {
            return;
        };
        let node = match pod["spec"]["nodeName"].as_str() {
            Some(n) => n.to_owned(),
            None => match self.pick_node() {
                Some(n) => n,
                None => {
                    // No schedulable node: wait for one (an uncordon wakes it up).
                    p.parked = true;
                    self.pending.push(p);
                    return;
                }
            },
        };
        let at = self.k8s_now();
        let host_ip = self
            .store
            .get(NODES, None, &node)
            .and_then(|n| n["status"]["addresses"][0]["address"].as_str())
            .unwrap_or("172.18.0.2")
            .to_owned();
        let pod_ip = pod_ip(&host_ip, &p.uid);
        let _ = self.store.modify(PODS, Some(&ns), &name, |o| {
            o["spec"]["nodeName"] = json!(node);
            o["status"] = objects::running_status(o, &at, &pod_ip, &host_ip);
        });
        let key = (ns.clone(), name.clone());
        let Some(slot) = self.runners.get(&key).cloned() else {
            return;
        };
        let Some(pool) = self.pools.get(&slot.pool).cloned() else {
            return;
        };
        let registration = match &slot.owner {
            Owner::EphemeralRunner(_) => slot.registration,
            // Legacy runners run `config.sh --replace` at start: a new registration each time,
            // replacing any left under the same name.
            Owner::Runner(_) | Owner::StatefulSet(_) => {
                self.registrations.retain(|_, r| r.name != name);
                let id = self.register(&name, &pool, "offline");
                let _ = self.store.modify(PODS, Some(&ns), &name, |o| {
                    o["metadata"]["annotations"][RUNNER_ID] = json!(id.to_string());
                });
                Some(id)
            }
        };
        let connected = registration.is_some_and(|id| self.registrations.contains_key(&id));
        if self.options.log_noise > 0 {
            let started = self.wall_now();
            self.lives
                .insert(p.uid.clone(), crate::noise::ContainerLife::new(started));
            if !matches!(slot.owner, Owner::EphemeralRunner(_)) {
                // actions-runner-dind starts dockerd before the runner.
                let at = crate::store::rfc3339_nanos(started);
                for msg in [
                    "API listen on /var/run/docker.sock",
                    "Daemon has completed initialization",
                ] {
                    self.runner_log_raw(
                        &ns,
                        &name,
                        format!("time=\"{at}\" level=info msg=\"{msg}\""),
                    );
                }
            }
        }
        if let Some(slot) = self.runners.get_mut(&key) {
            slot.registration = registration;
            slot.state = if connected {
                SlotState::Running
            } else {
                SlotState::Stuck
            };
        }
        if connected {
            if let Some(reg) = registration.and_then(|id| self.registrations.get_mut(&id)) {
                reg.status = "online";
                reg.version = Some(objects::RUNNER_VERSION.to_owned());
            }
            self.runner_log(&ns, &name, "√ Connected to GitHub");
            self.runner_log(
                &ns,
                &name,
                &format!("Current runner version: '{}'", objects::RUNNER_VERSION),
            );
            self.runner_log(&ns, &name, "Listening for Jobs");
            self.event(EventKind::RunnerOnline {
                runner: name.clone(),
            });
        } else {
            self.runner_log(&ns, &name, REGISTRATION_DELETED);
            self.event(EventKind::RunnerStuck {
                runner: name.clone(),
            });
        }
        self.set_owner_phase(&slot.owner, &ns, "Running");
    }

    /// Mirrors the runner's phase onto its ARC object, as ARC's status updates do.
    fn set_owner_phase(&mut self, owner: &Owner, ns: &str, phase: &str) {
        let ready = phase == "Running";
        match owner {
            Owner::EphemeralRunner(er) => {
                let _ = self.store.modify(EPHEMERAL_RUNNERS, Some(ns), er, |o| {
                    store::merge(&mut o["status"], &json!({"phase": phase, "ready": ready}));
                });
            }
            Owner::Runner(r) => {
                let _ = self.store.modify(RUNNERS, Some(ns), r, |o| {
                    store::merge(&mut o["status"], &json!({"phase": phase, "ready": ready}));
                });
            }
            Owner::StatefulSet(_) => {}
        }
    }

    /// A finished runner's container exited: ARC deletes the runner and replaces it.
    fn reap(&mut self, key: &(String, String)) {
        let Some(slot) = self.runners.get(key).cloned() else {
            return;
        };
        let ns = Some(key.0.as_str());
        let _ = match &slot.owner {
            Owner::EphemeralRunner(er) if slot.state == SlotState::Failed => {
                // `deletePodAsFailed`: the failure is recorded on the EphemeralRunner and the
                // pod deleted; ARC recreates it with the same JIT config (docs/design.md
                // §7.4).
                let at = self.k8s_now();
                let uid = slot.pod_uid.clone();
                let _ = self.store.modify(EPHEMERAL_RUNNERS, ns, er, |o| {
                    store::merge(&mut o["status"], &json!({"failures": {uid: at}}));
                });
                self.delete_object(PODS, ns, &key.1, Some(&slot.pod_uid))
            }
            Owner::EphemeralRunner(er) => self.delete_object(EPHEMERAL_RUNNERS, ns, er, None),
            Owner::Runner(r) => self.delete_object(RUNNERS, ns, r, None),
            Owner::StatefulSet(_) => self.delete_object(PODS, ns, &key.1, Some(&slot.pod_uid)),
        };
    }

    /// Marks a runner as finished: its container exited 0, ARC reaps it after `Timing::reap`.
    pub(crate) fn runner_exited(&mut self, ns: &str, pod: &str) {
        self.container_exited(ns, pod, 0);
    }

    /// The runner container terminated with `code`; ARC acts on it after `Timing::reap`.
    fn container_exited(&mut self, ns: &str, pod: &str, code: i32) {
        let key = (ns.to_owned(), pod.to_owned());
        let Some(slot) = self.runners.get_mut(&key) else {
            return;
        };
        slot.state = if code == 0 {
            SlotState::Exited
        } else {
            SlotState::Failed
        };
        slot.job = None;
        let uid = slot.pod_uid.clone();
        let at = self.k8s_now();
        let ended = self.wall_now();
        if let Some(life) = self.lives.get_mut(&uid) {
            life.job_ended(ended);
            life.ended = Some(ended);
        }
        let _ = self.store.modify(PODS, Some(ns), pod, |o| {
            o["status"] = objects::terminated_status(o, &at, code);
        });
        let due = self.now() + self.timing.reap;
        self.schedule(due, Action::Reap, ns, pod, &uid);
        // A runner whose EphemeralRunner is being deleted: the pod's change wakes ARC's
        // finalizer before its 30 s requeue.
        if let Some(Owner::EphemeralRunner(er)) = self.runners.get(&key).map(|s| s.owner.clone())
            && let Some(obj) = self.store.get(EPHEMERAL_RUNNERS, Some(ns), &er)
            && store::is_deleting(obj)
        {
            let uid = meta_str(obj, "uid").to_owned();
            let due = self.now() + self.timing.finalize;
            self.schedule_finalize(EPHEMERAL_RUNNERS, ns, &er, &uid, due);
        }
    }

    /// Schedules ARC's finalizer work on object `ns`/`name` (`uid`) at `due`.
    fn schedule_finalize(
        &mut self,
        rt: ResourceType,
        ns: &str,
        name: &str,
        uid: &str,
        due: Instant,
    ) {
        let origin = self.cause.unwrap_or_else(|| self.now());
        self.pending.push(Pending {
            due,
            action: Action::Finalize(rt),
            namespace: ns.to_owned(),
            pod: name.to_owned(),
            uid: uid.to_owned(),
            origin,
            parked: false,
            held: false,
        });
    }

    /// The reactions to an object marked for deletion (it has finalizers): ARC's controllers
    /// start their finalizer work (an EphemeralRunnerSet replaces a runner being deleted at
    /// once), and the garbage collector acts on a foreground or orphaning delete.
    pub(crate) fn on_deleting(&mut self, rt: ResourceType, obj: &Value, first: bool) {
        let ns = meta_str(obj, "namespace").to_owned();
        let name = meta_str(obj, "name").to_owned();
        let uid = meta_str(obj, "uid").to_owned();
        let finalizers = store::finalizers(obj);
        let has = |f: &str| finalizers.iter().any(|x| x == f);
        if first && rt == EPHEMERAL_RUNNERS {
            let key = (ns.clone(), name.clone());
            if let Some(slot) = self.runners.get_mut(&key)
                && slot.owner == Owner::EphemeralRunner(name.clone())
            {
                slot.deleting = true;
            }
            // The EphemeralRunnerSet counts a runner being deleted as gone.
            self.replace_in(obj, "actions.github.com/scale-set-name");
            if has(EPHEMERAL_RUNNER_FINALIZER) || has(REGISTRATION_FINALIZER) {
                let due = self.now() + self.timing.finalize;
                self.schedule_finalize(rt, &ns, &name, &uid, due);
            }
        }
        if first && rt == PODS && has(LEGACY_POD_FINALIZER) {
            let due = self.now() + self.timing.finalize;
            self.schedule_finalize(rt, &ns, &name, &uid, due);
        }
        if has(ORPHAN) {
            self.orphan_dependents(&uid);
            self.drop_finalizer(rt, &ns, &name, &uid, ORPHAN);
        }
        if has(FOREGROUND_DELETION) {
            let doomed = self.dependents(&uid);
            let foreground = DeleteOptions {
                propagation: Some(Propagation::Foreground),
                ..DeleteOptions::default()
            };
            for (t, dns, dname, duid) in doomed {
                let opts = DeleteOptions {
                    uid: Some(duid),
                    ..foreground.clone()
                };
                // Gone already (an earlier cascade took it) is fine.
                let _ = self.delete_with(t, Some(&dns), &dname, &opts);
            }
            self.release_foreground(rt, &ns, &name, &uid);
        }
    }

    /// Removes `finalizer` from the object `ns`/`name` if it still has `uid`; runs the
    /// reactions to its deletion when that was the last one.
    fn drop_finalizer(&mut self, rt: ResourceType, ns: &str, name: &str, uid: &str, f: &str) {
        let ours = self
            .store
            .get(rt, Some(ns), name)
            .is_some_and(|o| meta_str(o, "uid") == uid);
        if !ours {
            return;
        }
        if let Ok(Deletion::Removed(obj)) = self.store.remove_finalizer(rt, Some(ns), name, f) {
            self.on_deleted(rt, &obj);
        }
    }

    /// The garbage collector's end of a foreground delete: once no dependent that blocks its
    /// owner's deletion is left, the owner loses `foregroundDeletion` (and goes, if that was
    /// its last finalizer).
    fn release_foreground(&mut self, rt: ResourceType, ns: &str, name: &str, uid: &str) {
        let waiting = self.store.get(rt, Some(ns), name).is_some_and(|o| {
            meta_str(o, "uid") == uid
                && store::finalizers(o)
                    .iter()
                    .any(|f| f == FOREGROUND_DELETION)
        });
        if !waiting || self.blocking_dependents(uid) {
            return;
        }
        self.drop_finalizer(rt, ns, name, uid, FOREGROUND_DELETION);
    }

    /// Whether an object owned by `uid` with `blockOwnerDeletion` is still stored.
    fn blocking_dependents(&self, uid: &str) -> bool {
        self.store.owned_by(uid).into_iter().any(|(_, o)| {
            o["metadata"]["ownerReferences"]
                .as_array()
                .is_some_and(|refs| {
                    refs.iter()
                        .any(|r| r["uid"] == json!(uid) && r["blockOwnerDeletion"] == json!(true))
                })
        })
    }

    /// Objects owned by `uid`: (type, namespace, name, uid).
    fn dependents(&self, uid: &str) -> Vec<(ResourceType, String, String, String)> {
        // The store's owner index: a lookup, in the order a scan of every type would give.
        self.store
            .owned_by(uid)
            .into_iter()
            .map(|(t, o)| {
                (
                    t,
                    meta_str(o, "namespace").to_owned(),
                    meta_str(o, "name").to_owned(),
                    meta_str(o, "uid").to_owned(),
                )
            })
            .collect()
    }

    /// An orphaning delete: the dependents of `uid` lose their owner reference to it.
    fn orphan_dependents(&mut self, uid: &str) {
        for (t, ns, name, _) in self.dependents(uid) {
            let _ = self.store.modify(t, Some(&ns), &name, |o| {
                if let Some(refs) = o["metadata"]["ownerReferences"].as_array_mut() {
                    refs.retain(|r| r["uid"] != json!(uid));
                    if refs.is_empty()
                        && let Some(m) = o["metadata"].as_object_mut()
                    {
                        m.remove("ownerReferences");
                    }
                }
            });
        }
    }

    /// ARC's EphemeralRunner finalizer (`ephemeralrunner_controller.go`, docs/design.md
    /// §7.2): remove the runner from the service — while its job runs the service refuses
    /// ("Runner is not finished yet, retrying in 30s": pod untouched); a registration already
    /// gone is fine — then delete the pod (a job still running on it dies), then drop the
    /// finalizers: the object goes.
    fn finalize_ephemeral_runner(&mut self, ns: &str, name: &str, uid: &str) {
        let Some(er) = self.store.get(EPHEMERAL_RUNNERS, Some(ns), name).cloned() else {
            return;
        };
        if meta_str(&er, "uid") != uid || !store::is_deleting(&er) {
            return;
        }
        let finalizers = store::finalizers(&er);
        if finalizers.iter().any(|f| f == REGISTRATION_FINALIZER) {
            if let Some(id) = er["status"]["runnerId"].as_u64()
                && self.registrations.contains_key(&id)
            {
                let job_runs = self.jobs.running.values().any(|j| j.registration == id);
                if job_runs {
                    let due = self.now() + self.timing.finalize_retry;
                    self.schedule_finalize(EPHEMERAL_RUNNERS, ns, name, uid, due);
                    return;
                }
                self.registrations.remove(&id);
            }
            self.drop_finalizer(EPHEMERAL_RUNNERS, ns, name, uid, REGISTRATION_FINALIZER);
        }
        // cleanupResources: the pod goes (looked up by the runner's name, as ARC does).
        if self.store.get(PODS, Some(ns), name).is_some() {
            let _ = self.delete_object(PODS, Some(ns), name, None);
        }
        if self.store.get(PODS, Some(ns), name).is_some() {
            // The pod is itself being deleted: look again later.
            let due = self.now() + self.timing.finalize;
            self.schedule_finalize(EPHEMERAL_RUNNERS, ns, name, uid, due);
            return;
        }
        self.drop_finalizer(EPHEMERAL_RUNNERS, ns, name, uid, EPHEMERAL_RUNNER_FINALIZER);
    }

    /// Legacy ARC's runner-pod finalizer: unregister unless the pod says it is done, then let
    /// go of the pod.
    fn finalize_legacy_pod(&mut self, ns: &str, name: &str, uid: &str) {
        let Some(pod) = self.store.get(PODS, Some(ns), name).cloned() else {
            return;
        };
        if meta_str(&pod, "uid") != uid || !store::is_deleting(&pod) {
            return;
        }
        if !pod["metadata"]["annotations"][UNREGISTRATION_COMPLETE].is_string() {
            let key = (ns.to_owned(), name.to_owned());
            let id = self
                .runners
                .get(&key)
                .filter(|s| s.pod_uid == uid)
                .and_then(|s| s.registration);
            self.remove_registration(id);
        }
        self.drop_finalizer(PODS, ns, name, uid, LEGACY_POD_FINALIZER);
    }

    /// The runner that noticed its registration deleted exits: the re-launched listener cannot
    /// create a session either (`Runner.Listener` returns 1, `run-helper.sh` exits 0).
    fn exit_after_notice(&mut self, ns: &str, pod: &str) {
        let code = self.timing.notice_exit_code;
        self.runner_log_raw(
            ns,
            pod,
            "Restart runner after it exited with return code '2'".into(),
        );
        self.runner_log(ns, pod, REGISTRATION_DELETED);
        self.runner_log_raw(
            ns,
            pod,
            "Runner listener exit with terminated error, stop the service, no retry needed.".into(),
        );
        self.runner_log_raw(
            ns,
            pod,
            format!("Exit runner after it exited with return code '{code}'"),
        );
        self.container_exited(ns, pod, code);
    }

    /// Removes a registration, if it still exists.
    fn remove_registration(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            self.registrations.remove(&id);
        }
    }

    /// The reactions to a deleted object: dependents go first (garbage collection), then the
    /// owner's controller acts.
    pub(crate) fn on_deleted(&mut self, rt: ResourceType, obj: &Value) {
        let ns = meta_str(obj, "namespace").to_owned();
        let name = meta_str(obj, "name").to_owned();
        let uid = meta_str(obj, "uid").to_owned();
        self.event(EventKind::Deleted {
            kind: rt.kind,
            name: name.clone(),
        });
        self.collect_dependents(&uid, rt, obj);
        // An owner waiting in a foreground delete may now be free to go.
        self.release_owners(obj);
        if rt == PODS {
            self.pod_deleted(&ns, &name, &uid, obj);
        } else if rt == EPHEMERAL_RUNNERS {
            // The finalizer removes the runner from the service (ARC #4664: the pod goes at
            // once, the removal follows in the background).
            let id = obj["status"]["runnerId"].as_u64();
            self.remove_registration(id);
            self.replace_in(obj, "actions.github.com/scale-set-name");
        } else if rt == RUNNERS {
            self.replace_in(obj, "runner-deployment-name");
        } else if rt == STATEFUL_SETS {
            self.replace_in(obj, "runnerset-name");
        }
    }

    /// The owners of a deleted `obj` that wait for their dependents (foreground deletion).
    fn release_owners(&mut self, obj: &Value) {
        let ns = meta_str(obj, "namespace").to_owned();
        let refs: Vec<(String, String, String)> = obj["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
                (s("kind"), s("name"), s("uid"))
            })
            .collect();
        for (kind, name, uid) in refs {
            if let Some(rt) = store::ALL_TYPES.into_iter().find(|t| t.kind == kind) {
                self.release_foreground(rt, &ns, &name, &uid);
            }
        }
    }

    /// Deletes what Kubernetes' garbage collector would: objects owned by `uid`, pods on a
    /// deleted node, everything in a deleted namespace.
    fn collect_dependents(&mut self, uid: &str, rt: ResourceType, obj: &Value) {
        let all = (LabelSelector::default(), FieldSelector::default());
        let mut doomed: Vec<(ResourceType, String, String, String)> = self.dependents(uid);
        // Only a node or a namespace takes more than its dependents: no scan otherwise.
        let types = if rt == NODES || rt == store::NAMESPACES {
            &store::ALL_TYPES[..]
        } else {
            &[]
        };
        for &t in types {
            for o in self.store.list(t, None, &all.0, &all.1) {
                let on_node =
                    rt == NODES && t == PODS && o["spec"]["nodeName"] == obj["metadata"]["name"];
                let in_ns = rt == store::NAMESPACES
                    && t.namespaced
                    && o["metadata"]["namespace"] == obj["metadata"]["name"];
                let known = doomed.iter().any(|d| d.3 == meta_str(o, "uid"));
                if (on_node || in_ns) && !known {
                    doomed.push((
                        t,
                        meta_str(o, "namespace").to_owned(),
                        meta_str(o, "name").to_owned(),
                        meta_str(o, "uid").to_owned(),
                    ));
                }
            }
        }
        for (t, ns, name, uid) in doomed {
            // Already gone (an earlier cascade took it) is fine.
            let _ = self.delete_object(t, Some(&ns), &name, Some(&uid));
        }
    }

    /// The owner's replica set keeps its replica count: a replacement for a deleted runner.
    fn replace_in(&mut self, obj: &Value, pool_label: &str) {
        if let Some(pool) = obj["metadata"]["labels"][pool_label].as_str() {
            let pool = pool.to_owned();
            self.add_replica(&pool);
        }
    }

    fn pod_deleted(&mut self, ns: &str, name: &str, uid: &str, obj: &Value) {
        let key = (ns.to_owned(), name.to_owned());
        if self.runners.get(&key).is_none_or(|s| s.pod_uid != uid) {
            return;
        }
        let Some(slot) = self.runners.remove(&key) else {
            return;
        };
        // Nothing more happens to this pod: its scheduled work and its noise go with it.
        self.pending.retain(|p| p.uid != uid);
        self.lives.remove(uid);
        // The runner process is gone: GitHub sees its registration (if any is left) offline.
        if let Some(reg) = slot
            .registration
            .and_then(|id| self.registrations.get_mut(&id))
        {
            reg.status = "offline";
        }
        let killed = match slot.job {
            Some(job) => {
                self.kill_job(job, name);
                true
            }
            None => false,
        };
        let skip_unregistration =
            obj["metadata"]["annotations"][UNREGISTRATION_COMPLETE].is_string();
        match &slot.owner {
            Owner::EphemeralRunner(er) => {
                // Gone, or being deleted: its finalizer (or the garbage collector) took the pod,
                // and the EphemeralRunnerSet has replaced the runner already.
                if self
                    .store
                    .get(EPHEMERAL_RUNNERS, Some(ns), er)
                    .is_none_or(store::is_deleting)
                {
                    return;
                }
                if killed || slot.state == SlotState::Exited {
                    // The runner exited with a job (or finished): ARC deletes the EphemeralRunner.
                    let _ = self.delete_object(EPHEMERAL_RUNNERS, Some(ns), er, None);
                } else if let Some(pool) = self.pools.get(&slot.pool).cloned() {
                    // "Ephemeral runner pod does not exist. Creating new ephemeral runner": same
                    // name, same JIT config, so the same registration, dead or alive.
                    let Some(er_obj) = self.store.get(EPHEMERAL_RUNNERS, Some(ns), er).cloned()
                    else {
                        return;
                    };
                    let pod = objects::scale_set_pod(&pool, &self.options.org.clone(), &er_obj);
                    self.set_owner_phase(&slot.owner, ns, "Pending");
                    self.create_runner_pod(&pool, pod, slot.owner.clone(), slot.registration, true);
                }
            }
            Owner::Runner(runner) => {
                // The pod finalizer unregisters (unless told it's done), and the pod controller
                // deletes the parent Runner so the RunnerReplicaSet makes a new one.
                if !skip_unregistration {
                    self.remove_registration(slot.registration);
                }
                if self.store.get(RUNNERS, Some(ns), runner).is_some() {
                    let _ = self.delete_object(RUNNERS, Some(ns), runner, None);
                }
            }
            Owner::StatefulSet(sts) => {
                if !skip_unregistration {
                    self.remove_registration(slot.registration);
                }
                let Some(sts_obj) = self.store.get(STATEFUL_SETS, Some(ns), sts).cloned() else {
                    return;
                };
                if let Some(pool) = self.pools.get(&slot.pool).cloned() {
                    // The StatefulSet recreates `<sts>-0`; it registers anew at start.
                    let dind = self.options.log_noise > 0;
                    let pod =
                        objects::stateful_set_pod(&pool, &self.options.org.clone(), &sts_obj, dind);
                    self.create_runner_pod(&pool, pod, slot.owner.clone(), None, false);
                }
            }
        }
    }

    /// The reactions to a patched object: uncordoning a node lets unscheduled pods start; a
    /// new `spec.replicas` on an EphemeralRunnerSet, RunnerDeployment, RunnerReplicaSet or
    /// RunnerSet scales its pool.
    pub(crate) fn on_patched(&mut self, rt: ResourceType, obj: &Value) {
        if rt == NODES && obj["spec"]["unschedulable"] != json!(true) {
            let now = self.now();
            for p in &mut self.pending {
                if p.parked {
                    p.parked = false;
                    p.due = now;
                }
            }
        }
        let name = meta_str(obj, "name");
        let pool = if rt == EPHEMERAL_RUNNER_SETS || rt == RUNNER_REPLICA_SETS {
            self.pools
                .values()
                .find(|p| p.replica_set.as_deref() == Some(name))
                .map(|p| p.name.clone())
        } else if rt == store::RUNNER_DEPLOYMENTS || rt == RUNNER_SETS {
            self.pools.get(name).map(|p| p.name.clone())
        } else {
            None
        };
        if let (Some(pool), Some(replicas)) = (pool, obj["spec"]["replicas"].as_u64()) {
            self.scale(&pool, u32::try_from(replicas).unwrap_or(u32::MAX));
        }
    }

    /// Scales a pool to `replicas`: up by creating runners; down as ARC does, by removing
    /// runners without a job (starting ones first, then idle ones; unregister, then delete
    /// the owner). Busy runners are never removed: the pool shrinks as their jobs end.
    fn scale(&mut self, pool_name: &str, replicas: u32) {
        let Some(pool) = self.pools.get_mut(pool_name) else {
            return;
        };
        pool.replicas = replicas;
        let have: Vec<((String, String), RunnerSlot)> = self
            .runners
            .iter()
            .filter(|(_, s)| s.pool == pool_name && !s.deleting)
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        let wanted = replicas as usize;
        if have.len() < wanted {
            for _ in have.len()..wanted {
                self.add_replica(pool_name);
            }
            return;
        }
        let mut spare: Vec<((String, String), RunnerSlot)> = have
            .iter()
            .filter(|(_, s)| s.job.is_none())
            .cloned()
            .collect();
        spare.sort_by_key(|(_, s)| s.state != SlotState::Starting);
        for ((ns, _), slot) in spare.into_iter().take(have.len() - wanted) {
            self.remove_registration(slot.registration);
            let _ = match &slot.owner {
                Owner::EphemeralRunner(er) => {
                    self.delete_object(EPHEMERAL_RUNNERS, Some(&ns), er, None)
                }
                Owner::Runner(r) => self.delete_object(RUNNERS, Some(&ns), r, None),
                Owner::StatefulSet(sts) => self.delete_object(STATEFUL_SETS, Some(&ns), sts, None),
            };
        }
    }
}

/// A pod IP on the node's subnet, stable for a pod uid.
fn pod_ip(host_ip: &str, uid: &str) -> String {
    let last = host_ip
        .rsplit('.')
        .next()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(2);
    let h = uid
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    format!("10.244.{}.{}", last.saturating_sub(2), h % 250 + 3)
}
