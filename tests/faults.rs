//! The fault suite: each fault class of docs/design.md §4, alone and with job traffic. Whatever
//! GitHub or Kubernetes does, arcctl deletes nothing without a 204/404 unregister and an idle
//! check, accounts for every runner, kills no job and exits with the code its outcomes call
//! for. Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use std::time::Duration;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::report::Report;
use arcctl::sandbox::world::lock;

use crate::support::verdict::{expected_exit, unaccounted, unsafe_deletes};
use crate::support::*;

const RUNNERS: usize = 8;

/// Job traffic: a quarter busy at the start, new jobs all along, a stale list.
const TRAFFIC: &str = "--busy 0.25 --job-rate 4 --job-duration 1s..3s --list-cache 5s";

/// The world: `RUNNERS` runners, the fault words, and job traffic when asked.
async fn world(fault: &str, traffic: bool, seed: &str) -> Sandbox {
    let load = if traffic { TRAFFIC } else { "--job-rate 0" };
    sandbox(args!(format!(
        "--runners {RUNNERS} --seed {seed} {fault} {load}"
    )))
    .await
}

/// Drains everything under the fault and checks the invariant; returns the result document.
async fn drain_through(
    sb: &Sandbox,
    what: &str,
    extra: &str,
) -> (Option<serde_json::Value>, Report) {
    let before = pod_names(sb);
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let mut args = args!("drain --all -A --yes -o json --audit-log", &audit);
    args.extend(args!(extra));
    // Short waits unless the test gives its own.
    let run = arcctl(sb, fast(args)).await;
    sb.stop_traffic();
    sb.settle().await;
    let report = sb.report();
    let lines = audit::lines(&audit);
    let wrong = unsafe_deletes(&lines, &report);
    assert!(wrong.is_empty(), "{what}: {wrong:#?}\n{}", run.stderr);
    assert_eq!(report.runners.stuck, 0, "{what}");
    if run.stdout.is_empty() {
        // The inventory could not be read: one error, exit 1, nothing changed.
        assert_eq!(run.code, 1, "{what}: {}", run.stderr);
        assert!(run.stderr.starts_with("error:"), "{what}: {}", run.stderr);
        assert_eq!(mutating_requests(&report), 0, "{what}");
        return (None, report);
    }
    let doc = json(&run);
    assert_eq!(
        run.code,
        expected_exit(&doc, false),
        "{what}: exit code\n{doc:#}\n{}",
        run.stderr
    );
    assert_eq!(doc["exit_code"], run.code, "{what}");
    let missing = unaccounted(&doc, &before, &pod_names(sb));
    assert!(
        missing.is_empty(),
        "{what}: unaccounted {missing:?}\n{doc:#}"
    );
    // A runner that failed or was held is never deleted by arcctl (its job may end and ARC
    // replace it, which is not ours).
    for r in doc["runners"].as_array().unwrap() {
        if r["outcome"] == "held" || r["outcome"] == "failed" {
            let tail = format!("/{}", r["name"].as_str().unwrap());
            let deleted = lines
                .iter()
                .any(|l| l["action"] == "delete" && l["target"].as_str().unwrap().ends_with(&tail));
            assert!(!deleted, "{what}: {} runner deleted: {r}", r["outcome"]);
        }
    }
    (Some(doc), report)
}

/// The fault alone, then with job traffic; `struck` names the statuses that show it hit
/// (`github` or Kubernetes side; 0 a reset, 1 a timeout).
async fn both(
    fault: &str,
    what: &str,
    extra: &str,
    github: bool,
    struck: &[u16],
) -> Vec<Option<serde_json::Value>> {
    let mut docs = Vec::new();
    for (traffic, seed) in [(false, "11"), (true, "12")] {
        let sb = world(fault, traffic, seed).await;
        let label = format!("{what}{}", if traffic { " with traffic" } else { "" });
        let (doc, report) = drain_through(&sb, &label, extra).await;
        let api = if github {
            &report.requests.github
        } else {
            &report.requests.kube
        };
        let hits: u64 = struck
            .iter()
            .filter_map(|s| api.by_status.get(&s.to_string()))
            .sum();
        assert!(
            hits > 0,
            "{label}: the fault never struck: {:?}",
            api.by_status
        );
        docs.push(doc);
    }
    docs
}

