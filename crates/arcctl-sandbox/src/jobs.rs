//! Job traffic: a seeded dispatcher that queues jobs at `--job-rate` per second and assigns
//! them to idle, online, registered runners whose pods run; job ends; job kills.
//!
//! A job is assigned as GitHub assigns it: the registration turns busy, the runner logs
//! `Running job: NAME`, and a scale-set runner's EphemeralRunner gets the job fields the
//! listener patches in. At its end the runner logs `Job NAME completed with result:
//! Succeeded`, the ephemeral registration goes away and the container exits.
//!
//! With `--job-lag DUR` the registration is still busy at once, but the log line comes a drawn
//! delay up to DUR later and the EphemeralRunner's fields up to 2×DUR later (controller work,
//! so a stepped clock sees them on time). A job that ends first still logs `Running job:`
//! before its completion line; its EphemeralRunner fields are then never written.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::controller::Action;
use crate::runners::{Owner, SlotState};
use crate::stats::KilledJob;
use crate::store::{self, EPHEMERAL_RUNNERS, PODS};
use crate::world::{EventKind, World};

/// The most jobs kept waiting for a runner; arrivals beyond it are dropped (and counted).
const MAX_QUEUE: usize = 10_000;
/// After a stall longer than this (a suspended process), arrivals restart from now instead of
/// catching up in one burst.
const MAX_CATCH_UP: Duration = Duration::from_secs(10);

/// A job running on a runner.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub name: String,
    pub namespace: String,
    pub pod: String,
    pub pod_uid: String,
    pub registration: u64,
    pub ends_at: Instant,
    /// The runner has logged `Running job:` for it.
    pub logged: bool,
    /// ARC has recorded it on the EphemeralRunner (or there is none).
    pub recorded: bool,
}

/// The dispatcher's state.
#[derive(Debug)]
pub(crate) struct Jobs {
    pub running: BTreeMap<u64, Job>,
    /// Job names waiting for an idle runner.
    pub queue: VecDeque<String>,
    /// Arrivals dropped because the queue was full.
    pub dropped: u64,
    next_arrival: Option<Instant>,
    /// When traffic began (the first arrival is drawn from here).
    since: Instant,
    next_number: u64,
    next_id: u64,
    /// False once traffic is stopped: no more arrivals (running jobs still end).
    pub traffic: bool,
}

impl Jobs {
    pub(crate) fn new(now: Instant) -> Self {
        Jobs {
            running: BTreeMap::new(),
            queue: VecDeque::new(),
            dropped: 0,
            next_arrival: None,
            since: now,
            next_number: 100,
            next_id: 0,
            traffic: true,
        }
    }
}

const JOB_KINDS: [&str; 5] = ["build", "test", "lint", "e2e", "deploy"];

impl World {
    /// Stops job arrivals; running jobs still end and queued ones are still assigned.
    pub fn stop_traffic(&mut self) {
        self.jobs.traffic = false;
    }

    /// The jobs running now: (job, runner pod, when it ends), for tests that step the clock.
    pub fn jobs_running(&self) -> Vec<(String, String, Instant)> {
        self.jobs
            .running
            .values()
            .map(|j| (j.name.clone(), j.pod.clone(), j.ends_at))
            .collect()
    }

    /// A job duration drawn from `--job-duration`.
    fn job_duration(&mut self) -> Duration {
        let range = self.options.job_duration;
        let (min, max) = (range.min.as_millis() as u64, range.max.as_millis() as u64);
        Duration::from_millis(self.draw(min..max.saturating_add(1)))
    }

    /// The time to the next arrival of a Poisson process at `--job-rate` per second.
    fn interarrival(&mut self) -> Duration {
        let rate = self.options.job_rate;
        let u = self.unit();
        Duration::from_secs_f64((-(1.0 - u).ln() / rate).min(3600.0))
    }

    fn new_job_name(&mut self) -> String {
        let kind = JOB_KINDS[self.draw(0..JOB_KINDS.len() as u64) as usize];
        let n = self.jobs.next_number;
        self.jobs.next_number += 1;
        format!("{kind}-{n}")
    }

    /// Draws when the first job arrives (traffic starts with the world).
    pub(crate) fn schedule_first_arrival(&mut self) {
        if self.options.job_rate > 0.0 && self.jobs.next_arrival.is_none() {
            let first = self.now() + self.interarrival();
            self.jobs.next_arrival = Some(first);
        }
    }

    /// When the next job ends or arrives.
    pub(crate) fn next_job_event(&self) -> Option<Instant> {
        let end = self.jobs.running.values().map(|j| j.ends_at).min();
        let arrival = self
            .jobs
            .next_arrival
            .filter(|_| self.jobs.traffic && self.options.job_rate > 0.0);
        end.into_iter().chain(arrival).min()
    }

