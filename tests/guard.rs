//! `arcctl guard` against the sandbox's API server: evictions of runner pods go through the
//! drain pipeline, so the real `kubectl drain` and a cluster-autoscaler-style evictor finish
//! without killing a job; dry runs and other pods are let through untouched; a guard that is
//! down refuses runner evictions (`failurePolicy: Fail`).

use std::time::Duration;

use serde_json::json;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::store::PODS;
use arcctl::sandbox::world;

use crate::support::kubectl::Kubectl;
use crate::support::{NS, count, evict, pods_on, sandbox};

/// Unregisters sent to GitHub and deletes sent to Kubernetes.
fn deletes(r: &arcctl::sandbox::report::Report) -> u64 {
    count(r, true, "DELETE", "") + count(r, false, "DELETE", "")
}

fn uid(sb: &Sandbox, name: &str) -> Option<String> {
    world::lock(&sb.world())
        .store
        .get(PODS, Some(NS), name)
        .and_then(|p| p["metadata"]["uid"].as_str().map(str::to_owned))
}

async fn settled_report(sb: &Sandbox) -> arcctl::sandbox::report::Report {
    sb.stop_traffic();
    sb.settle().await;
    sb.report()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_drain_through_the_guard_kills_no_job() {
    let sb = sandbox(args!(
        "--mode mixed --runners 12 --nodes 2 --busy 0.5 --job-rate 1 --job-duration 2s..8s --job-lag 1s"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    assert!(!pods_on(&sb, "node-1").is_empty());
    let kube = Kubectl::with_kubeconfig(sb.kubeconfig_path().to_owned());
    let out = kube
        .run_for(
            args!("drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout 4m"),
            Duration::from_secs(300),
        )
        .await;
    assert!(out.ok, "{}\n{}", out.stdout, out.stderr);
    assert!(
        pods_on(&sb, "node-1").is_empty(),
        "{:?}",
        pods_on(&sb, "node-1")
    );
    guard.shutdown().await;
    let report = settled_report(&sb).await;
    assert!(report.is_clean(), "{}", report.verdict());
    assert!(report.requests.admission.calls > 0, "{}", report.verdict());
}

/// Cluster-autoscaler's way, at sandbox speed: evict every pod of the node over the API and
/// retry each refusal (CA waits 5 s; here 1 s), with GitHub answering 204 to unregisters of
/// busy runners: the guard's idle check holds them until their job ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_autoscaler_style_evictor_kills_no_job_even_with_unsafe_204s() {
    let sb = sandbox(args!(
        "--mode scale-set --runners 8 --nodes 2 --busy 0.5 --job-rate 0.5 --job-duration 2s..8s --job-lag 1s --fault unsafe-204=1"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    let mut pending = pods_on(&sb, "node-1");
    assert!(!pending.is_empty());
    let mut refusals = 0;
    for _ in 0..240 {
        let mut left = Vec::new();
        for pod in pending {
            let (status, body) = evict(&sb, &pod, "").await;
            match status {
                200 | 201 | 404 => {}
                429 => {
                    refusals += 1;
                    left.push(pod);
                }
                other => panic!("eviction of {pod}: {other} {body}"),
            }
        }
        pending = left;
        if pending.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert!(pending.is_empty(), "never evicted: {pending:?}");
    assert!(refusals > 0, "the guard refused nothing");
    guard.shutdown().await;
    let report = settled_report(&sb).await;
    assert!(report.is_clean(), "{}", report.verdict());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_eviction_changes_nothing_and_other_pods_go_at_once() {
    let sb = sandbox(args!(
        "--mode scale-set --runners 4 --nodes 2 --busy 0 --job-rate 0"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    let pod = pods_on(&sb, "node-1").remove(0);
    let before = uid(&sb, &pod);
    let (status, body) = evict(&sb, &pod, "?dryRun=All").await;
    assert!((200..300).contains(&status), "{status} {body}");
    assert_eq!(uid(&sb, &pod), before);
    assert_eq!(deletes(&sb.report()), 0, "{}", sb.report().verdict());

    world::lock(&sb.world())
        .store
        .create(
            PODS,
            Some(NS),
            json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "not-a-runner", "namespace": NS, "labels": {"app": "web"}},
                "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "nginx"}]},
            }),
        )
        .unwrap();
    let (status, body) = evict(&sb, "not-a-runner", "").await;
    assert!((200..300).contains(&status), "{status} {body}");
    assert_eq!(uid(&sb, "not-a-runner"), None);
    guard.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_guard_down_runner_evictions_are_refused_and_nothing_is_lost() {
    let sb = sandbox(args!(
        "--mode legacy --runners 4 --nodes 2 --busy 0.5 --job-rate 0"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    guard.shutdown().await;
    let pods = pods_on(&sb, "node-1");
    for pod in &pods {
        let before = uid(&sb, pod);
        let (status, body) = evict(&sb, pod, "").await;
        assert_eq!(status, 500, "{body}");
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains("failed calling webhook")),
            "{body}"
        );
        assert_eq!(uid(&sb, pod), before);
    }
    let report = settled_report(&sb).await;
    assert!(report.is_clean(), "{}", report.verdict());
    assert_eq!(deletes(&report), 0, "{}", report.verdict());
}

/// A busy scale-set runner's denial names the runner, its job, and the repository and
/// workflow run ARC recorded on its EphemeralRunner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_denial_names_the_runner_job_repository_and_run() {
    use arcctl::sandbox::store::EPHEMERAL_RUNNERS;
    let sb = sandbox(args!(
        "--mode scale-set --runners 2 --nodes 1 --busy 1 --job-rate 0 --job-duration 600s --job-lag 1s"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    // The EphemeralRunner's job fields, once ARC's listener has recorded them.
    let mut recorded = None;
    for _ in 0..100 {
        recorded = world::lock(&sb.world())
            .store
            .list(
                EPHEMERAL_RUNNERS,
                Some(NS),
                &Default::default(),
                &Default::default(),
            )
            .into_iter()
            .find(|er| er["status"]["workflowRunId"].is_number())
            .cloned();
        if recorded.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let er = recorded.expect("an EphemeralRunner with its job recorded");
    let name = er["metadata"]["name"].as_str().unwrap();
    let status = &er["status"];
    let (status_code, body) = evict(&sb, name, "").await;
    assert_eq!(status_code, 429, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    for part in [
        format!("runner `{name}`"),
        format!("job \"{}\"", status["jobDisplayName"].as_str().unwrap()),
        format!("of {}", status["jobRepositoryName"].as_str().unwrap()),
        format!("(workflow run {})", status["workflowRunId"]),
    ] {
        assert!(message.contains(&part), "{part:?} not in {message:?}");
    }
    assert!(uid(&sb, name).is_some(), "the busy pod stays");
    guard.shutdown().await;
}
