//! The resource table: every Kubernetes resource type the sandbox serves, with its group,
//! version, kind, plural name and whether it is namespaced.

/// A Kubernetes resource type the sandbox serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceType {
    /// API group; empty for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

impl ResourceType {
    /// `v1` or `GROUP/VERSION`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

pub const PODS: ResourceType = ResourceType {
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    namespaced: true,
};
pub const NODES: ResourceType = ResourceType {
    group: "",
    version: "v1",
    kind: "Node",
    plural: "nodes",
    namespaced: false,
};
pub const NAMESPACES: ResourceType = ResourceType {
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
};
pub const STATEFUL_SETS: ResourceType = ResourceType {
    group: "apps",
    version: "v1",
    kind: "StatefulSet",
    plural: "statefulsets",
    namespaced: true,
};
pub const AUTOSCALING_RUNNER_SETS: ResourceType = ResourceType {
    group: "actions.github.com",
    version: "v1alpha1",
    kind: "AutoscalingRunnerSet",
    plural: "autoscalingrunnersets",
    namespaced: true,
};
pub const EPHEMERAL_RUNNER_SETS: ResourceType = ResourceType {
    group: "actions.github.com",
    version: "v1alpha1",
    kind: "EphemeralRunnerSet",
    plural: "ephemeralrunnersets",
    namespaced: true,
};
pub const EPHEMERAL_RUNNERS: ResourceType = ResourceType {
    group: "actions.github.com",
    version: "v1alpha1",
    kind: "EphemeralRunner",
    plural: "ephemeralrunners",
    namespaced: true,
};
pub const RUNNER_DEPLOYMENTS: ResourceType = ResourceType {
    group: "actions.summerwind.dev",
    version: "v1alpha1",
    kind: "RunnerDeployment",
    plural: "runnerdeployments",
    namespaced: true,
};
pub const RUNNER_REPLICA_SETS: ResourceType = ResourceType {
    group: "actions.summerwind.dev",
    version: "v1alpha1",
    kind: "RunnerReplicaSet",
    plural: "runnerreplicasets",
    namespaced: true,
};
pub const RUNNERS: ResourceType = ResourceType {
    group: "actions.summerwind.dev",
    version: "v1alpha1",
    kind: "Runner",
    plural: "runners",
    namespaced: true,
};
pub const RUNNER_SETS: ResourceType = ResourceType {
    group: "actions.summerwind.dev",
    version: "v1alpha1",
    kind: "RunnerSet",
    plural: "runnersets",
    namespaced: true,
};

/// Admission webhooks the API server calls on evictions (`kube_api::admission`).
pub const VALIDATING_WEBHOOK_CONFIGURATIONS: ResourceType = ResourceType {
    group: "admissionregistration.k8s.io",
    version: "v1",
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    namespaced: false,
};

/// Every resource type the sandbox serves.
pub const ALL_TYPES: [ResourceType; 12] = [
    PODS,
    NODES,
    NAMESPACES,
    STATEFUL_SETS,
    AUTOSCALING_RUNNER_SETS,
    EPHEMERAL_RUNNER_SETS,
    EPHEMERAL_RUNNERS,
    RUNNER_DEPLOYMENTS,
    RUNNER_REPLICA_SETS,
    RUNNERS,
    RUNNER_SETS,
    VALIDATING_WEBHOOK_CONFIGURATIONS,
];
