//! The pacer's rules on tokio's paused clock: a refusal holds every GitHub call, one probe goes
//! alone, the pace falls to what GitHub accepted and rises slowly, repeated refusals back off
//! exponentially. Waits cost nothing here; what is checked is the order of things, and the
//! paused clock's readings, never real time.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::{Instant, timeout};

use crate::drain::Rate;
use crate::drain::pacer::*;

fn per_second(count: u32) -> Rate {
    Rate {
        count,
        per: Duration::from_secs(1),
    }
}

fn secondary(wait: Option<u64>) -> Answer {
    Answer::Refused(Limit {
        kind: LimitKind::Secondary,
        wait: wait.map(Duration::from_secs),
    })
}

/// Whether `enter(call)` would be let through within `within` (on the paused clock).
async fn passes(pacer: &Pacer, call: Call, within: Duration) -> bool {
    timeout(within, pacer.enter(call)).await.is_ok()
}

/// One accepted unregister.
async fn unregister(pacer: &Pacer) {
    let p = pacer.enter(Call::Unregister).await;
    assert_eq!(p.finish(Answer::Accepted), None);
}

#[tokio::test(start_paused = true)]
async fn a_refusal_holds_every_call_for_its_retry_after() {
    let pacer = Pacer::new(per_second(50), 16);
    let p = pacer.enter(Call::Unregister).await;
    let spell = p.finish(secondary(Some(30))).expect("a wait begins");
    assert_eq!(
        (spell.kind, spell.wait, spell.told, spell.repeat),
        (LimitKind::Secondary, Duration::from_secs(30), true, 0)
    );
    let start = Instant::now();
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(29)).await);
    assert!(!passes(&pacer, Call::Unregister, Duration::from_millis(900)).await);
    let probe = pacer.enter(Call::Read).await;
    assert!(probe.is_probe());
    assert!(Instant::now() - start >= Duration::from_secs(30));
    assert_eq!(probe.finish(Answer::Accepted), None);
    assert_eq!(pacer.report().refused, 1);
    assert_eq!(pacer.report().waits, 1);
}

#[tokio::test(start_paused = true)]
async fn without_retry_after_everyone_waits_a_minute() {
    let pacer = Pacer::new(per_second(1), 16);
    let p = pacer.enter(Call::Read).await;
    let spell = p.finish(secondary(None)).expect("a wait begins");
    assert_eq!((spell.wait, spell.told), (Duration::from_secs(60), false));
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(59)).await);
    assert!(passes(&pacer, Call::Read, Duration::from_secs(2)).await);
}

#[tokio::test(start_paused = true)]
async fn the_primary_limit_waits_for_the_reset_and_keeps_the_pace() {
    let pacer = Pacer::new(per_second(2), 16);
    unregister(&pacer).await;
    let p = pacer.enter(Call::Unregister).await;
    let spell = p
        .finish(Answer::Refused(Limit {
            kind: LimitKind::Primary,
            wait: Some(Duration::from_secs(1200)),
        }))
        .expect("a wait begins");
    assert_eq!(
        (spell.wait, spell.lowered),
        (Duration::from_secs(1200), false)
    );
    assert_eq!(pacer.pace(), Some(2.0));
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(1199)).await);
}

#[tokio::test(start_paused = true)]
async fn one_probe_goes_first_and_alone() {
    let pacer = Pacer::new(per_second(10), 16);
    let p = pacer.enter(Call::Unregister).await;
    assert!(p.finish(secondary(Some(5))).is_some());
    tokio::time::sleep(Duration::from_secs(5)).await;
    let probe = pacer.enter(Call::Read).await;
    assert!(probe.is_probe());
    // While the probe is out, nothing else goes, however long it takes.
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(600)).await);
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(600)).await);
    assert_eq!(probe.finish(Answer::Accepted), None);
    // Accepted: the others resume, one call at a time now that GitHub has refused one.
    let a = pacer.enter(Call::Read).await;
    assert!(!a.is_probe());
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(600)).await);
    assert_eq!(a.finish(Answer::Accepted), None);
    let b = pacer.enter(Call::Read).await;
    assert!(!b.is_probe());
    assert_eq!(b.finish(Answer::Accepted), None);
}

