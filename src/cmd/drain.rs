//! `arcctl drain`: select → plan → (dry run | confirm) → cordon → pipeline → summary → exit code.
//!
//! The cordon is its own step, after the prompt (which names it) and before the first
//! unregister; the dry run says it would cordon, and does not.

use std::sync::Arc;

use crate::cli::{DrainArgs, DrainOptions, OutputArgs, OutputFormat};
use crate::cmd::prepare::{self, Inputs};
use crate::context::Context;
use crate::drain::edges::{ClusterEdge, GitHubEdge};
use crate::drain::event::Outcome;
use crate::drain::pipeline::{self, Settings};
use crate::drain::plan::{Action, Step};
use crate::error::{Error, Result, exit};
use crate::output::Presentation;
use crate::output::drain::{self as out, Ending, Scene};

pub(crate) async fn run(ctx: &Context, args: DrainArgs) -> Result<u8> {
    let opts = &args.drain;
    let mut p = prepare::prepare(
        ctx,
        Inputs {
            verb: "drain",
            selection: &args.selection,
            opts,
            github: &args.github,
            kube: &args.kube,
            output: &args.output,
        },
    )
    .await?;
    let cordon = prepare::cordon_node(opts, &p.node);
    if opts.dry_run {
        if let Some(node) = cordon
            && p.pres.chatty
        {
            let _ = ctx.stderr.write_str(&out::dry_run_cordon(node));
        }
        return dry_run(ctx, &args.output, &p.scene, &p.steps);
    }
    let question = out::prompt("Drain", &p.steps, &p.scene, None, cordon);
    prepare::confirm(ctx, opts, &p.steps, question).await?;

    let reporter = prepare::start(ctx, &mut p);
    let reporter = prepare::cordon(&p, opts, reporter).await?;
    let result = pipeline::run(
        GitHubEdge(Arc::clone(&p.github)),
        ClusterEdge(Arc::clone(&p.cluster)),
        std::mem::take(&mut p.steps),
        settings(opts),
        reporter.tx.clone(),
        ctx.interrupt.clone(),
    )
    .await;
    let audit_result = reporter.finish().await?;

    let code = exit_code(&result.outcomes, result.interrupted);
    let end = Ending {
        rate_limits: Some(&result.rate_limits),
        denied: result.denied.is_some(),
        stopped: result.interrupted.then(|| "by Ctrl-C".to_owned()),
    };
    finish(
        ctx,
        &args.output,
        &p.pres,
        &p.scene,
        (&result.outcomes, &end),
        code,
    )?;
    audit_result?;
    if let Some(denied) = result.denied {
        return Err(Error::from(denied).context("the drain stopped: permission denied"));
    }
    Ok(code)
}

pub(crate) fn settings(opts: &DrainOptions) -> Settings {
    Settings {
        wait: opts.wait,
        timeout: Some(opts.timeout).filter(|t| !t.is_zero()),
        poll_interval: opts.poll_interval,
        confirm_window: opts.confirm_window,
        concurrency: opts.concurrency as usize,
        rate: opts.max_unregister_rate,
        ..Settings::default()
    }
}

/// 130 interrupted · 1 something failed · 3 something still pending · 0 done.
pub(crate) fn exit_code(outcomes: &[(Step, Outcome)], interrupted: bool) -> u8 {
    if interrupted {
        exit::INTERRUPTED
    } else if outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed { .. }))
    {
        exit::FAILED
    } else if outcomes.iter().any(|(_, o)| o.is_pending()) {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}

fn dry_run(ctx: &Context, o: &OutputArgs, scene: &Scene, steps: &[Step]) -> Result<u8> {
    let text = match o.output {
        OutputFormat::Table | OutputFormat::Wide => out::plan_table(steps, o.no_headers),
        OutputFormat::Name => names(
            steps
                .iter()
                .filter(|s| matches!(s.action, Action::Drain { .. })),
        ),
        OutputFormat::Json | OutputFormat::Yaml => {
            let doc = out::document(scene, exit::OK, steps, None);
            prepare::encode(&doc, o.output)?
        }
    };
    prepare::write_stdout(ctx, &text)?;
    Ok(exit::OK)
}

fn names<'a>(steps: impl Iterator<Item = &'a Step>) -> String {
    steps
        .map(|s| format!("runner/{}\n", s.candidate.name))
        .collect()
}

fn finish(
    ctx: &Context,
    o: &OutputArgs,
    pres: &Presentation,
    scene: &Scene,
    (outcomes, end): (&[(Step, Outcome)], &Ending<'_>),
    code: u8,
) -> Result<()> {
    match o.output {
        OutputFormat::Json | OutputFormat::Yaml => {
            let (steps, results): (Vec<Step>, Vec<Outcome>) = outcomes.iter().cloned().unzip();
            let mut doc = out::document(scene, code, &steps, Some(&results));
            doc.github_rate_limits = end.rate_limits.and_then(out::rate_limits);
            prepare::write_stdout(ctx, &prepare::encode(&doc, o.output)?)
        }
        OutputFormat::Name => {
            let drained = outcomes
                .iter()
                .filter(|(_, oc)| matches!(oc, Outcome::Drained { .. }))
                .map(|(s, _)| s);
            prepare::write_stdout(ctx, &names(drained))
        }
        OutputFormat::Table | OutputFormat::Wide => {
            if pres.chatty {
                let _ = ctx
                    .stderr
                    .write_str(&out::summary(outcomes, o.no_headers, end));
            }
            Ok(())
        }
    }
}
