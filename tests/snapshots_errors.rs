//! Whole-run snapshots of what the operator sees when GitHub or Kubernetes says no (issue 11):
//! the whole stderr and the exit code of a drain whose cordon is denied, whose pod list or
//! runner list is denied, whose EphemeralRunner delete is denied, and whose unregister is
//! denied, and of a recreate stopped by a denied delete. Each error appears once, with its hint, at the end: the rows and event lines name
//! what was denied, and the error says why and what to do. Then the cordon as a named step:
//! the dry run of a node drain with and without the cordon, and the prompt that names it.
//!
//! Kubernetes denials come from an RBAC file (`--rbac`) that allows everything arcctl sends
//! except one verb on one resource; GitHub's from the token: a wrong one for the list, and the
//! token revoked after the first unregister for the unregister (the sandbox then answers 401
//! `Bad credentials`, which arcctl treats like a 403 that is not a rate limit: the run stops,
//! exit 4).
//!
//! The tests run on a current-thread runtime with `--concurrency 1` and unregisters paced five
//! seconds apart, so runners reach the pacer in plan order and each event line comes well away
//! from the next; two runners where a denial stops the rest (two runners stopped at once would
//! print their lines in either order). A runner's notice that its registration was deleted is
//! put out of reach, so an idle runner is proven by the end of its confirm window. Only
//! 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use std::sync::Arc;
use std::time::Duration;

use arcctl::context::ScriptedPrompter;
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::lock;

use crate::support::*;

/// Every resource and verb arcctl sends, by API group (the rules of docs/deploy.md, plus
/// `watch` and `list` where a client might use them).
const RULES: &[(&str, &str, &[&str])] = &[
    ("", "pods", &["get", "list", "watch", "delete", "patch"]),
    ("", "pods/log", &["get"]),
    ("", "nodes", &["get", "list", "patch"]),
    (
        "actions.github.com",
        "ephemeralrunners",
        &["get", "list", "watch", "delete"],
    ),
    (
        "actions.summerwind.dev",
        "runners",
        &["get", "list", "watch", "delete"],
    ),
];

/// A ClusterRole allowing everything in [`RULES`] except `verb` on `resource`, written to
/// `dir`; returns its path.
fn rbac_without(dir: &std::path::Path, verb: &str, resource: &str) -> String {
    let mut text = String::from(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: arcctl\nrules:\n",
    );
    let mut removed = false;
    for (group, res, verbs) in RULES {
        let kept: Vec<String> = verbs
            .iter()
            .filter(|v| {
                let deny = *res == resource && **v == verb;
                removed |= deny;
                !deny
            })
            .map(|v| format!("\"{v}\""))
            .collect();
        text.push_str(&format!(
            "  - apiGroups: [\"{group}\"]\n    resources: [\"{res}\"]\n    verbs: [{}]\n",
            kept.join(", ")
        ));
    }
    assert!(removed, "{verb} on {resource} is not among the rules");
    let path = dir.join(format!(
        "rbac-without-{verb}-{}.yaml",
        resource.replace('/', "-")
    ));
    std::fs::write(&path, text).expect("write the RBAC file");
    let path = path.to_string_lossy().into_owned();
    assert!(!path.contains(' '), "the sandbox words are split at spaces");
    path
}

/// A sandbox from `arcctl sandbox` words, with idle runners proven by their confirm window.
async fn start(words: &str) -> Sandbox {
    let mut world = populated(args!(words));
    world.timing.notice_min = Duration::from_secs(300);
    world.timing.notice_max = Duration::from_secs(300);
    Sandbox::start_world(world).await.expect("sandbox starts")
}

/// How every drain here runs: no prompt, one call at a time, unregisters five seconds apart,
/// the shortest confirm window.
const PACED: &str = "--yes --concurrency 1 --max-unregister-rate 1/5s --confirm-window 2s";

/// `arcctl drain PACED ARGS` with the environment `how` was made with (its token: a test may
/// change the sandbox's afterwards).
async fn drain_as(how: Invocation, args: &str) -> Run {
    how.run(args!(format!("drain {PACED} {args}"))).await
}

async fn drain(sb: &Sandbox, args: &str) -> Run {
    drain_as(Invocation::new(sb), args).await
}

