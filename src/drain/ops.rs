//! The two edges the drain pipeline talks to, as traits: GitHub and the cluster.
//!
//! The real implementations wrap `crate::github` and `crate::cluster`; keeping the pipeline
//! generic over these lets every decision it makes be exercised against the sandbox and, for
//! rare interleavings, against scripted fakes.

use std::future::Future;

use crate::drain::evidence::Observation;
use crate::drain::pacer::{Limit, RateHint};
use crate::drain::plan::DeleteTarget;
use crate::error::Failure;

/// GitHub's answer to an unregister (`DELETE …/actions/runners/{id}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unregistered {
    /// 204.
    Removed,
    /// 404: already gone (or re-registered under another id).
    NotFound,
    /// 422: a job is running.
    Busy { message: String },
    /// 403/429 rate limit: the status GitHub sent, which limit, and the wait it named (the
    /// pacer decides the wait).
    RateLimited { status: u16, limit: Limit },
    /// 401, or a 403 that is not a rate limit: stop the whole run.
    Denied { status: u16, failure: Failure },
    /// 5xx, timeout, reset: the outcome is unknown; retry.
    Transient { status: Option<u16>, reason: String },
}

impl Unregistered {
    /// The HTTP status for the audit log (0 when no response came).
    pub fn status(&self) -> u16 {
        match self {
            Unregistered::Removed => 204,
            Unregistered::NotFound => 404,
            Unregistered::Busy { .. } => 422,
            Unregistered::RateLimited { status, .. } => *status,
            Unregistered::Denied { status, .. } => *status,
            Unregistered::Transient { status, .. } => status.unwrap_or(0),
        }
    }
}

/// A runner as GitHub reports it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerNow {
    pub id: u64,
    pub busy: bool,
}

/// Why a read failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Authentication or permission: stop the whole run.
    Denied(Failure),
    /// Rate limited: which limit, and the wait GitHub named.
    RateLimited(Limit),
    /// Anything else; the read may be retried.
    Other(Failure),
}

/// The GitHub side of a drain.
pub trait GitHubOps: Send + Sync + 'static {
    /// `DELETE …/actions/runners/{id}`, once, without retrying, with the rate-limit headers.
    fn unregister(&self, id: u64) -> impl Future<Output = (Unregistered, RateHint)> + Send;
    /// `GET …/actions/runners/{id}`; `None` on 404.
    fn runner(&self, id: u64) -> impl Future<Output = Result<Option<RunnerNow>, ReadError>> + Send;
    /// The registration named `name`, if any (`?name=`).
    fn runner_named(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<RunnerNow>, ReadError>> + Send;
}

/// What a uid-guarded delete did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// 200/202: deleted.
    Deleted,
    /// 404: already gone.
    NotFound,
    /// 409: the object under that name has another uid: a replacement, left alone.
    Replaced,
}

impl Deleted {
    pub fn status(self) -> u16 {
        match self {
            Deleted::Deleted => 200,
            Deleted::NotFound => 404,
            Deleted::Replaced => 409,
        }
    }
}

/// Why a cluster call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterError {
    /// 401/403: stop the whole run.
    Denied(Failure),
    /// Anything else (5xx, timeouts): may be retried.
    Other(Failure),
}

/// The Kubernetes side of a drain.
pub trait ClusterOps: Send + Sync + 'static {
    /// One look at the runner of `target`'s pod for the idle check: the pod's runner container,
    /// its log since `from` (with kubelet timestamps, up to a byte cap) and, for scale sets, the
    /// EphemeralRunner's job. A log that cannot be read is part of the observation, not an error.
    fn observe(
        &self,
        target: &DeleteTarget,
        from: jiff::Timestamp,
    ) -> impl Future<Output = Result<Observation, ClusterError>> + Send;
    /// The same target with the current uids of the objects under its names, if they exist
    /// (after a runner re-registered from a recreated pod).
    fn refresh(
        &self,
        target: &DeleteTarget,
    ) -> impl Future<Output = Result<Option<DeleteTarget>, ClusterError>> + Send;
    /// Marks a legacy pod `actions-runner/unregistration-complete-timestamp`; returns the HTTP
    /// status.
    fn annotate_unregistered(
        &self,
        target: &DeleteTarget,
    ) -> impl Future<Output = Result<u16, ClusterError>> + Send;
    /// Deletes `target` with a uid precondition.
    fn delete(
        &self,
        target: &DeleteTarget,
    ) -> impl Future<Output = Result<Deleted, ClusterError>> + Send;
    /// Cordons `node`; `Ok(true)` when it already was.
    fn cordon(&self, node: &str) -> impl Future<Output = Result<bool, ClusterError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drain::pacer::LimitKind;

    /// The audit log records what GitHub sent: a secondary limit comes as 403 as often as 429.
    #[test]
    fn a_rate_limited_unregister_keeps_its_status() {
        for status in [403, 429] {
            let u = Unregistered::RateLimited {
                status,
                limit: Limit {
                    kind: LimitKind::Secondary,
                    wait: None,
                },
            };
            assert_eq!(u.status(), status);
        }
    }
}
