//! `--log-noise`: the dockerd lines a dind runner image writes into the runner container's log,
//! and the merge of those lines with the runner's own.
//!
//! Nothing is stored per line: 300 runners × 40 lines/s for minutes would be millions of lines.
//! A container's noise is a pure function of its pod uid, the seed, and when it ran jobs
//! ([`ContainerLife`]): each whole second holds `rate` candidate lines while a job runs and one
//! candidate in [`IDLE_EVERY`] while idle, each at a drawn nanosecond of that second. A read
//! synthesizes the seconds it asks for (from `sinceTime`, or the container's start) up to the
//! world's clock, so the same read always answers the same lines, a later read only adds lines
//! after the earlier one's end, and `sinceTime`, `tailLines`, `timestamps` and `limitBytes`
//! apply to the merged log exactly as a kubelet applies them to its log file.
//!
//! Noise never contains the lines the drain looks for (`Running job:`, `completed with
//! result`, `Listening for Jobs`, the registration-deleted notice): it only buries them.

use jiff::Timestamp;

use crate::store::{LogEntry, rfc3339_nanos};

/// While idle, about one dockerd line every this many seconds.
const IDLE_EVERY: u64 = 4;
const NANOS: i64 = 1_000_000_000;

/// When a runner container ran and when it ran jobs (wall-clock times of the world).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContainerLife {
    pub started: Timestamp,
    /// When the container terminated; `None` while it runs.
    pub ended: Option<Timestamp>,
    /// Jobs as (assigned, ended); `None` while the job runs.
    pub jobs: Vec<(Timestamp, Option<Timestamp>)>,
}

impl ContainerLife {
    pub(crate) fn new(started: Timestamp) -> Self {
        ContainerLife {
            started,
            ended: None,
            jobs: Vec::new(),
        }
    }

    /// Closes the interval of the job that runs now, if any.
    pub(crate) fn job_ended(&mut self, at: Timestamp) {
        if let Some(last) = self.jobs.last_mut().filter(|j| j.1.is_none()) {
            last.1 = Some(at);
        }
    }

    fn in_job(&self, at: Timestamp) -> bool {
        self.jobs
            .iter()
            .any(|(from, to)| *from <= at && to.is_none_or(|to| at < to))
    }

    /// Whether any job overlaps the second `[s, s+1)`.
    fn job_during(&self, s: i64) -> bool {
        let (a, b) = (s * NANOS, (s + 1) * NANOS);
        self.jobs.iter().any(|(from, to)| {
            from.as_nanosecond() < i128::from(b)
                && to.is_none_or(|to| to.as_nanosecond() > i128::from(a))
        })
    }
}

/// One container's noise, as far as the world's clock has come.
#[derive(Debug, Clone)]
pub(crate) struct Noise {
    pub seed: u64,
    pub rate: u32,
    pub life: ContainerLife,
    /// The world's clock at the read: no line after it exists yet.
    pub until: Timestamp,
}

/// A seed for a container's noise from the world's seed and its pod uid.
pub(crate) fn seed(world_seed: u64, pod_uid: &str) -> u64 {
    pod_uid
        .bytes()
        .fold(splitmix(world_seed), |h, b| splitmix(h ^ u64::from(b)))
}

