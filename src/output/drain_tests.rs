//! Snapshots of the drain's user-facing text.

use crate::drain::event::Outcome;
use crate::drain::plan::*;
use crate::output::drain::*;

fn step(name: &str, id: u64, state: State, owner: Owner, wait: bool) -> Step {
    let c = Candidate {
        name: name.into(),
        runner_id: Some(id),
        state,
        job: (state == State::Busy).then(|| "build (linux)".to_owned()),
        pod: Some(PodRef {
            namespace: "arc-runners".into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            node: Some("node-1".into()),
            owner,
        }),
    };
    plan(&[c], PlanOptions { wait }).remove(0)
}

fn steps() -> Vec<Step> {
    let er = |n: &str| Owner::EphemeralRunner {
        name: n.into(),
        uid: format!("er-{n}"),
    };
    vec![
        step("set-runner-a", 11, State::Idle, er("set-runner-a"), false),
        step("set-runner-b", 12, State::Busy, er("set-runner-b"), false),
        step(
            "rd-x1",
            13,
            State::Offline,
            Owner::Runner {
                name: "rd-x1".into(),
            },
            false,
        ),
        step(
            "rs-0",
            14,
            State::Busy,
            Owner::StatefulSet { name: "rs".into() },
            true,
        ),
    ]
}

fn scene() -> Scene {
    Scene {
        scope: "orgs/acme".into(),
        scope_text: "org `acme`".into(),
        context: Some("prod".into()),
        namespaces: vec!["arc-runners".into()],
        node: None,
    }
}

#[test]
fn the_dry_run_plan_says_exactly_what_happens() {
    insta::assert_snapshot!(plan_table(&steps(), false), @r#"
    RUNNER        NAMESPACE    NODE    STATE    PLAN
    set-runner-a  arc-runners  node-1  idle     unregister runner 11, confirm idle, delete ephemeralrunner/arc-runners/set-runner-a
    set-runner-b  arc-runners  node-1  busy     skip (busy: job "build (linux)")
    rd-x1         arc-runners  node-1  offline  unregister runner 13, confirm idle, delete pod/arc-runners/rd-x1
    rs-0          arc-runners  node-1  busy     wait until idle, then unregister runner 14, confirm idle, delete pod/arc-runners/rs-0
    "#);
}

#[test]
fn the_prompt_names_scope_context_namespaces_and_counts() {
    assert_eq!(
        prompt("Drain", &steps(), &scene()),
        "Drain 3 runners of org `acme` in context `prod`, namespace `arc-runners` (1 busy will be waited for, 1 busy will be skipped)?"
    );
}

#[test]
fn the_summary_lists_outcomes_totals_and_what_is_pending() {
    let s = steps();
    let outcomes = vec![
        (
            s[0].clone(),
            Outcome::Drained {
                deleted: "ephemeralrunner/arc-runners/set-runner-a".into(),
                note: None,
            },
        ),
        (
            s[1].clone(),
            Outcome::Skipped {
                reason: SkipReason::Busy {
                    job: Some("build (linux)".into()),
                },
            },
        ),
        (
            s[2].clone(),
            Outcome::Held {
                job: Some("deploy".into()),
                reason: None,
            },
        ),
        (
            s[3].clone(),
            Outcome::Failed {
                reason: "unregister failed after 5 attempts: 502 Bad Gateway; pod untouched".into(),
            },
        ),
    ];
    insta::assert_snapshot!(summary(&outcomes, false), @r#"
    RUNNER        NAMESPACE    NODE    OUTCOME       DETAIL
    set-runner-a  arc-runners  node-1  drained       ephemeralrunner/arc-runners/set-runner-a
    set-runner-b  arc-runners  node-1  skipped-busy  busy: job "build (linux)"
    rd-x1         arc-runners  node-1  held          job "deploy" started during unregistration; pod kept
    rs-0          arc-runners  node-1  failed        unregister failed after 5 attempts: 502 Bad Gateway; pod untouched
    4 selected: 1 drained, 1 skipped (busy), 0 skipped (other), 1 held, 1 failed, 0 timed out, 0 stopped
    There are runners still pending:
      runner/set-runner-b (skipped-busy: busy: job "build (linux)")
      runner/rd-x1 (held: job "deploy" started during unregistration; pod kept)
      runner/rs-0 (failed: unregister failed after 5 attempts: 502 Bad Gateway; pod untouched)
    "#);
    assert_eq!(
        totals(outcomes.iter().map(|(_, o)| o)),
        Totals {
            selected: 4,
            drained: 1,
            skipped_busy: 1,
            skipped: 0,
            held: 1,
            failed: 1,
            timed_out: 0,
            stopped: 0
        }
    );
}

#[test]
fn a_rate_limit_wait_is_told_in_one_line() {
    use crate::drain::pacer::{LimitKind, Spell};
    use std::time::Duration;
    let spell = Spell {
        kind: LimitKind::Secondary,
        wait: Duration::from_secs(58),
        told: true,
        repeat: 0,
        spacing: Some(Duration::from_secs_f64(1.0 / 0.9)),
        lowered: true,
    };
    let lines = [
        rate_limit_line(&spell),
        rate_limit_line(&Spell {
            wait: Duration::from_secs(120),
            told: false,
            repeat: 1,
            lowered: false,
            ..spell
        }),
        rate_limit_line(&Spell {
            spacing: Some(Duration::from_secs(20)),
            ..spell
        }),
        rate_limit_line(&Spell {
            kind: LimitKind::Primary,
            wait: Duration::from_secs(1_800),
            lowered: false,
            ..spell
        }),
    ];
    insta::assert_snapshot!(lines.join("\n"), @r"
    GitHub secondary rate limit: waiting 58s, then probing; pace lowered to 0.9/s
    GitHub secondary rate limit again (2 refusals in a row, no retry-after): waiting 2m, then probing
    GitHub secondary rate limit: waiting 58s, then probing; pace lowered to 3/min
    GitHub rate limit (hourly quota used up): waiting 30m until its reset, then probing
    ");
}

#[test]
fn the_summary_and_result_say_what_the_limits_cost() {
    use crate::drain::pacer::RateReport;
    assert_eq!(rate_limit_summary(&RateReport::default()), None);
    assert_eq!(rate_limits(&RateReport::default()), None);
    let report = RateReport {
        refused: 2,
        waits: 2,
        waited_seconds: 119,
        pace_per_second: Some(0.934),
    };
    assert_eq!(
        rate_limit_summary(&report).as_deref(),
        Some(
            "GitHub rate limits: 2 requests refused, 2 waits (1m 59s in all); unregister pace at the end 0.93/s\n"
        )
    );
    let mut doc = document(&scene(), 0, &[], Some(&[]));
    assert!(
        serde_json::to_value(&doc)
            .unwrap()
            .get("github_rate_limits")
            .is_none()
    );
    doc.github_rate_limits = rate_limits(&report);
    assert_eq!(
        serde_json::to_value(&doc).unwrap()["github_rate_limits"],
        serde_json::json!({"refused": 2, "waits": 2, "waited_seconds": 119, "pace_per_second": 0.934})
    );
    assert_eq!(pace_text(2.0), "2/s");
    assert_eq!(pace_text(0.1), "0.1/s");
    assert_eq!(pace_text(1.0 / 60.0), "1/min");
}
