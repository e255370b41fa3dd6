//! Request counters and the record of jobs: the raw material of the verdict.

use std::collections::BTreeMap;

/// A job that was running when its runner's pod or ARC object was deleted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KilledJob {
    pub job: String,
    pub runner: String,
}

/// Counts requests by API, method, path pattern and status, and what happened to jobs.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// (method, path pattern, status) → count, for the fake GitHub.
    pub github: BTreeMap<(String, String, u16), u64>,
    /// (method, path pattern, status) → count, for the fake Kubernetes API.
    pub kube: BTreeMap<(String, String, u16), u64>,
    /// Requests the fake GitHub refused over its primary or secondary rate limit, including
    /// every request made while the client was limited (injected `github-403`/`github-429`
    /// faults are not counted).
    pub rate_limit_violations: u64,
    /// Jobs assigned to a runner.
    pub jobs_started: u64,
    /// Jobs that ran to their end.
    pub jobs_completed: u64,
    /// Jobs killed by a deletion, in the order it happened.
    pub killed: Vec<KilledJob>,
    /// 204 answers to an unregister while a job ran on (`unsafe-204`).
    pub unsafe_204s: u64,
    /// Calls to admission webhooks and what came of them.
    pub admission: AdmissionCounts,
}

/// Admission webhook calls (`kube_api::admission`): each call the API server made, and how
/// many answered a denial or failed (unreachable, timed out, a bad answer, whatever the
/// webhook's `failurePolicy` then made of it).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AdmissionCounts {
    pub calls: u64,
    pub denied: u64,
    pub failed: u64,
}

impl AdmissionCounts {
    /// No webhook was called.
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }
}

impl Stats {
    pub fn record_github(&mut self, method: &str, pattern: &str, status: u16) {
        *self
            .github
            .entry((method.to_owned(), pattern.to_owned(), status))
            .or_default() += 1;
    }

    pub fn record_kube(&mut self, method: &str, pattern: &str, status: u16) {
        *self
            .kube
            .entry((method.to_owned(), pattern.to_owned(), status))
            .or_default() += 1;
    }
}
