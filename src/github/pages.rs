//! Reading every page of a runner list, several at once.
//!
//! The first page says how many runners there are (`total_count`) and links the next page.
//! When that link numbers its pages (`page=2`, as the runner endpoints do), the pages up to the
//! last are read up to `concurrency` at a time, their URLs made from GitHub's own next link
//! with only `page` changed; otherwise the links are followed one by one. Either way `Link`
//! decides where the list ends: a page without a next link ends it (runners removed meanwhile),
//! and a last page that still links one is followed on (runners added). Runners are kept in
//! page order, each id once (a runner can move between pages while they are read).
//!
//! A rate-limit refusal of any page holds every page for the wait GitHub named and turns the
//! rest of the list serial (GitHub: "make requests serially instead of concurrently"); the
//! pages are read through the same bounded retries as every read (`github::retry`).

use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::HeaderMap;
use tokio::time::Instant;
use url::Url;

use crate::github::client::GitHubClient;
use crate::github::errors::Failure;
use crate::github::model::{Runner, RunnerPage};
use crate::github::pagination::next_link;
use crate::github::rate::SECONDARY_LIMIT_DEFAULT_WAIT;
use crate::github::retry;

/// The most pages one list follows (100 per page): far beyond any real scope, and a bound on
/// a server whose `next` links never end.
pub(crate) const MAX_PAGES: usize = 2_000;

/// The default number of pages read at once (`--concurrency`).
pub const DEFAULT_CONCURRENCY: usize = 8;

/// What is shared by the pages of one list: when the next request may go, and whether GitHub
/// has refused one (then one request at a time).
#[derive(Default)]
struct Gate {
    state: std::sync::Mutex<GateState>,
    serial: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct GateState {
    not_before: Option<Instant>,
    careful: bool,
}

impl Gate {
    fn state(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until a request may go; once careful, holds the one turn while it is in flight.
    async fn enter(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        loop {
            let (not_before, careful) = {
                let s = self.state();
                (s.not_before, s.careful)
            };
            if let Some(t) = not_before
                && t > Instant::now()
            {
                tokio::time::sleep_until(t).await;
                continue;
            }
            if !careful {
                return None;
            }
            let turn = self.serial.lock().await;
            // A refusal may have come while waiting for the turn.
            if self.state().not_before.is_none_or(|t| t <= Instant::now()) {
                return Some(turn);
            }
        }
    }

    /// A page was refused over a rate limit: everything waits, then goes one at a time.
    fn refused(&self, wait: Duration) {
        let until = Instant::now() + wait;
        let mut s = self.state();
        s.careful = true;
        s.not_before = Some(s.not_before.map_or(until, |t| t.max(until)));
    }
}

/// One page: its runners and its next link.
struct Read {
    runners: Vec<Runner>,
    total: Option<u64>,
    next: Option<Url>,
}

impl GitHubClient {
    /// Every runner of the list at `first`, reading up to `concurrency` pages at once.
    pub(super) async fn runner_pages(
        &self,
        first: Url,
        concurrency: usize,
    ) -> Result<Vec<Runner>, Failure> {
        let gate = Gate::default();
        let mut kept = Kept::default();
        let page = self.read(&gate, first.clone()).await?;
        kept.add(page.runners);
        let Some(next) = page.next else {
            return Ok(kept.runners);
        };
        let mut seen = HashSet::from([first]);
        let mut follow = Some(next.clone());
        if let Some(planned) = plan(&next, page.total).filter(|_| concurrency > 1) {
            let reads = futures::stream::iter(planned.iter().cloned())
                .map(|url| {
                    let gate = &gate;
                    async move { (url.clone(), self.read(gate, url).await) }
                })
                .buffered(concurrency);
            futures::pin_mut!(reads);
            let last = planned.last().cloned();
            follow = None;
            while let Some((url, page)) = reads.next().await {
                let page = page?;
                seen.insert(url.clone());
                kept.add(page.runners);
                match page.next {
                    // The list ended early: the later pages are not read on.
                    None => break,
                    // The list grew past the last planned page: follow its links.
                    Some(next) if Some(&url) == last.as_ref() => follow = Some(next),
                    Some(_) => {}
                }
            }
        }
        while let Some(url) = follow {
            if !seen.insert(url.clone()) || seen.len() > MAX_PAGES {
                return Err(Failure::Decode {
                    detail: format!(
                        "the pages do not end: `rel=\"next\"` led back to an earlier page or past {MAX_PAGES} pages"
                    ),
                    url,
                });
            }
            let page = self.read(&gate, url).await?;
            kept.add(page.runners);
            follow = page.next;
        }
        Ok(kept.runners)
    }

