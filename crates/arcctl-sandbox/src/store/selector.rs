//! Label and field selectors, parsed as the API server parses `labelSelector` and
//! `fieldSelector`, and matched against objects.

use serde_json::Value;

use super::StoreError;

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(Vec<LabelRequirement>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum LabelRequirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h` (also `==`).
    pub fn parse(s: &str) -> Result<Self, StoreError> {
        let mut reqs = Vec::new();
        for part in split_top_level(s) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let bad = || StoreError::Invalid(format!("unable to parse requirement: `{part}`"));
            let req = if let Some(key) = part.strip_prefix('!') {
                LabelRequirement::NotExists(valid_key(key.trim()).ok_or_else(bad)?)
            } else if let Some((k, v)) = part.split_once("!=") {
                LabelRequirement::NotEquals(valid_key(k.trim()).ok_or_else(bad)?, v.trim().into())
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                LabelRequirement::Equals(valid_key(k.trim()).ok_or_else(bad)?, v.trim().into())
            } else if let Some((k, vs)) = split_set(part, " notin ") {
                LabelRequirement::NotIn(valid_key(k).ok_or_else(bad)?, vs.ok_or_else(bad)?)
            } else if let Some((k, vs)) = split_set(part, " in ") {
                LabelRequirement::In(valid_key(k).ok_or_else(bad)?, vs.ok_or_else(bad)?)
            } else {
                LabelRequirement::Exists(valid_key(part).ok_or_else(bad)?)
            };
            reqs.push(req);
        }
        Ok(LabelSelector(reqs))
    }

    /// Whether `labels` (a JSON object of strings, or null) satisfies every requirement.
    /// Whether it selects everything (no requirements).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, labels: &Value) -> bool {
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            LabelRequirement::Equals(k, v) => get(k) == Some(v.as_str()),
            LabelRequirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            LabelRequirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelRequirement::NotIn(k, vs) => get(k).is_none_or(|x| vs.iter().all(|v| v != x)),
            LabelRequirement::Exists(k) => get(k).is_some(),
            LabelRequirement::NotExists(k) => get(k).is_none(),
        })
    }
}

fn valid_key(k: &str) -> Option<String> {
    let ok = !k.is_empty()
        && k.len() <= 253
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    ok.then(|| k.to_owned())
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[allow(clippy::type_complexity)]
fn split_set<'a>(part: &'a str, op: &str) -> Option<(&'a str, Option<Vec<String>>)> {
    let (k, rest) = part.split_once(op)?;
    let rest = rest.trim();
    let values = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .map(|inner| inner.split(',').map(|v| v.trim().to_owned()).collect());
    Some((k.trim(), values))
}

/// A parsed field selector over the fields the sandbox supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

/// Fields a field selector may name (as the API server supports for pods and nodes).
const FIELDS: [&str; 5] = [
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "status.phase",
    "spec.unschedulable",
];

impl FieldSelector {
    /// Parses `spec.nodeName=n1,status.phase!=Failed` (also `==`).
    pub fn parse(s: &str) -> Result<Self, StoreError> {
        let mut reqs = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, eq, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (f, true, v)
            } else {
                return Err(StoreError::Invalid(format!(
                    "invalid field selector: `{part}`"
                )));
            };
            let field = field.trim();
            if !FIELDS.contains(&field) {
                return Err(StoreError::Invalid(format!(
                    "field label not supported: {field}"
                )));
            }
            reqs.push((field.to_owned(), eq, value.trim().to_owned()));
        }
        Ok(FieldSelector(reqs))
    }

    /// The fields this selector names, so the API can refuse ones a resource type lacks.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(f, _, _)| f.as_str())
    }

    /// Whether it selects everything (no requirements).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|(field, eq, want)| {
            let mut v = obj;
            for part in field.split('.') {
                v = &v[part];
            }
            let have = match v {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Null if field == "spec.unschedulable" => "false".to_owned(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            (have == *want) == *eq
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn label_selectors() {
        let labels = json!({"app": "web", "tier": "x"});
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&labels);
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (web,api)"));
        assert!(!m("app notin (web)"));
        assert!(m("missing notin (a)"));
        assert!(m("!missing"));
        assert!(!m("!app"));
        assert!(m(""));
        assert!(
            !LabelSelector::parse("app=web")
                .unwrap()
                .matches(&Value::Null)
        );
        assert!(LabelSelector::parse("a b=c").is_err());
        assert!(LabelSelector::parse("app in web").is_err());
    }
}
