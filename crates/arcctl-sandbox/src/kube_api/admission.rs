//! Validating admission on `POST pods/{name}/eviction`, as the API server runs it: after the
//! Eviction is read and before it takes effect, every registered webhook that matches
//! (`webhooks`) is sent an `AdmissionReview` v1 over HTTPS (`webhook_client`), all at once,
//! without the world's lock (a webhook may call back into the sandbox), and the first refusal
//! in registration order answers the evictor:
//!
//! - `allowed: false` → the webhook's `status` (code 400 when it gave none or one below 400),
//!   message `admission webhook "NAME" denied the request: MESSAGE` (`… without explanation`);
//!   `kubectl drain` retries a 429 every 5 s;
//! - a failed call (unreachable, timed out, not a 2xx, not an AdmissionReview v1 for this
//!   uid) → with `failurePolicy: Fail` (the default) 500 `Internal error occurred: failed
//!   calling webhook "NAME": …`; with `Ignore` the eviction proceeds;
//! - a `?dryRun=All` request is sent with `dryRun: true`, and refused with 400 `admission
//!   webhook "NAME" does not support dry run` by a webhook whose `sideEffects` is neither
//!   `None` nor `NoneOnDryRun`.
//!
//! As on the real server, `request.dryRun` is the request's own `dryRun` parameter only: an
//! Eviction whose `deleteOptions.dryRun` alone says `All` (what `kubectl drain
//! --dry-run=server` sends) is reviewed with `dryRun: false`, and the webhook must read the
//! object's `deleteOptions` to see it (kubernetes `EvictionREST.Create`, `propagateDryRun`).
//!
//! Only evictions are admitted: other writes call no webhook. Calls are counted in
//! `Stats::admission`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::status::ApiError;
use super::webhook_client::{self, Target};
use super::webhooks::{self, Endpoint, Matched, Webhook};
use super::{Query, objects};
use crate::world::{self, SharedWorld};

/// The groups the sandbox's client is in (a service account's), in `userInfo`.
const GROUPS: [&str; 3] = [
    "system:serviceaccounts",
    "system:serviceaccounts:arc-system",
    "system:authenticated",
];

/// What came of one webhook.
enum Outcome {
    Allowed,
    /// `allowed: false`: the evictor's answer.
    Denied(Response),
    /// The call failed (`ErrCallingWebhook`): the reason, after `failed calling webhook "NAME": `.
    Failed {
        fail_open: bool,
        why: String,
    },
    /// Refused before any call (a dry run the webhook cannot take).
    Refused(ApiError),
}

fn request_uid() -> String {
    let v: u128 = rand::random();
    let hex = format!(
        "{:032x}",
        (v & !(0xf << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62)
    );
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The `AdmissionReview` v1 the API server sends for this eviction.
fn review(uid: &str, ns: &str, name: &str, eviction: &Value, dry_run: bool) -> Value {
    let request_kind = if eviction["apiVersion"] == "policy/v1beta1" {
        json!({"group": "policy", "version": "v1beta1", "kind": "Eviction"})
    } else {
        json!({"group": "policy", "version": "v1", "kind": "Eviction"})
    };
    let mut options = json!({"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"});
    if dry_run {
        options["dryRun"] = json!(["All"]);
    }
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "policy", "version": "v1", "kind": "Eviction"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "subResource": "eviction",
            "requestKind": request_kind,
            "requestResource": {"group": "", "version": "v1", "resource": "pods"},
            "requestSubResource": "eviction",
            "name": name,
            "namespace": ns,
            "operation": "CREATE",
            "userInfo": {"username": super::SANDBOX_USER, "groups": GROUPS},
            "object": eviction,
            "oldObject": null,
            "dryRun": dry_run,
            "options": options,
        }
    })
}

/// Where `hook` is called, or why it cannot be.
fn target(hook: &Webhook, world: &SharedWorld) -> Result<Target, String> {
    let timeout = format!("timeout={}s", hook.timeout.as_secs());
    match &hook.endpoint {
        Endpoint::Url(url) => {
            let host = url.host_str().unwrap_or_default().to_owned();
            let mut shown = url.clone();
            shown.set_query(Some(&timeout));
            Ok(Target {
                url: shown.to_string(),
                host,
                port: url.port_or_known_default().unwrap_or(443),
                addr: None,
                path_and_query: format!("{}?{timeout}", url.path()),
            })
        }
        Endpoint::Service {
            namespace,
            name,
            path,
            port,
        } => {
            let host = format!("{name}.{namespace}.svc");
            let url = format!("https://{host}:{port}{path}?{timeout}");
            let addr = world::lock(world)
                .webhook_services
                .get(&(namespace.clone(), name.clone(), *port))
                .copied();
            match addr {
                Some(addr) => Ok(Target {
                    url,
                    host,
                    port: *port,
                    addr: Some(addr),
                    path_and_query: format!("{path}?{timeout}"),
                }),
                None => Err(format!("Post {url:?}: service {name:?} not found")),
            }
        }
    }
}

