//! `arcctl list` end to end against the in-process sandbox: every scope, selector, state and
//! output format, pagination, mixed ARC modes, and the error paths with their exit codes.

mod readers;
mod snapshots;

use std::collections::BTreeMap;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::store::{EPHEMERAL_RUNNERS, PODS};
use arcctl::sandbox::world::{Scope, lock};
use readers::*;
use serde_json::{Value, json};

use crate::support::fixtures::fixture;
use crate::support::*;

/// A sandbox from these `arcctl sandbox` words, settled: ARC's controllers are done with their
/// start-up work, so every list sees the same world.
async fn start(words: Vec<String>) -> Sandbox {
    let sb = sandbox(words).await;
    sb.settle().await;
    sb
}

/// Runs `arcctl ARGS` with the sandbox's environment: exit code, stdout, stderr.
async fn list(sb: &Sandbox, args: Vec<String>) -> (u8, String, String) {
    list_env(sb, args, &[], &[]).await
}

/// Like [`list`], with the sandbox's variables `unset` removed and `set` added or replaced.
async fn list_env(
    sb: &Sandbox,
    args: Vec<String>,
    unset: &[&str],
    set: &[(&str, &str)],
) -> (u8, String, String) {
    let mut inv = Invocation::new(sb);
    for k in unset {
        inv.env.remove(k);
    }
    for (k, v) in set {
        inv.env.set(*k, *v);
    }
    let run = inv.run(args).await;
    (run.code, run.stdout, run.stderr)
}

#[tokio::test]
async fn done_criterion_250_mixed_runners_joined_with_busy_as_reported() {
    let sb = start(args!(
        "--mode mixed --runners 250 --busy 0.3 --job-rate 0 --job-duration 600s"
    ))
    .await;
    let (code, out, err) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0, "{err}");
    assert_matches_schema(&out);
    let items = items(&out);
    assert_eq!(items.len(), 250);
    // Each runner joined with its pod.
    assert!(
        items
            .iter()
            .all(|i| i["pod"] == i["name"] && !i["id"].is_null()),
        "{out}"
    );
    let report = sb.report();
    let busy = items.iter().filter(|i| i["state"] == "busy").count() as u64;
    assert_eq!(busy, report.runners.busy);
    assert!(busy > 0);
    assert_eq!(
        items.iter().filter(|i| i["busy"] == true).count() as u64,
        busy
    );
    // Every busy runner names its job (EphemeralRunner status or the runner log).
    assert!(
        items
            .iter()
            .filter(|i| i["state"] == "busy")
            .all(|i| i["job"].is_string()),
        "{out}"
    );
    // Both modes, told apart by owner.
    let modes: BTreeMap<String, usize> = items.iter().fold(BTreeMap::new(), |mut m, i| {
        *m.entry(i["mode"].as_str().unwrap().to_owned()).or_default() += 1;
        m
    });
    assert!(modes.contains_key("scale-set"), "{modes:?}");
    assert!(modes.keys().any(|k| k.starts_with("legacy")), "{modes:?}");
    assert_eq!(err, "");
}

