//! The GitHub REST client for the self-hosted runner endpoints of one scope.
//!
//! Reads (lists, get by id, find by name) retry transient failures a bounded number of times
//! with jittered backoff and honour `retry-after`; the one mutation, `delete_runner`, never
//! retries and returns a typed outcome, because the drain pipeline decides pacing and retries.
//! Every response's rate-limit headers are kept for the pacer. The token is a
//! [`SecretString`]: it is sent as a bearer header marked sensitive and never formatted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue, USER_AGENT};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use std::time::SystemTime;
use url::Url;

use crate::error::{Error, Result};
use crate::github::auth::{Credentials, Installation, InstallationToken, Minted, app_jwt};
use crate::github::model::{ErrorBody, Runner, RunnerGroup, RunnerGroupPage, RunnerPage};
use crate::github::pagination::next_link;
use crate::github::rate::{Limit, RateInfo, SECONDARY_LIMIT_DEFAULT_WAIT, is_rate_limited};
use crate::github::settings::{GitHubSettings, Scope};

/// The API version arcctl speaks.
const API_VERSION: &str = "2022-11-28";
/// GitHub's largest page.
const PER_PAGE: &str = "100";
/// The largest answer read: a page of 100 runners is about 60 KiB, so anything near this is
/// not GitHub's runner API, and reading it whole would only cost memory.
const MAX_BODY: usize = 16 << 20;
/// The most pages one list follows (100 per page): far beyond any real scope, and a bound on
/// a server whose `next` links never end.
const MAX_PAGES: usize = 2_000;

/// How reads retry transient failures.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// The longest `retry-after` / reset wait a read sits out; longer ones fail the read.
    pub max_rate_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            min_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            max_rate_wait: Duration::from_secs(60),
        }
    }
}

/// How a request failed before any HTTP status came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// No answer within the request timeout.
    Timeout,
    /// The connection was reset or closed mid-request.
    Reset,
    /// No connection could be made (refused, DNS, TLS handshake).
    Connect,
    /// Anything else (a malformed response, a body error).
    Other,
}

impl TransportKind {
    pub fn describe(self) -> &'static str {
        match self {
            TransportKind::Timeout => "timed out",
            TransportKind::Reset => "connection reset",
            TransportKind::Connect => "connection failed",
            TransportKind::Other => "transport error",
        }
    }
}

/// What GitHub answered to `DELETE …/actions/runners/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// 204: unregistered; GitHub assigns it no new job.
    Removed,
    /// 404: no such runner (already unregistered).
    NotFound,
    /// 422: still running a job (`Bad request - Runner "NAME" is still running a job`), or
    /// GitHub's other validation failure; `message` tells them apart.
    Busy { message: String },
    /// 403/429 rate limit: wait `retry_after`, else until `reset` (epoch seconds).
    RateLimited {
        retry_after: Option<Duration>,
        reset: Option<u64>,
    },
    /// 401, or a 403 that is not a rate limit: the token may not do this.
    Denied { status: u16, message: String },
    /// 5xx.
    ServerError { status: u16, message: String },
    /// No HTTP answer.
    Transport { kind: TransportKind, detail: String },
    /// Any other status.
    Unexpected { status: u16, message: String },
}

/// A delete's outcome and the rate-limit headers of its response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteReply {
    pub outcome: DeleteOutcome,
    pub rate: RateInfo,
}

/// Why a single-runner read (`get_runner`, `find_runner_by_name`) failed, typed for callers
/// that pace themselves: these reads never sit out a rate limit, they report it.
#[derive(Debug)]
pub enum ReadError {
    /// 401, or a 403 that is not a rate limit (exit 4).
    Denied(Error),
    /// 403/429 rate limit: GitHub asks to wait `wait` (at least a minute when `limit` names
    /// no wait).
    RateLimited {
        wait: Duration,
        limit: Limit,
        error: Error,
    },
    /// Anything else, after the bounded retries of transient failures.
    Other(Error),
}

