//! `arcctl list`: resolve settings, gather the inventory, hand it to `output::list`.

use crate::cli::{ColorChoice, ListArgs};
use crate::cluster::Cluster;
use crate::cmd::select;
use crate::config;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::github::GitHubClient;
use crate::inventory::{self, Query};
use crate::output::list::ListStyle;
use crate::output::{Presentation, PresentationFlags};

pub(crate) async fn run(ctx: &Context, args: ListArgs) -> Result<u8> {
    // Everything that can be refused without the network is checked first.
    let github_settings = config::resolve_github(&args.github, &ctx.env)?;
    let mut kube_settings = config::resolve_kube(&args.kube, &ctx.env)?;
    kube_settings.request_timeout = github_settings.request_timeout;
    let selection = select::resolve(
        &args.selection,
        &args.states,
        github_settings.group.is_some(),
    )?;
    let out = &args.output;
    let presentation = Presentation::resolve(
        ctx.terminals,
        &ctx.env,
        PresentationFlags {
            color: out.color,
            no_progress: out.no_progress,
            quiet: out.quiet,
            output: out.output,
        },
    );
    let style = ListStyle {
        format: out.output,
        headers: !out.no_headers,
        // The table goes to stdout: colour it only when stdout is a terminal too.
        color: match out.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => presentation.color && ctx.terminals.stdout,
        },
        chatty: presentation.chatty,
    };

    let github =
        GitHubClient::new(&github_settings)?.with_page_concurrency(args.concurrency as usize);
    let cluster = Cluster::connect(&kube_settings).await?;
    let query = Query {
        namespaces: cluster.namespace_scope(&kube_settings.namespaces),
        pods: selection.pods,
        group: github_settings.group.clone(),
    };
    // Nothing to undo on Ctrl-C: stop reading and say so (checked first, so a pending
    // interrupt always wins).
    let inv = tokio::select! {
        biased;
        () = ctx.interrupt.triggered() => return Err(Error::interrupted("interrupted")),
        inv = inventory::gather(&github, &cluster, &query, &selection.filter) => inv?,
    };
    crate::output::list::write(ctx, style, &inv, jiff::Timestamp::now())
}
