//! The GitHub REST client for the self-hosted runner endpoints of one scope: building it,
//! the requests and following their pages.
//!
//! Reads (lists, get by id, find by name) retry transient failures as `github::retry` says;
//! the one mutation, `delete_runner`, never retries and returns a typed outcome
//! (`github::outcome`), because the drain pipeline decides pacing and retries. Every
//! response's rate-limit headers are kept for the pacer. Which token a request carries is
//! `github::auth`'s business, what a failure tells the operator `github::errors`'. The token
//! is a [`SecretString`]: it is sent as a bearer header marked sensitive and never formatted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Method;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue, USER_AGENT};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use url::Url;

use crate::error::{Error, Kind, Result};
use crate::github::auth::{Credentials, Minted};
use crate::github::errors::{Failure, classify, error_chain, error_message};
use crate::github::model::{Runner, RunnerGroup, RunnerGroupPage, RunnerPage};
use crate::github::outcome::{DeleteOutcome, DeleteReply, ReadError, Reply};
use crate::github::pages::{self, MAX_PAGES};
use crate::github::pagination::next_link;
use crate::github::rate::{RateInfo, is_rate_limited};
use crate::github::retry::{self, RetryPolicy};
use crate::github::settings::{GitHubSettings, Scope};

/// The API version arcctl speaks.
const API_VERSION: &str = "2022-11-28";
/// GitHub's largest page.
const PER_PAGE: &str = "100";
/// The largest answer read: a page of 100 runners is about 60 KiB, so anything near this is
/// not GitHub's runner API, and reading it whole would only cost memory.
const MAX_BODY: usize = 16 << 20;

/// The GitHub client of one scope. Cheap to clone; clones share the connection pool.
#[derive(Clone)]
pub struct GitHubClient {
    http: reqwest::Client,
    pub(super) base: Url,
    pub(super) credentials: Credentials,
    /// The App's current installation token (App credentials only).
    pub(super) minted: Arc<tokio::sync::Mutex<Option<Minted>>>,
    pub(super) scope: Scope,
    last_rate: Arc<Mutex<Option<RateInfo>>>,
    retry: RetryPolicy,
    /// How many pages of a runner list are read at once.
    page_concurrency: usize,
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
            page_concurrency: pages::DEFAULT_CONCURRENCY,
            logs: tracing::dispatcher::get_default(tracing::Dispatch::clone),
        })
    }

    /// Replaces the read retry policy (tests use short delays).
    #[must_use]
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets how many pages of a runner list are read at once (at least one).
    #[must_use]
    pub fn with_page_concurrency(mut self, n: usize) -> Self {
        self.page_concurrency = n.max(1);
        self
    }

    pub(super) fn retry_policy(&self) -> RetryPolicy {
        self.retry
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

    /// All runners of the scope (`GET {scope}/actions/runners`, every page, several at once
    /// as `github::pages` says).
    pub async fn list_runners(&self) -> Result<Vec<Runner>> {
        let url = self.url(&format!("{}/actions/runners", self.scope.path()), &[])?;
        self.runner_pages(url, self.page_concurrency)
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
        self.runner_pages(url, self.page_concurrency)
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
                outcome: if e.kind() == Kind::Auth {
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
                            status,
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

    /// Emits log events to the run's subscriber.
    pub(super) fn log(&self, event: impl FnOnce()) {
        tracing::dispatcher::with_default(&self.logs, event);
    }

    /// Sends one request with `bearer`; any HTTP status is `Ok`.
    pub(super) async fn send_as(
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

    /// `base` + `path`, without query parameters.
    pub(super) fn url_plain(&self, path: &str) -> Result<Url> {
        self.base.join(path).map_err(|e| {
            Error::usage(format!("cannot build a GitHub URL from `{}`", self.base)).with_source(e)
        })
    }

    /// One GET decoded as `T`; non-2xx answers are failures.
    pub(super) async fn get_once<T: DeserializeOwned>(
        &self,
        url: Url,
    ) -> Result<(T, HeaderMap), Failure> {
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

    /// A GET with the bounded retries of [`retry`](crate::github::retry).
    async fn get_json<T: DeserializeOwned>(
        &self,
        url: Url,
        wait_rate_limits: bool,
    ) -> Result<(T, HeaderMap), Failure> {
        retry::with_retries(self.retry, wait_rate_limits, || {
            self.get_once::<T>(url.clone())
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
}