#[tokio::test]
async fn every_state_appears_when_the_world_makes_it() {
    let sb = start(args!(
        "--mode legacy --runners 8 --busy 0.25 --job-rate 0 --job-duration 600s"
    ))
    .await;
    let before = items(&list(&sb, args!("list -A -o json")).await.1);
    let idle: Vec<&Value> = before.iter().filter(|i| i["state"] == "idle").collect();
    assert!(idle.len() >= 4, "{before:?}");
    let (offline, orphan, conflict) = (name(idle[0]), name(idle[1]), name(idle[2]));
    {
        let world = sb.world();
        let mut w = lock(&world);
        // offline: GitHub lost contact.
        let id = reg_id(&w, &offline);
        w.registrations.get_mut(&id).unwrap().status = "offline";
        // pod-only: the registration is gone, the pod stays.
        let id = reg_id(&w, &orphan);
        w.registrations.remove(&id);
        // registration-only: a runner GitHub knows with no pod here (a VM).
        let mut vm = w.registrations.values().next().unwrap().clone();
        vm.id = 999_001;
        vm.name = "vm-runner-1".into();
        vm.busy = false;
        vm.listed_busy = false;
        vm.job = None;
        w.registrations.insert(vm.id, vm);
        // conflict: the pod records another runner id than GitHub's.
        let ns = namespace_of(&before, &conflict);
        w.store
            .merge_patch(
                PODS,
                Some(&ns),
                &conflict,
                &json!({"metadata": {"annotations": {"actions-runner/id": "424242"}}}),
            )
            .unwrap();
    }
    let (_, doc, _) = list(&sb, args!("list -A -o json")).await;
    // The document, with every state in it, matches the published schema.
    assert_matches_schema(&doc);
    let after = items(&doc);
    let state = |n: &str| after.iter().find(|i| i["name"] == n).unwrap()["state"].clone();
    assert_eq!(state(&offline), "offline");
    assert_eq!(state(&orphan), "pod-only");
    assert_eq!(state("vm-runner-1"), "registration-only");
    assert_eq!(state(&conflict), "conflict");
    let c = after
        .iter()
        .find(|i| i["name"] == conflict.as_str())
        .unwrap();
    assert_eq!(c["recordedRunnerId"], 424242);
    assert!(c["reason"].as_str().unwrap().contains("actions-runner/id"));
    assert!(after.iter().any(|i| i["state"] == "busy"));
    assert!(after.iter().any(|i| i["state"] == "idle"));

    // --state filters (repeatable), and the summary counts by state on stderr.
    let (code, out, err) = list(
        &sb,
        args!("list -A --state pod-only --state conflict -o name"),
    )
    .await;
    assert_eq!(code, 0);
    let mut want = vec![format!("runner/{orphan}"), format!("runner/{conflict}")];
    want.sort();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    assert_eq!(err, "");
    let (_, _, err) = list(&sb, args!("list -A")).await;
    assert!(err.contains("9 runners: "), "{err}");
    for s in [
        "idle",
        "busy",
        "1 offline",
        "1 pod-only",
        "1 registration-only",
        "1 conflict",
    ] {
        assert!(err.contains(s), "{err}");
    }
}

#[tokio::test]
async fn scale_set_conflict_from_ephemeral_runner_status() {
    let sb = start(args!("--mode scale-set --runners 3")).await;
    let before = items(&list(&sb, args!("list -A -o json")).await.1);
    let victim = name(&before[0]);
    let ns = namespace_of(&before, &victim);
    {
        let world = sb.world();
        let mut w = lock(&world);
        w.store
            .merge_patch(
                EPHEMERAL_RUNNERS,
                Some(&ns),
                &victim,
                &json!({"status": {"runnerId": 777_777}}),
            )
            .unwrap();
    }
    let after = items(&list(&sb, args!("list -A -o json")).await.1);
    let c = after.iter().find(|i| i["name"] == victim.as_str()).unwrap();
    assert_eq!(c["state"], "conflict");
    assert!(
        c["reason"].as_str().unwrap().contains("status.runnerId"),
        "{c}"
    );
    assert_eq!(c["mode"], "scale-set");
    assert_eq!(c["owner"]["kind"], "EphemeralRunner");
}

