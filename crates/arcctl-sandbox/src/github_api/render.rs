//! The world's registrations and groups as GitHub's JSON objects (`runner`, `runner-label`,
//! `runner-groups-org`, `runner-groups-enterprise`).

use serde_json::{Value, json};

use super::scope::Level;
use crate::world::{Label, Registration, RunnerGroup};

/// A `runner` object; `busy` is passed in because lists show a possibly stale value.
pub(crate) fn runner(reg: &Registration, busy: bool) -> Value {
    json!({
        "id": reg.id,
        "name": reg.name,
        "os": reg.os,
        "status": reg.status,
        "busy": busy,
        "labels": labels(&reg.labels),
        "runner_group_id": reg.runner_group_id,
        "ephemeral": reg.ephemeral,
        "version": reg.version,
    })
}

/// `runner-label` objects.
pub(crate) fn labels(labels: &[Label]) -> Vec<Value> {
    labels
        .iter()
        .map(|l| json!({"id": l.id, "name": l.name, "type": l.label_type}))
        .collect()
}

/// A runner group object; `base` is the scope's URL prefix (`http://HOST/orgs/ORG`).
pub(crate) fn group(group: &RunnerGroup, level: Level, base: &str) -> Value {
    let url = format!("{base}/actions/runner-groups/{}", group.id);
    let mut value = json!({
        "id": group.id,
        "name": group.name,
        "visibility": "all",
        "default": group.default,
        "runners_url": format!("{url}/runners"),
        "hosted_runners_url": format!("{url}/hosted-runners"),
        "allows_public_repositories": false,
        "restricted_to_workflows": false,
        "selected_workflows": [],
        "workflow_restrictions_read_only": false,
    });
    if level == Level::Org {
        value["inherited"] = json!(false);
    }
    value
}
