//! GitHub's primary (hourly) and secondary (points per minute) rate limits, with exact and
//! deterministic accounting on an injectable clock.

use std::collections::VecDeque;
use std::time::Duration;

/// Requests per hour for an authenticated user or App installation (`x-ratelimit-limit`).
pub(crate) const PRIMARY_LIMIT: u64 = 5_000;
const PRIMARY_WINDOW_SECS: u64 = 3_600;
const SECONDARY_WINDOW: Duration = Duration::from_secs(60);
/// GitHub's secondary limit on concurrent requests, enforced with `--secondary-limit`.
pub(crate) const MAX_CONCURRENT: usize = 100;

/// The `x-ratelimit-*` values of one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quota {
    pub(crate) limit: u64,
    pub(crate) remaining: u64,
    pub(crate) used: u64,
    /// End of the current window, Unix epoch seconds.
    pub(crate) reset: u64,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The hourly quota is spent.
    Primary,
    /// The secondary limit: retry after this many seconds.
    Secondary { retry_after: u64 },
}

/// Both limits of one fake GitHub.
#[derive(Debug)]
pub(crate) struct Limits {
    /// Start of the current hourly window (epoch seconds), if one is open.
    primary_start: Option<u64>,
    primary_used: u64,
    secondary: Option<Secondary>,
    /// Admitted requests not yet answered.
    in_flight: usize,
}

impl Limits {
    pub(crate) fn new(secondary_points_per_minute: Option<u32>) -> Self {
        Limits {
            primary_start: None,
            primary_used: 0,
            secondary: secondary_points_per_minute.map(Secondary::new),
            in_flight: 0,
        }
    }

    /// The quota as it stands, without spending any of it (for unauthenticated answers).
    pub(crate) fn peek(&mut self, now: Duration) -> Quota {
        self.roll_primary(now);
        self.quota(now)
    }

    /// Counts an authenticated request costing `points` at `now`: first against the hourly
    /// quota, then (with a secondary limit) against the concurrency cap and the points window.
    /// An admitted request is in flight until [`Limits::release`].
    pub(crate) fn admit(&mut self, now: Duration, points: u32) -> (Quota, Result<(), Refusal>) {
        self.roll_primary(now);
        if self.primary_used >= PRIMARY_LIMIT {
            return (self.quota(now), Err(Refusal::Primary));
        }
        self.primary_start.get_or_insert(now.as_secs());
        self.primary_used += 1;
        let quota = self.quota(now);
        let verdict = match &mut self.secondary {
            // A slot frees as soon as any request in flight is answered: a second is plenty.
            Some(_) if self.in_flight >= MAX_CONCURRENT => {
                Err(Refusal::Secondary { retry_after: 1 })
            }
            Some(window) => window
                .admit(now, points)
                .map_err(|retry_after| Refusal::Secondary { retry_after }),
            None => Ok(()),
        };
        if verdict.is_ok() {
            self.in_flight += 1;
        }
        (quota, verdict)
    }

    /// Ends an admitted request (answered, or abandoned by its client).
    pub(crate) fn release(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Closes the hourly window once its reset time has come.
    fn roll_primary(&mut self, now: Duration) {
        if let Some(start) = self.primary_start
            && now.as_secs() >= start + PRIMARY_WINDOW_SECS
        {
            self.primary_start = None;
            self.primary_used = 0;
        }
    }

    fn quota(&self, now: Duration) -> Quota {
        let start = self.primary_start.unwrap_or(now.as_secs());
        Quota {
            limit: PRIMARY_LIMIT,
            remaining: PRIMARY_LIMIT.saturating_sub(self.primary_used),
            used: self.primary_used,
            reset: start + PRIMARY_WINDOW_SECS,
        }
    }
}

/// A sliding 60 s window of points.
#[derive(Debug)]
struct Secondary {
    limit: u64,
    /// (when, points) of admitted requests still in the window, oldest first.
    spent: VecDeque<(Duration, u64)>,
    total: u64,
}

impl Secondary {
    fn new(points_per_minute: u32) -> Self {
        Secondary {
            limit: u64::from(points_per_minute),
            spent: VecDeque::new(),
            total: 0,
        }
    }

