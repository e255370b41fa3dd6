//! The runner, label, token and runner-group operations, each a short critical section on the
//! world.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware;
use axum::response::Response;
use axum::routing::{MethodRouter, any, get, post};
use serde_json::{Value, json};

use super::errors::{self, doc_url, json_response};
use super::pagination::Page;
use super::pipeline::{self, Auth, Route};
use super::scope::{Level, ScopePath};
use super::{Api, app, clock, render};
use crate::sandbox::world::{self, Registration, Unregister, World};

const RUNNERS: &str = "self-hosted-runners";
const GROUPS: &str = "self-hosted-runner-groups";

/// Every route, each wrapped in the request pipeline under its own pattern.
pub(crate) fn routes(api: &Api) -> Router<Api> {
    let mut router = Router::new();
    for prefix in [
        "/orgs/{org}",
        "/repos/{owner}/{repo}",
        "/enterprises/{enterprise}",
    ] {
        let runners = format!("{prefix}/actions/runners");
        router = router
            .route(&runners, piped(api, &runners, get(list_runners)))
            .route(
                &format!("{runners}/registration-token"),
                piped(
                    api,
                    &format!("{runners}/registration-token"),
                    post(registration_token),
                ),
            )
            .route(
                &format!("{runners}/remove-token"),
                piped(api, &format!("{runners}/remove-token"), post(remove_token)),
            )
            .route(
                &format!("{runners}/{{runner_id}}"),
                piped(
                    api,
                    &format!("{runners}/{{runner_id}}"),
                    get(get_runner).delete(delete_runner),
                ),
            )
            .route(
                &format!("{runners}/{{runner_id}}/labels"),
                piped(api, &format!("{runners}/{{runner_id}}/labels"), get(labels)),
            );
    }
    for prefix in ["/orgs/{org}", "/enterprises/{enterprise}"] {
        let groups = format!("{prefix}/actions/runner-groups");
        let group = format!("{groups}/{{runner_group_id}}");
        let group_runners = format!("{group}/runners");
        router = router
            .route(&groups, piped(api, &groups, get(list_groups)))
            .route(&group, piped(api, &group, get(get_group)))
            .route(
                &group_runners,
                piped(api, &group_runners, get(list_group_runners)),
            );
    }
    let app_route =
        |pattern: &str, method_router| piped_as(api, pattern, Auth::AppJwt, method_router);
    router = router
        .route(
            "/app/installations",
            app_route("/app/installations", get(app::list_installations)),
        )
        .route(
            "/app/installations/{installation_id}/access_tokens",
            app_route(
                "/app/installations/{installation_id}/access_tokens",
                post(app::access_token),
            ),
        )
        .route(
            "/orgs/{org}/installation",
            app_route("/orgs/{org}/installation", get(app::scope_installation)),
        )
        .route(
            "/repos/{owner}/{repo}/installation",
            app_route(
                "/repos/{owner}/{repo}/installation",
                get(app::scope_installation),
            ),
        );
    router.fallback_service(piped(api, "(unmatched)", any(no_route)).with_state(api.clone()))
}

/// `method_router` behind the pipeline, which records it under `pattern`.
fn piped(api: &Api, pattern: &str, method_router: MethodRouter<Api>) -> MethodRouter<Api> {
    piped_as(api, pattern, Auth::Token, method_router)
}

/// `method_router` behind the pipeline, taking `auth` as credentials.
fn piped_as(
    api: &Api,
    pattern: &str,
    auth: Auth,
    method_router: MethodRouter<Api>,
) -> MethodRouter<Api> {
    let route = Route {
        api: api.clone(),
        pattern: Arc::from(pattern),
        auth,
    };
    method_router.layer(middleware::from_fn_with_state(route, pipeline::pipeline))
}

type Params = Path<HashMap<String, String>>;

/// The request's scope if the world knows it, else the 404 to send.
fn scope_of(
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
fn id_param(params: &HashMap<String, String>, key: &str) -> Option<u64> {
    params.get(key).and_then(|v| v.parse().ok())
}

fn runners_in<'w>(
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
fn page_response(
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

async fn list_runners(
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

async fn get_runner(State(api): State<Api>, Path(params): Params) -> Response {
    let doc = |l| doc_url(l, RUNNERS, "get-a-self-hosted-runner-for");
    let world = world::lock(&api.world);
    match runner_of(&api, &world, &params, doc) {
        Ok(reg) => json_response(StatusCode::OK, &render::runner(reg, reg.busy)),
        Err(r) => *r,
    }
}

async fn delete_runner(State(api): State<Api>, Path(params): Params) -> Response {
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

async fn labels(State(api): State<Api>, Path(params): Params) -> Response {
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

async fn registration_token(State(api): State<Api>, Path(params): Params) -> Response {
    token(&api, &params, "create-a-registration-token-for")
}

async fn remove_token(State(api): State<Api>, Path(params): Params) -> Response {
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

/// `http://HOST/orgs/ORG` (or the enterprise's) for the URLs inside group objects.
fn base_url(headers: &HeaderMap, uri: &Uri) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    let path = uri.path();
    let prefix = path.find("/actions/").map_or(path, |i| &path[..i]);
    format!("http://{host}{prefix}")
}

async fn list_groups(
    State(api): State<Api>,
    Path(params): Params,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let doc = |l| doc_url(l, GROUPS, "list-self-hosted-runner-groups-for");
    let world = world::lock(&api.world);
    let scope = match scope_of(&api, &world, &params, doc) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let page = match Page::parse(uri.query(), &doc(scope.level)) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let base = base_url(&headers, &uri);
    let items = page
        .slice(&world.runner_groups)
        .iter()
        .map(|g| render::group(g, scope.level, &base))
        .collect();
    let total = world.runner_groups.len();
    page_response("runner_groups", total, items, &page, &uri, &headers)
}

async fn get_group(
    State(api): State<Api>,
    Path(params): Params,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let doc = |l| doc_url(l, GROUPS, "get-a-self-hosted-runner-group-for");
    let world = world::lock(&api.world);
    let scope = match scope_of(&api, &world, &params, doc) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    match id_param(&params, "runner_group_id")
        .and_then(|id| world.runner_groups.iter().find(|g| g.id == id))
    {
        Some(g) => json_response(
            StatusCode::OK,
            &render::group(g, scope.level, &base_url(&headers, &uri)),
        ),
        None => errors::not_found(&doc(scope.level)),
    }
}

async fn list_group_runners(
    State(api): State<Api>,
    Path(params): Params,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let doc = |l| doc_url(l, GROUPS, "list-self-hosted-runners-in-a-group-for");
    let world = world::lock(&api.world);
    let scope = match scope_of(&api, &world, &params, doc) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let Some(group) = id_param(&params, "runner_group_id")
        .filter(|id| world.runner_groups.iter().any(|g| g.id == *id))
    else {
        return errors::not_found(&doc(scope.level));
    };
    let page = match Page::parse(uri.query(), &doc(scope.level)) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let members = runners_in(&world, &scope, |r| r.runner_group_id == group);
    let items = page
        .slice(&members)
        .iter()
        .map(|r| render::runner(r, world.listed_busy(r)))
        .collect();
    page_response("runners", members.len(), items, &page, &uri, &headers)
}

async fn no_route() -> Response {
    errors::no_route()
}

fn level_of(params: &HashMap<String, String>) -> Level {
    ScopePath::from_params(params).map_or(Level::Org, |s| s.level)
}
