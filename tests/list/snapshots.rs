//! What `arcctl list` prints, byte for byte, for hand-built worlds that hold every ARC mode,
//! every state and every field the pods, EphemeralRunners and registrations carry: the table,
//! the wide table and the JSON and YAML documents. Taken before the fleet-scale rewrite of the
//! reads (paged GitHub lists, slim pod decoding, streamed JSON), which must leave them as they
//! are.
//!
//! The worlds are filled directly with fixed names, ids, uids (per seed) and creation times, so
//! only the tables' AGE column moves, and it is masked.

use std::fmt::Write as _;

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::store::{EPHEMERAL_RUNNERS, PODS};
use arcctl::sandbox::world::{Label, Registration, World};
use serde_json::{Value, json};

use super::readers::{items, mask_column, registration_template};
use super::{list, start};
use crate::support::*;

const NS: &str = "arc-runners";
const CREATED: &str = "2026-11-29T20:00:00Z";

/// A registration named `name` with GitHub id `id`.
fn reg(id: u64, name: &str) -> Registration {
    let mut r = registration_template();
    r.id = id;
    r.name = name.to_owned();
    r.labels.push(Label {
        id: 2,
        name: "linux".to_owned(),
        label_type: "read-only",
    });
    r
}

fn busy(mut r: Registration) -> Registration {
    r.busy = true;
    r.listed_busy = true;
    r
}

fn offline(mut r: Registration) -> Registration {
    r.status = "offline";
    r
}

/// An owner reference.
fn owner(api_version: &str, kind: &str, name: &str, uid: &str, controller: bool) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
           "controller": controller, "blockOwnerDeletion": true})
}

/// A running runner pod with the `runner` container ready, and a sidecar.
fn pod(name: &str, labels: Value, owners: Value, node: Option<&str>) -> Value {
    let mut spec = json!({"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.330.0"},
                                        {"name": "dind", "image": "docker:dind"}],
                          "restartPolicy": "Never", "serviceAccountName": "runner"});
    if let Some(node) = node {
        spec["nodeName"] = json!(node);
    }
    json!({
        "metadata": {
            "name": name,
            "creationTimestamp": CREATED,
            "labels": labels,
            "annotations": {"kubectl.kubernetes.io/default-container": "runner"},
            "ownerReferences": owners,
            "finalizers": ["actions.github.com/cleanup-protection"],
        },
        "spec": spec,
        "status": {
            "phase": "Running",
            "hostIP": "10.0.0.1",
            "podIP": "10.1.0.7",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [
                {"name": "dind", "ready": true, "restartCount": 0, "image": "docker:dind",
                 "imageID": "", "state": {"running": {"startedAt": "2026-11-29T20:00:04Z"}}},
                {"name": "runner", "ready": true, "restartCount": 1, "image": "ghcr.io/actions/actions-runner:2.330.0",
                 "imageID": "", "state": {"running": {"startedAt": "2026-11-29T20:00:05Z"}}},
            ],
        },
    })
}

fn scale_set_pod(name: &str, set: &str, node: Option<&str>) -> Value {
    pod(
        name,
        json!({"actions.github.com/scale-set-name": set, "actions-ephemeral-runner": "True",
               "app.kubernetes.io/component": "runner"}),
        json!([owner(
            "actions.github.com/v1alpha1",
            "EphemeralRunner",
            name,
            &format!("er-uid-{name}"),
            true
        )]),
        node,
    )
}

fn legacy_pod(name: &str, deployment: &str, runner_id: Option<u64>, node: Option<&str>) -> Value {
    let mut p = pod(
        name,
        json!({"actions-runner": "", "runner-deployment-name": deployment,
               "runner-template-hash": "6b8d9f"}),
        json!([owner(
            "actions.summerwind.dev/v1alpha1",
            "Runner",
            name,
            &format!("runner-uid-{name}"),
            true
        )]),
        node,
    );
    if let Some(id) = runner_id {
        p["metadata"]["annotations"]["actions-runner/id"] = json!(id.to_string());
    }
    p
}

fn statefulset_pod(name: &str, set: &str, runner_id: u64, node: Option<&str>) -> Value {
    let mut p = pod(
        name,
        json!({"actions-runner": "", "runnerset-name": set}),
        // A non-controlling owner first: the controller reference decides the mode.
        json!([
            owner("v1", "ConfigMap", "runner-config", "cm-uid", false),
            owner(
                "apps/v1",
                "StatefulSet",
                set,
                &format!("sts-uid-{set}"),
                true
            )
        ]),
        node,
    );
    p["metadata"]["annotations"]["actions-runner/id"] = json!(runner_id.to_string());
    p
}

