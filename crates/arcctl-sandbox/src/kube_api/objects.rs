//! List, get, delete and patch of any resource type, with the API server's semantics: selectors,
//! `limit`/`continue` paging, delete preconditions and options (propagation policy, finalizers:
//! `Store::delete`), patch content types, the `/status` subresource, optimistic locking on
//! `metadata.resourceVersion`, and 422 for a patch that would change `metadata.uid`.
//!
//! Every mutation goes through `World::delete_object` / `World::patch_object`, so the
//! simulation reacts to it.

use serde_json::{Value, json};

use super::Query;
use super::json_patch;
use super::path::Sub;
use super::status::ApiError;
use crate::store::{
    DeleteOptions, FieldSelector, LabelSelector, NODES, PODS, Propagation, ResourceType, Rest,
};
use crate::world::{self, SharedWorld};

/// The fields a field selector may name, per resource type (as the real API server allows).
fn selectable_fields(rt: ResourceType) -> &'static [&'static str] {
    if rt == PODS {
        &[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "status.phase",
        ]
    } else if rt == NODES {
        &["metadata.name", "spec.unschedulable"]
    } else {
        &["metadata.name", "metadata.namespace"]
    }
}

/// The label and field selectors of a list or watch.
pub(crate) fn selectors(
    rt: ResourceType,
    q: &Query,
) -> Result<(LabelSelector, FieldSelector), ApiError> {
    let labels = LabelSelector::parse(q.get("labelSelector").unwrap_or(""))
        .map_err(|e| ApiError::from_store(rt, "", e))?;
    let fields = FieldSelector::parse(q.get("fieldSelector").unwrap_or(""))
        .map_err(|e| ApiError::from_store(rt, "", e))?;
    if let Some(bad) = fields.fields().find(|f| !selectable_fields(rt).contains(f)) {
        return Err(ApiError::bad_request(format!(
            "field label not supported: {bad}"
        )));
    }
    Ok((labels, fields))
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect();
    String::from_utf8(bytes?).ok()
}

/// The opaque continue token: the store's resourceVersion and the last key returned.
fn continue_token(rv: u64, ns: &str, name: &str) -> String {
    hex(&format!("{rv}/{ns}/{name}"))
}

fn parse_continue(token: &str) -> Result<(String, String), ApiError> {
    let bad = || ApiError::bad_request("continue key is not valid: invalid continue token");
    let text = unhex(token).ok_or_else(bad)?;
    let mut parts = text.splitn(3, '/');
    let (_rv, ns, name) = (
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
        parts.next().ok_or_else(bad)?,
    );
    Ok((ns.to_owned(), name.to_owned()))
}

fn meta_str<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj["metadata"][field].as_str().unwrap_or("")
}

/// A list of `rt` in `ns` (all namespaces when `None`), as a value (for the Table view).
pub(crate) fn list(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<&str>,
    q: &Query,
) -> Result<Value, ApiError> {
    let w = world::lock(world);
    let body = list_page(&w.store, rt, ns, q)?;
    Ok(json!({
        "kind": body.kind,
        "apiVersion": body.api_version,
        "metadata": body.metadata,
        "items": body.items.into_iter().cloned().collect::<Vec<Value>>(),
    }))
}

/// The same list as JSON, written straight from the store's objects: a page of 500 pods is
/// about 2 MB, and copying it into a value first (and the value into the body) was most of
/// what the sandbox spent serving a 10,000-pod list.
pub(crate) fn list_json(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<&str>,
    q: &Query,
) -> Result<Vec<u8>, ApiError> {
    let w = world::lock(world);
    let body = list_page(&w.store, rt, ns, q)?;
    serde_json::to_vec(&body).map_err(|e| ApiError::internal(&format!("list: {e}")))
}

/// A list response, borrowing its items from the store.
#[derive(serde::Serialize)]
struct ListBody<'s> {
    kind: String,
    #[serde(rename = "apiVersion")]
    api_version: String,
    metadata: Value,
    items: Vec<&'s Value>,
}

