//! `arcctl drain`: select → plan → (dry run | confirm) → cordon → pipeline → summary → exit code.

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
use crate::output::drain::{self as out, DrainDocument, Scene};

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
    if opts.dry_run {
        return dry_run(ctx, &args.output, &p.scene, &p.steps);
    }
    let question = out::prompt("Drain", &p.steps, &p.scene);
    prepare::confirm(ctx, opts, &p.steps, question).await?;

    let reporter = prepare::start(ctx, &mut p, opts).await?;
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
    finish(ctx, &args.output, &p.pres, &p.scene, &result.outcomes, code)?;
    audit_result?;
    if let Some(denied) = result.denied {
        return Err(Error::auth(format!(
            "the drain stopped: permission denied\n{}",
            denied.trim_end()
        )));
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
            let doc = document(true, scene, exit::OK, steps.iter().map(|s| (s, None)));
            encode(&doc, o.output)?
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

fn document<'a>(
    dry_run: bool,
    scene: &Scene,
    code: u8,
    rows: impl Iterator<Item = (&'a Step, Option<&'a Outcome>)>,
) -> DrainDocument {
    let runners: Vec<_> = rows.map(|(s, o)| out::runner_result(s, o)).collect();
    let mut totals = out::Totals {
        selected: runners.len(),
        ..Default::default()
    };
    if !dry_run {
        for r in &runners {
            match r.outcome {
                "drained" => totals.drained += 1,
                "skipped-busy" => totals.skipped_busy += 1,
                "skipped" => totals.skipped += 1,
                "held" => totals.held += 1,
                "failed" => totals.failed += 1,
                "timed-out" => totals.timed_out += 1,
                _ => totals.stopped += 1,
            }
        }
    }
    DrainDocument {
        api_version: "arcctl/v1",
        kind: "DrainResult",
        dry_run,
        scene: scene.clone(),
        exit_code: code,
        totals,
        runners,
    }
}

fn encode(doc: &DrainDocument, format: OutputFormat) -> Result<String> {
    let text = if format == OutputFormat::Yaml {
        serde_yaml::to_string(doc)
            .map_err(|e| Error::failed("failed to encode YAML").with_source(e))?
    } else {
        let mut t = serde_json::to_string_pretty(doc)
            .map_err(|e| Error::failed("failed to encode JSON").with_source(e))?;
        t.push('\n');
        t
    };
    Ok(text)
}

fn finish(
    ctx: &Context,
    o: &OutputArgs,
    pres: &Presentation,
    scene: &Scene,
    outcomes: &[(Step, Outcome)],
    code: u8,
) -> Result<()> {
    match o.output {
        OutputFormat::Json | OutputFormat::Yaml => {
            let doc = document(
                false,
                scene,
                code,
                outcomes.iter().map(|(s, oc)| (s, Some(oc))),
            );
            prepare::write_stdout(ctx, &encode(&doc, o.output)?)
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
                let _ = ctx.stderr.write_str(&out::summary(outcomes, o.no_headers));
            }
            Ok(())
        }
    }
}
