//! `arcctl sandbox --demo`: a populated world with live job traffic, shown to a newcomer in
//! under a minute: the runners per node, a few lines of traffic, then the verdict.
//!
//! The demo is a list of [`Step`]s that the `sandbox` command plays against one sandbox: the
//! world, live traffic, then `arcctl drain --node node-1 --wait` inside it with the traffic on,
//! and the verdict (no job killed). This file holds what the demo is; `mod.rs` prints it.

use std::time::Duration;

use arcctl_sandbox::world::{EventKind, WorldEvent};
use arcctl_sandbox::{DurationRange, Options};

/// How many traffic lines the demo prints at most (killed jobs are always printed).
const MAX_TRAFFIC_LINES: usize = 16;

/// One thing the demo does.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Print the runners per node under this title.
    Overview(&'static str),
    /// Print job traffic as it happens for this long.
    Watch(Duration),
    /// Run `arcctl` with these arguments inside the world, traffic still on.
    Arcctl(&'static [&'static str]),
}

/// The drain the demo runs: a node taken out for maintenance (cordoned, its runners drained,
/// busy ones waited for), with a short confirm window so a newcomer sees the whole pipeline
/// within the minute.
pub(crate) const DRAIN: &[&str] = &[
    "drain",
    "--node",
    "node-1",
    "--yes",
    "--wait",
    "--timeout",
    "45s",
    "--confirm-window",
    "2s",
    "--poll-interval",
    "1s",
    "--max-unregister-rate",
    "5/s",
];

/// The demo, step by step.
pub(crate) const STEPS: [Step; 5] = [
    Step::Overview("the world at start"),
    Step::Watch(Duration::from_secs(8)),
    Step::Arcctl(DRAIN),
    Step::Watch(Duration::from_secs(3)),
    Step::Overview("the world now"),
];

/// The demo's world: 24 runners, 30 % busy, about a job a second of 3 to 12 seconds.
pub(crate) fn options(mut args: Options) -> Options {
    args.runners = 24;
    args.busy = 0.3;
    args.job_rate = 1.0;
    args.job_duration = DurationRange {
        min: Duration::from_secs(3),
        max: Duration::from_secs(12),
    };
    args
}

/// The first line: what world this is.
pub(crate) fn intro(args: &Options) -> String {
    let mode = clap::ValueEnum::to_possible_value(&args.mode)
        .map_or_else(String::new, |v| v.get_name().to_owned());
    format!(
        "arcctl sandbox demo: organization `{}`, {} runners ({mode} mode) on {} nodes, \
         ~{} jobs/s of 3-12 s\n",
        args.org, args.runners, args.nodes, args.job_rate
    )
}

/// The last words: how to go on from here.
pub(crate) const OUTRO: &str = "\
explore a world yourself: run `arcctl sandbox --busy 0.3 --job-rate 1` in one terminal,
paste its export lines into another and try `kubectl get pods,ephemeralrunners`;
or run a command in a world and read its verdict:
`arcctl sandbox --busy 0.5 -- kubectl delete pods --all -n arc-runners`

";

/// Picks the traffic lines worth showing, spread over a watch: a few at once, then about one
/// a second; a killed job always.
#[derive(Debug, Default)]
pub(crate) struct Traffic {
    printed: usize,
    /// Job events not shown.
    pub(crate) unprinted: usize,
}

impl Traffic {
    /// The line for `event`, `elapsed` into the watch, or `None` to skip it.
    pub(crate) fn line(&mut self, event: &WorldEvent, elapsed: Duration) -> Option<String> {
        let killed = matches!(event.what, EventKind::JobKilled { .. });
        let job = killed
            || matches!(
                event.what,
                EventKind::JobStarted { .. } | EventKind::JobCompleted { .. }
            );
        if !job {
            return None;
        }
        let budget = (3 + elapsed.as_secs() as usize).min(MAX_TRAFFIC_LINES);
        if killed || self.printed < budget {
            self.printed += 1;
            Some(format!("  {}  {}\n", event.at, event.what))
        } else {
            self.unprinted += 1;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, what: EventKind) -> WorldEvent {
        WorldEvent {
            seq,
            at: "2026-11-29T21:30:00Z".to_owned(),
            what,
        }
    }

    #[test]
    fn traffic_lines_are_spread_and_kills_always_shown() {
        let mut t = Traffic::default();
        let started = |n| {
            event(
                n,
                EventKind::JobStarted {
                    job: format!("build-{n}"),
                    runner: "r".into(),
                },
            )
        };
        let shown = (0..10)
            .filter(|n| t.line(&started(*n), Duration::ZERO).is_some())
            .count();
        assert_eq!((shown, t.unprinted), (3, 7));
        let online = event(11, EventKind::RunnerOnline { runner: "r".into() });
        assert!(t.line(&online, Duration::from_secs(5)).is_none());
        let killed = event(
            12,
            EventKind::JobKilled {
                job: "build-1".into(),
                runner: "r".into(),
            },
        );
        let line = t.line(&killed, Duration::ZERO).unwrap();
        assert!(line.contains("job build-1 KILLED on r"), "{line}");
        assert!(t.line(&started(13), Duration::from_secs(1)).is_none());
        assert!(t.line(&started(14), Duration::from_secs(9)).is_some());
    }
}