impl ReadError {
    /// The error to show.
    pub fn error(&self) -> &Error {
        match self {
            ReadError::Denied(e)
            | ReadError::RateLimited { error: e, .. }
            | ReadError::Other(e) => e,
        }
    }
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Denied(e)
            | ReadError::RateLimited { error: e, .. }
            | ReadError::Other(e) => e,
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.error().message())
    }
}

/// One failed request, before it becomes an [`Error`] with context.
#[derive(Debug)]
pub(crate) enum Failure {
    Transport {
        kind: TransportKind,
        source: reqwest::Error,
    },
    Status {
        status: u16,
        message: String,
        rate: RateInfo,
        rate_limited: bool,
        /// `x-accepted-github-permissions`: what a fine-grained token would need.
        accepted_permissions: Option<String>,
    },
    Decode {
        url: Url,
        detail: String,
    },
    /// Credentials could not be obtained (GitHub App token minting); a finished error.
    Auth(Error),
}

impl Failure {
    /// Whether a read should try again, and after how long GitHub asks (if it does).
    fn retry_hint(&self, policy: &RetryPolicy, wait_rate_limits: bool) -> Option<Option<Duration>> {
        match self {
            Failure::Transport { kind, .. } => match kind {
                TransportKind::Timeout | TransportKind::Reset => Some(None),
                TransportKind::Connect | TransportKind::Other => None,
            },
            Failure::Status {
                status,
                rate,
                rate_limited,
                ..
            } => {
                if *rate_limited {
                    let wait = rate.wait().unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT);
                    (wait_rate_limits && wait <= policy.max_rate_wait).then_some(Some(wait))
                } else if *status >= 500 {
                    Some(rate.retry_after)
                } else {
                    None
                }
            }
            Failure::Decode { .. } | Failure::Auth(_) => None,
        }
    }
}

/// An HTTP answer of any status.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// The GitHub client of one scope. Cheap to clone; clones share the connection pool.
#[derive(Clone)]
pub struct GitHubClient {
    http: reqwest::Client,
    base: Url,
    credentials: Credentials,
    /// The App's current installation token (App credentials only).
    minted: Arc<tokio::sync::Mutex<Option<Minted>>>,
    scope: Scope,
    last_rate: Arc<Mutex<Option<RateInfo>>>,
    retry: RetryPolicy,
    /// The run's log subscriber (`-v`), kept so that requests from any task are logged to it.
    logs: tracing::Dispatch,
}

impl std::fmt::Debug for GitHubClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHubClient")
            .field("base", &self.base.as_str())
            .field("scope", &self.scope)
            .field("credentials", &self.credentials.describe())
            .finish()
    }
}

