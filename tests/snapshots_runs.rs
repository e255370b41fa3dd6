//! Whole-run snapshots of what the operator sees (issue 10) for a held, a pending, a timed-out
//! and a rate-limited drain: the whole stderr of a run without a terminal (event lines, the
//! summary table, the totals line, the list of runners still pending, the rate-limit lines)
//! and the `-o json` document of the same world drained again.
//!
//! Each scenario builds its seeded world twice and drains both copies at once, one with the
//! default output and one with `-o json`, so the pair costs the time of one run. The tests run
//! on a current-thread runtime, so the runner tasks reach the pacer in plan order; with
//! `--concurrency 1` and the unregisters paced seconds apart, every event line comes at least a
//! second away from the next one. A runner's notice that its registration was deleted is put
//! out of reach (it would otherwise land at a seeded 1–10 s, sometimes right at a look), so an
//! idle runner is proven by the end of its confirm window. What still varies between runs (a
//! rate-limit wait, the pace measured from it) is masked by filters; where the order is
//! genuinely concurrent (a `--wait` poll and an unregister both go out at the start), the
//! event lines are grouped by runner, each runner's own lines in the order they came.
//!
//! Each test checks what its snapshot must show before comparing it, so an accepted snapshot
//! that lost the point fails. Only 127.0.0.1; every wait is bounded; no assertion on how long
//! anything took.

use std::time::Duration;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::{World, lock};

use crate::support::*;

/// One scenario: a seeded world (sandbox words), changes to its timing before it starts, a
/// step driven on it once it runs, and the drain's command line.
struct Scenario {
    world: &'static str,
    adjust: fn(&mut World),
    prepare: fn(&Sandbox),
    drain: Vec<String>,
}

/// The same world drained twice: with the default output (`table`: what stderr shows) and
/// with `-o json` (`json`: the document on stdout); `sandbox` is the table run's world.
struct Pair {
    table: Run,
    json: Run,
    sandbox: Sandbox,
}

/// Keeps a runner's notice of its deleted registration out of every test's reach: idle
/// runners are then proven by their confirm window, at a time the test controls.
fn quiet_runners(w: &mut World) {
    w.timing.notice_min = Duration::from_secs(300);
    w.timing.notice_max = Duration::from_secs(300);
}

fn nothing(_: &Sandbox) {}

async fn start(s: &Scenario) -> Sandbox {
    let mut world = populated(args!(s.world));
    quiet_runners(&mut world);
    (s.adjust)(&mut world);
    let sb = Sandbox::start_world(world).await.expect("sandbox starts");
    (s.prepare)(&sb);
    sb
}

async fn pair(s: Scenario) -> Pair {
    let (a, b) = tokio::join!(start(&s), start(&s));
    let table = s.drain.clone();
    let mut json = table.clone();
    json.extend(args!("-o json"));
    let (table, json) = tokio::join!(arcctl(&a, &table), arcctl(&b, &json));
    Pair {
        table,
        json,
        sandbox: a,
    }
}

/// The drain every scenario shares: everything, no prompt, the shortest confirm window, one
/// call at a time, unregisters `spacing` apart (a rate such as `1/3s`), then `extra`.
fn drain(spacing: &str, extra: &str) -> Vec<String> {
    args!(format!(
        "drain --all -A --yes --confirm-window 2s --concurrency 1 \
         --max-unregister-rate {spacing} {extra}"
    ))
}

/// Masks what varies between runs: how long a rate-limit wait was (whole seconds until
/// GitHub's window frees, which depends on when the refused call went out) and the pace the
/// pacer measured from what GitHub accepted.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    for (pattern, replacement) in [
        (
            r"waiting (\d+[a-z]+ ?)+, then probing",
            "waiting [WAIT], then probing",
        ),
        (r"\((\d+[a-z]+ ?)+ in all\)", "([WAIT] in all)"),
        (r"pace lowered to [0-9.]+/(s|min)", "pace lowered to [PACE]"),
        (r"pace at the end [0-9.]+/(s|min)", "pace at the end [PACE]"),
        (r#""waited_seconds": \d+"#, r#""waited_seconds": "[WAIT]""#),
        (
            r#""pace_per_second": [0-9.eE+-]+"#,
            r#""pace_per_second": "[PACE]""#,
        ),
    ] {
        s.add_filter(pattern, replacement);
    }
    s
}