impl Noise {
    /// The noise lines stamped at or after `from` (the container's start when `None`), up to
    /// [`Noise::until`], in time order.
    pub(crate) fn lines(&self, from: Option<Timestamp>) -> Vec<(Timestamp, String)> {
        let start = from.map_or(self.life.started, |f| f.max(self.life.started));
        let end = self.life.ended.map_or(self.until, |e| e.min(self.until));
        let mut out = Vec::new();
        if start > end {
            return out;
        }
        let keep = |t: Timestamp| t >= start && t <= end;
        for s in start.as_second()..=end.as_second() {
            let mut second: Vec<(Timestamp, String)> = Vec::new();
            if self.rate > 0 && self.life.job_during(s) {
                for i in 0..u64::from(self.rate) {
                    let h = self.hash(s, i);
                    if let Some(t) = at(s, h).filter(|t| keep(*t) && self.life.in_job(*t)) {
                        second.push((t, busy_line(t, h)));
                    }
                }
            }
            let h = self.hash(s, u64::from(u32::MAX) + 1);
            if (h >> 40).is_multiple_of(IDLE_EVERY)
                && let Some(t) = at(s, h).filter(|t| keep(*t) && !self.life.in_job(*t))
            {
                second.push((t, idle_line(t, h)));
            }
            second.sort_by_key(|(t, _)| *t);
            out.extend(second);
        }
        out
    }

    fn hash(&self, s: i64, i: u64) -> u64 {
        splitmix(self.seed ^ splitmix((s as u64) ^ i.rotate_left(40)))
    }
}

/// The instant `h` picks in second `s`.
fn at(s: i64, h: u64) -> Option<Timestamp> {
    let nanos = (h % NANOS as u64) as i64;
    Timestamp::new(s, nanos as i32).ok()
}

fn hex(h: u64, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut x = h;
    while out.len() < len {
        x = splitmix(x);
        out.push_str(&format!("{x:016x}"));
    }
    out.truncate(len);
    out
}

/// A dockerd line while a job's containers come and go.
fn busy_line(t: Timestamp, h: u64) -> String {
    let time = rfc3339_nanos(t);
    let id = hex(h, 64);
    let pid = 1_000 + (h >> 20) % 60_000;
    match (h >> 50) % 8 {
        0 => format!(
            "time=\"{time}\" level=info msg=\"ignoring event\" container={id} module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\""
        ),
        1 => format!("time=\"{time}\" level=info msg=\"shim disconnected\" id={id} namespace=moby"),
        2 => format!(
            "time=\"{time}\" level=warning msg=\"cleaning up after shim disconnected\" id={id} namespace=moby"
        ),
        3 => format!(
            "time=\"{time}\" level=info msg=\"loading plugin \\\"io.containerd.event.v1.publisher\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.event.v1"
        ),
        4 => format!(
            "time=\"{time}\" level=info msg=\"loading plugin \\\"io.containerd.ttrpc.v1.task\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.ttrpc.v1"
        ),
        5 => format!(
            "time=\"{time}\" level=info msg=\"starting signal loop\" namespace=moby path=/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby/{id} pid={pid} runtime=io.containerd.runc.v2"
        ),
        6 => format!(
            "time=\"{time}\" level=info msg=\"Layer sha256:{} cleaned up\"",
            hex(h ^ 0x5bd1_e995, 64)
        ),
        _ => format!(
            "time=\"{time}\" level=info msg=\"Container failed to exit within 10s of signal 15 - using the force\" container={id}"
        ),
    }
}

/// A dockerd line while no job runs.
fn idle_line(t: Timestamp, h: u64) -> String {
    let time = rfc3339_nanos(t);
    match (h >> 50) % 3 {
        0 => format!(
            "time=\"{time}\" level=info msg=\"ignoring event\" container={} module=libcontainerd namespace=moby topic=/containers/delete type=\"*events.ContainerDelete\"",
            hex(h, 64)
        ),
        1 => format!(
            "time=\"{time}\" level=info msg=\"API listen on /var/run/docker.sock\" module=api"
        ),
        _ => format!(
            "time=\"{time}\" level=warning msg=\"failed to prune image cache: no space to reclaim\" module=builder reclaimed=0B"
        ),
    }
}

/// The runner container's log: its own lines (stored) merged with its noise (synthesized).
#[derive(Debug, Clone)]
pub struct LogView {
    pub(crate) real: Vec<LogEntry>,
    pub(crate) noise: Option<Noise>,
}