/// How often `needle` appears in `haystack`.
fn occurrences(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// Checks what every denial's stderr must show, then snapshots it with its exit code: exit 4,
/// one `error:` block whose headline is `headline`, `cause` (GitHub's or Kubernetes' own
/// words) once, one `hint:` line, and no error rendered inside another.
fn snapshot(name: &str, what: &str, run: &Run, headline: &str, cause: &str) {
    let s = &run.stderr;
    assert_eq!(run.code, 4, "{s}");
    assert_eq!(occurrences(s, "error: "), 1, "one error, told once:\n{s}");
    assert_eq!(
        occurrences(s, &format!("error: {headline}\n")),
        1,
        "the headline:\n{s}"
    );
    assert_eq!(occurrences(s, cause), 1, "the cause, once:\n{s}");
    assert_eq!(occurrences(s, "hint: "), 1, "one hint:\n{s}");
    let mut settings = insta::Settings::clone_current();
    settings.set_description(what);
    settings.bind(|| {
        insta::assert_snapshot!(name, format!("exit code: {}\n{s}", run.code));
    });
}

/// `--node node-1` cordons the node first; without `patch` on `nodes` nothing else happens.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_cordon() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rbac = rbac_without(dir.path(), "patch", "nodes");
    let sb = start(&format!("--runners 3 --job-rate 0 --seed 3 --rbac {rbac}")).await;
    let run = drain(&sb, "-A --node node-1").await;
    snapshot(
        "denied_cordon",
        "drain --node node-1 without `patch` on `nodes`: the cordon is denied, nothing else is done",
        &run,
        "failed to cordon node `node-1`",
        "cannot patch resource \"nodes\"",
    );
    // The refused PATCH of the node, and nothing else.
    let r = sb.report();
    assert_eq!(mutating_requests(&r), 1);
    assert_eq!(count(&r, false, "PATCH", "nodes"), 1);
}

/// Without `list` on `pods` the inventory cannot be gathered: nothing is touched.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_pod_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rbac = rbac_without(dir.path(), "list", "pods");
    let sb = start(&format!("--runners 3 --job-rate 0 --seed 3 --rbac {rbac}")).await;
    let run = drain(&sb, "-A --all").await;
    snapshot(
        "denied_pod_list",
        "drain --all -A without `list` on `pods`: the pod list is denied before anything is done",
        &run,
        "failed to list runner pods in all namespaces",
        "cannot list resource \"pods\"",
    );
    assert_eq!(mutating_requests(&sb.report()), 0);
}

/// A token GitHub does not know: the runner list is refused with 401.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_runner_list() {
    let sb = start("--runners 3 --job-rate 0 --seed 3").await;
    let how = Invocation::new(&sb);
    lock(&sb.world()).token = "ghp_revoked".into();
    let run = drain_as(how, "-A --all").await;
    snapshot(
        "denied_runner_list",
        "drain --all -A with a token GitHub does not know: the runner list is refused (401) before anything is done",
        &run,
        "failed to list runners for org `sandbox-org`",
        "Bad credentials",
    );
    assert_eq!(mutating_requests(&sb.report()), 0);
}

/// Without `delete` on `ephemeralrunners`: the first runner is unregistered and proven idle,
/// then its delete is denied and the run stops; the second is never unregistered.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_ephemeralrunner_delete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rbac = rbac_without(dir.path(), "delete", "ephemeralrunners");
    let sb = start(&format!("--runners 2 --job-rate 0 --seed 3 --rbac {rbac}")).await;
    let run = drain(&sb, "-A --all").await;
    snapshot(
        "denied_ephemeralrunner_delete",
        "drain --all -A of 2 scale-set runners without `delete` on `ephemeralrunners`: the first runner's delete is denied after its unregister, the run stops, the second is untouched",
        &run,
        "the drain stopped: permission denied",
        "cannot delete resource \"ephemeralrunners\"",
    );
    let r = sb.report();
    assert_eq!(count(&r, true, "DELETE", ""), 1, "one unregister");
    assert_eq!(count(&r, false, "DELETE", "ephemeralrunners"), 1);
    assert_eq!(r.jobs.killed, 0);
}