/// The runner an event line is about: `runner/NAME …`, `pod/NS/NAME …`,
/// `ephemeralrunner/NS/NAME …`.
fn runner_of(line: &str) -> Option<&str> {
    let subject = line.split(' ').next()?;
    let (kind, path) = subject.split_once('/')?;
    matches!(kind, "runner" | "pod" | "ephemeralrunner").then(|| path.rsplit('/').next())?
}

/// Stderr with its event lines (everything before the summary) grouped by runner, by name,
/// each runner's lines in their order; the summary as it came.
fn grouped_by_runner(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let summary_at = lines
        .iter()
        .position(|l| l.starts_with("RUNNER ") || l.contains(" selected: "))
        .unwrap_or(lines.len());
    let (events, summary) = lines.split_at(summary_at);
    let mut keyed: Vec<(&str, &str)> = events
        .iter()
        .map(|l| {
            let runner = runner_of(l).unwrap_or_else(|| panic!("not a runner's line: {l}"));
            (runner, *l)
        })
        .collect();
    keyed.sort_by_key(|(runner, _)| *runner);
    let mut out: Vec<&str> = keyed.into_iter().map(|(_, l)| l).collect();
    out.extend_from_slice(summary);
    out.join("\n") + "\n"
}

/// Snapshots `NAME_stderr` (what stderr showed) and `NAME_json` (the document on stdout),
/// each described as `what` shows.
fn snapshot(name: &str, what: &str, stderr: &str, json: &Run) {
    let mut s = settings();
    s.set_description(what);
    s.bind(|| {
        insta::assert_snapshot!(format!("{name}_stderr"), stderr);
        insta::assert_snapshot!(format!("{name}_json"), json.stdout);
    });
}

/// A job assigned right before the unregister, and GitHub answering 204 anyway (`unsafe-204`
/// with a window long enough for any machine): the idle check finds the job in the runner's
/// log and holds the runner with its pod; the other two are drained after their window.
#[tokio::test(flavor = "current_thread")]
async fn a_held_run() {
    fn long_unsafe_window(w: &mut World) {
        w.timing.unsafe_204_window = Duration::from_secs(120);
    }
    fn assign_deploy(sb: &Sandbox) {
        let victim = pod_names(sb).into_iter().min().expect("a runner pod");
        assert!(lock(&sb.world()).start_job_on(
            "arc-runners",
            &victim,
            "deploy",
            Duration::from_secs(600)
        ));
    }
    let p = pair(Scenario {
        world: "--mode legacy --runners 3 --list-cache 60s --job-rate 0 --fault unsafe-204=1 \
                --seed 5",
        adjust: long_unsafe_window,
        prepare: assign_deploy,
        drain: drain("1/3s", ""),
    })
    .await;
    assert_eq!(p.table.code, 3, "{}", p.table.stderr);
    assert_eq!(p.json.code, 3, "{}", p.json.stderr);
    let doc = json(&p.json);
    let o = outcomes(&doc);
    assert_eq!(o["held"].len(), 1, "{doc:#}");
    assert_eq!(o["drained"].len(), 2, "{doc:#}");
    let held = format!(
        "runner/{} held (job \"deploy\" started during unregistration; pod kept)",
        o["held"][0]
    );
    assert!(p.table.stderr.contains(&held), "{}", p.table.stderr);
    let r = p.sandbox.report();
    assert_eq!(r.unsafe_204s, 1, "the fault must have struck");
    assert_eq!(r.jobs.killed, 0);
    snapshot(
        "held",
        "3 legacy runners, a job assigned to one after the list and an unsafe 204: that one held with its job, pod kept; two drained",
        &p.table.stderr,
        &p.json,
    );
}

