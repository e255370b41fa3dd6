//! `arcctl guard serve`: flags → clients and settings → the webhook, served until SIGTERM or
//! Ctrl-C (docs/design.md §8). [`start`] is also how `arcctl sandbox --guard` runs one
//! in-process. `arcctl guard manifests`: flags → [`manifests::Settings`] → YAML on stdout
//! (docs/design.md §8.1).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_rustls::TlsAcceptor;
use tracing::instrument::WithSubscriber;

use crate::cli::{GitHubArgs, GuardArgs, GuardCommand, GuardManifestsArgs, GuardServeArgs};
use crate::cluster::{Cluster, Namespaces};
use crate::config;
use crate::context::{Context, Env, Interrupt};
use crate::drain::pipeline::{MIN_CONFIRM_WINDOW, Settings};
use crate::error::{Error, Result, exit};
use crate::github::GitHubClient;
use crate::guard::manifests::{self, Auth, Scope, Tls};
use crate::guard::{Guard, GuardSettings};
use crate::guard::{certs, server};

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
        GuardCommand::Manifests(a) => {
            let settings = manifest_settings(&a)?;
            crate::output::manifests::print(&ctx.stdout, &manifests::render(&settings))?;
            Ok(exit::OK)
        }
    }
}

/// A Kubernetes namespace name: an RFC 1123 label.
fn namespace_name(flag: &str, name: &str) -> Result<String> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(name.to_owned())
    } else {
        Err(
            Error::usage(format!("{flag} `{name}` is not a namespace name"))
                .with_hint("lowercase letters, digits and `-`, at most 63 characters"),
        )
    }
}

/// The flags of `guard manifests`, checked, and the certificate generated for `--self-signed`.
pub(crate) fn manifest_settings(a: &GuardManifestsArgs) -> Result<manifests::Settings> {
    let namespace = namespace_name("--namespace", &a.namespace)?;
    let mut runner_namespaces = Vec::new();
    for n in &a.runner_namespaces {
        let n = namespace_name("--runner-namespace", n)?;
        if n == namespace {
            return Err(Error::usage(format!(
                "the guard's namespace `{n}` cannot be a runner namespace"
            ))
            .with_hint(
                "the guard's own pods are never guarded: run it in a namespace of its own",
            ));
        }
        if !runner_namespaces.contains(&n) {
            runner_namespaces.push(n);
        }
    }
    if a.image.trim().is_empty() {
        return Err(Error::usage("--image is empty"));
    }
    // The scope checked as every other command checks it (one of them, a valid name).
    let scope_args = GitHubArgs {
        org: a.org.clone(),
        repo: a.repo.clone(),
        enterprise: a.enterprise.clone(),
        ..GitHubArgs::default()
    };
    let scope = match config::resolve_scope(&scope_args, &Env::new(Vec::<(String, String)>::new()))?
    {
        crate::github::Scope::Org(o) => Scope::Org(o),
        crate::github::Scope::Repo { owner, repo } => Scope::Repo(format!("{owner}/{repo}")),
        crate::github::Scope::Enterprise(e) => Scope::Enterprise(e),
    };
    let auth = match (
        a.app_id,
        a.installation_id,
        &a.app_key_secret,
        &a.token_secret,
    ) {
        (Some(app_id), Some(installation_id), Some(key_secret), None) => Auth::App {
            app_id,
            installation_id,
            key_secret: key_secret.clone(),
        },
        (None, None, None, Some(secret)) => Auth::Token {
            secret: secret.clone(),
        },
        // clap's groups make any other combination a usage error first.
        _ => {
            return Err(Error::usage(
                "give --app-id, --installation-id and --app-key-secret, or --token-secret",
            ));
        }
    };
    let tls = if a.self_signed {
        let today = jiff::Zoned::now().date();
        Tls::SelfSigned(certs::generate(&manifests::dns_names(&namespace), today)?)
    } else {
        Tls::CertManager
    };
    Ok(manifests::Settings {
        namespace,
        runner_namespaces,
        image: a.image.clone(),
        scope,
        group: a.group.clone(),
        github_url: a.github_url.clone(),
        auth,
        tls,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};

    /// The Deployment's `--answer-within` is serve's default, and under the webhook's timeout.
    #[test]
    fn the_manifests_answer_within_the_webhook_timeout() {
        let cli: Cli = clap::Parser::try_parse_from([
            "arcctl",
            "guard",
            "serve",
            "--tls-cert",
            "c",
            "--tls-key",
            "k",
        ])
        .unwrap();
        let Command::Guard(GuardArgs {
            command: GuardCommand::Serve(serve),
        }) = cli.command
        else {
            panic!("not guard serve");
        };
        let ours = crate::cli::parse_duration(manifests::ANSWER_WITHIN).unwrap();
        assert_eq!(serve.answer_within, ours);
        assert!(ours < std::time::Duration::from_secs(manifests::TIMEOUT_SECONDS));
        assert_eq!(serve.listen.port(), manifests::PORT);
    }
}