#[tokio::test]
async fn every_scope() {
    let sb = start(args!("--runners 6")).await;
    let all = items(&list(&sb, args!("list -A -o json")).await.1);
    let (r0, r1, e0) = (name(&all[0]), name(&all[1]), name(&all[2]));
    {
        let world = sb.world();
        let mut w = lock(&world);
        let org = w.options.org.clone();
        for (n, scope) in [
            (&r0, Scope::Repo(org.clone(), "web".into())),
            (&r1, Scope::Repo(org.clone(), "web".into())),
            (&e0, Scope::Enterprise("big-co".into())),
        ] {
            let id = reg_id(&w, n);
            w.registrations.get_mut(&id).unwrap().scope = scope;
        }
    }
    // --repo: its two runners are joined; the other pods have no registration there.
    let (code, out, err) = list_env(
        &sb,
        args!("list -A -o json --repo sandbox-org/web"),
        &["ARCCTL_ORG"],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let repo = items(&out);
    let joined: Vec<String> = repo
        .iter()
        .filter(|i| i["state"] == "idle")
        .map(name)
        .collect();
    assert_eq!(joined, vec![r0.clone(), r1.clone()]);
    assert_eq!(repo.iter().filter(|i| i["state"] == "pod-only").count(), 4);
    // ARCCTL_REPO works the same.
    let (code, out, _) = list_env(
        &sb,
        args!("list -A -o name --state idle"),
        &["ARCCTL_ORG"],
        &[("ARCCTL_REPO", "sandbox-org/web")],
    )
    .await;
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2);
    // --enterprise.
    let (code, out, err) = list_env(
        &sb,
        args!("list -A -o name --state idle --enterprise big-co"),
        &["ARCCTL_ORG"],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("runner/{e0}\n"));
    // --org (the flag overrides ARCCTL_ORG of the same kind): the three left.
    let (code, out, _) = list(&sb, args!("list -A -o name --state idle --org sandbox-org")).await;
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 3);
    // Two kinds at once: refused before any request.
    let (code, _, err) = list(&sb, args!("list -A --repo sandbox-org/web")).await;
    assert_eq!(code, 2);
    assert!(err.contains("ARCCTL_ORG and --repo"), "{err}");
}

#[tokio::test]
async fn selectors_and_filters() {
    let sb = start(args!("--mode mixed --runners 12 --nodes 3")).await;
    let all = items(&list(&sb, args!("list -A -o json")).await.1);
    assert_eq!(all.len(), 12);
    let names_of = |out: &str| {
        out.lines()
            .map(|l| l.trim_start_matches("runner/").to_owned())
            .collect::<Vec<_>>()
    };

    // --node: the field selector.
    let node = all[0]["node"].as_str().unwrap().to_owned();
    let want: Vec<String> = all
        .iter()
        .filter(|i| i["node"] == node.as_str())
        .map(name)
        .collect();
    let (_, out, _) = list(&sb, args!("list -A -o name --node", &node)).await;
    assert_eq!(names_of(&out), want);
    assert!(want.len() < 12);

    // --scale-set: scale-set and legacy names alike.
    let mut sets: Vec<String> = all
        .iter()
        .filter_map(|i| i["scaleSet"].as_str().map(str::to_owned))
        .collect();
    sets.dedup();
    for set in &sets {
        let want: Vec<String> = all
            .iter()
            .filter(|i| i["scaleSet"] == set.as_str())
            .map(name)
            .collect();
        let (_, out, _) = list(&sb, args!("list -A -o name --scale-set", set)).await;
        assert_eq!(names_of(&out), want, "scale set {set}");
    }
    assert!(sets.len() >= 2, "{sets:?}");

    // -l: a label selector the server applies.
    let (_, out, _) = list(&sb, args!("list -A -o name -l actions-ephemeral-runner")).await;
    let want: Vec<String> = all
        .iter()
        .filter(|i| i["mode"] == "scale-set")
        .map(name)
        .collect();
    assert_eq!(names_of(&out), want);

    // Positional names and globs.
    let first = name(&all[0]);
    let prefix: String = first.chars().take(5).collect();
    let (_, out, _) = list(&sb, args!("list -A -o name", &first)).await;
    assert_eq!(names_of(&out), vec![first.clone()]);
    let want: Vec<String> = all
        .iter()
        .map(name)
        .filter(|n| n.starts_with(&prefix))
        .collect();
    let (_, out, _) = list(&sb, args!("list -A -o name", format!("{prefix}*"))).await;
    assert_eq!(names_of(&out), want);

    // -n: only that namespace; the context's namespace by default.
    let ns = all[0]["namespace"].as_str().unwrap().to_owned();
    let (_, out, _) = list(&sb, args!(format!("list -n {ns} -o name"))).await;
    assert_eq!(
        out.lines().count(),
        all.iter().filter(|i| i["namespace"] == ns.as_str()).count()
    );
    let (_, default_ns, _) = list(&sb, args!("list -o name")).await;
    assert_eq!(default_ns, out);
    // A namespace with no runner pods: every registration is registration-only there.
    let (_, out, _) = list(&sb, args!("list -n elsewhere -o json")).await;
    assert!(
        items(&out)
            .iter()
            .all(|i| i["state"] == "registration-only")
    );

    // --label: GitHub labels, all must match.
    let label = all[0]["labels"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    let want: Vec<String> = all
        .iter()
        .filter(|i| {
            i["labels"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == label.as_str())
        })
        .map(name)
        .collect();
    let upper = label.to_uppercase();
    let (_, out, _) = list(
        &sb,
        args!(format!("list -A -o name --label {label} --label {upper}")),
    )
    .await;
    assert_eq!(names_of(&out), want);
    let (_, out, _) = list(
        &sb,
        args!(format!(
            "list -A -o name --label {label} --label no-such-label"
        )),
    )
    .await;
    assert_eq!(out, "");
}

#[tokio::test]
async fn runner_groups_by_name_and_id() {
    let sb = start(args!("--runners 5")).await;
    let all = items(&list(&sb, args!("list -A -o json")).await.1);
    let (a, b) = (name(&all[1]), name(&all[3]));
    {
        let world = sb.world();
        let mut w = lock(&world);
        w.runner_groups.push(arcctl::sandbox::world::RunnerGroup {
            id: 7,
            name: "gpu".into(),
            default: false,
        });
        for n in [&a, &b] {
            let id = reg_id(&w, n);
            w.registrations.get_mut(&id).unwrap().runner_group_id = 7;
        }
    }
    for spec in ["gpu", "7"] {
        let (code, out, err) = list(&sb, args!("list -A -o name --group", spec)).await;
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, format!("runner/{a}\nrunner/{b}\n"), "--group {spec}");
    }
    let (code, _, err) = list(&sb, args!("list -A --group nope")).await;
    assert_eq!(code, 1);
    assert!(
        err.contains("runner group `nope` not found in org `sandbox-org`"),
        "{err}"
    );
    assert!(err.contains("gpu (7)"), "{err}");
}