/// One page of the list `q` asks for (`limit`, `continue`, selectors).
fn list_page<'s>(
    store: &'s crate::store::Store,
    rt: ResourceType,
    ns: Option<&str>,
    q: &Query,
) -> Result<ListBody<'s>, ApiError> {
    let (labels, fields) = selectors(rt, q)?;
    let limit: usize = match q.get("limit") {
        None | Some("") => 0,
        Some(l) => l
            .parse()
            .map_err(|_| ApiError::bad_request(format!("invalid limit {l:?}")))?,
    };
    let after = match q.get("continue") {
        None | Some("") => None,
        Some(token) => Some(parse_continue(token)?),
    };
    let rv = store.resource_version();
    let after = after.as_ref().map(|(n, m)| (n.as_str(), m.as_str()));
    let (items, rest) = store.list_page(rt, ns, (&labels, &fields), after, limit);
    let mut metadata = json!({ "resourceVersion": rv.to_string() });
    if rest != Rest::Nothing
        && let Some(last) = items.last()
    {
        metadata["continue"] = json!(continue_token(
            rv,
            meta_str(last, "namespace"),
            meta_str(last, "name")
        ));
        // A real API server leaves it out for a list with selectors: it would have to match
        // the rest to count them.
        if let Rest::Count(n) = rest {
            metadata["remainingItemCount"] = json!(n);
        }
    }
    Ok(ListBody {
        kind: format!("{}List", rt.kind),
        api_version: rt.api_version(),
        metadata,
        items,
    })
}

pub(crate) fn get(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<&str>,
    name: &str,
) -> Result<Value, ApiError> {
    world::lock(world)
        .store
        .get(rt, ns, name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(rt, name))
}

/// `DeleteOptions`, from the body (kube-rs, kubectl) or the query string.
struct DeleteRequest {
    options: DeleteOptions,
    dry_run: bool,
}

fn invalid(rt: ResourceType, name: &str, why: String) -> ApiError {
    ApiError {
        code: 422,
        reason: "Invalid",
        message: format!(
            "{} \"{name}\" is invalid: {why}",
            super::status::qualified(rt)
        ),
        details: None,
    }
}

fn delete_options(
    rt: ResourceType,
    name: &str,
    q: &Query,
    body: &[u8],
) -> Result<DeleteRequest, ApiError> {
    let opts: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("invalid DeleteOptions: {e}")))?
    };
    if !opts.is_object() {
        return Err(ApiError::bad_request(
            "invalid DeleteOptions: not a JSON object",
        ));
    }
    let grace =
        match opts.get("gracePeriodSeconds") {
            Some(v) if !v.is_null() => Some(v.as_i64().ok_or_else(|| {
                ApiError::bad_request("invalid DeleteOptions: gracePeriodSeconds is not an integer")
            })?),
            _ => match q.get("gracePeriodSeconds") {
                Some(g) => Some(g.parse().map_err(|_| {
                    ApiError::bad_request(format!("invalid gracePeriodSeconds {g:?}"))
                })?),
                None => None,
            },
        };
    if let Some(g) = grace.filter(|g| *g < 0) {
        return Err(invalid(
            rt,
            name,
            format!("gracePeriodSeconds: Invalid value: {g}: must be >= 0"),
        ));
    }
    let policy = opts["propagationPolicy"]
        .as_str()
        .or_else(|| q.get("propagationPolicy"));
    // The deprecated `orphanDependents` says the same as Orphan / Background.
    let orphan = opts["orphanDependents"]
        .as_bool()
        .or_else(|| q.get("orphanDependents").map(|v| v == "true"));
    let propagation = match (policy, orphan) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                rt,
                name,
                "propagationPolicy: Invalid value: \"propagationPolicy\": orphanDependents and deletionPropagation cannot be both set".into(),
            ));
        }
        (Some("Orphan"), None) | (None, Some(true)) => Some(Propagation::Orphan),
        (Some("Background"), None) | (None, Some(false)) => Some(Propagation::Background),
        (Some("Foreground"), None) => Some(Propagation::Foreground),
        (Some(p), None) => {
            return Err(invalid(
                rt,
                name,
                format!(
                    "propagationPolicy: Unsupported value: \"{p}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
                ),
            ));
        }
        (None, None) => None,
    };
    let dry_run = opts["dryRun"]
        .as_array()
        .is_some_and(|d| d.iter().any(|v| v == "All"))
        || q.get("dryRun") == Some("All");
    Ok(DeleteRequest {
        options: DeleteOptions {
            uid: opts["preconditions"]["uid"].as_str().map(str::to_owned),
            resource_version: opts["preconditions"]["resourceVersion"]
                .as_str()
                .map(str::to_owned),
            propagation,
            grace_period_seconds: grace,
        },
        dry_run,
    })
}

