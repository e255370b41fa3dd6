//! The `arcctl` binary: install the TLS provider, run, map the result to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    // One TLS provider for the whole process (reqwest and kube share rustls with ring).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: failed to start the async runtime\n  caused by: {e}");
            return ExitCode::from(1);
        }
    };
    let ctx = arcctl::context::Context::from_process();
    let interrupt = ctx.interrupt.clone();
    let code = runtime.block_on(async move {
        // The first Ctrl-C asks the command to stop safely; it decides what "safely" means.
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupt.trigger();
            }
        });
        arcctl::run(std::env::args_os().collect(), ctx).await
    });
    // Don't wait for lingering blocking tasks (a prompt thread, a slow request).
    runtime.shutdown_background();
    ExitCode::from(code)
}
