//! In-cluster configuration against the sandbox: the fake Kubernetes API served over TLS with
//! a generated CA and behind a bearer-token check, `KUBERNETES_SERVICE_HOST`/`PORT` in the
//! environment, and a service-account directory (token, ca.crt, namespace) — what a pod of a
//! CronJob has. kube-rs's own `Config::incluster()` reads the process environment and the fixed
//! `/var/run/secrets/…` directory, so arcctl resolves the in-cluster config itself and the test
//! points only the directory elsewhere.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::cluster::{Cluster, NamespaceScope, Namespaces, PodSelection};
use arcctl::config::resolve_kube;
use arcctl::context::Env;
use arcctl::sandbox::{kube_api, tls};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;

use crate::support::*;

const SA_TOKEN: &str = "sa-token-of-arcctl";

/// Serves the sandbox's Kubernetes API over TLS, answering 401 (a `Status`) to requests
/// without the service account's bearer token. Returns the port.
async fn serve_in_cluster_api(
    world: arcctl::sandbox::world::SharedWorld,
    dir: &std::path::Path,
) -> u16 {
    let (acceptor, _ca) = tls::acceptor(dir).expect("TLS");
    let router = kube_api::router(world).layer(axum::middleware::from_fn(
        |req: axum::extract::Request, next: axum::middleware::Next| async move {
            let authorized = req
                .headers()
                .get(header::AUTHORIZATION)
                .is_some_and(|v| v.as_bytes() == format!("Bearer {SA_TOKEN}").as_bytes());
            if authorized {
                next.run(req).await
            } else {
                let status = serde_json::json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized",
                    "code": 401,
                });
                (StatusCode::UNAUTHORIZED, axum::Json(status)).into_response()
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tls::serve(listener, router, acceptor);
    port
}

/// A service-account directory: `token`, the API server's `ca.crt`, `namespace`.
fn account_dir(root: &std::path::Path, token: &str) -> std::path::PathBuf {
    let dir = root.join("serviceaccount");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("token"), token).unwrap();
    std::fs::copy(root.join(tls::CA_FILE), dir.join("ca.crt")).unwrap();
    std::fs::write(dir.join("namespace"), "arc-runners\n").unwrap();
    dir
}

/// The settings `arcctl` resolves inside a pod: no kubeconfig, the service variables set.
fn pod_settings(
    home: &std::path::Path,
    port: u16,
    dir: &std::path::Path,
) -> arcctl::cluster::KubeSettings {
    let env = Env::new([
        ("HOME", home.to_str().unwrap().to_owned()),
        ("KUBERNETES_SERVICE_HOST", "127.0.0.1".to_owned()),
        ("KUBERNETES_SERVICE_PORT", port.to_string()),
    ]);
    let args = arcctl::cli::KubeArgs {
        kubeconfig: None,
        context: None,
        namespaces: Vec::new(),
        all_namespaces: false,
    };
    let mut settings = resolve_kube(&args, &env).unwrap();
    assert!(settings.kubeconfig.is_empty(), "no kubeconfig: in-cluster");
    assert_eq!(settings.in_cluster.port, Some(port.to_string()));
    settings.in_cluster.account_dir = dir.to_owned();
    settings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_account_config_reaches_the_api_server() {
    let sb = sandbox(args!("--runners 4")).await;
    let root = tempfile::tempdir().unwrap();
    let port = serve_in_cluster_api(sb.world(), root.path()).await;
    let dir = account_dir(root.path(), SA_TOKEN);
    let settings = pod_settings(root.path(), port, &dir);

    let cluster = Cluster::connect(&settings)
        .await
        .expect("in-cluster config");
    assert_eq!(cluster.default_namespace(), "arc-runners");
    let scope = cluster.namespace_scope(&Namespaces::ContextDefault);
    assert_eq!(scope, NamespaceScope::Only(vec!["arc-runners".into()]));
    let pods = cluster
        .list_runner_pods(&scope, &PodSelection::default())
        .await
        .expect("pods listed with the service account's token over verified TLS");
    assert_eq!(pods.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_service_account_token_is_exit_4_naming_verb_and_resource() {
    let sb = sandbox(args!("--runners 2")).await;
    let root = tempfile::tempdir().unwrap();
    let port = serve_in_cluster_api(sb.world(), root.path()).await;
    let dir = account_dir(root.path(), "a-revoked-token");
    let settings = pod_settings(root.path(), port, &dir);
    let cluster = Cluster::connect(&settings)
        .await
        .expect("in-cluster config");
    let scope = cluster.namespace_scope(&Namespaces::ContextDefault);
    let err = cluster
        .list_runner_pods(&scope, &PodSelection::default())
        .await
        .expect_err("401");
    assert_eq!(err.exit_code(), 4);
    let text = format!("{} {:?}", err.message(), err.causes());
    assert!(text.contains("`list`") && text.contains("`pods`"), "{text}");
    assert!(!text.contains("a-revoked-token"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_service_variables_arcctl_asks_for_a_kubeconfig() {
    let sb = sandbox(args!("--runners 1")).await;
    let home = tempfile::tempdir().unwrap();
    let mut env = env(&sb);
    env.remove("KUBECONFIG");
    env.set("HOME", home.path().to_str().unwrap());
    let run = Invocation::with_env(env).run(args!("list -A")).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("KUBERNETES_SERVICE_HOST"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("KUBECONFIG"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_the_service_accounts_ca_did_not_sign_is_not_trusted() {
    let sb = sandbox(args!("--runners 1")).await;
    let root = tempfile::tempdir().unwrap();
    let port = serve_in_cluster_api(sb.world(), root.path()).await;
    let dir = account_dir(root.path(), SA_TOKEN);
    // Another CA than the one that signed the server's certificate.
    let other = tempfile::tempdir().unwrap();
    let (_acceptor, other_ca) = tls::acceptor(other.path()).unwrap();
    std::fs::copy(other_ca, dir.join("ca.crt")).unwrap();
    let settings = pod_settings(root.path(), port, &dir);
    let cluster = Cluster::connect(&settings)
        .await
        .expect("in-cluster config");
    let scope = cluster.namespace_scope(&Namespaces::ContextDefault);
    let err = cluster
        .list_runner_pods(&scope, &PodSelection::default())
        .await
        .expect_err("untrusted certificate");
    assert_eq!(err.exit_code(), 1, "{}", err.message());
    // The message names what failed; the cause says why: the server was never reached.
    assert!(
        err.message().contains("failed to list runner pods"),
        "{}",
        err.message()
    );
    assert!(
        std::iter::once(err.message().to_owned())
            .chain(err.causes())
            .any(|c| c.contains("could not reach")),
        "{}: {:?}",
        err.message(),
        err.causes()
    );
}