#[tokio::test(start_paused = true)]
async fn reads_go_side_by_side_until_github_refuses_one() {
    let pacer = Pacer::new(per_second(10), 16);
    let a = pacer.enter(Call::Read).await;
    let b = pacer.enter(Call::Read).await;
    let c = pacer.enter(Call::Unregister).await;
    assert_eq!(a.finish(Answer::Accepted), None);
    assert_eq!(c.finish(Answer::Accepted), None);
    assert!(b.finish(secondary(Some(1))).is_some());
    let probe = pacer.enter(Call::Read).await;
    assert_eq!(probe.finish(Answer::Accepted), None);
    let d = pacer.enter(Call::Read).await;
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(60)).await);
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(60)).await);
    assert_eq!(d.finish(Answer::Accepted), None);
}

#[tokio::test(start_paused = true)]
async fn the_probe_waits_for_calls_sent_before_the_refusal() {
    let pacer = Pacer::new(per_second(10), 16);
    let older = pacer.enter(Call::Read).await;
    let p = pacer.enter(Call::Unregister).await;
    assert!(p.finish(secondary(Some(1))).is_some());
    // The wait is over, but a read sent before the refusal is still out.
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(120)).await);
    assert_eq!(older.finish(Answer::Accepted), None);
    let probe = pacer.enter(Call::Read).await;
    assert!(probe.is_probe());
    assert_eq!(probe.finish(Answer::Accepted), None);
}

#[tokio::test(start_paused = true)]
async fn a_refusal_of_an_older_call_begins_no_new_wait() {
    let pacer = Pacer::new(per_second(0), 16);
    let first = pacer.enter(Call::Read).await;
    let second = pacer.enter(Call::Read).await;
    assert!(first.is_current());
    assert!(first.finish(secondary(Some(10))).is_some());
    assert!(!second.is_current(), "a refusal came in after it was given");
    // GitHub named a longer wait on the older call's answer: it is honoured, silently.
    assert_eq!(second.finish(secondary(Some(40))), None);
    let report = pacer.report();
    assert_eq!((report.refused, report.waits), (2, 1));
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(39)).await);
    assert!(passes(&pacer, Call::Read, Duration::from_secs(2)).await);
}

#[tokio::test(start_paused = true)]
async fn an_abandoned_probe_lets_the_next_caller_probe() {
    let pacer = Pacer::new(per_second(10), 16);
    let p = pacer.enter(Call::Read).await;
    assert!(p.finish(secondary(Some(1))).is_some());
    let probe = pacer.enter(Call::Read).await;
    assert!(probe.is_probe());
    drop(probe);
    let again = pacer.enter(Call::Read).await;
    assert!(again.is_probe());
    // No answer (a reset, a 5xx) says nothing either: the next caller probes.
    assert_eq!(again.finish(Answer::Lost), None);
    let third = pacer.enter(Call::Unregister).await;
    assert!(third.is_probe());
    assert_eq!(third.finish(Answer::Accepted), None);
    assert!(!pacer.enter(Call::Read).await.is_probe());
}

#[tokio::test(start_paused = true)]
async fn repeated_refusals_back_off_exponentially() {
    let pacer = Pacer::new(per_second(10), 16);
    let p = pacer.enter(Call::Unregister).await;
    let mut wait = p.finish(secondary(Some(10))).expect("a wait begins").wait;
    assert_eq!(wait, Duration::from_secs(10));
    let mut waits = vec![wait];
    for _ in 0..8 {
        let start = Instant::now();
        let probe = pacer.enter(Call::Read).await;
        assert!(probe.is_probe());
        let waited = Instant::now() - start;
        assert!(
            waited >= wait && waited < wait + Duration::from_secs(1),
            "the probe goes when the wait ends: {waited:?} for {wait:?}"
        );
        let spell = probe
            .finish(secondary(Some(10)))
            .expect("a refused probe waits again");
        assert_eq!(spell.repeat as usize, waits.len());
        wait = spell.wait;
        waits.push(wait);
    }
    let secs: Vec<u64> = waits.iter().map(Duration::as_secs).collect();
    assert_eq!(secs, [10, 20, 40, 80, 160, 320, 640, 960, 960]);
    // A longer wait named by GitHub is never cut.
    let probe = pacer.enter(Call::Read).await;
    let spell = probe.finish(secondary(Some(3600))).expect("a wait begins");
    assert_eq!(spell.wait, Duration::from_secs(3600));
    // Once a probe is accepted, the next refusal starts afresh.
    let probe = pacer.enter(Call::Read).await;
    assert_eq!(probe.finish(Answer::Accepted), None);
    let p = pacer.enter(Call::Read).await;
    let spell = p.finish(secondary(Some(10))).expect("a wait begins");
    assert_eq!((spell.repeat, spell.wait), (0, Duration::from_secs(10)));
}