#[tokio::test]
async fn output_formats() {
    let sb = start(args!("--runners 3 --seed 7")).await;
    let (code, json_out, _) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(doc["apiVersion"], "arcctl/v1");
    assert_eq!(doc["kind"], "RunnerList");
    let (code, yaml_out, _) = list(&sb, args!("list -A -o yaml")).await;
    assert_eq!(code, 0);
    let yaml: Value = serde_yaml::from_str(&yaml_out).unwrap();
    assert_eq!(yaml, doc);
    let (_, names, _) = list(&sb, args!("list -A -o name")).await;
    let want: String = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("runner/{}\n", name(i)))
        .collect();
    assert_eq!(names, want);
    let (_, table, err) = list(&sb, args!("list -A")).await;
    assert!(table.starts_with("NAME "));
    assert_eq!(table.lines().count(), 4);
    assert_eq!(err, "3 runners: 3 idle\n");
    let (_, bare, _) = list(&sb, args!("list -A --no-headers")).await;
    assert_eq!(bare.lines().count(), 3);
    assert!(!bare.contains("NAME"));
    // Not a terminal: no colour, unless asked for.
    assert!(!table.contains('\x1b'));
    let (_, colored, _) = list(&sb, args!("list -A --color always")).await;
    assert!(colored.contains("\x1b[32midle\x1b[0m"), "{colored}");
    let (_, quiet, err) = list(&sb, args!("list -A -q")).await;
    // Same data (ages may have moved on by a second), no summary.
    assert_eq!(mask_column(&quiet, "AGE"), mask_column(&table, "AGE"));
    assert_eq!(err, "");
}

