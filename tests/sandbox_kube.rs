//! Fidelity of the sandbox's fake Kubernetes API: the real kubectl and the kube-rs client
//! against it, in-process, on 127.0.0.1 only.

mod sandbox_kube_support;

use arcctl::sandbox::store::{NODES, PODS};
use arcctl::sandbox::world;
use sandbox_kube_support::*;
use serde_json::Value;

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_pods_nodes_and_arc_objects() {
    let world = world(&[]);
    let kube = kubeconfig(&serve(world.clone()).await);

    let out = kube.ok(&["get", "pods"]).await;
    for pod in SCALE_SET_PODS.iter().chain([&LEGACY_POD]) {
        assert!(out.contains(pod), "{pod} missing from:\n{out}");
    }
    assert!(
        !out.contains(OTHER_POD),
        "another namespace leaked in:\n{out}"
    );
    assert!(out.starts_with("NAME"), "a table with a header:\n{out}");
    assert!(out.contains("2/2") && out.contains("Running"), "{out}");

    let out = kube.ok(&["get", "pods", "-A", "-o", "name"]).await;
    assert_eq!(lines(&out).len(), 5, "{out}");
    assert!(out.contains(&format!("pod/{OTHER_POD}")), "{out}");

    let out = kube
        .ok(&["get", "pod", SCALE_SET_PODS[1], "-o", "json"])
        .await;
    let pod: Value = serde_json::from_str(&out).unwrap();
    let stored = world::lock(&world)
        .store
        .get(PODS, Some(NS), SCALE_SET_PODS[1])
        .cloned()
        .unwrap();
    assert_eq!(pod["metadata"]["uid"], stored["metadata"]["uid"]);
    assert_eq!(
        pod["metadata"]["ownerReferences"][0]["kind"],
        "EphemeralRunner"
    );
    assert_eq!(pod["spec"]["nodeName"], "node-1");

    let out = kube
        .ok(&[
            "get",
            "pods",
            "-l",
            "actions.github.com/scale-set-name=arc-runner-set",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(lines(&out).len(), 3, "{out}");
    assert!(!out.contains(LEGACY_POD), "{out}");

    let out = kube
        .ok(&[
            "get",
            "pods",
            "--field-selector",
            "spec.nodeName=node-2",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(lines(&out), [format!("pod/{LEGACY_POD}")], "{out}");

    let out = kube
        .ok(&[
            "get",
            "po",
            "-A",
            "--field-selector",
            "status.phase=Pending",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(lines(&out), [format!("pod/{OTHER_POD}")], "{out}");

    let out = kube.ok(&["get", "ephemeralrunners"]).await;
    for er in SCALE_SET_PODS {
        assert!(out.contains(er), "{er} missing from:\n{out}");
    }
    assert!(
        out.contains("RUNNERID") && out.contains("100"),
        "printer columns:\n{out}"
    );
    let out = kube
        .ok(&["get", "runners.actions.summerwind.dev", "-o", "name"])
        .await;
    assert_eq!(
        lines(&out),
        [format!("runner.actions.summerwind.dev/{LEGACY_POD}")],
        "{out}"
    );

    let out = kube.ok(&["get", "nodes"]).await;
    assert!(out.contains("node-1") && out.contains("Ready"), "{out}");

    let missing = kube.kubectl(&["get", "pod", "no-such-pod"]).await;
    assert!(!missing.ok);
    assert!(
        missing.stderr.contains("pods \"no-such-pod\" not found"),
        "{}",
        missing.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_deletes_a_pod_through_the_world() {
    let world = world(&[]);
    let kube = kubeconfig(&serve(world.clone()).await);
    assert!(has_pod(&world, NS, SCALE_SET_PODS[0]));
    let out = kube.ok(&["delete", "pod", SCALE_SET_PODS[0]]).await;
    assert!(
        out.contains(&format!("pod \"{}\" deleted", SCALE_SET_PODS[0])),
        "{out}"
    );
    assert!(!has_pod(&world, NS, SCALE_SET_PODS[0]));
    assert!(has_pod(&world, NS, SCALE_SET_PODS[1]), "only that pod");
    assert_eq!(
        count(&world, "DELETE", "/api/v1/namespaces/{ns}/pods/{name}", 200),
        1
    );
    let again = kube.kubectl(&["delete", "pod", SCALE_SET_PODS[0]]).await;
    assert!(
        !again.ok && again.stderr.contains("not found"),
        "{}",
        again.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_logs() {
    let world = world(&[]);
    let kube = kubeconfig(&serve(world.clone()).await);
    let out = kube.ok(&["logs", SCALE_SET_PODS[0], "-c", "runner"]).await;
    assert_eq!(lines(&out), RUNNER_LOG);
    let out = kube
        .ok(&["logs", SCALE_SET_PODS[0], "-c", "runner", "--tail", "2"])
        .await;
    assert_eq!(lines(&out), RUNNER_LOG[2..]);
    let out = kube
        .ok(&["logs", LEGACY_POD, "-c", "docker", "--timestamps"])
        .await;
    let (ts, rest) = out.trim_end().split_once(' ').unwrap();
    assert!(ts.parse::<jiff::Timestamp>().is_ok(), "{out}");
    assert_eq!(rest, "dockerd: API listen on /var/run/docker.sock");
    assert!(
        count(
            &world,
            "GET",
            "/api/v1/namespaces/{ns}/pods/{name}/log",
            200
        ) >= 3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_cordons_a_node() {
    let world = world(&[]);
    let kube = kubeconfig(&serve(world.clone()).await);
    let out = kube.ok(&["cordon", "node-1"]).await;
    assert!(out.contains("node/node-1 cordoned"), "{out}");
    let node = world::lock(&world)
        .store
        .get(NODES, None, "node-1")
        .cloned()
        .unwrap();
    assert_eq!(node["spec"]["unschedulable"], true);
    let other = world::lock(&world)
        .store
        .get(NODES, None, "node-2")
        .cloned()
        .unwrap();
    assert!(other["spec"]["unschedulable"].is_null());
    let out = kube.ok(&["get", "nodes"]).await;
    assert!(out.contains("Ready,SchedulingDisabled"), "{out}");
    let out = kube.ok(&["uncordon", "node-1"]).await;
    assert!(out.contains("uncordoned"), "{out}");
    let node = world::lock(&world)
        .store
        .get(NODES, None, "node-1")
        .cloned()
        .unwrap();
    assert_ne!(node["spec"]["unschedulable"], true);
}