#[tokio::test(start_paused = true)]
async fn the_pace_falls_to_what_github_accepted_then_rises_slowly() {
    let pacer = Pacer::new(per_second(50), 16);
    // 60 unregisters at 50/s: what a 300-point window takes in a minute.
    let start = Instant::now();
    for _ in 0..60 {
        unregister(&pacer).await;
    }
    assert!(Instant::now() - start < Duration::from_secs(2));
    let p = pacer.enter(Call::Unregister).await;
    let spell = p.finish(secondary(Some(58))).expect("a wait begins");
    // 60 accepted in the last minute: 1/s; the pace is 0.9 of it, not half of 50/s.
    assert!(spell.lowered);
    let pace = pacer.pace().expect("paced");
    assert!((pace - 0.9).abs() < 1e-9, "{pace}");
    assert_eq!(spell.spacing, Some(Duration::from_secs_f64(1.0 / 0.9)));
    assert_eq!(pacer.report().pace_per_second, Some(pace));

    // After the probe the unregisters go at the lowered pace, a little faster each time.
    tokio::time::sleep(Duration::from_secs(58)).await;
    let resumed = Instant::now();
    let mut paces = vec![pace];
    for _ in 0..54 {
        unregister(&pacer).await;
        paces.push(pacer.pace().expect("paced"));
    }
    assert!(paces.windows(2).all(|w| w[1] > w[0]), "{paces:?}");
    // A minute's worth at 54/min adds half an unregister a minute.
    let per_minute = paces[54] * 60.0;
    assert!((54.45..54.55).contains(&per_minute), "{per_minute}");
    // 54 unregisters at about 0.9/s: a minute, not the 1.1 s they took at 50/s.
    let took = Instant::now() - resumed;
    assert!(took > Duration::from_secs(55), "{took:?}");
}

#[tokio::test(start_paused = true)]
async fn the_pace_never_rises_above_the_configured_rate() {
    let pacer = Pacer::new(per_second(2), 16);
    for _ in 0..10 {
        unregister(&pacer).await;
    }
    let p = pacer.enter(Call::Unregister).await;
    assert!(p.finish(secondary(Some(1))).expect("a wait begins").lowered);
    assert!(pacer.pace().is_some_and(|p| p < 2.0));
    // Additive: from 9/min back to 120/min takes about 14,000 accepted unregisters.
    let mut accepted = 0;
    while pacer.pace() != Some(2.0) && accepted < 20_000 {
        unregister(&pacer).await;
        accepted += 1;
        assert!(pacer.pace().is_some_and(|p| p <= 2.0));
    }
    assert_eq!(pacer.pace(), Some(2.0));
    assert!(accepted > 10_000, "{accepted}");
}

#[tokio::test(start_paused = true)]
async fn unregisters_go_one_at_a_time_at_the_pace() {
    let pacer = Pacer::new(per_second(2), 16);
    let first = pacer.enter(Call::Unregister).await;
    // The next waits for the first's answer, whatever the pace allows.
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(10)).await);
    // Reads are not paced behind it.
    let read = pacer.enter(Call::Read).await;
    assert_eq!(read.finish(Answer::Accepted), None);
    assert_eq!(first.finish(Answer::Accepted), None);
    let start = Instant::now();
    for _ in 0..4 {
        unregister(&pacer).await;
    }
    // At 2/s, 4 unregisters after one just now take 1.5 s or more (burst of one).
    assert!(Instant::now() - start >= Duration::from_millis(1500));
}

