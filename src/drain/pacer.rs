//! The one gate every GitHub call of a drain passes, and the pace of its unregisters.
//!
//! GitHub asks for mutating requests to be made serially and at least a second apart, and its
//! secondary limits charge 5 points per DELETE; it bans integrations that keep calling while
//! limited. So:
//!
//! - At a finite `--max-unregister-rate`, unregisters go one at a time (never two DELETEs in
//!   flight), spaced at the current *pace* (a burst of one), never above the rate; reads are
//!   not spaced, only gated.
//! - With the ceiling off (`--max-unregister-rate 0`, the operator's choice), up to
//!   `--concurrency` unregisters are in flight at once, unspaced, until GitHub first refuses
//!   anything; from then on the run is careful (below) and they go one at a time again. Few
//!   requests left in the hourly window (below) also bring them back to one at a time.
//! - A rate-limit refusal stops **every** GitHub call (unregisters and reads) for the wait
//!   GitHub named (`retry-after`, or until `x-ratelimit-reset` for the primary limit), or at
//!   least a minute when it named none. Then **one probe** goes alone: it is let through only
//!   when no other call is in flight, and nothing else is until its answer is in. Accepted, the
//!   others resume; refused again, the wait doubles with each refusal in a row (exponential
//!   back-off, up to [`MAX_BACKOFF`]), never shorter than what GitHub named.
//! - A secondary limit lowers the pace to [`DECREASE`] of what GitHub accepted: the unregisters
//!   accepted in the minute before the refusal (GitHub counts per minute), or of the pace if
//!   that was lower (multiplicative decrease). Each accepted unregister raises it a little, by
//!   [`INCREASE_PER_MINUTE`] unregisters a minute per minute's worth of them (additive
//!   increase), never above `--max-unregister-rate`.
//! - Once GitHub has refused a request, the run turns *careful*: from then on one GitHub call
//!   at a time, reads included (GitHub: "make requests serially instead of concurrently"), so
//!   a later refusal finds no other call in flight to be refused with it. Before that, reads
//!   run side by side up to `--concurrency`, and those in flight when the first refusal comes
//!   back may be refused too.
//! - With few requests left in the hourly window (`x-ratelimit-remaining`), the rest are spread
//!   until the reset instead of running into the limit.
//!
//! The controller is pure state behind a mutex, driven by tokio's clock, so every rule is
//! tested on a paused clock; the pipeline only asks for a [`Permit`] and reports its
//! [`Answer`].
//!
//! Wake-ups: an unregister waiting only for a free unregister place is woken alone
//! (`Notify::notify_one`, one per place given back), not with every other waiter, so a drain
//! of thousands of runners does not wake thousands of tasks per answer. Changes that may let
//! anyone through (a probe's end, a careful run's call ending) still wake every waiter.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::github::rate::SECONDARY_LIMIT_DEFAULT_WAIT;
pub use crate::github::rate::{Limit, LimitKind};

/// After a secondary limit the pace is this share of what GitHub accepted.
pub const DECREASE: f64 = 0.9;
/// The additive increase: unregisters per minute added to the pace for each minute's worth of
/// accepted unregisters at that pace (from 54/min back to 60/min takes 12 minutes).
pub const INCREASE_PER_MINUTE: f64 = 0.5;
/// The slowest pace a decrease sets: one unregister a minute.
const MIN_PACE: f64 = 1.0 / 60.0;
/// What GitHub accepted is measured over this (its secondary limits count per minute).
const MEASURE: Duration = Duration::from_secs(60);
/// The longest a doubled wait grows (a longer wait named by GitHub is still honoured).
pub const MAX_BACKOFF: Duration = Duration::from_secs(16 * 60);

/// The ceiling on unregisters, `count` per `per` (`--max-unregister-rate`); a count of 0 is
/// no ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub per: Duration,
}

/// What a call is: unregisters are paced, reads only gated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Unregister,
    Read,
}

/// How GitHub answered a call, as far as its limits go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Any HTTP answer other than a rate-limit refusal (204, 404, 422, 200, 401…).
    Accepted,
    /// Refused over a rate limit.
    Refused(Limit),
    /// No verdict: no answer came, or a 5xx. A probe that ends so is sent again by the next
    /// caller.
    Lost,
}

