//! The clock the fake GitHub's rate limits and expiry times run on: the wall clock in the
//! sandbox, a manual one in tests.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The time the rate limits run on, as a duration since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Duration;
}

/// The wall clock, advancing monotonically from the moment it was created (so a system clock
/// step cannot move the limit windows backwards).
pub struct SystemClock {
    base: Duration,
    started: Instant,
}

impl SystemClock {
    pub fn new() -> Self {
        SystemClock {
            base: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default(),
            started: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.base + self.started.elapsed()
    }
}

/// A clock that only moves when told to, for tests.
pub struct ManualClock(Mutex<Duration>);

impl ManualClock {
    /// A clock standing at `since_epoch`.
    pub fn new(since_epoch: Duration) -> Self {
        ManualClock(Mutex::new(since_epoch))
    }

    pub fn advance(&self, by: Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `since_epoch` as an RFC 3339 UTC timestamp (GitHub's `expires_at` format).
pub(crate) fn rfc3339(since_epoch: Duration) -> String {
    i64::try_from(since_epoch.as_secs())
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map(|t| t.to_string())
        .unwrap_or_default()
}
