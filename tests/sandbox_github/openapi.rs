//! Validation of the fake's answers against GitHub's OpenAPI description of the runner
//! endpoints (`tests/fixtures/github-runners-openapi*.json`).

use serde_json::{Value, json};

use super::fixture::Reply;
use crate::support::fixtures::fixture;

pub struct Spec {
    plain: Value,
    observed: Value,
}

impl Spec {
    pub fn load() -> Spec {
        let read = |name: &str| {
            let path = fixture(name);
            let text = std::fs::read_to_string(&path).expect("read OpenAPI fixture");
            let mut doc: Value = serde_json::from_str(&text).expect("OpenAPI is JSON");
            to_json_schema(&mut doc);
            doc
        };
        Spec {
            plain: read("github-runners-openapi.json"),
            observed: read("github-runners-openapi.observed.json"),
        }
    }

    /// Asserts `reply` is what the description documents for `method path` and its status:
    /// from the plain file when upstream documents the status, else from the observed one.
    pub fn check(&self, method: &str, path: &str, reply: &Reply) {
        let status = reply.status.as_str();
        let (doc, response) = [&self.plain, &self.observed]
            .into_iter()
            .find_map(|doc| response_of(doc, method, path, status).map(|r| (doc, r)))
            .unwrap_or_else(|| panic!("{method} {path}: status {status} is documented nowhere"));
        match response.pointer("/content/application~1json/schema") {
            None => assert!(
                reply.text.is_empty(),
                "{method} {path} {status}: the description has no body, got {:?}",
                reply.text
            ),
            Some(schema) => {
                let ct = reply.header("content-type").unwrap_or_default();
                assert_eq!(ct, "application/json; charset=utf-8", "{method} {path}");
                let mut root = schema.clone();
                root["components"] = doc["components"].clone();
                let validator = jsonschema::validator_for(&root).expect("schema compiles");
                let body = reply.json();
                let errors: Vec<String> = validator
                    .iter_errors(&body)
                    .map(|e| format!("{} at {}", e, e.instance_path()))
                    .collect();
                assert!(
                    errors.is_empty(),
                    "{method} {path} {status} does not match the description: {errors:?}\n{body:#}"
                );
            }
        }
        assert_github_headers(reply);
    }
}

/// The response object for `method path status`, following a `$ref` into `components`.
fn response_of<'a>(doc: &'a Value, method: &str, path: &str, status: &str) -> Option<&'a Value> {
    let response = doc["paths"][path][method.to_ascii_lowercase()]["responses"].get(status)?;
    match response.get("$ref").and_then(Value::as_str) {
        Some(r) => doc.pointer(r.trim_start_matches('#')),
        None => Some(response),
    }
}

/// OpenAPI 3.0 schema objects → JSON Schema: `nullable: true` becomes a type union, and every
/// object schema that lists its properties rejects others, so a misspelt or invented field in
/// a fake answer fails validation instead of passing as an extra.
fn to_json_schema(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.remove("nullable") == Some(Value::Bool(true)) {
                match map.get("type").cloned() {
                    Some(Value::String(t)) => {
                        map.insert("type".into(), json!([t, "null"]));
                    }
                    _ => {
                        let inner = Value::Object(std::mem::take(map));
                        map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                    }
                }
            }
            if map.get("type") == Some(&json!("object"))
                && map.get("properties").is_some_and(Value::is_object)
                && !map.contains_key("additionalProperties")
            {
                map.insert("additionalProperties".into(), json!(false));
            }
            map.values_mut().for_each(to_json_schema);
        }
        Value::Array(items) => items.iter_mut().for_each(to_json_schema),
        _ => {}
    }
}

pub fn assert_github_headers(reply: &Reply) {
    for name in [
        "x-github-api-version-selected",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-used",
        "x-ratelimit-reset",
        "x-ratelimit-resource",
        "x-github-request-id",
    ] {
        assert!(reply.header(name).is_some(), "missing {name}");
    }
    assert_eq!(reply.header("x-ratelimit-limit"), Some("5000"));
    assert_eq!(reply.header("x-ratelimit-resource"), Some("core"));
    assert_eq!(
        reply.header("x-github-api-version-selected"),
        Some("2022-11-28")
    );
}