/// The evictor's answer to a denial: the webhook's `Status`, as `webhookerrors.ToStatusErr`
/// shapes it.
fn denial(hook: &str, status: &Value) -> Response {
    let mut status = if status.is_object() {
        status.clone()
    } else {
        json!({})
    };
    let code = status["code"]
        .as_u64()
        .filter(|c| (400..=599).contains(c))
        .unwrap_or(400);
    let denied = format!("admission webhook {hook:?} denied the request");
    let message = match (status["message"].as_str(), status["reason"].as_str()) {
        (Some(m), _) if !m.is_empty() => format!("{denied}: {m}"),
        (_, Some(r)) if !r.is_empty() => format!("{denied}: {r}"),
        _ => format!("{denied} without explanation"),
    };
    status["kind"] = json!("Status");
    status["apiVersion"] = json!("v1");
    status["metadata"] = json!({});
    status["status"] = json!("Failure");
    status["code"] = json!(code);
    status["message"] = json!(message);
    let code = u16::try_from(code)
        .ok()
        .and_then(|c| StatusCode::from_u16(c).ok())
        .unwrap_or(StatusCode::BAD_REQUEST);
    (code, axum::Json(status)).into_response()
}

/// Reads a webhook's answer to the review `uid` (`VerifyAdmissionResponse`).
fn verdict(hook: &str, uid: &str, answer: &[u8]) -> Outcome {
    let failed = |why: String| Outcome::Failed {
        fail_open: false,
        why,
    };
    let review: Value = match serde_json::from_slice(answer) {
        Ok(v) => v,
        Err(e) => return failed(format!("received invalid webhook response: {e}")),
    };
    if review["apiVersion"] != "admission.k8s.io/v1" || review["kind"] != "AdmissionReview" {
        return failed(format!(
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {}, Kind={}",
            review["apiVersion"].as_str().unwrap_or_default(),
            review["kind"].as_str().unwrap_or_default()
        ));
    }
    let response = &review["response"];
    if !response.is_object() {
        return failed("webhook response was absent".to_owned());
    }
    let got = response["uid"].as_str().unwrap_or_default();
    if got != uid {
        return failed(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    if response.get("patch").is_some_and(|p| !p.is_null()) {
        return failed("validating webhook may not return a patch".to_owned());
    }
    if response["allowed"] == true {
        Outcome::Allowed
    } else {
        Outcome::Denied(denial(hook, &response["status"]))
    }
}

async fn call(
    world: &SharedWorld,
    hook: &Webhook,
    ns: &str,
    name: &str,
    eviction: &Value,
    dry_run: bool,
) -> Outcome {
    if dry_run && !hook.dry_run_safe() {
        return Outcome::Refused(ApiError::bad_request(format!(
            "admission webhook {:?} does not support dry run",
            hook.name
        )));
    }
    let failed = |why: String| Outcome::Failed {
        fail_open: hook.fail_open,
        why,
    };
    let target = match target(hook, world) {
        Ok(t) => t,
        Err(why) => return failed(format!("failed to call webhook: {why}")),
    };
    let uid = request_uid();
    let body = review(&uid, ns, name, eviction, dry_run)
        .to_string()
        .into_bytes();
    match webhook_client::post(&target, &hook.ca_bundle, body, hook.timeout).await {
        Ok(answer) => match verdict(&hook.name, &uid, &answer) {
            Outcome::Failed { why, .. } => failed(why),
            other => other,
        },
        Err(why) => failed(format!("failed to call webhook: {why}")),
    }
}

/// Runs the webhooks registered for an eviction of `ns`/`name` (the Eviction `eviction`);
/// `Err` is the evictor's answer when one refused it.
async fn admit(
    world: &SharedWorld,
    ns: &str,
    name: &str,
    eviction: &Value,
    dry_run: bool,
) -> Result<(), Response> {
    let matched = webhooks::for_eviction(&world::lock(world).store, ns, eviction)
        .map_err(IntoResponse::into_response)?;
    if matched.is_empty() {
        return Ok(());
    }
    let calls = matched.iter().map(|m| async move {
        match m {
            Matched::Call(hook) => (
                hook.name.clone(),
                call(world, hook, ns, name, eviction, dry_run).await,
            ),
            Matched::Unreadable {
                name: hook,
                fail_open,
                why,
            } => (
                hook.clone(),
                Outcome::Failed {
                    fail_open: *fail_open,
                    why: why.clone(),
                },
            ),
        }
    });
    let outcomes = futures::future::join_all(calls).await;
    {
        let mut w = world::lock(world);
        let counts = &mut w.stats.admission;
        for (_, outcome) in &outcomes {
            match outcome {
                Outcome::Allowed => counts.calls += 1,
                Outcome::Denied(_) => {
                    counts.calls += 1;
                    counts.denied += 1;
                }
                Outcome::Failed { .. } => {
                    counts.calls += 1;
                    counts.failed += 1;
                }
                Outcome::Refused(_) => {}
            }
        }
    }
    for (hook, outcome) in outcomes {
        match outcome {
            Outcome::Allowed
            | Outcome::Failed {
                fail_open: true, ..
            } => {}
            Outcome::Denied(answer) => return Err(answer),
            Outcome::Refused(e) => return Err(e.into_response()),
            Outcome::Failed { why, .. } => {
                tracing::warn!("failed calling webhook {hook:?}, failing closed: {why}");
                return Err(
                    ApiError::internal(&format!("failed calling webhook {hook:?}: {why}"))
                        .into_response(),
                );
            }
        }
    }
    Ok(())
}

/// `POST pods/{name}/eviction`: reads the Eviction, propagates the request's `dryRun` into its
/// `deleteOptions`, admits it, then evicts (`objects::evict`). Answers 201 `Success`, or the
/// refusal.
pub(crate) async fn evict(
    world: &SharedWorld,
    ns: Option<&str>,
    name: &str,
    q: &Query,
    body: &[u8],
) -> Response {
    match admit_and_evict(world, ns, name, q, body).await {
        Ok(()) => {
            let created = json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Success", "code": 201,
            });
            (StatusCode::CREATED, axum::Json(created)).into_response()
        }
        Err(answer) => answer,
    }
}