/// Every runner pod waiting to start (`--pending 1`): registered, listed offline, its log
/// answered 400. Each is proven idle by its waiting container and drained through its
/// EphemeralRunner. The world's clock is stepped past the first failed image pull, so the
/// pod whose pull fails reads `ImagePullBackOff` for the whole run (the kubelet shows
/// `ErrImagePull` from 1 s to 2 s, then the back-off until 12 s) and the others
/// `ContainerCreating` (none starts before 6.5 s).
#[tokio::test(flavor = "current_thread")]
async fn a_run_meeting_pending_pods() {
    fn past_the_first_pull(sb: &Sandbox) {
        let world = sb.world();
        let mut w = lock(&world);
        let at = w.started + Duration::from_millis(2500);
        w.tick(at);
    }
    let p = pair(Scenario {
        world: "--runners 3 --pending 1 --job-rate 0 --seed 3",
        adjust: |_| {},
        prepare: past_the_first_pull,
        drain: drain("1/1500ms", ""),
    })
    .await;
    assert_eq!(p.table.code, 0, "{}", p.table.stderr);
    let doc = json(&p.json);
    assert_eq!(doc["totals"]["drained"], 3, "{doc:#}");
    let details: Vec<&str> = doc["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .map(|r| r["detail"].as_str().unwrap_or_default())
        .collect();
    for reason in ["ContainerCreating", "ImagePullBackOff"] {
        let proof = format!("(idle: runner container not running: {reason})");
        assert!(details.iter().any(|d| d.ends_with(&proof)), "{details:#?}");
    }
    let r = p.sandbox.report();
    assert_eq!(
        count(&r, false, "DELETE", "/pods/"),
        0,
        "never the bare pod"
    );
    assert_eq!(count(&r, false, "DELETE", "ephemeralrunners"), 3);
    snapshot(
        "pending",
        "3 scale-set runners whose pods wait to start (--pending 1): each drained through its EphemeralRunner, proven idle by its waiting container",
        &p.table.stderr,
        &p.json,
    );
}

/// `--wait --timeout 9s` with one runner busy for ten minutes: two idle runners are drained,
/// the third's turn at the pacer (8 s) comes after the last moment an unregister may start
/// (one confirm window before the deadline, 7 s), and the busy runner times out waiting.
#[tokio::test(flavor = "current_thread")]
async fn a_timed_out_run() {
    let p = pair(Scenario {
        world: "--runners 4 --busy 0.25 --job-rate 0 --job-duration 600s --seed 3",
        adjust: |_| {},
        prepare: nothing,
        drain: drain("1/4s", "--wait --timeout 9s --poll-interval 1s"),
    })
    .await;
    assert_eq!(p.table.code, 3, "{}", p.table.stderr);
    let doc = json(&p.json);
    let o = outcomes(&doc);
    assert_eq!(o["drained"].len(), 2, "{doc:#}");
    assert_eq!(o["timed-out"].len(), 2, "{doc:#}");
    let stages: Vec<&str> = doc["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .filter(|r| r["outcome"] == "timed-out")
        .map(|r| r["detail"].as_str().unwrap_or_default())
        .collect();
    assert!(
        stages.contains(&"--timeout reached before the unregister; nothing changed")
            && stages
                .contains(&"--timeout reached while waiting for the busy runner; nothing changed"),
        "{stages:#?}"
    );
    assert_eq!(p.sandbox.report().jobs.killed, 0);
    // The busy runner's first poll and the first unregister go out together.
    snapshot(
        "timed_out",
        "--wait --timeout 9s, 1 of 4 runners busy: 2 drained, 1 timed out before its unregister, the busy one timed out waiting (event lines grouped by runner)",
        &grouped_by_runner(&p.table.stderr),
        &p.json,
    );
}

/// `--secondary-limit 20` (points a minute; a DELETE costs 5, the list 1) with every refusal
/// naming its `retry-after`: three unregisters fit, the fourth is refused once, every call
/// waits until the minute frees, the fourth goes alone as the probe and is accepted. About a
/// minute of waiting: the longest test of the file.
#[tokio::test(flavor = "current_thread")]
async fn a_rate_limited_run() {
    let p = pair(Scenario {
        world: "--runners 4 --job-rate 0 --secondary-limit 20 --secondary-limit-silent 0 --seed 3",
        adjust: |_| {},
        prepare: nothing,
        drain: drain("1/3s", ""),
    })
    .await;
    assert_eq!(p.table.code, 0, "{}", p.table.stderr);
    let doc = json(&p.json);
    assert_eq!(doc["totals"]["drained"], 4, "{doc:#}");
    assert_eq!(doc["github_rate_limits"]["refused"], 1, "{doc:#}");
    assert_eq!(doc["github_rate_limits"]["waits"], 1, "{doc:#}");
    let waits: Vec<&str> = p
        .table
        .stderr
        .lines()
        .filter(|l| l.starts_with("GitHub secondary rate limit: waiting "))
        .collect();
    assert_eq!(waits.len(), 1, "{}", p.table.stderr);
    assert!(
        p.table
            .stderr
            .contains("GitHub rate limits: 1 request refused, 1 wait ("),
        "{}",
        p.table.stderr
    );
    assert_eq!(p.sandbox.report().rate_limit_violations, 1);
    snapshot(
        "rate_limited",
        "--secondary-limit 20 (retry-after always named), 4 idle runners: the 4th unregister refused once, one wait, then the probe; all drained",
        &p.table.stderr,
        &p.json,
    );
}