impl LogView {
    /// Every line stamped at or after `since` (all when `None`), oldest first, with kubelet
    /// timestamps. A noise line and a runner line at the same instant: the noise comes first,
    /// so a later read never finds a line inserted before one it already saw.
    pub fn entries(&self, since: Option<Timestamp>) -> Vec<LogEntry> {
        let real = self.real.iter().filter_map(|e| {
            let t: Timestamp = e.time.parse().ok()?;
            since.is_none_or(|s| t >= s).then_some((t, e))
        });
        let Some(noise) = &self.noise else {
            return real.map(|(_, e)| e.clone()).collect();
        };
        let mut noise = noise.lines(since).into_iter().peekable();
        let mut out = Vec::new();
        for (t, e) in real {
            while let Some((n, line)) = noise.next_if(|(n, _)| *n <= t) {
                out.push(LogEntry {
                    time: rfc3339_nanos(n),
                    line,
                });
            }
            out.push(e.clone());
        }
        out.extend(noise.map(|(t, line)| LogEntry {
            time: rfc3339_nanos(t),
            line,
        }));
        out
    }
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: i64) -> Timestamp {
        Timestamp::new(1_800_000_000 + s, 0).unwrap()
    }

    fn noise(rate: u32, jobs: Vec<(Timestamp, Option<Timestamp>)>, until: i64) -> Noise {
        Noise {
            seed: 7,
            rate,
            life: ContainerLife {
                started: ts(0),
                ended: None,
                jobs,
            },
            until: ts(until),
        }
    }

    #[test]
    fn the_rate_holds_while_a_job_runs_and_idle_is_sparse() {
        let n = noise(40, vec![(ts(100), Some(ts(110)))], 200);
        let lines = n.lines(None);
        let busy = lines
            .iter()
            .filter(|(t, _)| *t >= ts(100) && *t < ts(110))
            .count();
        assert_eq!(busy, 400);
        let idle = lines.len() - busy;
        // About one line in four seconds over 190 idle seconds.
        assert!((20..=80).contains(&idle), "{idle}");
        assert!(lines.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        for (t, line) in &lines {
            assert!(line.starts_with(&format!("time=\"{}\" level=", rfc3339_nanos(*t))));
            assert!(line.len() > 60, "{line}");
            for evidence in [
                "Running job",
                "completed with result",
                "Listening",
                "deleted",
            ] {
                assert!(!line.contains(evidence), "{line}");
            }
        }
    }

    #[test]
    fn reads_are_deterministic_and_later_reads_only_add() {
        let jobs = vec![(ts(5), None)];
        let early = noise(10, jobs.clone(), 8).lines(None);
        let late = noise(10, jobs, 20).lines(None);
        assert_eq!(early, late[..early.len()]);
        assert!(late.len() > early.len());
        let from = noise(10, vec![(ts(5), None)], 20).lines(Some(ts(12)));
        assert_eq!(from, late[late.len() - from.len()..]);
        assert!(from.iter().all(|(t, _)| *t >= ts(12)));
    }

    #[test]
    fn a_terminated_container_writes_no_more() {
        let mut n = noise(10, vec![(ts(0), Some(ts(5)))], 100);
        n.life.ended = Some(ts(5));
        assert!(n.lines(None).iter().all(|(t, _)| *t <= ts(5)));
    }

    #[test]
    fn the_merge_keeps_time_order_with_noise_first_on_ties() {
        let n = noise(5, vec![(ts(0), None)], 3);
        let first = n.lines(None)[0].0;
        let view = LogView {
            real: vec![LogEntry {
                time: rfc3339_nanos(first),
                line: "Running job: build".into(),
            }],
            noise: Some(n),
        };
        let all = view.entries(None);
        assert_eq!(all.len(), 16);
        assert_ne!(all[0].line, "Running job: build");
        assert_eq!(all[1].line, "Running job: build");
        let times: Vec<Timestamp> = all.iter().map(|e| e.time.parse().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
    }
}
