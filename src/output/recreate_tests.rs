//! The recreate's user-facing text: the summary pairs, labels, totals and pending list.

use std::time::Duration;

use crate::drain::event::Outcome;
use crate::drain::plan::*;
use crate::output::recreate::*;
use crate::recreate::ready::Replacement;
use crate::recreate::rolling::{ReplacementStatus, Row};

fn row(name: &str, outcome: Outcome, replacement: Option<ReplacementStatus>) -> Row {
    let c = Candidate {
        name: name.into(),
        runner_id: Some(7),
        state: State::Idle,
        job: None,
        pod: Some(PodRef {
            namespace: "arc".into(),
            name: name.into(),
            uid: "u".into(),
            node: None,
            owner: Owner::EphemeralRunner {
                name: name.into(),
                uid: "e".into(),
            },
        }),
    };
    Row {
        step: plan(&[c], PlanOptions::default()).remove(0),
        outcome,
        batch: Some(1),
        replacement,
    }
}

fn drained() -> Outcome {
    Outcome::Drained {
        deleted: "ephemeralrunner/arc/x".into(),
        note: None,
    }
}

fn rows() -> Vec<Row> {
    vec![
        row(
            "old-a",
            drained(),
            Some(ReplacementStatus::Ready(Replacement {
                name: "new-a".into(),
                namespace: "arc".into(),
                id: 42,
                ready_after: Duration::from_millis(2340),
            })),
        ),
        row(
            "old-b",
            drained(),
            Some(ReplacementStatus::Missing {
                waited: Duration::from_secs(300),
                last_error: None,
            }),
        ),
        row(
            "old-c",
            Outcome::Stopped {
                stage: "not started: interrupted; nothing changed".into(),
            },
            None,
        ),
    ]
}

#[test]
fn the_summary_pairs_each_old_runner_with_its_replacement() {
    let text = summary(&rows(), false, &crate::output::drain::Ending::default());
    let pair = text.lines().find(|l| l.starts_with("old-a")).unwrap();
    for part in ["recreated", "new-a", "42", "2.3s"] {
        assert!(pair.contains(part), "{pair}");
    }
    let missing = text.lines().find(|l| l.starts_with("old-b")).unwrap();
    assert!(missing.contains("replacement-missing"), "{missing}");
    assert!(missing.contains("not ready after 300.0s"), "{missing}");
    // The table, one totals line, then what to do: each runner named once, in the table.
    let end = text
        .split_once("3 selected: 2 recreated (1 ready, 1 missing), 1 stopped\n")
        .map(|(_, end)| end)
        .unwrap_or_else(|| panic!("the totals line:\n{text}"));
    insta::assert_snapshot!(end, @r"
    1 replacement was not ready within --ready-timeout, so no further batch was started: see `arcctl list` before recreating more
    1 runner stopped: run again to recreate it
    ");
    for name in ["old-a", "old-b", "old-c"] {
        assert_eq!(text.matches(name).count(), 1, "{name} once:\n{text}");
    }
}

#[test]
fn the_document_carries_the_replacement_of_each_runner() {
    let s = crate::output::drain::Scene {
        scope: "orgs/acme".into(),
        scope_text: "org `acme`".into(),
        context: None,
        namespaces: vec![],
        node: None,
    };
    let h = Header {
        scene: &s,
        exit_code: 3,
        batch_size: 2,
        wait_ready: true,
    };
    let doc = serde_json::to_value(document(&h, &rows(), &[], None)).unwrap();
    assert_eq!(doc["kind"], "RecreateResult");
    assert_eq!(doc["totals"]["replacements_ready"], 1);
    let a = &doc["runners"][0];
    assert_eq!(a["outcome"], "recreated");
    assert_eq!(a["batch"], 1);
    assert_eq!(a["replacement"]["name"], "new-a");
    assert_eq!(a["replacement"]["id"], 42);
    assert_eq!(a["replacement"]["ready_after_seconds"], 2.3);
    assert_eq!(doc["runners"][1]["replacement"]["status"], "missing");
    assert!(doc["runners"][2]["replacement"].is_null());
}
