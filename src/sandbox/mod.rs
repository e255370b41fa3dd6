//! `arcctl sandbox`: a simulated GitHub organization and ARC cluster with live job traffic.
//!
//! One [`world::World`] behind a lock is shared by the fake GitHub REST API (`github_api`), the
//! fake Kubernetes API server (`kube_api`), the ARC-like controller and the job dispatcher.
//! Everything listens on 127.0.0.1 only.

pub mod command;
pub mod github_api;
pub mod kube_api;
pub mod stats;
pub mod store;
pub mod world;
