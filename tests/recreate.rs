//! `arcctl recreate` against the in-process sandbox: rolling batches replace runners in every
//! ARC mode, capacity never drops by more than a batch, no job dies, and a replacement that
//! never comes stops the run. Only 127.0.0.1; every wait is bounded; no assertion on how long
//! anything took.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::lock;

use crate::support::*;

/// `arcctl ARGS` with the `FAST` profile for what the test does not set itself.
async fn recreate(sb: &Sandbox, args: Vec<String>) -> Run {
    arcctl(sb, fast(args)).await
}

/// Registrations online now: the runners that can take a job.
fn online(sb: &Sandbox) -> usize {
    let w = sb.world();
    let w = lock(&w);
    w.registrations
        .values()
        .filter(|r| r.status == "online")
        .count()
}

/// Samples [`online`] every few milliseconds until stopped; the lowest count seen.
struct Capacity {
    low: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Capacity {
    fn watch(sb: &Sandbox) -> Capacity {
        let low = Arc::new(AtomicUsize::new(online(sb)));
        let stop = Arc::new(AtomicBool::new(false));
        let world = sb.world();
        let task = tokio::spawn({
            let (low, stop) = (low.clone(), stop.clone());
            async move {
                while !stop.load(Ordering::Relaxed) {
                    let now = {
                        let w = lock(&world);
                        w.registrations
                            .values()
                            .filter(|r| r.status == "online")
                            .count()
                    };
                    low.fetch_min(now, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        });
        Capacity { low, stop, task }
    }

    async fn lowest(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.task.await;
        self.low.load(Ordering::Relaxed)
    }
}

/// Every batch in the document holds at most `size` runners, and batch numbers are 1, 2, ….
fn assert_batches_at_most(doc: &serde_json::Value, size: usize) {
    for (k, b) in doc["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .enumerate()
    {
        assert_eq!(b["batch"], k + 1);
        let n = b["runners"].as_array().expect("runners").len();
        assert!(n >= 1 && n <= size, "batch of {n} > {size}: {doc:#}");
    }
}

fn runners(doc: &serde_json::Value) -> &Vec<serde_json::Value> {
    doc["runners"].as_array().expect("runners")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scale_set_runners_are_replaced_in_batches_without_dropping_capacity_more_than_a_batch() {
    let sb = sandbox(args!("--runners 8 --seed 5 --job-rate 0")).await;
    let before: BTreeSet<String> = pod_names(&sb).into_iter().collect();
    let start = online(&sb);
    assert_eq!(start, 8);
    let cap = Capacity::watch(&sb);
    let run = recreate(&sb, args!("recreate --all -A --yes --batch-size 3 -o json")).await;
    let low = cap.lowest().await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        low >= start - 3,
        "capacity fell to {low} of {start} with batches of 3"
    );
    let doc = json(&run);
    assert_eq!(doc["kind"], "RecreateResult");
    assert_eq!(doc["totals"]["recreated"], 8, "{doc:#}");
    assert_eq!(doc["totals"]["replacements_ready"], 8, "{doc:#}");
    assert_eq!(doc["batches"].as_array().unwrap().len(), 3);
    assert_batches_at_most(&doc, 3);

    let after: BTreeSet<String> = pod_names(&sb).into_iter().collect();
    let mut replacements = BTreeSet::new();
    for r in runners(&doc) {
        assert_eq!(r["outcome"], "recreated", "{r:#}");
        let rep = &r["replacement"];
        assert_eq!(rep["status"], "ready", "{r:#}");
        let name = rep["name"].as_str().expect("replacement name").to_owned();
        assert!(!before.contains(&name), "{name} is not new");
        assert!(after.contains(&name), "{name} has no pod");
        assert!(rep["id"].as_u64().is_some() && rep["id"] != r["id"]);
        assert!(rep["ready_after_seconds"].as_f64().is_some());
        assert!(replacements.insert(name), "a replacement paired twice");
    }
    assert!(before.is_disjoint(&after), "old pods remain: {after:?}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
    assert_eq!(
        count(&r, false, "DELETE", "/pods/"),
        0,
        "never the bare pod"
    );
    assert_eq!(online(&sb), 8, "capacity restored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_runners_are_replaced_under_new_names_and_runnerset_pods_under_new_ids() {
    let sb = sandbox(args!("--mode legacy --runners 6 --seed 6 --job-rate 0")).await;
    let start = online(&sb);
    let cap = Capacity::watch(&sb);
    let run = recreate(&sb, args!("recreate --all -A --yes --batch-size 2 -o json")).await;
    let low = cap.lowest().await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(doc["totals"]["replacements_ready"], 6, "{doc:#}");
    assert_batches_at_most(&doc, 2);
    assert!(low >= start - 2, "capacity fell to {low} of {start}");
    let mut same_name = 0;
    let mut new_name = 0;
    for r in runners(&doc) {
        let rep = &r["replacement"];
        assert_eq!(rep["status"], "ready", "{r:#}");
        assert_ne!(rep["id"], r["id"], "a replacement registers anew: {r:#}");
        if rep["name"] == r["name"] {
            // RunnerSet: the StatefulSet recreates `<sts>-0` under the same name.
            assert!(
                r["name"].as_str().unwrap().starts_with("arc-runnerset"),
                "{r:#}"
            );
            same_name += 1;
        } else {
            assert!(
                r["name"].as_str().unwrap().starts_with("arc-runnerdeploy"),
                "{r:#}"
            );
            new_name += 1;
        }
    }
    assert!(same_name > 0 && new_name > 0, "both legacy kinds: {doc:#}");
    let r = sb.report();
    assert_eq!(
        count(&r, false, "PATCH", "/pods/"),
        6,
        "annotated before delete"
    );
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_modes_under_job_traffic_kill_no_job_and_leave_no_stuck_runner() {
    let sb = sandbox(args!(
        "--mode mixed --runners 12 --busy 0.3 --job-rate 2 --job-duration 500ms..2s --seed 7"
    ))
    .await;
    let run = recreate(
        &sb,
        args!("recreate --all -A --yes --wait --timeout 60s --batch-size 4 -o json"),
    )
    .await;
    assert!(
        run.code == 0 || run.code == 3,
        "exit {}:\n{}",
        run.code,
        run.stderr
    );
    let doc = json(&run);
    assert_batches_at_most(&doc, 4);
    assert_eq!(doc["totals"]["replacements_missing"], 0, "{doc:#}");
    assert!(doc["totals"]["recreated"].as_u64().unwrap() > 0, "{doc:#}");
    for r in runners(&doc) {
        if r["outcome"] == "recreated" {
            let status = r["replacement"]["status"].as_str().unwrap();
            assert!(
                status == "ready" || status == "already-replaced",
                "a recreated runner's replacement is ready or was made by ARC already: {r:#}"
            );
        }
    }
    sb.stop_traffic();
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0, "{:?}", r.killed);
    assert_eq!(r.runners.stuck, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_runners_are_recreated_once_idle_with_wait_one_batch_at_a_time() {
    let sb = sandbox(args!(
        "--runners 4 --busy 0.5 --job-rate 0 --job-duration 1s --seed 8"
    ))
    .await;
    let busy = busy_runners(&sb);
    assert_eq!(busy.len(), 2);
    let run = recreate(
        &sb,
        args!("recreate --all -A --yes --wait --batch-size 1 -o json"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_batches_at_most(&doc, 1);
    assert_eq!(doc["totals"]["recreated"], 4, "{doc:#}");
    // Idle runners go first; the busy ones come last, once their jobs are done.
    let batches = doc["batches"].as_array().unwrap();
    for b in &batches[..2] {
        let name = b["runners"][0].as_str().unwrap();
        assert!(!busy.contains(&name.to_owned()), "{doc:#}");
    }
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.jobs.completed, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_that_never_comes_stops_further_batches_with_exit_3() {
    // The controller holds every new runner pod Pending for an hour.
    let sb = sandbox(args!(
        "--runners 4 --seed 9 --job-rate 0 --controller-delay 1h"
    ))
    .await;
    let before = pod_names(&sb);
    let run = recreate(
        &sb,
        args!("recreate --all -A --yes --batch-size 2 --ready-timeout 1s -o json"),
    )
    .await;
    assert_eq!(run.code, 3, "incomplete:\n{}", run.stderr);
    let doc = json(&run);
    assert_eq!(doc["batches"].as_array().unwrap().len(), 1, "{doc:#}");
    assert_eq!(doc["totals"]["replacements_missing"], 2, "{doc:#}");
    assert!(
        doc["halted"].as_str().unwrap().contains("--ready-timeout"),
        "{doc:#}"
    );
    let mut untouched = 0;
    for r in runners(&doc) {
        if r["batch"].is_null() {
            assert_eq!(r["outcome"], "stopped", "{r:#}");
            assert!(r["detail"].as_str().unwrap().starts_with("not started"));
            assert!(pod_names(&sb).contains(&r["name"].as_str().unwrap().to_owned()));
            untouched += 1;
        } else {
            assert_eq!(r["replacement"]["status"], "missing", "{r:#}");
            assert_eq!(r["outcome"], "replacement-missing", "{r:#}");
        }
    }
    assert_eq!(untouched, 2);
    let r = sb.report();
    assert_eq!(
        count(&r, true, "DELETE", "/actions/runners/"),
        2,
        "only batch 1"
    );
    assert_eq!(
        pod_names(&sb).len(),
        before.len(),
        "replacements exist, Pending"
    );
    assert_eq!(r.jobs.killed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_summary_pairs_old_and_new_runners_and_the_missing_ones_are_pending() {
    let sb = sandbox(args!(
        "--runners 2 --seed 10 --job-rate 0 --controller-delay 1h"
    ))
    .await;
    let run = recreate(&sb, args!("recreate --all -A --yes --ready-timeout 500ms")).await;
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("batch 1: recreating 1 runner"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("REPLACEMENT"), "{}", run.stderr);
    assert!(
        run.stderr.contains("no replacement ready after"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "1 replacement was not ready within --ready-timeout, so no further batch was started"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("replacement-missing"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "table mode: summary on stderr");

    let sb = sandbox(args!("--runners 2 --seed 10 --job-rate 0")).await;
    let run = recreate(&sb, args!("recreate --all -A --yes")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(" replaced by runner/"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("2 selected: 2 recreated (2 ready)\n"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_wait_ready_runs_batches_back_to_back_and_says_so() {
    let sb = sandbox(args!("--runners 4 --seed 11 --job-rate 0")).await;
    let run = recreate(
        &sb,
        args!("recreate --all -A --yes --no-wait-ready --batch-size 2 -o json"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(doc["wait_ready"], false);
    assert_eq!(doc["totals"]["recreated"], 4);
    for r in runners(&doc) {
        assert_eq!(r["replacement"]["status"], "not-waited", "{r:#}");
    }
    sb.settle().await;
    assert_eq!(sb.report().jobs.killed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_shows_the_batches_and_changes_nothing() {
    let sb = sandbox(args!("--runners 4 --seed 12 --job-rate 0")).await;
    let run = recreate(&sb, args!("recreate --all -A --dry-run --batch-size 50%")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let header = run.stdout.lines().next().unwrap_or_default();
    assert!(header.contains("BATCH"), "{}", run.stdout);
    let batch_col: Vec<&str> = run
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(4))
        .collect();
    assert_eq!(batch_col, ["1", "1", "2", "2"], "{}", run.stdout);
    let run = recreate(
        &sb,
        args!("recreate --all -A --dry-run --batch-size 3 -o json"),
    )
    .await;
    let doc = json(&run);
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["batch_size"], 3);
    assert_batches_at_most(&doc, 3);
    assert_eq!(mutating_requests(&sb.report()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_batch_sizes_and_an_unnarrowed_selection_are_usage_errors_before_any_request() {
    let sb = sandbox(args!("--runners 2 --seed 13")).await;
    for bad in ["0", "101%", "many"] {
        let run = recreate(&sb, args!("recreate --all -A --yes --batch-size", bad)).await;
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--batch-size"), "{}", run.stderr);
    }
    let run = recreate(&sb, args!("recreate -A --yes")).await;
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("refusing to recreate every runner"),
        "{}",
        run.stderr
    );
    let run = recreate(&sb, args!("recreate --all -A")).await;
    assert_eq!(run.code, 2, "no terminal, no --yes");
    let r = sb.report();
    assert_eq!(r.requests.github.total + r.requests.kube.total, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_while_waiting_for_replacements_stops_with_130_and_starts_no_batch() {
    let sb = sandbox(args!(
        "--runners 6 --seed 14 --job-rate 0 --controller-delay 1h"
    ))
    .await;
    let inv = Invocation::new(&sb);
    // Interrupt once the first batch is deleted and its replacements are awaited.
    interrupt_after_deletes(&sb, false, 2, inv.interrupt.clone());
    let run = inv
        .run(fast(args!(
            "recreate --all -A --yes --batch-size 2 --ready-timeout 5m -o json"
        )))
        .await;
    assert_eq!(run.code, 130, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(doc["batches"].as_array().unwrap().len(), 1, "{doc:#}");
    assert_eq!(doc["totals"]["replacements_missing"], 0, "{doc:#}");
    let not_started = runners(&doc)
        .iter()
        .filter(|r| r["batch"].is_null())
        .inspect(|r| {
            assert!(
                r["detail"].as_str().unwrap().contains("interrupted"),
                "{r:#}"
            )
        })
        .count();
    assert_eq!(not_started, 4);
    let r = sb.report();
    assert_eq!(count(&r, true, "DELETE", "/actions/runners/"), 2);
    assert_eq!(r.jobs.killed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_records_every_mutation_of_every_batch() {
    let sb = sandbox(args!("--runners 4 --seed 15 --job-rate 0")).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let run = recreate(
        &sb,
        args!("recreate --all -A --yes --batch-size 2 --audit-log", &path),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines = audit::lines(&path);
    let by = |action: &str| lines.iter().filter(|l| l["action"] == action).count();
    assert_eq!(by("unregister"), 4);
    assert_eq!(by("delete"), 4);
    assert_eq!(lines.len(), 8);
    let token = lock(&sb.world()).token.clone();
    assert!(!text.contains(&token));
}

/// The acceptance run at test speed: 30 scale-set runners, 30 % busy, a job a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_runners_under_traffic_are_replaced_in_batches_of_five_and_no_job_dies() {
    let sb = sandbox(args!(
        "--mode scale-set --runners 30 --busy 0.3 --job-rate 1 --job-duration 2s..10s --seed 16"
    ))
    .await;
    let busy_at_start = busy_runners(&sb);
    let run = recreate(&sb, args!("recreate --all -A --yes --batch-size 5 -o json")).await;
    assert!(
        run.code == 0 || run.code == 3,
        "exit {}:\n{}",
        run.code,
        run.stderr
    );
    let doc = json(&run);
    assert_batches_at_most(&doc, 5);
    assert_eq!(doc["totals"]["replacements_missing"], 0, "{doc:#}");
    assert_eq!(doc["totals"]["failed"], 0, "{doc:#}");
    for r in runners(&doc) {
        let name = r["name"].as_str().unwrap().to_owned();
        let outcome = r["outcome"].as_str().unwrap();
        if busy_at_start.contains(&name) {
            assert_eq!(outcome, "skipped-busy", "{r:#}");
        } else {
            // Idle at the start: recreated, unless a job reached it before its batch did.
            assert!(outcome == "recreated" || outcome == "skipped-busy", "{r:#}");
            if outcome == "recreated" {
                let status = r["replacement"]["status"].as_str().unwrap();
                assert!(status == "ready" || status == "already-replaced", "{r:#}");
            }
        }
    }
    sb.stop_traffic();
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0, "{:?}", r.killed);
    assert_eq!(r.runners.stuck, 0);
}

/// A runner held by a job that started during its unregistration stays out of service: later
/// batches are smaller by one, so capacity still never drops by more than the batch size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_runner_uses_up_room_in_every_later_batch() {
    let mut world = populated(args!(
        "--mode legacy --runners 4 --list-cache 60s --job-rate 0 --fault unsafe-204=1 --seed 17"
    ));
    // The recreate must reach the DELETE inside the window however slow this machine is.
    world.timing.unsafe_204_window = Duration::from_secs(120);
    let sb = Sandbox::start_world(world).await.unwrap();
    let victim = pod_names(&sb).into_iter().min().expect("a runner pod");
    assert!(lock(&sb.world()).start_job_on(
        "arc-runners",
        &victim,
        "deploy",
        Duration::from_secs(600)
    ));
    let run = recreate(&sb, args!("recreate --all -A --yes --batch-size 2 -o json")).await;
    assert_eq!(run.code, 3, "held is incomplete:\n{}", run.stderr);
    let doc = json(&run);
    let sizes: Vec<usize> = doc["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["runners"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [2, 1, 1], "{doc:#}");
    assert_eq!(doc["batches"][0]["runners"][0], victim.as_str());
    let held = runners(&doc)
        .iter()
        .find(|r| r["name"] == victim.as_str())
        .unwrap();
    assert_eq!(held["outcome"], "held", "{held:#}");
    assert_eq!(doc["totals"]["replacements_ready"], 3, "{doc:#}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.unsafe_204s, 1, "the fault must have struck");
    assert_eq!(r.jobs.killed, 0);
    assert!(pod_names(&sb).contains(&victim));
}

/// The stuck-runner use case: a runner registered but offline is picked by name (as from
/// `arcctl list --state offline -o name`) and replaced by one that comes online.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offline_runner_picked_by_name_is_replaced_by_an_online_one() {
    let sb = sandbox(args!("--runners 4 --seed 18 --job-rate 0")).await;
    let stuck = pod_names(&sb).into_iter().min().expect("a runner pod");
    {
        let w = sb.world();
        let mut w = lock(&w);
        let reg = w
            .registrations
            .values_mut()
            .find(|r| r.name == stuck)
            .expect("its registration");
        reg.status = "offline";
    }
    let listed = arcctl(&sb, args!("list -A --state offline -o name")).await;
    assert_eq!(
        listed.stdout,
        format!("runner/{stuck}\n"),
        "{}",
        listed.stderr
    );
    let run = recreate(&sb, args!("recreate -A --yes -o json", &stuck)).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    let r = &runners(&doc)[0];
    assert_eq!(r["state"], "offline");
    assert_eq!(r["outcome"], "recreated");
    assert_eq!(r["replacement"]["status"], "ready", "{r:#}");
    let new = r["replacement"]["name"].as_str().unwrap().to_owned();
    let w = sb.world();
    let w = lock(&w);
    assert!(
        w.registrations
            .values()
            .any(|g| g.name == new && g.status == "online")
    );
    assert!(!w.registrations.values().any(|g| g.name == stuck));
}
