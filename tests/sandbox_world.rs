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

const NS: &str = "arc-runners";

fn world(words: &[&str]) -> World {
    World::populated(arcctl::sandbox::options(words).expect("valid sandbox options"))
}

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
    let w = world(&["--runners", "7", "--nodes", "3"]);
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
    let w = world(&["--runners", "6", "--mode", "legacy"]);
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
    let w = world(&["--runners", "9", "--mode", "mixed"]);
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
    let args = [
        "--runners",
        "12",
        "--mode",
        "mixed",
        "--busy",
        "0.5",
        "--seed",
        "7",
    ];
    let a = fingerprint(&world(&args));
    assert_eq!(a, fingerprint(&world(&args)));
    let mut other = args;
    other[7] = "8";
    let b = fingerprint(&world(&other));
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
}

#[test]
fn a_busy_share_runs_jobs_from_the_start() {
    let w = world(&["--runners", "10", "--busy", "0.5", "--job-rate", "0"]);
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
    let w = world(&["--runners", "1", "--busy", "1"]);
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
        let mut w = world(&[
            "--runners",
            "8",
            "--busy",
            "0.5",
            "--mode",
            mode,
            "--job-duration",
            "600s",
        ]);
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
        let mut w = world(&["--runners", "6", "--busy", "0.5", "--mode", mode]);
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
    let mut w = world(&["--runners", "2"]);
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
    let mut w = world(&["--runners", "3"]);
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
    let mut w2 = world(&["--runners", "1", "--job-rate", "50"]);
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
    let mut w = world(&["--runners", "4"]);
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
    let mut w = world(&["--runners", "2", "--busy", "1", "--job-duration", "70s"]);
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
    let args = [
        "--runners",
        "1",
        "--job-rate",
        "50",
        "--fault",
        "unsafe-204=1",
        "--job-duration",
        "600s",
    ];
    let mut w = world(&args);
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
    let mut w = world(&["--runners", "2", "--busy", "1", "--job-duration", "600s"]);
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
    let mut w = world(&["--runners", "2"]);
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
    let mut w = world(&["--runners", "4", "--mode", "legacy"]);
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
    let mut w = world(&["--runners", "2", "--mode", "legacy"]);
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
    let mut w = world(&["--runners", "2", "--mode", "legacy"]);
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
    let mut w = world(&["--runners", "4", "--busy", "0.5"]);
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
        let mut w = world(&[
            "--runners",
            "4",
            "--busy",
            "1",
            "--job-duration",
            "2s",
            "--mode",
            mode,
        ]);
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
    let mut w = world(&[
        "--runners",
        "6",
        "--job-rate",
        "20",
        "--job-duration",
        "600s",
        "--seed",
        "3",
    ]);
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
    let mut w = world(&["--runners", "2", "--busy", "0.5"]);
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
    let args = [
        "--runners",
        "2",
        "--job-rate",
        "50",
        "--fault",
        "unsafe-204=1",
        "--job-duration",
        "600s",
    ];
    let mut w = world(&args);
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
    let mut w = world(&["--runners", "2", "--busy", "1", "--fault", "unsafe-204=1"]);
    let id = *w.registrations.keys().next().unwrap();
    assert!(matches!(w.unregister(id), Unregister::Busy { .. }));
    // Without the fault, never.
    let mut w = world(&[
        "--runners",
        "2",
        "--job-rate",
        "50",
        "--job-duration",
        "600s",
    ]);
    let t0 = w.now();
    step(&mut w, t0, 0.5);
    let id = *w.registrations.keys().next().unwrap();
    assert!(matches!(w.unregister(id), Unregister::Busy { .. }));
}

#[test]
fn a_populated_world_has_some_age() {
    let w = world(&["--runners", "3", "--busy", "1"]);
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
    let mut w = world(&[
        "--runners",
        "3",
        "--list-cache",
        "30s",
        "--job-rate",
        "50",
        "--job-duration",
        "600s",
    ]);
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
    let mut w = world(&[
        "--runners",
        "3",
        "--job-rate",
        "50",
        "--job-duration",
        "600s",
    ]);
    let t0 = w.now();
    step(&mut w, t0, 1.0);
    assert!(w.registrations.values().all(|r| w.listed_busy(r)));
}

#[test]
fn cordoned_nodes_get_no_replacements() {
    let mut w = world(&["--runners", "2", "--nodes", "2", "--mode", "legacy"]);
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
    let mut w = world(&["--runners", "2", "--busy", "1"]);
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
        let mut w = world(&[
            "--runners",
            "8",
            "--busy",
            "0.5",
            "--mode",
            mode,
            "--job-duration",
            "600s",
        ]);
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
    let mut w = world(&["--runners", "2"]);
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
    let mut w = world(&[
        "--runners",
        "2",
        "--busy",
        "0.5",
        "--job-duration",
        "3s",
        "--mode",
        "legacy",
    ]);
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
    let mut w = world(&[
        "--mode",
        "mixed",
        "--runners",
        "24",
        "--pending",
        "0.5",
        "--job-rate",
        "50",
        "--job-duration",
        "600s",
        "--seed",
        "4",
    ]);
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
    let mut w = world(&["--runners", "2", "--pending", "1", "--seed", "2"]);
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
