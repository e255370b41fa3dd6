//! `arcctl drain` against the in-process sandbox: every branch of the pipeline meets the
//! simulated GitHub and ARC, and the sandbox's verdict says whether a job died.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use std::sync::Arc;
use std::time::Duration;

use arcctl::context::ScriptedPrompter;
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::lock;

use crate::support::*;

/// `arcctl ARGS` with the `FAST` profile for what the test does not set itself.
async fn drain(sb: &Sandbox, args: Vec<String>) -> Run {
    arcctl(sb, fast(args)).await
}

fn first_pod(sb: &Sandbox) -> String {
    pod_names(sb).into_iter().next().expect("a runner pod")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_scale_set_runners_are_drained_through_their_ephemeral_runners() {
    let sb = sandbox(args!("--runners 6 --seed 3")).await;
    let before = pod_names(&sb);
    let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 6, "{doc:#}");
    assert_eq!(doc["totals"]["drained"], 6);
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(
        r.runners.stuck, 0,
        "deleting bare scale-set pods would leave stuck runners"
    );
    assert_eq!(count(&r, false, "DELETE", "ephemeralrunners"), 6);
    assert_eq!(
        count(&r, false, "DELETE", "/pods/"),
        0,
        "never the bare pod"
    );
    assert_eq!(count(&r, true, "DELETE", "/actions/runners/"), 6);
    let after = pod_names(&sb);
    assert!(
        before.iter().all(|p| !after.contains(p)),
        "old pods remain: {after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_pods_are_annotated_then_deleted() {
    let sb = sandbox(args!("--mode legacy --runners 6 --seed 4")).await;
    let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(outcomes(&json(&run))["drained"].len(), 6);
    let r = sb.report();
    assert_eq!(count(&r, false, "PATCH", "/pods/"), 6, "annotation first");
    assert_eq!(count(&r, false, "DELETE", "/pods/"), 6);
    assert_eq!(count(&r, false, "DELETE", "ephemeralrunners"), 0);
    sb.settle().await;
    assert_eq!(sb.report().jobs.killed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_runners_are_skipped_and_keep_their_pods() {
    let sb = sandbox(args!(
        "--runners 8 --busy 0.5 --job-rate 0 --job-duration 600s"
    ))
    .await;
    let busy = busy_runners(&sb);
    assert_eq!(busy.len(), 4);
    let run = drain(&sb, args!("drain --all -A --yes")).await;
    assert_eq!(
        run.code, 3,
        "busy runners skipped is incomplete:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "4 runners were busy: run again with --wait to drain them as their jobs finish\n"
        ),
        "{}",
        run.stderr
    );
    let pods = pod_names(&sb);
    for b in &busy {
        assert!(pods.contains(b), "busy runner {b} lost its pod");
        assert!(
            run.stderr.contains(&format!("runner/{b} skipped-busy")),
            "{}",
            run.stderr
        );
    }
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.jobs.running, 4);
}

/// The race the tool exists for: the list (cached) says idle, a job is assigned, the
/// unregister answers 422, the pod survives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_assigned_after_the_list_gets_a_422_and_the_pod_lives() {
    let sb = sandbox(args!(
        "--mode legacy --runners 3 --list-cache 60s --job-rate 0"
    ))
    .await;
    let victim = first_pod(&sb);
    assert!(lock(&sb.world()).start_job_on(
        "arc-runners",
        &victim,
        "deploy",
        Duration::from_secs(600)
    ));
    let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
    assert_eq!(run.code, 3, "{}", run.stderr);
    let doc = json(&run);
    let o = outcomes(&doc);
    assert_eq!(o["skipped-busy"], vec![victim.clone()], "{doc:#}");
    assert_eq!(o["drained"].len(), 2);
    let r = sb.report();
    assert_eq!(r.requests.github.by_status.get("422"), Some(&1));
    assert!(pod_names(&sb).contains(&victim));
    assert_eq!(r.jobs.killed, 0);
}

