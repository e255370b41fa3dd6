//! The cluster facts arcctl works with: runner pods and EphemeralRunners, reduced from the
//! Kubernetes objects to what joining, listing and draining need.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use kube::api::DynamicObject;
use serde::Serialize;
use serde_json::Value;

use crate::cluster::arc::{self, Mode, Owner};

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
    pub labels: BTreeMap<String, String>,
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
    /// Reduces a pod; `None` when it is not an ARC runner pod.
    pub fn from_pod(pod: &Pod) -> Option<Self> {
        let meta = &pod.metadata;
        let labels = meta.labels.clone().unwrap_or_default();
        if !arc::is_runner_pod(&labels) {
            return None;
        }
        let annotations = meta.annotations.clone().unwrap_or_default();
        let owners: Vec<Owner> = meta
            .owner_references
            .iter()
            .flatten()
            .map(|o| Owner {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                uid: o.uid.clone(),
                controller: o.controller.unwrap_or(false),
            })
            .collect();
        let status = pod.status.as_ref();
        let runner_container = status
            .and_then(|s| s.container_statuses.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.name == "runner"))
            .map(|c| ContainerState {
                ready: c.ready,
                restart_count: c.restart_count,
                state: match &c.state {
                    Some(s) if s.terminated.is_some() => "terminated",
                    Some(s) if s.running.is_some() => "running",
                    _ => "waiting",
                }
                .to_owned(),
                reason: c.state.as_ref().and_then(|s| {
                    s.waiting
                        .as_ref()
                        .and_then(|w| w.reason.clone())
                        .or_else(|| s.terminated.as_ref().and_then(|t| t.reason.clone()))
                }),
                started_at: c
                    .state
                    .as_ref()
                    .and_then(|s| s.running.as_ref())
                    .and_then(|r| r.started_at.as_ref())
                    .map(|t| t.0),
            });
        Some(RunnerPod {
            name: meta.name.clone().unwrap_or_default(),
            namespace: meta.namespace.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            node: pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .filter(|n| !n.is_empty()),
            phase: status.and_then(|s| s.phase.clone()),
            created: meta.creation_timestamp.as_ref().map(|t| t.0),
            deleting: meta.deletion_timestamp.is_some(),
            scale_set: arc::scale_set_name(&labels).map(str::to_owned),
            mode: arc::mode(&owners),
            owner: arc::controlling_owner(&owners).cloned(),
            recorded_runner_id: arc::recorded_runner_id(&annotations),
            runner_container,
            labels,
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
    pub fn from_dynamic(obj: &DynamicObject) -> Self {
        let status = obj.data.get("status");
        let field = |k: &str| status.and_then(|s| s.get(k));
        EphemeralRunner {
            name: obj.metadata.name.clone().unwrap_or_default(),
            namespace: obj.metadata.namespace.clone().unwrap_or_default(),
            uid: obj.metadata.uid.clone().unwrap_or_default(),
            runner_id: field("runnerId").and_then(as_id),
            job_id: field("jobId").and_then(as_text),
            job_display_name: field("jobDisplayName").and_then(as_text),
            job_repository: field("jobRepositoryName").and_then(as_text),
            workflow_run_id: field("workflowRunId").and_then(as_text),
            phase: field("phase").and_then(as_text),
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

    #[test]
    fn reduces_a_scale_set_pod() {
        let pod: Pod = serde_json::from_value(json!({
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
                "state": {"running": {}}}]}
        }))
        .unwrap();
        let p = RunnerPod::from_pod(&pod).unwrap();
        assert_eq!(p.mode, Mode::ScaleSet);
        assert_eq!(p.scale_set.as_deref(), Some("arc"));
        assert_eq!(p.node.as_deref(), Some("node-1"));
        assert_eq!(p.owner.as_ref().unwrap().uid, "er1");
        assert_eq!(p.runner_container.as_ref().unwrap().state, "running");
        assert_eq!(p.created.unwrap().to_string(), "2026-11-29T20:00:00Z");
        assert!(!p.deleting);
    }

    #[test]
    fn skips_other_pods_and_reads_legacy_ids() {
        let web: Pod =
            serde_json::from_value(json!({"metadata": {"name": "web", "labels": {"app": "web"}}}))
                .unwrap();
        assert!(RunnerPod::from_pod(&web).is_none());
        let legacy: Pod = serde_json::from_value(json!({"metadata": {
            "name": "rd-abc-x", "namespace": "ns",
            "labels": {"actions-runner": "", "runner-deployment-name": "rd"},
            "annotations": {"actions-runner/id": "77"}}}))
        .unwrap();
        let p = RunnerPod::from_pod(&legacy).unwrap();
        assert_eq!(p.recorded_runner_id, Some(77));
        assert_eq!(p.mode, Mode::Other);
        assert_eq!(p.node, None);
    }

    #[test]
    fn reads_ephemeral_runner_status() {
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": "r", "namespace": "ns", "uid": "u"},
            "status": {"runnerId": 12, "jobId": "", "jobDisplayName": "build", "phase": "Running"}
        }))
        .unwrap();
        let er = EphemeralRunner::from_dynamic(&obj);
        assert_eq!(er.runner_id, Some(12));
        assert_eq!(er.job_id, None);
        assert_eq!(er.job_display_name.as_deref(), Some("build"));
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": "r"},
            "status": {"runnerId": 0, "jobId": 99, "jobRepositoryName": "acme/app", "workflowRunId": 7001}
        }))
        .unwrap();
        let er = EphemeralRunner::from_dynamic(&obj);
        assert_eq!(er.runner_id, None);
        assert_eq!(er.job_id.as_deref(), Some("99"));
        assert_eq!(er.job_repository.as_deref(), Some("acme/app"));
        assert_eq!(er.workflow_run_id.as_deref(), Some("7001"));
    }
}
