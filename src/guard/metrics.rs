//! The guard's counters, in Prometheus' text format for `/metrics`.

use std::sync::atomic::{AtomicU64, Ordering};

/// What the guard has seen and decided since it started.
#[derive(Debug, Default)]
pub struct Metrics {
    pub evictions: AtomicU64,
    pub allowed: AtomicU64,
    pub denied_busy: AtomicU64,
    pub denied_draining: AtomicU64,
    pub drains: AtomicU64,
    pub failures: AtomicU64,
}

impl Metrics {
    pub fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        let rows: [(&str, &str, &AtomicU64); 6] = [
            (
                "arcctl_guard_evictions_total",
                "Evictions reviewed.",
                &self.evictions,
            ),
            (
                "arcctl_guard_allowed_total",
                "Evictions allowed.",
                &self.allowed,
            ),
            (
                "arcctl_guard_denied_busy_total",
                "Evictions denied because the runner runs a job.",
                &self.denied_busy,
            ),
            (
                "arcctl_guard_denied_draining_total",
                "Evictions denied while the runner is being drained.",
                &self.denied_draining,
            ),
            ("arcctl_guard_drains_total", "Drains started.", &self.drains),
            (
                "arcctl_guard_failures_total",
                "Reviews or drains that failed.",
                &self.failures,
            ),
        ];
        let mut out = String::new();
        for (name, help, value) in rows {
            out.push_str(&format!(
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}\n",
                value.load(Ordering::Relaxed)
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_render_as_prometheus_text() {
        let m = Metrics::default();
        Metrics::inc(&m.evictions);
        Metrics::inc(&m.evictions);
        Metrics::inc(&m.denied_busy);
        let text = m.render();
        assert!(text.contains(
            "# TYPE arcctl_guard_evictions_total counter\narcctl_guard_evictions_total 2\n"
        ));
        assert!(text.contains("arcctl_guard_denied_busy_total 1\n"));
        assert!(text.contains("arcctl_guard_drains_total 0\n"));
    }
}
