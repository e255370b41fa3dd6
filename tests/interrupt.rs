//! The interrupt suite: Ctrl-C at 20 points of a drain with job traffic. Wherever it lands,
//! no unsafe delete happens (no delete without a 204/404 unregister and an idle check, no job
//! killed), the summary is printed and the exit code is 130.
//!
//! Most points trigger the in-process interrupt when the sandbox has seen a given request; two
//! send a real SIGINT to the built binary. Only 127.0.0.1; every wait is bounded; no assertion
//! on how long anything took.

use std::sync::Arc;
use std::time::Duration;

use arcctl::context::ScriptedPrompter;
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::{SharedWorld, lock};

use crate::support::verdict::{unaccounted, unsafe_deletes};
use crate::support::*;

/// When to interrupt: once the sandbox has answered `n` requests matching this.
#[derive(Clone, Copy)]
struct Seen {
    github: bool,
    method: &'static str,
    path: &'static str,
    /// Only these statuses (empty: any).
    statuses: &'static [u16],
    n: u64,
}

const fn gh(method: &'static str, path: &'static str, statuses: &'static [u16], n: u64) -> Seen {
    Seen {
        github: true,
        method,
        path,
        statuses,
        n,
    }
}

const fn kube(method: &'static str, path: &'static str, statuses: &'static [u16], n: u64) -> Seen {
    Seen {
        github: false,
        method,
        path,
        statuses,
        n,
    }
}

const UNREGISTERED: &[u16] = &[204, 404, 422];

#[derive(Clone, Copy)]
enum When {
    /// Before arcctl starts.
    Already,
    /// The operator answers no at the prompt.
    Prompt,
    Seen(Seen),
}

struct Point {
    name: &'static str,
    when: When,
    /// Extra `arcctl sandbox` words (they replace the defaults of the same flag).
    world: &'static str,
    /// Extra drain arguments (they replace the defaults of the same flag).
    args: &'static str,
}

const POINTS: &[Point] = &[
    Point {
        name: "before the run",
        when: When::Already,
        world: "",
        args: "",
    },
    Point {
        name: "at the prompt",
        when: When::Prompt,
        world: "",
        args: "",
    },
    Point {
        name: "during the list",
        when: When::Seen(gh("GET", "/actions/runners", &[], 1)),
        world: "",
        args: "",
    },
    Point {
        name: "during the cordon",
        when: When::Seen(kube("PATCH", "/nodes/", &[], 1)),
        world: "--nodes 2",
        args: "--node node-1",
    },
    Point {
        name: "after the first unregister",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 1)),
        world: "",
        args: "",
    },
    Point {
        name: "after the third unregister",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 3)),
        world: "",
        args: "",
    },
    Point {
        name: "after the fifth unregister",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 5)),
        world: "",
        args: "",
    },
    Point {
        name: "after the sixth unregister",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 6)),
        world: "",
        args: "",
    },
    Point {
        name: "after the burst of unregisters",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 7)),
        world: "",
        args: "--max-unregister-rate 0 --confirm-window 2s",
    },
    Point {
        name: "while queued at the pacer",
        when: When::Seen(gh("DELETE", "/actions/runners/", UNREGISTERED, 2)),
        world: "",
        args: "--max-unregister-rate 1/s",
    },
    Point {
        name: "in the confirm window",
        when: When::Seen(gh("DELETE", "/actions/runners/", &[204], 1)),
        world: "",
        args: "--confirm-window 3s",
    },
    Point {
        name: "during the idle check",
        when: When::Seen(kube("GET", "/log", &[], 1)),
        world: "",
        args: "",
    },
    Point {
        name: "after the first delete",
        when: When::Seen(kube("DELETE", "ephemeralrunners", &[], 1)),
        world: "",
        args: "",
    },
    Point {
        name: "after the third delete",
        when: When::Seen(kube("DELETE", "ephemeralrunners", &[], 3)),
        world: "",
        args: "",
    },
    Point {
        name: "while waiting for busy runners",
        when: When::Seen(gh("GET", "/actions/runners/{runner_id}", &[], 1)),
        world: "--busy 0.5 --job-duration 20s",
        args: "--wait --timeout 60s",
    },
    Point {
        name: "during a retry after a GitHub 5xx",
        when: When::Seen(gh("DELETE", "/actions/runners/", &[500, 502, 503], 1)),
        world: "--fault github-5xx=0.4",
        args: "",
    },
    Point {
        name: "during a GitHub request that hangs",
        when: When::Seen(gh("", "/actions/runners", &[1], 1)),
        world: "--fault github-timeout=0.3",
        args: "--request-timeout 1s",
    },
    Point {
        name: "during a Kubernetes request that hangs",
        when: When::Seen(kube("", "/", &[1], 1)),
        world: "--fault kube-timeout=0.2",
        args: "--request-timeout 1s",
    },
];

