//! The middleware every request passes: API version, User-Agent, authentication, rate limits,
//! faults, then the handler; GitHub's headers, latency and stats on the way out. The order and
//! the choices are documented on the parent module.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::Api;
use super::faults::{self, Lost, Strike};
use super::rate_limit::{Limits, Quota, Refusal};
use super::{app, errors};
use crate::world;

const API_VERSIONS: [&str; 2] = ["2022-11-28", "2026-03-10"];

/// What a route accepts as credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// The world's token (personal or installation token).
    Token,
    /// A JWT of the configured GitHub App (the App endpoints).
    AppJwt,
}

/// The pipeline's state for one route: the API, the route's pattern for the stats, and the
/// credentials it takes.
#[derive(Clone)]
pub(crate) struct Route {
    pub(crate) api: Api,
    pub(crate) pattern: Arc<str>,
    pub(crate) auth: Auth,
}

/// What the checks before the handler decided.
enum Gate {
    /// Answer this instead of running the handler.
    Answer(Response),
    /// Run the handler.
    Pass,
    /// Lose the answer (after running the handler if `performed`).
    Lost { fault: Lost, performed: bool },
}

/// An admitted request's place among the requests in flight, given back when the answer
/// leaves or the client gives up (the pipeline's future is then dropped).
struct InFlight(Arc<std::sync::Mutex<Limits>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .release();
    }
}

pub(crate) async fn pipeline(State(route): State<Route>, req: Request, next: Next) -> Response {
    let api = &route.api;
    let method = req.method().clone();
    let serial = api.requests.fetch_add(1, Ordering::Relaxed) + 1;
    let request_id = format!(
        "5A4D:{:04X}:{serial:06X}:{:06X}:{:08X}",
        serial % 0xFFFF,
        serial.wrapping_mul(7) & 0xFF_FFFF,
        serial.wrapping_mul(13) & 0xFFFF_FFFF
    );
    let (version, admission) = match api_version(req.headers()) {
        Ok(version) => (version, admit(&route, req.headers(), &method, &request_id)),
        Err(answer) => (API_VERSIONS[0], Admission::answer(api, *answer)),
    };
    let Admission {
        quota,
        latency,
        gate,
        in_flight: _in_flight,
    } = admission;
    let response = match gate {
        Gate::Answer(response) => response,
        Gate::Pass => next.run(req).await,
        Gate::Lost { fault, performed } => {
            if performed {
                drop(next.run(req).await);
            }
            record(api, &method, &route.pattern, fault.status());
            sleep(latency).await;
            if fault == Lost::Timeout {
                tokio::time::sleep(faults::TIMEOUT_HANG).await;
            }
            return faults::dropped_connection();
        }
    };
    // GitHub answers 404, not 405, for a method a path does not serve.
    let mut response = if response.status() == StatusCode::METHOD_NOT_ALLOWED {
        errors::no_route()
    } else {
        response
    };
    decorate(&mut response, version, quota, &request_id);
    record(api, &method, &route.pattern, response.status().as_u16());
    sleep(latency).await;
    response
}

/// The API version the request selects, or the 400 for one GitHub does not serve.
fn api_version(headers: &HeaderMap) -> Result<&'static str, Box<Response>> {
    let Some(requested) = headers.get("x-github-api-version") else {
        return Ok(API_VERSIONS[0]);
    };
    let requested = requested.to_str().unwrap_or_default().trim();
    API_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .ok_or_else(|| Box::new(errors::unsupported_version(requested, &API_VERSIONS)))
}

/// What the checks before the handler found.
struct Admission {
    quota: Quota,
    latency: Duration,
    gate: Gate,
    /// Held while an admitted request is served.
    in_flight: Option<InFlight>,
}

impl Admission {
    /// `answer` instead of the handler, without spending any quota.
    fn answer(api: &Api, answer: Response) -> Admission {
        let latency = world::lock(&api.world).options.latency;
        Admission {
            quota: lock_limits(api).peek(api.clock.now()),
            latency,
            gate: Gate::Answer(answer),
            in_flight: None,
        }
    }
}

