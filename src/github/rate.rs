//! GitHub's rate-limit signals on each response, and how long they ask us to wait.
//!
//! The drain pacer reads these to slow down before GitHub has to say no (`x-ratelimit-remaining`)
//! and to wait as long as GitHub asks when it does (`retry-after`, `x-ratelimit-reset`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

/// How long to wait after a secondary rate limit that names no time (GitHub's guidance).
pub const SECONDARY_LIMIT_DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// The rate-limit headers of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateInfo {
    /// `x-ratelimit-limit`.
    pub limit: Option<u64>,
    /// `x-ratelimit-remaining`.
    pub remaining: Option<u64>,
    /// `x-ratelimit-reset`: when the window resets, in UTC epoch seconds.
    pub reset: Option<u64>,
    /// `retry-after`, in seconds.
    pub retry_after: Option<Duration>,
}

impl RateInfo {
    pub fn from_headers(h: &HeaderMap) -> Self {
        let num = |name: &str| {
            h.get(name)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        RateInfo {
            limit: num("x-ratelimit-limit"),
            remaining: num("x-ratelimit-remaining"),
            reset: num("x-ratelimit-reset"),
            retry_after: num("retry-after").map(Duration::from_secs),
        }
    }

    /// Whether the primary window is used up.
    pub fn exhausted(&self) -> bool {
        self.remaining == Some(0)
    }

    /// How long GitHub asks to wait before the next request, counted from `now`:
    /// `retry-after`, else the reset time when the window is used up, else nothing.
    pub fn wait_from(&self, now: SystemTime) -> Option<Duration> {
        if let Some(d) = self.retry_after {
            return Some(d);
        }
        if self.exhausted() {
            let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
            return self
                .reset
                .map(|reset| Duration::from_secs(reset.saturating_sub(now).max(1)));
        }
        None
    }

    /// [`RateInfo::wait_from`] now.
    pub fn wait(&self) -> Option<Duration> {
        self.wait_from(SystemTime::now())
    }
}

/// Which of GitHub's limits refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The hourly quota is spent (`x-ratelimit-remaining: 0`): wait for `x-ratelimit-reset`.
    Primary,
    /// A secondary limit: too fast, too many at once.
    Secondary,
}

/// A rate-limit refusal: which limit, and the wait GitHub named, if it named one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub kind: LimitKind,
    /// `retry-after`, or the time until `x-ratelimit-reset` for the primary limit; `None` when
    /// GitHub said nothing (then wait at least [`SECONDARY_LIMIT_DEFAULT_WAIT`]).
    pub wait: Option<Duration>,
}

impl RateInfo {
    /// The refusal these headers describe, in GitHub's order: `retry-after` first; else a spent
    /// quota waits for its reset; else a secondary limit that named no wait.
    pub fn limit_from(&self, now: SystemTime) -> Limit {
        match self.retry_after {
            Some(after) => Limit {
                kind: if self.exhausted() {
                    LimitKind::Primary
                } else {
                    LimitKind::Secondary
                },
                wait: Some(after),
            },
            None if self.exhausted() => Limit {
                kind: LimitKind::Primary,
                wait: self.wait_from(now),
            },
            None => Limit {
                kind: LimitKind::Secondary,
                wait: None,
            },
        }
    }

    /// [`RateInfo::limit_from`] now.
    pub fn limit(&self) -> Limit {
        self.limit_from(SystemTime::now())
    }
}

/// Whether a 403/429 answer is a rate limit rather than a permission problem.
pub(crate) fn is_rate_limited(status: u16, rate: &RateInfo, message: &str) -> bool {
    if status == 429 {
        return true;
    }
    if status != 403 {
        return false;
    }
    let m = message.to_ascii_lowercase();
    rate.exhausted()
        || rate.retry_after.is_some()
        || m.contains("secondary rate")
        || m.contains("rate limit exceeded")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn reads_headers() {
        let r = RateInfo::from_headers(&headers(&[
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1000"),
            ("retry-after", "7"),
        ]));
        assert_eq!(r.limit, Some(5000));
        assert!(r.exhausted());
        assert_eq!(r.reset, Some(1000));
        assert_eq!(r.retry_after, Some(Duration::from_secs(7)));
        assert_eq!(
            RateInfo::from_headers(&HeaderMap::new()),
            RateInfo::default()
        );
    }

    #[test]
    fn wait_prefers_retry_after_then_reset() {
        let now = UNIX_EPOCH + Duration::from_secs(1000);
        let r = RateInfo {
            remaining: Some(0),
            reset: Some(1030),
            retry_after: Some(Duration::from_secs(5)),
            ..RateInfo::default()
        };
        assert_eq!(r.wait_from(now), Some(Duration::from_secs(5)));
        let r = RateInfo {
            retry_after: None,
            ..r
        };
        assert_eq!(r.wait_from(now), Some(Duration::from_secs(30)));
        // A reset in the past still waits a moment rather than hammering.
        let r = RateInfo {
            reset: Some(10),
            ..r
        };
        assert_eq!(r.wait_from(now), Some(Duration::from_secs(1)));
        let r = RateInfo {
            remaining: Some(10),
            ..r
        };
        assert_eq!(r.wait_from(now), None);
    }

    #[test]
    fn tells_rate_limits_from_permission_denials() {
        let none = RateInfo::default();
        assert!(is_rate_limited(429, &none, ""));
        assert!(!is_rate_limited(
            403,
            &none,
            "Resource not accessible by integration"
        ));
        assert!(is_rate_limited(
            403,
            &none,
            "You have exceeded a secondary rate limit."
        ));
        assert!(is_rate_limited(
            403,
            &none,
            "API rate limit exceeded for user ID 1."
        ));
        let empty = RateInfo {
            remaining: Some(0),
            ..none
        };
        assert!(is_rate_limited(403, &empty, "Forbidden"));
        let after = RateInfo {
            retry_after: Some(Duration::from_secs(3)),
            ..none
        };
        assert!(is_rate_limited(403, &after, "Forbidden"));
        assert!(!is_rate_limited(401, &empty, ""));
    }

    #[test]
    fn a_refusal_names_its_limit_and_wait() {
        let now = UNIX_EPOCH + Duration::from_secs(1000);
        let told = RateInfo {
            remaining: Some(4000),
            retry_after: Some(Duration::from_secs(42)),
            ..RateInfo::default()
        };
        assert_eq!(
            told.limit_from(now),
            Limit {
                kind: LimitKind::Secondary,
                wait: Some(Duration::from_secs(42))
            }
        );
        let silent = RateInfo {
            retry_after: None,
            ..told
        };
        assert_eq!(
            silent.limit_from(now),
            Limit {
                kind: LimitKind::Secondary,
                wait: None
            }
        );
        let spent = RateInfo {
            remaining: Some(0),
            reset: Some(1300),
            ..RateInfo::default()
        };
        assert_eq!(
            spent.limit_from(now),
            Limit {
                kind: LimitKind::Primary,
                wait: Some(Duration::from_secs(300))
            }
        );
    }
}
