//! The Kubernetes manifests the simulated ARC creates, shaped as ARC creates them
//! (docs/design.md §7.1): names, labels, annotations, owner references, containers.

use serde_json::{Value, json};

use crate::runners::Pool;

/// The ARC chart version the simulated scale sets claim.
pub(crate) const SCALE_SET_VERSION: &str = "0.13.1";
/// The actions/runner version the simulated runners report.
pub(crate) const RUNNER_VERSION: &str = "2.329.0";

/// An owner reference to `owner` (a stored object with apiVersion, kind, name and uid).
pub(crate) fn owner_ref(owner: &Value) -> Value {
    json!({
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

pub(crate) fn namespace(name: &str) -> Value {
    json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    })
}

pub(crate) fn node(name: &str, index: u32) -> Value {
    json!({
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": "sandbox-4cpu-16gb",
            },
        },
        "spec": {"podCIDR": format!("10.244.{index}.0/24")},
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": format!("172.18.0.{}", index + 2)},
                {"type": "Hostname", "address": name},
            ],
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            "nodeInfo": {"kubeletVersion": "v1.33.1", "operatingSystem": "linux", "architecture": "amd64"},
        },
    })
}

fn config_url(org: &str) -> String {
    format!("https://github.com/{org}")
}

pub(crate) fn autoscaling_runner_set(pool: &Pool, org: &str) -> Value {
    json!({
        "metadata": {
            "name": pool.name,
            "labels": {
                "app.kubernetes.io/component": "autoscaling-runner-set",
                "app.kubernetes.io/name": pool.name,
                "app.kubernetes.io/part-of": "gha-rs",
                "app.kubernetes.io/version": SCALE_SET_VERSION,
                "actions.github.com/scale-set-name": pool.name,
                "actions.github.com/scale-set-namespace": pool.namespace,
            },
            "annotations": {
                "runner-scale-set-id": pool.scale_set_id.to_string(),
                "actions.github.com/runner-group-name": pool.runner_group_name,
                "actions.github.com/runner-scale-set-name": pool.name,
            },
        },
        "spec": {
            "githubConfigUrl": config_url(org),
            "githubConfigSecret": format!("{}-gha-rs-github-secret", pool.name),
            "runnerGroup": pool.runner_group_name,
            "runnerScaleSetName": pool.name,
            "minRunners": pool.replicas,
            "maxRunners": pool.replicas,
            "template": {"spec": {"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:latest", "command": ["/home/runner/run.sh"]}]}},
        },
        "status": {"currentRunners": pool.replicas, "runningEphemeralRunners": pool.replicas},
    })
}

fn scale_set_labels(pool: &Pool, org: &str) -> Value {
    json!({
        "app.kubernetes.io/component": "runner",
        "app.kubernetes.io/part-of": "gha-runner-scale-set",
        "app.kubernetes.io/version": SCALE_SET_VERSION,
        "actions.github.com/scale-set-name": pool.name,
        "actions.github.com/scale-set-namespace": pool.namespace,
        "actions.github.com/organization": org,
    })
}

pub(crate) fn ephemeral_runner_set(pool: &Pool, org: &str, ars: &Value) -> Value {
    json!({
        "metadata": {
            "generateName": format!("{}-", pool.name),
            "labels": scale_set_labels(pool, org),
            "annotations": {"actions.github.com/runner-scale-set-name": pool.name},
            "ownerReferences": [owner_ref(ars)],
        },
        "spec": {"replicas": pool.replicas, "patchID": 0, "ephemeralRunnerSpec": {
            "githubConfigUrl": config_url(org),
            "githubConfigSecret": format!("{}-gha-rs-github-secret", pool.name),
            "runnerScaleSetId": pool.scale_set_id,
        }},
        "status": {"currentReplicas": pool.replicas, "runningEphemeralRunners": pool.replicas},
    })
}

/// The finalizers ARC puts on every EphemeralRunner (docs/design.md §7.2): the first
/// deletes the pod and secret, the second removes the runner from the service.
pub(crate) const EPHEMERAL_RUNNER_FINALIZER: &str = "ephemeralrunner.actions.github.com/finalizer";
pub(crate) const REGISTRATION_FINALIZER: &str =
    "ephemeralrunner.actions.github.com/runner-registration-finalizer";

