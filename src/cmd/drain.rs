//! `arcctl drain`: select → plan → (dry run | confirm) → cordon → pipeline → summary → exit code.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::cli::{DrainArgs, DrainOptions, OutputArgs, OutputFormat};
use crate::cluster::Cluster;
use crate::cmd::select;
use crate::config;
use crate::context::Context;
use crate::drain::edges::{self, ClusterEdge, GitHubEdge};
use crate::drain::event::{Event, Mutation, Outcome};
use crate::drain::ops::ClusterOps;
use crate::drain::pipeline::{self, Settings};
use crate::drain::plan::{self, Action, PlanOptions, Step};
use crate::error::{Error, Result, exit};
use crate::github::GitHubClient;
use crate::inventory::{self, Query};
use crate::output::audit::AuditLog;
use crate::output::drain::{self as out, DrainDocument, Scene};
use crate::output::{Presentation, PresentationFlags};

pub(crate) async fn run(ctx: &Context, args: DrainArgs) -> Result<u8> {
    let opts = &args.drain;
    // Everything that can be refused without the network is refused first.
    let github_settings = config::resolve_github(&args.github, &ctx.env)?;
    let mut kube_settings = config::resolve_kube(&args.kube, &ctx.env)?;
    kube_settings.request_timeout = github_settings.request_timeout;
    let selection = select::resolve(&args.selection, &[], github_settings.group.is_some())?;
    if !selection.narrowing.any() && !opts.all {
        return Err(
            Error::usage("refusing to drain every runner of the scope without `--all`")
                .with_hint("narrow the selection (RUNNER names or globs, -l, --node, --scale-set, --label, --group) or pass --all"),
        );
    }
    if opts.poll_interval.is_zero() {
        return Err(Error::usage("--poll-interval must be longer than 0")
            .with_hint("polling without a pause would spend GitHub's rate limit in seconds; the default is 10s"));
    }
    let pres = presentation(ctx, &args.output);
    if !opts.dry_run && !opts.yes && !pres.can_prompt {
        return Err(
            Error::usage("`--yes` is required when not running interactively")
                .with_hint("drain asks for confirmation on a terminal; from a script, pass --yes (or --dry-run to see the plan)"),
        );
    }
    let audit = match (&opts.audit_log, opts.dry_run) {
        (Some(path), false) => Some(AuditLog::open(path)?),
        _ => None,
    };

    let github = Arc::new(GitHubClient::new(&github_settings)?);
    let cluster = Arc::new(Cluster::connect(&kube_settings).await?);
    let namespaces = cluster.namespace_scope(&kube_settings.namespaces);
    let scene = Scene {
        scope: github_settings.scope.path(),
        scope_text: github_settings.scope.describe(),
        context: kube_settings.context.clone(),
        namespaces: match &namespaces {
            crate::cluster::NamespaceScope::All => Vec::new(),
            crate::cluster::NamespaceScope::Only(list) => list.clone(),
        },
        node: selection.pods.node.clone(),
    };
    let query = Query {
        namespaces,
        pods: selection.pods.clone(),
        group: github_settings.group.clone(),
    };
    let inv = tokio::select! {
        inv = inventory::gather(&github, &cluster, &query, &selection.filter) => inv?,
        () = ctx.interrupt.triggered() => return Err(Error::interrupted("interrupted before anything was changed")),
    };
    for w in &inv.warnings {
        say(ctx, &pres, &format!("warning: {w}"));
    }
    let candidates: Vec<_> = inv.entries.iter().map(edges::candidate).collect();
    let steps = plan::plan(&candidates, PlanOptions { wait: opts.wait });

    if opts.dry_run {
        return dry_run(ctx, &args.output, &scene, &steps);
    }
    let drains = steps
        .iter()
        .filter(|s| matches!(s.action, Action::Drain { .. }))
        .count();
    if drains > 0 && !opts.yes {
        let question = out::prompt("Drain", &steps, &scene);
        let prompter = Arc::clone(&ctx.prompter);
        let answer = tokio::task::spawn_blocking(move || prompter.confirm(&question))
            .await
            .map_err(|e| Error::failed("the prompt failed").with_source(e))??;
        if !answer {
            return Err(Error::interrupted(
                "declined at the prompt; nothing was changed",
            ));
        }
    }

    let (tx, rx) = mpsc::unbounded_channel();
    let reporter = tokio::spawn(out::report(
        rx,
        ctx.stderr.clone(),
        pres,
        steps.len(),
        audit,
    ));
    let edge = ClusterEdge(Arc::clone(&cluster));
    if let Some(node) = cordon_node(opts, &selection.pods.node) {
        match edge.cordon(node).await {
            Ok(already) => {
                let _ = tx.send(Event::Cordoned {
                    node: node.to_owned(),
                    already,
                });
                if !already {
                    let _ = tx.send(Event::Mutated(Mutation {
                        action: "cordon",
                        target: format!("node/{node}"),
                        runner_id: None,
                        status: 200,
                    }));
                }
            }
            Err(e) => {
                drop(tx);
                let _ = reporter.await;
                return Err(cordon_error(node, e));
            }
        }
    }
    let result = pipeline::run(
        GitHubEdge(Arc::clone(&github)),
        edge,
        steps,
        settings(opts),
        tx,
        ctx.interrupt.clone(),
    )
    .await;
    let audit_result = reporter
        .await
        .map_err(|e| Error::failed("the progress reporter failed").with_source(e))?;

    let code = exit_code(&result.outcomes, result.interrupted);
    finish(ctx, &args.output, &pres, &scene, &result.outcomes, code)?;
    audit_result?;
    if let Some(denied) = result.denied {
        return Err(Error::auth(format!(
            "the drain stopped: permission denied\n{}",
            denied.trim_end()
        )));
    }
    Ok(code)
}

