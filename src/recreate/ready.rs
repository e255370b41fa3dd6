//! Recognising replacements: which new runner took the place of each deleted one, and whether
//! it is ready (pod Running, registration online on GitHub).
//!
//! What replaces what (docs/design.md §7.1): a deleted EphemeralRunner or legacy Runner is
//! replaced by a runner with a new name in the same scale set / RunnerDeployment; a deleted
//! RunnerSet pod comes back under the same name and registers under a new id. Names of new
//! runners can't be known in advance, so a replacement is any runner pod of the same pool that
//! did not exist when the batch started and that no other deleted runner was paired with,
//! taken in creation order. Under job traffic ARC also replaces runners whose job ended; such
//! a pod can be paired with ours, which is harmless: it is one more ready runner in the pool.

use std::collections::BTreeSet;
use std::time::Duration;

use tokio::time::Instant;

use crate::cluster::{Mode, RunnerPod};
use crate::github::Runner;

/// A runner pod by namespace and name.
pub type PodKey = (String, String);

/// What the replacement of one deleted runner looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// A new runner pod of the same scale set or RunnerDeployment.
    NewInPool { pool: String },
    /// The same pod name with a new pod uid and a new registration id (RunnerSet).
    SameName { old_pod_uid: String, old_id: u64 },
}

/// One deleted runner waiting for its replacement.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// The deleted runner's name.
    pub old: String,
    pub namespace: String,
    pub expect: Expect,
    /// When the old runner was deleted, for the time to ready.
    pub since: Instant,
}

/// A replacement found ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub name: String,
    pub namespace: String,
    pub id: u64,
    pub ready_after: Duration,
}

/// What a deleted runner's pod says about its replacement, from its mode and pool; `None`
/// when ARC replaces nothing (a pod without an ARC owner).
pub fn expectation(pod: &RunnerPod, old_id: u64, since: Instant, old: &str) -> Option<Expectation> {
    let expect = match pod.mode {
        Mode::LegacyStatefulset => Expect::SameName {
            old_pod_uid: pod.uid.clone(),
            old_id,
        },
        Mode::ScaleSet | Mode::LegacyRunner => Expect::NewInPool {
            pool: pod.scale_set.clone()?,
        },
        Mode::Other => return None,
    };
    Some(Expectation {
        old: old.to_owned(),
        namespace: pod.namespace.clone(),
        expect,
        since,
    })
}

/// A pod is ready when it runs and GitHub lists its runner online (busy counts: it already
/// took a job). Returns the registration id.
fn ready_id(pod: &RunnerPod, regs: &[Runner]) -> Option<u64> {
    if pod.deleting || pod.phase.as_deref() != Some("Running") {
        return None;
    }
    regs.iter()
        .find(|r| r.name == pod.name && (r.is_online() || r.busy))
        .map(|r| r.id)
}

/// The pods that could be a waiting runner's replacement once GitHub lists them online:
/// running pods of a waiting pool that are new and not paired yet, and re-created pods of a
/// waiting RunnerSet name. Only these are looked up on GitHub, by name, so a poll costs a few
/// requests however many runners the organization has.
pub fn candidates<'a>(
    waiting: &[&Expectation],
    before: &BTreeSet<PodKey>,
    taken: &BTreeSet<PodKey>,
    pods: &'a [RunnerPod],
) -> Vec<&'a RunnerPod> {
    let mut found: Vec<&RunnerPod> = pods
        .iter()
        .filter(|p| !p.deleting && p.phase.as_deref() == Some("Running"))
        .filter(|p| {
            let key = (p.namespace.clone(), p.name.clone());
            waiting.iter().any(|e| {
                e.namespace == p.namespace
                    && match &e.expect {
                        Expect::SameName { old_pod_uid, .. } => {
                            p.name == e.old && p.uid != *old_pod_uid
                        }
                        Expect::NewInPool { pool } => {
                            p.scale_set.as_deref() == Some(pool.as_str())
                                && !before.contains(&key)
                                && !taken.contains(&key)
                        }
                    }
            })
        })
        .collect();
    found.sort_by(|a, b| (a.created, &a.name).cmp(&(b.created, &b.name)));
    found
}