    /// Admits `points` at `now`, or returns the whole seconds after which they would fit.
    fn admit(&mut self, now: Duration, points: u32) -> Result<(), u64> {
        let points = u64::from(points);
        // An entry counts while now < when + 60 s.
        while let Some(&(when, p)) = self.spent.front() {
            if when + SECONDARY_WINDOW > now {
                break;
            }
            self.spent.pop_front();
            self.total -= p;
        }
        if self.total + points <= self.limit {
            self.spent.push_back((now, points));
            self.total += points;
            return Ok(());
        }
        if points > self.limit {
            return Err(SECONDARY_WINDOW.as_secs());
        }
        // The earliest moment enough old entries have left the window.
        let mut left = self.total;
        for &(when, p) in &self.spent {
            left -= p;
            if left + points <= self.limit {
                let wait = (when + SECONDARY_WINDOW).saturating_sub(now);
                return Err(ceil_secs(wait).max(1));
            }
        }
        Err(SECONDARY_WINDOW.as_secs())
    }
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Duration = Duration::from_secs(1_800_000_000);

    #[test]
    fn secondary_refuses_over_budget_and_names_the_wait() {
        let mut limits = Limits::new(Some(10));
        assert_eq!(limits.admit(T0, 5).1, Ok(()));
        let t1 = T0 + Duration::from_millis(20_500);
        assert_eq!(limits.admit(t1, 5).1, Ok(()));
        let t2 = T0 + Duration::from_secs(30);
        // The first 5 points leave the window at T0 + 60 s: 30 s from t2.
        assert_eq!(
            limits.admit(t2, 1).1,
            Err(Refusal::Secondary { retry_after: 30 })
        );
        assert_eq!(limits.admit(T0 + Duration::from_secs(60), 1).1, Ok(()));
        // Now 5 (t1) + 1 in the window; 5 more need t1's entry gone: 20.5 s → 21 s.
        assert_eq!(
            limits.admit(T0 + Duration::from_secs(60), 5).1,
            Err(Refusal::Secondary { retry_after: 21 })
        );
        assert_eq!(limits.admit(T0 + Duration::from_secs(81), 5).1, Ok(()));
    }

    #[test]
    fn at_most_100_requests_in_flight_with_a_secondary_limit() {
        let mut limits = Limits::new(Some(1_000));
        for _ in 0..MAX_CONCURRENT {
            assert_eq!(limits.admit(T0, 1).1, Ok(()));
        }
        assert_eq!(
            limits.admit(T0, 1).1,
            Err(Refusal::Secondary { retry_after: 1 })
        );
        limits.release();
        assert_eq!(limits.admit(T0, 1).1, Ok(()));
        let mut unlimited = Limits::new(None);
        for _ in 0..=MAX_CONCURRENT {
            assert_eq!(unlimited.admit(T0, 1).1, Ok(()));
        }
    }

    #[test]
    fn primary_quota_counts_down_and_resets_after_an_hour() {
        let mut limits = Limits::new(None);
        let (q, ok) = limits.admit(T0, 1);
        assert_eq!(ok, Ok(()));
        assert_eq!(
            (q.remaining, q.used, q.reset),
            (4_999, 1, T0.as_secs() + 3_600)
        );
        for _ in 1..PRIMARY_LIMIT {
            assert_eq!(limits.admit(T0, 1).1, Ok(()));
        }
        let (q, refused) = limits.admit(T0 + Duration::from_secs(3_599), 1);
        assert_eq!((q.remaining, refused), (0, Err(Refusal::Primary)));
        let (q, ok) = limits.admit(T0 + Duration::from_secs(3_600), 1);
        assert_eq!((q.remaining, ok), (4_999, Ok(())));
    }
}
