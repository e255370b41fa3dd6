//! Server-side printing: `meta.k8s.io/v1` Tables for clients that ask for them in `Accept`
//! (kubectl's `get`), with the columns the real server prints for the kinds arcctl users look at.

use serde_json::{Value, json};

use crate::store::{EPHEMERAL_RUNNERS, NAMESPACES, NODES, PODS, ResourceType, STATEFUL_SETS};

/// `value` as a Table when `accept` asks for one, else unchanged.
/// Whether the client asked for the Table view (kubectl's `get`).
pub(crate) fn wants_table(accept: &str) -> bool {
    accept.contains("as=Table")
}

pub(crate) fn maybe_table(accept: &str, rt: ResourceType, value: Value) -> Value {
    if wants_table(accept) {
        table(rt, value)
    } else {
        value
    }
}

fn column(name: &str, kind: &str, priority: u8) -> Value {
    let format = if name == "Name" { "name" } else { "" };
    json!({ "name": name, "type": kind, "format": format, "description": "", "priority": priority })
}

fn columns(rt: ResourceType) -> Vec<Value> {
    let mut cols = vec![column("Name", "string", 0)];
    if rt == PODS {
        cols.extend([
            column("Ready", "string", 0),
            column("Status", "string", 0),
            column("Restarts", "string", 0),
            column("Age", "string", 0),
            column("IP", "string", 1),
            column("Node", "string", 1),
            column("Nominated Node", "string", 1),
            column("Readiness Gates", "string", 1),
        ]);
    } else if rt == NODES {
        cols.extend([
            column("Status", "string", 0),
            column("Roles", "string", 0),
            column("Age", "string", 0),
            column("Version", "string", 0),
        ]);
    } else if rt == NAMESPACES {
        cols.extend([column("Status", "string", 0), column("Age", "string", 0)]);
    } else if rt == STATEFUL_SETS {
        cols.extend([column("Ready", "string", 0), column("Age", "string", 0)]);
    } else if rt == EPHEMERAL_RUNNERS {
        cols.extend([
            column("RunnerId", "number", 0),
            column("Status", "string", 0),
            column("Age", "date", 0),
        ]);
    } else {
        cols.push(column("Age", "date", 0));
    }
    cols
}

fn or_none(v: &Value) -> Value {
    match v.as_str() {
        Some(s) if !s.is_empty() => json!(s),
        _ => json!("<none>"),
    }
}

fn cells(rt: ResourceType, o: &Value) -> Vec<Value> {
    let mut cells = vec![o["metadata"]["name"].clone()];
    let age = json!(age(o["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap_or("")));
    let deleting = !o["metadata"]["deletionTimestamp"].is_null();
    if rt == PODS {
        let total = o["spec"]["containers"].as_array().map_or(0, Vec::len);
        let statuses = o["status"]["containerStatuses"].as_array();
        let ready = statuses.map_or(0, |s| s.iter().filter(|c| c["ready"] == true).count());
        let restarts: u64 = statuses.map_or(0, |s| {
            s.iter().filter_map(|c| c["restartCount"].as_u64()).sum()
        });
        let phase = if deleting {
            "Terminating"
        } else {
            pod_status(&o["status"])
        };
        cells.extend([
            json!(format!("{ready}/{total}")),
            json!(phase),
            json!(restarts.to_string()),
            age,
            or_none(&o["status"]["podIP"]),
            or_none(&o["spec"]["nodeName"]),
            json!("<none>"),
            json!("<none>"),
        ]);
    } else if rt == NODES {
        let ready = o["status"]["conditions"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        });
        let mut status = if ready { "Ready" } else { "NotReady" }.to_owned();
        if o["spec"]["unschedulable"] == true {
            status.push_str(",SchedulingDisabled");
        }
        cells.extend([
            json!(status),
            json!("<none>"),
            age,
            or_none(&o["status"]["nodeInfo"]["kubeletVersion"]),
        ]);
    } else if rt == NAMESPACES {
        let phase = if deleting { "Terminating" } else { "Active" };
        cells.extend([json!(phase), age]);
    } else if rt == STATEFUL_SETS {
        let ready = o["status"]["readyReplicas"].as_u64().unwrap_or(0);
        let want = o["spec"]["replicas"].as_u64().unwrap_or(1);
        cells.extend([json!(format!("{ready}/{want}")), age]);
    } else if rt == EPHEMERAL_RUNNERS {
        cells.extend([
            o["status"]["runnerId"].clone(),
            o["status"]["phase"].clone(),
            age,
        ]);
    } else {
        cells.push(age);
    }
    cells
}

/// The STATUS kubectl shows for a pod: a container's waiting or terminated reason
/// (`ContainerCreating`, `Completed`, `Error`) when there is one, else the phase.
fn pod_status(status: &Value) -> &str {
    let reason = status["containerStatuses"].as_array().and_then(|cs| {
        cs.iter().find_map(|c| {
            c["state"]["waiting"]["reason"]
                .as_str()
                .or_else(|| c["state"]["terminated"]["reason"].as_str())
        })
    });
    reason
        .or_else(|| status["reason"].as_str())
        .or_else(|| status["phase"].as_str())
        .unwrap_or("Unknown")
}

fn row(rt: ResourceType, o: &Value) -> Value {
    json!({
        "cells": cells(rt, o),
        "object": {
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": o["metadata"],
        },
    })
}

fn table(rt: ResourceType, value: Value) -> Value {
    let (rows, metadata) = match value["items"].as_array() {
        Some(items) => (
            items.iter().map(|o| row(rt, o)).collect(),
            value["metadata"].clone(),
        ),
        None => (
            vec![row(rt, &value)],
            json!({ "resourceVersion": value["metadata"]["resourceVersion"] }),
        ),
    };
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": columns(rt),
        "rows": rows,
    })
}

