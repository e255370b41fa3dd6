//! GitHub's error responses, with the bodies the real API sends.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::scope::Level;

const REST_DOCS: &str = "https://docs.github.com/rest";
const SECONDARY_DOCS: &str = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";
const PRIMARY_DOCS: &str =
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits";

/// A JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    (status, axum::Json(body)).into_response()
}

/// `basic-error` with the `status` field GitHub includes in most error bodies.
fn basic(status: StatusCode, message: &str, documentation_url: &str) -> Response {
    json_response(
        status,
        &json!({
            "message": message,
            "documentation_url": documentation_url,
            "status": status.as_str(),
        }),
    )
}

/// The documentation page GitHub names in an operation's errors.
pub(crate) fn doc_url(level: Level, page: &str, operation: &str) -> String {
    let (base, target) = match level {
        Level::Org => ("https://docs.github.com/rest", "an-organization"),
        Level::Repo => ("https://docs.github.com/rest", "a-repository"),
        Level::Enterprise => (
            "https://docs.github.com/enterprise-cloud@latest/rest",
            "an-enterprise",
        ),
    };
    format!("{base}/actions/{page}#{operation}-{target}")
}

/// 404 for an unknown scope, runner or group.
pub(crate) fn not_found(documentation_url: &str) -> Response {
    basic(StatusCode::NOT_FOUND, "Not Found", documentation_url)
}

/// 404 for a path no route serves.
pub(crate) fn no_route() -> Response {
    basic(StatusCode::NOT_FOUND, "Not Found", REST_DOCS)
}

/// 401 for a missing or wrong token.
pub(crate) fn bad_credentials() -> Response {
    basic(StatusCode::UNAUTHORIZED, "Bad credentials", REST_DOCS)
}

/// 403 for a request without `User-Agent`, which GitHub refuses.
pub(crate) fn no_user_agent() -> Response {
    basic(
        StatusCode::FORBIDDEN,
        "Request forbidden by administrative rules. Please make sure your request has a \
         User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). \
         Check https://developer.github.com for other possible causes.",
        REST_DOCS,
    )
}

/// 400 for an `X-GitHub-Api-Version` GitHub does not serve.
pub(crate) fn unsupported_version(requested: &str, supported: &[&str]) -> Response {
    basic(
        StatusCode::BAD_REQUEST,
        &format!(
            "Unsupported 'X-GitHub-Api-Version' header: {requested}. The supported values are: {}",
            supported.join(", ")
        ),
        "https://docs.github.com/rest/overview/api-versions",
    )
}

/// 403 when the hourly quota is spent.
pub(crate) fn primary_limit(request_id: &str) -> Response {
    basic(
        StatusCode::FORBIDDEN,
        &format!(
            "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, \
             please include the request ID {request_id}."
        ),
        PRIMARY_DOCS,
    )
}

/// 403 over the secondary limit, with `retry-after` when GitHub can say how long to wait.
pub(crate) fn secondary_limit(retry_after: Option<u64>, request_id: &str) -> Response {
    let mut response = basic(
        StatusCode::FORBIDDEN,
        &format!(
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try \
             again. If you reach out to GitHub Support for help, please include the request ID \
             {request_id}."
        ),
        SECONDARY_DOCS,
    );
    if let Some(after) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(after));
    }
    response
}

/// An injected rate-limit refusal (`github-403`, `github-429`): GitHub's primary-limit body
/// when the wait is given by `x-ratelimit-reset`, its secondary-limit body with `retry-after`
/// otherwise.
pub(crate) fn injected_limit(
    status: StatusCode,
    retry_after: Option<u64>,
    request_id: &str,
) -> Response {
    let mut response = match retry_after {
        Some(after) => secondary_limit(Some(after), request_id),
        None => primary_limit(request_id),
    };
    *response.status_mut() = status;
    response
}

/// 422 `validation-error-simple` for a busy runner, with GitHub's exact message.
pub(crate) fn runner_busy(name: &str, documentation_url: &str) -> Response {
    json_response(
        StatusCode::UNPROCESSABLE_ENTITY,
        &json!({
            "message": format!("Bad request - Runner \"{name}\" is still running a job"),
            "documentation_url": documentation_url,
        }),
    )
}

/// 422 `validation-error-simple` for a query parameter that is not an integer.
pub(crate) fn not_an_integer(param: &str, value: &str, documentation_url: &str) -> Response {
    json_response(
        StatusCode::UNPROCESSABLE_ENTITY,
        &json!({
            "message": format!(
                "Invalid request.\n\nFor '{param}', {} is not an integer.",
                Value::from(value)
            ),
            "documentation_url": documentation_url,
        }),
    )
}

/// A 5xx as GitHub's front end sends it.
pub(crate) fn server_error(status: StatusCode) -> Response {
    let message = match status {
        StatusCode::BAD_GATEWAY => "Server Error",
        StatusCode::SERVICE_UNAVAILABLE => "Service Unavailable",
        _ => "Internal Server Error",
    };
    basic(status, message, REST_DOCS)
}
