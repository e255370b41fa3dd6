//! Fixtures for the fake Kubernetes API tests: a small ARC world built directly in the store, the
//! API served on 127.0.0.1, a kubeconfig for it, and a bounded runner for the real kubectl.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use arcctl::cli::{Cli, Command};
use arcctl::sandbox::store::{
    AUTOSCALING_RUNNER_SETS, EPHEMERAL_RUNNER_SETS, EPHEMERAL_RUNNERS, NAMESPACES, NODES, PODS,
    RUNNER_DEPLOYMENTS, RUNNERS,
};
use arcctl::sandbox::world::{self, SharedWorld, World};
use clap::Parser;
use serde_json::{Value, json};

pub const NS: &str = "arc-runners";
pub const OTHER_NS: &str = "team-b";
pub const ERS: &str = "arc-runner-set-ws992";
pub const SCALE_SET_PODS: [&str; 3] = [
    "arc-runner-set-ws992-runner-gx56b",
    "arc-runner-set-ws992-runner-k2f7q",
    "arc-runner-set-ws992-runner-t8m4z",
];
pub const LEGACY_POD: &str = "legacy-rd-x7k2p-9fz4q";
pub const OTHER_POD: &str = "web-runner-0";
pub const RUNNER_LOG: [&str; 4] = [
    "2026-11-29 21:00:00Z: √ Connected to GitHub",
    "2026-11-29 21:00:01Z: Listening for Jobs",
    "2026-11-29 21:00:07Z: Running job: build",
    "2026-11-29 21:00:37Z: Job build completed with result: Succeeded",
];

/// Sandbox options from command-line flags, as `arcctl sandbox FLAGS` would parse them.
pub fn args(flags: &[&str]) -> arcctl::sandbox::Options {
    let mut argv = vec!["arcctl", "sandbox"];
    argv.extend_from_slice(flags);
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Sandbox(a) => a.world,
        other => panic!("not a sandbox command: {other:?}"),
    }
}

fn owner(kind: &str, name: &str, uid: &Value) -> Value {
    json!([{ "apiVersion": "actions.github.com/v1alpha1", "kind": kind, "name": name,
             "uid": uid, "controller": true, "blockOwnerDeletion": true }])
}

fn running_status(containers: &[&str]) -> Value {
    let statuses: Vec<Value> = containers
        .iter()
        .map(|c| json!({"name": c, "ready": true, "restartCount": 0, "state": {"running": {}}}))
        .collect();
    json!({"phase": "Running", "podIP": "10.0.0.7", "containerStatuses": statuses})
}