fn ephemeral_runner(name: &str, status: Value) -> Value {
    json!({"metadata": {"name": name, "creationTimestamp": CREATED,
                        "finalizers": ["ephemeralrunner.actions.github.com/finalizer"]},
           "spec": {"githubConfigUrl": "https://github.com/sandbox-org"},
           "status": status})
}

/// Puts `p` into the world in `ns`.
fn add_pod(w: &mut World, ns: &str, p: Value) {
    w.store.create(PODS, Some(ns), p).unwrap();
}

fn add_er(w: &mut World, ns: &str, er: Value) {
    w.store.create(EPHEMERAL_RUNNERS, Some(ns), er).unwrap();
}

fn add_reg(w: &mut World, r: Registration) {
    w.registrations.insert(r.id, r);
}

fn log(w: &mut World, ns: &str, pod: &str, line: &str) {
    w.store
        .append_log(ns, pod, "runner", format!("2026-11-29 20:10:00Z: {line}"));
}

/// Snapshots go with the suite's others, in `tests/snapshots/`.
fn in_suite_snapshots() -> insta::internals::SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind_to_scope()
}

async fn start_world(w: World) -> Sandbox {
    install_tls();
    Sandbox::start_world(w).await.unwrap()
}

/// Every state, every ARC mode and every field `list` shows, one or two runners each.
fn every_state_world() -> World {
    let mut w = World::empty(options(args!("--runners 0 --seed 5")));
    let set = "arc-linux";
    // Scale set: idle, busy with the job on its EphemeralRunner, a runner id that disagrees,
    // one still starting (registered by its JIT config, offline), and a pod-only one.
    for (name, id, status) in [
        (
            "arc-linux-abcde-runner-idle1",
            61001,
            json!({"phase": "Running", "runnerId": 61001, "runnerName": "arc-linux-abcde-runner-idle1"}),
        ),
        (
            "arc-linux-abcde-runner-busy1",
            61002,
            json!({"phase": "Running", "runnerId": "61002", "jobId": 9001, "jobDisplayName": "build (linux)", "jobRepositoryName": "sandbox-org/web"}),
        ),
        (
            "arc-linux-abcde-runner-clash",
            61003,
            json!({"phase": "Running", "runnerId": 777_777, "jobId": ""}),
        ),
        (
            "arc-linux-abcde-runner-start",
            61004,
            json!({"runnerId": 0}),
        ),
        (
            "arc-linux-abcde-runner-nojob",
            61005,
            json!({"phase": "Running", "runnerId": 61005}),
        ),
    ] {
        add_er(&mut w, NS, ephemeral_runner(name, status));
        let mut p = scale_set_pod(name, set, Some("node-1"));
        if name.ends_with("start") {
            p["status"] = json!({"phase": "Pending", "containerStatuses": [
                {"name": "runner", "ready": false, "restartCount": 0, "image": "i", "imageID": "",
                 "state": {"waiting": {"reason": "ContainerCreating"}}}]});
        }
        add_pod(&mut w, NS, p);
        let r = reg(id, name);
        add_reg(
            &mut w,
            match name {
                n if n.ends_with("busy1") => busy(r),
                n if n.ends_with("start") => offline(r),
                // GitHub says busy, the EphemeralRunner names no job: the log tail does.
                n if n.ends_with("nojob") => busy(r),
                _ => r,
            },
        );
    }
    log(
        &mut w,
        NS,
        "arc-linux-abcde-runner-nojob",
        "Running job: lint",
    );
    add_er(
        &mut w,
        NS,
        ephemeral_runner(
            "arc-linux-abcde-runner-orphn",
            json!({"phase": "Running", "runnerId": 61099, "jobId": "9002", "jobDisplayName": "deploy"}),
        ),
    );
    add_pod(
        &mut w,
        NS,
        scale_set_pod("arc-linux-abcde-runner-orphn", set, Some("node-2")),
    );

    // Legacy RunnerDeployment: idle, busy (the job from its log), busy with no job anywhere,
    // an id that disagrees, offline, a pod that failed, and one not scheduled yet.
    let deploy = "rd-gpu";
    for (i, suffix) in ["idle", "busy", "nolog", "clash", "down", "fail", "unsch"]
        .iter()
        .enumerate()
    {
        let name = format!("rd-gpu-7f9c2-{suffix}");
        let id = 62001 + i as u64;
        let recorded = if *suffix == "clash" { 424_242 } else { id };
        let node = (*suffix != "unsch").then_some("node-2");
        let mut p = legacy_pod(&name, deploy, Some(recorded), node);
        if *suffix == "fail" {
            p["status"]["phase"] = json!("Failed");
            p["status"]["containerStatuses"][1]["state"] =
                json!({"terminated": {"exitCode": 1, "reason": "Error"}});
            p["status"]["containerStatuses"][1]["ready"] = json!(false);
        }
        if *suffix == "unsch" {
            p["status"] = json!({"phase": "Pending"});
        }
        add_pod(&mut w, NS, p);
        let mut r = reg(id, &name);
        r.labels.push(Label {
            id: 9,
            name: "gpu".to_owned(),
            label_type: "custom",
        });
        r.runner_group_id = 3;
        r.ephemeral = true;
        add_reg(
            &mut w,
            match *suffix {
                "busy" | "nolog" => busy(r),
                "down" => offline(r),
                _ => r,
            },
        );
    }
    log(&mut w, NS, "rd-gpu-7f9c2-busy", "Running job: train (a100)");
    log(
        &mut w,
        NS,
        "rd-gpu-7f9c2-busy",
        "Job train (a100) completed with result: Succeeded",
    );
    log(&mut w, NS, "rd-gpu-7f9c2-busy", "Running job: eval");

    // Legacy RunnerSet (StatefulSet-owned), and a runner pod with no owner at all.
    add_pod(
        &mut w,
        "team-b",
        statefulset_pod("rs-win-0", "rs-win", 63001, Some("node-3")),
    );
    let mut r = reg(63001, "rs-win-0");
    r.os = "windows".to_owned();
    r.version = None;
    add_reg(&mut w, r);
    let mut bare = pod(
        "bare-runner",
        json!({"actions-runner": ""}),
        json!([]),
        Some("node-3"),
    );
    bare["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("ownerReferences");
    add_pod(&mut w, "team-b", bare);
    let mut r = reg(63002, "bare-runner");
    r.labels.clear();
    r.os = String::new();
    add_reg(&mut w, r);

    // One name, two pods in two namespaces: conflicts, never a guess.
    add_pod(
        &mut w,
        NS,
        legacy_pod("dup-runner", deploy, None, Some("node-1")),
    );
    add_pod(
        &mut w,
        "team-b",
        legacy_pod("dup-runner", deploy, None, Some("node-3")),
    );
    add_reg(&mut w, reg(64001, "dup-runner"));
    // Two registrations of one name (on either side of the others' ids), one pod.
    add_pod(
        &mut w,
        NS,
        legacy_pod("twice", deploy, None, Some("node-1")),
    );
    add_reg(&mut w, reg(60001, "twice"));
    add_reg(&mut w, offline(reg(65001, "twice")));

    // A VM runner GitHub knows, no pod here; a busy one that went offline.
    add_reg(&mut w, reg(66001, "vm-runner-1"));
    add_reg(&mut w, offline(busy(reg(66002, "vm-runner-2"))));
    // Pods that are not ARC runners are not listed.
    add_pod(
        &mut w,
        NS,
        pod("web-7d9f", json!({"app": "web"}), json!([]), Some("node-1")),
    );
    w
}

#[tokio::test]
async fn every_state_and_mode_byte_for_byte() {
    let _snapshots = in_suite_snapshots();
    let sb = start_world(every_state_world()).await;
    let (code, table, err) = list(&sb, args!("list -A")).await;
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("every_state_table", mask_column(&table, "AGE"));
    insta::assert_snapshot!("every_state_summary", err);
    let (code, wide, _) = list(&sb, args!("list -A -o wide")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("every_state_wide", mask_column(&wide, "AGE"));
    let (code, doc, _) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0);
    super::readers::assert_matches_schema(&doc);
    insta::assert_snapshot!("every_state_json", doc);
    let (code, yaml, _) = list(&sb, args!("list -A -o yaml")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("every_state_yaml", yaml);
    // One namespace: the other's pods are not there, their registrations registration-only.
    let (code, out, _) = list(&sb, args!("list -n team-b -o wide")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("every_state_team_b_wide", mask_column(&out, "AGE"));
}

#[tokio::test]
async fn the_seeded_mixed_world_as_json() {
    let _snapshots = in_suite_snapshots();
    // The world of `table_snapshots_with_stable_data`: what the sandbox's own ARC makes.
    let sb = start(args!(
        "--mode mixed --runners 6 --busy 0.34 --job-rate 0 --job-duration 3600s --seed 42"
    ))
    .await;
    let (code, doc, _) = list(&sb, args!("list -A -o json")).await;
    assert_eq!(code, 0);
    insta::assert_snapshot!("seeded_mixed_json", mask_created(&doc));
}

/// The JSON document with each `createdAt` value replaced by `*` (the sandbox's ARC stamps
/// its pods with the time they were made).
fn mask_created(doc: &str) -> String {
    doc.lines()
        .map(|l| match l.find("\"createdAt\": \"") {
            Some(at) => format!("{}\"createdAt\": \"*\",", &l[..at]),
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// 1,200 runners in every mode and state over two namespaces: 12 GitHub pages and three pod
/// pages of 500, with two registrations of one name on different pages.
fn large_world() -> World {
    let mut w = World::empty(options(args!("--runners 0 --seed 9")));
    for i in 0..1_200u64 {
        let name = format!("fleet-{i:04}");
        let ns = if i % 3 == 0 { "arc-b" } else { NS };
        let node = format!("node-{}", i % 13);
        // Ids out of name order, so GitHub's page order (by id) is not the join's.
        let id = 200_000 + (i * 7_919) % 1_201;
        let registered = i % 50 != 2;
        let has_pod = i % 50 != 1;
        let is_busy = i % 7 == 0;
        let clash = i % 97 == 3;
        if has_pod {
            let mut p = match i % 4 {
                0 => {
                    let mut status = json!({"phase": "Running",
                        "runnerId": if clash { 1 } else { id }});
                    if is_busy && i % 2 == 0 {
                        status["jobId"] = json!(i);
                        status["jobDisplayName"] = json!(format!("job-{i}"));
                    }
                    add_er(&mut w, ns, ephemeral_runner(&name, status));
                    scale_set_pod(&name, "fleet-ss", Some(&node))
                }
                1 => legacy_pod(
                    &name,
                    "fleet-rd",
                    Some(if clash { 1 } else { id }),
                    Some(&node),
                ),
                2 => statefulset_pod(&name, "fleet-rs", if clash { 1 } else { id }, Some(&node)),
                _ => {
                    let mut p = pod(&name, json!({"actions-runner": ""}), json!([]), None);
                    p["metadata"]
                        .as_object_mut()
                        .unwrap()
                        .remove("ownerReferences");
                    p
                }
            };
            if i % 113 == 5 {
                p["status"]["phase"] = json!("Failed");
            }
            p["metadata"]["creationTimestamp"] =
                json!(format!("2026-11-29T{:02}:{:02}:00Z", i % 24, i % 60));
            add_pod(&mut w, ns, p);
            if is_busy && i % 4 != 0 && i % 3 != 0 {
                log(&mut w, ns, &name, &format!("Running job: job-{i}"));
            }
        }
        if registered {
            let mut r = reg(id, &name);
            if is_busy {
                r = busy(r);
            }
            if i % 11 == 0 {
                r = offline(r);
            }
            if i % 5 == 0 {
                r.labels.push(Label {
                    id: 20 + i % 3,
                    name: format!("pool-{}", i % 3),
                    label_type: "custom",
                });
            }
            add_reg(&mut w, r);
        }
    }
    // A second registration of `fleet-0004` far from the first in GitHub's order.
    add_reg(&mut w, offline(reg(299_999, "fleet-0004")));
    w
}

/// FNV-1a (64-bit): a stable digest of an output too long to keep whole.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[tokio::test]
async fn a_large_world_over_many_pages_byte_for_byte() {
    let _snapshots = in_suite_snapshots();
    let sb = start_world(large_world()).await;
    let mut summary = String::new();
    for (what, words) in [
        ("table", args!("list -A")),
        ("wide", args!("list -A -o wide")),
        ("json", args!("list -A -o json")),
        ("yaml", args!("list -A -o yaml")),
        ("name", args!("list -A -o name")),
        ("arc-b wide", args!("list -n arc-b -o wide")),
    ] {
        let (code, out, err) = list(&sb, words).await;
        assert_eq!(code, 0, "{what}: {err}");
        let out = if what.contains("wide") || what == "table" {
            mask_column(&out, "AGE")
        } else {
            out
        };
        writeln!(
            summary,
            "{what}: {} bytes, {} lines, fnv1a {:016x}",
            out.len(),
            out.lines().count(),
            fnv1a(&out)
        )
        .unwrap();
        if what == "table" {
            writeln!(summary, "  stderr: {}", err.trim_end()).unwrap();
        }
        if what == "json" {
            let items = items(&out);
            // 1,200 names, one of them with two registrations and one pod: three entries.
            assert_eq!(items.len(), 1_202);
            for i in [0, 4, 5, 6, 600, 1_201] {
                writeln!(summary, "  item {i}: {}", items[i]).unwrap();
            }
        }
    }
    let github = sb.report().requests.github;
    let pages = github
        .by_route
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/actions/runners"))
        .map(|r| r.count)
        .sum::<u64>();
    assert!(pages >= 13, "the runners came in pages: {pages}");
    insta::assert_snapshot!("large_world", summary);
}
