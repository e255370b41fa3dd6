//! Bounded retries of Kubernetes calls that failed transiently (5xx, 429, a dropped
//! connection, a timeout), with exponential back-off and jitter.
//!
//! Every call arcctl makes is safe to repeat: reads, deletes guarded by a uid (a repeated delete
//! answers 404, "already gone"), and merge patches that set fixed values.

use std::future::Future;
use std::time::Duration;

use backon::BackoffBuilder;

/// Attempts after the first.
const RETRIES: usize = 4;

/// Whether `e` may go away on its own.
pub(crate) fn is_transient(e: &kube::Error) -> bool {
    match e {
        kube::Error::Api(s) => s.code >= 500 || s.code == 429,
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => true,
        _ => false,
    }
}

/// Runs `call` until it succeeds, fails for good, or the retries are spent.
pub(crate) async fn retrying<T, F, Fut>(mut call: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let mut delays = backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(200))
        .with_max_delay(Duration::from_secs(3))
        .with_jitter()
        .with_max_times(RETRIES)
        .build();
    loop {
        match call().await {
            Err(e) if is_transient(&e) => match delays.next() {
                Some(d) => tokio::time::sleep(d).await,
                None => return Err(e),
            },
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            ..Default::default()
        }))
    }

    #[test]
    fn server_errors_and_throttling_are_transient_client_errors_are_not() {
        assert!(is_transient(&api(500)));
        assert!(is_transient(&api(503)));
        assert!(is_transient(&api(429)));
        for code in [400, 401, 403, 404, 409, 422] {
            assert!(!is_transient(&api(code)), "{code}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retries_until_success_and_gives_up_after_the_bound() {
        let mut calls = 0;
        let r = retrying(|| {
            calls += 1;
            let n = calls;
            async move { if n < 3 { Err(api(500)) } else { Ok(n) } }
        })
        .await;
        assert_eq!(r.unwrap(), 3);

        let mut calls = 0;
        let r: Result<(), _> = retrying(|| {
            calls += 1;
            async { Err(api(502)) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls, RETRIES + 1);

        let mut calls = 0;
        let r: Result<(), _> = retrying(|| {
            calls += 1;
            async { Err(api(404)) }
        })
        .await;
        assert!(r.is_err());
        assert_eq!(calls, 1, "a 404 is an answer, not a glitch");
    }
}
