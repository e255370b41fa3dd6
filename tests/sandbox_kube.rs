//! Fidelity of the sandbox's fake Kubernetes API: the real kubectl and the kube-rs client
//! against it, in-process, on 127.0.0.1 only.

mod fixture;

use arcctl::sandbox::store::{NODES, PODS};
use arcctl::sandbox::world;
use fixture::*;
use serde_json::Value;

use crate::support::populated;

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_pods_nodes_and_arc_objects() {
    let world = world("");
    let kube = Kubectl::for_server(&serve(world.clone()).await);

    let out = kube.ok(args!("get pods")).await;
    for pod in SCALE_SET_PODS.iter().chain([&LEGACY_POD]) {
        assert!(out.contains(pod), "{pod} missing from:\n{out}");
    }
    assert!(
        !out.contains(OTHER_POD),
        "another namespace leaked in:\n{out}"
    );
    assert!(out.starts_with("NAME"), "a table with a header:\n{out}");
    assert!(out.contains("2/2") && out.contains("Running"), "{out}");

    let out = kube.ok(args!("get pods -A -o name")).await;
    assert_eq!(lines(&out).len(), 5, "{out}");
    assert!(out.contains(&format!("pod/{OTHER_POD}")), "{out}");

    let out = kube
        .ok(args!(format!("get pod {} -o json", SCALE_SET_PODS[1])))
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
        .ok(args!(
            "get pods -l actions.github.com/scale-set-name=arc-runner-set -o name"
        ))
        .await;
    assert_eq!(lines(&out).len(), 3, "{out}");
    assert!(!out.contains(LEGACY_POD), "{out}");

    let out = kube
        .ok(args!(
            "get pods --field-selector spec.nodeName=node-2 -o name"
        ))
        .await;
    assert_eq!(lines(&out), [format!("pod/{LEGACY_POD}")], "{out}");

    let out = kube
        .ok(args!(
            "get po -A --field-selector status.phase=Pending -o name"
        ))
        .await;
    assert_eq!(lines(&out), [format!("pod/{OTHER_POD}")], "{out}");

    let out = kube.ok(args!("get ephemeralrunners")).await;
    for er in SCALE_SET_PODS {
        assert!(out.contains(er), "{er} missing from:\n{out}");
    }
    assert!(
        out.contains("RUNNERID") && out.contains("100"),
        "printer columns:\n{out}"
    );
    let out = kube
        .ok(args!("get runners.actions.summerwind.dev -o name"))
        .await;
    assert_eq!(
        lines(&out),
        [format!("runner.actions.summerwind.dev/{LEGACY_POD}")],
        "{out}"
    );

    let out = kube.ok(args!("get nodes")).await;
    assert!(out.contains("node-1") && out.contains("Ready"), "{out}");

    let missing = kube.run(args!("get pod no-such-pod")).await;
    assert!(!missing.ok);
    assert!(
        missing.stderr.contains("pods \"no-such-pod\" not found"),
        "{}",
        missing.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_deletes_a_pod_through_the_world() {
    let world = world("");
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    assert!(has_pod(&world, NS, SCALE_SET_PODS[0]));
    let out = kube
        .ok(args!(format!("delete pod {}", SCALE_SET_PODS[0])))
        .await;
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
    let again = kube
        .run(args!(format!("delete pod {}", SCALE_SET_PODS[0])))
        .await;
    assert!(
        !again.ok && again.stderr.contains("not found"),
        "{}",
        again.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_logs() {
    let world = world("");
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    let out = kube
        .ok(args!(format!("logs {} -c runner", SCALE_SET_PODS[0])))
        .await;
    assert_eq!(lines(&out), RUNNER_LOG);
    let out = kube
        .ok(args!(format!(
            "logs {} -c runner --tail 2",
            SCALE_SET_PODS[0]
        )))
        .await;
    assert_eq!(lines(&out), RUNNER_LOG[2..]);
    let out = kube
        .ok(args!(format!("logs {LEGACY_POD} -c docker --timestamps")))
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
async fn kubectl_logs_of_a_waiting_container_print_the_kubelet_s_400() {
    let world = world("");
    {
        let mut w = world::lock(&world);
        for (pod, reason) in [
            (SCALE_SET_PODS[1], "ContainerCreating"),
            (SCALE_SET_PODS[2], "ImagePullBackOff"),
        ] {
            w.store
                .modify(PODS, Some(NS), pod, |o| {
                    o["status"]["phase"] = "Pending".into();
                    o["status"]["containerStatuses"][0]["state"] =
                        serde_json::json!({"waiting": {"reason": reason}});
                })
                .unwrap();
        }
    }
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    for (pod, what) in [
        (SCALE_SET_PODS[1], "ContainerCreating"),
        (SCALE_SET_PODS[2], "trying and failing to pull image"),
    ] {
        let out = kube.run(args!(format!("logs {pod} -c runner"))).await;
        assert!(!out.ok, "{}", out.stdout);
        assert_eq!(
            out.stderr.trim(),
            format!(
                "Error from server (BadRequest): container \"runner\" in pod \"{pod}\" is waiting to start: {what}"
            )
        );
    }
    // A running container's log is still served.
    assert_eq!(
        lines(&kube.ok(args!(format!("logs {}", SCALE_SET_PODS[0]))).await),
        RUNNER_LOG
    );
    let pattern = "/api/v1/namespaces/{ns}/pods/{name}/log";
    assert_eq!(count(&world, "GET", pattern, 400), 2);
}

/// `kubectl delete ephemeralrunner --cascade=…` against ARC's finalizers, in a populated world
/// whose two runners are busy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_deletes_ephemeral_runners_with_each_cascade() {
    use arcctl::sandbox::store::{EPHEMERAL_RUNNER_SETS, EPHEMERAL_RUNNERS};
    let world = populated(args!("--runners 2 --busy 1 --job-duration 600s")).shared();
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    let names = |rt| -> Vec<String> {
        let w = world::lock(&world);
        let all = (Default::default(), Default::default());
        w.store
            .list(rt, Some(NS), &all.0, &all.1)
            .iter()
            .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let ers = names(EPHEMERAL_RUNNERS);
    let (a, b) = (ers[0].clone(), ers[1].clone());

    // Foreground: the garbage collector deletes the pod first (blockOwnerDeletion), killing its
    // job; kubectl waits until ARC's finalizer is done and the object is gone.
    let out = kube
        .ok(args!(format!(
            "delete ephemeralrunner {a} --cascade=foreground"
        )))
        .await;
    assert!(
        out.contains(&format!(
            "ephemeralrunner.actions.github.com \"{a}\" deleted"
        )),
        "{out}"
    );
    assert!(!names(EPHEMERAL_RUNNERS).contains(&a));
    assert!(!has_pod(&world, NS, &a));
    assert_eq!(world::lock(&world).report().jobs.killed, 1);

    // Background: marked, the busy runner's pod kept ("Runner is not finished yet, retrying in
    // 30s"), its job alive; `kubectl get` still lists it.
    let out = kube
        .ok(args!(format!(
            "delete ephemeralrunner {b} --cascade=background --wait=false"
        )))
        .await;
    assert!(out.contains("deleted"), "{out}");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let stamp = kube
        .ok(args!(
            format!("get ephemeralrunner {b} -o"),
            "jsonpath={.metadata.deletionTimestamp}"
        ))
        .await;
    assert!(stamp.parse::<jiff::Timestamp>().is_ok(), "{stamp:?}");
    assert!(kube.ok(args!("get ephemeralrunners")).await.contains(&b));
    let phase = kube
        .ok(args!(format!("get pod {b} -o"), "jsonpath={.status.phase}"))
        .await;
    assert_eq!(phase, "Running");
    assert_eq!(world::lock(&world).report().jobs.killed, 1);
    // Both replaced at once: two fresh EphemeralRunners next to the one being deleted.
    assert_eq!(names(EPHEMERAL_RUNNERS).len(), 3);

    // Orphan: the set goes, its EphemeralRunners stay, without an owner reference to it.
    let set = names(EPHEMERAL_RUNNER_SETS)
        .into_iter()
        .find(|s| b.starts_with(s.as_str()))
        .unwrap();
    let set_uid = world::lock(&world)
        .store
        .get(EPHEMERAL_RUNNER_SETS, Some(NS), &set)
        .unwrap()["metadata"]["uid"]
        .clone();
    kube.ok(args!(format!(
        "delete ephemeralrunnerset {set} --cascade=orphan"
    )))
    .await;
    assert!(!names(EPHEMERAL_RUNNER_SETS).contains(&set));
    let w = world::lock(&world);
    let all = (Default::default(), Default::default());
    let left: Vec<&Value> = w
        .store
        .list(EPHEMERAL_RUNNERS, Some(NS), &all.0, &all.1)
        .into_iter()
        .filter(|o| o["metadata"]["name"].as_str().unwrap().starts_with(&set))
        .collect();
    assert_eq!(left.len(), 2, "the one being deleted and its replacement");
    assert!(left.iter().all(|o| {
        o["metadata"]["ownerReferences"]
            .as_array()
            .is_none_or(|refs| refs.iter().all(|r| r["uid"] != set_uid))
    }));
    assert_eq!(w.report().jobs.killed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_cordons_a_node() {
    let world = world("");
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    let out = kube.ok(args!("cordon node-1")).await;
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
    let out = kube.ok(args!("get nodes")).await;
    assert!(out.contains("Ready,SchedulingDisabled"), "{out}");
    let out = kube.ok(args!("uncordon node-1")).await;
    assert!(out.contains("uncordoned"), "{out}");
    let node = world::lock(&world)
        .store
        .get(NODES, None, "node-1")
        .cloned()
        .unwrap();
    assert_ne!(node["spec"]["unschedulable"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_annotates_labels_patches_and_pages() {
    let world = world("");
    let kube = Kubectl::for_server(&serve(world.clone()).await);
    kube.ok(args!(format!(
        "annotate pod {LEGACY_POD} arcctl.io/drain=yes"
    )))
    .await;
    kube.ok(args!(format!("label pod {LEGACY_POD} team=web")))
        .await;
    kube.ok(args!(
        format!("patch pod {LEGACY_POD} --type json -p"),
        r#"[{"op":"remove","path":"/metadata/labels/pod-template-hash"}]"#
    ))
    .await;
    let er = SCALE_SET_PODS[0];
    kube.ok(args!(
        format!("patch ephemeralrunner {er} --type merge -p"),
        r#"{"metadata":{"labels":{"m":"1"}}}"#
    ))
    .await;
    let pod = world::lock(&world)
        .store
        .get(PODS, Some(NS), LEGACY_POD)
        .cloned()
        .unwrap();
    assert_eq!(pod["metadata"]["annotations"]["arcctl.io/drain"], "yes");
    assert_eq!(pod["metadata"]["annotations"]["actions-runner/id"], "200");
    assert_eq!(pod["metadata"]["labels"]["team"], "web");
    assert!(
        pod["metadata"]["labels"]["pod-template-hash"].is_null(),
        "{pod}"
    );
    assert_eq!(pod["metadata"]["labels"]["actions-runner"], "");
    let out = kube.ok(args!("get ephemeralrunners -l m=1 -o name")).await;
    assert_eq!(
        lines(&out),
        [format!("ephemeralrunner.actions.github.com/{er}")]
    );

    // kubectl pages with limit/continue; small chunks still see every pod once.
    let out = kube.ok(args!("get pods -A --chunk-size=2 -o name")).await;
    let mut got = lines(&out);
    got.dedup();
    assert_eq!(got.len(), 5, "{out}");
    assert!(
        count(&world, "GET", "/api/v1/pods", 200) >= 3,
        "three pages"
    );
}

/// Waits (bounded) until the world has counted `n` requests of this kind.
async fn until_counted(world: &world::SharedWorld, method: &str, pattern: &str, n: u64) {
    for _ in 0..600 {
        if count(world, method, pattern, 200) >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{method} {pattern} was not requested {n} times within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_watches_and_drains() {
    let world = world("");
    let kube = std::sync::Arc::new(Kubectl::for_server(&serve(world.clone()).await));

    // `get -w` lists, then watches from the list's resourceVersion; it sees a deletion.
    let watcher = {
        let kube = kube.clone();
        tokio::spawn(async move { kube.run(args!("get pods -w --request-timeout=5s")).await })
    };
    until_counted(&world, "GET", "/api/v1/namespaces/{ns}/pods", 2).await;
    world::lock(&world)
        .delete_object(PODS, Some(NS), SCALE_SET_PODS[2], None)
        .unwrap();
    let out = watcher.await.unwrap();
    let rows: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with(SCALE_SET_PODS[2]))
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "listed, then its deletion:\n{}\n{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(
        out.stdout.matches("NAME").count(),
        1,
        "one header:\n{}",
        out.stdout
    );
    assert!(
        rows[1].contains("Running"),
        "a Table row from the watch:\n{}",
        out.stdout
    );

    // `drain` cordons, then evicts every pod on the node (pods/eviction).
    let out = kube
        .ok(args!(
            "drain node-2 --ignore-daemonsets --force --timeout=20s"
        ))
        .await;
    assert!(out.contains("node/node-2 drained"), "{out}");
    assert!(!has_pod(&world, NS, LEGACY_POD));
    assert!(!has_pod(&world, OTHER_NS, OTHER_POD));
    assert!(has_pod(&world, NS, SCALE_SET_PODS[0]), "node-1's pods stay");
    let node = world::lock(&world)
        .store
        .get(NODES, None, "node-2")
        .cloned()
        .unwrap();
    assert_eq!(node["spec"]["unschedulable"], true);
    let evictions = "/api/v1/namespaces/{ns}/pods/{name}/eviction";
    assert_eq!(count(&world, "POST", evictions, 201), 2);
}

mod kube_rs {
    use super::*;
    use futures::{StreamExt, TryStreamExt};
    use k8s_openapi::api::core::v1::{Node, Pod};
    use kube::api::{
        Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, LogParams,
        Patch, PatchParams, Preconditions, WatchEvent, WatchParams,
    };
    use serde_json::json;

    fn api_status(e: kube::Error) -> kube::core::Status {
        match e {
            kube::Error::Api(s) => *s,
            other => panic!("expected an API error, got {other:?}"),
        }
    }

    fn names(pods: &[Pod]) -> Vec<String> {
        pods.iter()
            .map(|p| p.metadata.name.clone().unwrap())
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lists_with_selectors_and_pages() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);

        let lp = ListParams::default().labels("actions.github.com/scale-set-name=arc-runner-set");
        assert_eq!(names(&pods.list(&lp).await.unwrap().items), SCALE_SET_PODS);
        let lp =
            ListParams::default().labels("actions-runner,runner-deployment-name in (legacy-rd)");
        assert_eq!(names(&pods.list(&lp).await.unwrap().items), [LEGACY_POD]);
        let lp = ListParams::default()
            .fields("spec.nodeName=node-1,metadata.name!=arc-runner-set-ws992-runner-k2f7q");
        assert_eq!(
            names(&pods.list(&lp).await.unwrap().items),
            [SCALE_SET_PODS[0], SCALE_SET_PODS[2]]
        );

        // Pages of two, following the continue token, see every pod exactly once.
        let (mut seen, mut token, mut pages) = (Vec::new(), None::<String>, 0);
        loop {
            let mut lp = ListParams::default().limit(2);
            if let Some(t) = &token {
                lp = lp.continue_token(t);
            }
            let page = pods.list(&lp).await.unwrap();
            pages += 1;
            assert!(page.items.len() <= 2);
            assert!(page.metadata.resource_version.is_some());
            seen.extend(names(&page.items));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(c) => {
                    assert!(page.metadata.remaining_item_count.unwrap() > 0);
                    token = Some(c);
                }
                None => break,
            }
        }
        assert_eq!(pages, 2);
        let mut all = SCALE_SET_PODS.map(str::to_owned).to_vec();
        all.push(LEGACY_POD.to_owned());
        all.sort();
        assert_eq!(seen, all);

        let everywhere: Api<Pod> = Api::all(client(&kube).await);
        assert_eq!(
            everywhere
                .list(&ListParams::default())
                .await
                .unwrap()
                .items
                .len(),
            5
        );

        let bad = pods
            .list(&ListParams::default().fields("spec.containers=x"))
            .await
            .unwrap_err();
        let bad = api_status(bad);
        assert_eq!((bad.code, bad.reason.as_str()), (400, "BadRequest"));
        assert_eq!(count(&world, "GET", "/api/v1/namespaces/{ns}/pods", 200), 5);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn deletes_with_uid_preconditions() {
        let world = world("");
        let url = serve(world.clone()).await;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let config = kube::Config::new(url.parse().unwrap());
        let pods: Api<Pod> = Api::namespaced(kube::Client::try_from(config).unwrap(), NS);
        let name = SCALE_SET_PODS[2];
        let uid = pods.get(name).await.unwrap().metadata.uid.unwrap();

        let wrong = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some("0000-not-it".into()),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        let conflict = api_status(pods.delete(name, &wrong).await.unwrap_err());
        assert_eq!((conflict.code, conflict.reason.as_str()), (409, "Conflict"));
        assert!(
            conflict
                .message
                .starts_with(&format!("Operation cannot be fulfilled on pods \"{name}\"")),
            "{}",
            conflict.message
        );
        assert!(
            has_pod(&world, NS, name),
            "a refused delete deletes nothing"
        );

        let right = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(uid.clone()),
                resource_version: None,
            }),
            grace_period_seconds: Some(30),
            ..DeleteParams::background()
        };
        let deleted = pods.delete(name, &right).await.unwrap();
        let deleted = deleted.left().expect("the deleted pod");
        assert_eq!(deleted.metadata.uid.as_deref(), Some(uid.as_str()));
        assert!(!has_pod(&world, NS, name));
        assert!(pods.get_opt(name).await.unwrap().is_none());
        let gone = api_status(
            pods.delete(name, &DeleteParams::default())
                .await
                .unwrap_err(),
        );
        assert_eq!((gone.code, gone.reason.as_str()), (404, "NotFound"));
        assert_eq!(gone.message, format!("pods \"{name}\" not found"));

        let pattern = "/api/v1/namespaces/{ns}/pods/{name}";
        assert_eq!(count(&world, "DELETE", pattern, 409), 1);
        assert_eq!(count(&world, "DELETE", pattern, 200), 1);
        assert_eq!(count(&world, "DELETE", pattern, 404), 1);
        assert_eq!(count(&world, "GET", pattern, 404), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn patches_annotations_and_cordons_nodes() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let client = client(&kube).await;
        let pods: Api<Pod> = Api::namespaced(client.clone(), NS);
        let patch = json!({"metadata": {"annotations": {"arcctl.io/draining": "true"}}});
        let pod = pods
            .patch(LEGACY_POD, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .unwrap();
        let annotations = pod.metadata.annotations.unwrap();
        assert_eq!(annotations["arcctl.io/draining"], "true");
        assert_eq!(
            annotations["actions-runner/id"], "200",
            "a merge keeps the other annotations"
        );
        let stored = world::lock(&world)
            .store
            .get(PODS, Some(NS), LEGACY_POD)
            .cloned()
            .unwrap();
        assert_eq!(
            stored["metadata"]["annotations"]["arcctl.io/draining"],
            "true"
        );

        // Patches that would break the object are refused, and change nothing.
        for bad in [json!({"spec": 1}), json!({"metadata": null}), json!([])] {
            let e = api_status(
                pods.patch(LEGACY_POD, &PatchParams::default(), &Patch::Merge(&bad))
                    .await
                    .unwrap_err(),
            );
            assert!(e.code == 422 || e.code == 400, "{bad}: {e:?}");
        }
        let after = world::lock(&world)
            .store
            .get(PODS, Some(NS), LEGACY_POD)
            .cloned()
            .unwrap();
        assert_eq!(
            after["metadata"]["resourceVersion"],
            stored["metadata"]["resourceVersion"]
        );

        // A stale resourceVersion in the patch is an optimistic-lock conflict.
        let stale = json!({"metadata": {"resourceVersion": "1", "labels": {"x": "y"}}});
        let e = api_status(
            pods.patch(LEGACY_POD, &PatchParams::default(), &Patch::Merge(&stale))
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 409);

        let nodes: Api<Node> = Api::all(client);
        let cordon = json!({"spec": {"unschedulable": true}});
        let node = nodes
            .patch("node-2", &PatchParams::default(), &Patch::Merge(&cordon))
            .await
            .unwrap();
        assert_eq!(node.spec.unwrap().unschedulable, Some(true));
        let stored = world::lock(&world)
            .store
            .get(NODES, None, "node-2")
            .cloned()
            .unwrap();
        assert_eq!(stored["spec"]["unschedulable"], true);
        let cordoned = nodes
            .list(&ListParams::default().fields("spec.unschedulable=true"))
            .await
            .unwrap();
        assert_eq!(cordoned.items.len(), 1);
        assert_eq!(count(&world, "PATCH", "/api/v1/nodes/{name}", 200), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_patch_that_changes_the_uid_is_invalid() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);
        let name = SCALE_SET_PODS[0];
        let stale = json!({"metadata": {"uid": "0000-old-pod", "annotations": {"k": "v"}}});
        for patch in [Patch::Merge(&stale), Patch::Strategic(&stale)] {
            let e = api_status(
                pods.patch(name, &PatchParams::default(), &patch)
                    .await
                    .unwrap_err(),
            );
            assert_eq!((e.code, e.reason.as_str()), (422, "Invalid"));
            assert_eq!(
                e.message,
                format!(
                    "Pod \"{name}\" is invalid: metadata.uid: Invalid value: \"0000-old-pod\": field is immutable"
                )
            );
        }
        let pod = pods.get(name).await.unwrap();
        assert!(
            !pod.metadata
                .annotations
                .clone()
                .unwrap_or_default()
                .contains_key("k")
        );
        // arcctl's annotate (uid in the patch) reads that answer as "replaced".
        let cluster = arcctl::cluster::Cluster::connect(
            &arcctl::config::resolve_kube(
                &arcctl::cli::KubeArgs {
                    kubeconfig: Some(kube.kubeconfig().to_owned()),
                    context: None,
                    namespaces: vec![],
                    all_namespaces: false,
                },
                &arcctl::context::Env::new(Vec::<(String, String)>::new()),
            )
            .unwrap(),
        )
        .await
        .unwrap();
        let annotated = cluster
            .annotate_pod(NS, name, "0000-old-pod", "k", "v")
            .await
            .unwrap();
        assert_eq!(annotated, arcctl::cluster::DeleteResult::Replaced);
        let uid = pod.metadata.uid.unwrap();
        let annotated = cluster
            .annotate_pod(NS, name, &uid, "k", "v")
            .await
            .unwrap();
        assert_eq!(annotated, arcctl::cluster::DeleteResult::Deleted);
        let pattern = "/api/v1/namespaces/{ns}/pods/{name}";
        assert_eq!(count(&world, "PATCH", pattern, 422), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_logs() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);
        let lp = LogParams {
            container: Some("runner".into()),
            tail_lines: Some(2),
            ..LogParams::default()
        };
        let text = pods.logs(SCALE_SET_PODS[0], &lp).await.unwrap();
        assert_eq!(lines(&text), RUNNER_LOG[2..]);
        // One container: the container may be left out.
        let text = pods
            .logs(SCALE_SET_PODS[0], &LogParams::default())
            .await
            .unwrap();
        assert_eq!(lines(&text), RUNNER_LOG);
        let e = api_status(
            pods.logs(LEGACY_POD, &LogParams::default())
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 400);
        assert_eq!(
            e.message,
            format!(
                "a container name must be specified for pod {LEGACY_POD}, choose one of: [runner docker]"
            )
        );
        let lp = LogParams {
            container: Some("nope".into()),
            ..LogParams::default()
        };
        let e = api_status(pods.logs(LEGACY_POD, &lp).await.unwrap_err());
        assert_eq!(
            e.message,
            format!("container nope is not valid for pod {LEGACY_POD}")
        );
        let e = api_status(
            pods.logs("no-such-pod", &LogParams::default())
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 404);
        // Every line was written just now: a minute back sees them all.
        let lp = LogParams {
            since_seconds: Some(60),
            ..LogParams::default()
        };
        assert_eq!(
            lines(&pods.logs(SCALE_SET_PODS[0], &lp).await.unwrap()),
            RUNNER_LOG
        );
        let future = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(3600);
        let lp = LogParams {
            since_time: Some(future),
            ..LogParams::default()
        };
        assert_eq!(pods.logs(SCALE_SET_PODS[0], &lp).await.unwrap(), "");
        let lp = LogParams {
            limit_bytes: Some(10),
            ..LogParams::default()
        };
        assert_eq!(
            pods.logs(SCALE_SET_PODS[0], &lp).await.unwrap(),
            &RUNNER_LOG[0][..10]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn follows_logs_until_the_pod_goes() {
        use futures::AsyncBufReadExt;
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);
        let name = SCALE_SET_PODS[1];
        let lp = LogParams {
            follow: true,
            tail_lines: Some(1),
            ..LogParams::default()
        };
        let mut lines = pods.log_stream(name, &lp).await.unwrap().lines();
        assert_eq!(
            lines.try_next().await.unwrap().as_deref(),
            Some(RUNNER_LOG[3])
        );
        world::lock(&world)
            .store
            .append_log(NS, name, "runner", "Listening for Jobs".into());
        assert_eq!(
            lines.try_next().await.unwrap().as_deref(),
            Some("Listening for Jobs")
        );
        world::lock(&world)
            .delete_object(PODS, Some(NS), name, None)
            .unwrap();
        let rest = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            lines.try_collect::<Vec<_>>(),
        )
        .await
        .expect("a followed log ends when its pod goes")
        .unwrap();
        assert!(rest.is_empty(), "{rest:?}");
    }

    fn ephemeral_runners() -> ApiResource {
        let gvk = GroupVersionKind::gvk("actions.github.com", "v1alpha1", "EphemeralRunner");
        ApiResource::from_gvk_with_plural(&gvk, "ephemeralrunners")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn serves_arc_objects_and_their_status() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let client = client(&kube).await;
        let ar = ephemeral_runners();
        let ers: Api<DynamicObject> = Api::namespaced_with(client.clone(), NS, &ar);
        let list = ers.list(&ListParams::default()).await.unwrap();
        let got: Vec<_> = list
            .items
            .iter()
            .map(|o| o.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(got, SCALE_SET_PODS);
        assert_eq!(list.items[1].data["status"]["runnerId"], 101);
        let all: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
        assert_eq!(
            all.list(&ListParams::default()).await.unwrap().items.len(),
            3
        );

        // The main resource ignores status; the status subresource takes only status.
        let name = SCALE_SET_PODS[0];
        let both = json!({"metadata": {"labels": {"x": "1"}}, "status": {"phase": "Failed"}});
        let o = ers
            .patch(name, &PatchParams::default(), &Patch::Merge(&both))
            .await
            .unwrap();
        assert_eq!(o.data["status"]["phase"], "Running");
        assert_eq!(o.metadata.labels.unwrap()["x"], "1");
        let o = ers
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&both))
            .await
            .unwrap();
        assert_eq!(o.data["status"]["phase"], "Failed");
        assert_eq!(o.data["status"]["runnerId"], 100);

        // Custom resources refuse strategic merge patches, as on a real cluster.
        let e = api_status(
            ers.patch(name, &PatchParams::default(), &Patch::Strategic(&both))
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 415);

        let uid = o.metadata.uid.unwrap();
        let wrong = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some("x".into()),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        assert_eq!(
            api_status(ers.delete(name, &wrong).await.unwrap_err()).code,
            409
        );
        let right = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(uid),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        // The fixture's EphemeralRunner has ARC's finalizer: marked first, gone once the
        // finalizer work (the world's clock ticks) has deleted its pod.
        let marked = ers.delete(name, &right).await.unwrap().left().unwrap();
        assert!(marked.metadata.deletion_timestamp.is_some());
        let mut gone = false;
        for _ in 0..200 {
            if ers.get_opt(name).await.unwrap().is_none() {
                gone = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert!(gone, "the EphemeralRunner stayed");
        assert!(!has_pod(&world, NS, name), "the finalizer deleted its pod");
        let pattern = "/apis/actions.github.com/v1alpha1/namespaces/{ns}/ephemeralrunners/{name}";
        assert_eq!(count(&world, "DELETE", pattern, 200), 1);
        assert_eq!(count(&world, "PATCH", &format!("{pattern}/status"), 200), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_modes_crds_are_installed() {
        let world = world("--mode scale-set");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let client = client(&kube).await;
        let gvk = GroupVersionKind::gvk("actions.summerwind.dev", "v1alpha1", "Runner");
        let runners: Api<DynamicObject> = Api::namespaced_with(
            client.clone(),
            NS,
            &ApiResource::from_gvk_with_plural(&gvk, "runners"),
        );
        let e = api_status(runners.list(&ListParams::default()).await.unwrap_err());
        assert_eq!((e.code, e.reason.as_str()), (404, "NotFound"));
        let ers: Api<DynamicObject> = Api::namespaced_with(client, NS, &ephemeral_runners());
        assert_eq!(
            ers.list(&ListParams::default()).await.unwrap().items.len(),
            3
        );

        let out = kube.run(args!("get runners.actions.summerwind.dev")).await;
        assert!(!out.ok, "{}", out.stdout);
        assert!(
            out.stderr.contains("doesn't have a resource type"),
            "{}",
            out.stderr
        );
        let out = kube.ok(args!("api-resources -o name")).await;
        assert!(out.contains("ephemeralrunners.actions.github.com"), "{out}");
        assert!(!out.contains("summerwind"), "{out}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn forbidden_namespaces_answer_403() {
        let world = world(&format!("--forbid-namespace {OTHER_NS}"));
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let client = client(&kube).await;
        let denied: Api<Pod> = Api::namespaced(client.clone(), OTHER_NS);
        let e = api_status(denied.list(&ListParams::default()).await.unwrap_err());
        assert_eq!((e.code, e.reason.as_str()), (403, "Forbidden"));
        assert_eq!(
            e.message,
            format!(
                "pods is forbidden: User \"system:serviceaccount:arc-system:arcctl\" cannot list resource \"pods\" in API group \"\" in the namespace \"{OTHER_NS}\""
            )
        );
        let e = api_status(
            denied
                .delete(OTHER_POD, &DeleteParams::default())
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 403);
        assert!(has_pod(&world, OTHER_NS, OTHER_POD));
        let everywhere: Api<Pod> = Api::all(client.clone());
        let e = api_status(everywhere.list(&ListParams::default()).await.unwrap_err());
        assert_eq!(e.code, 403);
        assert!(e.message.ends_with("at the cluster scope"), "{}", e.message);
        let allowed: Api<Pod> = Api::namespaced(client, NS);
        assert_eq!(
            allowed
                .list(&ListParams::default())
                .await
                .unwrap()
                .items
                .len(),
            4
        );

        let out = kube.run(args!(format!("get pods -n {OTHER_NS}"))).await;
        assert!(
            !out.ok && out.stderr.contains("is forbidden"),
            "{}",
            out.stderr
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn kube_5xx_faults_answer_500_and_change_nothing() {
        let world = world("--fault kube-5xx=1");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);
        let e = api_status(pods.list(&ListParams::default()).await.unwrap_err());
        assert_eq!((e.code, e.reason.as_str()), (500, "InternalError"));
        let e = api_status(
            pods.delete(LEGACY_POD, &DeleteParams::default())
                .await
                .unwrap_err(),
        );
        assert_eq!(e.code, 500);
        assert!(
            has_pod(&world, NS, LEGACY_POD),
            "a faulted delete deletes nothing"
        );
        assert_eq!(
            count(&world, "DELETE", "/api/v1/namespaces/{ns}/pods/{name}", 500),
            1
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watches_report_changes_and_end() {
        let world = world("");
        let kube = Kubectl::for_server(&serve(world.clone()).await);
        let pods: Api<Pod> = Api::namespaced(client(&kube).await, NS);
        let list = pods
            .list(&ListParams::default().labels("actions-ephemeral-runner=True"))
            .await
            .unwrap();
        let rv = list.metadata.resource_version.unwrap();
        // A change between the list and the watch is replayed from the list's resourceVersion.
        world::lock(&world)
            .delete_object(PODS, Some(NS), SCALE_SET_PODS[0], None)
            .unwrap();
        let wp = WatchParams::default()
            .labels("actions-ephemeral-runner=True")
            .timeout(3);
        let mut stream = pods.watch(&wp, &rv).await.unwrap().boxed();
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Deleted(p)) => {
                assert_eq!(p.metadata.name.as_deref(), Some(SCALE_SET_PODS[0]))
            }
            other => panic!("expected the replayed deletion, got {other:?}"),
        }
        // A live change, and one the selector filters out.
        world::lock(&world)
            .delete_object(PODS, Some(NS), LEGACY_POD, None)
            .unwrap();
        world::lock(&world)
            .delete_object(PODS, Some(NS), SCALE_SET_PODS[1], None)
            .unwrap();
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Deleted(p)) => {
                assert_eq!(p.metadata.name.as_deref(), Some(SCALE_SET_PODS[1]))
            }
            other => panic!("expected the live deletion, got {other:?}"),
        }
        // The stream ends by itself at timeoutSeconds.
        let rest = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            stream.collect::<Vec<_>>(),
        )
        .await
        .expect("the watch ends at its timeout");
        assert!(rest.is_empty(), "{rest:?}");

        // Without a resourceVersion, a watch starts with the current objects as ADDED.
        let wp = WatchParams::default()
            .fields("spec.nodeName=node-1")
            .timeout(1);
        let events: Vec<_> = pods
            .watch(&wp, "0")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let added: Vec<_> = events
            .iter()
            .map(|e| match e {
                WatchEvent::Added(p) => p.metadata.name.clone().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(added, [SCALE_SET_PODS[2]]);

        // A resourceVersion older than the kept history: a 410 error event, then the end.
        let events: Vec<_> = pods
            .watch(&wp, "1")
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        match events.as_slice() {
            [WatchEvent::Error(e)] => assert_eq!((e.code, e.reason.as_str()), (410, "Expired")),
            other => panic!("expected one 410 error event, got {other:?}"),
        }
    }
}
