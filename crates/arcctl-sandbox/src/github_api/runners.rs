//! The runner operations (list, get, delete, labels, registration and remove tokens) and the
//! lookups they share with the group operations, each a short critical section on the world.

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::{Value, json};

use super::errors::{self, doc_url, json_response};
use super::pagination::Page;
use super::scope::{Level, ScopePath};
use super::{Api, clock, render};
use crate::world::{self, Registration, Unregister, World};

const RUNNERS: &str = "self-hosted-runners";

pub(super) type Params = Path<HashMap<String, String>>;

/// The request's scope if the world knows it, else the 404 to send.
pub(super) fn scope_of(
    api: &Api,
    world: &World,
    params: &HashMap<String, String>,
    doc: impl Fn(Level) -> String,
) -> Result<ScopePath, Box<Response>> {
    let scope = ScopePath::from_params(params).ok_or_else(|| Box::new(errors::no_route()))?;
    let mut known = api
        .known
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if known.knows(world, &scope) {
        Ok(scope)
    } else {
        Err(Box::new(errors::not_found(&doc(scope.level))))
    }
}

/// The id in path parameter `key` (a non-integer id names nothing: 404).
pub(super) fn id_param(params: &HashMap<String, String>, key: &str) -> Option<u64> {
    params.get(key).and_then(|v| v.parse().ok())
}

pub(super) fn runners_in<'w>(
    world: &'w World,
    scope: &ScopePath,
    filter: impl Fn(&Registration) -> bool,
) -> Vec<&'w Registration> {
    world
        .registrations
        .values()
        .filter(|r| scope.holds(&r.scope) && filter(r))
        .collect()
}

/// A paginated `{total_count, KEY: [...]}` response with its `Link` header.
pub(super) fn page_response(
    key: &str,
    total: usize,
    items: Vec<Value>,
    page: &Page,
    uri: &Uri,
    headers: &HeaderMap,
) -> Response {
    let mut response = json_response(StatusCode::OK, &json!({"total_count": total, key: items}));
    if let Some(link) = page.link(headers, uri.path(), total)
        && let Ok(value) = HeaderValue::from_str(&link)
    {
        response.headers_mut().insert(header::LINK, value);
    }
    response
}

pub(super) async fn list_runners(
    State(api): State<Api>,
    Path(params): Params,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let doc = |l| doc_url(l, RUNNERS, "list-self-hosted-runners-for");
    let world = world::lock(&api.world);
    let scope = match scope_of(&api, &world, &params, doc) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let page = match Page::parse(uri.query(), &doc(scope.level)) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let name = page.param("name");
    let matching = runners_in(&world, &scope, |r| name.is_none_or(|n| r.name == n));
    let items = page
        .slice(&matching)
        .iter()
        .map(|r| render::runner(r, world.listed_busy(r)))
        .collect();
    page_response("runners", matching.len(), items, &page, &uri, &headers)
}

/// The registration `{runner_id}` names in the request's scope.
fn runner_of<'w>(
    api: &Api,
    world: &'w World,
    params: &HashMap<String, String>,
    doc: impl Fn(Level) -> String,
) -> Result<&'w Registration, Box<Response>> {
    let scope = scope_of(api, world, params, &doc)?;
    id_param(params, "runner_id")
        .and_then(|id| world.registrations.get(&id))
        .filter(|r| scope.holds(&r.scope))
        .ok_or_else(|| Box::new(errors::not_found(&doc(scope.level))))
}

pub(super) async fn get_runner(State(api): State<Api>, Path(params): Params) -> Response {
    let doc = |l| doc_url(l, RUNNERS, "get-a-self-hosted-runner-for");
    let world = world::lock(&api.world);
    match runner_of(&api, &world, &params, doc) {
        Ok(reg) => json_response(StatusCode::OK, &render::runner(reg, reg.busy)),
        Err(r) => *r,
    }
}

pub(super) async fn delete_runner(State(api): State<Api>, Path(params): Params) -> Response {
    let doc = |l| doc_url(l, RUNNERS, "delete-a-self-hosted-runner-from");
    let mut world = world::lock(&api.world);
    let (id, level) = match runner_of(&api, &world, &params, doc) {
        Ok(reg) => (reg.id, level_of(&params)),
        Err(r) => return *r,
    };
    match world.unregister(id) {
        Unregister::Removed => Response::builder()
            .status(StatusCode::NO_CONTENT)
            .body(axum::body::Body::empty())
            .unwrap_or_default(),
        Unregister::NotFound => errors::not_found(&doc(level)),
        Unregister::Busy { name } => errors::runner_busy(&name, &doc(level)),
    }
}

pub(super) async fn labels(State(api): State<Api>, Path(params): Params) -> Response {
    let doc = |l| doc_url(l, RUNNERS, "list-labels-for-a-self-hosted-runner-for");
    let world = world::lock(&api.world);
    match runner_of(&api, &world, &params, doc) {
        Ok(reg) => json_response(
            StatusCode::OK,
            &json!({"total_count": reg.labels.len(), "labels": render::labels(&reg.labels)}),
        ),
        Err(r) => *r,
    }
}

pub(super) async fn registration_token(State(api): State<Api>, Path(params): Params) -> Response {
    token(&api, &params, "create-a-registration-token-for")
}

pub(super) async fn remove_token(State(api): State<Api>, Path(params): Params) -> Response {
    token(&api, &params, "create-a-remove-token-for")
}

/// 201 `authentication-token`: a fresh token that expires in an hour.
fn token(api: &Api, params: &HashMap<String, String>, operation: &str) -> Response {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let doc = |l| doc_url(l, RUNNERS, operation);
    let mut world = world::lock(&api.world);
    if let Err(r) = scope_of(api, &world, params, doc) {
        return *r;
    }
    let token: String = (0..29)
        .map(|_| {
            let i = world.draw(0..ALPHABET.len() as u64);
            char::from(ALPHABET[usize::try_from(i).unwrap_or(0)])
        })
        .collect();
    drop(world);
    let expires = api.clock.now() + std::time::Duration::from_secs(3_600);
    let expires_at = clock::rfc3339(expires);
    json_response(
        StatusCode::CREATED,
        &json!({"token": token, "expires_at": expires_at}),
    )
}

fn level_of(params: &HashMap<String, String>) -> Level {
    ScopePath::from_params(params).map_or(Level::Org, |s| s.level)
}
