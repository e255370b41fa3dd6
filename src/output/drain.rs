//! Everything `drain` shows: the dry-run plan, progress or event lines while it runs, the audit
//! log, the summary table and the JSON result document.

use std::collections::{BTreeMap, BTreeSet};

use comfy_table::{Table, presets};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::context::Stream;
use crate::drain::event::{Event, Outcome, WaitReason};
use crate::drain::pacer::{LimitKind, RateReport, Spell};
use crate::drain::plan::{Action, SkipReason, Step};
use crate::error::{Failure, Result};
use crate::output::audit::AuditLog;
use crate::output::error::one_line;
use crate::output::style::Presentation;

/// The run's setting, for the prompt, the plan and the result document.
#[derive(Debug, Clone, Serialize)]
pub struct Scene {
    /// The API path of the scope: `orgs/acme`, `repos/acme/app` or `enterprises/big`.
    pub scope: String,
    /// How messages name it: ``org `acme` ``.
    #[serde(skip)]
    pub scope_text: String,
    pub context: Option<String>,
    pub namespaces: Vec<String>,
    pub node: Option<String>,
}

/// The question asked before a drain or recreate; `manner` says how the runners go (recreate's
/// batches), `cordon` names the node cordoned first.
pub fn prompt(
    verb: &str,
    steps: &[Step],
    scene: &Scene,
    manner: Option<&str>,
    cordon: Option<&str>,
) -> String {
    let c = crate::drain::plan::counts(steps);
    let mut q = format!(
        "{verb} {} runner{} of {}",
        c.drain + c.wait,
        if c.drain + c.wait == 1 { "" } else { "s" },
        scene.scope_text
    );
    if let Some(ctx) = &scene.context {
        q.push_str(&format!(" in context `{ctx}`"));
    }
    q.push_str(&format!(", {}", namespaces(scene)));
    if let Some(m) = manner {
        q.push_str(&format!(", {m}"));
    }
    let mut notes = Vec::new();
    if let Some(node) = cordon {
        notes.push(format!("will cordon node/{node} first"));
    }
    if c.wait > 0 {
        notes.push(format!("{} busy will be waited for", c.wait));
    }
    if c.skip_busy > 0 {
        notes.push(format!("{} busy will be skipped", c.skip_busy));
    }
    if c.skip_other > 0 {
        notes.push(format!("{} left alone", c.skip_other));
    }
    if !notes.is_empty() {
        q.push_str(&format!(" ({})", notes.join(", ")));
    }
    q.push('?');
    q
}

fn namespaces(scene: &Scene) -> String {
    match scene.namespaces.as_slice() {
        [] => "all namespaces".to_owned(),
        [one] => format!("namespace `{one}`"),
        many => format!("namespaces `{}`", many.join("`, `")),
    }
}

/// What the plan does with one runner, in words.
pub fn describe_action(step: &Step) -> String {
    match &step.action {
        Action::Drain {
            runner_id,
            target,
            wait_first,
        } => {
            let first = if *wait_first {
                "wait until idle, then unregister"
            } else {
                "unregister"
            };
            format!(
                "{first} runner {runner_id}, confirm idle, delete {}",
                target.display()
            )
        }
        Action::Skip(reason) => format!("skip ({})", reason.describe()),
    }
}

/// The dry-run plan as a table for stdout.
pub fn plan_table(steps: &[Step], no_headers: bool) -> String {
    let mut t = plain_table();
    if !no_headers {
        t.set_header(["RUNNER", "NAMESPACE", "NODE", "STATE", "PLAN"]);
    }
    for s in steps {
        let pod = s.candidate.pod.as_ref();
        t.add_row([
            s.candidate.name.clone(),
            pod.map_or("-".into(), |p| p.namespace.clone()),
            pod.and_then(|p| p.node.clone())
                .unwrap_or_else(|| "-".into()),
            s.candidate.state.as_str().to_owned(),
            describe_action(s),
        ]);
    }
    render(&mut t)
}

/// kubectl-style columns: no borders, two spaces between columns, no trailing blanks.
pub(crate) fn render(t: &mut Table) -> String {
    for c in t.column_iter_mut() {
        c.set_padding((0, 2));
    }
    format!("{}\n", t.trim_fmt())
}

