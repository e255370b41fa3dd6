//! GitHub's runner and runner-group objects, as the REST API sends them.
//!
//! Lenient where GitHub's description is (optional `runner_group_id`, `ephemeral`, nullable
//! `version`, `total_count` a number, enterprise wrappers without required fields): a strict
//! model would break on a real server for no gain.

use serde::{Deserialize, Deserializer, Serialize};

/// A self-hosted runner registration (`runner` schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runner {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub os: String,
    /// `online` or `offline` (a free string in GitHub's description).
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub busy: bool,
    #[serde(default)]
    pub labels: Vec<RunnerLabel>,
    #[serde(default, deserialize_with = "opt_id")]
    pub runner_group_id: Option<u64>,
    #[serde(default)]
    pub ephemeral: Option<bool>,
    #[serde(default)]
    pub version: Option<String>,
}

impl Runner {
    pub fn is_online(&self) -> bool {
        self.status.eq_ignore_ascii_case("online")
    }

    /// The label names, in GitHub's order.
    pub fn label_names(&self) -> Vec<String> {
        self.labels.iter().map(|l| l.name.clone()).collect()
    }

    /// Whether the runner carries every label in `wanted` (GitHub labels are case-insensitive).
    pub fn has_labels(&self, wanted: &[String]) -> bool {
        wanted
            .iter()
            .all(|w| self.labels.iter().any(|l| l.name.eq_ignore_ascii_case(w)))
    }
}

/// A runner label (`runner-label` schema; only `name` is required).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerLabel {
    #[serde(default, deserialize_with = "opt_id")]
    pub id: Option<u64>,
    pub name: String,
    /// `read-only` or `custom`.
    #[serde(default, rename = "type")]
    pub label_type: Option<String>,
}

/// A runner group (`runner-groups-org` / `runner-groups-enterprise`; `id` is a JSON number).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunnerGroup {
    #[serde(deserialize_with = "id")]
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub default: bool,
}

/// `{total_count, runners}` of the runner list endpoints.
#[derive(Debug, Deserialize)]
#[serde(try_from = "RawRunnerPage")]
pub(crate) struct RunnerPage {
    pub runners: Vec<Runner>,
    /// How many runners the whole list holds, when GitHub says.
    pub total_count: Option<u64>,
}

/// The page as sent: the enterprise endpoint may omit both fields when there are no runners,
/// but a page that counts runners and lists none is not GitHub's answer, and reading it as
/// "no runners" would hide every runner of the scope.
#[derive(Deserialize)]
struct RawRunnerPage {
    #[serde(default)]
    total_count: Option<f64>,
    #[serde(default)]
    runners: Option<Vec<Runner>>,
}

impl TryFrom<RawRunnerPage> for RunnerPage {
    type Error = String;

    fn try_from(raw: RawRunnerPage) -> Result<Self, String> {
        // A count that is no whole number says nothing about the pages.
        let total_count = raw
            .total_count
            .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n < 9.0e15)
            .map(|n| n as u64);
        match (raw.runners, raw.total_count) {
            (Some(runners), _) => Ok(RunnerPage {
                runners,
                total_count,
            }),
            (None, Some(n)) if n > 0.0 => Err(format!(
                "the page counts {n} runners but has no `runners` field"
            )),
            (None, _) => Ok(RunnerPage {
                runners: Vec::new(),
                total_count,
            }),
        }
    }
}

/// `{total_count, runner_groups}` of the runner-group list endpoints.
#[derive(Debug, Deserialize)]
pub(crate) struct RunnerGroupPage {
    #[serde(default)]
    pub runner_groups: Vec<RunnerGroup>,
}

/// GitHub's error bodies (`basic-error`, `validation-error-simple`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorBody {
    #[serde(default)]
    pub message: Option<String>,
}

/// An id that GitHub's description types as `number`: accept `7` and `7.0`.
fn id<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = serde_json::Number::deserialize(d)?;
    number_to_id(&v).ok_or_else(|| serde::de::Error::custom(format!("`{v}` is not an id")))
}

fn opt_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Option::<serde_json::Number>::deserialize(d)?;
    match v {
        None => Ok(None),
        Some(n) => number_to_id(&n)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("`{n}` is not an id"))),
    }
}

fn number_to_id(n: &serde_json::Number) -> Option<u64> {
    n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
            // The filter bounds the value, so the cast is exact.
            .map(|f| f as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_githubs_example_page() {
        let page: RunnerPage = serde_json::from_str(
            r#"{"total_count":2,"runners":[
              {"id":23,"name":"linux_runner","os":"linux","status":"online","busy":true,
               "ephemeral":false,"runner_group_id":1,"version":null,
               "labels":[{"id":5,"name":"self-hosted","type":"read-only"},
                         {"id":8,"name":"no-gpu","type":"custom"}]},
              {"id":24,"name":"mac_runner","os":"macos","status":"offline","busy":false,
               "labels":[{"name":"self-hosted"}]}]}"#,
        )
        .unwrap();
        assert_eq!(page.runners.len(), 2);
        assert_eq!(page.total_count, Some(2));
        let r = &page.runners[0];
        assert!(r.busy && r.is_online());
        assert_eq!(r.label_names(), vec!["self-hosted", "no-gpu"]);
        assert!(r.has_labels(&["NO-GPU".into(), "self-hosted".into()]));
        assert!(!r.has_labels(&["gpu".into()]));
        assert!(r.has_labels(&[]));
        assert!(!page.runners[1].is_online());
        assert_eq!(page.runners[1].runner_group_id, None);
    }

    #[test]
    fn group_ids_may_be_floats() {
        let p: RunnerGroupPage = serde_json::from_str(
            r#"{"total_count":2.0,"runner_groups":[{"id":1.0,"name":"Default","default":true},{"id":4,"name":"gpu"}]}"#,
        )
        .unwrap();
        assert_eq!(p.runner_groups[0].id, 1);
        assert_eq!(p.runner_groups[1].id, 4);
        assert!(serde_json::from_str::<RunnerGroup>(r#"{"id":1.5,"name":"x"}"#).is_err());
    }

    #[test]
    fn enterprise_wrapper_may_omit_fields() {
        let p: RunnerPage = serde_json::from_str("{}").unwrap();
        assert!(p.runners.is_empty());
    }
}
