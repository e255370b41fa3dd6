//! arcctl-sandbox: a simulated GitHub organization and ARC cluster with live job traffic, for
//! `arcctl sandbox` and arcctl's tests.
//!
//! One [`world::World`] behind a lock is shared by the fake GitHub REST API (`github_api`), the
//! fake Kubernetes API server (`kube_api`), the ARC-like controller (`controller`) and the job
//! dispatcher (`jobs`). [`server::Sandbox`] runs them on 127.0.0.1, built from [`Options`]
//! (whose clap definition `arcctl sandbox` flattens); what fails at start is an [`Error`].
//! This crate knows nothing of arcctl: the `arcctl sandbox` command, which runs arcctl or any
//! other command against a sandbox and prints its verdict, lives in the CLI.

pub(crate) mod controller;
mod error;
pub mod github_api;
pub(crate) mod jobs;
pub mod kube_api;
pub mod kubeconfig;
pub mod noise;
pub(crate) mod objects;
mod options;
pub mod overview;
pub mod populate;
pub mod report;
pub(crate) mod runners;
pub mod scenario;
pub mod server;
pub mod stats;
pub mod store;
pub mod tls;
pub mod world;

pub use error::{Error, Result};
pub use options::{DurationRange, FaultKind, Mode, Options, options};
pub use server::Sandbox;