/// User-Agent, credentials, limits and faults, under the world's lock (never across an await).
fn admit(route: &Route, headers: &HeaderMap, method: &Method, request_id: &str) -> Admission {
    let api = &route.api;
    if !headers.contains_key(header::USER_AGENT) {
        return Admission::answer(api, errors::no_user_agent());
    }
    let mut world = world::lock(&api.world);
    let latency = world.options.latency;
    if let Err(refusal) = authenticate(route, headers, &world.token) {
        drop(world);
        return Admission::answer(api, *refusal);
    }
    let points = if method == Method::GET || method == Method::HEAD {
        1
    } else {
        5
    };
    let (quota, verdict) = lock_limits(api).admit(api.clock.now(), points);
    let refusal = match verdict {
        Ok(()) => None,
        Err(Refusal::Primary) => Some(errors::primary_limit(request_id)),
        Err(Refusal::Secondary { retry_after }) => {
            Some(errors::secondary_limit(retry_after, request_id))
        }
    };
    if let Some(answer) = refusal {
        world.stats.rate_limit_violations += 1;
        return Admission {
            quota,
            latency,
            gate: Gate::Answer(answer),
            in_flight: None,
        };
    }
    let in_flight = Some(InFlight(api.limits.clone()));
    let gate = match faults::draw(&mut world, method) {
        Strike::None => Gate::Pass,
        Strike::ServerError(status) => Gate::Answer(errors::server_error(status)),
        Strike::RateLimited { status, reset } => {
            // An injected refusal, not the client's overuse: no violation is counted.
            let mut quota = quota;
            let retry_after = if reset {
                quota.remaining = 0;
                quota.reset = api.clock.now().as_secs() + 1;
                None
            } else {
                Some(1)
            };
            return Admission {
                quota,
                latency,
                gate: Gate::Answer(errors::injected_limit(status, retry_after, request_id)),
                in_flight: None,
            };
        }
        Strike::Lost { fault, performed } => Gate::Lost { fault, performed },
    };
    Admission {
        quota,
        latency,
        gate,
        in_flight,
    }
}

/// Checks the credentials the route takes; the error is the 401 to send.
fn authenticate(route: &Route, headers: &HeaderMap, token: &str) -> Result<(), Box<Response>> {
    let presented = credential(headers);
    match route.auth {
        Auth::Token if presented.is_some_and(|p| p == token) => Ok(()),
        Auth::Token
            if presented.is_some_and(|p| {
                route
                    .api
                    .app_tokens
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .valid(p, route.api.clock.now())
            }) =>
        {
            Ok(())
        }
        Auth::Token => Err(Box::new(errors::bad_credentials())),
        Auth::AppJwt => {
            let Some(app) = &route.api.app else {
                return Err(Box::new(app::refused(
                    "A JSON web token could not be decoded",
                )));
            };
            app.verify(presented.unwrap_or_default(), route.api.clock.now())
                .map_err(|m| Box::new(app::refused(m)))
        }
    }
}

/// The credential in `Authorization: Bearer C` or `Authorization: token C`.
fn credential(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, presented) = value.trim().split_once(' ')?;
    let presented = presented.trim();
    ((scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("token"))
        && !presented.is_empty())
    .then_some(presented)
}

fn lock_limits(api: &Api) -> std::sync::MutexGuard<'_, Limits> {
    api.limits
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// GitHub's headers on every answer.
fn decorate(response: &mut Response, version: &'static str, quota: Quota, request_id: &str) {
    let no_body = response.status() == StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: HeaderValue| {
        headers.insert(HeaderName::from_static(name), value);
    };
    set(
        "x-github-api-version-selected",
        HeaderValue::from_static(version),
    );
    set(
        "x-github-media-type",
        HeaderValue::from_static("github.v3; format=json"),
    );
    set("x-ratelimit-limit", HeaderValue::from(quota.limit));
    set("x-ratelimit-remaining", HeaderValue::from(quota.remaining));
    set("x-ratelimit-used", HeaderValue::from(quota.used));
    set("x-ratelimit-reset", HeaderValue::from(quota.reset));
    set("x-ratelimit-resource", HeaderValue::from_static("core"));
    if let Ok(id) = HeaderValue::from_str(request_id) {
        set("x-github-request-id", id);
    }
    if no_body {
        headers.remove(header::CONTENT_TYPE);
    } else {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
}

fn record(api: &Api, method: &Method, pattern: &str, status: u16) {
    world::lock(&api.world)
        .stats
        .record_github(method.as_str(), pattern, status);
}

async fn sleep(latency: Duration) {
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
}
