//! Everything `recreate` shows beyond drain's progress lines: the batched dry-run plan, batch
//! and replacement lines while it runs, the summary pairing each old runner with its
//! replacement, and the JSON result document.

use std::time::Duration;

use serde::Serialize;

use crate::drain::event::Outcome;
use crate::drain::plan::Step;
use crate::output::drain::{
    Ending, NotDone, RunnerResult, Scene, brief_detail, describe_action, next_steps, plain_table,
    render, runner_result, totals_line,
};
use crate::output::error::one_line;
use crate::recreate::rolling::{BatchRecord, Progress, ReplacementStatus, Row};

/// The line shown for what the rolling recreate is doing (through the progress reporter, so
/// it interleaves with drain's event lines and stays clear of progress bars).
pub fn progress_line(p: Progress<'_>) -> String {
    match p {
        Progress::BatchStarted { index, runners } => format!(
            "batch {index}: recreating {} runner{}: {}",
            runners.len(),
            if runners.len() == 1 { "" } else { "s" },
            runners.join(", ")
        ),
        Progress::Replaced { old, by } => format!(
            "runner/{old} replaced by runner/{} (id {}, ready after {})",
            by.name,
            by.id,
            seconds(by.ready_after)
        ),
        Progress::Missing { old, waited } => format!(
            "runner/{old}: no replacement ready after {} (--ready-timeout)",
            seconds(waited)
        ),
        Progress::Halted { reason } => format!("no further batches: {reason}"),
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// The dry-run plan with the batch each runner would be in.
pub fn plan_table(steps: &[Step], batches: &[Option<usize>], no_headers: bool) -> String {
    let mut t = plain_table();
    if !no_headers {
        t.set_header(["RUNNER", "NAMESPACE", "NODE", "STATE", "BATCH", "PLAN"]);
    }
    for (s, b) in steps.iter().zip(batches) {
        let pod = s.candidate.pod.as_ref();
        t.add_row([
            s.candidate.name.clone(),
            pod.map_or("-".into(), |p| p.namespace.clone()),
            pod.and_then(|p| p.node.clone())
                .unwrap_or_else(|| "-".into()),
            s.candidate.state.as_str().to_owned(),
            b.map_or("-".into(), |b| b.to_string()),
            describe_action(s),
        ]);
    }
    render(&mut t)
}

/// A runner's replacement in the result document.
#[derive(Debug, Serialize)]
pub struct ReplacementDoc {
    /// `ready`, `missing`, `not-waited`, `already-replaced` or `not-expected`.
    pub status: &'static str,
    pub name: Option<String>,
    pub id: Option<u64>,
    pub namespace: Option<String>,
    /// From the old runner's deletion to the replacement Running and online.
    pub ready_after_seconds: Option<f64>,
    pub detail: Option<String>,
}

fn replacement_doc(r: &ReplacementStatus) -> ReplacementDoc {
    let mut d = ReplacementDoc {
        status: "",
        name: None,
        id: None,
        namespace: None,
        ready_after_seconds: None,
        detail: None,
    };
    match r {
        ReplacementStatus::Ready(rep) => {
            d.status = "ready";
            d.name = Some(rep.name.clone());
            d.id = Some(rep.id);
            d.namespace = Some(rep.namespace.clone());
            d.ready_after_seconds = Some((rep.ready_after.as_secs_f64() * 10.0).round() / 10.0);
        }
        ReplacementStatus::Missing { waited, last_error } => {
            d.status = "missing";
            d.detail = Some(match last_error {
                Some(e) => format!(
                    "not ready after {}; last error: {}",
                    seconds(*waited),
                    one_line(e)
                ),
                None => format!("not ready after {}", seconds(*waited)),
            });
        }
        ReplacementStatus::NotWaited => d.status = "not-waited",
        ReplacementStatus::AlreadyReplaced => {
            d.status = "already-replaced";
            d.detail = Some(
                "its pod or ARC object was already gone when its turn came; ARC had replaced it"
                    .into(),
            );
        }
        ReplacementStatus::NotExpected(why) => {
            d.status = "not-expected";
            d.detail = Some(why.clone());
        }
    }
    d
}

/// One runner in the result document: drain's fields, its batch and its replacement.
#[derive(Debug, Serialize)]
pub struct RecreateRunner {
    #[serde(flatten)]
    pub runner: RunnerResult,
    pub batch: Option<usize>,
    pub replacement: Option<ReplacementDoc>,
}

/// The outcome label: drain's, with `recreated` for a runner whose object was deleted, or
/// `replacement-missing` when its replacement never became ready.
fn label(row: &Row) -> &'static str {
    match (&row.outcome, &row.replacement) {
        (Outcome::Drained { .. }, Some(ReplacementStatus::Missing { .. })) => "replacement-missing",
        (Outcome::Drained { .. }, _) => "recreated",
        (o, _) => o.label(),
    }
}

fn runner_doc(row: &Row) -> RecreateRunner {
    let mut runner = runner_result(&row.step, Some(&row.outcome));
    runner.outcome = label(row);
    RecreateRunner {
        runner,
        batch: row.batch,
        replacement: row.replacement.as_ref().map(replacement_doc),
    }
}

/// Counts of outcomes and replacements.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Totals {
    pub selected: usize,
    pub recreated: usize,
    pub replacements_ready: usize,
    pub replacements_missing: usize,
    /// Runners ARC had already replaced (after a job) when their turn came.
    pub already_replaced: usize,
    #[serde(flatten)]
    pub rest: NotDone,
}

