//! Hostile runner logs end to end: job traces that lag their assignment (`--job-lag`), dockerd
//! noise in the runner container's log (`--log-noise`), a 204 racing every job start, and idle
//! runners that notice their deleted registration and exit. The real kubectl reads the noisy
//! log by time and by tail; `arcctl drain` with its default confirm window kills no job and
//! strands no runner. Only 127.0.0.1; every wait is bounded; no assertion on how long anything
//! took.

use arcctl::sandbox::noise::LogView;
use arcctl::sandbox::world::lock;

use crate::support::kubectl::Kubectl;
use crate::support::*;

/// The log lines as `kubectl logs --timestamps` prints them.
fn rendered(view: &LogView, since: Option<jiff::Timestamp>) -> Vec<String> {
    view.entries(since)
        .into_iter()
        .map(|e| format!("{} {}", e.time, e.line))
        .collect()
}

fn is_prefix(short: &[String], long: &[String]) -> bool {
    short.len() <= long.len() && short == &long[..short.len()]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_a_noisy_log_by_time_by_tail_and_by_bytes() {
    let sb = sandbox(args!(
        "--runners 2 --busy 1 --log-noise 40 --job-duration 600s --mode legacy"
    ))
    .await;
    let kube = Kubectl::with_kubeconfig(sb.kubeconfig_path().to_path_buf());
    let pod = pod_names(&sb).into_iter().next().unwrap();
    let world = sb.world();
    let view = |w: &arcctl::sandbox::world::World| w.log_view(&w.options.namespace, &pod, "runner");
    // Let a few seconds of noise pile up.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let since = {
        let w = lock(&world);
        jiff::Timestamp::from_second(w.wall_now().as_second() - 2).unwrap()
    };
    let args = args!(format!(
        "logs {pod} -c runner --timestamps --since-time {since}"
    ));
    let before = rendered(&view(&lock(&world)), Some(since));
    let out = kube.ok(&args).await;
    let after = rendered(&view(&lock(&world)), Some(since));
    let got: Vec<String> = out.lines().map(str::to_owned).collect();
    // Exactly the log from `since` on, as far as it had come when kubectl read it.
    assert!(before.len() > 60, "two seconds of a job at 40 lines/s");
    assert!(
        is_prefix(&before, &got),
        "{} lines vs {}",
        before.len(),
        got.len()
    );
    assert!(
        is_prefix(&got, &after),
        "{} lines vs {}",
        got.len(),
        after.len()
    );
    assert!(got.iter().all(|l| {
        let t: jiff::Timestamp = l.split(' ').next().unwrap().parse().unwrap();
        t >= since
    }));

    // The last 50 lines: a window of the whole log that ends no earlier than it did before.
    let before = rendered(&view(&lock(&world)), None);
    let out = kube
        .ok(args!(format!(
            "logs {pod} -c runner --timestamps --tail 50"
        )))
        .await;
    let after = rendered(&view(&lock(&world)), None);
    let got: Vec<String> = out.lines().map(str::to_owned).collect();
    assert_eq!(got.len(), 50);
    let at = after
        .windows(50)
        .position(|w| w == got.as_slice())
        .expect("the tail is a window of the log");
    assert!(
        at + 50 >= before.len(),
        "the tail ends before an earlier read did"
    );

    // The first 1,000 bytes: the start of the log never changes.
    let out = kube
        .ok(args!(format!("logs {pod} -c runner --limit-bytes 1000")))
        .await;
    let whole: String = view(&lock(&world))
        .entries(None)
        .iter()
        .map(|e| format!("{}\n", e.line))
        .collect();
    assert_eq!(out.len(), 1000);
    assert_eq!(out, whole[..1000]);
    // The runner's own lines are in there, among dockerd's.
    assert!(whole.contains("√ Connected to GitHub") && whole.contains("Running job: "));
    assert!(whole.contains("level=info msg="));
    sb.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_kills_no_job_and_strands_no_runner_when_traces_lag_under_noise() {
    let sb = sandbox(args!(
        "--mode mixed --runners 40 --busy 0.4 --job-rate 20 --job-duration 5s..40s \
         --list-cache 60s --fault unsafe-204=1 --job-lag 3s --log-noise 40 --seed 2"
    ))
    .await;
    // The default confirm window: what a user gets.
    let run = arcctl(
        &sb,
        args!("drain --all -A --yes --max-unregister-rate 100/s -o json"),
    )
    .await;
    assert!(run.code == 0 || run.code == 3, "{}", run.stderr);
    let doc = json(&run);
    sb.stop_traffic();
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.killed, [], "{}", run.stderr);
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0, "{}", run.stderr);
    assert_eq!(r.runners.dangling_registrations, 0);
    // The world was hostile: 204s raced job starts, and those runners were held, not deleted.
    assert!(
        r.unsafe_204s > 0,
        "no race happened: the test proves nothing"
    );
    let held = doc["totals"]["held"].as_u64().unwrap_or(0);
    assert!(held > 0, "{doc:#}");
    assert!(held <= r.unsafe_204s, "{doc:#}");
    // Idle runners proved themselves gone: they logged the deleted registration or exited.
    let drained = doc["totals"]["drained"].as_u64().unwrap_or(0);
    assert!(drained > 0, "{doc:#}");
    sb.shutdown().await;
}