#[tokio::test(start_paused = true)]
async fn few_requests_left_spread_the_rest_until_the_reset() {
    let pacer = Pacer::new(per_second(0), 16);
    pacer.observe(RateHint {
        remaining: Some(0),
        reset_in: Some(Duration::from_secs(40)),
        retry_after: None,
    });
    let start = Instant::now();
    unregister(&pacer).await;
    assert!(Instant::now() - start >= Duration::from_secs(40));
}

/// GitHub's secondary limit as the sandbox models it: a sliding minute of points, and a client
/// refused while it is limited.
struct Window {
    limit: u64,
    spent: VecDeque<(Instant, u64)>,
    limited_until: Option<Instant>,
    /// Every refusal names no wait (GitHub's 60 s then).
    silent: bool,
    refused: u64,
}

impl Window {
    fn answer(&mut self, now: Instant, points: u64) -> Answer {
        if let Some(until) = self.limited_until.filter(|u| now < *u) {
            self.refused += 1;
            let left = (until - now).as_secs_f64().ceil() as u64;
            return secondary((!self.silent).then_some(left.max(1)));
        }
        while self
            .spent
            .front()
            .is_some_and(|(t, _)| now - *t >= Duration::from_secs(60))
        {
            self.spent.pop_front();
        }
        let total: u64 = self.spent.iter().map(|(_, p)| p).sum();
        if total + points <= self.limit {
            self.spent.push_back((now, points));
            return Answer::Accepted;
        }
        self.refused += 1;
        let oldest = self.spent.front().map_or(now, |(t, _)| *t);
        let wait = (oldest + Duration::from_secs(60) - now)
            .as_secs_f64()
            .ceil() as u64;
        let wait = wait.max(1);
        self.limited_until = Some(now + Duration::from_secs(if self.silent { 60 } else { wait }));
        secondary((!self.silent).then_some(wait))
    }
}

/// `runners` tasks unregistering at once through one pacer at 50/s against a 300-point window,
/// with `latency` per request; returns GitHub's refusals and the unregisters accepted.
async fn drain_against_the_window(runners: usize, silent: bool, latency: Duration) -> (u64, usize) {
    let pacer = Arc::new(Pacer::new(per_second(50), 16));
    let window = Arc::new(Mutex::new(Window {
        limit: 300,
        spent: VecDeque::new(),
        limited_until: None,
        silent,
        refused: 0,
    }));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..runners {
        let pacer = Arc::clone(&pacer);
        let window = Arc::clone(&window);
        tasks.spawn(async move {
            // Bounded, like the pipeline's rate-limit retries.
            for _ in 0..50 {
                let p = pacer.enter(Call::Unregister).await;
                tokio::time::sleep(latency).await;
                let verdict = window.lock().unwrap().answer(Instant::now(), 5);
                let _ = p.finish(verdict);
                if verdict == Answer::Accepted {
                    return true;
                }
            }
            false
        });
    }
    let mut accepted = 0;
    while let Some(done) = tasks.join_next().await {
        accepted += usize::from(done.unwrap());
    }
    let refused = window.lock().unwrap().refused;
    assert_eq!(pacer.report().refused, refused);
    (refused, accepted)
}

#[tokio::test(start_paused = true)]
async fn a_thousand_unregisters_far_above_the_limit_are_refused_at_most_three_times() {
    for (silent, latency) in [
        (false, Duration::from_millis(2)),
        (true, Duration::from_millis(2)),
        (false, Duration::from_millis(150)),
    ] {
        let start = Instant::now();
        let (refused, accepted) = drain_against_the_window(1_000, silent, latency).await;
        assert_eq!(accepted, 1_000, "silent {silent}, latency {latency:?}");
        assert!(
            refused <= 3,
            "{refused} refused (silent {silent}, latency {latency:?})"
        );
        // The limit allows 60 a minute: about 17 minutes, and not much more.
        let took = Instant::now() - start;
        assert!(
            (Duration::from_secs(16 * 60)..Duration::from_secs(21 * 60)).contains(&took),
            "{took:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn unlimited_lets_concurrency_unregisters_fly_at_once() {
    let pacer = Pacer::new(per_second(0), 4);
    let mut out = Vec::new();
    for _ in 0..4 {
        let p = timeout(Duration::from_millis(1), pacer.enter(Call::Unregister))
            .await
            .expect("unspaced, below the limit: at once");
        out.push(p);
    }
    // The fifth waits for a place, not for the pace.
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(60)).await);
    // Reads are not held behind them.
    assert!(passes(&pacer, Call::Read, Duration::from_millis(1)).await);
    // A place given back lets exactly one more go.
    assert_eq!(out.pop().unwrap().finish(Answer::Accepted), None);
    let fifth = timeout(Duration::from_millis(1), pacer.enter(Call::Unregister))
        .await
        .expect("a place was given back");
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(60)).await);
    drop(fifth);
    // An abandoned permit gives its place back too.
    assert!(passes(&pacer, Call::Unregister, Duration::from_millis(1)).await);
}

