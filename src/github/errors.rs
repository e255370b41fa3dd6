//! From a failed request to an error an operator can act on: a transport failure named by its
//! kind, 401/403 with what the scope needs of a token (and the permissions GitHub says it
//! accepts), a rate limit with GitHub's wait, 404 as the caller says; and the pieces those
//! messages are made of (GitHub's `message`, the cause chain, the URL without its query).

use url::Url;

use crate::error::{Error, Kind};
use crate::github::client::GitHubClient;
use crate::github::model::ErrorBody;
use crate::github::outcome::{ReadError, Reply, TransportKind};
use crate::github::rate::{RateInfo, SECONDARY_LIMIT_DEFAULT_WAIT};

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

impl GitHubClient {
    /// Turns a failure into an error a user can act on.
    pub(super) fn error(&self, f: Failure, not_found: impl FnOnce() -> Error) -> Error {
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

    pub(super) fn read_error(&self, f: Failure, context: impl FnOnce() -> String) -> ReadError {
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
            None if e.kind() == Kind::Auth => ReadError::Denied(e),
            None => ReadError::Other(e),
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

    pub(super) fn scope_not_found(&self) -> Error {
        Error::failed(format!(
            "`{}` not found or not visible to this token",
            self.scope.name()
        ))
        .with_hint(format!(
            "check the name and the token's access; {}",
            self.scope.token_requirements()
        ))
    }
}

/// GitHub's `message`, else a short, single-line piece of the body, else the reason phrase.
pub(super) fn error_message(reply: &Reply) -> String {
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
pub(super) fn classify(e: &reqwest::Error) -> TransportKind {
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

pub(super) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
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
