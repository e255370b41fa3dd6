//! The runner-group operations (org and enterprise): list, get, and the runners in a group.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;

use super::errors::{self, doc_url, json_response};
use super::pagination::Page;
use super::runners::{Params, id_param, page_response, runners_in, scope_of};
use super::{Api, render};
use crate::world;

const GROUPS: &str = "self-hosted-runner-groups";

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

pub(super) async fn list_groups(
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

pub(super) async fn get_group(
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

pub(super) async fn list_group_runners(
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
