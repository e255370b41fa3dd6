//! `arcctl sandbox` as a command: the environment it hands to a command, its exit codes, the
//! report file, serve mode, and the in-process `Sandbox` API. Everything on 127.0.0.1; every
//! wait is bounded.

use std::process::Command;
use std::time::Duration;

use arcctl::context::{Context, Env};
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::store::PODS;
use arcctl::sandbox::world::lock;
use serde_json::Value;

use crate::support::{Invocation, kubectl};

/// Runs the built binary, outside any sandbox.
fn binary(args: Vec<String>) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arcctl"))
        .args(args)
        .env_remove("GITHUB_API_URL")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run arcctl")
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn a_command_gets_the_sandbox_environment_and_the_report_is_written() {
    let dir = temp_dir();
    let report = dir.path().join("r.json");
    let script = r#"echo "$GITHUB_API_URL $KUBECONFIG $ARCCTL_ORG"; test "$GH_TOKEN" = "$GITHUB_TOKEN" && test -n "$GH_TOKEN" && cat "$KUBECONFIG""#;
    let mut args = args!("sandbox --runners 5 --report", &report);
    args.extend(args!("-- sh -c", script));
    let out = binary(args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let first = stdout.lines().next().unwrap_or_default();
    let words: Vec<&str> = first.split(' ').collect();
    assert_eq!(words.len(), 3, "{first}");
    assert!(words[0].starts_with("http://127.0.0.1:"), "{first}");
    assert!(words[1].ends_with("kubeconfig"), "{first}");
    assert_eq!(words[2], "sandbox-org");
    assert!(stdout.contains("current-context: sandbox"), "{stdout}");
    assert!(stdout.contains("namespace: arc-runners"), "{stdout}");
    assert!(stdout.contains("server: http://127.0.0.1:"), "{stdout}");
    // The kubeconfig is gone with the sandbox.
    assert!(!std::path::Path::new(words[1]).exists());
    assert!(
        stderr.contains("jobs:     0 started, 0 completed, 0 running, 0 killed"),
        "{stderr}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(v["runners"]["registered"], 5);
    assert_eq!(v["runners"]["pods"], 5);
    assert_eq!(v["jobs"]["killed"], 0);
    assert_eq!(v["killed"], serde_json::json!([]));
    assert!(v["requests"]["github"]["total"].is_u64());
    assert!(v["requests"]["kube"]["by_status"].is_object());
    assert!(v["rate_limit_violations"].is_u64());
}

#[test]
fn the_exit_code_is_the_commands() {
    let out = binary(args!("sandbox --runners 1 -- sh -c", "exit 7"));
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sandbox verdict"));
    let out = binary(args!("sandbox --runners 1 -- sh -c", "kill -TERM $$"));
    assert_eq!(out.status.code(), Some(128 + 15), "a signal N is 128+N");
}

#[test]
fn a_command_that_cannot_start_exits_127() {
    let out = binary(args!(
        "sandbox --runners 1 -- /nonexistent/arcctl-test-command"
    ));
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("failed to start `/nonexistent/arcctl-test-command`"),
        "{stderr}"
    );
}

#[tokio::test]
async fn serve_mode_prints_exports_and_stops_on_interrupt() {
    let dir = temp_dir();
    let report = dir.path().join("serve.json");
    let (ctx, out, err) = Context::captured(Env::default());
    let interrupt = ctx.interrupt.clone();
    let args: Vec<std::ffi::OsString> = args!("arcctl sandbox --runners 3 --report", &report)
        .into_iter()
        .map(Into::into)
        .collect();
    let run = tokio::spawn(arcctl::run(args, ctx));
    let mut exports = String::new();
    for _ in 0..200 {
        exports = out.text();
        if exports.lines().count() >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    for name in [
        "GITHUB_API_URL",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "KUBECONFIG",
        "ARCCTL_ORG",
    ] {
        assert!(exports.contains(&format!("export {name}=")), "{exports}");
    }
    let url = exports
        .lines()
        .find_map(|l| l.strip_prefix("export GITHUB_API_URL="))
        .unwrap()
        .to_owned();
    let addr = url.strip_prefix("http://").unwrap();
    assert!(addr.starts_with("127.0.0.1:"));
    tokio::net::TcpStream::connect(addr)
        .await
        .expect("the fake GitHub listens");
    assert!(!run.is_finished(), "serves until interrupted");
    interrupt.trigger();
    let code = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("stops after the interrupt")
        .unwrap();
    assert_eq!(code, 0);
    assert!(err.text().contains("sandbox verdict"), "{}", err.text());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(v["runners"]["registered"], 3);
}

#[tokio::test]
async fn the_in_process_sandbox_api() {
    let args =
        arcctl::sandbox::options("--runners 4 --busy 0.5 --job-duration 600s".split_whitespace())
            .unwrap();
    let sandbox = Sandbox::start(args).await.unwrap();
    let env = sandbox.env();
    let get = |k: &str| {
        env.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(get("GITHUB_API_URL"), sandbox.github_url());
    assert_eq!(get("ARCCTL_ORG"), "sandbox-org");
    assert_eq!(get("GH_TOKEN"), lock(&sandbox.world()).token);
    assert_eq!(
        std::path::PathBuf::from(get("KUBECONFIG")),
        sandbox.kubeconfig_path()
    );
    assert!(sandbox.kubeconfig_path().is_file());
    for url in [sandbox.github_url(), sandbox.kube_url()] {
        let addr = url
            .strip_prefix("http://127.0.0.1:")
            .map(|p| format!("127.0.0.1:{p}"))
            .unwrap();
        tokio::net::TcpStream::connect(addr)
            .await
            .expect("listening");
    }
    // Kill the busy runners' jobs through the world, as a careless drain would.
    let world = sandbox.world();
    let busy: Vec<String> = {
        let w = lock(&world);
        w.registrations
            .values()
            .filter(|r| r.busy)
            .map(|r| r.name.clone())
            .collect()
    };
    assert_eq!(busy.len(), 2);
    for pod in &busy {
        lock(&sandbox.world())
            .delete_object(PODS, Some("arc-runners"), pod, None)
            .unwrap();
    }
    sandbox.stop_traffic();
    sandbox.settle().await;
    let report = sandbox.report();
    assert_eq!(report.jobs.killed, 2);
    assert_eq!(report.runners.pods, 4);
    assert!(!report.is_clean());
    let dir = sandbox.dir().to_owned();
    sandbox.shutdown().await;
    assert!(!dir.exists(), "the temp dir goes with the sandbox");
}

/// The check of docs/design.md §5: `kubectl delete pods --all` kills every running job.
#[test]
fn kubectl_deleting_every_pod_kills_every_busy_runners_job() {
    // The kubectl on PATH, or a failure saying it is missing.
    let kubectl = kubectl::path();
    for (mode, runners, busy) in [("scale-set", "50", 25), ("mixed", "10", 5)] {
        let dir = temp_dir();
        let report = dir.path().join("r.json");
        let mut args = args!(
            format!(
                "sandbox --mode {mode} --runners {runners} --busy 0.5 --job-rate 0 \
                 --job-duration 600s --report"
            ),
            &report
        );
        args.extend(args!("--", &kubectl));
        args.extend(args!("delete pods -n arc-runners --all"));
        let out = binary(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{mode}: {stderr}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(v["jobs"]["killed"], busy, "{mode}: {stderr}");
        assert_eq!(v["killed"].as_array().map(Vec::len), Some(busy));
        assert_eq!(v["jobs"]["running"], 0);
        // ARC replaced every runner; none is left stuck or dangling.
        assert_eq!(v["runners"]["pods"].as_u64(), runners.parse().ok());
        assert_eq!(v["runners"]["stuck"], 0);
        assert_eq!(v["runners"]["dangling_registrations"], 0);
        assert!(v["requests"]["kube"]["by_status"]["200"].as_u64() >= Some(busy as u64));
        assert!(stderr.contains(&format!("{busy} killed")), "{stderr}");
    }
}

#[tokio::test]
async fn live_traffic_runs_on_the_sandbox_clock() {
    let args = arcctl::sandbox::options(
        "--runners 4 --job-rate 20 --job-duration 100ms..300ms --seed 5".split_whitespace(),
    )
    .unwrap();
    let mut world = arcctl::sandbox::world::World::populated(args);
    world.timing.pod_start = Duration::from_millis(100);
    world.timing.reap = Duration::from_millis(50);
    let sandbox = Sandbox::start_world(world).await.unwrap();
    // Bounded wait for progress, not a timing assertion.
    for _ in 0..400 {
        if sandbox.report().jobs.completed >= 8 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    sandbox.stop_traffic();
    let report = sandbox.report();
    assert!(report.jobs.completed >= 8, "{report:?}");
    assert_eq!(report.jobs.killed, 0);
    // Completed ephemeral runners were replaced by fresh ones.
    for _ in 0..400 {
        let r = sandbox.report();
        if r.jobs.running == 0 && r.runners.registered == 4 && lock(&sandbox.world()).is_settled() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    sandbox.settle().await;
    let r = sandbox.report();
    assert_eq!(
        (r.jobs.running, r.runners.registered, r.runners.pods),
        (0, 4, 4),
        "{r:?}"
    );
    let events = lock(&sandbox.world()).events_since(0);
    assert!(
        events
            .iter()
            .any(|e| e.what.to_string().contains(" completed on "))
    );
    sandbox.shutdown().await;
}

/// `arcctl list`, in-process, sees the world as the sandbox built it: one runner per pod, the
/// busy ones busy with their job, per ARC mode.
#[tokio::test]
async fn arcctl_list_sees_the_sandbox_world() {
    let args = arcctl::sandbox::options(
        "--runners 6 --mode mixed --busy 0.5 --job-duration 600s".split_whitespace(),
    )
    .unwrap();
    let sandbox = Sandbox::start(args).await.unwrap();
    let run = Invocation::new(&sandbox).run(args!("list -o json")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    let busy: Vec<&Value> = items.iter().filter(|i| i["state"] == "busy").collect();
    assert_eq!(busy.len(), 3);
    assert!(busy.iter().all(|i| i["job"].is_string()));
    let modes: std::collections::BTreeSet<&str> =
        items.iter().filter_map(|i| i["mode"].as_str()).collect();
    assert_eq!(modes.len(), 3, "{modes:?}");
    let world = sandbox.world();
    for item in items {
        let w = lock(&world);
        let reg = &w.registrations[&item["id"].as_u64().unwrap()];
        assert_eq!(item["name"], serde_json::json!(reg.name));
        assert_eq!(item["pod"], item["name"]);
    }
    assert!(sandbox.report().requests.github.total > 0);
    assert!(sandbox.report().requests.kube.total > 0);
    sandbox.shutdown().await;
}

/// `arcctl sandbox --demo` shows the world, some traffic and a clean verdict (about 20 s).
#[test]
fn the_demo_shows_the_world_traffic_and_a_clean_verdict() {
    let dir = temp_dir();
    let report = dir.path().join("demo.json");
    let out = binary(args!("sandbox --demo --report", &report));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for part in [
        "24 runners",
        "the world at start:",
        "job traffic:",
        "the world now:",
        "node-1",
    ] {
        assert!(stdout.contains(part), "missing {part:?} in\n{stdout}");
    }
    assert!(stdout.contains(" started on "), "{stdout}");
    assert!(stderr.contains("no job killed"), "{stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        v["jobs"]["started"].as_u64() > Some(7),
        "more than the 7 busy at start"
    );
    assert_eq!(v["jobs"]["killed"], 0);
}