async fn admit_and_evict(
    world: &SharedWorld,
    ns: Option<&str>,
    name: &str,
    q: &Query,
    body: &[u8],
) -> Result<(), Response> {
    let refuse = |e: ApiError| e.into_response();
    let mut eviction: Value = serde_json::from_slice(body)
        .map_err(|e| refuse(ApiError::bad_request(format!("invalid Eviction: {e}"))))?;
    if !eviction.is_object() {
        return Err(refuse(ApiError::bad_request(
            "invalid Eviction: not a JSON object",
        )));
    }
    if let Some(named) = eviction["metadata"]["name"].as_str()
        && named != name
    {
        return Err(refuse(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        )));
    }
    let ns = ns.unwrap_or_default();
    let query_dry_run: Vec<&str> = q.get("dryRun").into_iter().collect();
    let content_dry_run: Vec<String> = eviction["deleteOptions"]["dryRun"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if !query_dry_run.is_empty() {
        if content_dry_run.is_empty() {
            if !eviction["deleteOptions"].is_object() {
                eviction["deleteOptions"] = json!({});
            }
            eviction["deleteOptions"]["dryRun"] = json!(query_dry_run);
        } else if content_dry_run != query_dry_run {
            return Err(refuse(ApiError::internal(&format!(
                "Non-matching dry-run options in request and content: {query_dry_run:?} and {content_dry_run:?}"
            ))));
        }
    }
    // What the API server decodes and hands the webhooks.
    if eviction["apiVersion"].is_null() {
        eviction["apiVersion"] = json!("policy/v1");
    }
    eviction["kind"] = json!("Eviction");
    eviction["metadata"]["name"] = json!(name);
    eviction["metadata"]["namespace"] = json!(ns);
    admit(world, ns, name, &eviction, query_dry_run == ["All"]).await?;
    let body = eviction.to_string();
    objects::evict(world, Some(ns), name, body.as_bytes()).map_err(refuse)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(r: Response) -> u16 {
        r.status().as_u16()
    }

    #[test]
    fn denials_default_to_400_and_name_the_webhook() {
        assert_eq!(
            status_of(denial("g", &json!({"code": 429, "message": "busy"}))),
            429
        );
        assert_eq!(status_of(denial("g", &json!({"message": "no"}))), 400);
        assert_eq!(status_of(denial("g", &json!({"code": 200}))), 400);
        assert_eq!(status_of(denial("g", &Value::Null)), 400);
    }

    #[test]
    fn answers_are_checked_as_the_api_server_checks_them() {
        let uid = "u-1";
        let answer = |v: Value| verdict("g", uid, v.to_string().as_bytes());
        let ok = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                        "response": {"uid": uid, "allowed": true}});
        assert!(matches!(answer(ok.clone()), Outcome::Allowed));
        let mut other_uid = ok.clone();
        other_uid["response"]["uid"] = json!("u-2");
        assert!(matches!(answer(other_uid), Outcome::Failed { why, .. }
            if why == "expected response.uid=\"u-1\", got \"u-2\""));
        let mut v1beta1 = ok.clone();
        v1beta1["apiVersion"] = json!("admission.k8s.io/v1beta1");
        assert!(matches!(answer(v1beta1), Outcome::Failed { .. }));
        let mut denied = ok;
        denied["response"]["allowed"] = json!(false);
        assert!(matches!(answer(denied), Outcome::Denied(r) if r.status() == 400));
        assert!(matches!(
            verdict("g", uid, b"<html>"),
            Outcome::Failed { .. }
        ));
    }

    #[test]
    fn reviews_describe_the_eviction() {
        let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction",
                              "metadata": {"name": "p", "namespace": "ns"}});
        let r = review("u", "ns", "p", &eviction, true);
        let req = &r["request"];
        assert_eq!(req["kind"]["kind"], "Eviction");
        assert_eq!(req["resource"]["resource"], "pods");
        assert_eq!(req["subResource"], "eviction");
        assert_eq!(req["operation"], "CREATE");
        assert_eq!(req["dryRun"], true);
        assert_eq!(req["options"]["dryRun"], json!(["All"]));
        assert_eq!(req["object"], eviction);
        let uid = request_uid();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4");
    }
}