/// A mixed-mode world (both ARC flavours installed) with two nodes, a scale set (three EphemeralRunners and their pods, on node-1), a legacy
/// RunnerDeployment pod with `runner` and `docker` containers (on node-2) and a pod in another
/// namespace.
pub fn world(flags: &[&str]) -> SharedWorld {
    let mut all = flags.to_vec();
    if !flags.contains(&"--mode") {
        all.extend(["--mode", "mixed"]);
    }
    let mut w = World::empty(args(&all));
    let s = &mut w.store;
    for ns in [NS, OTHER_NS, "arc-systems"] {
        s.create(
            NAMESPACES,
            None,
            json!({"metadata": {"name": ns}, "status": {"phase": "Active"}}),
        )
        .unwrap();
    }
    for node in ["node-1", "node-2"] {
        s.create(
            NODES,
            None,
            json!({
                "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}},
                "spec": {},
                "status": {"conditions": [{"type": "Ready", "status": "True"}],
                           "nodeInfo": {"kubeletVersion": "v1.33.0"}},
            }),
        )
        .unwrap();
    }
    let ars = s
        .create(
            AUTOSCALING_RUNNER_SETS,
            Some(NS),
            json!({"metadata": {"name": "arc-runner-set"},
            "spec": {"githubConfigUrl": "https://github.com/sandbox-org"}}),
        )
        .unwrap();
    let ers = s
        .create(EPHEMERAL_RUNNER_SETS, Some(NS), json!({"metadata": {"name": ERS,
            "ownerReferences": owner("AutoscalingRunnerSet", "arc-runner-set", &ars["metadata"]["uid"])},
            "spec": {"replicas": 3}}))
        .unwrap();
    for (i, name) in SCALE_SET_PODS.iter().enumerate() {
        let er = s
            .create(EPHEMERAL_RUNNERS, Some(NS), json!({
                "metadata": {"name": name, "labels": {"actions.github.com/scale-set-name": "arc-runner-set"},
                    "finalizers": ["ephemeralrunner.actions.github.com/finalizer"],
                    "ownerReferences": owner("EphemeralRunnerSet", ERS, &ers["metadata"]["uid"])},
                "spec": {"githubConfigUrl": "https://github.com/sandbox-org", "runnerScaleSetId": 1},
                "status": {"phase": "Running", "runnerId": 100 + i, "runnerName": name},
            }))
            .unwrap();
        s.create(PODS, Some(NS), json!({
            "metadata": {"name": name, "labels": {
                    "app.kubernetes.io/part-of": "gha-runner-scale-set",
                    "app.kubernetes.io/component": "runner",
                    "actions.github.com/scale-set-name": "arc-runner-set",
                    "actions.github.com/scale-set-namespace": NS,
                    "actions.github.com/organization": "sandbox-org",
                    "actions-ephemeral-runner": "True",
                    "pod-template-hash": "5d8f7c9b6"},
                "annotations": {"actions.github.com/runner-scale-set-name": "arc-runner-set"},
                "ownerReferences": owner("EphemeralRunner", name, &er["metadata"]["uid"])},
            "spec": {"nodeName": "node-1", "restartPolicy": "Never",
                "initContainers": [{"name": "init-dind-externals", "image": "ghcr.io/actions/actions-runner:2.329.0"}],
                "containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.329.0",
                                "command": ["/home/runner/run.sh"]}]},
            "status": running_status(&["runner"]),
        }))
        .unwrap();
        for line in RUNNER_LOG {
            s.append_log(NS, name, "runner", line.to_owned());
        }
    }
    let rd = s
        .create(
            RUNNER_DEPLOYMENTS,
            Some(NS),
            json!({"metadata": {"name": "legacy-rd"}, "spec": {"replicas": 1}}),
        )
        .unwrap();
    let runner = s
        .create(RUNNERS, Some(NS), json!({"metadata": {"name": LEGACY_POD,
            "labels": {"runner-deployment-name": "legacy-rd"},
            "ownerReferences": [{"apiVersion": "actions.summerwind.dev/v1alpha1", "kind": "RunnerReplicaSet",
                                 "name": "legacy-rd-x7k2p", "uid": rd["metadata"]["uid"], "controller": true}]},
            "spec": {"organization": "sandbox-org"}}))
        .unwrap();
    s.create(PODS, Some(NS), json!({
        "metadata": {"name": LEGACY_POD,
            "labels": {"actions-runner": "", "runner-deployment-name": "legacy-rd",
                       "actions-runner-controller/inject-registration-token": "true",
                       "runner-template-hash": "7c9d8f6b5", "pod-template-hash": "6f7d9c8b4"},
            "annotations": {"actions-runner/id": "200"},
            "finalizers": ["actions.summerwind.dev/runner-pod"],
            "ownerReferences": [{"apiVersion": "actions.summerwind.dev/v1alpha1", "kind": "Runner",
                                 "name": LEGACY_POD, "uid": runner["metadata"]["uid"], "controller": true}]},
        "spec": {"nodeName": "node-2", "restartPolicy": "Never",
            "containers": [{"name": "runner", "image": "summerwind/actions-runner:latest"},
                           {"name": "docker", "image": "docker:dind"}]},
        "status": running_status(&["runner", "docker"]),
    }))
    .unwrap();
    s.append_log(NS, LEGACY_POD, "runner", RUNNER_LOG[0].to_owned());
    s.append_log(
        NS,
        LEGACY_POD,
        "docker",
        "dockerd: API listen on /var/run/docker.sock".to_owned(),
    );
    s.create(
        PODS,
        Some(OTHER_NS),
        json!({
            "metadata": {"name": OTHER_POD, "labels": {"app": "web"}},
            "spec": {"nodeName": "node-2", "containers": [{"name": "web"}]},
            "status": {"phase": "Pending"},
        }),
    )
    .unwrap();
    w.shared()
}

