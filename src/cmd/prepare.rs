//! What `drain` and `recreate` share before and around the pipeline: settings, clients,
//! inventory and plan, the confirmation prompt, the progress reporter and the cordon.
//!
//! One place, so both commands refuse the same things, ask the same way, cordon the same way
//! and show the same progress; only what happens between the cordon and the summary differs.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::cli::{DrainOptions, GitHubArgs, KubeArgs, OutputArgs, OutputFormat, SelectionArgs};
use crate::cluster::{Cluster, NamespaceScope};
use crate::cmd::select;
use crate::config;
use crate::context::Context;
use crate::drain::edges::{self, ClusterEdge};
use crate::drain::event::{Event, Mutation};
use crate::drain::ops::{ClusterError, ClusterOps};
use crate::drain::pipeline::MIN_CONFIRM_WINDOW;
use crate::drain::plan::{self, Action, PlanOptions, Step};
use crate::error::{Error, Result};
use crate::github::GitHubClient;
use crate::inventory::{self, Entry, Query};
use crate::output::audit::AuditLog;
use crate::output::drain::{self as out, Scene};
use crate::output::{Presentation, PresentationFlags};

/// The flags a mutating command was given.
pub(crate) struct Inputs<'a> {
    /// `drain` or `recreate`, for messages.
    pub verb: &'static str,
    pub selection: &'a SelectionArgs,
    pub opts: &'a DrainOptions,
    pub github: &'a GitHubArgs,
    pub kube: &'a KubeArgs,
    pub output: &'a OutputArgs,
}

/// Everything known once the plan is made, before anything changed.
pub(crate) struct Prepared {
    pub pres: Presentation,
    pub audit: Option<AuditLog>,
    pub github: Arc<GitHubClient>,
    pub cluster: Arc<Cluster>,
    pub scene: Scene,
    /// The namespaces the runner pods were listed in.
    pub namespaces: NamespaceScope,
    /// `--node`, if given.
    pub node: Option<String>,
    /// The joined runners the plan was made from.
    pub entries: Vec<Entry>,
    pub steps: Vec<Step>,
}