pub(crate) fn plain_table() -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING);
    t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
    t
}

/// One runner in the result document.
#[derive(Debug, Serialize)]
pub struct RunnerResult {
    pub name: String,
    pub id: Option<u64>,
    pub namespace: Option<String>,
    pub node: Option<String>,
    pub state: &'static str,
    /// The planned action: `drain`, `wait-then-drain` or `skip`.
    pub plan: &'static str,
    pub outcome: &'static str,
    pub detail: String,
    pub job: Option<String>,
}

/// Counts of outcomes.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Totals {
    pub selected: usize,
    pub drained: usize,
    #[serde(flatten)]
    pub rest: NotDone,
}

/// The runners a drain or recreate left as they were, by why; both commands count and word
/// them alike, so one place does.
#[derive(Debug, Default, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct NotDone {
    pub skipped_busy: usize,
    pub skipped: usize,
    pub held: usize,
    pub failed: usize,
    pub timed_out: usize,
    pub stopped: usize,
}

impl NotDone {
    /// Counts an outcome label that is not a success (anything unknown counts as stopped).
    pub(crate) fn count(&mut self, label: &str) {
        match label {
            "skipped-busy" => self.skipped_busy += 1,
            "skipped" => self.skipped += 1,
            "held" => self.held += 1,
            "failed" => self.failed += 1,
            "timed-out" => self.timed_out += 1,
            _ => self.stopped += 1,
        }
    }

    /// The counts with their words for the totals line, in the order it gives them.
    pub(crate) fn parts(&self) -> [(usize, &'static str); 6] {
        [
            (self.skipped_busy, "skipped (busy)"),
            (self.skipped, "skipped (other)"),
            (self.held, "held"),
            (self.failed, "failed"),
            (self.timed_out, "timed out"),
            (self.stopped, "stopped"),
        ]
    }
}

pub fn totals<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Totals {
    let mut t = Totals::default();
    for o in outcomes {
        t.selected += 1;
        match o.label() {
            "drained" => t.drained += 1,
            other => t.rest.count(other),
        }
    }
    t
}

/// The `-o json` document of a drain (or of its dry run, with `outcome: "planned"`).
#[derive(Debug, Serialize)]
pub struct DrainDocument {
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    pub kind: &'static str,
    pub dry_run: bool,
    #[serde(flatten)]
    pub scene: Scene,
    pub exit_code: u8,
    pub totals: Totals,
    /// What GitHub's rate limits cost the run; present when GitHub refused a request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub github_rate_limits: Option<RateReport>,
    pub runners: Vec<RunnerResult>,
}

fn plan_label(step: &Step) -> &'static str {
    match step.action {
        Action::Drain {
            wait_first: true, ..
        } => "wait-then-drain",
        Action::Drain { .. } => "drain",
        Action::Skip(_) => "skip",
    }
}

/// The result document: every step with its outcome, or the plan alone (a dry run, where
/// `outcomes` is `None`).
pub fn document(
    scene: &Scene,
    code: u8,
    steps: &[Step],
    outcomes: Option<&[Outcome]>,
) -> DrainDocument {
    let runners = match outcomes {
        Some(os) => steps
            .iter()
            .zip(os)
            .map(|(s, o)| runner_result(s, Some(o)))
            .collect(),
        None => steps.iter().map(|s| runner_result(s, None)).collect(),
    };
    let totals = match outcomes {
        Some(os) => totals(os),
        None => Totals {
            selected: steps.len(),
            ..Totals::default()
        },
    };
    DrainDocument {
        api_version: "arcctl/v1",
        kind: "DrainResult",
        dry_run: outcomes.is_none(),
        scene: scene.clone(),
        exit_code: code,
        totals,
        github_rate_limits: None,
        runners,
    }
}

/// What a run's rate limits cost, for its result: `None` when GitHub refused nothing.
pub fn rate_limits(report: &RateReport) -> Option<RateReport> {
    (report.refused > 0).then_some(*report)
}

