//! What must hold after any drain, shared by the fault and interrupt suites: the drain
//! invariant read from the audit log and the sandbox's verdict, every runner accounted for, and
//! the exit code the outcomes call for.

use std::collections::BTreeSet;

use arcctl::sandbox::report::Report;
use serde_json::Value;

/// The invariant of docs/design.md §4.2 on one run: every delete of a runner's object comes
/// after an unregister of that runner that GitHub answered 204 or 404, and after an idle check
/// (a runner log read), and the sandbox saw no more successful deletes than the audit log
/// records. Returns what is wrong.
pub fn unsafe_deletes(audit: &[Value], report: &Report) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut unregistered = BTreeSet::new();
    let mut deletes = 0u64;
    for line in audit {
        let id = line["runner_id"].as_u64();
        match line["action"].as_str() {
            Some("unregister") if matches!(line["status"].as_u64(), Some(204 | 404)) => {
                unregistered.insert(id);
            }
            Some("delete" | "annotate") => {
                if line["action"] == "delete" && line["status"].as_u64().is_some_and(|s| s < 300) {
                    deletes += 1;
                }
                if !unregistered.contains(&id) {
                    wrong.push(format!("{line} without an earlier 204/404 unregister"));
                }
            }
            _ => {}
        }
    }
    let kube_deletes: u64 = report
        .requests
        .kube
        .by_route
        .iter()
        .filter(|c| c.method == "DELETE" && (200..300).contains(&c.status))
        .filter(|c| c.path.contains("/pods/") || c.path.contains("ephemeralrunners"))
        .map(|c| c.count)
        .sum();
    if kube_deletes > deletes {
        wrong.push(format!(
            "the sandbox saw {kube_deletes} successful deletes, the audit log {deletes}"
        ));
    }
    let log_reads: u64 = report
        .requests
        .kube
        .by_route
        .iter()
        .filter(|c| c.method == "GET" && c.path.ends_with("/log") && c.status == 200)
        .map(|c| c.count)
        .sum();
    if log_reads < deletes {
        wrong.push(format!(
            "{deletes} deletes but only {log_reads} idle checks (runner log reads)"
        ));
    }
    if report.jobs.killed > 0 {
        wrong.push(format!("jobs killed: {:?}", report.killed));
    }
    wrong
}

/// The exit code docs/design.md §2.4 gives a drain with these outcome labels.
pub fn expected_exit(doc: &Value, interrupted: bool) -> u8 {
    let labels: Vec<&str> = doc["runners"]
        .as_array()
        .map(|rs| rs.iter().filter_map(|r| r["outcome"].as_str()).collect())
        .unwrap_or_default();
    if interrupted {
        130
    } else if labels.contains(&"failed") {
        1
    } else if labels
        .iter()
        .any(|l| ["skipped-busy", "held", "timed-out", "stopped"].contains(l))
    {
        3
    } else {
        0
    }
}

/// Runner pods of `before` (the world when the drain started) that the result document does
/// not account for with an outcome although they are still there in `after`. With job traffic
/// a runner can finish its job and be replaced under a new name before arcctl lists it; one
/// that is still there was seen by the list and must have an outcome.
pub fn unaccounted(doc: &Value, before: &[String], after: &[String]) -> Vec<String> {
    let seen: BTreeSet<&str> = doc["runners"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .filter(|r| r["outcome"].is_string())
                .filter_map(|r| r["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let mut missing: Vec<String> = before
        .iter()
        .filter(|n| !seen.contains(n.as_str()) && after.contains(n))
        .cloned()
        .collect();
    let t = &doc["totals"];
    let counted: u64 = [
        "drained",
        "skipped_busy",
        "skipped",
        "held",
        "failed",
        "timed_out",
        "stopped",
    ]
    .iter()
    .map(|k| t[k].as_u64().unwrap_or(0))
    .sum();
    let listed = doc["runners"].as_array().map_or(0, Vec::len) as u64;
    if t["selected"].as_u64() != Some(listed) || counted != listed {
        missing.push(format!("totals {t} do not add up to {listed} runners"));
    }
    missing
}
