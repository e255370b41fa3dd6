//! The simulated world, without HTTP: population per ARC mode, job traffic, the controller's
//! reactions, the faults that belong to the world, and the report. Time is stepped with
//! `World::tick`, never slept on.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use arcctl::sandbox::store::{
    self, AUTOSCALING_RUNNER_SETS, EPHEMERAL_RUNNER_SETS, EPHEMERAL_RUNNERS, FieldSelector,
    LabelSelector, NODES, PODS, RUNNER_DEPLOYMENTS, RUNNER_REPLICA_SETS, RUNNER_SETS, RUNNERS,
    ResourceType, STATEFUL_SETS,
};
use arcctl::sandbox::world::{Unregister, World};
use serde_json::{Value, json};

use crate::support::{NS, populated};

fn list(w: &World, rt: ResourceType) -> Vec<Value> {
    w.store
        .list(
            rt,
            None,
            &LabelSelector::default(),
            &FieldSelector::default(),
        )
        .into_iter()
        .cloned()
        .collect()
}

fn name(o: &Value) -> String {
    o["metadata"]["name"].as_str().unwrap().to_owned()
}

fn names(w: &World, rt: ResourceType) -> BTreeSet<String> {
    list(w, rt).iter().map(name).collect()
}

fn owner(o: &Value) -> &Value {
    &o["metadata"]["ownerReferences"][0]
}

fn registration_names(w: &World) -> BTreeSet<String> {
    w.registrations.values().map(|r| r.name.clone()).collect()
}

fn busy_names(w: &World) -> BTreeSet<String> {
    w.registrations
        .values()
        .filter(|r| r.busy)
        .map(|r| r.name.clone())
        .collect()
}

/// Steps the world `secs` seconds past `t0`.
fn step(w: &mut World, t0: Instant, secs: f64) {
    w.tick(t0 + Duration::from_secs_f64(secs));
}

fn delete(w: &mut World, rt: ResourceType, n: &str) {
    w.delete_object(rt, Some(NS), n, None).expect("delete");
}

#[test]
fn scale_set_population_follows_arc() {
    let w = populated(args!("--runners 7 --nodes 3"));
    let pods = list(&w, PODS);
    assert_eq!(pods.len(), 7);
    assert_eq!(list(&w, AUTOSCALING_RUNNER_SETS).len(), 2);
    assert_eq!(list(&w, EPHEMERAL_RUNNER_SETS).len(), 2);
    assert_eq!(list(&w, EPHEMERAL_RUNNERS).len(), 7);
    assert!(list(&w, RUNNERS).is_empty() && list(&w, STATEFUL_SETS).is_empty());
    assert_eq!(
        names(&w, NODES),
        BTreeSet::from(["node-1".into(), "node-2".into(), "node-3".into()])
    );
    assert_eq!(
        names(&w, store::NAMESPACES),
        BTreeSet::from([NS.to_owned()])
    );
    // Pod name = EphemeralRunner name = GitHub runner name.
    assert_eq!(names(&w, PODS), names(&w, EPHEMERAL_RUNNERS));
    assert_eq!(names(&w, PODS), registration_names(&w));
    let mut per_node = std::collections::BTreeMap::<String, usize>::new();
    for pod in &pods {
        let n = name(pod);
        let ers = pod["metadata"]["labels"]["actions.github.com/scale-set-name"]
            .as_str()
            .unwrap();
        assert!(n.starts_with(ers) && n.contains("-runner-"), "{n}");
        let labels = &pod["metadata"]["labels"];
        assert_eq!(labels["actions-ephemeral-runner"], "True");
        assert_eq!(labels["app.kubernetes.io/component"], "runner");
        let er = w.store.get(EPHEMERAL_RUNNERS, Some(NS), &n).unwrap();
        assert_eq!(owner(pod)["kind"], "EphemeralRunner");
        assert_eq!(owner(pod)["apiVersion"], "actions.github.com/v1alpha1");
        assert_eq!(owner(pod)["uid"], er["metadata"]["uid"]);
        assert_eq!(owner(pod)["controller"], true);
        assert_eq!(owner(er)["kind"], "EphemeralRunnerSet");
        assert_eq!(pod["spec"]["containers"][0]["name"], "runner");
        assert_eq!(pod["status"]["phase"], "Running");
        assert!(pod["status"]["containerStatuses"][0]["state"]["running"].is_object());
        assert!(pod["metadata"]["creationTimestamp"].is_string());
        *per_node
            .entry(pod["spec"]["nodeName"].as_str().unwrap().to_owned())
            .or_default() += 1;
        let id = er["status"]["runnerId"].as_u64().unwrap();
        let reg = &w.registrations[&id];
        assert_eq!(reg.name, n);
        assert_eq!(er["status"]["runnerName"], json!(n));
        assert_eq!(er["status"]["phase"], "Running");
        assert_eq!(
            (reg.status, reg.os.as_str(), reg.ephemeral),
            ("online", "linux", true)
        );
        // Scale-set runners carry only the scale set's name (ARC #3330).
        let label_names: Vec<&str> = reg.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(label_names, [ers]);
    }
    // Spread: 7 pods over 3 nodes.
    assert_eq!(
        per_node.values().copied().collect::<BTreeSet<_>>(),
        BTreeSet::from([2, 3])
    );
    let groups: BTreeSet<u64> = w
        .registrations
        .values()
        .map(|r| r.runner_group_id)
        .collect();
    assert_eq!(groups, BTreeSet::from([1, 2]));
    assert!(w.runner_groups.iter().any(|g| g.id == 1 && g.default));
    assert!(w.runner_groups.iter().any(|g| g.id == 2 && !g.default));
    let r = w.report();
    assert_eq!(
        (r.runners.registered, r.runners.pods, r.runners.busy),
        (7, 7, 0)
    );
    assert_eq!((r.runners.stuck, r.runners.dangling_registrations), (0, 0));
}

