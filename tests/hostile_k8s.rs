//! `arcctl drain` against a Kubernetes side as mean as production (issue 10): runner pods that
//! have not started (`--pending`: `ContainerCreating`, `ImagePullBackOff`; a scale-set runner
//! registered and offline meanwhile, its log answered 400), and EphemeralRunners deleted as ARC
//! deletes them (finalizers; the pod goes only once the runner is removed from the service).
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::sandbox::Sandbox;
use serde_json::Value;

use crate::support::*;

/// Drain everything fast: a short confirm window, no pacing to speak of.
async fn drain_all(sb: &Sandbox) -> Value {
    let run = arcctl(
        sb,
        args!("drain --all -A --yes --confirm-window 2s --max-unregister-rate 100/s -o json"),
    )
    .await;
    assert!([0, 3].contains(&run.code), "{}: {}", run.code, run.stderr);
    json(&run)
}

fn runners(doc: &Value) -> &Vec<Value> {
    doc["runners"].as_array().expect("runners")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_runner_pods_are_drained_through_the_right_object_and_none_fails() {
    for mode in ["scale-set", "mixed"] {
        let sb = sandbox(args!(format!(
            "--mode {mode} --runners 30 --pending 0.3 --busy 0.3 --job-rate 5 \
             --job-duration 2s..6s --seed 3"
        )))
        .await;
        let doc = drain_all(&sb).await;
        let all = runners(&doc);
        assert_eq!(all.len(), 30, "{mode}");
        assert_eq!(doc["totals"]["failed"], 0, "{mode}: {doc:#}");
        // Scale-set runners whose pod waits are registered and listed offline: drained by
        // their EphemeralRunner, proven idle by the waiting container.
        let offline: Vec<&Value> = all.iter().filter(|r| r["state"] == "offline").collect();
        assert!(!offline.is_empty(), "{mode}: no pending scale-set runner");
        for r in &offline {
            let detail = r["detail"].as_str().unwrap_or_default();
            assert_eq!(r["outcome"], "drained", "{mode}: {r:#}");
            assert!(
                detail.starts_with("ephemeralrunner/") && detail.contains("not running"),
                "{mode}: {r:#}"
            );
        }
        // A pending legacy pod has no registration yet: listed pod-only, left alone.
        let pod_only = all.iter().filter(|r| r["state"] == "pod-only").count();
        if mode == "mixed" {
            assert!(pod_only > 0, "no pending legacy pod");
        } else {
            assert_eq!(pod_only, 0);
        }
        sb.stop_traffic();
        sb.settle().await;
        let report = sb.report();
        assert_eq!(report.jobs.killed, 0, "{mode}: {:?}", report.killed);
        assert_eq!(report.runners.stuck, 0, "{mode}");
        if mode == "scale-set" {
            assert_eq!(
                count(&report, false, "DELETE", "/pods/"),
                0,
                "never a bare scale-set pod"
            );
        }
        // The pending pods' logs were asked for and answered 400, which proved nothing.
        assert!(
            report.requests.kube.by_status.contains_key("400"),
            "{mode}: {:?}",
            report.requests.kube.by_status
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_graceful_ephemeral_runner_deletes_an_unsafe_204_kills_no_job() {
    let sb = sandbox(args!(
        "--runners 30 --pending 0.3 --busy 0.3 --job-rate 20 --job-duration 5s..20s \
         --fault unsafe-204=1 --seed 1"
    ))
    .await;
    let doc = drain_all(&sb).await;
    assert_eq!(doc["totals"]["failed"], 0, "{doc:#}");
    sb.stop_traffic();
    sb.settle().await;
    let report = sb.report();
    assert!(
        report.unsafe_204s > 0,
        "the race never happened: nothing tested"
    );
    // Each runner whose 204 raced a job is held (its EphemeralRunner kept): deleting it would
    // let ARC's finalizer, finding no registration, delete the pod under the job.
    let held = runners(&doc)
        .iter()
        .filter(|r| r["outcome"] == "held")
        .count() as u64;
    assert!(
        held >= 1 && held <= report.unsafe_204s,
        "{held} held, {} unsafe",
        report.unsafe_204s
    );
    assert_eq!(report.jobs.killed, 0, "{:?}", report.killed);
    assert_eq!(report.runners.stuck, 0);
}
