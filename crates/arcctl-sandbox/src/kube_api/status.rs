//! Kubernetes `Status` error bodies with the real API server's reasons and message wording.
//!
//! Clients key off these: kube-rs `get_opt()` turns a 404 into `None` only when the body is a
//! `Status` with reason `NotFound`, and kubectl prints `message` verbatim.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::store::{ResourceType, StoreError};

/// A failed request, answered as a `Status` object.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    pub details: Option<Value>,
}

/// `pods` for the core group, `ephemeralrunners.actions.github.com` otherwise: how the API
/// server names a resource in messages.
pub(crate) fn qualified(rt: ResourceType) -> String {
    if rt.group.is_empty() {
        rt.plural.to_owned()
    } else {
        format!("{}.{}", rt.plural, rt.group)
    }
}

fn details(rt: ResourceType, name: Option<&str>) -> Value {
    let mut d = json!({ "kind": rt.plural });
    if let Some(name) = name {
        d["name"] = json!(name);
    }
    if !rt.group.is_empty() {
        d["group"] = json!(rt.group);
    }
    d
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    pub fn not_found(rt: ResourceType, name: &str) -> Self {
        ApiError {
            details: Some(details(rt, Some(name))),
            ..ApiError::new(
                404,
                "NotFound",
                format!("{} \"{name}\" not found", qualified(rt)),
            )
        }
    }

    /// A path the server has no handler for.
    pub fn no_route() -> Self {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    /// A failed precondition or optimistic-lock check.
    pub fn conflict(rt: ResourceType, name: &str, why: &str) -> Self {
        ApiError {
            details: Some(details(rt, Some(name))),
            ..ApiError::new(
                409,
                "Conflict",
                format!(
                    "Operation cannot be fulfilled on {} \"{name}\": {why}",
                    qualified(rt)
                ),
            )
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    /// What RBAC answers; `verb` is the Kubernetes verb (get, list, watch, delete, patch).
    pub fn forbidden(
        rt: ResourceType,
        name: Option<&str>,
        subresource: Option<&str>,
        verb: &str,
        namespace: Option<&str>,
    ) -> Self {
        let resource = match subresource {
            Some(sub) => format!("{}/{sub}", rt.plural),
            None => rt.plural.to_owned(),
        };
        let subject = match name {
            Some(name) => format!("{} \"{name}\"", qualified(rt)),
            None => qualified(rt),
        };
        let scope = match namespace {
            Some(ns) => format!("in the namespace \"{ns}\""),
            None => "at the cluster scope".to_owned(),
        };
        ApiError {
            details: Some(details(rt, name)),
            ..ApiError::new(
                403,
                "Forbidden",
                format!(
                    "{subject} is forbidden: User \"{}\" cannot {verb} resource \"{resource}\" in API group \"{}\" {scope}",
                    super::SANDBOX_USER,
                    rt.group
                ),
            )
        }
    }

    pub fn internal(why: &str) -> Self {
        ApiError {
            details: Some(json!({ "causes": [{ "message": why }] })),
            ..ApiError::new(
                500,
                "InternalError",
                format!("Internal error occurred: {why}"),
            )
        }
    }

    pub fn method_not_allowed() -> Self {
        ApiError::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
    }

    pub fn unsupported_media_type() -> Self {
        ApiError::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        )
    }

    /// A watch resourceVersion older than the kept history: clients relist.
    pub fn expired(rv: u64, oldest: u64) -> Self {
        ApiError::new(
            410,
            "Expired",
            format!("too old resource version: {rv} ({oldest})"),
        )
    }

    /// Maps a store refusal for the object `rt`/`name`.
    pub fn from_store(rt: ResourceType, name: &str, e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::not_found(rt, name),
            StoreError::AlreadyExists => ApiError {
                details: Some(details(rt, Some(name))),
                ..ApiError::new(
                    409,
                    "AlreadyExists",
                    format!("{} \"{name}\" already exists", qualified(rt)),
                )
            },
            StoreError::Conflict(why) => ApiError::conflict(rt, name, &why),
            StoreError::Invalid(why) => ApiError::bad_request(why),
            StoreError::Unprocessable(why) => ApiError::invalid(rt, name, &why),
        }
    }

    /// A change validation refuses (`errors.NewInvalid`): `Pod "x" is invalid: WHY`, the
    /// field and its reason in `details.causes`.
    pub fn invalid(rt: ResourceType, name: &str, why: &str) -> Self {
        let kind = if rt.group.is_empty() {
            rt.kind.to_owned()
        } else {
            format!("{}.{}", rt.kind, rt.group)
        };
        let (field, rest) = why.split_once(": ").unwrap_or(("", why));
        let reason = if rest.starts_with("Forbidden") {
            "FieldValueForbidden"
        } else {
            "FieldValueInvalid"
        };
        let mut d = json!({
            "name": name,
            "kind": rt.kind,
            "causes": [{"reason": reason, "message": rest, "field": field}],
        });
        if !rt.group.is_empty() {
            d["group"] = json!(rt.group);
        }
        ApiError {
            details: Some(d),
            ..ApiError::new(
                422,
                "Invalid",
                format!("{kind} \"{name}\" is invalid: {why}"),
            )
        }
    }

    /// The `Status` object.
    pub fn body(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            status["details"] = d.clone();
        }
        status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (code, axum::Json(self.body())).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{EPHEMERAL_RUNNERS, PODS};

    #[test]
    fn messages_follow_the_api_server() {
        assert_eq!(
            ApiError::not_found(PODS, "x").body()["message"],
            "pods \"x\" not found"
        );
        let e = ApiError::not_found(EPHEMERAL_RUNNERS, "r");
        assert_eq!(
            e.body()["message"],
            "ephemeralrunners.actions.github.com \"r\" not found"
        );
        assert_eq!(e.body()["details"]["group"], "actions.github.com");
        assert_eq!(
            ApiError::forbidden(PODS, None, None, "list", Some("ns")).message,
            "pods is forbidden: User \"system:serviceaccount:arc-system:arcctl\" cannot list resource \"pods\" in API group \"\" in the namespace \"ns\""
        );
        assert!(
            ApiError::forbidden(PODS, Some("p"), Some("log"), "get", None)
                .message
                .starts_with("pods \"p\" is forbidden")
        );
    }
}
