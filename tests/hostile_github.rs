//! `arcctl drain` against a GitHub that enforces its secondary rate limit as GitHub does: a
//! refusal limits the client until its `retry-after` (or for a minute when it names none), and
//! every request made meanwhile is refused again and counted as a violation. The drain must
//! wait, probe alone, slow down, and finish with a handful of refusals at most.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::sandbox::Sandbox;

use crate::support::*;

/// A drain far above the limit: 1,000 unregisters a second against `--secondary-limit 600`
/// (120 DELETEs a minute).
async fn drain_far_above_the_limit(sb: &Sandbox, extra: &str) -> Run {
    let mut args =
        args!("drain --all -A --yes -o json --confirm-window 2s --max-unregister-rate 1000/s");
    args.extend(args!(extra));
    arcctl(sb, args).await
}

/// The stderr lines that tell a rate-limit wait.
fn wait_lines(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("GitHub secondary rate limit"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_far_above_the_secondary_limit_waits_probes_and_slows_down() {
    // 150 idle runners, 120 DELETEs a minute allowed: the limit is hit once the first 120 or
    // so have gone, and the rest must wait out the minute.
    let sb = sandbox(args!("--runners 150 --secondary-limit 600 --seed 11")).await;
    let run = drain_far_above_the_limit(&sb, "").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 150, "{doc:#}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
    assert!(
        r.rate_limit_violations >= 1,
        "the limit was never hit: the test proves nothing"
    );
    assert!(
        r.rate_limit_violations <= 3,
        "{} refused requests\n{}",
        r.rate_limit_violations,
        run.stderr
    );
    // The result says what GitHub refused, as the sandbox counted it.
    let limits = &doc["github_rate_limits"];
    assert_eq!(limits["refused"], r.rate_limit_violations, "{doc:#}");
    let waits = limits["waits"].as_u64().expect("waits");
    assert!(waits >= 1, "{doc:#}");
    // One line per wait, not one per runner.
    let lines = wait_lines(&run);
    assert_eq!(lines.len() as u64, waits, "{}", run.stderr);
    assert!(
        lines[0].contains(", then probing; pace lowered to "),
        "{}",
        lines[0]
    );
    // The pace fell far below the 1,000/s asked for: what GitHub accepted, about 2/s.
    let pace = limits["pace_per_second"].as_f64().expect("a pace");
    assert!(pace < 3.0, "{pace}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_without_retry_after_waits_a_minute_and_is_not_repeated() {
    // Every refusal names no wait: GitHub's guidance is then at least a minute, and a client
    // that comes back sooner is refused again.
    let sb = sandbox(args!(
        "--runners 130 --secondary-limit 600 --secondary-limit-silent 1 --seed 12"
    ))
    .await;
    let run = drain_far_above_the_limit(&sb, "").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 130, "{doc:#}");
    let r = sb.report();
    assert!(r.rate_limit_violations >= 1, "the limit was never hit");
    assert!(
        r.rate_limit_violations <= 3,
        "{} refused requests\n{}",
        r.rate_limit_violations,
        run.stderr
    );
    let lines = wait_lines(&run);
    assert!(
        lines
            .first()
            .is_some_and(|l| l.contains("(no retry-after): waiting 1m, then probing")),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_while_waiting_for_busy_runners_pass_the_same_gate() {
    // Busy runners polled with --wait (GET by id, 1 point each) next to a stream of
    // unregisters: the polls, too, stop while the client is limited, and after the first
    // refusal every GitHub call goes alone. With 2 slots, at most 2 polls and 1 unregister can
    // be in flight when that first refusal comes back.
    let sb = sandbox(args!(
        "--runners 130 --busy 0.1 --job-duration 20s --secondary-limit 600 --seed 13"
    ))
    .await;
    let run = drain_far_above_the_limit(
        &sb,
        "--wait --poll-interval 2s --timeout 5m --concurrency 2",
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 130, "{doc:#}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.runners.stuck, 0);
    assert!(
        count(&r, true, "GET", "/actions/runners/") > 0,
        "no poll was made: the test proves nothing"
    );
    assert!(r.rate_limit_violations >= 1, "the limit was never hit");
    assert!(
        r.rate_limit_violations <= 3,
        "{} refused requests\n{}",
        r.rate_limit_violations,
        run.stderr
    );
}
