//! GitHub's primary (hourly) and secondary (points per minute, requests in flight) rate
//! limits, with exact and deterministic accounting on an injectable clock, and the *limited*
//! state a secondary-limit refusal puts the client in.

use std::collections::VecDeque;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Requests per hour for an authenticated user or App installation (`x-ratelimit-limit`).
pub(crate) const PRIMARY_LIMIT: u64 = 5_000;
const PRIMARY_WINDOW_SECS: u64 = 3_600;
const SECONDARY_WINDOW: Duration = Duration::from_secs(60);
/// GitHub's secondary limit on concurrent requests, enforced with `--secondary-limit`.
pub(crate) const MAX_CONCURRENT: usize = 100;
/// How long a client stays limited after a refusal that named no wait: GitHub's guidance is
/// to wait at least a minute then.
pub(crate) const SILENT_LIMIT: Duration = Duration::from_secs(60);
/// Mixed into `--seed` for the coin that silences refusals, so that drawing it leaves the
/// world's own random stream (jobs, faults) as it was.
const SILENT_SEED: u64 = 0x5EC0_4DA7_11A1_7ED5;

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
    /// The secondary limit: retry after this many seconds, when GitHub can say.
    Secondary { retry_after: Option<u64> },
}

/// The client's state after a secondary-limit refusal: every request before `until` is
/// refused too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limited {
    until: Duration,
    /// Whether the refusal that began it named the wait (`retry-after`); the refusals that
    /// follow then name what is left of it.
    told: bool,
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
    /// Set by a secondary-limit refusal.
    limited: Option<Limited>,
    /// Share of points refusals answered without `retry-after` (`--secondary-limit-silent`).
    silent_share: f64,
    coin: ChaCha8Rng,
}

impl Limits {
    /// The limits of one fake GitHub; `silent_share` of the points refusals name no wait,
    /// drawn from a generator seeded with `seed`.
    pub(crate) fn new(
        secondary_points_per_minute: Option<u32>,
        silent_share: f64,
        seed: u64,
    ) -> Self {
        Limits {
            primary_start: None,
            primary_used: 0,
            secondary: secondary_points_per_minute.map(Secondary::new),
            in_flight: 0,
            limited: None,
            silent_share: silent_share.clamp(0.0, 1.0),
            coin: ChaCha8Rng::seed_from_u64(seed ^ SILENT_SEED),
        }
    }

    /// The quota as it stands, without spending any of it (for unauthenticated answers).
    pub(crate) fn peek(&mut self, now: Duration) -> Quota {
        self.roll_primary(now);
        self.quota(now)
    }

    /// Counts an authenticated request costing `points` at `now`: first against the hourly
    /// quota, then (with a secondary limit) against the limited state, the concurrency cap
    /// and the points window. An admitted request is in flight until [`Limits::release`].
    ///
    /// A secondary refusal limits the client: until the `retry-after` it names, or for
    /// [`SILENT_LIMIT`] when it names none (the concurrency cap, whose end GitHub cannot
    /// know, and a seeded share of the points refusals). A request while limited is refused
    /// again, naming what is left of the wait when the first refusal named one; it does not
    /// lengthen the wait. Refused requests take no points.
    pub(crate) fn admit(&mut self, now: Duration, points: u32) -> (Quota, Result<(), Refusal>) {
        self.roll_primary(now);
        if self.primary_used >= PRIMARY_LIMIT {
            return (self.quota(now), Err(Refusal::Primary));
        }
        self.primary_start.get_or_insert(now.as_secs());
        self.primary_used += 1;
        let quota = self.quota(now);
        let verdict = self.admit_secondary(now, points);
        if verdict.is_ok() {
            self.in_flight += 1;
        }
        (quota, verdict)
    }

    fn admit_secondary(&mut self, now: Duration, points: u32) -> Result<(), Refusal> {
        let Some(window) = &mut self.secondary else {
            return Ok(());
        };
        if let Some(limited) = self.limited {
            if now < limited.until {
                return Err(Refusal::Secondary {
                    retry_after: limited.told.then(|| ceil_secs(limited.until - now).max(1)),
                });
            }
            self.limited = None;
        }
        let told = if self.in_flight >= MAX_CONCURRENT {
            None
        } else {
            match window.admit(now, points) {
                Ok(()) => return Ok(()),
                Err(_) if self.coin.random_bool(self.silent_share) => None,
                Err(retry_after) => Some(retry_after),
            }
        };
        self.limited = Some(Limited {
            until: now + told.map_or(SILENT_LIMIT, Duration::from_secs),
            told: told.is_some(),
        });
        Err(Refusal::Secondary { retry_after: told })
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
        let mut limits = Limits::new(Some(10), 0.0, 1);
        assert_eq!(limits.admit(T0, 5).1, Ok(()));
        let t1 = T0 + Duration::from_millis(20_500);
        assert_eq!(limits.admit(t1, 5).1, Ok(()));
        let t2 = T0 + Duration::from_secs(30);
        // The first 5 points leave the window at T0 + 60 s: 30 s from t2.
        assert_eq!(
            limits.admit(t2, 1).1,
            Err(Refusal::Secondary {
                retry_after: Some(30)
            })
        );
        assert_eq!(limits.admit(T0 + Duration::from_secs(60), 1).1, Ok(()));
        // Now 5 (t1) + 1 in the window; 5 more need t1's entry gone: 20.5 s → 21 s.
        assert_eq!(
            limits.admit(T0 + Duration::from_secs(60), 5).1,
            Err(Refusal::Secondary {
                retry_after: Some(21)
            })
        );
        assert_eq!(limits.admit(T0 + Duration::from_secs(81), 5).1, Ok(()));
    }

