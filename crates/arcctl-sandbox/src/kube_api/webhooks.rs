//! ValidatingWebhookConfigurations (`admissionregistration.k8s.io/v1`, cluster-scoped): their
//! creation (the only POST the sandbox serves, for `kubectl apply`), validated as the API
//! server validates the fields the sandbox reads, and the webhooks they register, read back
//! for [`super::admission`] with the API server's matching for an eviction: `rules`
//! (`CREATE` on `pods/eviction` in the core group, `v1`, `scope`), `namespaceSelector` (the
//! pod's namespace labels) and `objectSelector` (the Eviction's labels: it has none unless the
//! evictor set some, so a selector on runner labels never matches — kubernetes#110169).
//!
//! Not evaluated: `matchConditions` (CEL) and `matchPolicy` (an eviction is only served as
//! `policy/v1` on `v1` pods, so `Exact` and `Equivalent` agree).

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use super::Query;
use super::status::ApiError;
use crate::store::{LabelSelector, NAMESPACES, Store, VALIDATING_WEBHOOK_CONFIGURATIONS};
use crate::world::{self, SharedWorld};

/// `timeoutSeconds` when the webhook gives none (admissionregistration/v1's default).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the API server sends a webhook's AdmissionReview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `clientConfig.url`.
    Url(url::Url),
    /// `clientConfig.service`, resolved through `World::webhook_services`.
    Service {
        namespace: String,
        name: String,
        path: String,
        port: u16,
    },
}

/// One webhook of a configuration, as the API server calls it.
#[derive(Debug, Clone)]
pub(crate) struct Webhook {
    pub name: String,
    pub endpoint: Endpoint,
    /// `clientConfig.caBundle`, decoded: the PEM certificates the server must chain to.
    pub ca_bundle: Vec<u8>,
    pub timeout: Duration,
    /// `failurePolicy: Ignore`: a failed call lets the request through.
    pub fail_open: bool,
    /// `sideEffects`, as written (`None`, `NoneOnDryRun`; older objects may hold others).
    pub side_effects: Option<String>,
}

impl Webhook {
    /// Whether the webhook may be called for a dry-run request without side effects.
    pub fn dry_run_safe(&self) -> bool {
        matches!(self.side_effects.as_deref(), Some("None" | "NoneOnDryRun"))
    }
}

/// What the matching of one webhook came to.
#[derive(Debug, Clone)]
pub(crate) enum Matched {
    Call(Webhook),
    /// Its fields cannot be read (a patch stored them unvalidated): answered as a failed call.
    Unreadable {
        name: String,
        fail_open: bool,
        why: String,
    },
}

/// A `metav1.LabelSelector` (`matchLabels`, `matchExpressions`) as a store selector; `null`
/// selects everything.
fn label_selector(v: &Value) -> Result<LabelSelector, String> {
    let mut parts = Vec::new();
    if let Some(labels) = v["matchLabels"].as_object() {
        for (k, val) in labels {
            parts.push(format!("{k}={}", val.as_str().unwrap_or_default()));
        }
    }
    for e in v["matchExpressions"].as_array().into_iter().flatten() {
        let key = e["key"].as_str().unwrap_or_default();
        let values: Vec<&str> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        parts.push(match e["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            op => return Err(format!("{op:?} is not a valid label selector operator")),
        });
    }
    LabelSelector::parse(&parts.join(",")).map_err(|e| format!("{e:?}"))
}

fn strings(v: &Value) -> impl Iterator<Item = &str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str)
}

/// Whether `rule` covers `CREATE pods/eviction` (core group, v1), a namespaced request.
fn rule_matches_eviction(rule: &Value) -> bool {
    let any = |field: &str, accepted: &[&str]| strings(&rule[field]).any(|s| accepted.contains(&s));
    any("operations", &["CREATE", "*"])
        && any("apiGroups", &["", "*"])
        && any("apiVersions", &["v1", "*"])
        // `*` and `pods` name main resources only; a subresource needs `x/eviction` or `x/*`.
        && any("resources", &["pods/eviction", "*/eviction", "pods/*", "*/*"])
        && matches!(rule["scope"].as_str(), None | Some("*" | "Namespaced"))
}

