//! The Kubernetes objects as arcctl reads them off the wire: pods, EphemeralRunners and list
//! pages, with only the fields arcctl uses.
//!
//! A full `k8s_openapi` `Pod` keeps every container spec, env var, volume and condition: about
//! twenty times what a runner pod is reduced to. Decoding straight into these structs skips the
//! rest while the page is parsed, so a list of 10,000 pods costs the reduced pods and one
//! page's body, not 10,000 full objects. Every field is optional (a missing or `null` field is
//! absent), as `k8s_openapi` reads them; `model` turns them into [`RunnerPod`] and
//! [`EphemeralRunner`].
//!
//! [`RunnerPod`]: crate::cluster::RunnerPod
//! [`EphemeralRunner`]: crate::cluster::EphemeralRunner

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::cluster::arc::ANNOTATION_RUNNER_ID;

/// One page of a list: its items and the token of the next page.
#[derive(Debug, Deserialize)]
pub(crate) struct Page<T> {
    /// `null` on some servers when the page is empty.
    #[serde(default = "none")]
    pub items: Option<Vec<T>>,
    #[serde(default)]
    pub metadata: PageMeta,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct PageMeta {
    /// `metadata.continue`: empty or absent on the last page.
    #[serde(default, rename = "continue")]
    pub continue_token: Option<String>,
}

/// A pod's metadata, spec and status, reduced.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Pod {
    #[serde(default)]
    pub metadata: PodMeta,
    #[serde(default)]
    pub spec: Option<PodSpec>,
    #[serde(default)]
    pub status: Option<PodStatus>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PodMeta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub uid: Option<String>,
    #[serde(default)]
    pub creation_timestamp: Option<jiff::Timestamp>,
    /// Only whether it is set matters.
    #[serde(default)]
    pub deletion_timestamp: Option<IgnoredAny>,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    /// Of the annotations, only `actions-runner/id` (the others can be large: kubectl's
    /// last-applied configuration, for one).
    #[serde(
        default,
        rename = "annotations",
        deserialize_with = "runner_id_annotation"
    )]
    pub runner_id_annotation: Option<String>,
    #[serde(default)]
    pub owner_references: Option<Vec<OwnerReference>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub controller: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PodSpec {
    #[serde(default)]
    pub node_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PodStatus {
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub container_statuses: Option<Vec<ContainerStatus>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContainerStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub ready: bool,
    #[serde(default)]
    pub restart_count: i32,
    #[serde(default)]
    pub state: Option<ContainerStateWire>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ContainerStateWire {
    #[serde(default)]
    pub running: Option<Running>,
    #[serde(default)]
    pub waiting: Option<Reasoned>,
    #[serde(default)]
    pub terminated: Option<Reasoned>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Running {
    #[serde(default)]
    pub started_at: Option<jiff::Timestamp>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Reasoned {
    #[serde(default)]
    pub reason: Option<String>,
}

/// An EphemeralRunner: its name and the status fields ARC writes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct EphemeralRunner {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub status: Option<EphemeralRunnerStatus>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ObjectMeta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub uid: Option<String>,
}

/// The status fields as JSON values: ARC has written ids both as numbers and as strings.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EphemeralRunnerStatus {
    #[serde(default)]
    pub runner_id: Option<Value>,
    #[serde(default)]
    pub job_id: Option<Value>,
    #[serde(default)]
    pub job_display_name: Option<Value>,
    #[serde(default)]
    pub job_repository_name: Option<Value>,
    #[serde(default)]
    pub workflow_run_id: Option<Value>,
    #[serde(default)]
    pub phase: Option<Value>,
}

fn none<T>() -> Option<T> {
    None
}

/// The value of `actions-runner/id` in an annotations map, skipping every other entry
/// without keeping it.
fn runner_id_annotation<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Pick;
    impl<'de> Visitor<'de> for Pick {
        type Value = Option<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map of annotations")
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_map(Pick)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == ANNOTATION_RUNNER_ID {
                    found = Some(map.next_value::<String>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    d.deserialize_option(Pick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_reads_its_items_and_continue_token() {
        let p: Page<Pod> = serde_json::from_value(json!({
            "kind": "PodList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "7", "continue": "abc"},
            "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]
        }))
        .unwrap();
        let items = p.items.unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].metadata.name.as_deref(), Some("b"));
        assert_eq!(p.metadata.continue_token.as_deref(), Some("abc"));
        let last: Page<Pod> = serde_json::from_value(json!({"items": null})).unwrap();
        assert!(last.items.is_none() && last.metadata.continue_token.is_none());
    }

    #[test]
    fn only_the_runner_id_annotation_is_kept() {
        let p: Pod = serde_json::from_value(json!({"metadata": {"annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": "{\"big\": true}",
            "actions-runner/id": "42",
            "z": "last"
        }}}))
        .unwrap();
        assert_eq!(p.metadata.runner_id_annotation.as_deref(), Some("42"));
        for none in [
            json!({}),
            json!({"annotations": null}),
            json!({"annotations": {"a": "b"}}),
        ] {
            let p: Pod = serde_json::from_value(json!({ "metadata": none })).unwrap();
            assert_eq!(p.metadata.runner_id_annotation, None);
        }
        // Not a map of strings: the object is not a pod.
        assert!(
            serde_json::from_value::<Pod>(json!({"metadata": {"annotations": ["x"]}})).is_err()
        );
    }

    #[test]
    fn deletion_and_nulls() {
        let p: Pod = serde_json::from_value(json!({
            "metadata": {"name": "a", "deletionTimestamp": "2026-11-29T20:00:00Z",
                         "labels": null, "ownerReferences": null,
                         "creationTimestamp": "2026-11-29T19:00:00Z"},
            "spec": null, "status": {"phase": null, "containerStatuses": null}
        }))
        .unwrap();
        assert!(p.metadata.deletion_timestamp.is_some());
        assert!(p.metadata.labels.is_none() && p.spec.is_none());
        assert_eq!(
            p.metadata.creation_timestamp.unwrap().to_string(),
            "2026-11-29T19:00:00Z"
        );
        let p: Pod =
            serde_json::from_value(json!({"metadata": {"deletionTimestamp": null}})).unwrap();
        assert!(p.metadata.deletion_timestamp.is_none());
    }
}