/// An unregister pace for people: `0.9/s`, `2/s`, `3/min`.
pub fn pace_text(per_second: f64) -> String {
    fn short(x: f64, decimals: usize) -> String {
        let s = format!("{x:.decimals$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            &s
        };
        s.to_owned()
    }
    if per_second >= 0.1 {
        format!("{}/s", short(per_second, 2))
    } else {
        format!("{}/min", short(per_second * 60.0, 1))
    }
}

/// The one line a rate-limit wait gets: why, how long, what then, and the new pace.
pub fn rate_limit_line(spell: &Spell) -> String {
    let wait = humantime::format_duration(spell.wait);
    let mut line = match spell.kind {
        LimitKind::Primary => format!(
            "GitHub rate limit (hourly quota used up): waiting {wait} until its reset, then probing"
        ),
        LimitKind::Secondary => {
            let mut notes = Vec::new();
            if spell.repeat > 0 {
                notes.push(format!("{} refusals in a row", spell.repeat + 1));
            }
            if !spell.told {
                notes.push("no retry-after".to_owned());
            }
            let again = if spell.repeat > 0 { " again" } else { "" };
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            };
            format!("GitHub secondary rate limit{again}{notes}: waiting {wait}, then probing")
        }
    };
    if spell.lowered
        && let Some(gap) = spell.spacing.filter(|g| !g.is_zero())
    {
        line.push_str(&format!(
            "; pace lowered to {}",
            pace_text(1.0 / gap.as_secs_f64())
        ));
    }
    line
}

/// The summary's line about rate limits, when GitHub refused anything.
pub fn rate_limit_summary(report: &RateReport) -> Option<String> {
    if report.refused == 0 {
        return None;
    }
    let mut line = format!(
        "GitHub rate limits: {} request{} refused, {} wait{} ({} in all)",
        report.refused,
        if report.refused == 1 { "" } else { "s" },
        report.waits,
        if report.waits == 1 { "" } else { "s" },
        humantime::format_duration(std::time::Duration::from_secs(report.waited_seconds))
    );
    if let Some(pace) = report.pace_per_second {
        line.push_str(&format!("; unregister pace at the end {}", pace_text(pace)));
    }
    line.push('\n');
    Some(line)
}

/// The dry run's line about the cordon, when there is one.
pub fn dry_run_cordon(node: &str) -> String {
    format!("would cordon node/{node} first\n")
}

/// What became of a runner, in full: the result document's `detail`.
pub fn detail(o: &Outcome) -> String {
    describe(o, false)
}

/// What the table and the event lines say of a runner: as [`detail`], but a denial only by
/// what was denied, since the error that ends the run gives its cause and hint.
pub fn brief_detail(o: &Outcome) -> String {
    describe(o, true)
}

fn failure_text(f: &Failure, brief: bool) -> String {
    if brief && f.is_denied() {
        format!("{}: permission denied", f.message)
    } else {
        one_line(f)
    }
}

fn describe(o: &Outcome, brief: bool) -> String {
    match o {
        Outcome::Drained { deleted, note } => match note {
            Some(n) => format!("{deleted} ({n})"),
            None => deleted.clone(),
        },
        Outcome::Skipped { reason } => reason.describe(),
        Outcome::Held {
            reason: Some(r),
            cause,
            ..
        } => match cause {
            Some(c) => format!("{r} ({}); unregistered, pod kept", failure_text(c, brief)),
            None => format!("{r}; unregistered, pod kept"),
        },
        Outcome::Held {
            job: Some(j),
            reason: None,
            ..
        } => format!("job \"{j}\" started during unregistration; pod kept"),
        Outcome::Held {
            job: None,
            reason: None,
            ..
        } => "a job started during unregistration; pod kept".into(),
        Outcome::Failed { failure } => failure_text(failure, brief),
        Outcome::TimedOut { stage } => format!("--timeout reached {stage}"),
        Outcome::Stopped { stage } => stage.clone(),
    }
}

