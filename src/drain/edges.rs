//! The pipeline's edges on the real clients: `GitHubClient` as [`GitHubOps`], `Cluster` as
//! [`ClusterOps`], and inventory entries as plan candidates.

use std::sync::Arc;
use std::time::Duration;

use crate::cluster::{Cluster, DeleteResult, Mode};
use crate::drain::evidence::{LogRead, Observation, PodNow};
use crate::drain::ops::{
    ClusterError, ClusterOps, Deleted, GitHubOps, ReadError, RunnerNow, Unregistered,
};
use crate::drain::pacer::RateHint;
use crate::drain::plan::{Candidate, DeleteTarget, Owner, PodRef};
use crate::error::{Failure, Kind};
use crate::github::{self, DeleteOutcome, GitHubClient};
use crate::inventory::Entry;

/// The most the idle check reads of a runner log at once; a longer log is read on from where
/// the answer ended, and a log that cannot be read whole is never taken as proof of idleness.
const LOG_READ_LIMIT: i64 = 1024 * 1024;

/// The annotation legacy ARC writes after a successful unregister; its pod finalizer then
/// skips unregistering again.
pub const UNREGISTRATION_COMPLETE: &str = "actions-runner/unregistration-complete-timestamp";

/// A plan candidate from a joined inventory entry.
pub fn candidate(e: &Entry) -> Candidate {
    Candidate {
        name: e.name.clone(),
        runner_id: e.registration.as_ref().map(|r| r.id),
        state: e.state,
        job: e.job.clone(),
        pod: e.pod.as_ref().map(|p| PodRef {
            namespace: p.namespace.clone(),
            name: p.name.clone(),
            uid: p.uid.clone(),
            node: p.node.clone(),
            owner: match (p.mode, &p.owner) {
                (Mode::ScaleSet, Some(o)) => Owner::EphemeralRunner {
                    name: o.name.clone(),
                    uid: o.uid.clone(),
                },
                (Mode::LegacyRunner, Some(o)) => Owner::Runner {
                    name: o.name.clone(),
                },
                (Mode::LegacyStatefulset, Some(o)) => Owner::StatefulSet {
                    name: o.name.clone(),
                },
                _ => Owner::Other,
            },
        }),
    }
}

/// GitHub, as the pipeline sees it.
#[derive(Clone)]
pub struct GitHubEdge(pub Arc<GitHubClient>);

fn rate_hint(rate: &github::RateInfo) -> RateHint {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    RateHint {
        remaining: rate.remaining,
        reset_in: rate
            .reset
            .map(|r| Duration::from_secs(r.saturating_sub(now).max(1))),
        retry_after: rate.retry_after,
    }
}

/// A single-runner read, reduced to what the pipeline decides on.
fn now(
    r: Result<Option<github::Runner>, github::ReadError>,
) -> Result<Option<RunnerNow>, ReadError> {
    r.map(|r| {
        r.map(|r| RunnerNow {
            id: r.id,
            busy: r.busy,
        })
    })
    .map_err(read_error)
}

fn read_error(e: github::ReadError) -> ReadError {
    match e {
        github::ReadError::Denied(e) => ReadError::Denied(Failure::from(e)),
        github::ReadError::RateLimited { limit, .. } => ReadError::RateLimited(limit),
        github::ReadError::Other(e) => ReadError::Other(Failure::from(e)),
    }
}

impl GitHubOps for GitHubEdge {
    async fn unregister(&self, id: u64) -> (Unregistered, RateHint) {
        let reply = self.0.delete_runner(id).await;
        let hint = rate_hint(&reply.rate);
        let answer = match reply.outcome {
            DeleteOutcome::Removed => Unregistered::Removed,
            DeleteOutcome::NotFound => Unregistered::NotFound,
            // ARC treats every 422 as "not removed": so do we. The pod is left alone.
            DeleteOutcome::Busy { message } => Unregistered::Busy { message },
            DeleteOutcome::RateLimited { status, .. } => Unregistered::RateLimited {
                status,
                limit: reply.rate.limit(),
            },
            DeleteOutcome::Denied { status, message } => Unregistered::Denied {
                status,
                failure: Failure::from(self.0.denied_error(status, &message)),
            },
            DeleteOutcome::ServerError { status, message } => Unregistered::Transient {
                status: Some(status),
                reason: format!("GitHub answered {status}: {message}"),
            },
            DeleteOutcome::Transport { kind, detail } => Unregistered::Transient {
                status: None,
                reason: format!("{}: {detail}", kind.describe()),
            },
            DeleteOutcome::Unexpected { status, message } => Unregistered::Transient {
                status: Some(status),
                reason: format!("unexpected answer {status}: {message}"),
            },
        };
        (answer, hint)
    }

    async fn runner(&self, id: u64) -> Result<Option<RunnerNow>, ReadError> {
        now(self.0.get_runner(id).await)
    }

    async fn runner_named(&self, name: &str) -> Result<Option<RunnerNow>, ReadError> {
        now(self.0.find_runner_by_name(name).await)
    }
}

/// The cluster, as the pipeline sees it.
#[derive(Clone)]
pub struct ClusterEdge(pub Arc<Cluster>);

fn cluster_error(e: crate::error::Error) -> ClusterError {
    if e.kind() == Kind::Auth {
        ClusterError::Denied(Failure::from(e))
    } else {
        ClusterError::Other(Failure::from(e))
    }
}