/// A wait a refusal began: what the drain tells the operator, once per wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spell {
    pub kind: LimitKind,
    /// How long every GitHub call waits before the probe.
    pub wait: Duration,
    /// Whether GitHub named the wait (`retry-after` or `x-ratelimit-reset`).
    pub told: bool,
    /// Refusals in a row before this one (0: the first; the wait doubles with each).
    pub repeat: u32,
    /// The pace after the refusal, as the gap between unregisters (`None`: unpaced).
    pub spacing: Option<Duration>,
    /// Whether this refusal lowered the pace.
    pub lowered: bool,
}

/// What the limits cost a run, for its result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RateReport {
    /// Requests GitHub refused over a rate limit.
    pub refused: u64,
    /// Waits they began.
    pub waits: u64,
    /// The waits' planned length in all, in seconds.
    pub waited_seconds: u64,
    /// The unregister pace at the end, per second (`None`: never lowered from unpaced).
    pub pace_per_second: Option<f64>,
}

/// The gate and pace of one run (shared by all of recreate's batches).
#[derive(Debug)]
pub struct Pacer {
    /// `--max-unregister-rate` per second; `None`: unlimited.
    ceiling: Option<f64>,
    state: Mutex<State>,
    /// Woken when a probe ends or the calls in flight drop while probing.
    changed: Notify,
    /// Woken once per unregister place given back (the next unregister waiting for one).
    place: Notify,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Calls pass (unregisters at the pace).
    Open,
    /// Nobody passes before `until`.
    Limited { until: Instant },
    /// One probe may go, alone; `out` while it is in flight.
    Probing { out: bool },
}

#[derive(Debug)]
struct State {
    /// Unregisters per second; `None`: unpaced.
    pace: Option<f64>,
    /// The earliest moment the next unregister may go.
    next_slot: Option<Instant>,
    /// Spreads the rest of a nearly spent hourly quota.
    spread_until: Option<Instant>,
    phase: Phase,
    in_flight: usize,
    /// Unregisters in flight: at the limit, the next waits for an answer.
    unregistering: usize,
    /// Unregisters allowed in flight while unpaced and not careful (`--concurrency`).
    parallel: usize,
    /// GitHub refused a request in this run: one call at a time from now on.
    careful: bool,
    /// Counts the waits begun: a permit given before the last one answers for older news.
    generation: u64,
    streak: u32,
    last_wait: Duration,
    /// Accepted unregisters of the last [`MEASURE`].
    accepted: VecDeque<Instant>,
    report: RateReport,
}

/// What `enter` should do now.
enum Turn {
    Go {
        probe: bool,
        generation: u64,
    },
    Until(Instant),
    Change,
    /// An unregister waiting for an unregister place (or any change).
    Place,
}

/// Whom a given-back place wakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    Nobody,
    /// The next unregister waiting for a place.
    OneUnregister,
    Everyone,
}