/// One object as the Table a watch event carries when the client asked for Tables; the real
/// server sends the column definitions with the first event only, so kubectl prints one header.
pub(crate) fn event_table(rt: ResourceType, object: &Value, with_columns: bool) -> Value {
    let columns = if with_columns {
        columns(rt)
    } else {
        Vec::new()
    };
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": { "resourceVersion": object["metadata"]["resourceVersion"] },
        "columnDefinitions": columns,
        "rows": [row(rt, object)],
    })
}

/// Age as kubectl prints it (`45s`, `3m12s`, `5h`, `2d3h`).
fn age(created: &str) -> String {
    let Ok(t) = created.parse::<jiff::Timestamp>() else {
        return "<unknown>".to_owned();
    };
    let secs = jiff::Timestamp::now().as_second() - t.as_second();
    human_duration(secs)
}

fn human_duration(secs: i64) -> String {
    let (m, h, d) = (secs / 60, secs / 3600, secs / 86400);
    match secs {
        s if s < 0 => "0s".to_owned(),
        s if s < 120 => format!("{s}s"),
        s if s < 600 && s % 60 != 0 => format!("{m}m{}s", s % 60),
        s if s < 3 * 3600 => format!("{m}m"),
        s if s < 8 * 3600 && m % 60 != 0 => format!("{h}h{}m", m % 60),
        s if s < 48 * 3600 => format!("{h}h"),
        s if s < 8 * 86400 && h % 24 != 0 => format!("{d}d{}h", h % 24),
        s if s < 2 * 365 * 86400 => format!("{d}d"),
        _ => format!("{}y", d / 365),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_kubectl() {
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(192), "3m12s");
        assert_eq!(human_duration(3600), "60m");
        assert_eq!(human_duration(5 * 3600), "5h");
        assert_eq!(human_duration(2 * 86400 + 3 * 3600), "2d3h");
    }

    #[test]
    fn pod_rows() {
        let pod = json!({
            "metadata": {"name": "p", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "runner"}, {"name": "docker"}]},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "runner", "ready": true, "restartCount": 1},
                {"name": "docker", "ready": false, "restartCount": 0}]},
        });
        let t = maybe_table(
            "application/json;as=Table;v=v1;g=meta.k8s.io",
            PODS,
            pod.clone(),
        );
        assert_eq!(t["kind"], "Table");
        let cells = &t["rows"][0]["cells"];
        assert_eq!(cells[0], "p");
        assert_eq!(cells[1], "1/2");
        assert_eq!(cells[2], "Running");
        assert_eq!(cells[3], "1");
        assert_eq!(cells[6], "n1");
        assert_eq!(maybe_table("application/json", PODS, pod.clone()), pod);
        let creating = json!({"phase": "Pending", "containerStatuses": [
            {"name": "runner", "state": {"waiting": {"reason": "ContainerCreating"}}}]});
        assert_eq!(pod_status(&creating), "ContainerCreating");
        assert_eq!(pod_status(&json!({"phase": "Succeeded"})), "Succeeded");
    }
}
