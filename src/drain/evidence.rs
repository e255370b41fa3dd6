//! Proving a runner idle after its unregister (pure).
//!
//! After GitHub's 204 no new job is assigned, but one may have started just before (the race of
//! docs/design.md §1), and its traces lag: the runner's `Running job:` line and the EphemeralRunner's
//! `status.jobId` appear seconds after the job began, and a dind image buries them under
//! dockerd's lines. So the drain does not ask "do I see a job?" but "is there proof that none
//! runs?", and reads the runner log by time, not by line count:
//!
//! - proof: the pod is gone or replaced; the runner container has terminated or never started;
//!   the runner logged that its registration was deleted (it only notices that while idle) with
//!   no job since; or a job that started after the unregister has completed;
//! - busy: a `Running job:` line without its completion since shortly before the unregister
//!   (and since the runner's last `Listening for Jobs`: when that is older, the log is read again
//!   from the container's start), or a job on the EphemeralRunner;
//! - neither: the caller waits out the confirm window and decides by absence — unless the log
//!   could not be read completely, which never counts as absence.
//!
//! [`Tracker`] reads the log incrementally: each answer (with kubelet timestamps) continues
//! where the previous one ended, so a long watch never re-reads, and a noisy log can never push
//! a job line out of view.

use jiff::Timestamp;

use crate::cluster::runner_log::{completed_job, started_job};
use crate::error::Failure;

/// What the runner prints when it learns, at its next message poll, that its registration is
/// gone (actions/runner's listener; docs/design.md §7.5). An idle runner then exits.
const REGISTRATION_DELETED: &str = "registration has been deleted";
/// What the runner prints when it waits for a job (at its start, and after each job of a
/// runner that is not ephemeral).
const LISTENING: &str = "Listening for Jobs";

/// The runner's pod as the idle check saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodNow {
    /// The pod with the expected uid is gone or was replaced.
    Gone,
    /// The runner container runs (or its state is not reported yet), since `started_at`.
    Running { started_at: Option<Timestamp> },
    /// The runner container has ended: nothing runs in it.
    Terminated { reason: Option<String> },
    /// The runner container is not running: it never started (`ContainerCreating`,
    /// `ImagePullBackOff`, …) or waits to restart.
    Waiting { reason: String },
}

/// The runner container's log since the time asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogRead {
    /// Lines, each after its kubelet timestamp; `complete` is false when the byte cap cut it.
    Text { text: String, complete: bool },
    /// The log could not be read (why).
    Unreadable(Failure),
}

/// One look at a runner: its pod, its log since [`Tracker::read_from`], its ARC job field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub pod: PodNow,
    pub log: LogRead,
    /// The job ARC recorded on the EphemeralRunner (`status.jobId`, by display name).
    pub recorded_job: Option<String>,
}

/// Why a runner is proven idle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The runner container has terminated.
    Exited,
    /// The runner container is not running (why: the kubelet's reason).
    NotRunning(String),
    /// The runner logged that its registration was deleted, and no job started since.
    RegistrationGone,
    /// A job that started around the unregister has completed (`--wait`).
    JobCompleted(String),
    /// No trace of a job in the whole confirm window: proof by absence.
    Quiet,
}

impl Proof {
    /// Words for the summary ("drained (…)").
    pub fn describe(&self) -> String {
        match self {
            Proof::Exited => "runner exited".into(),
            Proof::NotRunning(reason) => format!("runner container not running: {reason}"),
            Proof::RegistrationGone => "runner saw its registration deleted".into(),
            Proof::JobCompleted(job) => format!("job \"{job}\" completed"),
            Proof::Quiet => "no job seen in the confirm window".into(),
        }
    }
}

/// What one observation shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The pod is gone or replaced.
    Gone,
    /// Nothing runs, with proof.
    Idle(Proof),
    /// A job runs.
    Busy(String),
    /// No proof either way yet. `Some(why)` when part of the evidence could not be seen (an
    /// unreadable log, or a log cut by the byte cap): then absence proves nothing.
    Unproven(Option<Unseen>),
}

/// Evidence the idle check could not see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unseen {
    /// The byte cap cut the log; the rest can be read from [`Tracker::read_from`].
    Cut,
    /// The runner's last `Listening for Jobs` is older than the read; the log is read again
    /// from the container's start.
    Earlier,
    /// The log could not be read (why).
    Unreadable(Failure),
}

impl Unseen {
    /// Why the runner is not proven idle, the same for every runner it happens to (so the end
    /// of a run can group them); [`Unseen::cause`] says what went wrong for this one.
    pub fn describe(&self) -> String {
        match self {
            Unseen::Cut => "not proven idle: the runner log is larger than the read limit".into(),
            Unseen::Earlier => {
                "not proven idle: the runner log since its start could not be read".into()
            }
            Unseen::Unreadable(_) => "not proven idle: the runner log could not be read".into(),
        }
    }

