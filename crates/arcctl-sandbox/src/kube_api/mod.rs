//! The fake Kubernetes API server over the shared world: what kube-rs and a real `kubectl`
//! need for get, delete, logs, cordon and patch.
//!
//! This module owns the request pipeline (latency, the `kube-5xx` and `kube-timeout` faults,
//! RBAC denials for `--forbid-namespace` and the `--rbac` rules (`rbac`), the ARC CRDs the
//! `--mode` installs, request statistics) and dispatch;
//! `path` parses request paths, `discovery` serves the discovery documents, `objects` lists,
//! gets, deletes, patches and evicts, `json_patch` handles RFC 6902 patches, `watch` streams
//! changes, `logs` serves `pods/log`, `table` renders kubectl's tables and `status` builds the
//! error bodies. `webhooks` stores ValidatingWebhookConfigurations and `admission` calls their
//! webhooks on evictions (`webhook_client` is its HTTPS client).
//!
//! Not served: create (POST) of anything but ValidatingWebhookConfigurations, replace (PUT),
//! deletecollection, OpenAPI, events; they answer 405 or 404 as a server without them would.

mod admission;
mod discovery;
mod json_patch;
mod logs;
mod objects;
mod path;
mod rbac;
mod status;
mod table;
mod watch;
mod webhook_client;
mod webhooks;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::header::{ACCEPT, CONTENT_TYPE, HOST};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

use serde_json::Value;

use crate::options::FaultKind;
use crate::store::{NAMESPACES, ResourceType, VALIDATING_WEBHOOK_CONFIGURATIONS};
use crate::world::{self, SharedWorld};
use path::{Parsed, Sub, Target};
use status::ApiError;

/// Who the sandbox says the client is, in RBAC denials.
pub(crate) const SANDBOX_USER: &str = "system:serviceaccount:arc-system:arcctl";

/// The fake Kubernetes API's routes. With `--rbac FILE`, its rules are enforced; a file that
/// cannot be read denies everything (logged) — [`check_options`] reports it first.
pub fn router(world: SharedWorld) -> Router {
    let path = world::lock(&world).options.rbac.clone();
    let rules = path.map(|p| {
        Arc::new(rbac::Rules::load(&p).unwrap_or_else(|e| {
            tracing::warn!("{e}; denying every request");
            rbac::Rules::default()
        }))
    });
    Router::new()
        .fallback(handle)
        .layer(Extension(rules))
        .with_state(world)
}

/// Refuses options the API server cannot serve with (an unreadable `--rbac` file).
pub fn check_options(options: &crate::Options) -> crate::Result<()> {
    match &options.rbac {
        Some(path) => rbac::Rules::load(path).map(drop),
        None => Ok(()),
    }
}

/// The `--rbac` rules, if any.
type Enforced = Option<Arc<rbac::Rules>>;

/// Query parameters; kube-rs sends `?&a=b`, which parses the same.
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    fn parse(query: Option<&str>) -> Self {
        Query(
            url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .into_owned()
                .collect(),
        )
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean parameter, true as Go's `strconv.ParseBool` reads it.
    pub fn flag(&self, name: &str) -> bool {
        matches!(
            self.get(name),
            Some("1" | "t" | "T" | "true" | "TRUE" | "True")
        )
    }
}

/// The parts of a request the handlers need.
struct Request {
    method: Method,
    query: Query,
    headers: HeaderMap,
    body: Bytes,
}

async fn handle(
    State(world): State<SharedWorld>,
    Extension(rules): Extension<Enforced>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let parsed = path::parse(uri.path());
    let pattern = parsed
        .as_ref()
        .map_or(path::UNMATCHED, |p| p.pattern.as_str())
        .to_owned();
    let latency = world::lock(&world).options.latency;
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let (fault, hang) = {
        let mut w = world::lock(&world);
        let fault = w.fault(FaultKind::Kube5xx);
        (fault, !fault && w.fault(FaultKind::KubeTimeout))
    };
    if hang {
        // `kube-timeout`: no answer; the connection is dropped after a long, bounded hang
        // (the client's request timeout should give up first). Nothing is performed.
        world::lock(&world).stats.record_kube(
            method.as_str(),
            &pattern,
            crate::github_api::STATUS_TIMEOUT,
        );
        tokio::time::sleep(crate::github_api::TIMEOUT_HANG).await;
        return crate::github_api::dropped_connection();
    }
    let req = Request {
        method,
        query: Query::parse(uri.query()),
        headers,
        body,
    };
    let response = if fault {
        ApiError::internal("injected fault (sandbox --fault kube-5xx)").into_response()
    } else {
        respond(&world, rules.as_deref(), parsed, &req)
            .await
            .unwrap_or_else(IntoResponse::into_response)
    };
    world::lock(&world).stats.record_kube(
        req.method.as_str(),
        &pattern,
        response.status().as_u16(),
    );
    response
}

fn json(v: Value) -> Response {
    axum::Json(v).into_response()
}