    /// One page through the gate, with the bounded retries of reads (short rate limits sat out).
    async fn read(&self, gate: &Gate, url: Url) -> Result<Read, Failure> {
        let (page, headers): (RunnerPage, HeaderMap) =
            retry::with_retries(self.retry_policy(), true, || {
                let url = url.clone();
                async move {
                    let _turn = gate.enter().await;
                    let answer = self.get_once::<RunnerPage>(url).await;
                    if let Err(Failure::Status {
                        rate_limited: true,
                        rate,
                        ..
                    }) = &answer
                    {
                        gate.refused(rate.wait().unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT));
                    }
                    answer
                }
            })
            .await?;
        let next = next_link(&headers, self.base_url())
            .map_err(|detail| Failure::Decode { url, detail })?;
        Ok(Read {
            runners: page.runners,
            total: page.total_count,
            next,
        })
    }
}

/// The runners kept so far, in page order, each id once.
#[derive(Default)]
struct Kept {
    runners: Vec<Runner>,
    ids: HashSet<u64>,
}

impl Kept {
    fn add(&mut self, page: Vec<Runner>) {
        for r in page {
            if self.ids.insert(r.id) {
                self.runners.push(r);
            }
        }
    }
}

/// The URLs of pages 2 to the last, made from the first page's next link, when that link
/// numbers its pages from 2 and `total` says how many there are; `None` when the links must be
/// followed one by one.
fn plan(next: &Url, total: Option<u64>) -> Option<Vec<Url>> {
    let query = |key: &str| {
        next.query_pairs()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse::<u64>().ok())
    };
    if query("page") != Some(2) {
        return None;
    }
    let per_page = query("per_page").unwrap_or(30).max(1);
    let last = total?.div_ceil(per_page).min(MAX_PAGES as u64);
    if last < 2 {
        return None;
    }
    Some(
        (2..=last)
            .map(|page| {
                let mut url = next.clone();
                let pairs: Vec<(String, String)> = next
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if k == "page" {
                            page.to_string()
                        } else {
                            v.into_owned()
                        };
                        (k.into_owned(), v)
                    })
                    .collect();
                url.query_pairs_mut().clear().extend_pairs(pairs);
                url
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn pages_are_planned_from_the_next_link() {
        let next =
            url("https://api.github.com/orgs/a/actions/runners?name=x+y&per_page=100&page=2");
        let p = plan(&next, Some(1_001)).unwrap();
        assert_eq!(p.len(), 10);
        assert_eq!(p[0], next);
        assert_eq!(
            p[9].as_str(),
            "https://api.github.com/orgs/a/actions/runners?name=x+y&per_page=100&page=11"
        );
        assert_eq!(plan(&next, Some(1_000)).unwrap().len(), 9);
        // GitHub's default page size when the link names none.
        let bare = url("https://api.github.com/x?page=2");
        assert_eq!(plan(&bare, Some(61)).unwrap().len(), 2);
    }

    #[test]
    fn links_are_followed_when_pages_cannot_be_planned() {
        let next = url("https://api.github.com/x?per_page=100&page=2");
        assert!(plan(&next, None).is_none());
        // A total that fits on the first page, yet a next link: follow it.
        assert!(plan(&next, Some(100)).is_none());
        assert!(
            plan(
                &url("https://api.github.com/x?per_page=100&page=3"),
                Some(900)
            )
            .is_none()
        );
        assert!(plan(&url("https://api.github.com/x?cursor=abc"), Some(900)).is_none());
        // A total beyond any real scope is bounded.
        assert_eq!(plan(&next, Some(u64::MAX)).unwrap().len(), MAX_PAGES - 1);
    }

    #[test]
    fn each_runner_id_is_kept_once_in_page_order() {
        let r = |id: u64| Runner {
            id,
            name: format!("r{id}"),
            os: String::new(),
            status: String::new(),
            busy: false,
            labels: Vec::new(),
            runner_group_id: None,
            ephemeral: None,
            version: None,
        };
        let mut k = Kept::default();
        k.add(vec![r(3), r(1)]);
        k.add(vec![r(1), r(2)]);
        assert_eq!(
            k.runners.iter().map(|r| r.id).collect::<Vec<_>>(),
            vec![3, 1, 2]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusal_holds_every_page_then_one_at_a_time() {
        let gate = Gate::default();
        assert!(gate.enter().await.is_none(), "side by side at first");
        gate.refused(Duration::from_secs(30));
        let start = Instant::now();
        let turn = gate.enter().await;
        assert!(turn.is_some(), "one at a time after a refusal");
        assert!(start.elapsed() >= Duration::from_secs(30));
        // The turn is held: a second caller waits for it.
        let second = tokio::time::timeout(Duration::from_secs(1), gate.enter()).await;
        assert!(second.is_err());
        drop(turn);
        assert!(gate.enter().await.is_some());
    }
}