#[tokio::test(start_paused = true)]
async fn waiting_unregisters_are_woken_one_per_place_and_all_go() {
    let pacer = Arc::new(Pacer::new(per_second(0), 3));
    let flying = Arc::new(Mutex::new((0usize, 0usize)));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let pacer = Arc::clone(&pacer);
        let flying = Arc::clone(&flying);
        tasks.spawn(async move {
            let p = pacer.enter(Call::Unregister).await;
            {
                let mut f = flying.lock().unwrap();
                f.0 += 1;
                f.1 = f.1.max(f.0);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            flying.lock().unwrap().0 -= 1;
            assert_eq!(p.finish(Answer::Accepted), None);
        });
    }
    let start = Instant::now();
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    // Never more than three in flight, and three at a time: 50 in 17 rounds of 20 ms.
    assert_eq!(flying.lock().unwrap().1, 3);
    assert_eq!(Instant::now() - start, Duration::from_millis(17 * 20));
}

#[tokio::test(start_paused = true)]
async fn unlimited_turns_serial_after_github_refuses_anything() {
    let pacer = Pacer::new(per_second(0), 8);
    let a = pacer.enter(Call::Unregister).await;
    let b = pacer.enter(Call::Unregister).await;
    assert!(b.finish(secondary(Some(1))).is_some());
    // `a` was sent before the refusal: the probe waits for it.
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(5)).await);
    assert_eq!(a.finish(Answer::Accepted), None);
    let probe = pacer.enter(Call::Unregister).await;
    assert!(probe.is_probe());
    assert_eq!(probe.finish(Answer::Accepted), None);
    // Careful now: one unregister at a time, whatever the concurrency.
    let one = pacer.enter(Call::Unregister).await;
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(60)).await);
    assert!(!passes(&pacer, Call::Read, Duration::from_secs(60)).await);
    assert_eq!(one.finish(Answer::Accepted), None);
    assert!(passes(&pacer, Call::Unregister, Duration::from_secs(60)).await);
}

#[tokio::test(start_paused = true)]
async fn a_finite_rate_stays_serial_at_any_concurrency() {
    let pacer = Arc::new(Pacer::new(per_second(5), 32));
    let first = pacer.enter(Call::Unregister).await;
    // However far past the pace, the next waits for the first's answer.
    assert!(!passes(&pacer, Call::Unregister, Duration::from_secs(10)).await);
    assert_eq!(first.finish(Answer::Accepted), None);
    let flying = Arc::new(Mutex::new((0usize, 0usize)));
    let mut tasks = tokio::task::JoinSet::new();
    let start = Instant::now();
    for _ in 0..10 {
        let pacer = Arc::clone(&pacer);
        let flying = Arc::clone(&flying);
        tasks.spawn(async move {
            let p = pacer.enter(Call::Unregister).await;
            {
                let mut f = flying.lock().unwrap();
                f.0 += 1;
                f.1 = f.1.max(f.0);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            flying.lock().unwrap().0 -= 1;
            assert_eq!(p.finish(Answer::Accepted), None);
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    assert_eq!(flying.lock().unwrap().1, 1);
    // Ten more at 5/s after one just now: 200 ms apart, at least 1.8 s for the last to start.
    assert!(Instant::now() - start >= Duration::from_millis(1800));
}