pub fn totals(rows: &[Row]) -> Totals {
    let mut t = Totals {
        selected: rows.len(),
        ..Totals::default()
    };
    for r in rows {
        match label(r) {
            "recreated" | "replacement-missing" => t.recreated += 1,
            other => t.rest.count(other),
        }
        match r.replacement {
            Some(ReplacementStatus::Ready(_)) => t.replacements_ready += 1,
            Some(ReplacementStatus::Missing { .. }) => t.replacements_missing += 1,
            Some(ReplacementStatus::AlreadyReplaced) => t.already_replaced += 1,
            _ => {}
        }
    }
    t
}

/// One batch in the result document.
#[derive(Debug, Serialize)]
pub struct BatchDoc {
    pub batch: usize,
    pub runners: Vec<String>,
    pub replacements_ready: usize,
    pub replacements_missing: usize,
}

/// The `-o json` document of a recreate (or of its dry run, with `outcome: "planned"`).
#[derive(Debug, Serialize)]
pub struct RecreateDocument {
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    pub kind: &'static str,
    pub dry_run: bool,
    #[serde(flatten)]
    pub scene: Scene,
    pub exit_code: u8,
    pub batch_size: usize,
    pub wait_ready: bool,
    /// Why no further batch was started, when the run stopped early.
    pub halted: Option<String>,
    pub totals: Totals,
    /// What GitHub's rate limits cost the run; present when GitHub refused a request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub github_rate_limits: Option<crate::drain::pacer::RateReport>,
    pub batches: Vec<BatchDoc>,
    pub runners: Vec<RecreateRunner>,
}

/// The shape of the run, for the document.
pub struct Header<'a> {
    pub scene: &'a Scene,
    pub exit_code: u8,
    pub batch_size: usize,
    pub wait_ready: bool,
}

/// The result document of a finished recreate.
pub fn document(
    h: &Header<'_>,
    rows: &[Row],
    batches: &[BatchRecord],
    halted: Option<&str>,
) -> RecreateDocument {
    RecreateDocument {
        api_version: "arcctl/v1",
        kind: "RecreateResult",
        dry_run: false,
        scene: h.scene.clone(),
        exit_code: h.exit_code,
        batch_size: h.batch_size,
        wait_ready: h.wait_ready,
        halted: halted.map(str::to_owned),
        totals: totals(rows),
        github_rate_limits: None,
        batches: batches
            .iter()
            .map(|b| BatchDoc {
                batch: b.index,
                runners: b.runners.clone(),
                replacements_ready: b.ready,
                replacements_missing: b.missing,
            })
            .collect(),
        runners: rows.iter().map(runner_doc).collect(),
    }
}