pub(crate) fn ephemeral_runner(pool: &Pool, org: &str, ers: &Value) -> Value {
    let ers_name = ers["metadata"]["name"].as_str().unwrap_or(&pool.name);
    json!({
        "metadata": {
            "generateName": format!("{ers_name}-runner-"),
            "finalizers": [EPHEMERAL_RUNNER_FINALIZER, REGISTRATION_FINALIZER],
            "labels": scale_set_labels(pool, org),
            "annotations": {
                "actions.github.com/runner-group-name": pool.runner_group_name,
                "actions.github.com/runner-scale-set-name": pool.name,
                "actions.github.com/patch-id": "0",
            },
            "ownerReferences": [owner_ref(ers)],
        },
        "spec": {
            "githubConfigUrl": config_url(org),
            "githubConfigSecret": format!("{}-gha-rs-github-secret", pool.name),
            "runnerScaleSetId": pool.scale_set_id,
            "patchID": 0,
        },
        "status": {"phase": "Pending"},
    })
}

fn runner_container(env: Value, image: &str) -> Value {
    json!({
        "name": "runner",
        "image": image,
        "command": ["/home/runner/run.sh"],
        "env": env,
        "resources": {},
        "imagePullPolicy": "IfNotPresent",
    })
}

pub(crate) fn scale_set_pod(pool: &Pool, org: &str, er: &Value) -> Value {
    let name = er["metadata"]["name"].as_str().unwrap_or_default();
    let mut labels = scale_set_labels(pool, org);
    labels["actions-ephemeral-runner"] = json!("True");
    labels["pod-template-hash"] = json!(pool.template_hash);
    json!({
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {
                "actions.github.com/runner-group-name": pool.runner_group_name,
                "actions.github.com/runner-scale-set-name": pool.name,
                "actions.github.com/patch-id": "0",
            },
            "ownerReferences": [owner_ref(er)],
        },
        "spec": {
            "restartPolicy": "Never",
            "serviceAccountName": "default",
            "containers": [runner_container(json!([
                {"name": "ACTIONS_RUNNER_INPUT_JITCONFIG", "valueFrom": {"secretKeyRef": {"name": name, "key": "jitToken"}}},
                {"name": "ACTIONS_RUNNER_CONTAINER_HOOKS", "value": ""},
            ]), "ghcr.io/actions/actions-runner:latest")],
        },
        "status": {"phase": "Pending"},
    })
}

pub(crate) fn runner_deployment(pool: &Pool, org: &str) -> Value {
    json!({
        "metadata": {"name": pool.name},
        "spec": {
            "replicas": pool.replicas,
            "template": {"spec": {
                "organization": org,
                "group": pool.runner_group_name,
                "labels": [pool.name],
                "ephemeral": true,
            }},
        },
        "status": {"availableReplicas": pool.replicas, "desiredReplicas": pool.replicas, "readyReplicas": pool.replicas, "replicas": pool.replicas},
    })
}

pub(crate) fn runner_replica_set(pool: &Pool, org: &str, rd: &Value) -> Value {
    json!({
        "metadata": {
            "generateName": format!("{}-", pool.name),
            "labels": {"runner-deployment-name": pool.name, "runner-template-hash": pool.template_hash},
            "ownerReferences": [owner_ref(rd)],
        },
        "spec": {
            "replicas": pool.replicas,
            "selector": {"matchLabels": {"runner-deployment-name": pool.name, "runner-template-hash": pool.template_hash}},
            "template": {"spec": {"organization": org, "group": pool.runner_group_name, "labels": [pool.name], "ephemeral": true}},
        },
        "status": {"availableReplicas": pool.replicas, "readyReplicas": pool.replicas, "replicas": pool.replicas},
    })
}

pub(crate) fn runner(pool: &Pool, org: &str, rrs: &Value) -> Value {
    let rrs_name = rrs["metadata"]["name"].as_str().unwrap_or(&pool.name);
    json!({
        "metadata": {
            "generateName": format!("{rrs_name}-"),
            "labels": {"runner-deployment-name": pool.name, "runner-template-hash": pool.template_hash},
            "ownerReferences": [owner_ref(rrs)],
        },
        "spec": {"organization": org, "group": pool.runner_group_name, "labels": [pool.name], "ephemeral": true, "dockerEnabled": true},
        "status": {"phase": "Pending"},
    })
}

/// The runner container of a legacy pod: `summerwind/actions-runner` with a docker sidecar, or
/// (`dind`) `summerwind/actions-runner-dind` running dockerd inside the runner container, whose
/// lines then share the runner's log (docs/design.md §7.5).
fn legacy_containers(pool: &Pool, org: &str, name: &str, dind: bool) -> Value {
    if dind {
        let mut env = legacy_env(pool, org, name);
        if let Some(vars) = env.as_array_mut() {
            for v in vars.iter_mut() {
                match v["name"].as_str() {
                    Some("DOCKERD_IN_RUNNER") => v["value"] = json!("true"),
                    Some("DOCKER_HOST") => v["value"] = json!("unix:///var/run/docker.sock"),
                    _ => {}
                }
            }
        }
        let mut runner = runner_container(env, "summerwind/actions-runner-dind:latest");
        runner["securityContext"] = json!({"privileged": true});
        json!([runner])
    } else {
        json!([
            runner_container(
                legacy_env(pool, org, name),
                "summerwind/actions-runner:latest"
            ),
            docker_container(),
        ])
    }
}

