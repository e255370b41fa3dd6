//! RBAC enforcement for `arcctl sandbox --rbac FILE`: the rules of the Roles and ClusterRoles
//! in a YAML file (other documents, such as bindings and ServiceAccounts, are skipped) decide
//! which requests the fake API server allows; everything else is answered 403 as a real API
//! server would.
//!
//! The sandbox has one user, so every rule in the file is taken as granted to it (as if each
//! role were bound): a ClusterRole's rules apply in every namespace and at the cluster scope, a
//! Role's only in its `metadata.namespace` (in every namespace when it names none, as
//! `kubectl apply -n NS` would place it). Rules match as Kubernetes matches them: `apiGroups`,
//! `resources` (`pods/log` for a subresource) and `verbs`, each with `*`, and `resourceNames`
//! when given. Non-resource URLs (discovery, `/version`) are always allowed.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// One PolicyRule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    #[serde(default)]
    api_groups: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    resource_names: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    namespace: Option<String>,
}

/// A Role or ClusterRole document (other kinds are read only for `kind`).
#[derive(Debug, Deserialize)]
struct Document {
    kind: Option<String>,
    metadata: Option<Metadata>,
    #[serde(default)]
    rules: Vec<Rule>,
}

/// A rule and where it applies: `None` everywhere, else one namespace.
#[derive(Debug, Clone)]
struct Grant {
    namespace: Option<String>,
    rule: Rule,
}

/// The rules the fake API server enforces.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    grants: Vec<Grant>,
}

/// One resource request, as RBAC sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access<'a> {
    pub verb: &'a str,
    pub group: &'a str,
    /// `pods`, or `pods/log` for a subresource.
    pub resource: &'a str,
    pub name: Option<&'a str>,
    /// `None`: cluster-scoped, or across all namespaces.
    pub namespace: Option<&'a str>,
}

fn matches(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

impl Rules {
    /// Reads the Roles and ClusterRoles of a YAML file (one or more documents).
    pub(crate) fn load(path: &Path) -> Result<Rules> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::ReadRbac {
            path: path.to_owned(),
            source,
        })?;
        Rules::parse(&text).map_err(|source| Error::ParseRbac {
            path: path.to_owned(),
            source,
        })
    }

    fn parse(text: &str) -> std::result::Result<Rules, serde_yaml::Error> {
        let mut grants = Vec::new();
        for doc in serde_yaml::Deserializer::from_str(text) {
            let value = serde_yaml::Value::deserialize(doc)?;
            if value.is_null() {
                continue;
            }
            let doc: Document = serde_yaml::from_value(value)?;
            let namespace = match doc.kind.as_deref() {
                Some("ClusterRole") => None,
                Some("Role") => doc.metadata.and_then(|m| m.namespace),
                _ => continue,
            };
            grants.extend(doc.rules.into_iter().map(|rule| Grant {
                namespace: namespace.clone(),
                rule,
            }));
        }
        Ok(Rules { grants })
    }

    /// Whether some rule allows `access`. A request at the cluster scope (a list across all
    /// namespaces, or a cluster-scoped resource) needs a rule that applies everywhere.
    pub(crate) fn allows(&self, access: &Access<'_>) -> bool {
        self.grants.iter().any(|g| {
            let place = match (&g.namespace, access.namespace) {
                (None, _) => true,
                (Some(own), Some(ns)) => own == ns,
                (Some(_), None) => false,
            };
            let r = &g.rule;
            let named = r.resource_names.is_empty()
                || access
                    .name
                    .is_some_and(|n| r.resource_names.iter().any(|v| v == n));
            place
                && matches(&r.verbs, access.verb)
                && matches(&r.api_groups, access.group)
                && matches(&r.resources, access.resource)
                && named
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = r#"
apiVersion: v1
kind: ServiceAccount
metadata: {name: arcctl, namespace: arc-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: arcctl}
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", "list"]
  - apiGroups: [""]
    resources: ["nodes"]
    verbs: ["patch"]
    resourceNames: ["n1"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: arcctl, namespace: arc-runners}
rules:
  - apiGroups: ["actions.github.com"]
    resources: ["*"]
    verbs: ["delete"]
  - apiGroups: [""]
    resources: ["pods/log"]
    verbs: ["get"]
"#;

    fn access<'a>(verb: &'a str, group: &'a str, resource: &'a str) -> Access<'a> {
        Access {
            verb,
            group,
            resource,
            name: Some("x"),
            namespace: Some("arc-runners"),
        }
    }

    #[test]
    fn rules_match_verbs_groups_resources_names_and_namespaces() {
        let rules = Rules::parse(YAML).unwrap();
        assert!(rules.allows(&access("list", "", "pods")));
        assert!(rules.allows(&Access {
            namespace: None,
            ..access("list", "", "pods")
        }));
        assert!(!rules.allows(&access("delete", "", "pods")));
        assert!(rules.allows(&access("get", "", "pods/log")));
        assert!(!rules.allows(&Access {
            namespace: Some("other"),
            ..access("get", "", "pods/log")
        }));
        assert!(!rules.allows(&Access {
            namespace: None,
            ..access("get", "", "pods/log")
        }));
        assert!(rules.allows(&access("delete", "actions.github.com", "ephemeralrunners")));
        assert!(!rules.allows(&access("delete", "actions.summerwind.dev", "runners")));
        let node = |name| Access {
            name: Some(name),
            namespace: None,
            ..access("patch", "", "nodes")
        };
        assert!(rules.allows(&node("n1")));
        assert!(!rules.allows(&node("n2")));
    }

    #[test]
    fn no_rules_allow_nothing() {
        let rules = Rules::parse("kind: ServiceAccount\n").unwrap();
        assert!(!rules.allows(&access("get", "", "pods")));
        assert!(Rules::parse("kind: [").is_err());
    }
}