fn drained(doc: &Option<serde_json::Value>) -> usize {
    doc.as_ref().map_or(0, |d| {
        d["runners"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["outcome"] == "drained")
            .count()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_server_errors() {
    both(
        "--fault github-5xx=0.25",
        "github-5xx",
        "",
        true,
        &[500, 502, 503],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_connection_resets() {
    both("--fault github-reset=0.25", "github-reset", "", true, &[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_timeouts() {
    both(
        "--fault github-timeout=0.15",
        "github-timeout",
        "--request-timeout 500ms",
        true,
        &[1],
    )
    .await;
}

/// 403 rate limits, with `retry-after` or with `x-ratelimit-reset`: waited out, then done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_403_rate_limits() {
    for doc in both("--fault github-403=0.2", "github-403", "", true, &[403]).await {
        assert!(
            drained(&doc) > 0,
            "rate limits are waited out, not failures"
        );
    }
}

/// 429 rate limits, with `retry-after` or with `x-ratelimit-reset`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_429_rate_limits() {
    for doc in both("--fault github-429=0.2", "github-429", "", true, &[429]).await {
        assert!(drained(&doc) > 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_server_errors() {
    both("--fault kube-5xx=0.2", "kube-5xx", "", false, &[500]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_timeouts() {
    both(
        "--fault kube-timeout=0.1",
        "kube-timeout",
        "--request-timeout 500ms",
        false,
        &[1],
    )
    .await;
}

/// Kubernetes 409: the object to delete was replaced under the same name while the runner was
/// in its confirm window. The uid precondition refuses the delete; the replacement lives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_conflicts_from_replaced_objects() {
    for traffic in [false, true] {
        let sb = world("", traffic, "13").await;
        let world = sb.world();
        let replacer = tokio::spawn(async move {
            // Once the first unregister went through, give every EphemeralRunner a new uid: as
            // if ARC had replaced each under the same name.
            for _ in 0..3000 {
                let unregistered = lock(&world)
                    .stats
                    .github
                    .iter()
                    .any(|((m, _, s), _)| m == "DELETE" && *s == 204);
                if unregistered {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let mut w = lock(&world);
            let rt = arcctl::sandbox::store::EPHEMERAL_RUNNERS;
            let all = (Default::default(), Default::default());
            let names: Vec<String> = w
                .store
                .list(rt, Some("arc-runners"), &all.0, &all.1)
                .iter()
                .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
                .collect();
            for (i, n) in names.iter().enumerate() {
                let _ = w.store.modify(rt, Some("arc-runners"), n, |o| {
                    o["metadata"]["uid"] = format!("replaced-{i}").into();
                });
            }
            names.len()
        });
        let label = if traffic { "409 with traffic" } else { "409" };
        let (doc, _) = drain_through(&sb, label, "--confirm-window 2s").await;
        assert!(replacer.await.unwrap() > 0);
        let r = sb.report();
        let conflicts: u64 = r
            .requests
            .kube
            .by_route
            .iter()
            .filter(|c| c.method == "DELETE" && c.status == 409)
            .map(|c| c.count)
            .sum();
        assert!(conflicts > 0, "{label}: the uid precondition must refuse");
        let doc = doc.expect("the inventory was read");
        for r in doc["runners"].as_array().unwrap() {
            if r["outcome"] == "drained" {
                let detail = r["detail"].as_str().unwrap_or_default();
                assert!(detail.contains("replaced"), "{label}: {r}");
            }
        }
    }
}

/// Everything at once, with traffic and unsafe 204s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_faults_combined_with_job_traffic() {
    let sb = world(
        "--fault github-5xx=0.05 --fault github-reset=0.05 --fault github-timeout=0.03 \
         --fault github-403=0.05 --fault github-429=0.05 --fault kube-5xx=0.05 \
         --fault kube-timeout=0.03 --fault unsafe-204=0.5 --secondary-limit 200",
        true,
        "14",
    )
    .await;
    drain_through(&sb, "all faults", "--request-timeout 500ms").await;
}