const RUNNERS: usize = 12;

/// Job traffic and a pace that spreads the drain over a few seconds.
const WORLD: &str = "--runners 12 --busy 0.2 --job-rate 3 --job-duration 1s..3s --seed 21";

/// A pace that spreads the drain over a few seconds, unless a point says otherwise; the other
/// waits as `FAST` has them.
const PACE: &str = "--max-unregister-rate 4/s";

fn seen_count(world: &SharedWorld, s: Seen) -> u64 {
    let w = lock(world);
    let stats = if s.github {
        &w.stats.github
    } else {
        &w.stats.kube
    };
    stats
        .iter()
        .filter(|((m, p, status), _)| {
            (s.method.is_empty() || m == s.method)
                && p.contains(s.path)
                && (s.statuses.is_empty() || s.statuses.contains(status))
        })
        .map(|(_, c)| *c)
        .sum()
}

/// Waits (bounded) until `s` has been seen; returns whether it was.
async fn wait_for(world: &SharedWorld, s: Seen) -> bool {
    for _ in 0..6000 {
        if seen_count(world, s) >= s.n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}

/// The runner pods a drain with `args` selects: those on `--node` when given, else all.
fn selected_pods(sb: &Sandbox, args: &str) -> Vec<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.iter().position(|a| *a == "--node") {
        Some(i) => pods_on(sb, words[i + 1]),
        None => pod_names(sb),
    }
}

async fn start(p: &Point) -> Sandbox {
    sandbox(with_defaults(args!(p.world), WORLD)).await
}

/// What must hold after any interrupted drain.
fn check(p: &Point, sb: &Sandbox, run: &Run, before: &[String], audit: &[serde_json::Value]) {
    let name = p.name;
    assert_eq!(
        run.code, 130,
        "{name}: exit code\n{}\n{}",
        run.stdout, run.stderr
    );
    let report = sb.report();
    let wrong = unsafe_deletes(audit, &report);
    assert!(wrong.is_empty(), "{name}: {wrong:#?}");
    assert_eq!(report.runners.stuck, 0, "{name}");
    if run.stdout.is_empty() {
        // Stopped before anything changed: one line says so.
        assert!(
            run.stderr
                .starts_with("error: interrupted before anything was changed")
                || run
                    .stderr
                    .contains("declined at the prompt; nothing was changed"),
            "{name}: {}",
            run.stderr
        );
        assert_eq!(mutating_requests(&report), 0, "{name}");
        return;
    }
    let doc = json(run);
    assert_eq!(doc["exit_code"], 130, "{name}");
    let missing = unaccounted(&doc, before, &pod_names(sb));
    assert!(
        missing.is_empty(),
        "{name}: unaccounted {missing:?}\n{doc:#}"
    );
    assert!(
        doc["runners"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["outcome"] == "stopped"),
        "{name}: new work must stop\n{doc:#}"
    );
}

