//! AdmissionReview v1 for `CREATE pods/eviction`: what the API server asks, what the guard
//! answers. Pure: no I/O.

use serde_json::{Value, json};

/// One eviction under review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    /// The review's uid, echoed in the answer.
    pub uid: String,
    pub namespace: String,
    /// The pod to evict (the Eviction names it; the review's `name` is the pod's too).
    pub pod: String,
    /// The review's `dryRun`, or the Eviction's `deleteOptions.dryRun` (`kubectl drain
    /// --dry-run=server` sets only the latter; the API server still reviews it with
    /// `dryRun: false`).
    pub dry_run: bool,
}

/// What the guard answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Allow,
    /// Refused with an HTTP `code` (429: retry later) and a message for the evictor.
    Deny {
        code: u16,
        message: String,
    },
}

/// Why a review could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// Reads a review of an eviction; anything else (another kind, operation or subresource) is
/// `Ok(None)`: the guard has no opinion on it and allows it.
pub fn parse(body: &[u8]) -> Result<(String, Option<Eviction>), Unreadable> {
    let review: Value = serde_json::from_slice(body)
        .map_err(|e| Unreadable(format!("the body is not JSON: {e}")))?;
    let request = &review["request"];
    let Some(uid) = request["uid"].as_str() else {
        return Err(Unreadable("the review has no request.uid".to_owned()));
    };
    let is_eviction = request["resource"]["resource"] == "pods"
        && request["subResource"] == "eviction"
        && request["operation"] == "CREATE";
    if !is_eviction {
        return Ok((uid.to_owned(), None));
    }
    let object = &request["object"];
    let namespace = request["namespace"]
        .as_str()
        .or_else(|| object["metadata"]["namespace"].as_str());
    let pod = request["name"]
        .as_str()
        .or_else(|| object["metadata"]["name"].as_str());
    let (Some(namespace), Some(pod)) = (namespace, pod) else {
        return Err(Unreadable(
            "the eviction names no pod or namespace".to_owned(),
        ));
    };
    let options_dry_run = object["deleteOptions"]["dryRun"]
        .as_array()
        .is_some_and(|v| v.iter().any(|d| d == "All"));
    Ok((
        uid.to_owned(),
        Some(Eviction {
            uid: uid.to_owned(),
            namespace: namespace.to_owned(),
            pod: pod.to_owned(),
            dry_run: request["dryRun"] == true || options_dry_run,
        }),
    ))
}

/// The AdmissionReview that answers review `uid`.
pub fn respond(uid: &str, answer: &Answer) -> Value {
    let response = match answer {
        Answer::Allow => json!({"uid": uid, "allowed": true}),
        Answer::Deny { code, message } => json!({
            "uid": uid,
            "allowed": false,
            "status": {"code": code, "message": message, "reason": reason(*code)},
        }),
    };
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": response,
    })
}

fn reason(code: u16) -> &'static str {
    match code {
        429 => "TooManyRequests",
        _ => "Forbidden",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(dry_run: bool, delete_options: Value) -> Vec<u8> {
        json!({
            "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {
                "uid": "u-1", "operation": "CREATE", "dryRun": dry_run,
                "resource": {"group": "", "version": "v1", "resource": "pods"},
                "subResource": "eviction", "name": "runner-a", "namespace": "arc-runners",
                "object": {"apiVersion": "policy/v1", "kind": "Eviction",
                    "metadata": {"name": "runner-a", "namespace": "arc-runners"},
                    "deleteOptions": delete_options},
            }
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn an_eviction_is_read_with_either_dry_run() {
        let (uid, e) = parse(&review(false, Value::Null)).unwrap();
        assert_eq!(uid, "u-1");
        let e = e.unwrap();
        assert_eq!(
            (e.namespace.as_str(), e.pod.as_str()),
            ("arc-runners", "runner-a")
        );
        assert!(!e.dry_run);
        assert!(
            parse(&review(true, Value::Null))
                .unwrap()
                .1
                .unwrap()
                .dry_run
        );
        let opts = json!({"dryRun": ["All"]});
        assert!(parse(&review(false, opts)).unwrap().1.unwrap().dry_run);
    }

    #[test]
    fn other_requests_are_not_evictions_and_garbage_is_unreadable() {
        let body = json!({"request": {"uid": "u-2", "operation": "DELETE",
            "resource": {"resource": "pods"}}});
        assert_eq!(
            parse(body.to_string().as_bytes()).unwrap(),
            ("u-2".to_owned(), None)
        );
        assert!(parse(b"nope").is_err());
        assert!(parse(b"{}").is_err());
    }

    #[test]
    fn answers_echo_the_uid_and_carry_the_code() {
        let r = respond("u-1", &Answer::Allow);
        assert_eq!(r["response"], json!({"uid": "u-1", "allowed": true}));
        let r = respond(
            "u-1",
            &Answer::Deny {
                code: 429,
                message: "busy".into(),
            },
        );
        assert_eq!(r["response"]["allowed"], false);
        assert_eq!(r["response"]["status"]["code"], 429);
        assert_eq!(r["response"]["status"]["message"], "busy");
    }
}