/// The result document of a dry run: every runner `planned`, with its planned batch.
pub fn plan_document(
    h: &Header<'_>,
    steps: &[Step],
    planned: &[Option<usize>],
) -> RecreateDocument {
    let runners: Vec<RecreateRunner> = steps
        .iter()
        .zip(planned)
        .map(|(s, b)| RecreateRunner {
            runner: runner_result(s, None),
            batch: *b,
            replacement: None,
        })
        .collect();
    let count = planned.iter().flatten().max().copied().unwrap_or(0);
    let batches = (1..=count)
        .map(|k| BatchDoc {
            batch: k,
            runners: steps
                .iter()
                .zip(planned)
                .filter(|(_, b)| **b == Some(k))
                .map(|(s, _)| s.candidate.name.clone())
                .collect(),
            replacements_ready: 0,
            replacements_missing: 0,
        })
        .collect();
    RecreateDocument {
        api_version: "arcctl/v1",
        kind: "RecreateResult",
        dry_run: true,
        scene: h.scene.clone(),
        exit_code: h.exit_code,
        batch_size: h.batch_size,
        wait_ready: h.wait_ready,
        halted: None,
        totals: Totals {
            selected: steps.len(),
            ..Totals::default()
        },
        github_rate_limits: None,
        batches,
        runners,
    }
}

/// The end of a recreate on stderr: each old runner with its replacement, one totals line, the
/// rate-limit line when GitHub refused anything, then what to do about what remains.
pub fn summary(rows: &[Row], no_headers: bool, end: &Ending<'_>) -> String {
    let mut t = plain_table();
    if !no_headers {
        t.set_header([
            "RUNNER",
            "NAMESPACE",
            "BATCH",
            "OUTCOME",
            "REPLACEMENT",
            "ID",
            "READY AFTER",
            "DETAIL",
        ]);
    }
    for row in rows {
        let r = runner_doc(row);
        let brief = brief_detail(&row.outcome);
        let (rep, id, after, detail) = match &row.replacement {
            Some(ReplacementStatus::Ready(rep)) => (
                rep.name.clone(),
                rep.id.to_string(),
                seconds(rep.ready_after),
                brief,
            ),
            Some(other) => {
                let d = replacement_doc(other);
                (
                    d.status.to_owned(),
                    "-".into(),
                    "-".into(),
                    d.detail.unwrap_or(brief),
                )
            }
            None => ("-".into(), "-".into(), "-".into(), brief),
        };
        t.add_row([
            r.runner.name.clone(),
            r.runner.namespace.clone().unwrap_or_else(|| "-".into()),
            row.batch.map_or("-".into(), |b| b.to_string()),
            r.runner.outcome.to_owned(),
            rep,
            id,
            after,
            detail,
        ]);
    }
    let tot = totals(rows);
    let mut out = if rows.is_empty() {
        String::new()
    } else {
        render(&mut t)
    };
    let replacements: Vec<String> = [
        (tot.replacements_ready, "ready"),
        (tot.replacements_missing, "missing"),
        (tot.already_replaced, "already replaced by ARC"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    let recreated = if replacements.is_empty() {
        "recreated".to_owned()
    } else {
        format!("recreated ({})", replacements.join(", "))
    };
    let mut counts = vec![(tot.recreated, recreated.as_str())];
    counts.extend(tot.rest.parts());
    out.push_str(&totals_line(tot.selected, &counts));
    if let Some(line) = end
        .rate_limits
        .and_then(crate::output::drain::rate_limit_summary)
    {
        out.push_str(&line);
    }
    let mut lines = Vec::new();
    if tot.replacements_missing > 0 {
        lines.push(if tot.replacements_missing == 1 {
            "1 replacement was not ready within --ready-timeout, so no further batch was started: see `arcctl list` before recreating more".to_owned()
        } else {
            format!(
                "{} replacements were not ready within --ready-timeout, so no further batch was started: see `arcctl list` before recreating more",
                tot.replacements_missing
            )
        });
    }
    lines.extend(next_steps(rows.iter().map(|r| &r.outcome), "recreate", end));
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