impl Pacer {
    /// A pacer at `rate`; a rate of 0 per anything means unlimited, and then up to
    /// `concurrency` unregisters may be in flight until GitHub first refuses a request.
    pub fn new(rate: Rate, concurrency: usize) -> Self {
        let ceiling = (rate.count > 0 && !rate.per.is_zero())
            .then(|| f64::from(rate.count) / rate.per.as_secs_f64());
        Pacer {
            ceiling,
            state: Mutex::new(State {
                pace: ceiling,
                next_slot: None,
                spread_until: None,
                phase: Phase::Open,
                in_flight: 0,
                unregistering: 0,
                parallel: concurrency.max(1),
                careful: false,
                generation: 0,
                streak: 0,
                last_wait: Duration::ZERO,
                accepted: VecDeque::new(),
                report: RateReport {
                    pace_per_second: ceiling,
                    ..RateReport::default()
                },
            }),
            changed: Notify::new(),
            place: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for this call's turn at GitHub. Cancel-safe: a dropped wait takes nothing.
    pub async fn enter(&self, call: Call) -> Permit<'_> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Enabled before looking, so a place given back in between is not missed; dropped
            // unconsumed (this call went), a `notify_one` passes on to the next waiter.
            let place = self.place.notified();
            tokio::pin!(place);
            if call == Call::Unregister {
                place.as_mut().enable();
            }
            let turn = self.lock().turn(call, Instant::now());
            match turn {
                Turn::Go { probe, generation } => {
                    return Permit {
                        pacer: self,
                        call,
                        probe,
                        generation,
                        done: false,
                    };
                }
                Turn::Until(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => {}
                        () = &mut notified => {}
                    }
                }
                Turn::Change => notified.await,
                Turn::Place => {
                    tokio::select! {
                        () = &mut notified => {}
                        () = &mut place => {}
                    }
                }
            }
        }
    }

    /// Takes an accepted answer's rate-limit headers into account: with few requests left in
    /// the hourly window, spread the rest evenly until the reset.
    pub fn observe(&self, hint: RateHint) {
        let (Some(remaining), Some(reset_in)) = (hint.remaining, hint.reset_in) else {
            return;
        };
        let gap = match remaining {
            0 => reset_in,
            1..50 => reset_in / u32::try_from(remaining).unwrap_or(u32::MAX),
            _ => return,
        };
        let until = Instant::now() + gap;
        let mut s = self.lock();
        if s.spread_until.is_none_or(|cur| cur < until) {
            s.spread_until = Some(until);
        }
    }

    /// What the limits cost so far.
    pub fn report(&self) -> RateReport {
        let s = self.lock();
        RateReport {
            pace_per_second: s.pace,
            ..s.report
        }
    }

    /// The unregister pace now, per second (`None`: unpaced).
    pub fn pace(&self) -> Option<f64> {
        self.lock().pace
    }

    fn finish(&self, p: &Permit<'_>, verdict: Answer) -> Option<Spell> {
        let (spell, wake) = {
            let mut s = self.lock();
            let wake = s.release(p);
            let spell = s.finish(
                p.call,
                p.probe,
                p.generation,
                verdict,
                Instant::now(),
                self.ceiling,
            );
            (spell, wake)
        };
        self.wake(wake);
        spell
    }

    fn wake(&self, wake: Wake) {
        match wake {
            Wake::Nobody => {}
            Wake::OneUnregister => self.place.notify_one(),
            // Unregisters waiting for a place hear this too (they wait on both).
            Wake::Everyone => self.changed.notify_waiters(),
        }
    }

    fn abandon(&self, p: &Permit<'_>) {
        let wake = {
            let mut s = self.lock();
            let wake = s.release(p);
            if p.probe && s.phase == (Phase::Probing { out: true }) {
                s.phase = Phase::Probing { out: false };
            }
            wake
        };
        self.wake(wake);
    }
}

impl State {
    /// Gives back `p`'s place; which callers waiting for a change must look again.
    fn release(&mut self, p: &Permit<'_>) -> Wake {
        self.in_flight = self.in_flight.saturating_sub(1);
        if p.call == Call::Unregister {
            self.unregistering = self.unregistering.saturating_sub(1);
        }
        if p.probe || self.careful || matches!(self.phase, Phase::Probing { .. }) {
            Wake::Everyone
        } else if p.call == Call::Unregister {
            Wake::OneUnregister
        } else {
            Wake::Nobody
        }
    }

    /// Unregisters allowed in flight now: `parallel` while unpaced, not careful and not
    /// spreading a nearly spent quota; one otherwise.
    fn unregister_limit(&self) -> usize {
        if self.pace.is_none() && !self.careful && self.spread_until.is_none() {
            self.parallel
        } else {
            1
        }
    }

    fn turn(&mut self, call: Call, now: Instant) -> Turn {
        if let Phase::Limited { until } = self.phase {
            if now < until {
                return Turn::Until(until);
            }
            self.phase = Phase::Probing { out: false };
        }
        let probe = match self.phase {
            Phase::Probing { out: true } => return Turn::Change,
            // Answers to calls sent before the refusal are still out: the probe goes alone.
            Phase::Probing { out: false } if self.in_flight > 0 => return Turn::Change,
            Phase::Probing { out: false } => true,
            Phase::Open | Phase::Limited { .. } if self.careful && self.in_flight > 0 => {
                return Turn::Change;
            }
            Phase::Open | Phase::Limited { .. } => false,
        };
        if call == Call::Unregister {
            if self.unregistering >= self.unregister_limit() {
                return Turn::Place;
            }
            let at = match (self.next_slot, self.spread_until) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            if let Some(at) = at.filter(|at| *at > now) {
                return Turn::Until(at);
            }
            self.next_slot = self.pace.map(|p| now + Duration::from_secs_f64(1.0 / p));
        }
        if probe {
            self.phase = Phase::Probing { out: true };
        }
        self.unregistering += usize::from(call == Call::Unregister);
        self.in_flight += 1;
        Turn::Go {
            probe,
            generation: self.generation,
        }
    }