impl GitHubClient {
    /// Builds the client. Needs a process-level rustls provider (ring) installed first.
    pub fn new(settings: &GitHubSettings) -> Result<Self> {
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/vnd.github+json"),
        );
        headers.insert(
            "x-github-api-version",
            HeaderValue::from_static(API_VERSION),
        );
        headers.insert(
            USER_AGENT,
            HeaderValue::from_static(concat!("arcctl/", env!("CARGO_PKG_VERSION"))),
        );
        let mut builder = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(settings.request_timeout)
            .connect_timeout(Duration::from_secs(10).min(settings.request_timeout));
        if let Some(path) = &settings.ca_cert {
            let pem = std::fs::read(path).map_err(|e| {
                Error::usage(format!("failed to read --ca-cert `{}`", path.display()))
                    .with_source(e)
            })?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
                Error::usage(format!(
                    "--ca-cert `{}` is not a PEM certificate",
                    path.display()
                ))
                .with_source(e)
            })?;
            builder = builder.tls_certs_merge(certs);
        }
        let http = builder.build().map_err(|e| match &settings.ca_cert {
            // The PEM parsed, but its contents are no certificate rustls can use.
            Some(path) => Error::usage(format!(
                "--ca-cert `{}` holds no usable certificate",
                path.display()
            ))
            .with_source(e),
            None => Error::failed("failed to set up the GitHub HTTP client").with_source(e),
        })?;
        Ok(GitHubClient {
            http,
            base: settings.base_url.clone(),
            credentials: settings.credentials.clone(),
            minted: Arc::new(tokio::sync::Mutex::new(None)),
            scope: settings.scope.clone(),
            last_rate: Arc::new(Mutex::new(None)),
            retry: RetryPolicy::default(),
            logs: tracing::dispatcher::get_default(tracing::Dispatch::clone),
        })
    }

    /// Replaces the read retry policy (tests use short delays).
    #[must_use]
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The API base URL.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The rate-limit headers of the most recent response that carried any.
    pub fn last_rate(&self) -> Option<RateInfo> {
        *self
            .last_rate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// All runners of the scope (`GET {scope}/actions/runners`, every page).
    pub async fn list_runners(&self) -> Result<Vec<Runner>> {
        let url = self.url(&format!("{}/actions/runners", self.scope.path()), &[])?;
        self.get_pages(url, |p: RunnerPage| p.runners, true)
            .await
            .map_err(|f| self.error(f, || self.scope_not_found()))
            .map_err(|e| {
                e.context(format!(
                    "failed to list runners for {}",
                    self.scope.describe()
                ))
            })
    }

    /// The runners of one runner group (`GET {scope}/actions/runner-groups/{id}/runners`).
    pub async fn list_group_runners(&self, group: &RunnerGroup) -> Result<Vec<Runner>> {
        let path = format!(
            "{}/actions/runner-groups/{}/runners",
            self.scope.path(),
            group.id
        );
        let url = self.url(&path, &[])?;
        self.get_pages(url, |p: RunnerPage| p.runners, true)
            .await
            .map_err(|f| {
                self.error(f, || {
                    Error::failed(format!(
                        "runner group {} (`{}`) not found in {}",
                        group.id,
                        group.name,
                        self.scope.describe()
                    ))
                })
            })
            .map_err(|e| {
                e.context(format!(
                    "failed to list runners of group `{}` in {}",
                    group.name,
                    self.scope.describe()
                ))
            })
    }

    /// The runner groups of an org or enterprise.
    pub async fn list_runner_groups(&self) -> Result<Vec<RunnerGroup>> {
        if !self.scope.has_groups() {
            return Err(Error::usage(format!(
                "{} has no runner groups: only orgs and enterprises do",
                self.scope.describe()
            )));
        }
        let url = self.url(&format!("{}/actions/runner-groups", self.scope.path()), &[])?;
        self.get_pages(url, |p: RunnerGroupPage| p.runner_groups, true)
            .await
            .map_err(|f| self.error(f, || self.scope_not_found()))
            .map_err(|e| {
                e.context(format!(
                    "failed to list runner groups of {}",
                    self.scope.describe()
                ))
            })
    }

    /// Finds a runner group by name (exact, then case-insensitive, as GitHub treats names) or
    /// by id.
    pub async fn resolve_group(&self, spec: &str) -> Result<RunnerGroup> {
        let groups = self.list_runner_groups().await?;
        pick_group(&groups, spec).cloned().ok_or_else(|| {
            let names: Vec<String> = groups
                .iter()
                .map(|g| format!("{} ({})", g.name, g.id))
                .collect();
            Error::failed(format!(
                "runner group `{spec}` not found in {}",
                self.scope.describe()
            ))
            .with_hint(if names.is_empty() {
                "the scope has no runner groups".to_owned()
            } else {
                format!("groups: {}", names.join(", "))
            })
        })
    }

    /// One runner by id; `None` when GitHub answers 404. Transient failures are retried a
    /// few times; a rate limit is reported, not waited out.
    pub async fn get_runner(&self, id: u64) -> Result<Option<Runner>, ReadError> {
        let url = self
            .url(&format!("{}/actions/runners/{id}", self.scope.path()), &[])
            .map_err(ReadError::Other)?;
        match self.get_json::<Runner>(url, false).await {
            Ok((r, _)) => Ok(Some(r)),
            Err(Failure::Status { status: 404, .. }) => Ok(None),
            Err(f) => Err(self.read_error(f, || {
                format!("failed to get runner {id} of {}", self.scope.describe())
            })),
        }
    }

    /// The runner registered under exactly `name`, if any (`GET …/actions/runners?name=NAME`).
    /// Like [`GitHubClient::get_runner`], a rate limit is reported, not waited out.
    pub async fn find_runner_by_name(&self, name: &str) -> Result<Option<Runner>, ReadError> {
        let url = self
            .url(
                &format!("{}/actions/runners", self.scope.path()),
                &[("name", name)],
            )
            .map_err(ReadError::Other)?;
        let runners = self
            .get_pages(url, |p: RunnerPage| p.runners, false)
            .await
            .map_err(|f| {
                self.read_error(f, || {
                    format!(
                        "failed to look up runner `{name}` in {}",
                        self.scope.describe()
                    )
                })
            })?;
        // The filter is GitHub's; the exact match is ours.
        Ok(runners.into_iter().find(|r| r.name == name))
    }

    fn read_error(&self, f: Failure, context: impl FnOnce() -> String) -> ReadError {
        let limited = match &f {
            Failure::Status {
                rate,
                rate_limited: true,
                ..
            } => Some((
                rate.wait().unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT),
                rate.limit(),
            )),
            _ => None,
        };
        let e = self.error(f, || self.scope_not_found()).context(context());
        match limited {
            Some((wait, limit)) => ReadError::RateLimited {
                wait,
                limit,
                error: e,
            },
            None if e.kind() == crate::error::Kind::Auth => ReadError::Denied(e),
            None => ReadError::Other(e),
        }
    }

    /// Unregisters a runner (`DELETE …/actions/runners/{id}`), once, without retrying.
    pub async fn delete_runner(&self, id: u64) -> DeleteReply {
        let url = match self.url(&format!("{}/actions/runners/{id}", self.scope.path()), &[]) {
            Ok(u) => u,
            Err(e) => {
                return DeleteReply {
                    outcome: DeleteOutcome::Unexpected {
                        status: 0,
                        message: e.to_string(),
                    },
                    rate: RateInfo::default(),
                };
            }
        };
        match self.send(Method::DELETE, url).await {
            Err(Failure::Transport { kind, source }) => DeleteReply {
                outcome: DeleteOutcome::Transport {
                    kind,
                    detail: error_chain(&source),
                },
                rate: RateInfo::default(),
            },
            Err(Failure::Auth(e)) => DeleteReply {
                outcome: if e.kind() == crate::error::Kind::Auth {
                    DeleteOutcome::Denied {
                        status: 401,
                        message: e.to_string(),
                    }
                } else {
                    DeleteOutcome::Unexpected {
                        status: 0,
                        message: e.to_string(),
                    }
                },
                rate: RateInfo::default(),
            },
            Err(other) => DeleteReply {
                outcome: DeleteOutcome::Unexpected {
                    status: 0,
                    message: format!("{other:?}"),
                },
                rate: RateInfo::default(),
            },
            Ok(reply) => {
                let rate = RateInfo::from_headers(&reply.headers);
                let status = reply.status.as_u16();
                let message = error_message(&reply);
                let outcome = match status {
                    204 | 200 => DeleteOutcome::Removed,
                    404 => DeleteOutcome::NotFound,
                    422 => DeleteOutcome::Busy { message },
                    403 | 429 if is_rate_limited(status, &rate, &message) => {
                        DeleteOutcome::RateLimited {
                            retry_after: rate.retry_after,
                            reset: rate.reset,
                        }
                    }
                    401 | 403 => DeleteOutcome::Denied { status, message },
                    500..=599 => DeleteOutcome::ServerError { status, message },
                    _ => DeleteOutcome::Unexpected { status, message },
                };
                DeleteReply { outcome, rate }
            }
        }
    }

    /// The error for a 401/403 in this scope, for callers that turn a [`DeleteOutcome::Denied`]
    /// into a stop (exit 4).
    pub fn denied_error(&self, status: u16, message: &str) -> Error {
        self.error(
            Failure::Status {
                status,
                message: message.to_owned(),
                rate: RateInfo::default(),
                rate_limited: false,
                accepted_permissions: None,
            },
            || self.scope_not_found(),
        )
    }

    fn scope_not_found(&self) -> Error {
        Error::failed(format!(
            "`{}` not found or not visible to this token",
            self.scope.name()
        ))
        .with_hint(format!(
            "check the name and the token's access; {}",
            self.scope.token_requirements()
        ))
    }

    /// `base` + `path` with `per_page=100` and `query`.
    fn url(&self, path: &str, query: &[(&str, &str)]) -> Result<Url> {
        let mut url = self.base.join(path).map_err(|e| {
            Error::usage(format!("cannot build a GitHub URL from `{}`", self.base)).with_source(e)
        })?;
        {
            let mut q = url.query_pairs_mut();
            for (k, v) in query {
                q.append_pair(k, v);
            }
            q.append_pair("per_page", PER_PAGE);
        }
        Ok(url)
    }

    /// Sends one request with the current credentials; any HTTP status is `Ok`.
    ///
    /// An App's installation token that GitHub refuses (401) although it was thought fresh
    /// (clock skew, a revoked token) is dropped and the request sent once more with a new one.
    async fn send(&self, method: Method, url: Url) -> Result<Reply, Failure> {
        let bearer = self.bearer().await?;
        let reply = self.send_as(method.clone(), url.clone(), &bearer).await?;
        if reply.status != StatusCode::UNAUTHORIZED
            || !matches!(self.credentials, Credentials::App(_))
        {
            return Ok(reply);
        }
        {
            let mut minted = self.minted.lock().await;
            // Another request may have renewed it already.
            if minted
                .as_ref()
                .is_some_and(|m| m.token.expose_secret() == bearer.expose_secret())
            {
                *minted = None;
            }
        }
        self.log(|| tracing::debug!("installation token refused (401); minting a new one"));
        let bearer = self.bearer().await?;
        self.send_as(method, url, &bearer).await
    }

    /// Emits log events to the run's subscriber.
    fn log(&self, event: impl FnOnce()) {
        tracing::dispatcher::with_default(&self.logs, event);
    }

    /// Sends one request with `bearer`; any HTTP status is `Ok`.
    async fn send_as(
        &self,
        method: Method,
        url: Url,
        bearer: &SecretString,
    ) -> Result<Reply, Failure> {
        let started = std::time::Instant::now();
        let shown = format!("{method} {url}");
        let mut resp = self
            .http
            .request(method, url.clone())
            .bearer_auth(bearer.expose_secret())
            .send()
            .await
            .map_err(|e| {
                let kind = classify(&e);
                self.log(|| {
                    tracing::info!(
                        "github: {shown} → {} after {} ms",
                        kind.describe(),
                        started.elapsed().as_millis()
                    );
                });
                Failure::Transport { kind, source: e }
            })?;
        let status = resp.status();
        let headers = resp.headers().clone();
        let rate = RateInfo::from_headers(&headers);
        self.log(|| {
            tracing::info!(
                "github: {shown} → {} in {} ms",
                status.as_u16(),
                started.elapsed().as_millis()
            );
            tracing::debug!(
                request_id = headers
                    .get("x-github-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or(""),
                remaining = ?rate.remaining,
                reset = ?rate.reset,
                retry_after = ?rate.retry_after,
                "github: rate limit"
            );
        });
        if rate != RateInfo::default() {
            *self
                .last_rate
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(rate);
        }
        let too_large = || Failure::Decode {
            url: url.clone(),
            detail: format!("the answer is larger than {} MiB", MAX_BODY >> 20),
        };
        if resp.content_length().is_some_and(|n| n > MAX_BODY as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| Failure::Transport {
            kind: classify(&e),
            source: e,
        })? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    /// The token to send: the configured one, or the App's installation token, minted (once,
    /// for all concurrent requests) when missing or about to expire.
    async fn bearer(&self) -> Result<SecretString, Failure> {
        let app = match &self.credentials {
            Credentials::Token { token, .. } => return Ok(token.clone()),
            Credentials::App(app) => app,
        };
        let mut minted = self.minted.lock().await;
        let now = SystemTime::now();
        if let Some(m) = minted.as_ref().filter(|m| m.fresh(now)) {
            return Ok(m.token.clone());
        }
        let jwt = app_jwt(app, now).map_err(Failure::Auth)?;
        let installation = match app.installation_id {
            Some(id) => id,
            None => {
                let url = self
                    .url_plain(&format!("{}/installation", self.scope.path()))
                    .map_err(Failure::Auth)?;
                let reply = self.send_as(Method::GET, url, &jwt).await?;
                self.app_answer::<Installation>(&reply, app.app_id, "find its installation on")?
                    .id
            }
        };
        let url = self
            .url_plain(&format!("app/installations/{installation}/access_tokens"))
            .map_err(Failure::Auth)?;
        let reply = self.send_as(Method::POST, url, &jwt).await?;
        let t: InstallationToken =
            self.app_answer(&reply, app.app_id, "get an installation token for")?;
        let m = Minted::new(t.token, t.expires_at.as_deref(), now);
        self.log(|| {
            tracing::debug!(
                "github: minted an installation token for GitHub App {} (installation \
                 {installation}), expires at {}, renewed after {}",
                app.app_id,
                t.expires_at.as_deref().unwrap_or("(not given)"),
                jiff::Timestamp::try_from(m.renew_at)
                    .map(|t| t.to_string())
                    .unwrap_or_default()
            );
        });
        let token = m.token.clone();
        *minted = Some(m);
        Ok(token)
    }

    /// Decodes an answer of the App endpoints; refusals become errors naming the App.
    fn app_answer<T: DeserializeOwned>(
        &self,
        reply: &Reply,
        app_id: u64,
        doing: &str,
    ) -> Result<T, Failure> {
        let status = reply.status.as_u16();
        if reply.status.is_success() {
            return serde_json::from_slice(&reply.body).map_err(|e| {
                Failure::Auth(
                    Error::failed(format!(
                        "unexpected answer from GitHub's App API ({status})"
                    ))
                    .with_source(e),
                )
            });
        }
        let message = error_message(reply);
        let what = format!(
            "GitHub App {app_id} could not {doing} {} ({status} {message})",
            self.scope.describe()
        );
        Err(Failure::Auth(match status {
            401 => Error::auth(what)
                .with_hint("check --app-id and that --app-key is the App's current private key"),
            403 => Error::auth(what),
            404 => Error::auth(what).with_hint(format!(
                "install the App on {} (or pass --installation-id)",
                self.scope.describe()
            )),
            _ => Error::failed(what),
        }))
    }

    /// `base` + `path`, without query parameters.
    fn url_plain(&self, path: &str) -> Result<Url> {
        self.base.join(path).map_err(|e| {
            Error::usage(format!("cannot build a GitHub URL from `{}`", self.base)).with_source(e)
        })
    }

    /// One GET decoded as `T`; non-2xx answers are failures.
    async fn get_once<T: DeserializeOwned>(&self, url: Url) -> Result<(T, HeaderMap), Failure> {
        let reply = self.send(Method::GET, url.clone()).await?;
        if !reply.status.is_success() {
            let status = reply.status.as_u16();
            let rate = RateInfo::from_headers(&reply.headers);
            let message = error_message(&reply);
            return Err(Failure::Status {
                status,
                rate_limited: is_rate_limited(status, &rate, &message),
                rate,
                accepted_permissions: reply
                    .headers
                    .get("x-accepted-github-permissions")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned),
                message,
            });
        }
        let value = serde_json::from_slice(&reply.body).map_err(|e| Failure::Decode {
            url,
            detail: e.to_string(),
        })?;
        Ok((value, reply.headers))
    }

    /// A GET with bounded, jittered retries of transient failures.
    async fn get_json<T: DeserializeOwned>(
        &self,
        url: Url,
        wait_rate_limits: bool,
    ) -> Result<(T, HeaderMap), Failure> {
        let policy = self.retry;
        let backoff = ExponentialBuilder::default()
            .with_min_delay(policy.min_delay)
            .with_max_delay(policy.max_delay)
            .with_max_times(policy.max_retries)
            .with_jitter();
        (|| self.get_once::<T>(url.clone()))
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|f: &Failure| f.retry_hint(&policy, wait_rate_limits).is_some())
            // GitHub's own wait wins over our backoff; `None` means the retries are used up.
            .adjust(|f: &Failure, d| {
                d.map(|d| {
                    f.retry_hint(&policy, wait_rate_limits)
                        .flatten()
                        .unwrap_or(d)
                })
            })
            .await
    }

    /// Every page of a list, following `rel="next"`.
    async fn get_pages<P: DeserializeOwned, T>(
        &self,
        first: Url,
        items: impl Fn(P) -> Vec<T>,
        wait_rate_limits: bool,
    ) -> Result<Vec<T>, Failure> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut next = Some(first);
        while let Some(url) = next {
            if !seen.insert(url.clone()) || seen.len() > MAX_PAGES {
                return Err(Failure::Decode {
                    detail: format!(
                        "the pages do not end: `rel=\"next\"` led back to an earlier page or past {MAX_PAGES} pages"
                    ),
                    url,
                });
            }
            let (page, headers) = self.get_json::<P>(url.clone(), wait_rate_limits).await?;
            out.extend(items(page));
            next = next_link(&headers, &self.base)
                .map_err(|detail| Failure::Decode { url, detail })?;
        }
        Ok(out)
    }

    /// Turns a failure into an error a user can act on.
    fn error(&self, f: Failure, not_found: impl FnOnce() -> Error) -> Error {
        match f {
            Failure::Transport { kind, source } => Error::failed(format!(
                "could not reach GitHub at {} ({})",
                self.base,
                kind.describe()
            ))
            .with_source(source)
            .with_hint("check --github-url / GITHUB_API_URL and the network"),
            Failure::Auth(e) => e,
            Failure::Decode { url, detail } => Error::failed(format!(
                "unexpected response from GitHub at {}",
                strip_query(&url)
            ))
            .with_source(std::io::Error::other(detail)),
            Failure::Status {
                status,
                message,
                rate,
                rate_limited,
                accepted_permissions,
            } => {
                let what = if message.is_empty() {
                    status.to_string()
                } else {
                    format!("{status} {message}")
                };
                if rate_limited {
                    let wait = rate.wait().unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT);
                    return Error::failed(format!("GitHub rate limit reached ({what})")).with_hint(
                        format!(
                            "GitHub asks to wait {}; try again after that",
                            humantime::format_duration(wait)
                        ),
                    );
                }
                match status {
                    401 => Error::auth(format!(
                        "GitHub rejected {} ({what})",
                        self.credentials.describe()
                    ))
                    .with_hint(self.scope.token_requirements()),
                    403 => {
                        let mut hint = self.scope.token_requirements().to_owned();
                        if let Some(p) = accepted_permissions {
                            hint.push_str(&format!("; GitHub accepts permissions: {p}"));
                        }
                        Error::auth(format!(
                            "GitHub denied access to {} ({what})",
                            self.scope.describe()
                        ))
                        .with_hint(hint)
                    }
                    404 => not_found(),
                    _ => Error::failed(format!("GitHub answered {what}")),
                }
            }
        }
    }
}

