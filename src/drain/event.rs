//! What a drain reports while it runs, and how each runner ended.
//!
//! The pipeline emits events; `output` turns them into progress bars, event lines, the audit
//! log and the summary. Nothing in the pipeline prints.

use serde::Serialize;

use crate::drain::pacer::Spell;
use crate::drain::plan::SkipReason;
use crate::error::Failure;

/// Why a runner is waiting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitReason {
    /// Busy with a job (`--wait`).
    Busy,
    /// Unregistered, watching for the confirm window.
    ConfirmWindow,
    /// A job started during unregistration (`--wait`).
    Held,
    /// GitHub refused the unregister with a 422 that is not "still running a job".
    Refused,
    /// GitHub refused its request over a rate limit (the run's wait is told once, by
    /// [`Event::RateLimited`]).
    RateLimited,
    /// A transient failure; retrying.
    Retrying,
}

/// One mutating API call, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutation {
    /// `unregister`, `annotate`, `delete` or `cordon`.
    pub action: &'static str,
    /// `runner/NAME`, `pod/NS/NAME`, `ephemeralrunner/NS/NAME` or `node/NAME`.
    pub target: String,
    pub runner_id: Option<u64>,
    /// The HTTP status (0 when no response came).
    pub status: u16,
}

/// How one runner ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Unregistered, confirmed idle, and its pod or ARC object deleted (or already gone).
    Drained {
        deleted: String,
        note: Option<String>,
    },
    /// Left alone: busy (in the list or GitHub's 422), or not a complete runner.
    Skipped { reason: SkipReason },
    /// Unregistered, but not proven idle: a job started on it during unregistration, or the
    /// evidence could not be seen (`reason`, the same words for every runner it happens to,
    /// and `cause`, the error behind it for this one). Pod kept.
    Held {
        job: Option<String>,
        reason: Option<String>,
        cause: Option<Failure>,
    },
    /// Something failed; the pod was not touched after the failure.
    Failed { failure: Failure },
    /// `--timeout` was reached while waiting.
    TimedOut { stage: String },
    /// Ctrl-C, or another runner's permission error, stopped it in a safe state.
    Stopped { stage: String },
}

impl Outcome {
    /// Short label for tables and event lines.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Drained { .. } => "drained",
            Outcome::Skipped {
                reason: SkipReason::Busy { .. } | SkipReason::BusyAtUnregister,
            } => "skipped-busy",
            Outcome::Skipped { .. } => "skipped",
            Outcome::Held { .. } => "held",
            Outcome::Failed { .. } => "failed",
            Outcome::TimedOut { .. } => "timed-out",
            Outcome::Stopped { .. } => "stopped",
        }
    }

    /// Whether the runner still needs attention (for the exit code and the next steps).
    pub fn is_pending(&self) -> bool {
        !matches!(self, Outcome::Drained { .. })
            && !matches!(
                self,
                Outcome::Skipped {
                    reason: SkipReason::PodOnly
                        | SkipReason::RegistrationOnly
                        | SkipReason::Conflict
                }
            )
    }
}

/// Something that happened during a drain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The node was cordoned (`already`: it was before).
    Cordoned { node: String, already: bool },
    /// A runner's pipeline started.
    Started { runner: String },
    /// GitHub accepted the unregister.
    Unregistered {
        runner: String,
        id: u64,
        status: u16,
    },
    /// The runner is waiting.
    Waiting {
        runner: String,
        reason: WaitReason,
        job: Option<String>,
    },
    /// The unregister's answer was lost and its retries failed: GitHub may have removed the
    /// runner (recreate counts it as out of service).
    MaybeUnregistered { runner: String },
    /// The runner was proven idle after its unregister (how).
    Proven { runner: String, proof: String },
    /// A mutating call was made (for the audit log).
    Mutated(Mutation),
    /// The runner's pipeline ended.
    Finished { runner: String, outcome: Outcome },
    /// GitHub refused a request over a rate limit and a wait began: every GitHub call waits,
    /// then one probe goes alone (told once per wait, not per runner).
    RateLimited(Spell),
    /// A line from the command driving the pipeline (recreate's batches and replacements),
    /// shown in order with the other event lines.
    Note(String),
}
