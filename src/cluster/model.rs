//! The cluster facts arcctl works with: runner pods and EphemeralRunners, reduced from the
//! Kubernetes objects to what joining, listing and draining need.

use serde::Serialize;
use serde_json::Value;

use crate::cluster::arc::{self, Mode, Owner};
use crate::cluster::wire;

/// An ARC runner pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunnerPod {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub node: Option<String>,
    /// `Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`.
    pub phase: Option<String>,
    pub created: Option<jiff::Timestamp>,
    /// Being deleted (has a `deletionTimestamp`).
    pub deleting: bool,
    // No label map: the labels decide at decoding whether it is a runner pod and its scale
    // set, and nothing reads them after; at 10,000 pods they were a tenth of `list`'s memory.
    pub mode: Mode,
    /// The controlling owner (EphemeralRunner, Runner, StatefulSet, …).
    pub owner: Option<Owner>,
    /// Scale set, RunnerDeployment or RunnerSet name.
    pub scale_set: Option<String>,
    /// The runner id recorded on the pod (legacy `actions-runner/id`).
    pub recorded_runner_id: Option<u64>,
    /// The `runner` container's state, if the pod has one.
    pub runner_container: Option<ContainerState>,
}

/// What the kubelet reports about the `runner` container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerState {
    pub ready: bool,
    pub restart_count: i32,
    /// `running`, `waiting` or `terminated`.
    pub state: String,
    /// The kubelet's reason for a waiting or terminated container (`ContainerCreating`,
    /// `ImagePullBackOff`, `Completed`, `Error`, …).
    pub reason: Option<String>,
    /// When the running container started (the idle check reads its log back to here).
    #[serde(skip)]
    pub started_at: Option<jiff::Timestamp>,
}

impl RunnerPod {
    /// Reduces a pod as read off the wire; `None` when it is not an ARC runner pod.
    pub(crate) fn from_wire(pod: wire::Pod) -> Option<Self> {
        let meta = pod.metadata;
        let labels = meta.labels.unwrap_or_default();
        if !arc::is_runner_pod(&labels) {
            return None;
        }
        let owners: Vec<Owner> = meta
            .owner_references
            .into_iter()
            .flatten()
            .map(|o| Owner {
                api_version: o.api_version,
                kind: o.kind,
                name: o.name,
                uid: o.uid,
                controller: o.controller.unwrap_or(false),
            })
            .collect();
        let status = pod.status.unwrap_or_default();
        let runner_container = status
            .container_statuses
            .into_iter()
            .flatten()
            .find(|c| c.name == "runner")
            .map(|c| {
                let state = c.state.unwrap_or_default();
                ContainerState {
                    ready: c.ready,
                    restart_count: c.restart_count,
                    state: if state.terminated.is_some() {
                        "terminated"
                    } else if state.running.is_some() {
                        "running"
                    } else {
                        "waiting"
                    }
                    .to_owned(),
                    started_at: state.running.as_ref().and_then(|r| r.started_at),
                    reason: state
                        .waiting
                        .and_then(|w| w.reason)
                        .or_else(|| state.terminated.and_then(|t| t.reason)),
                }
            });
        let mode = arc::mode(&owners);
        let owner = arc::controlling_owner(&owners).cloned();
        Some(RunnerPod {
            name: meta.name.unwrap_or_default(),
            namespace: meta.namespace.unwrap_or_default(),
            uid: meta.uid.unwrap_or_default(),
            node: pod.spec.and_then(|s| s.node_name).filter(|n| !n.is_empty()),
            phase: status.phase,
            created: meta.creation_timestamp,
            deleting: meta.deletion_timestamp.is_some(),
            scale_set: arc::scale_set_name(&labels).map(str::to_owned),
            mode,
            owner,
            recorded_runner_id: meta
                .runner_id_annotation
                .as_deref()
                .and_then(arc::parse_runner_id),
            runner_container,
        })
    }
}

/// An EphemeralRunner (scale-set mode): the runner id ARC registered and the job it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EphemeralRunner {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    /// `status.runnerId`.
    pub runner_id: Option<u64>,
    /// `status.jobId` (empty when idle).
    pub job_id: Option<String>,
    /// `status.jobDisplayName`.
    pub job_display_name: Option<String>,
    /// `status.jobRepositoryName` (`owner/repo`).
    pub job_repository: Option<String>,
    /// `status.workflowRunId`.
    pub workflow_run_id: Option<String>,
    /// `status.phase`.
    pub phase: Option<String>,
}

impl EphemeralRunner {
    /// An EphemeralRunner as read off the wire.
    pub(crate) fn from_wire(er: wire::EphemeralRunner) -> Self {
        let status = er.status.unwrap_or_default();
        EphemeralRunner {
            name: er.metadata.name.unwrap_or_default(),
            namespace: er.metadata.namespace.unwrap_or_default(),
            uid: er.metadata.uid.unwrap_or_default(),
            runner_id: status.runner_id.as_ref().and_then(as_id),
            job_id: status.job_id.as_ref().and_then(as_text),
            job_display_name: status.job_display_name.as_ref().and_then(as_text),
            job_repository: status.job_repository_name.as_ref().and_then(as_text),
            workflow_run_id: status.workflow_run_id.as_ref().and_then(as_text),
            phase: status.phase.as_ref().and_then(as_text),
        }
    }
}

/// A non-zero id from a number or a numeric string (ARC uses 0 for "not yet").
fn as_id(v: &Value) -> Option<u64> {
    let id = match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }?;
    (id != 0).then_some(id)
}