fn read_webhook(hook: &Value) -> Result<Webhook, String> {
    let name = hook["name"].as_str().unwrap_or_default().to_owned();
    let config = &hook["clientConfig"];
    let endpoint = match (config["url"].as_str(), config.get("service")) {
        (Some(u), _) => Endpoint::Url(url::Url::parse(u).map_err(|e| format!("{u:?}: {e}"))?),
        (None, Some(s)) if s.is_object() => Endpoint::Service {
            namespace: s["namespace"].as_str().unwrap_or_default().to_owned(),
            name: s["name"].as_str().unwrap_or_default().to_owned(),
            path: s["path"].as_str().unwrap_or("/").to_owned(),
            port: s["port"]
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(443),
        },
        _ => return Err("clientConfig: exactly one of url or service is required".into()),
    };
    let ca_bundle = match config["caBundle"].as_str() {
        Some(b) => base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map_err(|e| format!("clientConfig.caBundle: {e}"))?,
        None => Vec::new(),
    };
    let timeout = hook["timeoutSeconds"]
        .as_u64()
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    Ok(Webhook {
        name,
        endpoint,
        ca_bundle,
        timeout,
        fail_open: hook["failurePolicy"] == "Ignore",
        side_effects: hook["sideEffects"].as_str().map(str::to_owned),
    })
}

/// The webhooks to call for an eviction of a pod in `ns`, whose Eviction object is `eviction`,
/// in the order of their configurations (by name) and of `webhooks[]`. Fails as the API server
/// does before calling anything: the namespace must exist when a webhook selects on it.
pub(crate) fn for_eviction(
    store: &Store,
    ns: &str,
    eviction: &Value,
) -> Result<Vec<Matched>, ApiError> {
    let all = (LabelSelector::default(), Default::default());
    let mut out = Vec::new();
    for config in store.list(VALIDATING_WEBHOOK_CONFIGURATIONS, None, &all.0, &all.1) {
        for hook in config["webhooks"].as_array().into_iter().flatten() {
            if !hook["rules"]
                .as_array()
                .is_some_and(|rules| rules.iter().any(rule_matches_eviction))
            {
                continue;
            }
            let name = hook["name"].as_str().unwrap_or_default().to_owned();
            let fail_open = hook["failurePolicy"] == "Ignore";
            let unreadable = |why: String| Matched::Unreadable {
                name: name.clone(),
                fail_open,
                why,
            };
            let namespaces = match label_selector(&hook["namespaceSelector"]) {
                Ok(s) => s,
                Err(why) => return Err(ApiError::internal(&why)),
            };
            if namespaces != LabelSelector::default() {
                let Some(namespace) = store.get(NAMESPACES, None, ns) else {
                    return Err(ApiError::not_found(NAMESPACES, ns));
                };
                if !namespaces.matches(&namespace["metadata"]["labels"]) {
                    continue;
                }
            }
            match label_selector(&hook["objectSelector"]) {
                Ok(objects) if !objects.matches(&eviction["metadata"]["labels"]) => continue,
                Ok(_) => {}
                Err(why) => return Err(ApiError::internal(&why)),
            }
            out.push(match read_webhook(hook) {
                Ok(w) => Matched::Call(w),
                Err(why) => unreadable(why),
            });
        }
    }
    Ok(out)
}