/// Serves the fake Kubernetes API for `world` on 127.0.0.1, with the world's clock ticking (so
/// finalizer work runs, as ARC's controllers would); returns its base URL.
pub async fn serve(world: SharedWorld) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let clock = world.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            world::lock(&clock).tick(std::time::Instant::now());
        }
    });
    tokio::spawn(async move {
        axum::serve(listener, arcctl::sandbox::kube_api::router(world))
            .await
            .unwrap();
    });
    format!("http://{addr}")
}

/// A kubeconfig for `url` in a fresh directory that also serves kubectl as HOME and cache.
pub struct Kube {
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

pub fn kubeconfig(url: &str) -> Kube {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: sandbox\n\
             clusters:\n- name: sandbox\n  cluster:\n    server: {url}\n\
             users:\n- name: sandbox\n  user: {{}}\n\
             contexts:\n- name: sandbox\n  context:\n    cluster: sandbox\n    user: sandbox\n    namespace: {NS}\n"
        ),
    )
    .unwrap();
    Kube { dir, kubeconfig }
}

pub const KUBECTL: &str = "/usr/bin/kubectl";

/// The output of one kubectl run.
pub struct Out {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Kube {
    /// Runs the real kubectl against the sandbox, killed after 60 s.
    pub async fn kubectl(&self, args: &[&str]) -> Out {
        assert!(
            std::path::Path::new(KUBECTL).exists(),
            "kubectl is missing at {KUBECTL}: these tests drive the real kubectl; install it with \
             `apt-get install kubernetes-client` (or put a kubectl at {KUBECTL})"
        );
        let home = self.dir.path();
        let mut cmd = tokio::process::Command::new(KUBECTL);
        cmd.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(home.join("cache"))
            .arg("--request-timeout=20s")
            .args(args)
            .env("HOME", home)
            .env("CLOUDSDK_CONFIG", home.join("gcloud"))
            .env_remove("KUBECONFIG")
            .env("NO_PROXY", "127.0.0.1")
            .kill_on_drop(true);
        for var in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            cmd.env_remove(var);
        }
        let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} did not finish within 60 s"))
            .unwrap();
        Out {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Like [`Kube::kubectl`], failing the test unless kubectl succeeds.
    pub async fn ok(&self, args: &[&str]) -> String {
        let out = self.kubectl(args).await;
        assert!(
            out.ok,
            "kubectl {args:?} failed:\n{}\n{}",
            out.stdout, out.stderr
        );
        out.stdout
    }
}

/// A kube-rs client from the kubeconfig, as arcctl builds one.
pub async fn client(kube: &Kube) -> kube::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = kube::config::Kubeconfig::read_from(&kube.kubeconfig).unwrap();
    let config =
        kube::Config::from_custom_kubeconfig(config, &kube::config::KubeConfigOptions::default())
            .await
            .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// How many requests matching `method`, `pattern` and `status` the world counted.
pub fn count(world: &SharedWorld, method: &str, pattern: &str, status: u16) -> u64 {
    world::lock(world)
        .stats
        .kube
        .get(&(method.to_owned(), pattern.to_owned(), status))
        .copied()
        .unwrap_or(0)
}

/// Whether the store holds pod `ns`/`name`.
pub fn has_pod(world: &SharedWorld, ns: &str, name: &str) -> bool {
    world::lock(world).store.get(PODS, Some(ns), name).is_some()
}