/// Picks a group by exact name, then case-insensitive name, then numeric id.
fn pick_group<'a>(groups: &'a [RunnerGroup], spec: &str) -> Option<&'a RunnerGroup> {
    let spec = spec.trim();
    groups
        .iter()
        .find(|g| g.name == spec)
        .or_else(|| groups.iter().find(|g| g.name.eq_ignore_ascii_case(spec)))
        .or_else(|| {
            let id: u64 = spec.parse().ok()?;
            groups.iter().find(|g| g.id == id)
        })
}

/// GitHub's `message`, else a short, single-line piece of the body, else the reason phrase.
fn error_message(reply: &Reply) -> String {
    if let Ok(body) = serde_json::from_slice::<ErrorBody>(&reply.body)
        && let Some(m) = body.message.filter(|m| !m.is_empty())
    {
        return m;
    }
    let text = String::from_utf8_lossy(&reply.body);
    let text = text.trim();
    if !text.is_empty() && !text.starts_with('{') && !text.starts_with('<') {
        return text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
    }
    reply.status.canonical_reason().unwrap_or("").to_owned()
}

/// Timeout, reset, connect or other, from reqwest's flags and the io error underneath.
fn classify(e: &reqwest::Error) -> TransportKind {
    if e.is_timeout() {
        return TransportKind::Timeout;
    }
    if e.is_connect() {
        return TransportKind::Connect;
    }
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            match io.kind() {
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => {
                    return TransportKind::Reset;
                }
                TimedOut => return TransportKind::Timeout,
                _ => {}
            }
        }
        // hyper: "connection closed before message completed" has no io error underneath.
        let text = err.to_string();
        if text.contains("connection closed") || text.contains("connection reset") {
            return TransportKind::Reset;
        }
        next = err.source();
    }
    if e.is_request() || e.is_body() {
        TransportKind::Reset
    } else {
        TransportKind::Other
    }
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut next = e.source();
    while let Some(err) = next {
        let t = err.to_string();
        if parts.last() != Some(&t) {
            parts.push(t);
        }
        next = err.source();
    }
    parts.join(": ")
}

