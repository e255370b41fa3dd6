//! Request paths of the Kubernetes API: what a path addresses, and its pattern for the stats.
//!
//! Routing is done here rather than with one axum route per kind so that every resource type in
//! `store::ALL_TYPES` is served by the same code.

use crate::store::{ALL_TYPES, ResourceType};

/// A subresource the sandbox serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sub {
    Status,
    Log,
    /// `pods/{name}/eviction`: what `kubectl drain` posts.
    Eviction,
}

impl Sub {
    pub fn name(self) -> &'static str {
        match self {
            Sub::Status => "status",
            Sub::Log => "log",
            Sub::Eviction => "eviction",
        }
    }
}

/// What a request path addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Version,
    /// `/api`
    CoreVersions,
    /// `/apis`
    Groups,
    /// `/apis/{group}`
    Group(&'static str),
    /// `/api/v1`, `/apis/{group}/{version}`
    Resources {
        group: &'static str,
        version: &'static str,
    },
    /// A list (or watch) in one namespace, or in all when `ns` is `None`.
    Collection {
        rt: ResourceType,
        ns: Option<String>,
    },
    Object {
        rt: ResourceType,
        ns: Option<String>,
        name: String,
        sub: Option<Sub>,
    },
}

/// A parsed path and its pattern, e.g. `/api/v1/namespaces/{ns}/pods/{name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub target: Target,
    pub pattern: String,
}

/// The pattern recorded for paths the server has no handler for (kept constant so that
/// random paths can't grow the stats without bound).
pub(crate) const UNMATCHED: &str = "/{unmatched}";

fn group_version(group: &str, version: &str) -> Option<(&'static str, &'static str)> {
    ALL_TYPES
        .iter()
        .find(|t| t.group == group && t.version == version)
        .map(|t| (t.group, t.version))
}

fn resource(group: &str, version: &str, plural: &str) -> Option<ResourceType> {
    ALL_TYPES
        .iter()
        .copied()
        .find(|t| t.group == group && t.version == version && t.plural == plural)
}

/// Parses a request path; `None` when nothing is served there.
pub(crate) fn parse(path: &str) -> Option<Parsed> {
    let segs: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    let literal = |target| {
        Some(Parsed {
            target,
            pattern: path.trim_end_matches('/').to_owned(),
        })
    };
    match segs.as_slice() {
        ["version"] => literal(Target::Version),
        ["api"] => literal(Target::CoreVersions),
        ["apis"] => literal(Target::Groups),
        ["apis", group] => {
            let (group, _) = ALL_TYPES
                .iter()
                .find(|t| t.group == *group && !group.is_empty())
                .map(|t| (t.group, t.version))?;
            literal(Target::Group(group))
        }
        ["api", version, rest @ ..] => {
            parse_in_version("", version, rest, format!("/api/{version}"))
        }
        ["apis", group, version, rest @ ..] => {
            parse_in_version(group, version, rest, format!("/apis/{group}/{version}"))
        }
        _ => None,
    }
}

fn parse_in_version(group: &str, version: &str, rest: &[&str], prefix: String) -> Option<Parsed> {
    let (group, version) = group_version(group, version)?;
    // `namespaces/{ns}/{plural}/...` when the third segment names a namespaced resource here;
    // otherwise `namespaces/{name}` is the Namespace object itself.
    let (ns, rest) = match rest {
        ["namespaces", ns, plural, more @ ..]
            if resource(group, version, plural).is_some_and(|t| t.namespaced) =>
        {
            (Some((*ns).to_owned()), {
                let mut r = vec![*plural];
                r.extend_from_slice(more);
                r
            })
        }
        other => (None, other.to_vec()),
    };
    let mut pattern = prefix;
    if ns.is_some() {
        pattern.push_str("/namespaces/{ns}");
    }
    let target = match rest.as_slice() {
        [] if ns.is_none() => Target::Resources { group, version },
        [plural] => {
            let rt = resource(group, version, plural)?;
            pattern.push_str(&format!("/{plural}"));
            Target::Collection { rt, ns }
        }
        [plural, name, sub @ ..] => {
            let rt = resource(group, version, plural)?;
            if name.is_empty() || (ns.is_none() && rt.namespaced && *plural != "namespaces") {
                // A namespaced object needs its namespace in the path.
                return None;
            }
            let sub = match sub {
                [] => None,
                ["status"] => Some(Sub::Status),
                ["log"] if rt.plural == "pods" => Some(Sub::Log),
                ["eviction"] if rt.plural == "pods" => Some(Sub::Eviction),
                _ => return None,
            };
            pattern.push_str(&format!("/{plural}/{{name}}"));
            if let Some(sub) = sub {
                pattern.push_str(&format!("/{}", sub.name()));
            }
            Target::Object {
                rt,
                ns,
                name: (*name).to_owned(),
                sub,
            }
        }
        _ => return None,
    };
    Some(Parsed { target, pattern })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{EPHEMERAL_RUNNERS, NAMESPACES, NODES, PODS};

    fn target(p: &str) -> Target {
        parse(p).unwrap().target
    }

    #[test]
    fn paths_and_patterns() {
        let p = parse("/api/v1/namespaces/arc/pods/x").unwrap();
        assert_eq!(p.pattern, "/api/v1/namespaces/{ns}/pods/{name}");
        assert_eq!(
            p.target,
            Target::Object {
                rt: PODS,
                ns: Some("arc".into()),
                name: "x".into(),
                sub: None
            }
        );
        assert_eq!(
            parse("/api/v1/namespaces/arc/pods/x/log").unwrap().pattern,
            "/api/v1/namespaces/{ns}/pods/{name}/log"
        );
        assert_eq!(
            target("/api/v1/pods"),
            Target::Collection { rt: PODS, ns: None }
        );
        assert_eq!(
            target("/api/v1/namespaces/arc"),
            Target::Object {
                rt: NAMESPACES,
                ns: None,
                name: "arc".into(),
                sub: None
            }
        );
        assert_eq!(
            target("/api/v1/nodes/n1/status"),
            Target::Object {
                rt: NODES,
                ns: None,
                name: "n1".into(),
                sub: Some(Sub::Status)
            }
        );
        let p = parse("/apis/actions.github.com/v1alpha1/namespaces/a/ephemeralrunners").unwrap();
        assert_eq!(
            p.target,
            Target::Collection {
                rt: EPHEMERAL_RUNNERS,
                ns: Some("a".into())
            }
        );
        assert_eq!(
            p.pattern,
            "/apis/actions.github.com/v1alpha1/namespaces/{ns}/ephemeralrunners"
        );
        assert_eq!(
            target("/apis/apps"),
            Target::Group("apps"),
            "a group is served"
        );
        assert_eq!(
            target("/api/v1"),
            Target::Resources {
                group: "",
                version: "v1"
            }
        );
    }

    #[test]
    fn unserved_paths() {
        for p in [
            "/api/v2",
            "/apis/batch/v1/jobs",
            "/api/v1/widgets",
            "/api/v1/pods/x",
            "/api/v1/nodes/n1/log",
            "/api/v1/namespaces/a/pods/x/exec",
            "/healthz",
        ] {
            assert!(parse(p).is_none(), "{p}");
        }
    }
}
