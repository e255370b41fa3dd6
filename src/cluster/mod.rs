//! The cluster's side: the Kubernetes client, ARC's labels and owners, and the runner pods and
//! EphemeralRunners read from them (`wire`: only the fields arcctl uses).
//!
//! Returns data and typed outcomes; never prints.

pub mod arc;
pub mod client;
pub(crate) mod in_cluster;
pub mod model;
pub(crate) mod retry;
pub mod runner_log;
pub mod settings;
pub(crate) mod wire;

pub use arc::Mode;
pub use client::{Cluster, CordonResult, DeleteResult, NamespaceScope, PodSelection};
pub use model::{ContainerState, EphemeralRunner, RunnerPod};
pub use runner_log::running_job;
pub use settings::{InCluster, KubeSettings, Namespaces};