    fn finish(
        &mut self,
        call: Call,
        probe: bool,
        generation: u64,
        verdict: Answer,
        now: Instant,
        ceiling: Option<f64>,
    ) -> Option<Spell> {
        match verdict {
            Answer::Accepted => {
                if call == Call::Unregister {
                    self.accepted.push_back(now);
                    self.trim(now);
                    self.increase(ceiling);
                }
                if probe && self.phase == (Phase::Probing { out: true }) {
                    self.phase = Phase::Open;
                }
                None
            }
            Answer::Lost => {
                if probe && self.phase == (Phase::Probing { out: true }) {
                    self.phase = Phase::Probing { out: false };
                }
                None
            }
            Answer::Refused(limit) => self.refused(limit, probe, generation, now),
        }
    }

    fn refused(
        &mut self,
        limit: Limit,
        probe: bool,
        generation: u64,
        now: Instant,
    ) -> Option<Spell> {
        self.report.refused += 1;
        let named = limit.wait.unwrap_or(SECONDARY_LIMIT_DEFAULT_WAIT);
        if !probe && generation != self.generation {
            // Sent before the last refusal was known: no new wait, but GitHub's answer may
            // reach further than the one being waited out.
            let until = now + named;
            match self.phase {
                Phase::Limited { until: cur } if cur >= until => {}
                Phase::Probing { out: true } => {}
                _ => self.phase = Phase::Limited { until },
            }
            return None;
        }
        // A refused probe is a repeat: no request was accepted since the last refusal.
        self.streak = if probe { self.streak + 1 } else { 0 };
        let wait = if self.streak == 0 {
            named
        } else {
            named.max((self.last_wait * 2).min(MAX_BACKOFF))
        };
        self.last_wait = wait;
        // A refused probe says nothing new about the pace: it was lowered when the wait began.
        let lowered = limit.kind == LimitKind::Secondary && !probe && self.decrease(now);
        self.phase = Phase::Limited { until: now + wait };
        self.careful = true;
        self.generation += 1;
        self.report.waits += 1;
        self.report.waited_seconds += wait.as_secs();
        Some(Spell {
            kind: limit.kind,
            wait,
            told: limit.wait.is_some(),
            repeat: self.streak,
            spacing: self.pace.map(|p| Duration::from_secs_f64(1.0 / p)),
            lowered,
        })
    }

    fn trim(&mut self, now: Instant) {
        while self
            .accepted
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= MEASURE)
        {
            self.accepted.pop_front();
        }
    }

    /// Multiplicative decrease: [`DECREASE`] of what GitHub accepted in the last minute, or of
    /// the pace if that was lower. Whether the pace went down.
    fn decrease(&mut self, now: Instant) -> bool {
        self.trim(now);
        let accepted = self.accepted.len() as f64 / MEASURE.as_secs_f64();
        let from = self.pace.map_or(accepted, |p| p.min(accepted));
        let lowered = (from * DECREASE).max(MIN_PACE);
        if self.pace.is_some_and(|p| p <= lowered) {
            return false;
        }
        self.pace = Some(lowered);
        true
    }

    /// Additive increase after an accepted unregister, up to `ceiling`.
    fn increase(&mut self, ceiling: Option<f64>) {
        let Some(pace) = self.pace else { return };
        let per_minute = pace * 60.0;
        let raised = (per_minute + INCREASE_PER_MINUTE / per_minute) / 60.0;
        self.pace = Some(ceiling.map_or(raised, |c| raised.min(c)));
    }
}

/// One call's turn at GitHub. Report its answer with [`Permit::finish`]; dropped unfinished
/// (the call was abandoned), it frees its place, and a probe lets the next caller probe.
#[derive(Debug)]
#[must_use = "a permit reports its call's answer"]
pub struct Permit<'a> {
    pacer: &'a Pacer,
    call: Call,
    probe: bool,
    generation: u64,
    done: bool,
}

impl Permit<'_> {
    /// Whether this call is the probe after a wait.
    pub fn is_probe(&self) -> bool {
        self.probe
    }

    /// Whether no refusal came in since the permit was given (a call still waiting for a
    /// concurrency slot should not go out into a new wait).
    pub fn is_current(&self) -> bool {
        self.probe || self.pacer.lock().generation == self.generation
    }

    /// Reports GitHub's answer; a refusal that begins a wait returns it, to be told once.
    pub fn finish(mut self, verdict: Answer) -> Option<Spell> {
        self.done = true;
        self.pacer.finish(&self, verdict)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.pacer.abandon(self);
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
