//! Snapshots of the drain's user-facing text.

use crate::drain::event::Outcome;
use crate::drain::plan::*;
use crate::error::{Failure, Kind};
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
        prompt("Drain", &steps(), &scene(), None, None),
        "Drain 3 runners of org `acme` in context `prod`, namespace `arc-runners` (1 busy will be waited for, 1 busy will be skipped)?"
    );
}

#[test]
fn the_prompt_and_the_dry_run_name_the_cordon() {
    assert_eq!(
        prompt("Drain", &steps()[..1], &scene(), None, Some("node-1")),
        "Drain 1 runner of org `acme` in context `prod`, namespace `arc-runners` (will cordon node/node-1 first)?"
    );
    assert_eq!(dry_run_cordon("node-1"), "would cordon node/node-1 first\n");
}

#[test]
fn a_recreate_prompt_says_its_batches_before_the_notes() {
    assert_eq!(
        prompt(
            "Recreate",
            &steps()[..1],
            &scene(),
            Some("in batches of 2"),
            Some("node-1")
        ),
        "Recreate 1 runner of org `acme` in context `prod`, namespace `arc-runners`, in batches of 2 (will cordon node/node-1 first)?"
    );
}

fn denied_delete(name: &str) -> Failure {
    Failure {
        kind: Kind::Auth,
        message: format!("failed to delete ephemeralrunners `arc-runners/{name}`"),
        causes: vec!["Kubernetes denied `delete` on `ephemeralrunners` (403 forbidden)".into()],
        hint: Some("grant `delete` on ephemeralrunners".into()),
    }
}

#[test]
fn the_summary_is_the_table_one_totals_line_and_the_next_steps() {
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
                cause: None,
            },
        ),
        (
            s[3].clone(),
            Outcome::Failed {
                failure: Failure::failed(
                    "unregister failed after 5 attempts: 502 Bad Gateway; pod untouched",
                ),
            },
        ),
    ];
    insta::assert_snapshot!(summary(&outcomes, false, &Ending::default()), @r#"
    RUNNER        NAMESPACE    NODE    OUTCOME       DETAIL
    set-runner-a  arc-runners  node-1  drained       ephemeralrunner/arc-runners/set-runner-a
    set-runner-b  arc-runners  node-1  skipped-busy  busy: job "build (linux)"
    rd-x1         arc-runners  node-1  held          job "deploy" started during unregistration; pod kept
    rs-0          arc-runners  node-1  failed        unregister failed after 5 attempts: 502 Bad Gateway; pod untouched
    4 selected: 1 drained, 1 skipped (busy), 1 held, 1 failed
    1 failed: unregister failed after 5 attempts: 502 Bad Gateway; pod untouched
    1 held: a job started during unregistration; unregistered, its pod kept until the job ends
    1 runner was busy: run again with --wait to drain it as its job finishes
    "#);
    assert_eq!(
        totals(outcomes.iter().map(|(_, o)| o)),
        Totals {
            selected: 4,
            drained: 1,
            rest: NotDone {
                skipped_busy: 1,
                skipped: 0,
                held: 1,
                failed: 1,
                timed_out: 0,
                stopped: 0
            }
        }
    );
}

#[test]
fn held_runners_are_grouped_by_why_and_failures_told_by_their_first_cause() {
    let s = steps();
    let unreadable = |pod: &str| Outcome::Held {
        job: None,
        reason: Some("not proven idle: the runner log could not be read".into()),
        cause: Some(
            Failure::failed("timed out")
                .context(format!("failed to read the log of pod `arc-runners/{pod}`")),
        ),
    };
    let outcomes = vec![
        (s[0].clone(), unreadable("set-runner-a")),
        (s[1].clone(), unreadable("set-runner-b")),
        (
            s[2].clone(),
            Outcome::Failed {
                failure: Failure::failed("connection reset by peer")
                    .context("failed to get pod `arc-runners/rd-x1`"),
            },
        ),
        (
            s[3].clone(),
            Outcome::Failed {
                failure: Failure::failed("503 Service Unavailable")
                    .context("failed to get pod `arc-runners/rs-0`"),
            },
        ),
    ];
    insta::assert_snapshot!(summary(&outcomes, false, &Ending::default()), @r"
    RUNNER        NAMESPACE    NODE    OUTCOME  DETAIL
    set-runner-a  arc-runners  node-1  held     not proven idle: the runner log could not be read (failed to read the log of pod `arc-runners/set-runner-a`: timed out); unregistered, pod kept
    set-runner-b  arc-runners  node-1  held     not proven idle: the runner log could not be read (failed to read the log of pod `arc-runners/set-runner-b`: timed out); unregistered, pod kept
    rd-x1         arc-runners  node-1  failed   failed to get pod `arc-runners/rd-x1`: connection reset by peer
    rs-0          arc-runners  node-1  failed   failed to get pod `arc-runners/rs-0`: 503 Service Unavailable
    4 selected: 2 held, 2 failed
    2 failed, the first: connection reset by peer; see the table
    2 held: not proven idle: the runner log could not be read (the first: failed to read the log of pod `arc-runners/set-runner-a`: timed out); unregistered, their pods kept: they take no new job
    ");
}

#[test]
fn a_denial_is_named_in_the_rows_and_left_to_the_error_that_ends_the_run() {
    let s = steps();
    let denied = denied_delete("set-runner-a");
    let outcomes = vec![
        (
            s[0].clone(),
            Outcome::Failed {
                failure: denied.clone(),
            },
        ),
        (
            s[2].clone(),
            Outcome::Stopped {
                stage: "stopped by a permission error before the unregister; nothing changed"
                    .into(),
            },
        ),
        (
            s[3].clone(),
            Outcome::TimedOut {
                stage: "while waiting for the busy runner; nothing changed".into(),
            },
        ),
    ];
    let end = Ending {
        denied: true,
        ..Ending::default()
    };
    let text = summary(&outcomes, false, &end);
    insta::assert_snapshot!(text, @r"
    RUNNER        NAMESPACE    NODE    OUTCOME    DETAIL
    set-runner-a  arc-runners  node-1  failed     failed to delete ephemeralrunners `arc-runners/set-runner-a`: permission denied
    rd-x1         arc-runners  node-1  stopped    stopped by a permission error before the unregister; nothing changed
    rs-0          arc-runners  node-1  timed-out  --timeout reached while waiting for the busy runner; nothing changed
    3 selected: 1 failed, 1 timed out, 1 stopped
    1 runner timed out with nothing changed: run again with a longer --timeout
    1 runner stopped by the permission error below: run again to drain it
    ");
    assert!(!text.contains("403"), "the cause is the error's to tell");
    // The result document keeps the whole chain.
    let doc = document(
        &scene(),
        4,
        &[s[0].clone()],
        Some(&[Outcome::Failed { failure: denied }]),
    );
    assert_eq!(
        doc.runners[0].detail,
        "failed to delete ephemeralrunners `arc-runners/set-runner-a`: Kubernetes denied `delete` on `ephemeralrunners` (403 forbidden)"
    );
}

#[test]
fn nothing_left_to_do_ends_with_the_totals() {
    let s = steps();
    let outcomes = vec![(
        s[0].clone(),
        Outcome::Drained {
            deleted: "ephemeralrunner/arc-runners/set-runner-a".into(),
            note: None,
        },
    )];
    let text = summary(&outcomes, true, &Ending::default());
    assert_eq!(text.lines().last(), Some("1 selected: 1 drained"), "{text}");
    assert_eq!(summary(&[], false, &Ending::default()), "0 selected\n");
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