/// The token is revoked once the first unregister went out: the first runner is drained, the
/// second's unregister is refused (401) and the run stops; the third is never unregistered.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_unregister() {
    let sb = start("--runners 3 --job-rate 0 --seed 3").await;
    let world = sb.world();
    let revoke = tokio::spawn(async move {
        // Bounded: 30 s of polling.
        for _ in 0..3000 {
            {
                let mut w = lock(&world);
                let unregisters: u64 = w
                    .stats
                    .github
                    .iter()
                    .filter(|((m, _, _), _)| m == "DELETE")
                    .map(|(_, c)| *c)
                    .sum();
                if unregisters >= 1 {
                    w.token = "ghp_revoked".into();
                    return true;
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    });
    let run = drain(&sb, "-A --all").await;
    assert!(
        revoke.await.expect("the revoking task"),
        "the token was revoked"
    );
    snapshot(
        "denied_unregister",
        "drain --all -A of 3 runners, the token revoked after the first unregister: the first drained, the second's unregister refused (401), the run stops, the third untouched",
        &run,
        "the drain stopped: permission denied",
        "Bad credentials",
    );
    let r = sb.report();
    assert_eq!(count(&r, true, "DELETE", ""), 2, "two unregisters");
    assert_eq!(r.jobs.killed, 0);
}

/// The dry run of a node drain says it would cordon the node first (on stderr, beside the
/// plan on stdout), and says nothing of a cordon with `--no-cordon`; neither changes anything.
#[tokio::test(flavor = "current_thread")]
async fn the_dry_run_of_a_node_drain_names_the_cordon() {
    let sb = start("--runners 3 --job-rate 0 --seed 3 --nodes 1").await;
    let mut shown = String::new();
    for flags in ["", " --no-cordon"] {
        let line = format!("drain -A --node node-1 --dry-run{flags}");
        let run = arcctl(&sb, args!(line)).await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            occurrences(&run.stderr, "would cordon node/node-1 first"),
            usize::from(flags.is_empty()),
            "{}",
            run.stderr
        );
        shown.push_str(&format!(
            "$ arcctl {line}\nexit code: {}\n--- stderr\n{}--- stdout\n{}\n",
            run.code, run.stderr, run.stdout
        ));
    }
    assert_eq!(mutating_requests(&sb.report()), 0);
    let mut settings = insta::Settings::clone_current();
    settings.set_description(
        "drain --node node-1 --dry-run, then with --no-cordon: the plan, and the cordon named only when it would happen",
    );
    settings.bind(|| insta::assert_snapshot!("dry_run_cordon", shown));
}

/// The prompt names the cordon; declining it cordons nothing.
#[tokio::test(flavor = "current_thread")]
async fn the_prompt_names_the_cordon() {
    let sb = start("--runners 3 --job-rate 0 --seed 3 --nodes 1").await;
    let no = Arc::new(ScriptedPrompter::new(false));
    let mut how = Invocation::new(&sb).on_a_terminal();
    how.prompter = Some(Arc::clone(&no));
    let run = how.run(args!("drain -A --node node-1 --no-progress")).await;
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert_eq!(
        no.asked(),
        [
            "Drain 3 runners of org `sandbox-org` in context `sandbox`, all namespaces (will cordon node/node-1 first)?"
        ]
    );
    assert_eq!(mutating_requests(&sb.report()), 0);
}

/// `recreate` stops at a denied EphemeralRunner delete as `drain` does: the batch's runner
/// named in its row, the error once at the end, no further batch.
#[tokio::test(flavor = "current_thread")]
async fn a_denied_delete_stops_a_recreate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rbac = rbac_without(dir.path(), "delete", "ephemeralrunners");
    let sb = start(&format!("--runners 2 --job-rate 0 --seed 3 --rbac {rbac}")).await;
    let run = arcctl(&sb, args!(format!("recreate {PACED} -A --all"))).await;
    snapshot(
        "denied_delete_recreate",
        "recreate --all -A of 2 scale-set runners without `delete` on `ephemeralrunners`: batch 1's delete is denied after its unregister, no further batch",
        &run,
        "the recreate stopped: permission denied",
        "cannot delete resource \"ephemeralrunners\"",
    );
    let r = sb.report();
    assert_eq!(count(&r, true, "DELETE", ""), 1, "one unregister");
    assert_eq!(r.jobs.killed, 0);
}