fn presentation(ctx: &Context, o: &OutputArgs) -> Presentation {
    Presentation::resolve(
        ctx.terminals,
        &ctx.env,
        PresentationFlags {
            color: o.color,
            no_progress: o.no_progress,
            quiet: o.quiet,
            output: o.output,
        },
    )
}

fn say(ctx: &Context, pres: &Presentation, line: &str) {
    if pres.chatty {
        let _ = ctx.stderr.write_str(&format!("{line}\n"));
    }
}

/// The node to cordon: `--node`, unless `--no-cordon`.
fn cordon_node<'a>(opts: &DrainOptions, node: &'a Option<String>) -> Option<&'a str> {
    let node = node.as_deref()?;
    (!opts.no_cordon || opts.cordon).then_some(node)
}

fn cordon_error(node: &str, e: crate::drain::ops::ClusterError) -> Error {
    match e {
        crate::drain::ops::ClusterError::Denied(m) => {
            Error::auth(format!("failed to cordon node `{node}`: {}", m.trim_end()))
        }
        crate::drain::ops::ClusterError::Other(m) => {
            Error::failed(format!("failed to cordon node `{node}`: {m}"))
        }
    }
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
    write_stdout(ctx, &text)?;
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

fn write_stdout(ctx: &Context, text: &str) -> Result<()> {
    match ctx.stdout.write_str(text) {
        // `arcctl drain … | head` closing the pipe is not a failure of the drain.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::failed("failed to write to stdout").with_source(e)),
        Ok(()) => Ok(()),
    }
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
            write_stdout(ctx, &encode(&doc, o.output)?)
        }
        OutputFormat::Name => {
            let drained = outcomes
                .iter()
                .filter(|(_, oc)| matches!(oc, Outcome::Drained { .. }))
                .map(|(s, _)| s);
            write_stdout(ctx, &names(drained))
        }
        OutputFormat::Table | OutputFormat::Wide => {
            if pres.chatty {
                let _ = ctx.stderr.write_str(&out::summary(outcomes, o.no_headers));
            }
            Ok(())
        }
    }
}
