//! How reads retry: transient failures (timeouts, resets, 5xx) a bounded number of times with
//! jittered exponential backoff, GitHub's own `retry-after` winning over the backoff, and a
//! rate limit sat out only when it is short and the read may wait.
//!
//! The one mutation, `delete_runner`, never comes here: the drain pipeline paces and retries
//! unregisters itself.

use std::future::Future;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

use crate::github::errors::Failure;
use crate::github::outcome::TransportKind;
use crate::github::rate::SECONDARY_LIMIT_DEFAULT_WAIT;

/// How reads retry transient failures.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// The longest `retry-after` / reset wait a read sits out; longer ones fail the read.
    pub max_rate_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            min_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            max_rate_wait: Duration::from_secs(60),
        }
    }
}

impl Failure {
    /// Whether a read should try again, and after how long GitHub asks (if it does).
    fn retry_hint(&self, policy: &RetryPolicy, wait_rate_limits: bool) -> Option<Option<Duration>> {
        match self {
            Failure::Transport { kind, .. } => match kind {
                TransportKind::Timeout | TransportKind::Reset => Some(None),
                TransportKind::Connect | TransportKind::Other => None,
            },
            Failure::Status {
                status,
                rate,
                rate_limited,
                ..
            } => {
                if *rate_limited {
                    let wait = rate.wait().unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT);
                    (wait_rate_limits && wait <= policy.max_rate_wait).then_some(Some(wait))
                } else if *status >= 500 {
                    Some(rate.retry_after)
                } else {
                    None
                }
            }
            Failure::Decode { .. } | Failure::Auth(_) => None,
        }
    }
}

/// Runs `attempt` until it succeeds, fails in a way not worth retrying, or `policy`'s retries
/// are used up; `wait_rate_limits` lets it sit out short rate limits.
pub(crate) async fn with_retries<T, Fut>(
    policy: RetryPolicy,
    wait_rate_limits: bool,
    attempt: impl FnMut() -> Fut,
) -> Result<T, Failure>
where
    Fut: Future<Output = Result<T, Failure>>,
{
    let backoff = ExponentialBuilder::default()
        .with_min_delay(policy.min_delay)
        .with_max_delay(policy.max_delay)
        .with_max_times(policy.max_retries)
        .with_jitter();
    attempt
        .retry(backoff)
        .sleep(tokio::time::sleep)
        .when(|f: &Failure| f.retry_hint(&policy, wait_rate_limits).is_some())
        // GitHub's own wait wins over our backoff; `None` means the retries are used up.
        .adjust(|f: &Failure, d| {
            d.map(|d| {
                f.retry_hint(&policy, wait_rate_limits)
                    .flatten()
                    .unwrap_or(d)
            })
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::rate::RateInfo;

    #[test]
    fn retry_hints() {
        let p = RetryPolicy::default();
        let status = |status, rate_limited, rate| Failure::Status {
            status,
            message: String::new(),
            rate,
            rate_limited,
            accepted_permissions: None,
        };
        assert_eq!(
            status(502, false, RateInfo::default()).retry_hint(&p, true),
            Some(None)
        );
        assert_eq!(
            status(404, false, RateInfo::default()).retry_hint(&p, true),
            None
        );
        assert_eq!(
            status(401, false, RateInfo::default()).retry_hint(&p, true),
            None
        );
        let short = RateInfo {
            retry_after: Some(Duration::from_secs(2)),
            ..RateInfo::default()
        };
        assert_eq!(
            status(403, true, short).retry_hint(&p, true),
            Some(Some(Duration::from_secs(2)))
        );
        let long = RateInfo {
            retry_after: Some(Duration::from_secs(3600)),
            ..RateInfo::default()
        };
        assert_eq!(status(429, true, long).retry_hint(&p, true), None);
        // Single-runner reads report rate limits instead of sitting them out.
        assert_eq!(status(403, true, short).retry_hint(&p, false), None);
        assert_eq!(
            status(500, false, RateInfo::default()).retry_hint(&p, false),
            Some(None)
        );
    }
}
