//! One module per subcommand: select, act, hand results to `output`; and [`run`], which parses
//! the arguments, picks the subcommand and renders its error. `cmd::sandbox` runs arcctl
//! commands inside the sandbox through [`run`] too, so the recursion stays inside `cmd`.

pub mod drain;
pub mod generate;
#[cfg(feature = "guard")]
pub mod guard;
pub mod list;
pub(crate) mod prepare;
pub mod recreate;
#[cfg(feature = "sandbox")]
pub(crate) mod sandbox;
pub(crate) mod select;

/// A guard in-process against a sandbox, registered for its runner namespace (what
/// `arcctl sandbox --guard` does; the tests use it).
#[cfg(all(feature = "sandbox", feature = "guard"))]
pub use sandbox::guard::start as start_sandbox_guard;

use std::ffi::OsString;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::context::Context;
use crate::error::{Error, exit};
use crate::{logging, output};

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
        // A server logs every review (and request) by default.
        #[cfg(feature = "guard")]
        Command::Guard(a) => match &a.command {
            crate::cli::GuardCommand::Serve(s) => s.verbose.saturating_add(1),
            crate::cli::GuardCommand::Manifests(_) => 0,
        },
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
        Command::Completions(args) => generate::run(ctx, &args),
        #[cfg(feature = "guard")]
        Command::Guard(args) => guard::run(ctx, args).await,
        #[cfg(feature = "sandbox")]
        Command::Sandbox(args) => sandbox::run(ctx, args).await,
        Command::List(args) => list::run(ctx, args).await,
        Command::Drain(args) => drain::run(ctx, args).await,
        Command::Recreate(args) => recreate::run(ctx, args).await,
    }
}

/// Resolves on Ctrl-C (the context's interrupt) or SIGTERM: how the long-running commands
/// (`sandbox` without a command, `guard serve`) are asked to stop.
#[cfg(any(feature = "sandbox", feature = "guard"))]
pub(crate) async fn stop_requested(ctx: &crate::context::Context) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                () = ctx.interrupt.triggered() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    ctx.interrupt.triggered().await;
}