fn strip_query(url: &Url) -> String {
    let mut u = url.clone();
    u.set_query(None);
    u.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups() -> Vec<RunnerGroup> {
        vec![
            RunnerGroup {
                id: 1,
                name: "Default".into(),
                default: true,
            },
            RunnerGroup {
                id: 4,
                name: "gpu".into(),
                default: false,
            },
            RunnerGroup {
                id: 9,
                name: "4".into(),
                default: false,
            },
        ]
    }

    #[test]
    fn groups_resolve_by_name_then_id() {
        let g = groups();
        assert_eq!(pick_group(&g, "gpu").unwrap().id, 4);
        assert_eq!(pick_group(&g, "default").unwrap().id, 1);
        // A group literally named "4" wins over the group with id 4.
        assert_eq!(pick_group(&g, "4").unwrap().id, 9);
        assert_eq!(pick_group(&g, "1").unwrap().id, 1);
        assert!(pick_group(&g, "nope").is_none());
        assert!(pick_group(&g, "77").is_none());
    }

    #[test]
    fn retry_hints() {
        let p = RetryPolicy::default();
        let status = |status, rate_limited, rate| Failure::Status {
            status,
            message: String::new(),
            rate,
            rate_limited,
            accepted_permissions: None,
        };
        assert_eq!(
            status(502, false, RateInfo::default()).retry_hint(&p, true),
            Some(None)
        );
        assert_eq!(
            status(404, false, RateInfo::default()).retry_hint(&p, true),
            None
        );
        assert_eq!(
            status(401, false, RateInfo::default()).retry_hint(&p, true),
            None
        );
        let short = RateInfo {
            retry_after: Some(Duration::from_secs(2)),
            ..RateInfo::default()
        };
        assert_eq!(
            status(403, true, short).retry_hint(&p, true),
            Some(Some(Duration::from_secs(2)))
        );
        let long = RateInfo {
            retry_after: Some(Duration::from_secs(3600)),
            ..RateInfo::default()
        };
        assert_eq!(status(429, true, long).retry_hint(&p, true), None);
        // Single-runner reads report rate limits instead of sitting them out.
        assert_eq!(status(403, true, short).retry_hint(&p, false), None);
        assert_eq!(
            status(500, false, RateInfo::default()).retry_hint(&p, false),
            Some(None)
        );
    }
}
