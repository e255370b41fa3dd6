//! arcctl: drain and recreate actions-runner-controller runners without killing a running job.
//!
//! The binary is a thin shell around [`run`]; tests call [`run`] in-process with their own
//! [`context::Context`] and an in-process [`sandbox`] (the `arcctl-sandbox` crate, re-exported
//! with the default `sandbox` feature, which also adds `arcctl sandbox`).

pub mod cli;
pub mod cluster;
pub mod cmd;
pub mod config;
pub mod context;
pub mod drain;
pub mod error;
pub mod github;
pub mod inventory;
pub(crate) mod logging;
pub mod output;
pub mod recreate;

/// The simulated GitHub organization and ARC cluster (`crates/arcctl-sandbox`), under the name
/// the tests and `arcctl sandbox` use.
#[cfg(feature = "sandbox")]
pub use arcctl_sandbox as sandbox;

use std::ffi::OsString;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::context::Context;
use crate::error::{Error, exit};

/// Parses `args` (including the program name), runs the command and returns its exit code.
///
/// Errors are rendered on `ctx.stderr`; nothing else in the crate maps errors to exit codes.
pub async fn run(args: Vec<OsString>, ctx: Context) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let text = if ctx.terminals.stderr {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            let stream = if e.use_stderr() {
                &ctx.stderr
            } else {
                &ctx.stdout
            };
            let _ = stream.write_str(&text);
            return code;
        }
    };
    let verbosity = match &cli.command {
        Command::List(a) => a.output.verbose,
        Command::Drain(a) => a.output.verbose,
        Command::Recreate(a) => a.output.verbose,
        #[cfg(feature = "sandbox")]
        Command::Sandbox(_) => 0,
        Command::Completions(_) => 0,
    };
    let result = match logging::dispatch(verbosity, &ctx.stderr) {
        Some(logs) => {
            use tracing::instrument::WithSubscriber;
            dispatch(&ctx, cli.command).with_subscriber(logs).await
        }
        None => dispatch(&ctx, cli.command).await,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = ctx.stderr.write_str(&output::render_error(&e));
            e.exit_code()
        }
    }
}

async fn dispatch(ctx: &Context, command: Command) -> Result<u8, Error> {
    match command {
        Command::Completions(args) => cmd::generate::run(ctx, &args),
        #[cfg(feature = "sandbox")]
        Command::Sandbox(args) => cmd::sandbox::run(ctx, args).await,
        Command::List(args) => cmd::list::run(ctx, args).await,
        Command::Drain(args) => cmd::drain::run(ctx, args).await,
        Command::Recreate(args) => cmd::recreate::run(ctx, args).await,
    }
}