/// The problems the API server's validation would report for `obj`, as `field: why` lines.
fn problems(obj: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(hooks) = obj["webhooks"].as_array() else {
        if !obj["webhooks"].is_null() {
            out.push("webhooks: Invalid value: must be a list".to_owned());
        }
        return out;
    };
    let mut seen = Vec::new();
    for (i, hook) in hooks.iter().enumerate() {
        let at = format!("webhooks[{i}]");
        match hook["name"].as_str() {
            None | Some("") => out.push(format!("{at}.name: Required value")),
            Some(n) if seen.contains(&n) => {
                out.push(format!("{at}.name: Duplicate value: {n:?}"));
            }
            Some(n) => seen.push(n),
        }
        let config = &hook["clientConfig"];
        match (config["url"].as_str(), config["service"].is_object()) {
            (Some(_), true) | (None, false) => out.push(format!(
                "{at}.clientConfig: Required value: exactly one of url or service is required"
            )),
            (Some(u), false) => match url::Url::parse(u) {
                Ok(parsed) if parsed.scheme() != "https" => out.push(format!(
                    "{at}.clientConfig.url: Invalid value: {u:?}: 'https' is the only allowed URL scheme"
                )),
                Ok(parsed) if parsed.query().is_some() => out.push(format!(
                    "{at}.clientConfig.url: Invalid value: {u:?}: query parameters are not allowed"
                )),
                Ok(_) => {}
                Err(e) => out.push(format!(
                    "{at}.clientConfig.url: Invalid value: {u:?}: host must be specified ({e})"
                )),
            },
            (None, true) => {
                for field in ["namespace", "name"] {
                    if config["service"][field].as_str().is_none_or(str::is_empty) {
                        out.push(format!(
                            "{at}.clientConfig.service.{field}: Required value: service {field} is required"
                        ));
                    }
                }
            }
        }
        if let Some(b) = config["caBundle"].as_str()
            && base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .is_err()
        {
            out.push(format!(
                "{at}.clientConfig.caBundle: Invalid value: illegal base64 data"
            ));
        }
        match hook["sideEffects"].as_str() {
            None => out.push(format!(
                "{at}.sideEffects: Required value: must specify one of None, NoneOnDryRun"
            )),
            Some("None" | "NoneOnDryRun") => {}
            Some(other) => out.push(format!(
                "{at}.sideEffects: Unsupported value: {other:?}: supported values: \"None\", \"NoneOnDryRun\""
            )),
        }
        match hook["failurePolicy"].as_str() {
            None | Some("Fail" | "Ignore") => {}
            Some(other) => out.push(format!(
                "{at}.failurePolicy: Unsupported value: {other:?}: supported values: \"Fail\", \"Ignore\""
            )),
        }
        if let Some(t) = hook.get("timeoutSeconds").filter(|t| !t.is_null())
            && !t.as_u64().is_some_and(|t| (1..=30).contains(&t))
        {
            out.push(format!(
                "{at}.timeoutSeconds: Invalid value: {t}: the timeout value must be between 1 and 30 seconds"
            ));
        }
        // The sandbox sends only admission.k8s.io/v1 reviews.
        if !strings(&hook["admissionReviewVersions"]).any(|v| v == "v1") {
            out.push(format!(
                "{at}.admissionReviewVersions: Required value: must specify one of v1"
            ));
        }
        for (field, selector) in [
            ("namespaceSelector", &hook["namespaceSelector"]),
            ("objectSelector", &hook["objectSelector"]),
        ] {
            if let Err(why) = label_selector(selector) {
                out.push(format!("{at}.{field}: Invalid value: {why}"));
            }
        }
    }
    out
}