async fn interrupt_at(p: &Point) {
    let sb = start(p).await;
    assert_eq!(pod_names(&sb).len(), RUNNERS);
    let before = selected_pods(&sb, p.args);
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let mut args = args!("drain --all -A --yes -o json --audit-log", &audit);
    args.extend(args!(p.args));
    let mut args = fast(with_defaults(args, PACE));
    let mut inv = Invocation::new(&sb);
    let mut watcher = None;
    match p.when {
        When::Already => inv.interrupt.trigger(),
        When::Prompt => {
            inv = inv.on_a_terminal();
            inv.prompter = Some(Arc::new(ScriptedPrompter::new(false)));
            args.retain(|a| *a != "--yes");
        }
        When::Seen(s) => {
            let world = sb.world();
            let interrupt = inv.interrupt.clone();
            watcher = Some(tokio::spawn(async move {
                let seen = wait_for(&world, s).await;
                interrupt.trigger();
                seen
            }));
        }
    }
    let run = inv.run(&args).await;
    if let Some(w) = watcher {
        assert!(
            w.await.unwrap(),
            "{}: the point was never reached\n{}\n{:?}\n{:?}",
            p.name,
            run.stderr,
            lock(&sb.world()).stats.github,
            lock(&sb.world()).stats.kube
        );
    }
    sb.stop_traffic();
    sb.settle().await;
    check(p, &sb, &run, &before, &audit::lines(&audit));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_before_or_around_the_list_and_the_prompt() {
    for p in &POINTS[..4] {
        interrupt_at(p).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_between_unregisters() {
    for p in &POINTS[4..10] {
        interrupt_at(p).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_in_the_confirm_window_idle_check_deletes_and_waits() {
    for p in &POINTS[10..15] {
        interrupt_at(p).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_retry_after_a_github_5xx() {
    interrupt_at(&POINTS[15]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_github_request_that_hangs() {
    interrupt_at(&POINTS[16]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_kubernetes_request_that_hangs() {
    interrupt_at(&POINTS[17]).await;
}

/// A real SIGINT to the built binary, at two points: after the second unregister and in the
/// confirm window. It must print the summary on stderr and exit 130.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_to_the_binary_stops_safely() {
    let points = [
        (
            "SIGINT after the second unregister",
            gh("DELETE", "/actions/runners/", UNREGISTERED, 2),
            "2s",
        ),
        (
            "SIGINT in the confirm window",
            gh("DELETE", "/actions/runners/", &[204], 1),
            "3s",
        ),
    ];
    for (name, s, window) in points {
        let sb = sandbox(args!(WORLD)).await;
        let before = pod_names(&sb);
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit.jsonl");
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_arcctl"));
        cmd.args(args!(
            format!(
                "drain --all -A --yes --confirm-window {window} --poll-interval 100ms \
                 --max-unregister-rate 4/s --no-progress --audit-log"
            ),
            &audit
        ))
        .env_clear()
        .envs(sb.env())
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
        let child = cmd.spawn().expect("arcctl runs");
        let pid = child.id().expect("a pid").to_string();
        assert!(
            wait_for(&sb.world(), s).await,
            "{name}: the point was never reached"
        );
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
            .await
            .expect("arcctl ends after SIGINT")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{name}: {stderr}");
        assert!(
            stderr.contains(" selected: "),
            "{name}: summary printed\n{stderr}"
        );
        assert!(stderr.contains("interrupted"), "{name}: {stderr}");
        // Every runner the drain saw and that is still there is named in the summary.
        let after = pod_names(&sb);
        for b in before.iter().filter(|b| after.contains(b)) {
            assert!(
                stderr.contains(b.as_str()),
                "{name}: {b} unaccounted\n{stderr}"
            );
        }
        sb.stop_traffic();
        sb.settle().await;
        let wrong = unsafe_deletes(&audit::lines(&audit), &sb.report());
        assert!(wrong.is_empty(), "{name}: {wrong:#?}");
    }
}
