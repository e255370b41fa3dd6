//! Injected network faults: which one strikes a request, and how a lost answer looks on the
//! wire.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{Method, StatusCode};
use axum::response::Response;

use crate::options::FaultKind;
use crate::world::World;

/// Pseudo status recorded in the stats for a connection dropped without an answer.
pub const STATUS_RESET: u16 = 0;
/// Pseudo status recorded in the stats for a request left unanswered (`github-timeout`).
pub const STATUS_TIMEOUT: u16 = 1;
/// How long a `github-timeout` request hangs before its connection is dropped. Bounded, so a
/// client without a timeout still comes back eventually.
pub const TIMEOUT_HANG: Duration = Duration::from_secs(120);

/// A fault that loses the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lost {
    Reset,
    Timeout,
}

impl Lost {
    pub(crate) fn status(self) -> u16 {
        match self {
            Lost::Reset => STATUS_RESET,
            Lost::Timeout => STATUS_TIMEOUT,
        }
    }
}

/// What the fault draw decided for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strike {
    None,
    /// Answer this 5xx instead of performing the request.
    ServerError(StatusCode),
    /// Answer a rate-limit refusal with this status (403 or 429) instead of performing the
    /// request; `reset` picks `x-ratelimit-remaining: 0` + `x-ratelimit-reset` over
    /// `retry-after`. Both ask for a wait of about a second.
    RateLimited {
        status: StatusCode,
        reset: bool,
    },
    /// Lose the answer; `performed` says whether the operation took effect first.
    Lost {
        fault: Lost,
        performed: bool,
    },
}

/// Draws the faults for a request, in a fixed order so a seed replays the same way.
pub(crate) fn draw(world: &mut World, method: &Method) -> Strike {
    const SERVER_ERRORS: [StatusCode; 3] = [
        StatusCode::INTERNAL_SERVER_ERROR,
        StatusCode::BAD_GATEWAY,
        StatusCode::SERVICE_UNAVAILABLE,
    ];
    for (kind, status) in [
        (FaultKind::Github403, StatusCode::FORBIDDEN),
        (FaultKind::Github429, StatusCode::TOO_MANY_REQUESTS),
    ] {
        if world.fault(kind) {
            return Strike::RateLimited {
                status,
                reset: world.chance(0.5),
            };
        }
    }
    if world.fault(FaultKind::Github5xx) {
        let i = usize::try_from(world.draw(0..3)).unwrap_or(0);
        return Strike::ServerError(SERVER_ERRORS[i.min(2)]);
    }
    let fault = if world.fault(FaultKind::GithubReset) {
        Lost::Reset
    } else if world.fault(FaultKind::GithubTimeout) {
        Lost::Timeout
    } else {
        return Strike::None;
    };
    // Reads change nothing, so only a mutation's fate is worth a coin: did the server act
    // before the answer was lost?
    let mutating = !(method == Method::GET || method == Method::HEAD);
    let performed = mutating && world.chance(0.5);
    Strike::Lost { fault, performed }
}

/// A response hyper cannot send: its body fails before the first byte, so hyper abandons the
/// connection without flushing the head and the client sees the connection closed mid-request.
pub(crate) fn dropped_connection() -> Response {
    let failing = futures::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "sandbox fault: connection dropped",
        ))
    });
    Response::new(Body::from_stream(failing))
}
