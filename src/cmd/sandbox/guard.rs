//! `arcctl sandbox --guard`: `arcctl guard serve` in-process against the sandbox, registered
//! as a ValidatingWebhookConfiguration for the runner namespace (docs/design.md §8).
//!
//! The certificate is for 127.0.0.1 from a CA of its own (the sandbox's `tls` module makes
//! both; the CA goes in `guard/ca.pem` under the sandbox's directory, apart from `--tls`'s), and
//! the webhook is the one `arcctl guard manifests` prints (`guard::manifests::webhook`):
//! `namespaceSelector` on the runner namespace (and the `arcctl.io/guard=off` opt-out),
//! `failurePolicy: Fail`, `sideEffects: NoneOnDryRun`, `timeoutSeconds: 10`.

use arcctl_sandbox::server::Sandbox;
use arcctl_sandbox::store::VALIDATING_WEBHOOK_CONFIGURATIONS;
use arcctl_sandbox::world::lock;
use base64::Engine;
use serde_json::{Value, json};

use crate::cli::{Cli, Command, GuardCommand};
use crate::cmd::guard::{self, Running};
use crate::context::Env;
use crate::error::{Error, Result};
use crate::guard::manifests;

/// Starts a guard for `sandbox`'s runner namespace `namespace` and registers it.
pub async fn start(sandbox: &Sandbox, namespace: &str) -> Result<Running> {
    let dir = sandbox.dir().join("guard");
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::failed(format!("failed to create `{}`", dir.display())).with_source(e)
    })?;
    let (acceptor, ca_path) = arcctl_sandbox::tls::acceptor(&dir)?;
    let ca = std::fs::read(&ca_path).map_err(|e| {
        Error::failed(format!("failed to read `{}`", ca_path.display())).with_source(e)
    })?;
    let argv = [
        "arcctl",
        "guard",
        "serve",
        "--listen",
        "127.0.0.1:0",
        // The acceptor is given directly; the paths are not read.
        "--tls-cert",
        "-",
        "--tls-key",
        "-",
        "-n",
        namespace,
        // Sandbox jobs are seconds long: catch a persistent runner between two of them.
        "--poll-interval",
        "2s",
    ];
    let args = match clap::Parser::try_parse_from(argv) {
        Ok(Cli {
            command:
                Command::Guard(crate::cli::GuardArgs {
                    command: GuardCommand::Serve(a),
                }),
        }) => a,
        Ok(_) => {
            return Err(Error::failed(
                "the sandbox's guard flags parse as another command",
            ));
        }
        Err(e) => {
            return Err(Error::failed("the sandbox's guard flags do not parse").with_source(e));
        }
    };
    let running = guard::start(&Env::new(sandbox.env()), &args, acceptor).await?;
    let config = configuration(
        &format!("https://{}/validate", running.addr),
        &base64::engine::general_purpose::STANDARD.encode(ca),
        namespace,
    );
    lock(&sandbox.world())
        .store
        .create(VALIDATING_WEBHOOK_CONFIGURATIONS, None, config)
        .map_err(|e| {
            Error::failed(format!(
                "failed to register the guard's ValidatingWebhookConfiguration: {e:?}"
            ))
        })?;
    Ok(running)
}

/// The ValidatingWebhookConfiguration for a guard at `url` behind CA `ca_bundle` (base64 PEM).
pub(crate) fn configuration(url: &str, ca_bundle: &str, namespace: &str) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": manifests::NAME},
        "webhooks": [manifests::webhook(
            json!({"url": url, "caBundle": ca_bundle}),
            &[namespace.to_owned()],
        )],
    })
}