pub fn runner_result(step: &Step, outcome: Option<&Outcome>) -> RunnerResult {
    let pod = step.candidate.pod.as_ref();
    let job = match outcome {
        Some(Outcome::Held { job, .. }) => job.clone(),
        _ => step.candidate.job.clone(),
    };
    RunnerResult {
        name: step.candidate.name.clone(),
        id: step.candidate.runner_id,
        namespace: pod.map(|p| p.namespace.clone()),
        node: pod.and_then(|p| p.node.clone()),
        state: step.candidate.state.as_str(),
        plan: plan_label(step),
        outcome: outcome.map_or("planned", Outcome::label),
        detail: outcome.map_or_else(|| describe_action(step), detail),
        job,
    }
}

/// How a run ended, for the lines after its summary table.
#[derive(Debug, Default)]
pub struct Ending<'a> {
    /// What GitHub's rate limits cost the run.
    pub rate_limits: Option<&'a RateReport>,
    /// A permission error stopped the run; it is rendered after the summary.
    pub denied: bool,
    /// Why the runners that are `stopped` stopped, when the run knows it better than their
    /// rows (`by Ctrl-C`); a denial says `by the permission error below`.
    pub stopped: Option<String>,
}

/// The end of a drain on stderr: the table, one totals line, the rate-limit line when GitHub
/// refused anything, then what to do about what remains (each said once: the rows are in the
/// table).
pub fn summary(outcomes: &[(Step, Outcome)], no_headers: bool, end: &Ending<'_>) -> String {
    let mut t = plain_table();
    if !no_headers {
        t.set_header(["RUNNER", "NAMESPACE", "NODE", "OUTCOME", "DETAIL"]);
    }
    for (s, o) in outcomes {
        let r = runner_result(s, Some(o));
        t.add_row([
            r.name,
            r.namespace.unwrap_or_else(|| "-".into()),
            r.node.unwrap_or_else(|| "-".into()),
            r.outcome.to_owned(),
            brief_detail(o),
        ]);
    }
    let tot = totals(outcomes.iter().map(|(_, o)| o));
    let mut out = if outcomes.is_empty() {
        String::new()
    } else {
        render(&mut t)
    };
    let mut counts = vec![(tot.drained, "drained")];
    counts.extend(tot.rest.parts());
    out.push_str(&totals_line(tot.selected, &counts));
    if let Some(line) = end.rate_limits.and_then(rate_limit_summary) {
        out.push_str(&line);
    }
    for line in next_steps(outcomes.iter().map(|(_, o)| o), "drain", end) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `N selected: A drained, B held`: the counts that are not zero, in the order given.
pub(crate) fn totals_line(selected: usize, counts: &[(usize, &str)]) -> String {
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if parts.is_empty() {
        format!("{selected} selected\n")
    } else {
        format!("{selected} selected: {}\n", parts.join(", "))
    }
}

/// `1 runner` / `3 runners`.
pub(crate) fn runners(n: usize) -> String {
    format!("{n} runner{}", if n == 1 { "" } else { "s" })
}

/// Why a runner held by a job is held, in the next steps.
const JOB_STARTED: &str = "a job started during unregistration";

/// What to do about what a run left undone, one line per kind of outcome: failures by the
/// first one's cause, held runners grouped by why, busy and timed-out runners with the flag
/// that drains them, stopped runners with why they stopped. `verb` is what running again does
/// (`drain`, `recreate`).
pub(crate) fn next_steps<'a>(
    outcomes: impl IntoIterator<Item = &'a Outcome>,
    verb: &str,
    end: &Ending<'_>,
) -> Vec<String> {
    let mut failed: Vec<&Failure> = Vec::new();
    let mut denied_failed = 0;
    // Held runners by why (in the order first seen), with the first one's cause.
    let mut held: Vec<(String, usize, Option<&Failure>)> = Vec::new();
    let (mut busy, mut timed_out, mut stopped) = (0, 0, 0);
    for o in outcomes {
        match o {
            Outcome::Failed { failure } if failure.is_denied() => denied_failed += 1,
            Outcome::Failed { failure } => failed.push(failure),
            Outcome::Held { reason, cause, .. } => {
                let why = reason.clone().unwrap_or_else(|| JOB_STARTED.into());
                match held.iter_mut().find(|(w, ..)| *w == why) {
                    Some((_, n, _)) => *n += 1,
                    None => held.push((why, 1, cause.as_ref())),
                }
            }
            Outcome::Skipped {
                reason: SkipReason::Busy { .. } | SkipReason::BusyAtUnregister,
            } => busy += 1,
            Outcome::TimedOut { .. } => timed_out += 1,
            Outcome::Stopped { .. } => stopped += 1,
            Outcome::Drained { .. } | Outcome::Skipped { .. } => {}
        }
    }
    let mut lines = Vec::new();
    if let Some(first) = failed.first() {
        let cause = first.causes.last().unwrap_or(&first.message);
        lines.push(if failed.len() == 1 {
            format!("1 failed: {cause}")
        } else {
            format!("{} failed, the first: {cause}; see the table", failed.len())
        });
    }
    if denied_failed > 0 && !end.denied {
        // No closing error will follow to say it (a caller that renders none): say it here.
        lines.push(format!("{denied_failed} failed: permission denied"));
    }
    for (why, n, cause) in held {
        let kept = match (why == JOB_STARTED, n == 1) {
            (true, true) => "unregistered, its pod kept until the job ends",
            (true, false) => "unregistered, their pods kept until their jobs end",
            (false, true) => "unregistered, its pod kept: it takes no new job",
            (false, false) => "unregistered, their pods kept: they take no new job",
        };
        let line = match cause {
            Some(c) if n == 1 => format!("1 held: {why} ({}); {kept}", failure_text(c, true)),
            Some(c) => format!(
                "{n} held: {why} (the first: {}); {kept}",
                failure_text(c, true)
            ),
            None => format!("{n} held: {why}; {kept}"),
        };
        lines.push(line);
    }
    if busy > 0 {
        lines.push(if busy == 1 {
            format!("1 runner was busy: run again with --wait to {verb} it as its job finishes")
        } else {
            format!(
                "{busy} runners were busy: run again with --wait to {verb} them as their jobs finish"
            )
        });
    }
    if timed_out > 0 {
        lines.push(format!(
            "{} timed out with nothing changed: run again with a longer --timeout",
            runners(timed_out)
        ));
    }
    if stopped > 0 {
        let why = if end.denied {
            "by the permission error below".to_owned()
        } else {
            end.stopped.clone().unwrap_or_default()
        };
        let sep = if why.is_empty() { "" } else { " " };
        lines.push(format!(
            "{} stopped{sep}{why}: run again to {verb} {}",
            runners(stopped),
            if stopped == 1 { "it" } else { "them" }
        ));
    }
    lines
}