/// Refuses what can be refused offline, then gathers the inventory and plans.
pub(crate) async fn prepare(ctx: &Context, i: Inputs<'_>) -> Result<Prepared> {
    let opts = i.opts;
    let github_settings = config::resolve_github(i.github, &ctx.env)?;
    let mut kube_settings = config::resolve_kube(i.kube, &ctx.env)?;
    // `--request-timeout` lives with the GitHub flags and bounds Kubernetes requests too.
    kube_settings.request_timeout = github_settings.request_timeout;
    let selection = select::resolve(i.selection, &[], github_settings.group.is_some())?;
    if !selection.narrowing.any() && !opts.all {
        return Err(Error::usage(format!(
            "refusing to {} every runner of the scope without `--all`",
            i.verb
        ))
        .with_hint("narrow the selection (RUNNER names or globs, -l, --node, --scale-set, --label, --group) or pass --all"));
    }
    if opts.poll_interval.is_zero() {
        return Err(Error::usage("--poll-interval must be longer than 0").with_hint(
            "polling without a pause would spend GitHub's rate limit in seconds; the default is 10s",
        ));
    }
    if opts.confirm_window < MIN_CONFIRM_WINDOW {
        return Err(Error::usage(format!(
            "--confirm-window must be at least {}",
            humantime::format_duration(MIN_CONFIRM_WINDOW)
        ))
        .with_hint(
            "a job assigned just before the unregister shows in the runner log and on the EphemeralRunner seconds later; a shorter window would delete its pod (the default is 20s)",
        ));
    }
    if !opts.timeout.is_zero() && opts.timeout <= opts.confirm_window {
        return Err(Error::usage(format!(
            "--timeout {} leaves no time to confirm a runner idle",
            humantime::format_duration(opts.timeout)
        ))
        .with_hint(format!(
            "no unregister starts later than one confirm window ({}) before the deadline, so nothing would be drained; raise --timeout or lower --confirm-window",
            humantime::format_duration(opts.confirm_window)
        )));
    }
    let pres = presentation(ctx, i.output);
    if !opts.dry_run && !opts.yes && !pres.can_prompt {
        return Err(
            Error::usage("`--yes` is required when not running interactively").with_hint(
                format!(
                    "{} asks for confirmation on a terminal; from a script, pass --yes (or --dry-run to see the plan)",
                    i.verb
                ),
            ),
        );
    }
    let audit = match (&opts.audit_log, opts.dry_run) {
        (Some(path), false) => Some(AuditLog::open(path)?),
        _ => None,
    };

    let github = Arc::new(
        GitHubClient::new(&github_settings)?.with_page_concurrency(opts.concurrency as usize),
    );
    let cluster = Arc::new(Cluster::connect(&kube_settings).await?);
    let namespaces = cluster.namespace_scope(&kube_settings.namespaces);
    let scene = Scene {
        scope: github_settings.scope.path(),
        scope_text: github_settings.scope.describe(),
        context: Some(cluster.context().to_owned()),
        namespaces: match &namespaces {
            NamespaceScope::All => Vec::new(),
            NamespaceScope::Only(list) => list.clone(),
        },
        node: selection.pods.node.clone(),
    };
    let query = Query {
        namespaces: namespaces.clone(),
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
    Ok(Prepared {
        pres,
        audit,
        github,
        cluster,
        scene,
        namespaces,
        node: selection.pods.node,
        entries: inv.entries,
        steps,
    })
}

/// Asks `question` unless `--yes` or nothing would change; declining is an interruption.
pub(crate) async fn confirm(
    ctx: &Context,
    opts: &DrainOptions,
    steps: &[Step],
    question: String,
) -> Result<()> {
    let acts = steps
        .iter()
        .any(|s| matches!(s.action, Action::Drain { .. }));
    if !acts || opts.yes {
        return Ok(());
    }
    let prompter = Arc::clone(&ctx.prompter);
    let answer = tokio::task::spawn_blocking(move || prompter.confirm(&question))
        .await
        .map_err(|e| Error::failed("the prompt failed").with_source(e))??;
    if answer {
        Ok(())
    } else {
        Err(Error::interrupted(
            "declined at the prompt; nothing was changed",
        ))
    }
}

/// The running progress reporter: send events on `tx`, drop it, then await `handle`.
pub(crate) struct Reporter {
    pub tx: mpsc::UnboundedSender<Event>,
    pub handle: JoinHandle<Result<()>>,
}

impl Reporter {
    /// Closes the event stream and waits for the reporter; returns the audit log's result.
    pub(crate) async fn finish(self) -> Result<Result<()>> {
        drop(self.tx);
        self.handle
            .await
            .map_err(|e| Error::failed("the progress reporter failed").with_source(e))
    }
}

/// Starts the progress reporter (and audit log) for the planned runners.
pub(crate) fn start(ctx: &Context, p: &mut Prepared) -> Reporter {
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = tokio::spawn(out::report(
        rx,
        ctx.stderr.clone(),
        p.pres,
        p.steps.len(),
        p.audit.take(),
    ));
    Reporter { tx, handle }
}

/// The step between the prompt and the pipeline: cordons `--node` (unless `--no-cordon`), so
/// no new runner pod lands on the node being drained. Told through the reporter (the event
/// line and the audit log). On failure the reporter is closed and nothing else is done.
pub(crate) async fn cordon(
    p: &Prepared,
    opts: &DrainOptions,
    reporter: Reporter,
) -> Result<Reporter> {
    let Some(node) = cordon_node(opts, &p.node) else {
        return Ok(reporter);
    };
    match ClusterEdge(Arc::clone(&p.cluster)).cordon(node).await {
        Ok(already) => {
            let _ = reporter.tx.send(Event::Cordoned {
                node: node.to_owned(),
                already,
            });
            if !already {
                let _ = reporter.tx.send(Event::Mutated(Mutation {
                    action: "cordon",
                    target: format!("node/{node}"),
                    runner_id: None,
                    status: 200,
                }));
            }
            Ok(reporter)
        }
        Err(ClusterError::Denied(f) | ClusterError::Other(f)) => {
            let _ = reporter.finish().await;
            // The cluster's error names the node (`failed to cordon node `N``).
            Err(Error::from(f))
        }
    }
}

pub(crate) fn presentation(ctx: &Context, o: &OutputArgs) -> Presentation {
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
pub(crate) fn cordon_node<'a>(opts: &DrainOptions, node: &'a Option<String>) -> Option<&'a str> {
    let node = node.as_deref()?;
    (!opts.no_cordon || opts.cordon).then_some(node)
}

/// Writes `text` to stdout; a closed pipe (`… | head`) is not a failure of the command.
pub(crate) fn write_stdout(ctx: &Context, text: &str) -> Result<()> {
    match ctx.stdout.write_str(text) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::failed("failed to write to stdout").with_source(e)),
        Ok(()) => Ok(()),
    }
}

/// A result document as pretty JSON (with a final newline) or YAML.
pub(crate) fn encode<T: serde::Serialize>(doc: &T, format: OutputFormat) -> Result<String> {
    if format == OutputFormat::Yaml {
        serde_yaml::to_string(doc)
            .map_err(|e| Error::failed("failed to encode YAML").with_source(e))
    } else {
        let mut t = serde_json::to_string_pretty(doc)
            .map_err(|e| Error::failed("failed to encode JSON").with_source(e))?;
        t.push('\n');
        Ok(t)
    }
}
