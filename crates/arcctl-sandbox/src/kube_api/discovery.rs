//! Discovery documents: `/version`, `/api`, `/apis`, `/apis/{group}` and the resource lists.
//!
//! kubectl reads these before anything else (to pick a bundled kubectl, and to map `po` or
//! `ephemeralrunners` to a path), so they are derived from `store::ALL_TYPES` and list exactly
//! the verbs this server implements.

use serde_json::{Value, json};

use crate::options::Mode;
use crate::store::{ALL_TYPES, ResourceType, VALIDATING_WEBHOOK_CONFIGURATIONS};

/// Whether the cluster of `mode` serves API group `group`: a scale-set install has only the
/// `actions.github.com` CRDs and a legacy one only `actions.summerwind.dev`, so clients meet
/// the 404 of a CRD that isn't installed, as on a real cluster.
pub(crate) fn installed(mode: Mode, group: &str) -> bool {
    match group {
        "actions.github.com" => mode != Mode::Legacy,
        "actions.summerwind.dev" => mode != Mode::ScaleSet,
        _ => true,
    }
}

/// The Kubernetes version the sandbox claims to be.
pub(crate) fn version() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0",
        "gitCommit": "arcctl-sandbox",
        "gitTreeState": "clean",
        "buildDate": "2025-04-23T00:00:00Z",
        "goVersion": "go1.24.2",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

/// `/api`; `host` is where the client reached us.
pub(crate) fn core_versions(host: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{ "clientCIDR": "0.0.0.0/0", "serverAddress": host }],
    })
}

fn groups() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for t in ALL_TYPES.iter().filter(|t| !t.group.is_empty()) {
        if !out.contains(&(t.group, t.version)) {
            out.push((t.group, t.version));
        }
    }
    out
}

fn group_doc(group: &str, version: &str) -> Value {
    let gv = json!({ "groupVersion": format!("{group}/{version}"), "version": version });
    json!({
        "name": group,
        "versions": [gv.clone()],
        "preferredVersion": gv,
    })
}

/// `/apis`: the groups installed in `mode`.
pub(crate) fn group_list(mode: Mode) -> Value {
    let groups: Vec<Value> = groups()
        .iter()
        .filter(|(g, _)| installed(mode, g))
        .map(|(g, v)| group_doc(g, v))
        .collect();
    json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
}

/// `/apis/{group}`
pub(crate) fn group(group: &str) -> Value {
    let version = groups()
        .iter()
        .find(|(g, _)| *g == group)
        .map_or("v1", |(_, v)| *v);
    let mut doc = group_doc(group, version);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    doc
}

/// kubectl's short names for the built-in kinds (the ARC CRDs declare none).
fn short_names(rt: ResourceType) -> &'static [&'static str] {
    match (rt.group, rt.plural) {
        ("", "pods") => &["po"],
        ("", "nodes") => &["no"],
        ("", "namespaces") => &["ns"],
        ("apps", "statefulsets") => &["sts"],
        _ => &[],
    }
}

/// The verbs this server implements on the main resource.
const VERBS: [&str; 5] = ["delete", "get", "list", "patch", "watch"];

/// The verbs of `rt`: webhook configurations are also created (`kubectl apply`), the only
/// kind the sandbox lets clients create.
fn verbs(rt: ResourceType) -> Vec<&'static str> {
    let mut verbs = VERBS.to_vec();
    if rt == VALIDATING_WEBHOOK_CONFIGURATIONS {
        verbs.insert(0, "create");
    }
    verbs
}

/// `/api/v1`, `/apis/{group}/{version}`
pub(crate) fn resource_list(group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    for rt in ALL_TYPES
        .iter()
        .filter(|t| t.group == group && t.version == version)
    {
        let mut main = json!({
            "name": rt.plural,
            "singularName": rt.kind.to_lowercase(),
            "namespaced": rt.namespaced,
            "kind": rt.kind,
            "verbs": verbs(*rt),
        });
        if !short_names(*rt).is_empty() {
            main["shortNames"] = json!(short_names(*rt));
        }
        // `kubectl get all` lists workloads, not cluster configuration.
        if rt.plural == "pods" || (!rt.group.is_empty() && *rt != VALIDATING_WEBHOOK_CONFIGURATIONS)
        {
            main["categories"] = json!(["all"]);
        }
        resources.push(main);
        if rt.plural == "pods" {
            resources.push(json!({
                "name": "pods/log", "singularName": "", "namespaced": true, "kind": "Pod",
                "verbs": ["get"],
            }));
            resources.push(json!({
                "name": "pods/eviction", "singularName": "", "namespaced": true,
                "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"],
            }));
        }
        resources.push(json!({
            "name": format!("{}/status", rt.plural),
            "singularName": "",
            "namespaced": rt.namespaced,
            "kind": rt.kind,
            "verbs": ["get", "patch"],
        }));
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_cover_every_type() {
        let names: Vec<String> = group_list(Mode::Mixed)["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "apps",
                "actions.github.com",
                "actions.summerwind.dev",
                "admissionregistration.k8s.io"
            ]
        );
        let webhooks = resource_list("admissionregistration.k8s.io", "v1");
        assert_eq!(
            webhooks["resources"][0]["name"],
            "validatingwebhookconfigurations"
        );
        assert_eq!(webhooks["resources"][0]["namespaced"], false);
        assert_eq!(webhooks["resources"][0]["verbs"][0], "create");
        assert!(webhooks["resources"][0].get("categories").is_none());
        let core = resource_list("", "v1");
        let pods = &core["resources"][0];
        assert_eq!(pods["name"], "pods");
        assert_eq!(pods["shortNames"], json!(["po"]));
        assert_eq!(core["resources"][1]["name"], "pods/log");
        let arc = resource_list("actions.github.com", "v1alpha1");
        assert_eq!(arc["groupVersion"], "actions.github.com/v1alpha1");
        assert_eq!(arc["resources"].as_array().unwrap().len(), 6);
        assert_eq!(group("apps")["preferredVersion"]["groupVersion"], "apps/v1");
        let scale_set = group_list(Mode::ScaleSet).to_string();
        assert!(scale_set.contains("actions.github.com") && !scale_set.contains("summerwind"));
        let legacy = group_list(Mode::Legacy).to_string();
        assert!(!legacy.contains("actions.github.com") && legacy.contains("summerwind"));
    }
}
