//! `-v`, `-vv`, `-vvv`: diagnostic logs on the command's stderr (`ctx.stderr`), through
//! `tracing`.
//!
//! Each run gets its own subscriber (tests run many commands in one process), attached to the
//! command's future with [`WithSubscriber`](tracing::instrument::WithSubscriber); tasks the
//! command spawns carry it along with `with_current_subscriber()`, and the GitHub client keeps
//! the one it was built under. The Kubernetes client sends its requests from a task of its own
//! (kube-rs buffers them), so [`KubeLog`] carries the subscriber into it and logs each request
//! there. Levels:
//!
//! - `-v`: every request arcctl sends, GitHub and Kubernetes: method, URL, status, time;
//! - `-vv`: what arcctl decides from the answers (rate limits, token renewals, retries);
//! - `-vvv`: everything arcctl logs, and the HTTP stacks' own debug output.
//!
//! What is logged never holds a credential: request headers are not logged at all, response
//! bodies neither (an installation token arrives in one), and URLs carry no secrets.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{Request, Response};
use tracing::Dispatch;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::context::Stream;

/// The filter directives for a `-v` count; `None` when nothing is logged.
fn directives(verbosity: u8) -> Option<&'static str> {
    match verbosity {
        0 => None,
        1 => Some("arcctl=info"),
        2 => Some("arcctl=debug"),
        _ => Some("arcctl=trace,kube_client=trace,reqwest=debug,hyper_util=debug"),
    }
}

/// The subscriber for a run with `verbosity` (`-v` count), writing to `stderr`.
pub(crate) fn dispatch(verbosity: u8, stderr: &Stream) -> Option<Dispatch> {
    let filter = EnvFilter::builder().parse_lossy(directives(verbosity)?);
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(StderrWriter(stderr.clone()))
        .with_ansi(false)
        .with_target(verbosity >= 3)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .finish();
    Some(Dispatch::new(subscriber))
}

/// `ctx.stderr` as a `tracing_subscriber` writer: one write per log line.
#[derive(Clone)]
struct StderrWriter(Stream);

impl std::io::Write for StderrWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write_str(&String::from_utf8_lossy(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for StderrWriter {
    type Writer = StderrWriter;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// A tower layer for the Kubernetes client: logs every request (method, URL, status, time) to
/// the subscriber current when the layer was made, and runs the client's own tracing under it.
#[derive(Clone)]
pub(crate) struct KubeLog {
    logs: Dispatch,
    /// The API server URL, shown before the request's path.
    server: String,
}

impl KubeLog {
    /// Logs to the current run's subscriber.
    pub(crate) fn current(server: &str) -> Self {
        KubeLog {
            logs: tracing::dispatcher::get_default(Dispatch::clone),
            server: server.trim_end_matches('/').to_owned(),
        }
    }
}

impl<S> tower::Layer<S> for KubeLog {
    type Service = KubeLogService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        KubeLogService {
            inner,
            logs: self.logs.clone(),
            server: self.server.clone(),
        }
    }
}

/// The service of [`KubeLog`].
#[derive(Clone)]
pub(crate) struct KubeLogService<S> {
    inner: S,
    logs: Dispatch,
    server: String,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, R> tower::Service<Request<B>> for KubeLogService<S>
where
    S: tower::Service<Request<B>, Response = Response<R>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        // Only the method and URL: the request's headers carry the bearer token.
        let shown = format!("{} {}{}", req.method(), self.server, req.uri());
        let started = Instant::now();
        let logs = self.logs.clone();
        let inner = &mut self.inner;
        let future = tracing::dispatcher::with_default(&logs, || inner.call(req));
        Box::pin(
            async move {
                let result = future.await;
                let ms = started.elapsed().as_millis();
                match &result {
                    Ok(resp) => {
                        tracing::info!("kube: {shown} → {} in {ms} ms", resp.status().as_u16());
                    }
                    Err(e) => tracing::info!("kube: {shown} → {e} after {ms} ms"),
                }
                result
            }
            .with_subscriber(logs),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_count() {
        let (stream, capture) = Stream::capture();
        assert!(dispatch(0, &stream).is_none());
        let d = dispatch(1, &stream).unwrap();
        tracing::dispatcher::with_default(&d, || {
            tracing::info!("a request");
            tracing::debug!("a decision");
        });
        let text = capture.text();
        assert!(text.contains("a request"), "{text}");
        assert!(!text.contains("a decision"), "{text}");
        let d = dispatch(2, &stream).unwrap();
        tracing::dispatcher::with_default(&d, || tracing::debug!("a decision"));
        assert!(capture.text().contains("a decision"));
    }
}