#[test]
fn legacy_population_follows_arc() {
    let w = populated(args!("--runners 6 --mode legacy"));
    assert_eq!(list(&w, RUNNER_DEPLOYMENTS).len(), 1);
    assert_eq!(list(&w, RUNNER_REPLICA_SETS).len(), 1);
    assert_eq!(list(&w, RUNNERS).len(), 3);
    assert_eq!(list(&w, RUNNER_SETS).len(), 1);
    assert_eq!(list(&w, STATEFUL_SETS).len(), 3);
    assert!(list(&w, EPHEMERAL_RUNNERS).is_empty());
    assert_eq!(names(&w, PODS), registration_names(&w));
    for pod in list(&w, PODS) {
        let n = name(&pod);
        let labels = &pod["metadata"]["labels"];
        assert_eq!(labels["actions-runner"], "");
        let containers: Vec<&str> = pod["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(containers, ["runner", "docker"]);
        let id: u64 = pod["metadata"]["annotations"]["actions-runner/id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(w.registrations[&id].name, n);
        let label_names: Vec<&str> = w.registrations[&id]
            .labels
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        match owner(&pod)["kind"].as_str().unwrap() {
            "Runner" => {
                assert_eq!(labels["runner-deployment-name"], "arc-runnerdeploy");
                let runner = w.store.get(RUNNERS, Some(NS), &n).unwrap();
                assert_eq!(owner(&pod)["uid"], runner["metadata"]["uid"]);
                assert_eq!(owner(runner)["kind"], "RunnerReplicaSet");
                assert_eq!(
                    label_names,
                    ["self-hosted", "Linux", "X64", "arc-runnerdeploy"]
                );
                assert_eq!(w.registrations[&id].runner_group_id, 1);
            }
            "StatefulSet" => {
                assert_eq!(labels["runnerset-name"], "arc-runnerset");
                let sts = n.strip_suffix("-0").unwrap();
                let sts_obj = w.store.get(STATEFUL_SETS, Some(NS), sts).unwrap();
                assert_eq!(owner(&pod)["uid"], sts_obj["metadata"]["uid"]);
                assert_eq!(owner(&pod)["apiVersion"], "apps/v1");
                assert_eq!(owner(sts_obj)["kind"], "RunnerSet");
                assert_eq!(
                    label_names,
                    ["self-hosted", "Linux", "X64", "arc-runnerset"]
                );
                assert_eq!(w.registrations[&id].runner_group_id, 2);
            }
            other => panic!("unexpected owner {other}"),
        }
    }
}

#[test]
fn mixed_population_has_both_flavours() {
    let w = populated(args!("--runners 9 --mode mixed"));
    assert_eq!(list(&w, PODS).len(), 9);
    assert_eq!(list(&w, EPHEMERAL_RUNNERS).len(), 5);
    assert_eq!(list(&w, RUNNERS).len(), 2);
    assert_eq!(list(&w, STATEFUL_SETS).len(), 2);
    assert_eq!(names(&w, PODS), registration_names(&w));
}

fn fingerprint(w: &World) -> (Vec<(String, String)>, Vec<u64>, BTreeSet<String>) {
    let pods = list(w, PODS)
        .iter()
        .map(|p| (name(p), p["metadata"]["uid"].as_str().unwrap().to_owned()))
        .collect();
    (
        pods,
        w.registrations.keys().copied().collect(),
        busy_names(w),
    )
}

#[test]
fn the_seed_decides_the_world() {
    let args = "--runners 12 --mode mixed --busy 0.5 --seed";
    let a = fingerprint(&populated(args!(args, "7")));
    assert_eq!(a, fingerprint(&populated(args!(args, "7"))));
    let b = fingerprint(&populated(args!(args, "8")));
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
}

#[test]
fn a_busy_share_runs_jobs_from_the_start() {
    let w = populated(args!("--runners 10 --busy 0.5 --job-rate 0"));
    let busy = busy_names(&w);
    assert_eq!(busy.len(), 5);
    for reg in w.registrations.values() {
        let log = w.store.log(NS, &reg.name, "runner").join("\n");
        let er = w.store.get(EPHEMERAL_RUNNERS, Some(NS), &reg.name).unwrap();
        assert!(
            log.contains("√ Connected to GitHub") && log.contains("Listening for Jobs"),
            "{log}"
        );
        if reg.busy {
            assert!(log.contains("Running job: "), "{log}");
            assert!(er["status"]["jobId"].is_string());
            assert!(er["status"]["jobDisplayName"].is_string());
        } else {
            assert!(!log.contains("Running job: "), "{log}");
            assert!(er["status"]["jobId"].is_null());
        }
    }
    let r = w.report();
    assert_eq!((r.jobs.started, r.jobs.running, r.jobs.killed), (5, 5, 0));
}

#[test]
fn log_lines_are_timestamped_like_actions_runner() {
    let w = populated(args!("--runners 1 --busy 1"));
    let reg = w.registrations.values().next().unwrap();
    let log = w.store.log(NS, &reg.name, "runner");
    for line in log {
        // `2026-11-29 21:30:00Z: text`
        let (stamp, _) = line.split_once("Z: ").unwrap_or_else(|| panic!("{line}"));
        assert!(
            jiff::civil::DateTime::strptime("%Y-%m-%d %H:%M:%S", stamp).is_ok(),
            "{line}"
        );
    }
    assert!(log.last().unwrap().contains(": Running job: "));
}

#[test]
fn deleting_busy_pods_kills_their_jobs() {
    for mode in ["scale-set", "legacy", "mixed"] {
        let mut w = populated(args!(format!(
            "--runners 8 --busy 0.5 --mode {mode} --job-duration 600s"
        )));
        let t0 = w.now();
        let busy = busy_names(&w);
        for pod in names(&w, PODS) {
            delete(&mut w, PODS, &pod);
        }
        let r = w.report();
        assert_eq!(r.jobs.killed, 4, "{mode}");
        assert_eq!(
            r.killed
                .iter()
                .map(|k| k.runner.clone())
                .collect::<BTreeSet<_>>(),
            busy
        );
        assert_eq!(r.jobs.running, 0);
        // The controller replaces everything; nothing is left broken.
        step(&mut w, t0, 10.0);
        let r = w.report();
        assert_eq!((r.runners.pods, r.runners.registered), (8, 8), "{mode}");
        assert_eq!(
            (r.runners.stuck, r.runners.dangling_registrations),
            (0, 0),
            "{mode}"
        );
        assert!(
            w.registrations
                .values()
                .all(|r| r.status == "online" && !r.busy)
        );
    }
}

#[test]
fn deleting_idle_pods_kills_nothing() {
    for mode in ["scale-set", "legacy"] {
        let mut w = populated(args!(format!("--runners 6 --busy 0.5 --mode {mode}")));
        let idle: Vec<String> = w
            .registrations
            .values()
            .filter(|r| !r.busy)
            .map(|r| r.name.clone())
            .collect();
        for pod in &idle {
            delete(&mut w, PODS, pod);
        }
        assert_eq!(w.report().jobs.killed, 0, "{mode}");
        assert_eq!(w.report().jobs.running, 3, "{mode}");
    }
}

#[test]
fn a_deleted_scale_set_pod_comes_back_with_its_registration() {
    let mut w = populated(args!("--runners 2"));
    let t0 = w.now();
    let reg = w.registrations.values().next().unwrap().clone();
    let old_uid = w.store.get(PODS, Some(NS), &reg.name).unwrap()["metadata"]["uid"].clone();
    delete(&mut w, PODS, &reg.name);
    assert_eq!(
        w.registrations[&reg.id].status, "offline",
        "until the new pod connects"
    );
    let pod = w
        .store
        .get(PODS, Some(NS), &reg.name)
        .expect("recreated under the same name");
    assert_ne!(pod["metadata"]["uid"], old_uid);
    assert_eq!(pod["status"]["phase"], "Pending");
    step(&mut w, t0, 5.0);
    assert_eq!(
        w.store.get(PODS, Some(NS), &reg.name).unwrap()["status"]["phase"],
        "Running"
    );
    assert_eq!(
        w.registrations[&reg.id].status, "online",
        "same registration, online again"
    );
    assert_eq!(w.report().runners.stuck, 0);
}

#[test]
fn an_unregistered_scale_set_pod_deleted_bare_is_stuck() {
    let mut w = populated(args!("--runners 3"));
    let t0 = w.now();
    let reg = w.registrations.values().next().unwrap().clone();
    assert_eq!(w.unregister(reg.id), Unregister::Removed);
    assert_eq!(w.unregister(reg.id), Unregister::NotFound);
    delete(&mut w, PODS, &reg.name);
    step(&mut w, t0, 5.0);
    let r = w.report();
    assert_eq!((r.runners.stuck, r.jobs.killed, r.runners.pods), (1, 0, 3));
    let log = w.store.log(NS, &reg.name, "runner").join("\n");
    assert!(log.contains("registration has been deleted"), "{log}");
    // A stuck runner never gets a job.
    let mut w2 = populated(args!("--runners 1 --job-rate 50"));
    let t0 = w2.now();
    let reg = w2.registrations.values().next().unwrap().clone();
    assert_eq!(w2.unregister(reg.id), Unregister::Removed);
    delete(&mut w2, PODS, &reg.name);
    step(&mut w2, t0, 5.0);
    let r = w2.report();
    assert_eq!((r.runners.stuck, r.jobs.started), (1, 0));
    assert!(r.jobs.queued > 0);
}

#[test]
fn deleting_the_ephemeral_runner_replaces_it() {
    let mut w = populated(args!("--runners 4"));
    let t0 = w.now();
    let reg = w.registrations.values().next().unwrap().clone();
    let deleted = w
        .delete_object(EPHEMERAL_RUNNERS, Some(NS), &reg.name, None)
        .unwrap();
    // Marked, not gone: ARC's finalizers are still on it.
    assert!(deleted["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(
        deleted["metadata"]["finalizers"],
        json!([
            "ephemeralrunner.actions.github.com/finalizer",
            "ephemeralrunner.actions.github.com/runner-registration-finalizer"
        ])
    );
    assert!(
        w.store
            .get(EPHEMERAL_RUNNERS, Some(NS), &reg.name)
            .is_some()
    );
    // The EphemeralRunnerSet counts it as gone: a fresh one at once.
    assert_eq!(list(&w, EPHEMERAL_RUNNERS).len(), 5);
    // ARC's finalizer: the idle runner is removed from the service, its pod deleted, the
    // object gone.
    step(&mut w, t0, 5.0);
    assert!(
        w.store
            .get(EPHEMERAL_RUNNERS, Some(NS), &reg.name)
            .is_none()
    );
    assert!(w.store.get(PODS, Some(NS), &reg.name).is_none());
    assert!(!w.registrations.contains_key(&reg.id));
    let r = w.report();
    assert_eq!(
        (r.runners.pods, r.runners.registered, r.jobs.killed),
        (4, 4, 0)
    );
    assert_eq!(list(&w, EPHEMERAL_RUNNERS).len(), 4);
    assert!(!registration_names(&w).contains(&reg.name));
}

#[test]
fn a_busy_ephemeral_runner_being_deleted_keeps_its_pod_until_the_job_ends() {
    let mut w = populated(args!("--runners 2 --busy 1 --job-duration 70s"));
    let t0 = w.now();
    let busy = w.registrations.values().next().unwrap().clone();
    let job_end = w
        .jobs_running()
        .into_iter()
        .find(|(_, runner, _)| *runner == busy.name)
        .map(|(_, _, ends)| ends)
        .unwrap();
    let er_uid = w
        .store
        .get(EPHEMERAL_RUNNERS, Some(NS), &busy.name)
        .unwrap()["metadata"]["uid"]
        .clone();
    delete(&mut w, EPHEMERAL_RUNNERS, &busy.name);
    // The replacement comes at once, while the old runner keeps its job.
    let ers = list(&w, EPHEMERAL_RUNNERS);
    assert_eq!(ers.len(), 3);
    assert_eq!(
        ers.iter()
            .filter(|e| e["metadata"]["deletionTimestamp"].is_string())
            .count(),
        1
    );
    // "Runner is not finished yet, retrying in 30s": a minute on, pod, registration and job
    // are all still there, and nothing was killed.
    for secs in [1.0, 31.0, 61.0] {
        let at = t0 + Duration::from_secs_f64(secs);
        if at >= job_end {
            break;
        }
        w.tick(at);
        let er = w
            .store
            .get(EPHEMERAL_RUNNERS, Some(NS), &busy.name)
            .unwrap();
        assert_eq!(er["metadata"]["uid"], er_uid);
        assert!(w.store.get(PODS, Some(NS), &busy.name).is_some(), "{secs}s");
        assert!(w.registrations[&busy.id].busy);
        assert_eq!(w.report().jobs.killed, 0);
    }
    // The job ends: the runner completes and exits, the finalizer finds the registration gone
    // and deletes the pod — no kill.
    w.tick(job_end + Duration::from_secs(2));
    assert!(
        w.store
            .get(EPHEMERAL_RUNNERS, Some(NS), &busy.name)
            .is_none()
    );
    assert!(w.store.get(PODS, Some(NS), &busy.name).is_none());
    let r = w.report();
    assert_eq!((r.jobs.killed, r.jobs.completed), (0, 2));
    assert_eq!((r.runners.stuck, r.runners.dangling_registrations), (0, 0));
}

#[test]
fn an_unsafe_204_then_an_ephemeral_runner_delete_kills_the_job() {
    // How real ARC kills a job: the runner is unregistered although its job runs, so the
    // finalizer finds no registration to wait for and deletes the pod.
    let mut w = populated(args!(
        "--runners 1 --job-rate 50 --fault unsafe-204=1 --job-duration 600s"
    ));
    let t0 = w.now();
    step(&mut w, t0, 0.5);
    let reg = w.registrations.values().next().unwrap().clone();
    assert!(reg.busy);
    assert_eq!(w.unregister(reg.id), Unregister::Removed);
    delete(&mut w, EPHEMERAL_RUNNERS, &reg.name);
    assert_eq!(w.report().jobs.killed, 0, "not before the finalizer runs");
    step(&mut w, t0, 2.0);
    let r = w.report();
    assert_eq!(r.jobs.killed, 1);
    assert_eq!(r.killed[0].runner, reg.name);
    assert!(
        w.store
            .get(EPHEMERAL_RUNNERS, Some(NS), &reg.name)
            .is_none()
    );
}

#[test]
fn a_foreground_ephemeral_runner_delete_removes_the_pod_first_and_kills_its_job() {
    let mut w = populated(args!("--runners 2 --busy 1 --job-duration 600s"));
    let t0 = w.now();
    let reg = w.registrations.values().next().unwrap().clone();
    let opts = store::DeleteOptions {
        propagation: Some(store::Propagation::Foreground),
        ..store::DeleteOptions::default()
    };
    let answer = w
        .delete_with(EPHEMERAL_RUNNERS, Some(NS), &reg.name, &opts)
        .unwrap();
    assert!(
        answer["metadata"]["finalizers"]
            .as_array()
            .unwrap()
            .contains(&json!("foregroundDeletion"))
    );
    // The garbage collector deleted the pod (blockOwnerDeletion) at once: the job died.
    assert!(w.store.get(PODS, Some(NS), &reg.name).is_none());
    assert_eq!(w.report().jobs.killed, 1);
    // The owner lost foregroundDeletion; ARC's own finalizers still hold it.
    let er = w.store.get(EPHEMERAL_RUNNERS, Some(NS), &reg.name).unwrap();
    assert_eq!(store::finalizers(er).len(), 2);
    step(&mut w, t0, 2.0);
    assert!(
        w.store
            .get(EPHEMERAL_RUNNERS, Some(NS), &reg.name)
            .is_none()
    );
    let r = w.report();
    assert_eq!((r.runners.pods, r.runners.registered), (2, 2));
}

#[test]
fn an_orphaning_delete_frees_the_dependents() {
    let mut w = populated(args!("--runners 2"));
    let t0 = w.now();
    let ers = list(&w, EPHEMERAL_RUNNER_SETS).first().map(name).unwrap();
    let ers_uid =
        w.store.get(EPHEMERAL_RUNNER_SETS, Some(NS), &ers).unwrap()["metadata"]["uid"].clone();
    let opts = store::DeleteOptions {
        propagation: Some(store::Propagation::Orphan),
        ..store::DeleteOptions::default()
    };
    w.delete_with(EPHEMERAL_RUNNER_SETS, Some(NS), &ers, &opts)
        .unwrap();
    // The set is gone; its EphemeralRunner stays, without an owner reference to it.
    assert!(w.store.get(EPHEMERAL_RUNNER_SETS, Some(NS), &ers).is_none());
    step(&mut w, t0, 2.0);
    let mine: Vec<Value> = list(&w, EPHEMERAL_RUNNERS)
        .into_iter()
        .filter(|e| name(e).starts_with(&ers))
        .collect();
    assert_eq!(mine.len(), 1);
    assert!(
        mine[0]["metadata"]["ownerReferences"]
            .as_array()
            .is_none_or(|refs| refs.iter().all(|r| r["uid"] != ers_uid))
    );
    assert_eq!(w.report().runners.pods, 2);
}

#[test]
fn legacy_replacements_follow_their_owner() {
    let mut w = populated(args!("--runners 4 --mode legacy"));
    let t0 = w.now();
    let pods = list(&w, PODS);
    let by_kind = |kind: &str| {
        pods.iter()
            .find(|p| owner(p)["kind"] == kind)
            .map(name)
            .unwrap()
    };
    let (runner_pod, sts_pod) = (by_kind("Runner"), by_kind("StatefulSet"));
    let id_of = |w: &World, n: &str| w.registrations.values().find(|r| r.name == n).map(|r| r.id);
    let sts_id = id_of(&w, &sts_pod).unwrap();
    delete(&mut w, PODS, &runner_pod);
    delete(&mut w, PODS, &sts_pod);
    // The Runner went with its pod; the StatefulSet's pod is back under its name.
    assert!(w.store.get(RUNNERS, Some(NS), &runner_pod).is_none());
    assert_eq!(list(&w, RUNNERS).len(), 2);
    assert!(w.store.get(PODS, Some(NS), &sts_pod).is_some());
    step(&mut w, t0, 5.0);
    assert!(
        id_of(&w, &runner_pod).is_none(),
        "a new Runner has a new name"
    );
    let new_sts_id = id_of(&w, &sts_pod).expect("the StatefulSet pod registers again");
    assert_ne!(new_sts_id, sts_id);
    let r = w.report();
    assert_eq!(
        (
            r.runners.pods,
            r.runners.registered,
            r.runners.dangling_registrations
        ),
        (4, 4, 0)
    );
    // Deleting the Runner object itself also brings a replacement.
    let runner = list(&w, RUNNERS).first().map(name).unwrap();
    delete(&mut w, RUNNERS, &runner);
    assert!(w.store.get(PODS, Some(NS), &runner).is_none());
    step(&mut w, t0, 10.0);
    assert_eq!(w.report().runners.registered, 4);
}

#[test]
fn the_unregistration_complete_annotation_skips_the_finalizer() {
    let mut w = populated(args!("--runners 2 --mode legacy"));
    let pod = list(&w, PODS).first().map(name).unwrap();
    let patch = json!({"metadata": {"annotations": {"actions-runner/unregistration-complete-timestamp": "2026-11-29T21:30:00Z"}}});
    w.patch_object(PODS, Some(NS), &pod, &patch).unwrap();
    delete(&mut w, PODS, &pod);
    // The registration was never removed: it dangles, offline.
    assert_eq!(w.report().runners.dangling_registrations, 1);
    assert_eq!(
        w.registrations
            .values()
            .filter(|r| r.status == "offline")
            .count(),
        1
    );
}

#[test]
fn a_runner_set_pod_re_registers_with_replace() {
    let mut w = populated(args!("--runners 2 --mode legacy"));
    let t0 = w.now();
    let pod = list(&w, PODS)
        .iter()
        .find(|p| owner(p)["kind"] == "StatefulSet")
        .map(name)
        .unwrap();
    let patch = json!({"metadata": {"annotations": {"actions-runner/unregistration-complete-timestamp": "2026-11-29T21:30:00Z"}}});
    w.patch_object(PODS, Some(NS), &pod, &patch).unwrap();
    delete(&mut w, PODS, &pod);
    // Until the recreated pod's runner starts, the old registration is still there.
    let old: Vec<u64> = w
        .registrations
        .values()
        .filter(|r| r.name == pod)
        .map(|r| r.id)
        .collect();
    assert_eq!(old.len(), 1);
    step(&mut w, t0, 5.0);
    // `config.sh --replace` replaced it: one registration of that name, a new id.
    let now: Vec<u64> = w
        .registrations
        .values()
        .filter(|r| r.name == pod)
        .map(|r| r.id)
        .collect();
    assert_eq!(now.len(), 1);
    assert_ne!(now, old);
    assert_eq!(w.report().runners.dangling_registrations, 0);
}

#[test]
fn deleting_a_replica_set_cascades_without_replacement() {
    let mut w = populated(args!("--runners 4 --busy 0.5"));
    let t0 = w.now();
    let ers = list(&w, EPHEMERAL_RUNNER_SETS).first().map(name).unwrap();
    delete(&mut w, EPHEMERAL_RUNNER_SETS, &ers);
    // Its EphemeralRunners go once ARC's finalizers are done with them: an idle one at once,
    // a busy one when its job (30 s) has ended.
    step(&mut w, t0, 2.0);
    assert!(
        list(&w, EPHEMERAL_RUNNERS)
            .iter()
            .filter(|e| name(e).starts_with(&ers))
            .all(|e| e["metadata"]["deletionTimestamp"].is_string())
    );
    step(&mut w, t0, 40.0);
    let left: Vec<String> = list(&w, EPHEMERAL_RUNNERS).iter().map(name).collect();
    assert_eq!(left.len(), 2);
    assert!(left.iter().all(|n| !n.starts_with(&ers)));
    assert_eq!(w.report().runners.pods, 2);
}

#[test]
fn jobs_end_and_ephemeral_runners_are_replaced() {
    for mode in ["scale-set", "legacy"] {
        let mut w = populated(args!(format!(
            "--runners 4 --busy 1 --job-duration 2s --mode {mode}"
        )));
        let t0 = w.now();
        let before = registration_names(&w);
        let ids: BTreeSet<u64> = w.registrations.keys().copied().collect();
        let pod = before.iter().next().unwrap().clone();
        step(&mut w, t0, 2.1);
        let log = w.store.log(NS, &pod, "runner").join("\n");
        assert!(
            log.contains(" completed with result: Succeeded"),
            "{mode}: {log}"
        );
        assert_eq!(
            w.store.get(PODS, Some(NS), &pod).unwrap()["status"]["phase"],
            "Succeeded"
        );
        step(&mut w, t0, 8.0);
        let r = w.report();
        assert_eq!(
            (r.jobs.completed, r.jobs.killed, r.jobs.running),
            (4, 0, 0),
            "{mode}"
        );
        assert_eq!(
            (r.runners.registered, r.runners.pods, r.runners.busy),
            (4, 4, 0),
            "{mode}"
        );
        assert!(
            w.registrations.keys().all(|id| !ids.contains(id)),
            "new registrations"
        );
        let after = registration_names(&w);
        if mode == "scale-set" {
            assert!(
                after.is_disjoint(&before),
                "fresh EphemeralRunners have new names"
            );
        } else {
            // RunnerSet pods keep their names; RunnerDeployment runners get new ones.
            assert_eq!(
                after.intersection(&before).count(),
                2,
                "{after:?} {before:?}"
            );
        }
    }
}

#[test]
fn job_traffic_assigns_only_idle_registered_runners() {
    let mut w = populated(args!(
        "--runners 6 --job-rate 20 --job-duration 600s --seed 3"
    ));
    let t0 = w.now();
    let unregistered = w.registrations.values().next().unwrap().clone();
    assert_eq!(w.unregister(unregistered.id), Unregister::Removed);
    step(&mut w, t0, 3.0);
    let r = w.report();
    assert_eq!((r.jobs.started, r.jobs.running), (5, 5));
    assert!(r.jobs.queued > 0);
    let log = w.store.log(NS, &unregistered.name, "runner").join("\n");
    assert!(
        !log.contains("Running job"),
        "an unregistered runner never gets a job"
    );
}

#[test]
fn unregister_answers_404_422_204() {
    let mut w = populated(args!("--runners 2 --busy 0.5"));
    let busy = w.registrations.values().find(|r| r.busy).unwrap().clone();
    let idle = w.registrations.values().find(|r| !r.busy).unwrap().clone();
    assert_eq!(
        w.unregister(busy.id),
        Unregister::Busy {
            name: busy.name.clone()
        }
    );
    assert_eq!(w.unregister(idle.id), Unregister::Removed);
    assert_eq!(w.unregister(idle.id), Unregister::NotFound);
    assert_eq!(w.unregister(999_999_999), Unregister::NotFound);
}

#[test]
fn unsafe_204_strikes_only_just_after_an_assignment() {
    let mut w = populated(args!(
        "--runners 2 --job-rate 50 --fault unsafe-204=1 --job-duration 600s"
    ));
    let t0 = w.now();
    // Both runners get a job within the first half second.
    step(&mut w, t0, 0.5);
    let regs: Vec<_> = w.registrations.values().cloned().collect();
    assert!(regs.iter().all(|r| r.busy));
    // Within a second of the assignment: 204 although the job runs on.
    assert_eq!(w.unregister(regs[0].id), Unregister::Removed);
    assert!(!w.registrations.contains_key(&regs[0].id));
    assert_eq!(w.report().jobs.running, 2);
    assert_eq!(w.report().unsafe_204s, 1);
    // Deleting the pod then kills the job.
    delete(&mut w, PODS, &regs[0].name);
    assert_eq!(w.report().jobs.killed, 1);
    // Later than a second after the assignment, a busy runner gets its 422.
    step(&mut w, t0, 2.0);
    assert_eq!(
        w.unregister(regs[1].id),
        Unregister::Busy {
            name: regs[1].name.clone()
        }
    );
    // Jobs of a populated world started a while ago: no unsafe 204 for them.
    let mut w = populated(args!("--runners 2 --busy 1 --fault unsafe-204=1"));
    let id = *w.registrations.keys().next().unwrap();
    assert!(matches!(w.unregister(id), Unregister::Busy { .. }));
    // Without the fault, never.
    let mut w = populated(args!("--runners 2 --job-rate 50 --job-duration 600s"));
    let t0 = w.now();
    step(&mut w, t0, 0.5);
    let id = *w.registrations.keys().next().unwrap();
    assert!(matches!(w.unregister(id), Unregister::Busy { .. }));
}

#[test]
fn a_populated_world_has_some_age() {
    let w = populated(args!("--runners 3 --busy 1"));
    let now = jiff::Timestamp::now();
    for pod in list(&w, PODS) {
        let created: jiff::Timestamp = pod["metadata"]["creationTimestamp"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let started: jiff::Timestamp = pod["status"]["startTime"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let age = now.duration_since(created).as_secs();
        assert!((3 * 60 - 5..=3600 + 5).contains(&age), "{age}");
        assert!(started > created);
        let log = w.store.log(NS, &name(&pod), "runner");
        let stamp = |i: usize| {
            jiff::civil::DateTime::strptime(
                "%Y-%m-%d %H:%M:%SZ",
                log[i].split(": ").next().unwrap(),
            )
            .unwrap()
        };
        // Connected when the pod started; the job began later, but less than a minute ago.
        assert!(stamp(0) < stamp(log.len() - 1), "{log:?}");
    }
    let node = list(&w, NODES).remove(0);
    let created: jiff::Timestamp = node["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(now.duration_since(created).as_hours() >= 14 * 24);
}

#[test]
fn the_list_cache_shows_stale_busy() {
    let mut w = populated(args!(
        "--runners 3 --list-cache 30s --job-rate 50 --job-duration 600s"
    ));
    let t0 = w.now();
    step(&mut w, t0, 1.0);
    assert!(w.registrations.values().all(|r| r.busy));
    let listed: Vec<bool> = w.registrations.values().map(|r| w.listed_busy(r)).collect();
    assert_eq!(
        listed,
        [false, false, false],
        "the list still shows them idle"
    );
    step(&mut w, t0, 31.0);
    let listed: Vec<bool> = w.registrations.values().map(|r| w.listed_busy(r)).collect();
    assert_eq!(listed, [true, true, true]);
    // Without a list cache, the list is live.
    let mut w = populated(args!("--runners 3 --job-rate 50 --job-duration 600s"));
    let t0 = w.now();
    step(&mut w, t0, 1.0);
    assert!(w.registrations.values().all(|r| w.listed_busy(r)));
}

#[test]
fn cordoned_nodes_get_no_replacements() {
    let mut w = populated(args!("--runners 2 --nodes 2 --mode legacy"));
    let t0 = w.now();
    for node in names(&w, NODES) {
        w.patch_object(
            NODES,
            None,
            &node,
            &json!({"spec": {"unschedulable": true}}),
        )
        .unwrap();
    }
    let pod = list(&w, PODS)
        .iter()
        .find(|p| owner(p)["kind"] == "StatefulSet")
        .map(name)
        .unwrap();
    delete(&mut w, PODS, &pod);
    step(&mut w, t0, 5.0);
    let p = w.store.get(PODS, Some(NS), &pod).unwrap();
    assert_eq!(p["status"]["phase"], "Pending");
    assert!(p["spec"]["nodeName"].is_null());
    assert!(w.is_settled(), "waiting for a node is not pending work");
    w.patch_object(
        NODES,
        None,
        "node-2",
        &json!({"spec": {"unschedulable": null}}),
    )
    .unwrap();
    step(&mut w, t0, 6.0);
    let p = w.store.get(PODS, Some(NS), &pod).unwrap();
    assert_eq!(p["status"]["phase"], "Running");
    assert_eq!(p["spec"]["nodeName"], "node-2");
}

#[test]
fn the_report_has_the_design_schema() {
    let mut w = populated(args!("--runners 2 --busy 1"));
    w.stats
        .record_github("DELETE", "/orgs/{org}/actions/runners/{runner_id}", 204);
    w.stats
        .record_github("GET", "/orgs/{org}/actions/runners", 200);
    w.stats
        .record_kube("DELETE", "/api/v1/namespaces/{namespace}/pods/{name}", 200);
    let pod = list(&w, PODS).first().map(name).unwrap();
    delete(&mut w, PODS, &pod);
    let v = serde_json::to_value(w.report()).unwrap();
    for key in ["started", "completed", "running", "killed"] {
        assert!(v["jobs"][key].is_u64(), "jobs.{key}");
    }
    for key in [
        "registered",
        "busy",
        "pods",
        "dangling_registrations",
        "stuck",
    ] {
        assert!(v["runners"][key].is_u64(), "runners.{key}");
    }
    assert_eq!(
        v["killed"],
        json!([{"job": v["killed"][0]["job"], "runner": pod}])
    );
    assert_eq!(v["requests"]["github"]["total"], 2);
    assert_eq!(
        v["requests"]["github"]["by_status"],
        json!({"200": 1, "204": 1})
    );
    assert_eq!(v["requests"]["kube"]["by_status"], json!({"200": 1}));
    assert_eq!(
        v["requests"]["kube"]["by_route"][0]["path"],
        "/api/v1/namespaces/{namespace}/pods/{name}"
    );
    assert!(v["rate_limit_violations"].is_u64());
    let text = w.report().verdict();
    assert!(
        text.contains("jobs:     2 started, 0 completed, 1 running, 1 killed"),
        "{text}"
    );
    assert!(text.contains(&pod), "{text}");
}

#[test]
fn patching_replicas_scales_without_touching_busy_runners() {
    for (rt, mode) in [
        (EPHEMERAL_RUNNER_SETS, "scale-set"),
        (RUNNER_DEPLOYMENTS, "legacy"),
    ] {
        let mut w = populated(args!(format!(
            "--runners 8 --busy 0.5 --mode {mode} --job-duration 600s"
        )));
        let t0 = w.now();
        let set = list(&w, rt).first().map(name).unwrap();
        // 4 runners in this pool, some busy; scale to 1.
        w.patch_object(rt, Some(NS), &set, &json!({"spec": {"replicas": 1}}))
            .unwrap();
        step(&mut w, t0, 5.0);
        let r = w.report();
        assert_eq!(r.jobs.killed, 0, "{mode}");
        assert_eq!(r.jobs.running, 4, "{mode}");
        assert!(r.runners.pods < 8, "{mode}: {}", r.runners.pods);
        assert_eq!(
            (r.runners.dangling_registrations, r.runners.stuck),
            (0, 0),
            "{mode}"
        );
        // And back up.
        w.patch_object(rt, Some(NS), &set, &json!({"spec": {"replicas": 6}}))
            .unwrap();
        step(&mut w, t0, 10.0);
        let r = w.report();
        assert_eq!((r.runners.pods, r.runners.registered), (10, 10), "{mode}");
    }
}

#[test]
fn a_runner_unregistered_before_it_connects_is_stuck() {
    let mut w = populated(args!("--runners 2"));
    let t0 = w.now();
    let er = list(&w, EPHEMERAL_RUNNERS).first().map(name).unwrap();
    delete(&mut w, EPHEMERAL_RUNNERS, &er);
    // The replacement is registered (JIT config) but offline until its pod starts.
    let fresh = w
        .registrations
        .values()
        .find(|r| r.status == "offline")
        .unwrap()
        .clone();
    assert_eq!(w.unregister(fresh.id), Unregister::Removed);
    // Counted while still pending: nothing will delete it, and it will find its registration
    // gone when it starts.
    assert_eq!(w.report().runners.stuck, 1, "pending, registration gone");
    step(&mut w, t0, 5.0);
    assert_eq!(w.report().runners.stuck, 1);
    // Deleting its EphemeralRunner (what a drain does) clears it.
    delete(&mut w, EPHEMERAL_RUNNERS, &fresh.name);
    step(&mut w, t0, 10.0);
    let r = w.report();
    assert_eq!(
        (r.runners.stuck, r.runners.registered, r.runners.pods),
        (0, 2, 2)
    );
}

#[test]
fn settling_waits_for_work_begun_before_and_not_after() {
    let mut w = populated(args!(
        "--runners 2 --busy 0.5 --job-duration 3s --mode legacy"
    ));
    let t0 = w.now();
    let idle = w
        .registrations
        .values()
        .find(|r| !r.busy)
        .unwrap()
        .name
        .clone();
    delete(&mut w, PODS, &idle);
    let since = w.now();
    assert!(!w.settled_since(since), "the replacement is still starting");
    step(&mut w, t0, 2.0);
    assert!(w.settled_since(since) && w.is_settled());
    // The busy runner's job ends after `since`: its reaping is new work.
    step(&mut w, t0, 3.2);
    assert!(w.settled_since(since));
    assert!(!w.is_settled());
    step(&mut w, t0, 6.0);
    assert!(w.is_settled());
    assert_eq!(w.report().runners.registered, 2);
}

/// The runner container's waiting reason of a pod, if it waits.
fn waiting_reason(pod: &Value) -> Option<String> {
    pod["status"]["containerStatuses"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == "runner")?["state"]["waiting"]["reason"]
        .as_str()
        .map(str::to_owned)
}

#[test]
fn pending_pods_wait_registered_offline_then_start() {
    let mut w = populated(args!(
        "--mode mixed --runners 24 --pending 0.5 --job-rate 50 --job-duration 600s --seed 4"
    ));
    let t0 = w.now();
    let pending: Vec<Value> = list(&w, PODS)
        .into_iter()
        .filter(|p| p["status"]["phase"] == "Pending")
        .collect();
    assert!(
        (6..=18).contains(&pending.len()),
        "about half of 24 pending at start, got {}",
        pending.len()
    );
    let mut scale_set = 0;
    let mut legacy = 0;
    for pod in &pending {
        let n = name(pod);
        // Still creating, or (a world that has been up a while) backing off a failed pull.
        let reason = waiting_reason(pod);
        assert!(
            matches!(
                reason.as_deref(),
                Some("ContainerCreating" | "ImagePullBackOff")
            ),
            "{n}: {reason:?}"
        );
        let regs: Vec<_> = w.registrations.values().filter(|r| r.name == n).collect();
        if owner(pod)["kind"] == "EphemeralRunner" {
            // Registered by its JIT config before the pod runs: offline, not busy.
            scale_set += 1;
            assert_eq!(regs.len(), 1, "{n}");
            assert_eq!((regs[0].status, regs[0].busy), ("offline", false));
        } else {
            // A legacy runner registers when its container starts.
            legacy += 1;
            assert!(regs.is_empty(), "{n}");
        }
    }
    assert!(scale_set > 0 && legacy > 0, "{scale_set} {legacy}");
    // Watched every half second: image pulls fail and back off (both reasons seen), no job
    // is handed to a pending runner, and every pod has started within 41 s.
    let mut reasons = BTreeSet::new();
    let waiting: BTreeSet<String> = pending.iter().map(name).collect();
    for i in 1..=90 {
        step(&mut w, t0, f64::from(i) * 0.5);
        for pod in list(&w, PODS) {
            if let Some(r) = waiting_reason(&pod) {
                reasons.insert(r);
                assert!(
                    !busy_names(&w).contains(&name(&pod)),
                    "a job on a waiting pod"
                );
            }
        }
    }
    assert!(
        reasons.contains("ErrImagePull") && reasons.contains("ImagePullBackOff"),
        "{reasons:?}"
    );
    for n in &waiting {
        let pod = w.store.get(PODS, Some(NS), n).expect("still there");
        assert_eq!(pod["status"]["phase"], "Running", "{n}");
    }
    let r = w.report();
    assert_eq!((r.runners.registered, r.runners.stuck), (24, 0));
    assert_eq!(r.runners.busy, 24, "all started and took a job");
}

#[test]
fn replacements_wait_too() {
    let mut w = populated(args!("--runners 2 --pending 1 --seed 2"));
    let t0 = w.now();
    // Every pod of the world waits: start them all first.
    step(&mut w, t0, 45.0);
    assert!(
        list(&w, PODS)
            .iter()
            .all(|p| p["status"]["phase"] == "Running")
    );
    let old = list(&w, EPHEMERAL_RUNNERS).first().map(name).unwrap();
    delete(&mut w, EPHEMERAL_RUNNERS, &old);
    step(&mut w, t0, 48.0);
    // Its replacement is registered offline and still waits 3 s in (at least 5 s).
    let fresh: Vec<Value> = list(&w, PODS)
        .into_iter()
        .filter(|p| p["status"]["phase"] == "Pending")
        .collect();
    assert_eq!(fresh.len(), 1);
    assert!(waiting_reason(&fresh[0]).is_some());
    let reg = w
        .registrations
        .values()
        .find(|r| r.name == name(&fresh[0]))
        .unwrap();
    assert_eq!(reg.status, "offline");
    step(&mut w, t0, 90.0);
    assert_eq!(w.report().runners.pods, 2);
    assert!(
        list(&w, PODS)
            .iter()
            .all(|p| p["status"]["phase"] == "Running")
    );
}
/// For each of `names` and each of `checks`, the instant (seconds after `t0`, stepping by `dt`
/// up to `until`) at which the check first holds.
#[allow(clippy::type_complexity)]
fn first_seen(
    w: &mut World,
    t0: Instant,
    names: &[String],
    dt: f64,
    until: f64,
    checks: &[&dyn Fn(&World, &str) -> bool],
) -> Vec<Vec<Option<f64>>> {
    let mut at = vec![vec![None; names.len()]; checks.len()];
    let mut t = 0.0;
    while t <= until {
        step(w, t0, t);
        for (c, check) in checks.iter().enumerate() {
            for (i, n) in names.iter().enumerate() {
                if at[c][i].is_none() && check(w, n) {
                    at[c][i] = Some(t);
                }
            }
        }
        t += dt;
    }
    at
}

fn job_of(pod: &str) -> String {
    format!("job-{pod}")
}

fn logged_start(w: &World, pod: &str) -> bool {
    w.store
        .log(NS, pod, "runner")
        .iter()
        .any(|l| l.ends_with(&format!("Running job: {}", job_of(pod))))
}

fn recorded_job(w: &World, pod: &str) -> bool {
    w.store
        .get(EPHEMERAL_RUNNERS, Some(NS), pod)
        .is_some_and(|er| er["status"]["jobDisplayName"] == json!(job_of(pod)))
}

#[test]
fn lagged_job_traces_appear_within_their_bounds_and_not_before() {
    let mut w = populated(args!(
        "--runners 24 --job-lag 3s --job-duration 600s --seed 5"
    ));
    let t0 = w.now();
    let pods: Vec<String> = names(&w, PODS).into_iter().collect();
    for pod in &pods {
        assert!(w.start_job_on(NS, pod, &job_of(pod), Duration::from_secs(600)));
    }
    // GitHub sees every runner busy at once: GET by id and DELETE answer from this.
    assert_eq!(busy_names(&w).len(), pods.len());
    let seen = first_seen(&mut w, t0, &pods, 0.1, 8.0, &[&logged_start, &recorded_job]);
    let (logs, records) = (seen[0].clone(), seen[1].clone());
    // Every trace appears, the log line within 3 s and the job fields within 6 s (plus one
    // step of the loop).
    let logs: Vec<f64> = logs.into_iter().map(|t| t.expect("logged")).collect();
    let records: Vec<f64> = records.into_iter().map(|t| t.expect("recorded")).collect();
    assert!(logs.iter().all(|t| *t <= 3.1), "{logs:?}");
    assert!(records.iter().all(|t| *t <= 6.1), "{records:?}");
    // ... and they lag: most appear well after the assignment, the fields later than the line.
    assert!(logs.iter().filter(|t| **t >= 0.5).count() >= 12, "{logs:?}");
    assert!(
        records.iter().filter(|t| **t > 3.1).count() >= 6,
        "{records:?}"
    );
    // Independent draws: the line does not always come first.
    assert!(
        logs.iter().zip(&records).any(|(l, r)| r < l),
        "{logs:?} {records:?}"
    );
    // Without --job-lag, both at once (today's world).
    let mut w = populated(args!("--runners 3 --job-duration 600s"));
    for pod in names(&w, PODS) {
        assert!(w.start_job_on(NS, &pod, &job_of(&pod), Duration::from_secs(600)));
        assert!(logged_start(&w, &pod) && recorded_job(&w, &pod));
    }
}

#[test]
fn a_job_that_ends_before_its_traces_logs_its_start_first_and_is_never_recorded() {
    for mode in ["scale-set", "legacy"] {
        let mut w = populated(args!(format!("--runners 12 --job-lag 10s --mode {mode}")));
        let t0 = w.now();
        let pods: Vec<String> = names(&w, PODS).into_iter().collect();
        for pod in &pods {
            assert!(w.start_job_on(NS, pod, &job_of(pod), Duration::from_secs(1)));
        }
        step(&mut w, t0, 1.2);
        // Each job completed; its runner printed `Running job:` before the completion line.
        for pod in &pods {
            let log = w.store.log(NS, pod, "runner");
            let start = log
                .iter()
                .position(|l| l.ends_with(&format!("Running job: {}", job_of(pod))));
            let done = log
                .iter()
                .position(|l| l.contains(&format!("Job {} completed", job_of(pod))));
            assert!(
                matches!((start, done), (Some(s), Some(d)) if s < d),
                "{mode}: {log:?}"
            );
            assert_eq!(log.iter().filter(|l| l.contains("Running job:")).count(), 1);
        }
        if mode == "scale-set" {
            // Only jobs whose fields came within the second were recorded; none is recorded
            // after its job ended, while the finished EphemeralRunners still exist.
            let recorded = pods.iter().filter(|p| recorded_job(&w, p)).count();
            assert!(recorded < pods.len() / 2, "{recorded}");
            step(&mut w, t0, 1.45);
            assert!(
                pods.iter()
                    .all(|p| w.store.get(EPHEMERAL_RUNNERS, Some(NS), p).is_some())
            );
            assert_eq!(
                pods.iter().filter(|p| recorded_job(&w, p)).count(),
                recorded
            );
        }
        // Later, no replacement carries a finished job's fields.
        step(&mut w, t0, 25.0);
        for er in list(&w, EPHEMERAL_RUNNERS) {
            assert!(er["status"]["jobId"].is_null(), "{er:#}");
        }
        let r = w.report();
        assert_eq!((r.jobs.completed, r.jobs.killed), (12, 0), "{mode}");
    }
}

/// Kubelet timestamps of the runner log's dockerd lines stamped in `[from, to)`.
fn noise_between(w: &World, pod: &str, from: jiff::Timestamp, to: jiff::Timestamp) -> usize {
    w.log_view(NS, pod, "runner")
        .entries(Some(from))
        .iter()
        .filter(|e| e.line.starts_with("time=\""))
        .filter(|e| e.time.parse::<jiff::Timestamp>().is_ok_and(|t| t < to))
        .count()
}

#[test]
fn log_noise_comes_at_its_rate_while_a_job_runs_and_sparsely_while_idle() {
    let mut w = populated(args!(
        "--runners 6 --mode mixed --log-noise 40 --job-duration 600s"
    ));
    let t0 = w.now();
    let pods: Vec<String> = names(&w, PODS).into_iter().collect();
    let (busy, idle) = (pods[0].clone(), pods[1].clone());
    assert!(w.start_job_on(NS, &busy, "build-1", Duration::from_secs(600)));
    let assigned = w.wall_now();
    step(&mut w, t0, 62.0);
    // The whole seconds inside the job: exactly 40 lines each.
    let first = jiff::Timestamp::from_second(assigned.as_second() + 1).unwrap();
    let sixty = first + jiff::SignedDuration::from_secs(60);
    assert_eq!(noise_between(&w, &busy, first, sixty), 60 * 40);
    // Idle: about one line every four seconds.
    let idle_lines = noise_between(&w, &idle, first, sixty);
    assert!((5..=35).contains(&idle_lines), "{idle_lines}");
    // The runner's own lines are still there, in time order with the noise.
    let all = w.log_view(NS, &busy, "runner").entries(None);
    assert!(all.iter().any(|e| e.line.ends_with("Running job: build-1")));
    let times: Vec<jiff::Timestamp> = all.iter().map(|e| e.time.parse().unwrap()).collect();
    assert!(times.windows(2).all(|p| p[0] <= p[1]));
    // Legacy pods run the dind image: dockerd in the runner container, no docker sidecar.
    for pod in list(&w, PODS) {
        let containers = pod["spec"]["containers"].as_array().unwrap();
        if pod["metadata"]["labels"]["actions-ephemeral-runner"].is_null() {
            assert_eq!(containers.len(), 1, "{pod:#}");
            assert_eq!(
                containers[0]["image"],
                "summerwind/actions-runner-dind:latest"
            );
        }
    }
    // Without --log-noise, the log is only the runner's lines.
    let w = populated(args!("--runners 2 --busy 1"));
    for pod in names(&w, PODS) {
        let view = w.log_view(NS, &pod, "runner").entries(None);
        assert_eq!(view.len(), w.store.log(NS, &pod, "runner").len());
    }
}

#[test]
fn noisy_log_reads_from_any_instant_agree_with_the_whole_log() {
    let mut w = populated(args!("--runners 2 --log-noise 40 --job-duration 600s"));
    let t0 = w.now();
    let pod = names(&w, PODS).into_iter().next().unwrap();
    step(&mut w, t0, 3.0);
    assert!(w.start_job_on(NS, &pod, "e2e-9", Duration::from_secs(600)));
    step(&mut w, t0, 20.0);
    let view = w.log_view(NS, &pod, "runner");
    let all = view.entries(None);
    assert!(all.len() > 600, "{}", all.len());
    let job_line = all
        .iter()
        .position(|e| e.line.ends_with("Running job: e2e-9"))
        .expect("the job line is in the log");
    // Reading from any instant gives exactly the suffix of the whole log from there.
    for e in [&all[job_line], &all[job_line + 100], &all[all.len() - 1]] {
        let since: jiff::Timestamp = e.time.parse().unwrap();
        let from = view.entries(Some(since));
        let suffix: Vec<_> = all
            .iter()
            .filter(|x| x.time.parse::<jiff::Timestamp>().unwrap() >= since)
            .cloned()
            .collect();
        assert_eq!(from, suffix);
    }
    // A later read only adds lines after the earlier end.
    step(&mut w, t0, 21.0);
    let later = w.log_view(NS, &pod, "runner").entries(None);
    assert_eq!(later[..all.len()], all[..]);
    assert!(later.len() > all.len());
}

/// The state of the runner container of `pod`: `running`, `terminated` or `gone`.
fn runner_container(w: &World, pod: &str, uid: &Value) -> (String, Value) {
    match w
        .store
        .get(PODS, Some(NS), pod)
        .filter(|p| &p["metadata"]["uid"] == uid)
    {
        None => ("gone".into(), Value::Null),
        Some(p) => {
            let state = &p["status"]["containerStatuses"][0]["state"];
            let which = ["running", "terminated", "waiting"]
                .into_iter()
                .find(|k| state[*k].is_object())
                .unwrap_or("none");
            (which.to_owned(), p["status"].clone())
        }
    }
}

#[test]
fn an_idle_runner_notices_its_deleted_registration_and_exits() {
    for mode in ["scale-set", "legacy"] {
        let mut w = populated(args!(format!("--runners 4 --mode {mode} --seed 9")));
        let t0 = w.now();
        let reg = w.registrations.values().next().unwrap().clone();
        let uid = w.store.get(PODS, Some(NS), &reg.name).unwrap()["metadata"]["uid"].clone();
        assert_eq!(w.unregister(reg.id), Unregister::Removed);
        // Work the runner will do on its own: settling waits for it.
        assert!(!w.settled_since(w.now()), "{mode}");
        let noticed = |w: &World| {
            w.store
                .log(NS, &reg.name, "runner")
                .iter()
                .any(|l| l.contains("The runner registration has been deleted from the server"))
        };
        let mut notice_at = None;
        let mut exit_at = None;
        let mut t = 0.0;
        while t <= 20.0 && exit_at.is_none() {
            step(&mut w, t0, t);
            if notice_at.is_none() && noticed(&w) {
                notice_at = Some(t);
            }
            let (state, status) = runner_container(&w, &reg.name, &uid);
            if state == "terminated" {
                exit_at = Some(t);
                let cs = &status["containerStatuses"][0]["state"]["terminated"];
                assert_eq!(
                    (cs["exitCode"].as_i64(), cs["reason"].as_str()),
                    (Some(0), Some("Completed")),
                    "{mode}: run.sh exits 0 after the listener's terminated error"
                );
                assert_eq!(status["phase"], "Succeeded");
            } else {
                assert_eq!(state, "running", "{mode} at {t}");
            }
            t += 0.1;
        }
        let (notice_at, exit_at) = (notice_at.expect("noticed"), exit_at.expect("exited"));
        assert!((1.0..=10.1).contains(&notice_at), "{mode}: {notice_at}");
        assert!(exit_at - notice_at >= 4.9, "{mode}: {notice_at} {exit_at}");
        let log = w.store.log(NS, &reg.name, "runner").join("\n");
        assert!(
            log.contains("Exit runner after it exited with return code '0'"),
            "{log}"
        );
        // ARC replaces the finished runner; nothing is left stuck.
        step(&mut w, t0, exit_at + 3.0);
        assert_eq!(runner_container(&w, &reg.name, &uid).0, "gone", "{mode}");
        let r = w.report();
        assert_eq!(
            (r.runners.stuck, r.runners.registered, r.runners.pods),
            (0, 4, 4),
            "{mode}"
        );
        assert!(w.is_settled());
    }
}

#[test]
fn a_runner_unregistered_while_its_job_runs_never_notices() {
    let mut w = populated(args!(
        "--runners 2 --job-rate 50 --fault unsafe-204=1 --job-duration 600s"
    ));
    let t0 = w.now();
    step(&mut w, t0, 0.5);
    let reg = w.registrations.values().find(|r| r.busy).unwrap().clone();
    let uid = w.store.get(PODS, Some(NS), &reg.name).unwrap()["metadata"]["uid"].clone();
    assert_eq!(w.unregister(reg.id), Unregister::Removed);
    step(&mut w, t0, 30.0);
    let log = w.store.log(NS, &reg.name, "runner").join("\n");
    assert!(!log.contains("registration has been deleted"), "{log}");
    assert_eq!(runner_container(&w, &reg.name, &uid).0, "running");
    let r = w.report();
    assert_eq!(
        (r.jobs.running, r.runners.stuck),
        (2, 0),
        "running a job is not stuck"
    );
}

#[test]
fn an_unregistered_runner_left_running_idle_is_stuck() {
    for mode in ["scale-set", "legacy"] {
        let mut w = populated(args!(format!("--runners 3 --mode {mode}")));
        // A runner that never notices (its poll outlives the run).
        w.timing.notice_min = Duration::from_secs(3600);
        w.timing.notice_max = Duration::from_secs(3600);
        let t0 = w.now();
        let reg = w.registrations.values().next().unwrap().clone();
        assert_eq!(w.report().runners.stuck, 0);
        assert_eq!(w.unregister(reg.id), Unregister::Removed);
        step(&mut w, t0, 5.0);
        assert_eq!(w.report().runners.stuck, 1, "{mode}");
        // Deleting its pod (what a drain does next) clears it.
        let owner = if mode == "scale-set" {
            EPHEMERAL_RUNNERS
        } else {
            PODS
        };
        delete(&mut w, owner, &reg.name);
        step(&mut w, t0, 10.0);
        let r = w.report();
        assert_eq!((r.runners.stuck, r.runners.pods), (0, 3), "{mode}");
    }
}

#[test]
fn a_non_zero_exit_makes_arc_recreate_a_scale_set_pod_as_a_zombie() {
    let mut w = populated(args!("--runners 3"));
    w.timing.notice_exit_code = 1;
    let t0 = w.now();
    let reg = w.registrations.values().next().unwrap().clone();
    let uid = w.store.get(PODS, Some(NS), &reg.name).unwrap()["metadata"]["uid"].clone();
    assert_eq!(w.unregister(reg.id), Unregister::Removed);
    step(&mut w, t0, 20.0);
    // The pod was deleted as failed and recreated under its name, bound to the dead
    // registration: stuck until its EphemeralRunner is deleted.
    let pod = w.store.get(PODS, Some(NS), &reg.name).expect("recreated");
    assert_ne!(pod["metadata"]["uid"], uid);
    let er = w.store.get(EPHEMERAL_RUNNERS, Some(NS), &reg.name).unwrap();
    assert!(
        er["status"]["failures"][uid.as_str().unwrap()].is_string(),
        "{er:#}"
    );
    assert_eq!(w.report().runners.stuck, 1);
    delete(&mut w, EPHEMERAL_RUNNERS, &reg.name);
    step(&mut w, t0, 25.0);
    assert_eq!(w.report().runners.stuck, 0);
}
