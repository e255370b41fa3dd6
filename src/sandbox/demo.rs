//! `arcctl sandbox --demo`: a populated world with live job traffic, shown to a newcomer in
//! under a minute: the runners per node, a few lines of traffic, then the verdict.
//!
//! The demo is a list of [`Step`]s run against one [`Sandbox`]; running `arcctl drain` inside
//! the world later is one more step (run a command with `Sandbox::env`, as `command.rs` does).

use std::time::Duration;

use crate::cli::{DurationRange, SandboxArgs};
use crate::context::Context;
use crate::error::Result;
use crate::sandbox::command::{finish, stop_requested};
use crate::sandbox::overview;
use crate::sandbox::server::Sandbox;
use crate::sandbox::world::{EventKind, lock};

/// How many traffic lines the demo prints at most.
const MAX_TRAFFIC_LINES: usize = 16;

/// One thing the demo does.
#[derive(Debug, Clone)]
enum Step {
    /// Print the runners per node.
    Overview(&'static str),
    /// Print job traffic as it happens for this long.
    Watch(Duration),
}

/// The demo's world: 24 runners, 30 % busy, about two jobs a second of 3 to 12 seconds.
fn demo_options(mut args: SandboxArgs) -> SandboxArgs {
    args.runners = 24;
    args.busy = 0.3;
    args.job_rate = 2.0;
    args.job_duration = DurationRange {
        min: Duration::from_secs(3),
        max: Duration::from_secs(12),
    };
    args
}

pub(crate) async fn run(ctx: &Context, args: SandboxArgs) -> Result<u8> {
    let args = demo_options(args);
    let report_path = args.report.clone();
    let intro = format!(
        "arcctl sandbox demo: organization `{}`, {} runners ({} mode) on {} nodes, \
         ~{} jobs/s of 3-12 s\n",
        args.org,
        args.runners,
        clap::ValueEnum::to_possible_value(&args.mode)
            .map_or_else(String::new, |v| v.get_name().to_owned()),
        args.nodes,
        args.job_rate
    );
    let sandbox = Sandbox::start(args).await?;
    let _ = ctx.stdout.write_str(&intro);
    let _ = ctx.stdout.write_str(&format!(
        "fake GitHub API at {}, fake Kubernetes API at {} (kubeconfig {})\n\n",
        sandbox.github_url(),
        sandbox.kube_url(),
        sandbox.kubeconfig_path().display()
    ));
    let steps = [
        Step::Overview("the world at start"),
        Step::Watch(Duration::from_secs(15)),
        Step::Overview("the world now"),
    ];
    // Traffic from now on (population's events are not news).
    let mut seen = lock(&sandbox.world()).last_event_seq();
    let mut printed = 0;
    let mut unprinted = 0;
    for step in steps {
        if ctx.interrupt.is_triggered() {
            break;
        }
        match step {
            Step::Overview(title) => {
                let rows = lock(&sandbox.world()).overview();
                let _ = ctx
                    .stdout
                    .write_str(&format!("{title}:\n{}\n", overview::render(&rows)));
            }
            Step::Watch(how_long) => {
                let _ = ctx.stdout.write_str("job traffic:\n");
                let deadline = tokio::time::Instant::now() + how_long;
                loop {
                    let events = lock(&sandbox.world()).events_since(seen);
                    for e in events {
                        seen = e.seq;
                        let shown = matches!(
                            e.what,
                            EventKind::JobStarted { .. }
                                | EventKind::JobCompleted { .. }
                                | EventKind::JobKilled { .. }
                        );
                        // Spread the lines over the watch: a few at once, then about one a
                        // second; a killed job is always shown.
                        let elapsed = how_long.saturating_sub(
                            deadline.saturating_duration_since(tokio::time::Instant::now()),
                        );
                        let budget = 3 + elapsed.as_secs() as usize;
                        let killed = matches!(e.what, EventKind::JobKilled { .. });
                        if shown && (killed || (printed < budget && printed < MAX_TRAFFIC_LINES)) {
                            printed += 1;
                            let _ = ctx.stdout.write_str(&format!("  {}  {}\n", e.at, e.what));
                        } else if shown {
                            unprinted += 1;
                        }
                    }
                    if tokio::time::Instant::now() >= deadline {
                        break;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(250)) => {}
                        () = stop_requested(ctx) => break,
                    }
                }
                if unprinted > 0 {
                    let _ = ctx
                        .stdout
                        .write_str(&format!("  … and {unprinted} more job events\n"));
                }
                let _ = ctx.stdout.write_str("\n");
            }
        }
    }
    let _ = ctx.stdout.write_str(
        "explore a world yourself: run `arcctl sandbox --busy 0.3 --job-rate 1` in one terminal,\n\
         paste its export lines into another and try `kubectl get pods,ephemeralrunners`;\n\
         or run a command in a world and read its verdict:\n\
         `arcctl sandbox --busy 0.5 -- kubectl delete pods --all -n arc-runners`\n\n",
    );
    let report = finish(ctx, sandbox, report_path.as_deref()).await?;
    Ok(if report.is_clean() { 0 } else { 1 })
}