/// Consumes drain events: progress bars on a terminal, one line per event otherwise, and the
/// audit log. Returns the first audit-log write error, if any.
pub async fn report(
    mut rx: mpsc::UnboundedReceiver<Event>,
    stderr: Stream,
    pres: Presentation,
    total: usize,
    mut audit: Option<AuditLog>,
) -> Result<()> {
    let mut lines = Lines::new(stderr, pres, total);
    let mut audit_error = None;
    while let Some(e) = rx.recv().await {
        if let (Event::Mutated(m), Some(log)) = (&e, audit.as_mut())
            && let Err(err) = log.record(m)
            && audit_error.is_none()
        {
            audit_error = Some(err);
        }
        lines.show(&e);
    }
    lines.finish();
    audit_error.map_or(Ok(()), Err)
}

/// The live view: either indicatif bars or kubectl-style event lines.
struct Lines {
    stderr: Stream,
    pres: Presentation,
    bars: Option<(MultiProgress, ProgressBar, ProgressBar)>,
    /// (runner, reason) pairs already announced, so polling doesn't repeat lines.
    said: BTreeSet<(String, String)>,
    waiting: BTreeMap<String, Option<String>>,
    in_flight: BTreeSet<String>,
}

impl Lines {
    fn new(stderr: Stream, pres: Presentation, total: usize) -> Self {
        let bars = pres.progress.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let style =
                ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} runners {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
            let main = multi.add(ProgressBar::new(total as u64).with_style(style));
            let status = multi.add(
                ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template("{spinner} {wide_msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                ),
            );
            (multi, main, status)
        });
        Lines {
            stderr,
            pres,
            bars,
            said: BTreeSet::new(),
            waiting: BTreeMap::new(),
            in_flight: BTreeSet::new(),
        }
    }

    fn say(&self, line: String) {
        if !self.pres.chatty {
            return;
        }
        match &self.bars {
            Some((multi, ..)) => {
                let _ = multi.println(line);
            }
            None => {
                let _ = self.stderr.write_str(&format!("{line}\n"));
            }
        }
    }

    fn once(&mut self, runner: &str, key: &str, line: String) {
        if self.said.insert((runner.to_owned(), key.to_owned())) {
            self.say(line);
        }
    }

    fn show(&mut self, e: &Event) {
        match e {
            Event::Cordoned { node, already } => self.say(if *already {
                format!("node/{node} already cordoned")
            } else {
                format!("node/{node} cordoned")
            }),
            Event::Started { runner } => {
                self.in_flight.insert(runner.clone());
            }
            Event::Unregistered { runner, status, .. } => {
                self.waiting.remove(runner);
                self.say(if *status == 404 {
                    format!("runner/{runner} already unregistered")
                } else {
                    format!("runner/{runner} unregistered")
                });
            }
            Event::Waiting {
                runner,
                reason,
                job,
            } => {
                let job_text = job
                    .as_ref()
                    .map_or(String::new(), |j| format!(": job \"{j}\""));
                match reason {
                    WaitReason::Busy => {
                        self.waiting.insert(runner.clone(), job.clone());
                        self.once(
                            runner,
                            "busy",
                            format!("runner/{runner} waiting (busy{job_text})"),
                        );
                    }
                    WaitReason::Held => {
                        self.waiting.insert(runner.clone(), job.clone());
                        self.once(
                            runner,
                            "held",
                            format!("runner/{runner} held (a job started during unregistration{job_text}); waiting for it to end"),
                        );
                    }
                    // The run's wait is told once, by `Event::RateLimited`.
                    WaitReason::RateLimited => {}
                    WaitReason::Refused => {
                        self.once(
                            runner,
                            "refused",
                            format!("runner/{runner} waiting (GitHub refused the unregister with 422; retrying after --poll-interval)"),
                        );
                    }
                    WaitReason::Retrying => {
                        self.once(
                            runner,
                            "retry",
                            format!("runner/{runner} retrying the unregister"),
                        );
                    }
                    WaitReason::ConfirmWindow => {}
                }
            }
            Event::Mutated(m) if m.action == "delete" => self.say(match m.status {
                404 => format!("{} already gone", m.target),
                409 => format!("{} replaced under the same name; left alone", m.target),
                _ => format!("{} deleted", m.target),
            }),
            Event::Mutated(_) => {}
            Event::MaybeUnregistered { runner } => self.say(format!(
                "runner/{runner} may be unregistered: GitHub's answer was lost"
            )),
            Event::Proven { runner, proof } => self.say(format!("runner/{runner} idle ({proof})")),
            Event::Note(line) => self.say(line.clone()),
            Event::RateLimited(spell) => self.say(rate_limit_line(spell)),
            Event::Finished { runner, outcome } => {
                self.in_flight.remove(runner);
                self.waiting.remove(runner);
                if !matches!(outcome, Outcome::Drained { .. }) {
                    self.say(format!(
                        "runner/{runner} {} ({})",
                        outcome.label(),
                        brief_detail(outcome)
                    ));
                }
                if let Some((_, main, _)) = &self.bars {
                    main.inc(1);
                }
            }
        }
        self.refresh_status();
    }

    fn refresh_status(&self) {
        if let Some((_, _, status)) = &self.bars {
            let waiting: Vec<String> = self
                .waiting
                .iter()
                .take(4)
                .map(|(r, j)| match j {
                    Some(j) => format!("{r} ({j})"),
                    None => r.clone(),
                })
                .collect();
            status.set_message(format!(
                "in flight: {} · waiting: {}{}",
                self.in_flight.len(),
                self.waiting.len(),
                if waiting.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", waiting.join(", "))
                }
            ));
        }
    }

    fn finish(&self) {
        if let Some((_, main, status)) = &self.bars {
            main.finish_and_clear();
            status.finish_and_clear();
        }
    }
}