#[tokio::test]
async fn table_snapshots_with_stable_data() {
    // Fixed seed, no job traffic, a few long jobs: names, nodes and jobs are the same every
    // run; only AGE moves, and it is masked.
    let sb = start(args!(
        "--mode mixed --runners 6 --busy 0.34 --job-rate 0 --job-duration 3600s --seed 42"
    ))
    .await;
    let (code, table, _) = list(&sb, args!("list -A")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("list_table", mask_column(&table, "AGE"));
    let (code, wide, _) = list(&sb, args!("list -A -o wide")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("list_wide", mask_column(&wide, "AGE"));
}

#[tokio::test]
async fn pagination_beyond_100_runners() {
    let sb = start(args!("--runners 250")).await;
    let (code, out, _) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0);
    assert_eq!(items(&out).len(), 250);
    let report = sb.report();
    let pages = report
        .requests
        .github
        .by_route
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/actions/runners"))
        .map(|r| r.count)
        .sum::<u64>();
    assert_eq!(pages, 3, "per_page=100: 100 + 100 + 50");
}

#[tokio::test]
async fn ten_thousand_runners() {
    // The world is filled directly (10,000 registrations, 10,000 legacy runner pods on 50
    // nodes, a fifth of them busy with a job in their log): what is measured here is `list`,
    // not the simulation's start-up.
    let mut world = arcctl::sandbox::world::World::empty(options(args!("--runners 0")));
    let template = registration_template();
    for i in 0..10_000u64 {
        let name = format!("big-{i:05}");
        let mut reg = template.clone();
        reg.id = 100_000 + i;
        reg.name = name.clone();
        reg.busy = i % 5 == 0;
        reg.listed_busy = reg.busy;
        world.registrations.insert(reg.id, reg);
        let pod = json!({
            "metadata": {
                "name": name,
                "labels": {"actions-runner": "", "runner-deployment-name": "big"},
                "annotations": {"actions-runner/id": (100_000 + i).to_string()},
            },
            "spec": {"nodeName": format!("node-{}", i % 50), "containers": [{"name": "runner"}]},
            "status": {"phase": "Running"},
        });
        world.store.create(PODS, Some("arc-runners"), pod).unwrap();
        if i % 5 == 0 {
            world.store.append_log(
                "arc-runners",
                &name,
                "runner",
                format!("2026-11-29 22:00:00Z: Running job: job-{i}"),
            );
        }
    }
    let sb = arcctl::sandbox::Sandbox::start_world(world).await.unwrap();
    let (code, out, err) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0, "{err}");
    let items = items(&out);
    assert_eq!(items.len(), 10_000);
    assert!(items.iter().all(|i| i["pod"] == i["name"]));
    let busy: Vec<&Value> = items.iter().filter(|i| i["state"] == "busy").collect();
    assert_eq!(busy.len(), 2_000);
    assert_eq!(busy[1]["job"], "job-5");
    let (code, out, err) = list(&sb, args!("list -A --node node-7 --state idle -o name")).await;
    assert_eq!(code, 0, "{err}");
    // Pod i is on node i % 50 and busy when i % 5 == 0: node-7's 200 are idle, node-10's busy.
    assert_eq!(out.lines().count(), 200);
    let (_, out, _) = list(&sb, args!("list -A --node node-10 --state idle -o name")).await;
    assert_eq!(out, "");
    let (code, _, err) = list(&sb, args!("list -A")).await;
    assert_eq!(code, 0);
    assert_eq!(err, "10000 runners: 8000 idle, 2000 busy\n");
}

#[tokio::test]
async fn a_bad_token_is_exit_4_and_never_printed() {
    let sb = start(args!("--runners 2")).await;
    let (code, out, err) = list_env(
        &sb,
        args!("list -A"),
        &[],
        &[("GH_TOKEN", "ghp_wrong_and_secret")],
    )
    .await;
    assert_eq!(code, 4, "{err}");
    assert_eq!(out, "");
    assert!(
        err.starts_with("error: failed to list runners for org `sandbox-org`\n"),
        "{err}"
    );
    assert!(
        err.contains("GitHub rejected the token from GH_TOKEN (401 Bad credentials)"),
        "{err}"
    );
    assert!(err.contains("admin:org"), "{err}");
    assert!(!err.contains("ghp_wrong_and_secret"));
}

#[tokio::test]
async fn an_unknown_org_is_not_found_or_not_visible() {
    let sb = start(args!("--runners 2")).await;
    let (code, _, err) = list(&sb, args!("list -A --org nope")).await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`nope` not found or not visible to this token"),
        "{err}"
    );
}