    /// Arrivals, assignments and job ends due by `now`.
    pub(crate) fn run_jobs(&mut self, now: Instant) {
        let mut ending: Vec<(Instant, u64)> = self
            .jobs
            .running
            .iter()
            .filter(|(_, j)| j.ends_at <= now)
            .map(|(id, j)| (j.ends_at, *id))
            .collect();
        ending.sort();
        for (_, id) in ending {
            self.complete_job(id);
        }
        if self.jobs.traffic && self.options.job_rate > 0.0 {
            let mut next = match self.jobs.next_arrival {
                Some(t) if now.saturating_duration_since(t) <= MAX_CATCH_UP => t,
                Some(_) => now + self.interarrival(),
                None => {
                    let since = self
                        .jobs
                        .since
                        .max(now.checked_sub(MAX_CATCH_UP).unwrap_or(now));
                    since + self.interarrival()
                }
            };
            while next <= now {
                let name = self.new_job_name();
                if self.jobs.queue.len() < MAX_QUEUE {
                    self.jobs.queue.push_back(name);
                } else {
                    self.jobs.dropped += 1;
                }
                next += self.interarrival();
            }
            self.jobs.next_arrival = Some(next);
        }
        self.assign_queued();
    }

    /// Runners GitHub would hand a job to now: registered, online, not busy, connected, in a
    /// running pod.
    pub(crate) fn idle_runners(&self) -> Vec<(String, String)> {
        self.runners
            .iter()
            .filter(|(_, s)| s.state == SlotState::Running && s.job.is_none())
            .filter(|(_, s)| {
                s.registration
                    .and_then(|id| self.registrations.get(&id))
                    .is_some_and(|r| r.status == "online" && !r.busy)
            })
            .filter(|((ns, pod), s)| {
                self.store.get(PODS, Some(ns), pod).is_some_and(|p| {
                    p["metadata"]["uid"] == json!(s.pod_uid) && p["status"]["phase"] == "Running"
                })
            })
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn assign_queued(&mut self) {
        if self.jobs.queue.is_empty() {
            return;
        }
        let mut idle = self.idle_runners();
        while !idle.is_empty() {
            let Some(name) = self.jobs.queue.pop_front() else {
                break;
            };
            let i = self.draw(0..idle.len() as u64) as usize;
            let (ns, pod) = idle.swap_remove(i);
            let duration = self.job_duration();
            self.assign(&ns, &pod, name, duration);
        }
    }

    /// Starts job `name` on the runner in pod `ns/pod` for `duration`. Returns false if that
    /// runner can't take it (not connected, no registration, or busy).
    pub(crate) fn assign(&mut self, ns: &str, pod: &str, name: String, duration: Duration) -> bool {
        let now = self.now();
        let key = (ns.to_owned(), pod.to_owned());
        let Some(slot) = self.runners.get(&key).cloned() else {
            return false;
        };
        if slot.state != SlotState::Running || slot.job.is_some() {
            return false;
        }
        let Some(reg_id) = slot.registration else {
            return false;
        };
        let Some(reg) = self.registrations.get_mut(&reg_id).filter(|r| !r.busy) else {
            return false;
        };
        self.jobs.next_id += 1;
        let id = 1_000 + self.jobs.next_id;
        reg.busy = true;
        reg.job = Some(id);
        // A job of a populated world was assigned in the past (`backdate`).
        reg.job_assigned_at = Some(now.checked_sub(self.backdate).unwrap_or(now));
        if let Some(s) = self.runners.get_mut(&key) {
            s.job = Some(id);
        }
        let scale_set = matches!(slot.owner, Owner::EphemeralRunner(_));
        self.jobs.running.insert(
            id,
            Job {
                name: name.clone(),
                namespace: ns.to_owned(),
                pod: pod.to_owned(),
                pod_uid: slot.pod_uid.clone(),
                registration: reg_id,
                ends_at: now + duration,
                logged: false,
                recorded: !scale_set,
            },
        );
        self.stats.jobs_started += 1;
        let assigned = self.wall_now();
        if let Some(life) = self.lives.get_mut(&slot.pod_uid) {
            life.jobs.push((assigned, None));
        }
        // Traces lag the assignment (`--job-lag`), except for the jobs a populated world
        // starts with: they were assigned long enough ago.
        let lag = self.options.job_lag;
        let (log_after, record_after) = if lag.is_zero() || !self.backdate.is_zero() {
            (Duration::ZERO, Duration::ZERO)
        } else {
            (self.draw_delay(lag), self.draw_delay(lag * 2))
        };
        if log_after.is_zero() {
            self.log_job_start(id, &slot.pod_uid);
        } else {
            self.schedule(now + log_after, Action::LogJob(id), ns, pod, &slot.pod_uid);
        }
        if scale_set {
            if record_after.is_zero() {
                self.record_job(id, &slot.pod_uid);
            } else {
                self.schedule(
                    now + record_after,
                    Action::RecordJob(id),
                    ns,
                    pod,
                    &slot.pod_uid,
                );
            }
        }
        self.event(EventKind::JobStarted {
            job: name,
            runner: pod.to_owned(),
        });
        true
    }

    /// The runner's worker starts job `id` on pod uid `uid`: `Running job: NAME`, once.
    pub(crate) fn log_job_start(&mut self, id: u64, uid: &str) {
        let Some(job) = self
            .jobs
            .running
            .get_mut(&id)
            .filter(|j| j.pod_uid == uid && !j.logged)
        else {
            return;
        };
        job.logged = true;
        let (ns, pod, line) = (
            job.namespace.clone(),
            job.pod.clone(),
            format!("Running job: {}", job.name),
        );
        self.runner_log(&ns, &pod, &line);
    }

    /// ARC's listener gets JobStarted for job `id` and patches the EphemeralRunner of pod uid
    /// `uid` (docs/design.md §7.3) — only while the job still runs on that pod.
    pub(crate) fn record_job(&mut self, id: u64, uid: &str) {
        let Some(job) = self
            .jobs
            .running
            .get_mut(&id)
            .filter(|j| j.pod_uid == uid && !j.recorded)
        else {
            return;
        };
        job.recorded = true;
        let (ns, name) = (job.namespace.clone(), job.name.clone());
        let key = (ns.clone(), job.pod.clone());
        let Some(Owner::EphemeralRunner(er)) = self.runners.get(&key).map(|s| s.owner.clone())
        else {
            return;
        };
        let org = self.options.org.clone();
        let run = 9_000_000_000 + id * 7;
        let status = json!({
            "jobRequestId": id * 13,
            "jobId": format!("{}", 40_000_000_000u64 + id),
            "jobRepositoryName": format!("{org}/app"),
            "workflowRunId": run,
            "jobWorkflowRef": format!("{org}/app/.github/workflows/ci.yml@refs/heads/main"),
            "jobDisplayName": name,
        });
        let _ = self.store.modify(EPHEMERAL_RUNNERS, Some(&ns), &er, |o| {
            store::merge(&mut o["status"], &status);
        });
    }

    /// A job ran to its end: the runner logs it, its ephemeral registration goes, it exits.
    fn complete_job(&mut self, id: u64) {
        // The worker printed `Running job:` when it started, even if that lagged till now.
        if let Some(uid) = self.jobs.running.get(&id).map(|j| j.pod_uid.clone()) {
            self.log_job_start(id, &uid);
        }
        let Some(job) = self.jobs.running.remove(&id) else {
            return;
        };
        let key = (job.namespace.clone(), job.pod.clone());
        if self
            .runners
            .get(&key)
            .is_none_or(|s| s.pod_uid != job.pod_uid)
        {
            return;
        }
        self.stats.jobs_completed += 1;
        self.runner_log(
            &job.namespace,
            &job.pod,
            &format!("Job {} completed with result: Succeeded", job.name),
        );
        // An ephemeral runner is removed from GitHub once its job is done.
        self.registrations.remove(&job.registration);
        self.runner_exited(&job.namespace, &job.pod);
        self.event(EventKind::JobCompleted {
            job: job.name,
            runner: job.pod,
        });
    }

    /// A job dies with its runner: recorded as killed. Its registration, if still there,
    /// shows the runner offline (the controller decides whether it goes).
    pub(crate) fn kill_job(&mut self, id: u64, runner: &str) {
        let Some(job) = self.jobs.running.remove(&id) else {
            return;
        };
        if let Some(reg) = self.registrations.get_mut(&job.registration) {
            reg.status = "offline";
        }
        self.stats.killed.push(KilledJob {
            job: job.name.clone(),
            runner: runner.to_owned(),
        });
        self.event(EventKind::JobKilled {
            job: job.name,
            runner: runner.to_owned(),
        });
    }

    /// Makes `count` runners busy at start (seeded choice), each with a job of a drawn duration.
    pub(crate) fn start_initial_jobs(&mut self, count: usize) {
        let mut idle = self.idle_runners();
        for _ in 0..count.min(idle.len()) {
            let i = self.draw(0..idle.len() as u64) as usize;
            let (ns, pod) = idle.swap_remove(i);
            let name = self.new_job_name();
            let duration = self.job_duration();
            // Already running for a little while (at most a minute).
            self.backdate = Duration::from_secs(self.draw(5..60));
            self.assign(&ns, &pod, name, duration);
        }
    }
}
