//! What the client answers besides data: the typed outcome of an unregister, why a
//! single-runner read failed, how a request failed before any HTTP status, and the raw reply
//! all of them are read from.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::error::Error;
use crate::github::rate::{Limit, RateInfo};

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
    /// 403/429 rate limit (`status` says which GitHub sent): wait `retry_after`, else until
    /// `reset` (epoch seconds).
    RateLimited {
        status: u16,
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

/// An HTTP answer of any status.
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
}
