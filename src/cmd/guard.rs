//! `arcctl guard serve`: flags → clients and settings → the webhook, served until SIGTERM or
//! Ctrl-C (docs/design.md §8). [`start`] is also how `arcctl sandbox --guard` runs one
//! in-process.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_rustls::TlsAcceptor;
use tracing::instrument::WithSubscriber;

use crate::cli::{GuardArgs, GuardCommand, GuardServeArgs};
use crate::cluster::{Cluster, Namespaces};
use crate::config;
use crate::context::{Context, Env, Interrupt};
use crate::drain::pipeline::{MIN_CONFIRM_WINDOW, Settings};
use crate::error::{Error, Result, exit};
use crate::github::GitHubClient;
use crate::guard::server;
use crate::guard::{Guard, GuardSettings};

/// A guard serving in the background.
pub struct Running {
    pub addr: SocketAddr,
    stop: Interrupt,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops accepting, lets open reviews and drains in flight finish, and waits.
    pub async fn shutdown(self) {
        self.stop.trigger();
        let _ = self.task.await;
    }
}

pub(crate) async fn run(ctx: &Context, args: GuardArgs) -> Result<u8> {
    match args.command {
        GuardCommand::Serve(a) => {
            let acceptor = server::acceptor_from_files(&a.tls_cert, &a.tls_key)?;
            let running = start(&ctx.env, &a, acceptor).await?;
            tracing::info!(addr = %running.addr, "arcctl guard serving");
            crate::cmd::stop_requested(ctx).await;
            running.shutdown().await;
            Ok(exit::OK)
        }
    }
}

/// Resolves the flags (as `drain` does), connects, binds and serves in the background.
pub async fn start(env: &Env, a: &GuardServeArgs, acceptor: TlsAcceptor) -> Result<Running> {
    if a.confirm_window < MIN_CONFIRM_WINDOW {
        return Err(Error::usage(format!(
            "--confirm-window must be at least {}",
            humantime::format_duration(MIN_CONFIRM_WINDOW)
        )));
    }
    if a.poll_interval.is_zero() {
        return Err(Error::usage("--poll-interval must be longer than 0"));
    }
    if !a.drain_timeout.is_zero() && a.drain_timeout <= a.confirm_window {
        return Err(Error::usage(format!(
            "--drain-timeout {} leaves no time to confirm a runner idle",
            humantime::format_duration(a.drain_timeout)
        )));
    }
    if a.answer_within.is_zero() {
        return Err(
            Error::usage("--answer-within must be longer than 0").with_hint(
                "keep it under the webhook's timeoutSeconds (at most 30s); the default is 8s",
            ),
        );
    }
    let github_settings = config::resolve_github(&a.github, env)?;
    let mut kube_settings = config::resolve_kube(&a.kube, env)?;
    kube_settings.request_timeout = github_settings.request_timeout;
    let namespaces = match &kube_settings.namespaces {
        Namespaces::Listed(list) => Some(list.clone()),
        Namespaces::All | Namespaces::ContextDefault => None,
    };
    let github = Arc::new(GitHubClient::new(&github_settings)?);
    let cluster = Arc::new(Cluster::connect(&kube_settings).await?);
    let settings = GuardSettings {
        pipeline: Settings {
            // A busy runner is waited for and unregistered as soon as its job ends.
            wait: true,
            timeout: Some(a.drain_timeout).filter(|t| !t.is_zero()),
            poll_interval: a.poll_interval,
            confirm_window: a.confirm_window,
            rate: a.max_unregister_rate,
            ..Settings::default()
        },
        namespaces,
        ..GuardSettings::default()
    };
    let guard = Arc::new(Guard::new(github, cluster, settings));
    let (listener, addr) = server::bind(a.listen).await?;
    let stop = Interrupt::default();
    let task = tokio::spawn(
        server::serve(listener, acceptor, guard, a.answer_within, stop.clone())
            .with_current_subscriber(),
    );
    Ok(Running { addr, stop, task })
}