fn header(req: &Request, name: axum::http::HeaderName) -> &str {
    req.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn only_get(req: &Request, v: Value) -> Result<Response, ApiError> {
    if req.method == Method::GET {
        Ok(json(v))
    } else {
        Err(ApiError::method_not_allowed())
    }
}

/// The Kubernetes verb of a request, as RBAC names it.
fn verb(req: &Request, collection: bool) -> &'static str {
    match req.method {
        Method::GET if collection && req.query.flag("watch") => "watch",
        Method::GET if collection => "list",
        Method::GET => "get",
        Method::DELETE => "delete",
        Method::PATCH => "patch",
        Method::PUT => "update",
        Method::POST => "create",
        _ => "unknown",
    }
}

/// A 403 when the `--rbac` rules do not allow the request, or it touches a namespace listed in
/// `--forbid-namespace`; a request across all namespaces needs cluster-wide permission, so any
/// forbidden namespace denies it too.
fn check_rbac(
    world: &SharedWorld,
    rules: Option<&rbac::Rules>,
    rt: ResourceType,
    name: Option<&str>,
    sub: Option<Sub>,
    verb: &str,
    ns: Option<&str>,
) -> Result<(), ApiError> {
    if let Some(rules) = rules {
        let resource = match sub {
            Some(sub) => format!("{}/{}", rt.plural, sub.name()),
            None => rt.plural.to_owned(),
        };
        let access = rbac::Access {
            verb,
            group: rt.group,
            resource: &resource,
            name,
            namespace: if rt.namespaced { ns } else { None },
        };
        if !rules.allows(&access) {
            return Err(ApiError::forbidden(
                rt,
                name,
                sub.map(Sub::name),
                verb,
                access.namespace,
            ));
        }
    }
    let w = world::lock(world);
    let forbidden = &w.options.forbid_namespaces;
    if forbidden.is_empty() {
        return Ok(());
    }
    let scope = if rt == NAMESPACES {
        name
    } else if rt.namespaced {
        ns
    } else {
        return Ok(());
    };
    let sub = sub.map(Sub::name);
    match scope {
        Some(n) if forbidden.iter().any(|f| f == n) => {
            Err(ApiError::forbidden(rt, name, sub, verb, Some(n)))
        }
        None if rt.namespaced => Err(ApiError::forbidden(rt, name, sub, verb, None)),
        _ => Ok(()),
    }
}

async fn respond(
    world: &SharedWorld,
    rules: Option<&rbac::Rules>,
    parsed: Option<Parsed>,
    req: &Request,
) -> Result<Response, ApiError> {
    let Some(parsed) = parsed else {
        return Err(ApiError::no_route());
    };
    let mode = world::lock(world).options.mode;
    let group = match &parsed.target {
        Target::Group(group) | Target::Resources { group, .. } => group,
        Target::Collection { rt, .. } | Target::Object { rt, .. } => rt.group,
        _ => "",
    };
    if !discovery::installed(mode, group) {
        return Err(ApiError::no_route());
    }
    match parsed.target {
        Target::Version => only_get(req, discovery::version()),
        Target::CoreVersions => only_get(req, discovery::core_versions(header(req, HOST))),
        Target::Groups => only_get(req, discovery::group_list(mode)),
        Target::Group(group) => only_get(req, discovery::group(group)),
        Target::Resources { group, version } => {
            only_get(req, discovery::resource_list(group, version))
        }
        Target::Collection { rt, ns } => {
            check_rbac(world, rules, rt, None, None, verb(req, true), ns.as_deref())?;
            if req.method == Method::POST && rt == VALIDATING_WEBHOOK_CONFIGURATIONS {
                let created = webhooks::create(world, &req.query, &req.body)?;
                return Ok((axum::http::StatusCode::CREATED, axum::Json(created)).into_response());
            }
            if req.method != Method::GET {
                return Err(ApiError::method_not_allowed());
            }
            if req.query.flag("watch") {
                let table = header(req, ACCEPT).contains("as=Table");
                return watch::watch(world, rt, ns, &req.query, table);
            }
            let accept = header(req, ACCEPT);
            if table::wants_table(accept) {
                let list = objects::list(world, rt, ns.as_deref(), &req.query)?;
                return Ok(json(table::maybe_table(accept, rt, list)));
            }
            let body = objects::list_json(world, rt, ns.as_deref(), &req.query)?;
            Ok((
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response())
        }
        Target::Object { rt, ns, name, sub } => {
            let ns = ns.as_deref();
            check_rbac(world, rules, rt, Some(&name), sub, verb(req, false), ns)?;
            match (&req.method, sub) {
                (&Method::GET, None | Some(Sub::Status)) => {
                    let obj = objects::get(world, rt, ns, &name)?;
                    Ok(json(table::maybe_table(header(req, ACCEPT), rt, obj)))
                }
                (&Method::GET, Some(Sub::Log)) => {
                    logs::logs(world, ns.unwrap_or(""), &name, &req.query)
                }
                (&Method::POST, Some(Sub::Eviction)) => {
                    Ok(admission::evict(world, ns, &name, &req.query, &req.body).await)
                }
                (&Method::DELETE, None) => {
                    objects::delete(world, rt, ns, &name, &req.query, &req.body).map(json)
                }
                (&Method::PATCH, None | Some(Sub::Status)) => objects::patch(
                    world,
                    rt,
                    ns,
                    &name,
                    sub,
                    header(req, CONTENT_TYPE),
                    &req.body,
                )
                .map(json),
                _ => Err(ApiError::method_not_allowed()),
            }
        }
    }
}
