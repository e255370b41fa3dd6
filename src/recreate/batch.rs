//! Batch sizes (`--batch-size N|P%`) and the order runners are recreated in. Pure.

use crate::drain::plan::{Action, Step};
use crate::error::{Error, Result};

/// `--batch-size`: a count, or a percentage of the runners to recreate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSize {
    Count(usize),
    Percent(u32),
}

impl BatchSize {
    /// Parses `5` or `25%`; zero, above 100 % and anything else are usage errors.
    pub fn parse(text: &str) -> Result<BatchSize> {
        let t = text.trim();
        let bad = || {
            Error::usage(format!("`{text}` is not a valid --batch-size")).with_hint(
                "give a number of runners (`5`) or a percentage of the selection (`25%`)",
            )
        };
        if let Some(p) = t.strip_suffix('%') {
            let p: u32 = p.trim().parse().map_err(|_| bad())?;
            if p == 0 || p > 100 {
                return Err(bad());
            }
            Ok(BatchSize::Percent(p))
        } else {
            let n: usize = t.parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            Ok(BatchSize::Count(n))
        }
    }

    /// The number of runners per batch for `total` runners to recreate (at least 1; a
    /// percentage rounds up, so `10%` of 5 runners is 1).
    pub fn resolve(self, total: usize) -> usize {
        match self {
            BatchSize::Count(n) => n,
            BatchSize::Percent(p) => (total * p as usize).div_ceil(100),
        }
        .max(1)
    }
}

impl std::fmt::Display for BatchSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchSize::Count(n) => write!(f, "{n}"),
            BatchSize::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// The indices of the steps to recreate, in the order they are taken: idle (and offline)
/// runners first, then busy runners waited for with `--wait`, so a batch of idle runners never
/// waits behind a long job. Skipped steps are not in it.
pub fn queue(steps: &[Step]) -> Vec<usize> {
    let now = steps.iter().enumerate().filter(|(_, s)| {
        matches!(
            s.action,
            Action::Drain {
                wait_first: false,
                ..
            }
        )
    });
    let later = steps.iter().enumerate().filter(|(_, s)| {
        matches!(
            s.action,
            Action::Drain {
                wait_first: true,
                ..
            }
        )
    });
    now.chain(later).map(|(i, _)| i).collect()
}

/// The batch number (1-based) each step would be in if every batch went through at full size,
/// for `--dry-run`; `None` for steps that are skipped.
pub fn planned(steps: &[Step], size: usize) -> Vec<Option<usize>> {
    let mut out = vec![None; steps.len()];
    for (pos, i) in queue(steps).into_iter().enumerate() {
        out[i] = Some(pos / size.max(1) + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drain::plan::{Candidate, DeleteTarget, SkipReason, State};

    fn step(name: &str, action: Action) -> Step {
        Step {
            candidate: Candidate {
                name: name.into(),
                runner_id: Some(1),
                state: State::Idle,
                job: None,
                pod: None,
            },
            action,
        }
    }

    fn drain(wait_first: bool) -> Action {
        Action::Drain {
            runner_id: 1,
            target: DeleteTarget::Pod {
                namespace: "ns".into(),
                name: "p".into(),
                uid: "u".into(),
                annotate: false,
            },
            wait_first,
        }
    }

    #[test]
    fn counts_and_percentages_parse() {
        assert_eq!(BatchSize::parse("5").unwrap(), BatchSize::Count(5));
        assert_eq!(BatchSize::parse("25%").unwrap(), BatchSize::Percent(25));
        assert_eq!(BatchSize::parse(" 100% ").unwrap(), BatchSize::Percent(100));
        for bad in ["0", "0%", "101%", "-1", "five", "", "%", "2.5"] {
            let e = BatchSize::parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
    }

    #[test]
    fn percentages_round_up_and_never_reach_zero() {
        assert_eq!(BatchSize::Percent(10).resolve(5), 1);
        assert_eq!(BatchSize::Percent(25).resolve(30), 8);
        assert_eq!(BatchSize::Percent(100).resolve(30), 30);
        assert_eq!(BatchSize::Percent(50).resolve(0), 1);
        assert_eq!(BatchSize::Count(5).resolve(2), 5);
    }

    #[test]
    fn idle_runners_come_before_waited_ones_and_skips_are_left_out() {
        let steps = vec![
            step("busy", drain(true)),
            step("a", drain(false)),
            step("skip", Action::Skip(SkipReason::PodOnly)),
            step("b", drain(false)),
            step("c", drain(false)),
        ];
        assert_eq!(queue(&steps), vec![1, 3, 4, 0]);
        assert_eq!(
            planned(&steps, 2),
            vec![Some(2), Some(1), None, Some(1), Some(2)]
        );
    }
}
