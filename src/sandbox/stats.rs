//! Request counters and the record of killed jobs: the raw material of the verdict.

use std::collections::BTreeMap;

/// Counts requests by API, method, path pattern and status.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// (method, path pattern, status) → count, for the fake GitHub.
    pub github: BTreeMap<(String, String, u16), u64>,
    /// (method, path pattern, status) → count, for the fake Kubernetes API.
    pub kube: BTreeMap<(String, String, u16), u64>,
    /// Requests the fake GitHub answered over its secondary rate limit.
    pub rate_limit_violations: u64,
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
