//! `arcctl sandbox`: a simulated GitHub organization and ARC cluster with live job traffic.
//!
//! One [`world::World`] behind a lock is shared by the fake GitHub REST API (`github_api`), the
//! fake Kubernetes API server (`kube_api`), the ARC-like controller (`controller`) and the job
//! dispatcher (`jobs`). [`server::Sandbox`] runs them on 127.0.0.1; `command` is the CLI.

pub mod command;
pub(crate) mod controller;
pub(crate) mod demo;
pub mod github_api;
pub(crate) mod jobs;
pub mod kube_api;
pub mod kubeconfig;
pub mod noise;
pub(crate) mod objects;
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

pub use server::Sandbox;

/// Sandbox options from command-line words (`["--runners", "5", "--mode", "legacy"]`), with
/// every default as `arcctl sandbox` has it: for tests and for embedding the sandbox.
pub fn options<I, S>(words: I) -> Result<crate::cli::SandboxArgs, clap::Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    use clap::Parser;
    let argv = ["arcctl".into(), "sandbox".into()]
        .into_iter()
        .chain(words.into_iter().map(Into::into));
    match crate::cli::Cli::try_parse_from(argv)?.command {
        crate::cli::Command::Sandbox(args) => Ok(args),
        _ => Err(clap::Error::new(clap::error::ErrorKind::InvalidSubcommand)),
    }
}