/// The runner container as the idle check sees it.
fn pod_now(p: &crate::cluster::RunnerPod) -> PodNow {
    match &p.runner_container {
        Some(c) if c.state == "terminated" => PodNow::Terminated {
            reason: c.reason.clone(),
        },
        Some(c) if c.state == "waiting" => PodNow::Waiting {
            reason: c.reason.clone().unwrap_or_else(|| "waiting".into()),
        },
        Some(c) => PodNow::Running {
            started_at: c.started_at,
        },
        // No container status yet: a pod that has not started its containers.
        None if p.phase.as_deref() == Some("Pending") => PodNow::Waiting {
            reason: "Pending".into(),
        },
        None => PodNow::Running { started_at: None },
    }
}

fn deleted(d: DeleteResult) -> Deleted {
    match d {
        DeleteResult::Deleted => Deleted::Deleted,
        DeleteResult::AlreadyGone => Deleted::NotFound,
        DeleteResult::Replaced => Deleted::Replaced,
    }
}

impl ClusterOps for ClusterEdge {
    async fn observe(
        &self,
        target: &DeleteTarget,
        from: jiff::Timestamp,
    ) -> Result<Observation, ClusterError> {
        let ns = target.namespace();
        let name = target.pod_name();
        // The API rounds `sinceTime` to whole seconds: ask from a second earlier; the tracker
        // drops what it has read.
        let since = from
            .checked_sub(jiff::SignedDuration::from_secs(1))
            .unwrap_or(from);
        // The pod, its log and its EphemeralRunner are read at once: one round trip instead of
        // three. A log error only matters when the pod shows a running container.
        let er_name = match target {
            DeleteTarget::EphemeralRunner { name: er, .. } => Some(er.as_str()),
            DeleteTarget::Pod { .. } => None,
        };
        let (pod, log, er) = tokio::join!(
            self.0.get_runner_pod(ns, name),
            self.0.runner_log_since(ns, name, since, LOG_READ_LIMIT),
            async {
                match er_name {
                    Some(er) => self.0.get_ephemeral_runner(ns, er).await,
                    None => Ok(None),
                }
            }
        );
        let pod = match pod
            .map_err(cluster_error)?
            .filter(|p| p.uid == target.pod_uid())
        {
            None => PodNow::Gone,
            Some(p) => pod_now(&p),
        };
        let log = match log {
            Ok(text) => {
                let complete = text.len() < LOG_READ_LIMIT as usize;
                LogRead::Text { text, complete }
            }
            Err(e) if e.kind() == Kind::Auth => return Err(cluster_error(e)),
            Err(e) => LogRead::Unreadable(Failure::from(e)),
        };
        let recorded_job = er.map_err(cluster_error)?.and_then(|er| {
            let id = er.job_id.filter(|j| !j.is_empty())?;
            Some(er.job_display_name.filter(|n| !n.is_empty()).unwrap_or(id))
        });
        Ok(Observation {
            pod,
            log,
            recorded_job,
        })
    }

    async fn refresh(&self, target: &DeleteTarget) -> Result<Option<DeleteTarget>, ClusterError> {
        let ns = target.namespace();
        let pod = self
            .0
            .get_runner_pod(ns, target.pod_name())
            .await
            .map_err(cluster_error)?;
        let Some(pod) = pod else { return Ok(None) };
        Ok(Some(match target {
            DeleteTarget::EphemeralRunner { name, .. } => {
                let Some(er) = self
                    .0
                    .get_ephemeral_runner(ns, name)
                    .await
                    .map_err(cluster_error)?
                else {
                    return Ok(None);
                };
                DeleteTarget::EphemeralRunner {
                    namespace: ns.to_owned(),
                    name: name.clone(),
                    uid: er.uid,
                    pod_uid: pod.uid,
                }
            }
            DeleteTarget::Pod { name, annotate, .. } => DeleteTarget::Pod {
                namespace: ns.to_owned(),
                name: name.clone(),
                uid: pod.uid,
                annotate: *annotate,
            },
        }))
    }

    async fn annotate_unregistered(&self, target: &DeleteTarget) -> Result<u16, ClusterError> {
        let now = jiff::Timestamp::now().to_string();
        let result = self
            .0
            .annotate_pod(
                target.namespace(),
                target.pod_name(),
                target.pod_uid(),
                UNREGISTRATION_COMPLETE,
                &now,
            )
            .await
            .map_err(cluster_error)?;
        Ok(deleted(result).status())
    }

    async fn delete(&self, target: &DeleteTarget) -> Result<Deleted, ClusterError> {
        let d = match target {
            DeleteTarget::EphemeralRunner {
                namespace,
                name,
                uid,
                ..
            } => self.0.delete_ephemeral_runner(namespace, name, uid).await,
            DeleteTarget::Pod {
                namespace,
                name,
                uid,
                ..
            } => self.0.delete_pod(namespace, name, uid).await,
        };
        d.map(deleted).map_err(cluster_error)
    }

    async fn cordon(&self, node: &str) -> Result<bool, ClusterError> {
        self.0
            .cordon(node)
            .await
            .map(|c| c == crate::cluster::CordonResult::AlreadyCordoned)
            .map_err(cluster_error)
    }
}
