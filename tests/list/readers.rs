//! Readers of what `arcctl list` printed (items of a `RunnerList`, a table with its ages
//! masked, the published schema), and the registrations of hand-built worlds.

use arcctl::sandbox::world::World;
use serde_json::Value;

use crate::support::fixtures::fixture;

/// The items of a `RunnerList` document.
pub fn items(json: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    doc["items"].as_array().cloned().unwrap_or_default()
}

pub fn name(item: &Value) -> String {
    item["name"].as_str().unwrap().to_owned()
}

pub fn namespace_of(items: &[Value], name: &str) -> String {
    items
        .iter()
        .find(|i| i["name"] == name)
        .and_then(|i| i["namespace"].as_str())
        .unwrap()
        .to_owned()
}

/// The id of the registration named `name`.
pub fn reg_id(w: &World, name: &str) -> u64 {
    w.registrations
        .values()
        .find(|r| r.name == name)
        .map(|r| r.id)
        .unwrap_or_else(|| panic!("no registration `{name}`"))
}

/// Replaces the cells of column `header` by `*` (keeping widths), so a table with ages can be
/// snapshotted.
pub fn mask_column(table: &str, header: &str) -> String {
    let mut lines = table.lines();
    let Some(head) = lines.next() else {
        return String::new();
    };
    let start = head.find(header).expect("column");
    let after = start + header.len();
    let end = head[after..].find(|c: char| c != ' ').map(|i| after + i);
    let mask = |line: &str| -> String {
        let chars: Vec<char> = line.chars().collect();
        let stop = end.unwrap_or(chars.len()).min(chars.len());
        let mut out: String = chars[..start.min(chars.len())].iter().collect();
        if stop > start {
            let w = stop - start;
            let cell: String = chars[start..stop].iter().collect();
            let filled = if cell.trim().is_empty() {
                " ".repeat(w)
            } else {
                format!("{:<w$}", "*")
            };
            out.push_str(&filled);
        }
        out.extend(chars[stop.max(start).min(chars.len())..].iter());
        out.trim_end().to_owned()
    };
    let mut out = vec![head.to_owned()];
    out.extend(lines.map(mask));
    out.join("\n") + "\n"
}

/// A registration to clone for hand-built worlds: online, idle, labelled like a legacy runner.
pub fn registration_template() -> arcctl::sandbox::world::Registration {
    use arcctl::sandbox::world::{Label, Registration, Scope};
    Registration {
        id: 0,
        name: String::new(),
        scope: Scope::Org("sandbox-org".to_owned()),
        os: "linux".to_owned(),
        status: "online",
        busy: false,
        listed_busy: false,
        listed_at: std::time::Instant::now(),
        labels: vec![Label {
            id: 1,
            name: "self-hosted".to_owned(),
            label_type: "read-only",
        }],
        runner_group_id: 1,
        ephemeral: false,
        version: Some("2.329.0".to_owned()),
        job: None,
        job_assigned_at: None,
    }
}

/// Asserts that a `-o json` document matches `tests/fixtures/runner-list.schema.json` (the
/// schema the README documents), and that the schema would notice a broken one.
pub fn assert_matches_schema(json: &str) {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("runner-list.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let doc: Value = serde_json::from_str(json).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    if doc["items"].get(0).is_some() {
        let mut bad_state = doc.clone();
        bad_state["items"][0]["state"] = Value::from("sleeping");
        assert!(!validator.is_valid(&bad_state));
        let mut missing_key = doc.clone();
        missing_key["items"][0]
            .as_object_mut()
            .unwrap()
            .remove("job");
        assert!(!validator.is_valid(&missing_key));
    }
}
