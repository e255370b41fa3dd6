//! The sandbox's verdict: what happened to jobs and runners, and which requests were made.
//! [`Report`] is the `--report` JSON (docs/design.md §5.3); [`Report::verdict`] the human summary.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::runners::{Owner, SlotState};
use crate::stats::{AdmissionCounts, KilledJob};
use crate::store::{FieldSelector, LabelSelector, PODS};
use crate::world::World;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub jobs: JobCounts,
    pub killed: Vec<KilledJobEntry>,
    pub runners: RunnerCounts,
    pub requests: Requests,
    pub rate_limit_violations: u64,
    /// 204s GitHub gave while a job ran on (`--fault unsafe-204`).
    pub unsafe_204s: u64,
    /// CPU time spent, when the sandbox ran a command (filled in by the caller that ran it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<Cpu>,
}

/// CPU time (user + system), in milliseconds: the sandbox's own process, and the command it
/// ran and waited for (with that command's waited-for children).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    pub sandbox_ms: u64,
    pub command_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobCounts {
    pub started: u64,
    pub completed: u64,
    pub running: u64,
    pub killed: u64,
    /// Jobs waiting for an idle runner.
    pub queued: u64,
    /// Jobs that arrived while 10,000 were already waiting, and were dropped.
    pub dropped: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KilledJobEntry {
    pub job: String,
    pub runner: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerCounts {
    /// Registrations on the simulated GitHub.
    pub registered: u64,
    /// Registrations GitHub sees busy.
    pub busy: u64,
    /// Pods in the runner namespace.
    pub pods: u64,
    /// Registrations with no pod of their name.
    pub dangling_registrations: u64,
    /// Runners left unable to take a job that nothing will replace: a runner whose
    /// registration was deleted through the API while its pod and runner container run on with
    /// no job (it would have exited had it noticed), and scale-set runner pods whose
    /// registration no longer exists when they start (pods ARC recreated under their old name
    /// after the registration was removed, or fresh runners unregistered before they
    /// connected). Read after the world settled, a runner that is about to exit on its own is
    /// not among them.
    pub stuck: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requests {
    pub github: ApiRequests,
    pub kube: ApiRequests,
    /// Admission webhook calls on evictions; left out when no webhook was called.
    #[serde(default, skip_serializing_if = "AdmissionCounts::is_empty")]
    pub admission: AdmissionCounts,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ApiRequests {
    pub total: u64,
    /// Status code (as a string, a JSON object key) → count.
    pub by_status: BTreeMap<String, u64>,
    /// Counts by method, path pattern and status.
    pub by_route: Vec<RouteCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteCount {
    pub method: String,
    pub path: String,
    pub status: u16,
    pub count: u64,
}

fn api_requests(counts: &BTreeMap<(String, String, u16), u64>) -> ApiRequests {
    let mut out = ApiRequests::default();
    for ((method, path, status), count) in counts {
        out.total += count;
        *out.by_status.entry(status.to_string()).or_default() += count;
        out.by_route.push(RouteCount {
            method: method.clone(),
            path: path.clone(),
            status: *status,
            count: *count,
        });
    }
    out
}

impl World {
    /// The report of the world as it is now.
    pub fn report(&self) -> Report {
        let all = (LabelSelector::default(), FieldSelector::default());
        let ns = self.options.namespace.as_str();
        let pods: BTreeSet<String> = self
            .store
            .list(PODS, Some(ns), &all.0, &all.1)
            .into_iter()
            .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_owned))
            .collect();
        // Stuck: a scale-set runner that found its registration gone when it started; a pod
        // bound to a registration that no longer exists and that will find it gone when it
        // starts (ARC recreated it, or it is still pending and nothing deletes its
        // EphemeralRunner); or a running runner with no job whose registration a client deleted.
        let stuck = self
            .runners
            .values()
            .filter(|s| {
                let dead = s
                    .registration
                    .is_none_or(|id| !self.registrations.contains_key(&id));
                let scale_set = matches!(s.owner, Owner::EphemeralRunner(_));
                let pending = scale_set && s.state == SlotState::Starting && !s.deleting;
                let unregistered = s
                    .registration
                    .is_some_and(|id| self.unregistered.contains(&id));
                let orphaned = s.state == SlotState::Running
                    && s.job.is_none()
                    && !s.deleting
                    && unregistered
                    && dead;
                s.state == SlotState::Stuck
                    || (scale_set && s.recreated && dead)
                    || (pending && dead)
                    || orphaned
            })
            .count();
        Report {
            jobs: JobCounts {
                started: self.stats.jobs_started,
                completed: self.stats.jobs_completed,
                running: self.jobs.running.len() as u64,
                killed: self.stats.killed.len() as u64,
                queued: self.jobs.queue.len() as u64,
                dropped: self.jobs.dropped,
            },
            killed: self
                .stats
                .killed
                .iter()
                .map(|KilledJob { job, runner }| KilledJobEntry {
                    job: job.clone(),
                    runner: runner.clone(),
                })
                .collect(),
            runners: RunnerCounts {
                registered: self.registrations.len() as u64,
                busy: self.registrations.values().filter(|r| r.busy).count() as u64,
                pods: pods.len() as u64,
                dangling_registrations: self
                    .registrations
                    .values()
                    .filter(|r| !pods.contains(&r.name))
                    .count() as u64,
                stuck: stuck as u64,
            },
            requests: Requests {
                github: api_requests(&self.stats.github),
                kube: api_requests(&self.stats.kube),
                admission: self.stats.admission,
            },
            rate_limit_violations: self.stats.rate_limit_violations,
            unsafe_204s: self.stats.unsafe_204s,
            cpu: None,
        }
    }
}

fn statuses(api: &ApiRequests) -> String {
    if api.by_status.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = api
        .by_status
        .iter()
        .map(|(s, n)| format!("{s}: {n}"))
        .collect();
    format!(" ({})", parts.join(", "))
}

impl Report {
    /// Whether the run killed jobs or left runners broken.
    pub fn is_clean(&self) -> bool {
        self.jobs.killed == 0 && self.runners.stuck == 0 && self.runners.dangling_registrations == 0
    }

    /// The human summary printed on stderr.
    pub fn verdict(&self) -> String {
        let j = &self.jobs;
        let r = &self.runners;
        let mut out = String::from("sandbox verdict\n");
        out.push_str(&format!(
            "  jobs:     {} started, {} completed, {} running, {} killed\n",
            j.started, j.completed, j.running, j.killed
        ));
        out.push_str(&format!(
            "  runners:  {} registered, {} busy, {} pods, {} dangling registrations, {} stuck\n",
            r.registered, r.busy, r.pods, r.dangling_registrations, r.stuck
        ));
        out.push_str(&format!(
            "  requests: github {}{}, kube {}{}\n",
            self.requests.github.total,
            statuses(&self.requests.github),
            self.requests.kube.total,
            statuses(&self.requests.kube)
        ));
        let admission = &self.requests.admission;
        if !admission.is_empty() {
            out.push_str(&format!(
                "  admission webhooks: {} calls, {} denied, {} failed\n",
                admission.calls, admission.denied, admission.failed
            ));
        }
        out.push_str(&format!(
            "  rate-limit violations: {}\n",
            self.rate_limit_violations
        ));
        if self.unsafe_204s > 0 {
            out.push_str(&format!("  unsafe 204s: {}\n", self.unsafe_204s));
        }
        if !self.killed.is_empty() {
            out.push_str("  killed:\n");
            for k in &self.killed {
                out.push_str(&format!("    {} on {}\n", k.job, k.runner));
            }
        }
        out.push_str(if self.is_clean() {
            "  result:   no job killed, no runner left broken\n"
        } else {
            "  result:   JOBS KILLED OR RUNNERS LEFT BROKEN\n"
        });
        out
    }
}
