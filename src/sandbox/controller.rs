//! The ARC-like controller: creates runners for the pools, starts them, and reacts to deletions
//! as ARC does in each mode (`reference/arc.md` §2.3–2.5, §3):
//!
//! - scale sets: a deleted bare pod is recreated under the same name, bound to the same
//!   registration (a runner whose registration is gone is then stuck); a deleted
//!   EphemeralRunner takes its pod and registration with it and the EphemeralRunnerSet creates
//!   a fresh one; a pod whose job was killed gets its EphemeralRunner deleted;
//! - RunnerDeployments: a deleted pod takes its Runner with it (the pod finalizer unregisters
//!   unless the pod is annotated `actions-runner/unregistration-complete-timestamp`) and the
//!   RunnerReplicaSet creates a new Runner with a new name;
//! - RunnerSets: a deleted pod is recreated as `<sts>-0` and registers anew (new id);
//! - owners cascade to their dependents, as Kubernetes' garbage collector does.
//!
//! The runner process is modelled too: an idle runner whose registration is deleted notices at
//! its next message poll, logs actions/runner's registration-deleted line and exits (exit code
//! 0 by default, as `run.sh` ends after the listener's terminated error); ARC then treats it as
//! any terminated runner container (`reference/arc.md` §1.8, §2.5).
//!
//! Reactions run synchronously inside the world's lock; a pod's start-up (Pending → Running,
//! registration online), the reaping of an exited runner, a runner noticing its registration
//! gone and exiting, and lagging job traces (`--job-lag`) are scheduled for later
//! ([`crate::sandbox::world::Timing`]), as [`Pending`] work that settling waits for.

use std::time::Instant;

use serde_json::{Value, json};

use crate::sandbox::objects;
use crate::sandbox::runners::{Owner, Pool, PoolKind, RunnerSlot, SlotState};
use crate::sandbox::store::{
    self, EPHEMERAL_RUNNER_SETS, EPHEMERAL_RUNNERS, FieldSelector, LabelSelector, NODES, PODS,
    RUNNER_REPLICA_SETS, RUNNER_SETS, RUNNERS, ResourceType, STATEFUL_SETS,
};
use crate::sandbox::world::{EventKind, Registration, Scope, World};

/// The pod annotation with which ARC's pod finalizer skips unregistration.
pub(crate) const UNREGISTRATION_COMPLETE: &str = "actions-runner/unregistration-complete-timestamp";
/// The pod annotation recording a legacy runner's GitHub id.
pub(crate) const RUNNER_ID: &str = "actions-runner/id";

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
    /// The runner exited (after its job, or after its registration was deleted); ARC acts on
    /// the terminated container.
    Reap,
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
        let have = self
            .runners
            .values()
            .filter(|s| s.pool == pool.name)
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
            },
        );
        let due = self.now() + self.timing.pod_start;
        self.schedule(due, Action::Start, &pool.namespace, &name, &uid);
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

    /// Runs every scheduled start at once (population: the world begins in a steady state).
    pub(crate) fn start_all_now(&mut self) {
        let starts: Vec<Pending> = std::mem::take(&mut self.pending);
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
            self.lives.insert(
                p.uid.clone(),
                crate::sandbox::noise::ContainerLife::new(started),
            );
            if !matches!(slot.owner, Owner::EphemeralRunner(_)) {
                // actions-runner-dind starts dockerd before the runner.
                let at = crate::sandbox::store::rfc3339_nanos(started);
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
                // pod deleted; ARC recreates it with the same JIT config (`reference/arc.md`
                // §2.5).
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

    /// Deletes what Kubernetes' garbage collector would: objects owned by `uid`, pods on a
    /// deleted node, everything in a deleted namespace.
    fn collect_dependents(&mut self, uid: &str, rt: ResourceType, obj: &Value) {
        let all = (LabelSelector::default(), FieldSelector::default());
        let mut doomed: Vec<(ResourceType, String, String, String)> = Vec::new();
        for t in store::ALL_TYPES {
            for o in self.store.list(t, None, &all.0, &all.1) {
                let owned = o["metadata"]["ownerReferences"]
                    .as_array()
                    .is_some_and(|refs| refs.iter().any(|r| r["uid"] == json!(uid)));
                let on_node =
                    rt == NODES && t == PODS && o["spec"]["nodeName"] == obj["metadata"]["name"];
                let in_ns = rt == store::NAMESPACES
                    && t.namespaced
                    && o["metadata"]["namespace"] == obj["metadata"]["name"];
                if owned || on_node || in_ns {
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
                if self.store.get(EPHEMERAL_RUNNERS, Some(ns), er).is_none() {
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
            .filter(|(_, s)| s.pool == pool_name)
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