#[tokio::test]
async fn an_unreachable_api_names_the_url() {
    let sb = start(args!("--runners 2")).await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let (code, _, err) = list_env(&sb, args!("list -A"), &[], &[("GITHUB_API_URL", &closed)]).await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("could not reach GitHub at {closed}/")),
        "{err}"
    );
    assert!(err.contains("Connection refused"), "{err}");
}

#[tokio::test]
async fn kubeconfig_problems_are_usage_errors() {
    let sb = start(args!("--runners 2")).await;
    let (code, _, err) = list(&sb, args!("list -A --context nope")).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("context `nope` not found in the kubeconfig"),
        "{err}"
    );
    assert!(
        err.contains("sandbox"),
        "the hint lists the contexts: {err}"
    );
    let bad = sb.dir().join("broken-kubeconfig");
    std::fs::write(&bad, "apiVersion: v1\nclusters: {{{").unwrap();
    let (code, _, err) = list_env(
        &sb,
        args!("list -A"),
        &[],
        &[("KUBECONFIG", bad.to_str().unwrap())],
    )
    .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is malformed"), "{err}");
}

#[tokio::test]
async fn a_forbidden_namespace_is_exit_4_naming_verb_and_resource() {
    let sb = start(args!("--runners 2 --forbid-namespace arc-runners")).await;
    let (code, out, err) = list(&sb, args!("list -n arc-runners")).await;
    assert_eq!(code, 4, "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("Kubernetes denied `list` on `pods` in namespace `arc-runners`")
            || err.contains(
                "Kubernetes denied `list` on `ephemeralrunners` in namespace `arc-runners`"
            ),
        "{err}"
    );
    // Across all namespaces, the cluster-wide list is denied too.
    let (code, _, _) = list(&sb, args!("list -A")).await;
    assert_eq!(code, 4);
}

#[tokio::test]
async fn github_app_authentication() {
    let key = fixture("sandbox-app-test-key.pem");
    let public = fixture("sandbox-app-test-key.pub.pem");
    let sb = start(args!("--runners 3 --app-id 321 --app-public-key", &public)).await;
    // The App wins over the tokens in the environment; drop them anyway to prove it.
    let (code, out, err) = list_env(
        &sb,
        args!("list -A -o name --app-id 321 --app-key", &key),
        &["GH_TOKEN", "GITHUB_TOKEN"],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 3);
    // A wrong App id is refused by GitHub: exit 4, naming the App.
    let (code, _, err) = list_env(
        &sb,
        args!("list -A --app-id 999 --app-key", &key),
        &["GH_TOKEN", "GITHUB_TOKEN"],
        &[],
    )
    .await;
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("GitHub App 999"), "{err}");
}

#[tokio::test]
async fn transient_github_faults_are_retried() {
    // Only GitHub requests draw faults, one after another, so the seed fixes which fail.
    let sb = start(args!(
        "--runners 250 --fault github-5xx=0.3 --fault github-reset=0.2 --seed 11"
    ))
    .await;
    let (code, out, err) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(items(&out).len(), 250);
    let github = sb.report().requests.github;
    assert!(
        github.total > 3,
        "some pages were retried: {:?}",
        github.by_status
    );
}

#[tokio::test]
async fn kube_server_errors_are_retried() {
    // With this seed three of the first five draws are faults and two are not: whichever way
    // the pod and EphemeralRunner lists interleave, neither sees four faults in a row.
    let sb = start(args!("--runners 20 --fault kube-5xx=0.5 --seed 1")).await;
    let (code, out, err) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(items(&out).len(), 20);
    let kube = sb.report().requests.kube;
    assert!(
        kube.by_status.contains_key("500"),
        "a fault struck: {:?}",
        kube.by_status
    );
}

#[tokio::test]
async fn an_interrupt_stops_the_list_with_130() {
    let sb = start(args!("--runners 2")).await;
    let inv = Invocation::new(&sb);
    inv.interrupt.trigger();
    let run = inv.run(args!("list -A")).await;
    assert_eq!(run.code, 130);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "error: interrupted\n");
}