fn legacy_env(pool: &Pool, org: &str, name: &str) -> Value {
    json!([
        {"name": "RUNNER_ORG", "value": org},
        {"name": "RUNNER_REPO", "value": ""},
        {"name": "RUNNER_ENTERPRISE", "value": ""},
        {"name": "RUNNER_LABELS", "value": pool.name},
        {"name": "RUNNER_GROUP", "value": pool.runner_group_name},
        {"name": "RUNNER_EPHEMERAL", "value": "true"},
        {"name": "RUNNER_NAME", "value": name},
        {"name": "GITHUB_URL", "value": "https://github.com/"},
        {"name": "RUNNER_WORKDIR", "value": "/runner/_work"},
        {"name": "DOCKER_ENABLED", "value": "true"},
        {"name": "DOCKERD_IN_RUNNER", "value": "false"},
        {"name": "DOCKER_HOST", "value": "unix:///run/docker.sock"},
    ])
}

fn docker_container() -> Value {
    json!({
        "name": "docker",
        "image": "docker:dind",
        "args": ["dockerd", "--host=unix:///run/docker.sock", "--group=$(DOCKER_GROUP_GID)"],
        "securityContext": {"privileged": true},
        "resources": {},
    })
}

pub(crate) fn legacy_pod(pool: &Pool, org: &str, runner: &Value, dind: bool) -> Value {
    let name = runner["metadata"]["name"].as_str().unwrap_or_default();
    json!({
        "metadata": {
            "name": name,
            "labels": {
                "runner-deployment-name": pool.name,
                "runner-template-hash": pool.template_hash,
                "pod-template-hash": pool.template_hash,
                "actions-runner": "",
                "actions-runner-controller/inject-registration-token": "true",
            },
            "annotations": {},
            "ownerReferences": [owner_ref(runner)],
        },
        "spec": {
            "restartPolicy": "Never",
            "containers": legacy_containers(pool, org, name, dind),
        },
        "status": {"phase": "Pending"},
    })
}

pub(crate) fn runner_set(pool: &Pool, org: &str) -> Value {
    json!({
        "metadata": {"name": pool.name},
        "spec": {
            "replicas": pool.replicas,
            "organization": org,
            "group": pool.runner_group_name,
            "labels": [pool.name],
            "ephemeral": true,
            "selector": {"matchLabels": {"runnerset-name": pool.name}},
            "serviceName": pool.name,
            "template": {"metadata": {"labels": {"runnerset-name": pool.name}}, "spec": {"containers": [{"name": "runner"}]}},
        },
        "status": {"availableReplicas": pool.replicas, "desiredReplicas": pool.replicas, "readyReplicas": pool.replicas, "replicas": pool.replicas},
    })
}

pub(crate) fn stateful_set(pool: &Pool, rs: &Value) -> Value {
    json!({
        "metadata": {
            "generateName": format!("{}-", pool.name),
            "labels": {"runnerset-name": pool.name, "runner-template-hash": pool.template_hash},
            "ownerReferences": [owner_ref(rs)],
        },
        "spec": {
            "replicas": 1,
            "serviceName": pool.name,
            "selector": {"matchLabels": {"runnerset-name": pool.name, "runner-template-hash": pool.template_hash}},
            "template": {"metadata": {"labels": {"runnerset-name": pool.name}}},
        },
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1},
    })
}

pub(crate) fn stateful_set_pod(pool: &Pool, org: &str, sts: &Value, dind: bool) -> Value {
    let sts_name = sts["metadata"]["name"].as_str().unwrap_or_default();
    let name = format!("{sts_name}-0");
    json!({
        "metadata": {
            "name": name,
            "labels": {
                "runnerset-name": pool.name,
                "runner-template-hash": pool.template_hash,
                "controller-revision-hash": format!("{sts_name}-{}", pool.template_hash),
                "statefulset.kubernetes.io/pod-name": name,
                "apps.kubernetes.io/pod-index": "0",
                "actions-runner": "",
                "actions-runner-controller/inject-registration-token": "true",
            },
            "annotations": {},
            "ownerReferences": [owner_ref(sts)],
        },
        "spec": {
            "restartPolicy": "Never",
            "hostname": name,
            "subdomain": pool.name,
            "containers": legacy_containers(pool, org, &name, dind),
        },
        "status": {"phase": "Pending"},
    })
}

