//! The guard over HTTPS: `POST /validate` (AdmissionReview v1), `GET /readyz`, `GET /livez`,
//! `GET /metrics`; TLS from PEM files; graceful shutdown.
//!
//! Every review is answered within `answer_within` (under the webhook's `timeoutSeconds`):
//! a decision still waiting (on GitHub's rate limit, say) is answered 429 "retry", and a drain
//! it started goes on in the background.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use tracing::instrument::WithSubscriber;

use crate::context::Interrupt;
use crate::error::{Error, Result};
use crate::guard::decide::{Decision, Guard};
use crate::guard::metrics::Metrics;
use crate::guard::review;

/// How long a connection still open at shutdown gets to finish its request.
const CONNECTION_GRACE: Duration = Duration::from_secs(5);

/// A TLS acceptor for the certificate chain and key in these PEM files.
pub fn acceptor_from_files(cert: &Path, key: &Path) -> Result<TlsAcceptor> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|i| i.collect::<std::result::Result<_, _>>())
        .map_err(|e| {
            Error::usage(format!(
                "failed to read the TLS certificate `{}`",
                cert.display()
            ))
            .with_source(e)
        })?;
    if chain.is_empty() {
        return Err(Error::usage(format!(
            "the TLS certificate `{}` holds no certificate",
            cert.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        Error::usage(format!("failed to read the TLS key `{}`", key.display())).with_source(e)
    })?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            Error::usage("the TLS certificate and key do not make a server identity").with_source(e)
        })?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

struct App {
    guard: Arc<Guard>,
    answer_within: Duration,
    stopping: AtomicBool,
}

/// The routes, on `guard`.
fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/validate", post(validate))
        .route("/readyz", get(readyz))
        .route("/livez", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .with_state(app)
}

async fn validate(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let (uid, eviction) = match review::parse(&body) {
        Ok(read) => read,
        Err(review::Unreadable(why)) => {
            Metrics::inc(&app.guard.metrics.failures);
            tracing::warn!(reason = %why, "unreadable admission review");
            return (StatusCode::BAD_REQUEST, format!("{why}\n")).into_response();
        }
    };
    let Some(eviction) = eviction else {
        return axum::Json(review::respond(&uid, &review::Answer::Allow)).into_response();
    };
    let m = &app.guard.metrics;
    Metrics::inc(&m.evictions);
    let decision = match tokio::time::timeout(app.answer_within, app.guard.decide(&eviction)).await
    {
        Ok(d) => d,
        Err(_) => Decision::Failed(format!(
            "arcctl guard could not decide on pod `{}/{}` in time (waiting on GitHub or Kubernetes); retry",
            eviction.namespace, eviction.pod
        )),
    };
    Metrics::inc(match &decision {
        Decision::Allow(_) => &m.allowed,
        Decision::Busy(_) => &m.denied_busy,
        Decision::Draining(_) => &m.denied_draining,
        Decision::Failed(_) => &m.failures,
    });
    tracing::info!(
        namespace = %eviction.namespace,
        pod = %eviction.pod,
        dry_run = eviction.dry_run,
        decision = decision.label(),
        message = decision.message(),
        "eviction reviewed"
    );
    axum::Json(review::respond(&uid, &decision.answer())).into_response()
}

async fn readyz(State(app): State<Arc<App>>) -> Response {
    if app.stopping.load(Ordering::Relaxed) {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response()
    } else {
        "ok\n".into_response()
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [("content-type", "text/plain; version=0.0.4")],
        app.guard.metrics.render(),
    )
        .into_response()
}

/// Serves `guard` on `listener` until `stop`: then readiness fails, no connection is
/// accepted, open ones get [`CONNECTION_GRACE`], and the drains in flight reach a safe state.
pub async fn serve(
    listener: tokio::net::TcpListener,
    acceptor: TlsAcceptor,
    guard: Arc<Guard>,
    answer_within: Duration,
    stop: Interrupt,
) {
    let app = Arc::new(App {
        guard: Arc::clone(&guard),
        answer_within,
        stopping: AtomicBool::new(false),
    });
    let routes = router(Arc::clone(&app));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.triggered() => break,
        };
        let Ok((tcp, _)) = accepted else { continue };
        let acceptor = acceptor.clone();
        let service = TowerToHyperService::new(routes.clone());
        connections.spawn(
            async move {
                // A client that does not trust the certificate hangs up: that connection only.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            }
            .with_current_subscriber(),
        );
        while connections.try_join_next().is_some() {}
    }
    app.stopping.store(true, Ordering::Relaxed);
    tracing::info!("shutting down: no new connections, finishing drains in flight");
    let _ = tokio::time::timeout(CONNECTION_GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.abort_all();
    guard.shutdown().await;
}

/// Where a guard listens once bound.
pub async fn bind(addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::failed(format!("failed to listen on {addr}")).with_source(e))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::failed(format!("failed to listen on {addr}")).with_source(e))?;
    Ok((listener, local))
}