    #[test]
    fn at_most_100_requests_in_flight_with_a_secondary_limit() {
        let mut limits = Limits::new(Some(1_000), 0.0, 1);
        for _ in 0..MAX_CONCURRENT {
            assert_eq!(limits.admit(T0, 1).1, Ok(()));
        }
        // GitHub cannot know when a slot frees: no retry-after, and a minute limited.
        assert_eq!(
            limits.admit(T0, 1).1,
            Err(Refusal::Secondary { retry_after: None })
        );
        limits.release();
        assert_eq!(
            limits.admit(T0 + Duration::from_secs(59), 1).1,
            Err(Refusal::Secondary { retry_after: None })
        );
        assert_eq!(limits.admit(T0 + SILENT_LIMIT, 1).1, Ok(()));
        let mut unlimited = Limits::new(None, 0.0, 1);
        for _ in 0..=MAX_CONCURRENT {
            assert_eq!(unlimited.admit(T0, 1).1, Ok(()));
        }
    }

    #[test]
    fn primary_quota_counts_down_and_resets_after_an_hour() {
        let mut limits = Limits::new(None, 0.0, 1);
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

    #[test]
    fn a_refusal_limits_the_client_until_its_retry_after() {
        // 10 points: two DELETEs fill the window until T0 + 60 s.
        let mut limits = Limits::new(Some(10), 0.0, 1);
        assert_eq!(limits.admit(T0, 5).1, Ok(()));
        assert_eq!(limits.admit(T0, 5).1, Ok(()));
        let t1 = T0 + Duration::from_secs(20);
        assert_eq!(
            limits.admit(t1, 5).1,
            Err(Refusal::Secondary {
                retry_after: Some(40)
            })
        );
        // A GET would fit no better, and it is refused anyway, naming what is left of the wait.
        assert_eq!(
            limits.admit(t1 + Duration::from_millis(10_500), 1).1,
            Err(Refusal::Secondary {
                retry_after: Some(30)
            })
        );
        // Asking while limited does not lengthen the wait.
        let end = T0 + Duration::from_secs(60);
        assert_eq!(
            limits.admit(end - Duration::from_millis(1), 5).1,
            Err(Refusal::Secondary {
                retry_after: Some(1)
            })
        );
        assert_eq!(limits.admit(end, 5).1, Ok(()));
    }

    #[test]
    fn a_silent_refusal_limits_the_client_for_a_minute() {
        let mut limits = Limits::new(Some(5), 1.0, 1);
        assert_eq!(limits.admit(T0, 5).1, Ok(()));
        let t1 = T0 + Duration::from_secs(50);
        let silent = Err(Refusal::Secondary { retry_after: None });
        assert_eq!(limits.admit(t1, 1).1, silent);
        // The window has room again at T0 + 60 s, but the client waits a minute from t1.
        assert_eq!(limits.admit(T0 + Duration::from_secs(61), 1).1, silent);
        assert_eq!(
            limits
                .admit(t1 + SILENT_LIMIT - Duration::from_millis(1), 1)
                .1,
            silent
        );
        assert_eq!(limits.admit(t1 + SILENT_LIMIT, 1).1, Ok(()));
    }

    #[test]
    fn the_silent_share_is_seeded() {
        // Each refusal starts a new limited spell: 1 point a minute, asked once a minute.
        let refusals = |seed| {
            let mut limits = Limits::new(Some(1), 0.25, seed);
            let mut told = Vec::new();
            for minute in 0..400u64 {
                let at = T0 + Duration::from_secs(minute * 121);
                assert_eq!(limits.admit(at, 1).1, Ok(()));
                limits.release();
                match limits.admit(at, 1).1 {
                    Err(Refusal::Secondary { retry_after }) => told.push(retry_after.is_some()),
                    other => panic!("expected a refusal, got {other:?}"),
                }
            }
            told
        };
        let first = refusals(7);
        assert_eq!(first, refusals(7), "the same seed gives the same answers");
        let silent = first.iter().filter(|t| !**t).count();
        assert!((60..=140).contains(&silent), "{silent} of 400 silent");
    }
}