    /// The error behind it, when there is one.
    pub fn cause(&self) -> Option<&Failure> {
        match self {
            Unseen::Unreadable(f) => Some(f),
            Unseen::Cut | Unseen::Earlier => None,
        }
    }
}

/// The log read so far, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracker {
    /// Lines stamped before this are read.
    from: Timestamp,
    /// Where the watch began.
    from_first: Timestamp,
    /// How many lines stamped exactly `from` were read.
    read_at_from: usize,
    /// The job started without a completion yet.
    job: Option<String>,
    /// The last job that started and then completed while watched.
    completed: Option<String>,
    /// The runner reported its registration deleted, and no job started after that.
    registration_gone: bool,
    /// A `Listening for Jobs` line was read: everything since the runner last waited for a
    /// job is in view.
    saw_listening: bool,
    /// The read went back to the container's start already.
    rewound: bool,
}

impl Tracker {
    /// Watches the log from `from` on (shortly before the unregister).
    pub fn new(from: Timestamp) -> Self {
        Tracker {
            from,
            from_first: from,
            read_at_from: 0,
            job: None,
            completed: None,
            registration_gone: false,
            saw_listening: false,
            rewound: false,
        }
    }

    /// Reads again from `start` (the container's start), once: the runner's last `Listening
    /// for Jobs` was before the first read, so a job may have started before it too.
    fn rewind(&mut self, start: Timestamp) -> bool {
        if self.rewound || self.saw_listening || start >= self.from_first {
            return false;
        }
        *self = Tracker {
            rewound: true,
            ..Tracker::new(start)
        };
        true
    }

    /// Where the next read starts. Lines stamped exactly here that were read already are
    /// skipped, so the caller may ask for any earlier `sinceTime` (the API rounds it to whole
    /// seconds).
    pub fn read_from(&self) -> Timestamp {
        self.from
    }

    /// Takes in one answer. A line cut by the byte cap (the last one, without its newline) is
    /// left for the next read.
    pub fn feed(&mut self, text: &str, complete: bool) {
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        if !complete && lines.last().is_some_and(|l| !l.ends_with('\n')) {
            lines.pop();
        }
        let mut at_from = 0;
        for raw in lines {
            let line = raw.trim_end_matches(['\n', '\r']);
            let Some((stamp, content)) = line.split_once(' ') else {
                continue;
            };
            let Ok(at) = stamp.parse::<Timestamp>() else {
                continue;
            };
            if at < self.from {
                continue;
            }
            if at == self.from {
                at_from += 1;
                if at_from <= self.read_at_from {
                    continue;
                }
                self.read_at_from = at_from;
            } else {
                self.from = at;
                self.read_at_from = 1;
                at_from = 1;
            }
            self.take(content);
        }
    }

    fn take(&mut self, content: &str) {
        if let Some(name) = started_job(content) {
            self.job = Some(name.to_owned());
            self.registration_gone = false;
        } else if let Some(name) = completed_job(content) {
            if self.job.as_deref() == Some(name) {
                self.completed = self.job.take();
            }
        } else if content.contains(REGISTRATION_DELETED) && self.job.is_none() {
            self.registration_gone = true;
        } else if content.contains(LISTENING) {
            self.saw_listening = true;
        }
    }

    /// The job running according to the log read so far.
    pub fn job(&self) -> Option<&str> {
        self.job.as_deref()
    }
}