/// The status of a pod whose containers all run, started at `at`.
pub(crate) fn running_status(pod: &Value, at: &str, pod_ip: &str, host_ip: &str) -> Value {
    let statuses: Vec<Value> = containers(pod)
        .map(|(name, image)| {
            json!({
                "name": name,
                "image": image,
                "imageID": format!("{image}@sha256:5a1b"),
                "ready": true,
                "started": true,
                "restartCount": 0,
                "state": {"running": {"startedAt": at}},
            })
        })
        .collect();
    json!({
        "phase": "Running",
        "hostIP": host_ip,
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": at,
        "qosClass": "BestEffort",
        "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": at},
            {"type": "Initialized", "status": "True", "lastTransitionTime": at},
            {"type": "ContainersReady", "status": "True", "lastTransitionTime": at},
            {"type": "Ready", "status": "True", "lastTransitionTime": at},
        ],
        "containerStatuses": statuses,
    })
}

/// The status of a pending pod, scheduled or not.
pub(crate) fn pending_status(pod: &Value, scheduled: bool, at: &str) -> Value {
    let statuses: Vec<Value> = containers(pod)
        .map(|(name, image)| {
            json!({
                "name": name,
                "image": image,
                "imageID": "",
                "ready": false,
                "started": false,
                "restartCount": 0,
                "state": {"waiting": {"reason": "ContainerCreating"}},
            })
        })
        .collect();
    if scheduled {
        json!({
            "phase": "Pending",
            "qosClass": "BestEffort",
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": at}],
            "containerStatuses": statuses,
        })
    } else {
        json!({
            "phase": "Pending",
            "qosClass": "BestEffort",
            "conditions": [{
                "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/0 nodes are available: node(s) were unschedulable.",
                "lastTransitionTime": at,
            }],
        })
    }
}

/// What the kubelet reports for a container whose image cannot be pulled yet (`ErrImagePull`,
/// then `ImagePullBackOff` while it waits to retry): the pull was refused by the registry.
pub(crate) fn waiting_message(reason: &str, image: &str) -> Option<String> {
    match reason {
        "ErrImagePull" => Some(format!(
            "failed to pull and unpack image \"{image}\": failed to copy: httpReadSeeker: failed open: unexpected status code 429 Too Many Requests"
        )),
        "ImagePullBackOff" => Some(format!("Back-off pulling image \"{image}\"")),
        _ => None,
    }
}

/// Sets the `runner` container of a pending pod waiting for `reason`, as the kubelet reports
/// it (`state.waiting.reason` and `message`); the pod's conditions say its containers are not
/// ready.
pub(crate) fn set_runner_waiting(pod: &mut Value, reason: &str) {
    let status = &mut pod["status"];
    if let Some(list) = status["containerStatuses"].as_array_mut() {
        for cs in list.iter_mut().filter(|c| c["name"] == "runner") {
            let image = cs["image"].as_str().unwrap_or_default().to_owned();
            let mut waiting = json!({"reason": reason});
            if let Some(m) = waiting_message(reason, &image) {
                waiting["message"] = json!(m);
            }
            cs["state"] = json!({"waiting": waiting});
        }
    }
}

/// The status of a pod whose containers exited with `code` at `at` (`restartPolicy: Never`:
/// 0 is Succeeded, anything else Failed).
pub(crate) fn terminated_status(pod: &Value, at: &str, code: i32) -> Value {
    let mut status = pod["status"].clone();
    let (phase, reason) = if code == 0 {
        ("Succeeded", "Completed")
    } else {
        ("Failed", "Error")
    };
    status["phase"] = json!(phase);
    if let Some(list) = status["containerStatuses"].as_array_mut() {
        for cs in list {
            let started = cs["state"]["running"]["startedAt"].clone();
            cs["ready"] = json!(false);
            cs["started"] = json!(false);
            cs["state"] = json!({"terminated": {
                "exitCode": code, "reason": reason, "startedAt": started, "finishedAt": at,
            }});
        }
    }
    if let Some(list) = status["conditions"].as_array_mut() {
        for c in list {
            if c["type"] == "Ready" || c["type"] == "ContainersReady" {
                c["status"] = json!("False");
                c["reason"] = json!("PodCompleted");
            }
        }
    }
    status
}

fn containers(pod: &Value) -> impl Iterator<Item = (String, String)> + '_ {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_owned(),
                c["image"].as_str().unwrap_or_default().to_owned(),
            )
        })
}
