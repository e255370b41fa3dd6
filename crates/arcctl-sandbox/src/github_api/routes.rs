//! The route table: every operation of the fake GitHub, each behind the request pipeline
//! under its own pattern and credentials.

use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::response::Response;
use axum::routing::{MethodRouter, any, get, post};

use super::pipeline::{self, Auth, Route};
use super::{Api, app, errors, groups, runners};

/// Every route, each wrapped in the request pipeline under its own pattern.
pub(crate) fn routes(api: &Api) -> Router<Api> {
    let mut table = Table {
        api,
        router: Router::new(),
    };
    for prefix in [
        "/orgs/{org}",
        "/repos/{owner}/{repo}",
        "/enterprises/{enterprise}",
    ] {
        let runners = format!("{prefix}/actions/runners");
        table.add(&runners, get(runners::list_runners));
        table.add(
            &format!("{runners}/registration-token"),
            post(runners::registration_token),
        );
        table.add(
            &format!("{runners}/remove-token"),
            post(runners::remove_token),
        );
        table.add(
            &format!("{runners}/{{runner_id}}"),
            get(runners::get_runner).delete(runners::delete_runner),
        );
        table.add(
            &format!("{runners}/{{runner_id}}/labels"),
            get(runners::labels),
        );
    }
    for prefix in ["/orgs/{org}", "/enterprises/{enterprise}"] {
        let groups = format!("{prefix}/actions/runner-groups");
        table.add(&groups, get(groups::list_groups));
        table.add(
            &format!("{groups}/{{runner_group_id}}"),
            get(groups::get_group),
        );
        table.add(
            &format!("{groups}/{{runner_group_id}}/runners"),
            get(groups::list_group_runners),
        );
    }
    table.add_app("/app/installations", get(app::list_installations));
    table.add_app(
        "/app/installations/{installation_id}/access_tokens",
        post(app::access_token),
    );
    table.add_app("/orgs/{org}/installation", get(app::scope_installation));
    table.add_app(
        "/repos/{owner}/{repo}/installation",
        get(app::scope_installation),
    );
    let fallback = piped(api, "(unmatched)", Auth::Token, any(no_route));
    table
        .router
        .fallback_service(fallback.with_state(api.clone()))
}

struct Table<'a> {
    api: &'a Api,
    router: Router<Api>,
}

impl Table<'_> {
    /// Routes `pattern` (taking the world's token) to `method_router`.
    fn add(&mut self, pattern: &str, method_router: MethodRouter<Api>) {
        self.add_as(pattern, Auth::Token, method_router);
    }

    /// Routes `pattern` (taking an App JWT) to `method_router`.
    fn add_app(&mut self, pattern: &str, method_router: MethodRouter<Api>) {
        self.add_as(pattern, Auth::AppJwt, method_router);
    }

    fn add_as(&mut self, pattern: &str, auth: Auth, method_router: MethodRouter<Api>) {
        let piped = piped(self.api, pattern, auth, method_router);
        self.router = std::mem::take(&mut self.router).route(pattern, piped);
    }
}

/// `method_router` behind the pipeline, taking `auth` as credentials.
fn piped(
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

async fn no_route() -> Response {
    errors::no_route()
}