/// Pairs the `waiting` expectations with ready replacements seen now. `before` holds the pods
/// that existed when the batch started; `taken` the pods already paired (it grows). Returns
/// (index into `waiting`, replacement) for each newly ready one.
pub fn pair_ready(
    waiting: &[&Expectation],
    before: &BTreeSet<PodKey>,
    taken: &mut BTreeSet<PodKey>,
    pods: &[RunnerPod],
    regs: &[Runner],
    now: Instant,
) -> Vec<(usize, Replacement)> {
    let mut fresh: Vec<&RunnerPod> = pods
        .iter()
        .filter(|p| {
            let key = (p.namespace.clone(), p.name.clone());
            !before.contains(&key) && !taken.contains(&key)
        })
        .collect();
    fresh.sort_by(|a, b| (a.created, &a.name).cmp(&(b.created, &b.name)));
    let mut found = Vec::new();
    for (i, e) in waiting.iter().enumerate() {
        let hit = match &e.expect {
            Expect::SameName {
                old_pod_uid,
                old_id,
            } => pods.iter().find_map(|p| {
                let id = ready_id(p, regs)?;
                (p.namespace == e.namespace
                    && p.name == e.old
                    && p.uid != *old_pod_uid
                    && id != *old_id)
                    .then_some((p, id))
            }),
            Expect::NewInPool { pool } => fresh.iter().find_map(|p| {
                let key = (p.namespace.clone(), p.name.clone());
                if taken.contains(&key)
                    || p.namespace != e.namespace
                    || p.scale_set.as_deref() != Some(pool.as_str())
                {
                    return None;
                }
                ready_id(p, regs).map(|id| (*p, id))
            }),
        };
        if let Some((p, id)) = hit {
            taken.insert((p.namespace.clone(), p.name.clone()));
            found.push((
                i,
                Replacement {
                    name: p.name.clone(),
                    namespace: p.namespace.clone(),
                    id,
                    ready_after: now.saturating_duration_since(e.since),
                },
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, pool: &str, mode: Mode, uid: &str, phase: &str, secs: i64) -> RunnerPod {
        RunnerPod {
            name: name.into(),
            namespace: "arc".into(),
            uid: uid.into(),
            node: None,
            phase: Some(phase.into()),
            created: Some(jiff::Timestamp::from_second(1_800_000_000 + secs).unwrap()),
            deleting: false,
            mode,
            owner: None,
            scale_set: Some(pool.into()),
            recorded_runner_id: None,
            runner_container: None,
        }
    }

    fn reg(id: u64, name: &str, status: &str) -> Runner {
        Runner {
            id,
            name: name.into(),
            os: "linux".into(),
            status: status.into(),
            busy: false,
            labels: vec![],
            runner_group_id: None,
            ephemeral: None,
            version: None,
        }
    }

    fn exp(old: &str, expect: Expect, since: Instant) -> Expectation {
        Expectation {
            old: old.into(),
            namespace: "arc".into(),
            expect,
            since,
        }
    }

    #[test]
    fn a_new_pod_of_the_pool_is_paired_once_it_runs_and_is_online() {
        let t0 = Instant::now();
        let e = exp("set-a", Expect::NewInPool { pool: "set".into() }, t0);
        let before: BTreeSet<PodKey> = [("arc".to_owned(), "set-b".to_owned())].into();
        let mut taken = BTreeSet::new();
        let pods = vec![
            pod("set-b", "set", Mode::ScaleSet, "1", "Running", 0),
            pod("set-c", "set", Mode::ScaleSet, "2", "Pending", 5),
            pod("other-x", "other", Mode::ScaleSet, "3", "Running", 6),
        ];
        let regs = vec![
            reg(1, "set-b", "online"),
            reg(2, "set-c", "offline"),
            reg(3, "other-x", "online"),
        ];
        // Pending and offline: not yet; another pool's pod: never; an old pod: never.
        assert!(pair_ready(&[&e], &before, &mut taken, &pods, &regs, t0).is_empty());
        let pods = vec![pod("set-c", "set", Mode::ScaleSet, "2", "Running", 5)];
        let regs = vec![reg(2, "set-c", "online")];
        let got = pair_ready(&[&e], &before, &mut taken, &pods, &regs, t0);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].1.name.as_str(), got[0].1.id), ("set-c", 2));
        assert!(taken.contains(&("arc".to_owned(), "set-c".to_owned())));
    }

    #[test]
    fn two_deleted_runners_never_share_a_replacement() {
        let t0 = Instant::now();
        let a = exp("a", Expect::NewInPool { pool: "set".into() }, t0);
        let b = exp("b", Expect::NewInPool { pool: "set".into() }, t0);
        let mut taken = BTreeSet::new();
        let pods = vec![
            pod("n2", "set", Mode::ScaleSet, "2", "Running", 2),
            pod("n1", "set", Mode::ScaleSet, "1", "Running", 1),
        ];
        let regs = vec![reg(11, "n1", "online")];
        let got = pair_ready(&[&a, &b], &BTreeSet::new(), &mut taken, &pods, &regs, t0);
        assert_eq!(got.len(), 1, "only n1 is online");
        let regs = vec![reg(11, "n1", "online"), reg(12, "n2", "online")];
        let got = pair_ready(&[&b], &BTreeSet::new(), &mut taken, &pods, &regs, t0);
        assert_eq!(got[0].1.name, "n2");
    }

    #[test]
    fn a_runner_set_pod_is_ready_under_its_name_with_a_new_pod_and_a_new_id() {
        let t0 = Instant::now();
        let e = exp(
            "rs-abc-0",
            Expect::SameName {
                old_pod_uid: "old".into(),
                old_id: 7,
            },
            t0,
        );
        let before: BTreeSet<PodKey> = [("arc".to_owned(), "rs-abc-0".to_owned())].into();
        let mut taken = BTreeSet::new();
        let old = vec![pod(
            "rs-abc-0",
            "rs",
            Mode::LegacyStatefulset,
            "old",
            "Running",
            0,
        )];
        let new = vec![pod(
            "rs-abc-0",
            "rs",
            Mode::LegacyStatefulset,
            "new",
            "Running",
            9,
        )];
        let same_id = vec![reg(7, "rs-abc-0", "online")];
        let new_id = vec![reg(9, "rs-abc-0", "online")];
        assert!(pair_ready(&[&e], &before, &mut taken, &old, &new_id, t0).is_empty());
        assert!(pair_ready(&[&e], &before, &mut taken, &new, &same_id, t0).is_empty());
        let got = pair_ready(&[&e], &before, &mut taken, &new, &new_id, t0);
        assert_eq!((got[0].1.name.as_str(), got[0].1.id), ("rs-abc-0", 9));
    }

    #[test]
    fn only_new_running_pods_of_waiting_pools_are_looked_up() {
        let t0 = Instant::now();
        let a = exp("a", Expect::NewInPool { pool: "set".into() }, t0);
        let rs = exp(
            "rs-0",
            Expect::SameName {
                old_pod_uid: "old".into(),
                old_id: 1,
            },
            t0,
        );
        let before: BTreeSet<PodKey> = [("arc".to_owned(), "old-1".to_owned())].into();
        let taken: BTreeSet<PodKey> = [("arc".to_owned(), "paired".to_owned())].into();
        let pods = vec![
            pod("old-1", "set", Mode::ScaleSet, "1", "Running", 0),
            pod("paired", "set", Mode::ScaleSet, "2", "Running", 1),
            pod("pending", "set", Mode::ScaleSet, "3", "Pending", 2),
            pod("elsewhere", "other", Mode::ScaleSet, "4", "Running", 3),
            pod("new-b", "set", Mode::ScaleSet, "6", "Running", 5),
            pod("new-a", "set", Mode::ScaleSet, "5", "Running", 4),
            pod("rs-0", "rs", Mode::LegacyStatefulset, "new", "Running", 6),
        ];
        let names: Vec<&str> = candidates(&[&a, &rs], &before, &taken, &pods)
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["new-a", "new-b", "rs-0"]);
        let old_rs = vec![pod(
            "rs-0",
            "rs",
            Mode::LegacyStatefulset,
            "old",
            "Running",
            0,
        )];
        assert!(candidates(&[&rs], &before, &taken, &old_rs).is_empty());
    }

    #[test]
    fn pods_without_an_arc_owner_expect_no_replacement() {
        let p = pod("bare", "set", Mode::Other, "1", "Running", 0);
        assert!(expectation(&p, 1, Instant::now(), "bare").is_none());
        let p = pod("x", "set", Mode::ScaleSet, "1", "Running", 0);
        assert_eq!(
            expectation(&p, 1, Instant::now(), "x").map(|e| e.expect),
            Some(Expect::NewInPool { pool: "set".into() })
        );
    }
}
