//! `arcctl recreate`: select → plan → (dry run | confirm) → cordon → batches of drain's
//! pipeline, each followed by a wait for the replacements → summary → exit code.

use std::collections::HashMap;
use std::time::Duration;

use crate::cli::{OutputFormat, RecreateArgs};
use crate::cmd::drain::{exit_code, settings};
use crate::cmd::prepare::{self, Inputs};
use crate::context::Context;
use crate::drain::event::Event;
use crate::error::{Error, Result, exit};
use crate::output::drain::{self as drain_out, Ending};
use crate::output::recreate::{self as out, Header};
use crate::recreate::batch::{self, BatchSize};
use crate::recreate::rolling::{self, Clients, Options, ReplacementStatus, Row, Sinks};

/// Replacements are looked for at least this often, whatever `--poll-interval` says: a pod
/// starts in seconds and the next batch waits for it.
const READY_POLL_MAX: Duration = Duration::from_secs(2);

pub(crate) async fn run(ctx: &Context, args: RecreateArgs) -> Result<u8> {
    let opts = &args.drain;
    let size = BatchSize::parse(&args.batch_size)?;
    let mut p = prepare::prepare(
        ctx,
        Inputs {
            verb: "recreate",
            selection: &args.selection,
            opts,
            github: &args.github,
            kube: &args.kube,
            output: &args.output,
        },
    )
    .await?;
    let wait_ready = !args.no_wait_ready || args.wait_ready;
    let per_batch = size.resolve(batch::queue(&p.steps).len());

    let cordon = prepare::cordon_node(opts, &p.node);
    if opts.dry_run {
        if let Some(node) = cordon
            && p.pres.chatty
        {
            let _ = ctx.stderr.write_str(&drain_out::dry_run_cordon(node));
        }
        let planned = batch::planned(&p.steps, per_batch);
        let text = match args.output.output {
            OutputFormat::Table | OutputFormat::Wide => {
                out::plan_table(&p.steps, &planned, args.output.no_headers)
            }
            OutputFormat::Name => p
                .steps
                .iter()
                .zip(&planned)
                .filter(|(_, b)| b.is_some())
                .map(|(s, _)| format!("runner/{}\n", s.candidate.name))
                .collect(),
            OutputFormat::Json | OutputFormat::Yaml => {
                let h = Header {
                    scene: &p.scene,
                    exit_code: exit::OK,
                    batch_size: per_batch,
                    wait_ready,
                };
                prepare::encode(
                    &out::plan_document(&h, &p.steps, &planned),
                    args.output.output,
                )?
            }
        };
        prepare::write_stdout(ctx, &text)?;
        return Ok(exit::OK);
    }
    let batches = format!("in batches of {per_batch}");
    let question = drain_out::prompt("Recreate", &p.steps, &p.scene, Some(&batches), cordon);
    prepare::confirm(ctx, opts, &p.steps, question).await?;

    let reporter = prepare::start(ctx, &mut p);
    let reporter = prepare::cordon(&p, opts, reporter).await?;
    let pods: HashMap<_, _> = p
        .entries
        .iter()
        .filter_map(|e| e.pod.clone().map(|pod| (e.name.clone(), pod)))
        .collect();
    let clients = Clients {
        github: p.github.clone(),
        cluster: p.cluster.clone(),
        namespaces: p.namespaces.clone(),
    };
    let rolling_opts = Options {
        batch: per_batch,
        wait_ready,
        ready_timeout: args.ready_timeout,
        ready_poll: opts.poll_interval.min(READY_POLL_MAX),
    };
    let notes = reporter.tx.clone();
    let show = move |pr: rolling::Progress<'_>| {
        let _ = notes.send(Event::Note(out::progress_line(pr)));
    };
    let result = rolling::run(
        &clients,
        std::mem::take(&mut p.steps),
        &pods,
        settings(opts),
        &rolling_opts,
        Sinks {
            events: reporter.tx.clone(),
            progress: &show,
        },
        ctx.interrupt.clone(),
    )
    .await;
    // The reporter ends when every sender is gone, this one included.
    drop(show);
    let audit_result = reporter.finish().await?;

    let code = recreate_exit_code(&result.rows, result.interrupted);
    let h = Header {
        scene: &p.scene,
        exit_code: code,
        batch_size: per_batch,
        wait_ready,
    };
    match args.output.output {
        OutputFormat::Json | OutputFormat::Yaml => {
            let mut doc =
                out::document(&h, &result.rows, &result.batches, result.halted.as_deref());
            doc.github_rate_limits = drain_out::rate_limits(&result.rate_limits);
            prepare::write_stdout(ctx, &prepare::encode(&doc, args.output.output)?)?;
        }
        OutputFormat::Name => {
            let names: String = result
                .rows
                .iter()
                .filter_map(|r| match &r.replacement {
                    Some(ReplacementStatus::Ready(rep)) => Some(format!("runner/{}\n", rep.name)),
                    _ => None,
                })
                .collect();
            prepare::write_stdout(ctx, &names)?;
        }
        OutputFormat::Table | OutputFormat::Wide => {
            if p.pres.chatty {
                let end = Ending {
                    rate_limits: Some(&result.rate_limits),
                    denied: result.denied.is_some(),
                    stopped: result.interrupted.then(|| "by Ctrl-C".to_owned()),
                };
                let _ =
                    ctx.stderr
                        .write_str(&out::summary(&result.rows, args.output.no_headers, &end));
            }
        }
    }
    audit_result?;
    if let Some(denied) = result.denied {
        return Err(Error::from(denied).context("the recreate stopped: permission denied"));
    }
    Ok(code)
}

/// Drain's exit code, and incomplete (3) when a replacement never became ready.
fn recreate_exit_code(rows: &[Row], interrupted: bool) -> u8 {
    let outcomes: Vec<_> = rows
        .iter()
        .map(|r| (r.step.clone(), r.outcome.clone()))
        .collect();
    let code = exit_code(&outcomes, interrupted);
    let missing = rows
        .iter()
        .any(|r| matches!(r.replacement, Some(ReplacementStatus::Missing { .. })));
    if code == exit::OK && missing {
        exit::INCOMPLETE
    } else {
        code
    }
}
