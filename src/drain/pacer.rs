//! The one pacer every mutating GitHub request goes through.
//!
//! GitHub asks for mutating requests to be made serially and at least a second apart; its
//! secondary limits charge 5 points per DELETE. The pacer spaces unregisters at
//! `--max-unregister-rate` (a token bucket with a burst of one) and, when GitHub says to slow
//! down (`retry-after`, `x-ratelimit-reset`, a low `x-ratelimit-remaining`), pauses everyone
//! until then, not only the runner that got the answer.

use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::time::Instant;

use crate::cli::Rate;

#[derive(Debug)]
pub struct Pacer {
    limiter: Option<DefaultDirectRateLimiter>,
    paused_until: Mutex<Option<Instant>>,
}

impl Pacer {
    /// A pacer at `rate`; a rate of 0 per anything means unlimited.
    pub fn new(rate: Rate) -> Self {
        let limiter = NonZeroU32::new(rate.count).and_then(|count| {
            let period = rate.per / count.get();
            Quota::with_period(period).map(|q| RateLimiter::direct(q.allow_burst(NonZeroU32::MIN)))
        });
        Pacer {
            limiter,
            paused_until: Mutex::new(None),
        }
    }

    /// Waits for this caller's turn to send a mutating request.
    pub async fn acquire(&self) {
        loop {
            let pause = *self
                .paused_until
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match pause {
                Some(until) if until > Instant::now() => tokio::time::sleep_until(until).await,
                _ => break,
            }
        }
        if let Some(l) = &self.limiter {
            l.until_ready().await;
        }
    }

    /// Pauses every mutating request for `d` from now (never shortens an existing pause).
    pub fn pause_for(&self, d: Duration) {
        let until = Instant::now() + d;
        let mut p = self
            .paused_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if p.is_none_or(|cur| cur < until) {
            *p = Some(until);
        }
    }

    /// Takes GitHub's rate-limit headers into account: with few requests left in the window,
    /// spread the rest evenly until the reset instead of running into a 403.
    pub fn observe(&self, hint: RateHint) {
        if let Some(wait) = hint.retry_after {
            self.pause_for(wait);
            return;
        }
        if let (Some(remaining), Some(reset_in)) = (hint.remaining, hint.reset_in) {
            if remaining == 0 {
                self.pause_for(reset_in);
            } else if remaining < 50 {
                self.pause_for(reset_in / u32::try_from(remaining).unwrap_or(u32::MAX));
            }
        }
    }
}

/// What a GitHub response said about rate limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateHint {
    pub remaining: Option<u64>,
    /// Time until `x-ratelimit-reset`.
    pub reset_in: Option<Duration>,
    pub retry_after: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_pause_holds_everyone_and_never_shrinks() {
        let pacer = Pacer::new(Rate {
            count: 0,
            per: Duration::from_secs(1),
        });
        pacer.pause_for(Duration::from_secs(30));
        pacer.pause_for(Duration::from_secs(5));
        let start = Instant::now();
        pacer.acquire().await;
        assert!(Instant::now() - start >= Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn rate_headers_slow_down() {
        let pacer = Pacer::new(Rate {
            count: 0,
            per: Duration::from_secs(1),
        });
        pacer.observe(RateHint {
            remaining: Some(0),
            reset_in: Some(Duration::from_secs(40)),
            retry_after: None,
        });
        let start = Instant::now();
        pacer.acquire().await;
        assert!(Instant::now() - start >= Duration::from_secs(40));
    }
}
