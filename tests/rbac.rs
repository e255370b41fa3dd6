//! The RBAC of `docs/deploy.md`, enforced by the sandbox (`--rbac FILE`): every request that
//! `list` and `drain` send in each ARC mode is allowed by it (no 403 at all), and without one
//! of its rules arcctl stops with exit 4 naming the verb and resource that was denied.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::sandbox::Sandbox;

use crate::support::*;

/// The ```yaml blocks of docs/deploy.md, as one multi-document YAML text.
fn documented_rbac() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/deploy.md"))
        .expect("docs/deploy.md");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            None if line.trim_end() == "```yaml" => current = Some(String::new()),
            Some(block) if line.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    assert!(
        blocks.iter().any(|b| b.contains("kind: ClusterRole\n")),
        "docs/deploy.md has a ClusterRole in a ```yaml block"
    );
    blocks.join("---\n")
}

/// `rules` without `from` (which must be there), as the sandbox's `--rbac` file.
fn rbac_file(dir: &std::path::Path, from: &str, to: &str) -> String {
    let rules = documented_rbac();
    assert!(
        from.is_empty() || rules.contains(from),
        "{from:?} not in the docs"
    );
    let path = dir.join("rbac.yaml");
    let text = if from.is_empty() {
        rules
    } else {
        rules.replacen(from, to, 1)
    };
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

async fn rbac_sandbox(file: &str, extra: Vec<String>) -> Sandbox {
    let mut words = args!("--rbac", file);
    words.extend(extra);
    sandbox(words).await
}

/// `arcctl ARGS` with the `FAST` profile.
async fn drain(sb: &Sandbox, args: Vec<String>) -> Run {
    arcctl(sb, fast(args)).await
}

fn forbidden(sb: &Sandbox) -> u64 {
    sb.report()
        .requests
        .kube
        .by_status
        .get("403")
        .copied()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_rbac_allows_everything_arcctl_sends() {
    let dir = tempfile::tempdir().unwrap();
    let file = rbac_file(dir.path(), "", "");
    for mode in ["scale-set", "legacy", "mixed"] {
        let sb = rbac_sandbox(
            &file,
            args!(format!("--mode {mode} --runners 8 --nodes 2 --busy 0.25")),
        )
        .await;
        let run = arcctl(&sb, args!("list -A -o wide")).await;
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        let run = arcctl(&sb, args!("list -n arc-runners -o json")).await;
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        // A node drain with cordon, then everything else.
        // Busy runners are skipped (exit 3); nothing may be denied (exit 4).
        let run = drain(&sb, args!("drain --node node-1 --cordon --yes -o json")).await;
        assert!(
            run.code == 0 || run.code == 3,
            "{mode}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let run = drain(&sb, args!("drain -A --all --yes -o json")).await;
        assert!(
            run.code == 0 || run.code == 3,
            "{mode}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let r = sb.report();
        assert!(
            count(&r, false, "DELETE", "") >= 1 && count(&r, false, "PATCH", "/nodes/") >= 1,
            "{mode}: the flows deleted and cordoned something"
        );
        assert_eq!(forbidden(&sb), 0, "{mode}: {:?}", r.requests.kube.by_route);
        assert_eq!(r.jobs.killed, 0);
    }
}

/// ARC mode, rule text, its replacement, arcctl's arguments, the verb and resource denied.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_rule_arcctl_stops_with_exit_4_naming_verb_and_resource() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [Case; 5] = [
        (
            "scale-set",
            "resources: [\"nodes\"]\n    verbs: [\"get\", \"patch\"]",
            "resources: [\"nodes\"]\n    verbs: [\"get\"]",
            "drain --node node-1 --cordon --yes",
            "`patch`",
            "`nodes`",
        ),
        (
            "scale-set",
            "verbs: [\"get\", \"list\", \"delete\", \"patch\"]",
            "verbs: [\"get\", \"delete\", \"patch\"]",
            "list -A",
            "`list`",
            "`pods`",
        ),
        (
            "scale-set",
            "resources: [\"pods/log\"]",
            "resources: [\"pods/exec\"]",
            "drain -A --all --yes",
            "`get`",
            "`pods/log`",
        ),
        (
            "scale-set",
            "resources: [\"ephemeralrunners\"]\n    verbs: [\"get\", \"list\", \"delete\"]",
            "resources: [\"ephemeralrunners\"]\n    verbs: [\"get\", \"list\"]",
            "drain -A --all --yes",
            "`delete`",
            "`ephemeralrunners`",
        ),
        (
            "legacy",
            "verbs: [\"get\", \"list\", \"delete\", \"patch\"]",
            "verbs: [\"get\", \"list\", \"delete\"]",
            "drain -A --all --yes",
            "`patch`",
            "`pods`",
        ),
    ];
    for (mode, from, to, args, verb, resource) in cases {
        let file = rbac_file(dir.path(), from, to);
        let sb = rbac_sandbox(&file, args!(format!("--mode {mode} --runners 3"))).await;
        let args = if args.starts_with("drain") {
            fast(args!(args))
        } else {
            args!(args)
        };
        let run = arcctl(&sb, &args).await;
        assert_eq!(run.code, 4, "{args:?}: {}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(verb) && run.stderr.contains(resource),
            "{args:?} should name {verb} on {resource}: {}",
            run.stderr
        );
        assert!(forbidden(&sb) >= 1);
        sb.settle().await;
        assert_eq!(sb.report().jobs.killed, 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_rbac_file_is_refused_at_start() {
    install_tls();
    let err = match Sandbox::start(options(args!("--rbac /nonexistent/rbac.yaml"))).await {
        Ok(_) => panic!("the sandbox started without its RBAC file"),
        // As `arcctl sandbox` reports it.
        Err(e) => arcctl::error::Error::from(e),
    };
    assert_eq!(err.exit_code(), 2);
    assert!(err.message().contains("/nonexistent/rbac.yaml"));
}
