//! What ARC's labels, annotations and owner references say about a pod: is it a runner pod,
//! which scale set or deployment it belongs to, which ARC mode created it, which runner id it
//! recorded. Pure functions over plain data (see docs/design.md §7.1).

use std::collections::BTreeMap;

use serde::Serialize;

/// `actions.github.com/scale-set-name=NAME` on scale-set runner pods.
pub const LABEL_SCALE_SET_NAME: &str = "actions.github.com/scale-set-name";
/// `actions-ephemeral-runner=True` on scale-set runner pods.
pub const LABEL_EPHEMERAL_RUNNER: &str = "actions-ephemeral-runner";
/// `actions-runner=""` on legacy runner pods.
pub const LABEL_LEGACY_RUNNER: &str = "actions-runner";
/// `runner-deployment-name=NAME` on legacy RunnerDeployment pods.
pub const LABEL_RUNNER_DEPLOYMENT: &str = "runner-deployment-name";
/// `runnerset-name=NAME` on legacy RunnerSet pods.
pub const LABEL_RUNNERSET: &str = "runnerset-name";
/// The GitHub runner id a legacy pod registered as.
pub const ANNOTATION_RUNNER_ID: &str = "actions-runner/id";
/// What ARC writes on a legacy pod once its runner is unregistered.
pub const ANNOTATION_UNREGISTRATION_COMPLETE: &str =
    "actions-runner/unregistration-complete-timestamp";

/// The scale-set API group (EphemeralRunner).
pub const GROUP_SCALE_SET: &str = "actions.github.com";
/// The legacy API group (Runner, RunnerDeployment, RunnerSet).
pub const GROUP_LEGACY: &str = "actions.summerwind.dev";

/// How ARC manages a runner pod, which decides what `drain` deletes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Owned by an `EphemeralRunner` (gha-runner-scale-set): delete the EphemeralRunner.
    ScaleSet,
    /// Owned by a legacy `Runner` (RunnerDeployment / RunnerReplicaSet).
    LegacyRunner,
    /// Owned by a `StatefulSet` (legacy RunnerSet).
    LegacyStatefulset,
    /// A runner pod with another or no owner.
    Other,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ScaleSet => "scale-set",
            Mode::LegacyRunner => "legacy-runner",
            Mode::LegacyStatefulset => "legacy-statefulset",
            Mode::Other => "other",
        }
    }
}

/// A pod's owner reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Owner {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub controller: bool,
}

impl Owner {
    /// The API group of `api_version` (`apps/v1` → `apps`, `v1` → ``).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// Whether the labels mark an ARC runner pod (either mode).
pub fn is_runner_pod(labels: &BTreeMap<String, String>) -> bool {
    [
        LABEL_SCALE_SET_NAME,
        LABEL_EPHEMERAL_RUNNER,
        LABEL_LEGACY_RUNNER,
        LABEL_RUNNER_DEPLOYMENT,
        LABEL_RUNNERSET,
    ]
    .iter()
    .any(|k| labels.contains_key(*k))
}

/// The scale set, RunnerDeployment or RunnerSet the pod belongs to.
pub fn scale_set_name(labels: &BTreeMap<String, String>) -> Option<&str> {
    [
        LABEL_SCALE_SET_NAME,
        LABEL_RUNNER_DEPLOYMENT,
        LABEL_RUNNERSET,
    ]
    .iter()
    .find_map(|k| labels.get(*k))
    .map(String::as_str)
    .filter(|s| !s.is_empty())
}

/// The owner that decides the mode: the controller reference, else the first one.
pub fn controlling_owner(owners: &[Owner]) -> Option<&Owner> {
    owners
        .iter()
        .find(|o| o.controller)
        .or_else(|| owners.first())
}

/// The ARC mode of a runner pod, from its controlling owner.
pub fn mode(owners: &[Owner]) -> Mode {
    match controlling_owner(owners) {
        Some(o) if o.kind == "EphemeralRunner" && o.group() == GROUP_SCALE_SET => Mode::ScaleSet,
        Some(o) if o.kind == "Runner" && o.group() == GROUP_LEGACY => Mode::LegacyRunner,
        Some(o) if o.kind == "StatefulSet" && o.group() == "apps" => Mode::LegacyStatefulset,
        _ => Mode::Other,
    }
}

/// The runner id a legacy pod recorded, from the value of its `actions-runner/id` annotation,
/// if it is a number.
pub fn parse_runner_id(value: &str) -> Option<u64> {
    value.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn owner(api_version: &str, kind: &str, controller: bool) -> Owner {
        Owner {
            api_version: api_version.into(),
            kind: kind.into(),
            name: "o".into(),
            uid: "u".into(),
            controller,
        }
    }

    #[test]
    fn runner_pods_are_recognised_by_any_arc_label() {
        assert!(is_runner_pod(&labels(&[(LABEL_SCALE_SET_NAME, "s")])));
        assert!(is_runner_pod(&labels(&[(LABEL_EPHEMERAL_RUNNER, "True")])));
        assert!(is_runner_pod(&labels(&[(LABEL_LEGACY_RUNNER, "")])));
        assert!(is_runner_pod(&labels(&[(LABEL_RUNNER_DEPLOYMENT, "d")])));
        assert!(is_runner_pod(&labels(&[(LABEL_RUNNERSET, "rs")])));
        assert!(!is_runner_pod(&labels(&[("app", "web")])));
        assert!(!is_runner_pod(&BTreeMap::new()));
    }

    #[test]
    fn scale_set_names_in_each_mode() {
        assert_eq!(
            scale_set_name(&labels(&[
                (LABEL_SCALE_SET_NAME, "arc"),
                (LABEL_EPHEMERAL_RUNNER, "True")
            ])),
            Some("arc")
        );
        assert_eq!(
            scale_set_name(&labels(&[
                (LABEL_RUNNER_DEPLOYMENT, "rd"),
                (LABEL_LEGACY_RUNNER, "")
            ])),
            Some("rd")
        );
        assert_eq!(
            scale_set_name(&labels(&[(LABEL_RUNNERSET, "rs")])),
            Some("rs")
        );
        assert_eq!(scale_set_name(&labels(&[(LABEL_LEGACY_RUNNER, "")])), None);
    }

    #[test]
    fn modes_from_owners() {
        let er = owner("actions.github.com/v1alpha1", "EphemeralRunner", true);
        let runner = owner("actions.summerwind.dev/v1alpha1", "Runner", true);
        let sts = owner("apps/v1", "StatefulSet", true);
        assert_eq!(mode(std::slice::from_ref(&er)), Mode::ScaleSet);
        assert_eq!(mode(&[runner]), Mode::LegacyRunner);
        assert_eq!(mode(&[sts]), Mode::LegacyStatefulset);
        assert_eq!(mode(&[]), Mode::Other);
        // A kind of the same name in another group is not ARC's.
        assert_eq!(
            mode(&[owner("example.com/v1", "Runner", true)]),
            Mode::Other
        );
        assert_eq!(mode(&[owner("v1", "ReplicaSet", true)]), Mode::Other);
        // The controller reference wins over the order.
        let non_controller = owner("apps/v1", "StatefulSet", false);
        assert_eq!(mode(&[non_controller, er]), Mode::ScaleSet);
        assert_eq!(Mode::LegacyStatefulset.as_str(), "legacy-statefulset");
    }

    #[test]
    fn recorded_ids() {
        assert_eq!(parse_runner_id("42"), Some(42));
        assert_eq!(parse_runner_id(" 42\n"), Some(42));
        assert_eq!(parse_runner_id("x"), None);
        assert_eq!(parse_runner_id(""), None);
    }
}
