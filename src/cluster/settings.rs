//! What the Kubernetes client is built from: kubeconfig files, context, namespaces and the
//! in-cluster service account. `config` resolves flags and environment into these; nothing
//! here reads them.

use std::path::PathBuf;
use std::time::Duration;

/// Which namespaces to look for runner pods in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Namespaces {
    /// `-A`.
    All,
    /// `-n NS` (repeatable), deduplicated, in the order given.
    Listed(Vec<String>),
    /// Neither: the kubeconfig context's namespace (or `default`).
    ContextDefault,
}

/// Everything the Kubernetes client needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeSettings {
    /// Kubeconfig files to merge (`--kubeconfig`, else `KUBECONFIG` split on `:`, else
    /// `$HOME/.kube/config` when it exists). Empty: use the in-cluster service account.
    pub kubeconfig: Vec<PathBuf>,
    /// Where the kubeconfig list came from, for messages.
    pub kubeconfig_source: &'static str,
    pub context: Option<String>,
    pub namespaces: Namespaces,
    /// The service account to use when there is no kubeconfig.
    pub in_cluster: InCluster,
    /// `--request-timeout`: how long one request may go unanswered.
    pub request_timeout: Duration,
}

/// Where a pod finds its API server and service account: `KUBERNETES_SERVICE_HOST` and
/// `KUBERNETES_SERVICE_PORT` (from `ctx.env`) and the mounted account's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InCluster {
    pub host: Option<String>,
    pub port: Option<String>,
    /// Holds `token`, `ca.crt` and `namespace`.
    pub account_dir: PathBuf,
}

/// Where Kubernetes mounts a pod's service account.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