/// Judges one observation, feeding its log to `tracker` first.
pub fn judge(tracker: &mut Tracker, obs: Observation) -> Verdict {
    let started_at = match obs.pod {
        PodNow::Gone => return Verdict::Gone,
        // Nothing can run in a container that is not running; a job it ran is over.
        PodNow::Terminated { .. } => return Verdict::Idle(Proof::Exited),
        PodNow::Waiting { reason } => return Verdict::Idle(Proof::NotRunning(reason)),
        PodNow::Running { started_at } => started_at,
    };
    let unseen = match obs.log {
        LogRead::Text { text, complete } => {
            tracker.feed(&text, complete);
            (!complete).then_some(Unseen::Cut)
        }
        LogRead::Unreadable(why) => Some(Unseen::Unreadable(why)),
    };
    if let Some(job) = tracker.job() {
        return Verdict::Busy(job.to_owned());
    }
    if unseen.is_none() && started_at.is_some_and(|t| tracker.rewind(t)) {
        return Verdict::Unproven(Some(Unseen::Earlier));
    }
    if let Some(job) = &tracker.completed {
        return Verdict::Idle(Proof::JobCompleted(job.clone()));
    }
    if let Some(job) = obs.recorded_job {
        return Verdict::Busy(job);
    }
    if unseen.is_none() && tracker.registration_gone {
        return Verdict::Idle(Proof::RegistrationGone);
    }
    Verdict::Unproven(unseen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: u32, nanos: u32) -> Timestamp {
        format!("2026-12-01T12:00:{s:02}.{nanos:09}Z")
            .parse()
            .unwrap()
    }

    fn line(at: Timestamp, text: &str) -> String {
        format!("{at} 2026-12-01 12:00:00Z: {text}\n")
    }

    fn noise(at: Timestamp) -> String {
        format!("{at} time=\"{at}\" level=info msg=\"loading plugin\"\n")
    }

    fn running(log: String) -> Observation {
        Observation {
            pod: PodNow::Running { started_at: None },
            log: LogRead::Text {
                text: log,
                complete: true,
            },
            recorded_job: None,
        }
    }

    #[test]
    fn pod_states_that_prove_idle_need_no_log() {
        let mut t = Tracker::new(ts(0, 0));
        let unreadable = |pod| Observation {
            pod,
            log: LogRead::Unreadable(Failure::failed("400")),
            recorded_job: Some("build".into()),
        };
        assert_eq!(judge(&mut t, unreadable(PodNow::Gone)), Verdict::Gone);
        assert_eq!(
            judge(&mut t, unreadable(PodNow::Terminated { reason: None })),
            Verdict::Idle(Proof::Exited)
        );
        assert_eq!(
            judge(
                &mut t,
                unreadable(PodNow::Waiting {
                    reason: "ContainerCreating".into()
                })
            ),
            Verdict::Idle(Proof::NotRunning("ContainerCreating".into()))
        );
    }

    #[test]
    fn a_quiet_log_proves_nothing_by_itself() {
        let mut t = Tracker::new(ts(0, 0));
        let log = line(ts(1, 0), "Listening for Jobs") + &noise(ts(2, 0));
        assert_eq!(judge(&mut t, running(log)), Verdict::Unproven(None));
    }

    #[test]
    fn registration_deleted_with_no_job_is_proof() {
        let mut t = Tracker::new(ts(0, 0));
        let log = line(
            ts(3, 0),
            "The runner registration has been deleted from the server, please re-configure.",
        );
        assert_eq!(
            judge(&mut t, running(log)),
            Verdict::Idle(Proof::RegistrationGone)
        );
    }

    #[test]
    fn a_job_line_buried_under_noise_is_still_seen() {
        let mut t = Tracker::new(ts(0, 0));
        let mut log = line(ts(0, 500), "Running job: build-7");
        for i in 1..2_000u32 {
            log.push_str(&noise(ts(1 + i / 100, (i % 100) * 1000)));
        }
        assert_eq!(judge(&mut t, running(log)), Verdict::Busy("build-7".into()));
        // Later reads carry only noise: the job is still running.
        let more = noise(ts(30, 0));
        assert_eq!(
            judge(&mut t, running(more)),
            Verdict::Busy("build-7".into())
        );
    }

    #[test]
    fn a_job_is_released_only_by_its_completion() {
        let mut t = Tracker::new(ts(0, 0));
        judge(&mut t, running(line(ts(1, 0), "Running job: e2e")));
        // A completion of another job changes nothing.
        let other = line(ts(2, 0), "Job lint completed with result: Succeeded");
        assert_eq!(judge(&mut t, running(other)), Verdict::Busy("e2e".into()));
        let done = line(ts(9, 0), "Job e2e completed with result: Succeeded");
        assert_eq!(
            judge(&mut t, running(done)),
            Verdict::Idle(Proof::JobCompleted("e2e".into()))
        );
    }

    #[test]
    fn a_job_after_the_deletion_notice_wins() {
        let mut t = Tracker::new(ts(0, 0));
        let log = line(
            ts(1, 0),
            "The runner registration has been deleted from the server",
        ) + &line(ts(2, 0), "Running job: deploy");
        assert_eq!(judge(&mut t, running(log)), Verdict::Busy("deploy".into()));
        // A notice while a job runs is not proof.
        let mut t = Tracker::new(ts(0, 0));
        let log = line(ts(1, 0), "Running job: deploy")
            + &line(
                ts(2, 0),
                "The runner registration has been deleted from the server",
            );
        assert_eq!(judge(&mut t, running(log)), Verdict::Busy("deploy".into()));
    }

    #[test]
    fn the_recorded_job_counts_when_the_log_has_none() {
        let mut t = Tracker::new(ts(0, 0));
        let mut obs = running(line(
            ts(1, 0),
            "The runner registration has been deleted from the server",
        ));
        obs.recorded_job = Some("build-9".into());
        assert_eq!(judge(&mut t, obs), Verdict::Busy("build-9".into()));
    }

    #[test]
    fn an_unreadable_or_cut_log_is_never_proof() {
        let mut t = Tracker::new(ts(0, 0));
        let obs = Observation {
            pod: PodNow::Running { started_at: None },
            log: LogRead::Unreadable(Failure::failed("timed out")),
            recorded_job: None,
        };
        assert_eq!(
            judge(&mut t, obs),
            Verdict::Unproven(Some(Unseen::Unreadable(Failure::failed("timed out"))))
        );
        // Cut: even a deletion notice inside the part read proves nothing yet.
        let mut t = Tracker::new(ts(0, 0));
        let text = line(
            ts(1, 0),
            "The runner registration has been deleted from the server",
        ) + "2026-12-01T12:00:02.000000000Z 2026-12-01 12:00:02Z: Running j";
        let obs = Observation {
            pod: PodNow::Running { started_at: None },
            log: LogRead::Text {
                text,
                complete: false,
            },
            recorded_job: None,
        };
        assert_eq!(judge(&mut t, obs), Verdict::Unproven(Some(Unseen::Cut)));
        // The cut line is read again from where the last whole line ended.
        assert_eq!(t.read_from(), ts(1, 0));
        let rest = line(
            ts(1, 0),
            "The runner registration has been deleted from the server",
        ) + &line(ts(2, 0), "Running job: build");
        assert_eq!(judge(&mut t, running(rest)), Verdict::Busy("build".into()));
    }

    #[test]
    fn rereads_skip_lines_already_read_even_at_the_same_instant() {
        let mut t = Tracker::new(ts(0, 0));
        let same = ts(5, 0);
        let first =
            line(same, "Running job: a") + &line(same, "Job a completed with result: Succeeded");
        assert_eq!(
            judge(&mut t, running(first.clone())),
            Verdict::Idle(Proof::JobCompleted("a".into()))
        );
        // The API answers from a whole second earlier: the same two lines come again, then a
        // new one at the same instant.
        let again = line(ts(4, 0), "Listening for Jobs") + &first + &line(same, "Running job: b");
        assert_eq!(judge(&mut t, running(again)), Verdict::Busy("b".into()));
        assert_eq!(t.read_from(), same);
    }

    #[test]
    fn lines_before_the_watch_began_are_ignored() {
        let mut t = Tracker::new(ts(10, 0));
        let old = line(ts(2, 0), "Running job: old");
        assert_eq!(judge(&mut t, running(old)), Verdict::Unproven(None));
    }

    fn started(at: Timestamp, log: String) -> Observation {
        Observation {
            pod: PodNow::Running {
                started_at: Some(at),
            },
            ..running(log)
        }
    }

    #[test]
    fn a_runner_listening_since_before_the_read_is_read_again_from_its_start() {
        // Watch from 0:30; the container started at 0:01 and its `Listening for Jobs` is older
        // than the watch, so a job it started then would not be in view.
        let mut t = Tracker::new(ts(30, 0));
        let quiet = noise(ts(31, 0));
        assert_eq!(
            judge(&mut t, started(ts(1, 0), quiet.clone())),
            Verdict::Unproven(Some(Unseen::Earlier))
        );
        assert_eq!(t.read_from(), ts(1, 0));
        let whole =
            line(ts(1, 0), "Listening for Jobs") + &line(ts(3, 0), "Running job: nightly") + &quiet;
        assert_eq!(
            judge(&mut t, started(ts(1, 0), whole)),
            Verdict::Busy("nightly".into())
        );
    }

    #[test]
    fn the_read_goes_back_once_and_only_when_needed() {
        // `Listening for Jobs` in view: nothing older matters.
        let mut t = Tracker::new(ts(30, 0));
        let log = line(ts(31, 0), "Listening for Jobs");
        assert_eq!(
            judge(&mut t, started(ts(1, 0), log)),
            Verdict::Unproven(None)
        );
        // Started after the watch began: all of its log is in view.
        let mut t = Tracker::new(ts(30, 0));
        assert_eq!(
            judge(&mut t, started(ts(40, 0), noise(ts(41, 0)))),
            Verdict::Unproven(None)
        );
        // Gone back once and still no `Listening for Jobs` (rotated away): no second rewind.
        let mut t = Tracker::new(ts(30, 0));
        let first = judge(&mut t, started(ts(1, 0), noise(ts(31, 0))));
        assert_eq!(first, Verdict::Unproven(Some(Unseen::Earlier)));
        assert_eq!(
            judge(&mut t, started(ts(1, 0), noise(ts(31, 0)))),
            Verdict::Unproven(None)
        );
    }
}