/// GitHub answers 204 although a job just started (`unsafe-204`): the idle check sees the job
/// in the runner's log and holds the pod.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsafe_204_is_caught_by_the_idle_check_and_the_job_survives() {
    let mut world = populated(args!(
        "--mode legacy --runners 3 --list-cache 60s --job-rate 0 --fault unsafe-204=1"
    ));
    // The drain must reach the DELETE inside the window however slow this machine is.
    world.timing.unsafe_204_window = Duration::from_secs(120);
    let sb = Sandbox::start_world(world).await.unwrap();
    let victim = first_pod(&sb);
    assert!(lock(&sb.world()).start_job_on(
        "arc-runners",
        &victim,
        "deploy",
        Duration::from_secs(600)
    ));
    let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
    assert_eq!(run.code, 3, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["held"], vec![victim.clone()], "{doc:#}");
    let held = doc["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == victim.as_str())
        .unwrap();
    assert_eq!(held["job"], "deploy");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.unsafe_204s, 1, "the fault must have struck");
    assert_eq!(r.jobs.killed, 0);
    assert!(pod_names(&sb).contains(&victim));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_wait_busy_runners_are_drained_once_their_jobs_end() {
    let sb = sandbox(args!(
        "--runners 6 --busy 0.5 --job-rate 0 --job-duration 1s"
    ))
    .await;
    let run = drain(
        &sb,
        args!("drain --all -A --yes --wait --timeout 60s -o json"),
    )
    .await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 6, "{doc:#}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.jobs.completed, 3);
    assert_eq!(r.runners.stuck, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeout_ends_waiting_with_exit_3() {
    let sb = sandbox(args!(
        "--runners 4 --busy 0.5 --job-rate 0 --job-duration 600s"
    ))
    .await;
    let run = drain(
        &sb,
        args!("drain --all -A --yes --wait --timeout 3s -o json"),
    )
    .await;
    assert_eq!(run.code, 3, "{}", run.stderr);
    let o = outcomes(&json(&run));
    assert_eq!(o["timed-out"].len(), 2);
    assert_eq!(o["drained"].len(), 2);
    assert_eq!(sb.report().jobs.killed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_drain_cordons_first_and_touches_only_that_node() {
    let sb = sandbox(args!("--runners 9 --nodes 3")).await;
    let targets = pods_on(&sb, "node-1");
    let others = pods_on(&sb, "node-2");
    assert!(!targets.is_empty());
    let run = drain(&sb, args!("drain --node node-1 -A --yes")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("node/node-1 cordoned\n"),
        "{}",
        run.stderr
    );
    {
        let w = sb.world();
        let w = lock(&w);
        let node = w
            .store
            .get(arcctl::sandbox::store::NODES, None, "node-1")
            .unwrap();
        assert_eq!(node["spec"]["unschedulable"], true);
    }
    for t in &targets {
        assert!(
            run.stderr
                .contains(&format!("ephemeralrunner/arc-runners/{t} deleted")),
            "{}",
            run.stderr
        );
    }
    // ARC's finalizers delete the old pods; replacements for the drained runners land on other
    // nodes; the runners there stay.
    sb.settle().await;
    let now_on_2 = pods_on(&sb, "node-2");
    assert!(
        others.iter().all(|o| now_on_2.contains(o)),
        "other nodes untouched: {now_on_2:?}"
    );
    assert!(pods_on(&sb, "node-1").iter().all(|p| !targets.contains(p)));
    let again = drain(&sb, args!("drain --node node-1 -A --yes")).await;
    assert!(
        again.stderr.contains("node/node-1 already cordoned"),
        "{}",
        again.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_and_without_yes_nothing_is_touched() {
    let sb = sandbox(args!("--runners 3")).await;
    let run = drain(&sb, args!("drain --all -A")).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("`--yes` is required when not running interactively"),
        "{}",
        run.stderr
    );
    let r = sb.report();
    assert_eq!(r.requests.github.total, 0, "refused before any request");
    assert_eq!(mutating_requests(&r), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draining_everything_needs_all() {
    let sb = sandbox(args!("--runners 3")).await;
    let run = drain(&sb, args!("drain -A --yes")).await;
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("without `--all`"), "{}", run.stderr);
    assert_eq!(mutating_requests(&sb.report()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_prints_the_plan_and_mutates_nothing() {
    let sb = sandbox(args!(
        "--runners 4 --busy 0.5 --job-rate 0 --job-duration 600s"
    ))
    .await;
    let run = drain(&sb, args!("drain --all -A --dry-run")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout
            .matches("confirm idle, delete ephemeralrunner/")
            .count(),
        2,
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.matches("skip (busy").count(),
        2,
        "{}",
        run.stdout
    );
    let json_run = drain(&sb, args!("drain --all -A --dry-run -o json")).await;
    let doc = json(&json_run);
    assert_eq!(doc["dry_run"], true);
    assert_eq!(outcomes(&doc)["planned"].len(), 4);
    assert_eq!(mutating_requests(&sb.report()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompt_decides() {
    let sb = sandbox(args!("--runners 3")).await;
    let no = Arc::new(ScriptedPrompter::new(false));
    let mut inv = Invocation::new(&sb).on_a_terminal();
    inv.prompter = Some(Arc::clone(&no));
    let run = inv.run(fast(args!("drain --all -A --no-progress"))).await;
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert_eq!(no.asked().len(), 1);
    assert!(
        no.asked()[0].starts_with("Drain 3 runners of org `sandbox-org`"),
        "{:?}",
        no.asked()
    );
    assert_eq!(mutating_requests(&sb.report()), 0);

    let yes = Arc::new(ScriptedPrompter::new(true));
    let mut inv = Invocation::new(&sb).on_a_terminal();
    inv.prompter = Some(Arc::clone(&yes));
    let run = inv.run(fast(args!("drain --all -A --no-progress"))).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(yes.asked().len(), 1);
    assert_eq!(count(&sb.report(), true, "DELETE", "/actions/runners/"), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pacing_keeps_under_the_secondary_limit() {
    // 8 unregisters at 1/s cost 40 points a minute (DELETE = 5) plus a few reads: under 60.
    let sb = sandbox(args!("--runners 8 --secondary-limit 60")).await;
    let run = drain(
        &sb,
        args!("drain --all -A --yes -o json --max-unregister-rate 1/s"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(outcomes(&json(&run))["drained"].len(), 8);
    assert_eq!(sb.report().rate_limit_violations, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_server_errors_and_resets_never_lead_to_a_blind_delete() {
    for fault in ["github-5xx=0.3", "github-reset=0.3"] {
        let sb = sandbox(args!(format!("--runners 10 --fault {fault} --seed 7"))).await;
        let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
        assert!(
            [0, 1].contains(&run.code),
            "{fault}: {}\n{}",
            run.code,
            run.stderr
        );
        if run.stdout.is_empty() {
            // The inventory itself could not be read: nothing may have changed.
            assert_eq!(
                mutating_requests(&sb.report()),
                0,
                "{fault}: {}",
                run.stderr
            );
            continue;
        }
        let doc = json(&run);
        assert_eq!(
            doc["runners"].as_array().unwrap().len(),
            10,
            "{fault}: every runner accounted for"
        );
        sb.settle().await;
        let r = sb.report();
        assert_eq!(r.jobs.killed, 0, "{fault}");
        assert_eq!(r.runners.stuck, 0, "{fault}");
        let failed = outcomes(&doc).get("failed").cloned().unwrap_or_default();
        let pods = pod_names(&sb);
        for f in &failed {
            assert!(pods.contains(f), "{fault}: failed runner {f} lost its pod");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_server_errors_are_retried() {
    let sb = sandbox(args!("--runners 8 --fault kube-5xx=0.3 --seed 5")).await;
    let run = drain(&sb, args!("drain --all -A --yes -o json")).await;
    let doc = json(&run);
    let by = outcomes(&doc);
    let drained = by.get("drained").map_or(0, Vec::len);
    // A runner whose log reads kept failing after every retry is not proven idle: it is held
    // (exit 3), never deleted. How many reads a run makes depends on timing, so which runner
    // draws five 500s in a row does too; every other runner is drained through the retries.
    let held: Vec<&serde_json::Value> = doc["runners"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "held")
        .collect();
    for h in &held {
        assert!(
            h["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("could not be read"),
            "{h}"
        );
    }
    assert_eq!(drained + held.len(), 8, "{}", run.stderr);
    assert!(
        drained >= 6,
        "retries let most runners through: {}",
        run.stderr
    );
    assert_eq!(
        run.code,
        if held.is_empty() { 0 } else { 3 },
        "{}",
        run.stderr
    );
    sb.settle().await;
    let r = sb.report();
    assert!(
        r.requests.kube.by_status.get("500").copied().unwrap_or(0) > 0,
        "the fault struck"
    );
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_has_one_line_per_mutation_and_no_secret() {
    let sb = sandbox(args!("--mode legacy --runners 4")).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let run = drain(
        &sb,
        args!("drain --all -A --yes -o json --audit-log", &path),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&path).unwrap();
    let token = lock(&sb.world()).token.clone();
    assert!(!text.contains(&token));
    assert!(!run.stdout.contains(&token) && !run.stderr.contains(&token));
    let lines = audit::lines(&path);
    let by = |action: &str| lines.iter().filter(|l| l["action"] == action).count();
    assert_eq!(by("unregister"), 4);
    assert_eq!(by("annotate"), 4);
    assert_eq!(by("delete"), 4);
    assert_eq!(lines.len(), 12);
    let r = sb.report();
    assert_eq!(
        count(&r, true, "DELETE", "/actions/runners/"),
        4,
        "audit lines match requests"
    );
    for l in &lines {
        assert!(l["time"].is_string() && l["target"].is_string() && l["status"].is_u64());
        assert!(l["runner_id"].is_u64());
    }
    let doc = json(&run);
    assert_eq!(doc["apiVersion"], "arcctl/v1");
    assert_eq!(doc["kind"], "DrainResult");
    assert_eq!(doc["exit_code"], 0);
    assert_eq!(doc["scope"], "orgs/sandbox-org");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_mid_drain_stops_safely_prints_the_summary_and_exits_130() {
    let sb = sandbox(args!("--runners 12 --job-rate 2 --job-duration 1s..3s")).await;
    let mut inv = Invocation::new(&sb);
    // Interrupt once the drain is under way: after the third unregister.
    interrupt_after_deletes(&sb, true, 3, inv.interrupt.clone());
    inv.env.set("CI", "true");
    let run = inv
        .run(fast(args!(
            "drain --all -A --yes --max-unregister-rate 4/s"
        )))
        .await;
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert!(
        run.stderr.contains(" selected: "),
        "summary printed: {}",
        run.stderr
    );
    assert!(run.stderr.contains("interrupted"), "{}", run.stderr);
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
    assert!(
        count(&r, true, "DELETE", "/actions/runners/") < 12,
        "new work stopped"
    );
}

/// DESIGN's check at test scale: mixed mode with job traffic, a stale list, unsafe 204s and
/// server errors: no job killed, no stuck runner, every runner accounted for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_mixed_world_with_faults_loses_no_job() {
    let sb = sandbox(args!(
        "--mode mixed --seed 2 --runners 60 --busy 0.4 --job-rate 5 --job-duration 2s..6s \
         --list-cache 30s --fault unsafe-204=0.5 --fault github-5xx=0.05"
    ))
    .await;
    let run = drain(
        &sb,
        args!("drain --all -A --yes -o json --max-unregister-rate 50/s"),
    )
    .await;
    assert!([0, 3].contains(&run.code), "{}: {}", run.code, run.stderr);
    let doc = json(&run);
    let runners = doc["runners"].as_array().unwrap();
    assert_eq!(runners.len(), 60);
    assert!(runners.iter().all(|r| r["outcome"].is_string()));
    sb.stop_traffic();
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0, "killed: {:?}", r.killed);
    assert_eq!(r.runners.stuck, 0);
}

/// A pod recreated under the same name (a RunnerSet's StatefulSet does that) is never hit by a
/// delete meant for the old one: the uid precondition makes it a 409, reported as replaced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pod_recreated_under_the_same_name_is_not_deleted() {
    use arcctl::drain::edges::ClusterEdge;
    use arcctl::drain::ops::{ClusterOps, Deleted};
    use arcctl::drain::plan::DeleteTarget;
    use arcctl::sandbox::store::{PODS, STATEFUL_SETS};

    let sb = sandbox(args!("--mode legacy --runners 6")).await;
    let (name, old_uid) = {
        let w = sb.world();
        let w = lock(&w);
        let all = (Default::default(), Default::default());
        let pod = w
            .store
            .list(PODS, Some("arc-runners"), &all.0, &all.1)
            .into_iter()
            .find(|p| p["metadata"]["ownerReferences"][0]["kind"] == STATEFUL_SETS.kind)
            .expect("a RunnerSet pod")
            .clone();
        (
            pod["metadata"]["name"].as_str().unwrap().to_owned(),
            pod["metadata"]["uid"].as_str().unwrap().to_owned(),
        )
    };
    lock(&sb.world())
        .delete_object(PODS, Some("arc-runners"), &name, None)
        .unwrap();
    let new_uid = {
        let w = sb.world();
        let w = lock(&w);
        w.store
            .get(PODS, Some("arc-runners"), &name)
            .expect("recreated")["metadata"]["uid"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_ne!(new_uid, old_uid);

    let settings = arcctl::config::resolve_kube(
        &arcctl::cli::KubeArgs {
            kubeconfig: Some(sb.kubeconfig_path().to_owned()),
            context: None,
            namespaces: vec![],
            all_namespaces: false,
        },
        &env(&sb),
    )
    .unwrap();
    let cluster = arcctl::cluster::Cluster::connect(&settings).await.unwrap();
    let edge = ClusterEdge(Arc::new(cluster));
    let stale = DeleteTarget::Pod {
        namespace: "arc-runners".into(),
        name: name.clone(),
        uid: old_uid,
        annotate: true,
    };
    assert_eq!(edge.delete(&stale).await.unwrap(), Deleted::Replaced);
    let w = sb.world();
    let w = lock(&w);
    assert_eq!(
        w.store.get(PODS, Some("arc-runners"), &name).unwrap()["metadata"]["uid"],
        new_uid.as_str()
    );
}