/// Deletes an object and answers it as the delete left it: gone (its last state), or marked
/// with a deletionTimestamp while its finalizers are worked off (an EphemeralRunner; a
/// foreground or orphaning delete). Pods without finalizers go at once: the sandbox has no
/// kubelet to wait for, so grace periods are accepted, recorded and not waited out.
pub(crate) fn delete(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<&str>,
    name: &str,
    q: &Query,
    body: &[u8],
) -> Result<Value, ApiError> {
    let req = delete_options(rt, name, q, body)?;
    let mut w = world::lock(world);
    let current = w
        .store
        .get(rt, ns, name)
        .ok_or_else(|| ApiError::not_found(rt, name))?;
    if req.dry_run {
        let opts = &req.options;
        let checks = [
            (opts.uid.as_deref(), "uid", "UID"),
            (
                opts.resource_version.as_deref(),
                "resourceVersion",
                "ResourceVersion",
            ),
        ];
        for (want, field, label) in checks {
            let have = meta_str(current, field);
            if let Some(want) = want
                && have != want
            {
                return Err(ApiError::conflict(
                    rt,
                    name,
                    &format!(
                        "Precondition failed: {label} in precondition: {want}, {label} in object meta: {have}"
                    ),
                ));
            }
        }
        return Ok(current.clone());
    }
    w.delete_with(rt, ns, name, &req.options)
        .map_err(|e| ApiError::from_store(rt, name, e))
}

/// Removes strategic-merge-patch directives (`$patch`, `$setElementOrder/…`, `$retainKeys`…),
/// which a plain merge would otherwise store as fields.
fn strip_directives(v: &mut Value) {
    if let Value::Object(m) = v {
        m.retain(|k, _| !k.starts_with('$'));
        m.values_mut().for_each(strip_directives);
    }
}

/// Patches an object (or its `/status`) and answers the patched object.
pub(crate) fn patch(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<&str>,
    name: &str,
    sub: Option<Sub>,
    content_type: &str,
    body: &[u8],
) -> Result<Value, ApiError> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let parsed: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    let mut w = world::lock(world);
    let current = w
        .store
        .get(rt, ns, name)
        .ok_or_else(|| ApiError::not_found(rt, name))?;
    let mut patch = match media.as_str() {
        "application/merge-patch+json" => parsed,
        // Custom resources have no strategic-merge schema; the real server refuses.
        "application/strategic-merge-patch+json" if rt.group.starts_with("actions.") => {
            return Err(ApiError::unsupported_media_type());
        }
        "application/strategic-merge-patch+json" => {
            let mut p = parsed;
            strip_directives(&mut p);
            p
        }
        "application/json-patch+json" => {
            let mut patched = current.clone();
            json_patch::apply(&mut patched, &parsed).map_err(|why| ApiError {
                code: 422,
                reason: "Invalid",
                message: format!(
                    "the server rejected our request due to an error in our request: {why}"
                ),
                details: None,
            })?;
            json_patch::diff(current, &patched)
        }
        _ => return Err(ApiError::unsupported_media_type()),
    };
    if !patch.is_object() {
        return Err(ApiError::bad_request("a merge patch must be a JSON object"));
    }
    // A resourceVersion in the patch is an optimistic lock, as on the real server.
    if let Some(want) = patch["metadata"]["resourceVersion"].as_str()
        && want != meta_str(current, "resourceVersion")
    {
        return Err(ApiError::conflict(
            rt,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        ));
    }
    if let Some(m) = patch.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("resourceVersion");
    }
    // Every served type has a status subresource: the main resource ignores status changes and
    // the subresource ignores everything else.
    let patch = match sub {
        Some(Sub::Status) => match patch.as_object_mut().and_then(|m| m.remove("status")) {
            Some(status) => json!({ "status": status }),
            None => json!({}),
        },
        _ => {
            if let Some(m) = patch.as_object_mut() {
                m.remove("status");
            }
            patch
        }
    };
    // What a schema would refuse and the simulation could not read.
    if let Some(field) = ["metadata", "spec", "status"]
        .into_iter()
        .find(|f| patch.get(*f).is_some_and(|v| !v.is_object()))
    {
        return Err(invalid(
            rt,
            name,
            format!("{field}: Invalid value: must be an object"),
        ));
    }
    w.patch_object(rt, ns, name, &patch)
        .map_err(|e| ApiError::from_store(rt, name, e))
}

/// `pods/{name}/eviction`: the sandbox has no PodDisruptionBudgets, so an eviction is a delete
/// with the Eviction's `deleteOptions`, as the real server does when no budget objects.
pub(crate) fn evict(
    world: &SharedWorld,
    ns: Option<&str>,
    name: &str,
    body: &[u8],
) -> Result<(), ApiError> {
    let eviction: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("invalid Eviction: {e}")))?;
    if let Some(named) = eviction["metadata"]["name"].as_str()
        && named != name
    {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let options = match eviction.get("deleteOptions") {
        Some(o) if !o.is_null() => o.to_string(),
        _ => String::new(),
    };
    delete(
        world,
        PODS,
        ns,
        name,
        &Query(Vec::new()),
        options.as_bytes(),
    )
    .map(|_| ())
}