/// A non-empty string from a string or a number (`jobId` has been both).
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) if n.as_u64() != Some(0) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn from_pod(v: Value) -> Option<RunnerPod> {
        RunnerPod::from_wire(serde_json::from_value(v).unwrap())
    }

    fn from_er(v: Value) -> EphemeralRunner {
        EphemeralRunner::from_wire(serde_json::from_value(v).unwrap())
    }

    #[test]
    fn reduces_a_scale_set_pod() {
        let p = from_pod(json!({
            "metadata": {
                "name": "arc-abc-runner-x1", "namespace": "arc-runners", "uid": "u1",
                "creationTimestamp": "2026-11-29T20:00:00Z",
                "labels": {"actions.github.com/scale-set-name": "arc", "actions-ephemeral-runner": "True"},
                "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
                                     "name": "arc-abc-runner-x1", "uid": "er1", "controller": true}]
            },
            "spec": {"nodeName": "node-1", "containers": [{"name": "runner"}]},
            "status": {"phase": "Running", "containerStatuses": [{
                "name": "runner", "ready": true, "restartCount": 0, "image": "i", "imageID": "",
                "state": {"running": {"startedAt": "2026-11-29T20:00:05Z"}}}]}
        }))
        .unwrap();
        assert_eq!(p.mode, Mode::ScaleSet);
        assert_eq!(p.scale_set.as_deref(), Some("arc"));
        assert_eq!(p.node.as_deref(), Some("node-1"));
        assert_eq!(p.owner.as_ref().unwrap().uid, "er1");
        let c = p.runner_container.as_ref().unwrap();
        assert_eq!(c.state, "running");
        assert!(c.ready);
        assert_eq!(c.started_at.unwrap().to_string(), "2026-11-29T20:00:05Z");
        assert_eq!(p.created.unwrap().to_string(), "2026-11-29T20:00:00Z");
        assert_eq!(p.phase.as_deref(), Some("Running"));
        assert!(!p.deleting);
    }

    #[test]
    fn skips_other_pods_and_reads_legacy_ids() {
        assert!(from_pod(json!({"metadata": {"name": "web", "labels": {"app": "web"}}})).is_none());
        assert!(from_pod(json!({"metadata": {"name": "bare"}})).is_none());
        let p = from_pod(json!({"metadata": {
            "name": "rd-abc-x", "namespace": "ns",
            "labels": {"actions-runner": "", "runner-deployment-name": "rd"},
            "annotations": {"actions-runner/id": " 77 ", "other": "x"}}}))
        .unwrap();
        assert_eq!(p.recorded_runner_id, Some(77));
        assert_eq!(p.mode, Mode::Other);
        assert_eq!(p.node, None);
        assert_eq!(p.runner_container, None);
        assert_eq!(p.scale_set.as_deref(), Some("rd"));
    }

    #[test]
    fn container_reasons_owners_and_deletion() {
        let p = from_pod(json!({
            "metadata": {"name": "rs-0", "labels": {"runnerset-name": "rs"},
                "deletionTimestamp": "2026-11-29T21:00:00Z",
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "c1"},
                    {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "rs", "uid": "s1", "controller": true}]},
            "spec": {"nodeName": ""},
            "status": {"phase": "Failed", "containerStatuses": [
                {"name": "dind", "ready": true, "restartCount": 0, "state": {"running": {}}},
                {"name": "runner", "ready": false, "restartCount": 3,
                 "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]}
        }))
        .unwrap();
        assert_eq!(p.mode, Mode::LegacyStatefulset);
        assert_eq!(p.owner.as_ref().unwrap().uid, "s1");
        assert!(p.deleting);
        // An empty node name is no node.
        assert_eq!(p.node, None);
        let c = p.runner_container.unwrap();
        assert_eq!(
            (
                c.state.as_str(),
                c.reason.as_deref(),
                c.restart_count,
                c.started_at
            ),
            ("terminated", Some("Error"), 3, None)
        );
        let p = from_pod(json!({
            "metadata": {"name": "x", "labels": {"actions-ephemeral-runner": "True"}},
            "status": {"containerStatuses": [{"name": "runner",
                 "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}
        }))
        .unwrap();
        let c = p.runner_container.unwrap();
        assert_eq!(
            (c.state.as_str(), c.reason.as_deref()),
            ("waiting", Some("ImagePullBackOff"))
        );
        assert_eq!(p.owner, None);
    }

    #[test]
    fn reads_ephemeral_runner_status() {
        let er = from_er(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": "r", "namespace": "ns", "uid": "u"},
            "spec": {"githubConfigUrl": "https://github.com/o"},
            "status": {"runnerId": 12, "jobId": "", "jobDisplayName": "build", "phase": "Running",
                       "jobRepositoryName": "o/web"}
        }));
        assert_eq!(
            (er.name.as_str(), er.namespace.as_str(), er.uid.as_str()),
            ("r", "ns", "u")
        );
        assert_eq!(er.runner_id, Some(12));
        assert_eq!(er.job_id, None);
        assert_eq!(er.job_display_name.as_deref(), Some("build"));
        assert_eq!(er.job_repository.as_deref(), Some("o/web"));
        assert_eq!(er.phase.as_deref(), Some("Running"));
        let er = from_er(json!({"metadata": {"name": "r"},
            "status": {"runnerId": 0, "jobId": 99, "jobRepositoryName": "acme/app", "workflowRunId": 7001}}));
        assert_eq!(er.runner_id, None);
        assert_eq!(er.job_id.as_deref(), Some("99"));
        assert_eq!(er.job_repository.as_deref(), Some("acme/app"));
        assert_eq!(er.workflow_run_id.as_deref(), Some("7001"));
        let er = from_er(json!({"metadata": {"name": "r"}, "status": {"runnerId": "31"}}));
        assert_eq!(er.runner_id, Some(31));
        let er = from_er(json!({"metadata": {"name": "r"}, "status": null}));
        assert_eq!((er.runner_id, er.phase), (None, None));
    }
}
