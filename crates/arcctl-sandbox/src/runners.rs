//! The simulation's model of runner pools and runner processes: what ARC and the runner
//! binary know that the Kubernetes objects alone don't (which registration a pod's runner is
//! bound to, whether it is connected, which job it runs).

use crate::world::Label;

/// Which ARC object manages a pool of runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolKind {
    /// AutoscalingRunnerSet → EphemeralRunnerSet → EphemeralRunner → pod.
    ScaleSet,
    /// RunnerDeployment → RunnerReplicaSet → Runner → pod.
    Deployment,
    /// RunnerSet → one StatefulSet per runner → pod `<sts>-0`.
    RunnerSet,
}

/// A pool of runners: one scale set, RunnerDeployment or RunnerSet.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    pub kind: PoolKind,
    /// The AutoscalingRunnerSet, RunnerDeployment or RunnerSet name.
    pub name: String,
    pub namespace: String,
    /// The EphemeralRunnerSet or RunnerReplicaSet that creates the runners (none for a
    /// RunnerSet, whose StatefulSets it owns directly).
    pub replica_set: Option<String>,
    pub runner_group_id: u64,
    pub runner_group_name: String,
    /// The GitHub labels its runners register with.
    pub labels: Vec<Label>,
    /// The scale set's id on GitHub (scale-set pools).
    pub scale_set_id: u64,
    /// `pod-template-hash` / `runner-template-hash` of its pods.
    pub template_hash: String,
    /// How many runners the pool keeps.
    pub replicas: u32,
}

/// The ARC object that owns a runner pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Owner {
    EphemeralRunner(String),
    Runner(String),
    StatefulSet(String),
}

/// Where a runner process is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotState {
    /// The pod is Pending; the runner hasn't connected yet.
    Starting,
    /// Connected and listening (or running a job).
    Running,
    /// Its container exited 0 (its job ended, or it found its registration deleted); ARC
    /// will reap it.
    Exited,
    /// Its container exited non-zero without a job; ARC will delete the pod as failed.
    Failed,
    /// A recreated scale-set pod whose registration no longer exists: it never connects.
    Stuck,
}

/// One runner process, in the pod of the same name.
#[derive(Debug, Clone)]
pub(crate) struct RunnerSlot {
    pub pool: String,
    pub owner: Owner,
    pub pod_uid: String,
    /// The registration the runner is bound to (scale sets: from its JIT config, before it
    /// starts; legacy: once it has registered).
    pub registration: Option<u64>,
    pub state: SlotState,
    pub job: Option<u64>,
    /// A scale-set pod ARC recreated under the same name (counted as stuck when its
    /// registration is gone).
    pub recreated: bool,
    /// Its EphemeralRunner is being deleted (ARC's finalizer has yet to remove it): the pool
    /// counts it as gone and has replaced it already.
    pub deleting: bool,
}