/// `POST …/validatingwebhookconfigurations`: validates and stores the configuration (or, with
/// `?dryRun=All`, only validates), answering the stored object.
pub(crate) fn create(world: &SharedWorld, q: &Query, body: &[u8]) -> Result<Value, ApiError> {
    let rt = VALIDATING_WEBHOOK_CONFIGURATIONS;
    let mut obj: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding request body: {e}")))?;
    if !obj.is_object() {
        return Err(ApiError::bad_request("the object must be a JSON object"));
    }
    let kind = obj["kind"].as_str().unwrap_or(rt.kind);
    let api_version = obj["apiVersion"]
        .as_str()
        .unwrap_or("admissionregistration.k8s.io/v1");
    if kind != rt.kind || api_version != rt.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            rt.api_version()
        )));
    }
    let name = obj["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if let Some(why) = problems(&obj).into_iter().next() {
        return Err(ApiError::invalid(rt, &name, &why));
    }
    // The server owns these.
    if let Some(meta) = obj["metadata"].as_object_mut() {
        for field in ["uid", "resourceVersion", "creationTimestamp", "generation"] {
            meta.remove(field);
        }
    }
    let mut w = world::lock(world);
    if q.get("dryRun") == Some("All") {
        if w.store.get(rt, None, &name).is_some() {
            return Err(ApiError::from_store(
                rt,
                &name,
                crate::store::StoreError::AlreadyExists,
            ));
        }
        obj["metadata"]["creationTimestamp"] = json!(crate::store::now_rfc3339());
        return Ok(obj);
    }
    w.create_object(rt, None, obj)
        .map_err(|e| ApiError::from_store(rt, &name, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(extra: Value) -> Value {
        let mut h = json!({
            "name": "guard.arcctl.io",
            "clientConfig": {"url": "https://127.0.0.1:9443/validate"},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["pods/eviction"], "scope": "Namespaced"}],
            "sideEffects": "NoneOnDryRun",
            "admissionReviewVersions": ["v1"],
        });
        crate::store::merge(&mut h, &extra);
        h
    }

    #[test]
    fn rules_cover_evictions_only_through_the_subresource() {
        let rule = |resources: Value| {
            json!({"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                   "resources": resources})
        };
        assert!(rule_matches_eviction(&rule(json!(["pods/eviction"]))));
        assert!(rule_matches_eviction(&rule(json!(["*/*"]))));
        assert!(!rule_matches_eviction(&rule(json!(["pods"]))));
        assert!(!rule_matches_eviction(&rule(json!(["*"]))));
        let mut cluster = rule(json!(["pods/eviction"]));
        cluster["scope"] = json!("Cluster");
        assert!(!rule_matches_eviction(&cluster));
        let mut delete = rule(json!(["pods/eviction"]));
        delete["operations"] = json!(["DELETE"]);
        assert!(!rule_matches_eviction(&delete));
    }

    #[test]
    fn selectors_follow_metav1() {
        let s = label_selector(&json!({
            "matchLabels": {"team": "ci"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["prod"]}],
        }))
        .unwrap();
        assert!(s.matches(&json!({"team": "ci"})));
        assert!(!s.matches(&json!({"team": "ci", "tier": "prod"})));
        assert!(label_selector(&Value::Null).unwrap().matches(&Value::Null));
        // An Eviction has no labels: a selector on runner labels never matches it.
        let runners = label_selector(&json!({"matchLabels": {"app": "runner"}})).unwrap();
        assert!(!runners.matches(&Value::Null));
        assert!(
            label_selector(&json!({"matchExpressions": [{"key": "a", "operator": "Is"}]})).is_err()
        );
    }

    #[test]
    fn validation_names_the_field() {
        let ok = json!({"webhooks": [hook(json!({}))]});
        assert!(problems(&ok).is_empty(), "{:?}", problems(&ok));
        let bad = |extra: Value| problems(&json!({"webhooks": [hook(extra)]})).join("\n");
        assert!(
            bad(json!({"sideEffects": "Some"}))
                .contains("webhooks[0].sideEffects: Unsupported value")
        );
        assert!(bad(json!({"timeoutSeconds": 31})).contains("between 1 and 30 seconds"));
        assert!(
            bad(json!({"clientConfig": {"url": "http://x/"}}))
                .contains("'https' is the only allowed URL scheme")
        );
        assert!(
            bad(json!({"failurePolicy": "Maybe"})).contains("failurePolicy: Unsupported value")
        );
        let twice = json!({"webhooks": [hook(json!({})), hook(json!({}))]});
        assert!(problems(&twice)[0].starts_with("webhooks[1].name: Duplicate value"));
    }

    #[test]
    fn webhooks_are_read_with_their_defaults() {
        let w = read_webhook(&hook(json!({}))).unwrap();
        assert_eq!(w.timeout, DEFAULT_TIMEOUT);
        assert!(!w.fail_open, "failurePolicy defaults to Fail");
        assert!(w.dry_run_safe());
        let s = read_webhook(&hook(json!({"clientConfig": {"url": null,
            "service": {"namespace": "arc-system", "name": "guard"}}})))
        .unwrap();
        assert_eq!(
            s.endpoint,
            Endpoint::Service {
                namespace: "arc-system".into(),
                name: "guard".into(),
                path: "/".into(),
                port: 443
            }
        );
    }
}
