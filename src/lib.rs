//! arcctl: drain and recreate actions-runner-controller runners without killing a running job.
//!
//! The binary is a thin shell around [`run`] (defined in [`cmd`]); tests call [`run`]
//! in-process with their own [`context::Context`] and an in-process [`sandbox`] (the
//! `arcctl-sandbox` crate, re-exported with the default `sandbox` feature, which also adds
//! `arcctl sandbox`).

pub mod cli;
pub mod cluster;
pub mod cmd;
pub mod config;
pub mod context;
pub mod drain;
pub mod error;
pub mod github;
/// `arcctl guard serve`: the admission webhook (the default-on `guard` feature: an HTTPS server).
#[cfg(feature = "guard")]
pub mod guard;
pub mod inventory;
pub(crate) mod logging;
pub mod output;
pub mod recreate;

/// The simulated GitHub organization and ARC cluster (`crates/arcctl-sandbox`), under the name
/// the tests and `arcctl sandbox` use.
#[cfg(feature = "sandbox")]
pub use arcctl_sandbox as sandbox;

pub use cmd::run;
