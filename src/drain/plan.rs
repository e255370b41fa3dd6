//! Pure planning: which runners a drain unregisters, what it then deletes, what it leaves alone.
//!
//! No I/O here. The inventory says what each runner is; the plan says what to do with it, and
//! `--dry-run` prints exactly this plan.

use serde::Serialize;

pub use crate::inventory::State;

/// Who owns a runner pod, which decides what a drain deletes (docs/design.md §3.3, §7.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Owner {
    /// Scale-set mode: the pod belongs to an EphemeralRunner (`actions.github.com`).
    EphemeralRunner { name: String, uid: String },
    /// Legacy mode: the pod belongs to a Runner (`actions.summerwind.dev`).
    Runner { name: String },
    /// Legacy RunnerSet: the pod belongs to a StatefulSet.
    StatefulSet { name: String },
    /// Not an ARC-managed pod shape we know.
    Other,
}

/// The pod half of a runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub node: Option<String>,
    pub owner: Owner,
}

/// One runner as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    /// The GitHub registration id, when registered.
    pub runner_id: Option<u64>,
    pub state: State,
    /// The job the runner is running, when known.
    pub job: Option<String>,
    pub pod: Option<PodRef>,
}

/// What to delete once a runner is unregistered and confirmed idle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DeleteTarget {
    /// Delete the EphemeralRunner (never the bare pod: ARC would recreate it with a dead
    /// registration, a stuck runner).
    EphemeralRunner {
        namespace: String,
        name: String,
        uid: String,
        /// The pod, for the idle check.
        pod_uid: String,
    },
    /// Delete the pod; with `annotate`, first mark it
    /// `actions-runner/unregistration-complete-timestamp` so legacy ARC's finalizer does not
    /// unregister again.
    Pod {
        namespace: String,
        name: String,
        uid: String,
        annotate: bool,
    },
}

impl DeleteTarget {
    /// `ephemeralrunner/NS/NAME` or `pod/NS/NAME`.
    pub fn display(&self) -> String {
        match self {
            DeleteTarget::EphemeralRunner {
                namespace, name, ..
            } => format!("ephemeralrunner/{namespace}/{name}"),
            DeleteTarget::Pod {
                namespace, name, ..
            } => format!("pod/{namespace}/{name}"),
        }
    }

    pub fn namespace(&self) -> &str {
        match self {
            DeleteTarget::EphemeralRunner { namespace, .. }
            | DeleteTarget::Pod { namespace, .. } => namespace,
        }
    }

    /// The runner pod's name (equal to the runner's name in every ARC mode).
    pub fn pod_name(&self) -> &str {
        match self {
            DeleteTarget::EphemeralRunner { name, .. } | DeleteTarget::Pod { name, .. } => name,
        }
    }

    /// The runner pod's uid, to check the idle state of exactly that pod.
    pub fn pod_uid(&self) -> &str {
        match self {
            DeleteTarget::EphemeralRunner { pod_uid, .. } => pod_uid,
            DeleteTarget::Pod { uid, .. } => uid,
        }
    }
}

/// Why a runner is left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum SkipReason {
    /// GitHub lists it busy (and `--wait` is off).
    Busy { job: Option<String> },
    /// The list said idle, but GitHub refused the unregister with 422: a job started since.
    BusyAtUnregister,
    /// A runner pod without a registration: starting up, or stuck.
    PodOnly,
    /// A registration without a pod in the selected namespaces.
    RegistrationOnly,
    /// The pod records another runner id than the registration: never touched.
    Conflict,
}

impl SkipReason {
    pub fn describe(&self) -> String {
        match self {
            SkipReason::Busy { job: Some(job) } => format!("busy: job \"{job}\""),
            SkipReason::Busy { job: None } => "busy".to_owned(),
            SkipReason::BusyAtUnregister => {
                "busy: GitHub refused the unregister (422), a job started after the list".to_owned()
            }
            SkipReason::PodOnly => "pod-only: no GitHub registration".to_owned(),
            SkipReason::RegistrationOnly => {
                "registration-only: no pod in the selected namespaces".to_owned()
            }
            SkipReason::Conflict => "conflict: the pod records another runner id".to_owned(),
        }
    }
}

/// What the drain does with one runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    /// Unregister runner `runner_id`, confirm idle, delete `target`. With `wait_first`, the
    /// runner is busy now and is polled until idle (`--wait`).
    Drain {
        runner_id: u64,
        target: DeleteTarget,
        wait_first: bool,
    },
    Skip(SkipReason),
}

/// One runner and what to do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub candidate: Candidate,
    pub action: Action,
}

/// Planning options.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanOptions {
    /// `--wait`: busy runners are waited for instead of skipped.
    pub wait: bool,
}

/// The plan for every candidate, in the order given.
pub fn plan(candidates: &[Candidate], opts: PlanOptions) -> Vec<Step> {
    candidates
        .iter()
        .map(|c| Step {
            candidate: c.clone(),
            action: action_for(c, opts),
        })
        .collect()
}

fn action_for(c: &Candidate, opts: PlanOptions) -> Action {
    let (Some(runner_id), Some(pod)) = (c.runner_id, c.pod.as_ref()) else {
        return Action::Skip(match (c.runner_id, &c.pod) {
            (None, Some(_)) => SkipReason::PodOnly,
            _ => SkipReason::RegistrationOnly,
        });
    };
    match c.state {
        State::Conflict => Action::Skip(SkipReason::Conflict),
        State::PodOnly => Action::Skip(SkipReason::PodOnly),
        State::RegistrationOnly => Action::Skip(SkipReason::RegistrationOnly),
        State::Busy if !opts.wait => Action::Skip(SkipReason::Busy { job: c.job.clone() }),
        State::Busy | State::Idle | State::Offline => Action::Drain {
            runner_id,
            target: delete_target(pod),
            wait_first: c.state == State::Busy,
        },
    }
}

/// The object to delete for a runner pod, by its owner.
pub fn delete_target(pod: &PodRef) -> DeleteTarget {
    match &pod.owner {
        Owner::EphemeralRunner { name, uid } => DeleteTarget::EphemeralRunner {
            namespace: pod.namespace.clone(),
            name: name.clone(),
            uid: uid.clone(),
            pod_uid: pod.uid.clone(),
        },
        Owner::Runner { .. } | Owner::StatefulSet { .. } => DeleteTarget::Pod {
            namespace: pod.namespace.clone(),
            name: pod.name.clone(),
            uid: pod.uid.clone(),
            annotate: true,
        },
        Owner::Other => DeleteTarget::Pod {
            namespace: pod.namespace.clone(),
            name: pod.name.clone(),
            uid: pod.uid.clone(),
            annotate: false,
        },
    }
}

/// Counts of a plan, for the prompt and the dry run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanCounts {
    pub drain: usize,
    pub wait: usize,
    pub skip_busy: usize,
    pub skip_other: usize,
}

pub fn counts(steps: &[Step]) -> PlanCounts {
    let mut c = PlanCounts::default();
    for s in steps {
        match &s.action {
            Action::Drain {
                wait_first: true, ..
            } => c.wait += 1,
            Action::Drain { .. } => c.drain += 1,
            Action::Skip(SkipReason::Busy { .. } | SkipReason::BusyAtUnregister) => {
                c.skip_busy += 1;
            }
            Action::Skip(_) => c.skip_other += 1,
        }
    }
    c
}

/// Whether the selection narrows anything; a mutating command without narrowing needs `--all`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Narrowing {
    pub names: bool,
    pub selector: bool,
    pub node: bool,
    pub scale_set: bool,
    pub labels: bool,
    pub group: bool,
}

impl Narrowing {
    pub fn any(self) -> bool {
        self.names || self.selector || self.node || self.scale_set || self.labels || self.group
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(owner: Owner) -> PodRef {
        PodRef {
            namespace: "ns".into(),
            name: "r1".into(),
            uid: "pod-uid".into(),
            node: Some("n1".into()),
            owner,
        }
    }

    fn er() -> Owner {
        Owner::EphemeralRunner {
            name: "r1".into(),
            uid: "er-uid".into(),
        }
    }

    fn cand(state: State, id: Option<u64>, pod: Option<PodRef>) -> Candidate {
        Candidate {
            name: "r1".into(),
            runner_id: id,
            state,
            job: (state == State::Busy).then(|| "build".to_owned()),
            pod,
        }
    }

    const STATES: [State; 6] = [
        State::Idle,
        State::Busy,
        State::Offline,
        State::PodOnly,
        State::RegistrationOnly,
        State::Conflict,
    ];

    /// Every state × wait × owner × presence of id and pod: drain only what is registered, has a
    /// pod, and is idle, offline, or busy with --wait.
    #[test]
    fn exhaustive_states_owners_and_wait() {
        let owners = [
            er(),
            Owner::Runner { name: "r1".into() },
            Owner::StatefulSet { name: "s".into() },
            Owner::Other,
        ];
        for state in STATES {
            for wait in [false, true] {
                for owner in owners.clone() {
                    for id in [None, Some(7)] {
                        for has_pod in [false, true] {
                            let c = cand(state, id, has_pod.then(|| pod(owner.clone())));
                            let a = action_for(&c, PlanOptions { wait });
                            let drainable = id.is_some()
                                && has_pod
                                && matches!(state, State::Idle | State::Offline)
                                || id.is_some() && has_pod && state == State::Busy && wait;
                            match a {
                                Action::Drain {
                                    runner_id,
                                    wait_first,
                                    ref target,
                                } => {
                                    assert!(
                                        drainable,
                                        "{state:?} wait={wait} {owner:?} {id:?} {has_pod}"
                                    );
                                    assert_eq!(runner_id, 7);
                                    assert_eq!(wait_first, state == State::Busy);
                                    assert_eq!(target.pod_uid(), "pod-uid");
                                }
                                Action::Skip(reason) => {
                                    assert!(
                                        !drainable,
                                        "{state:?} wait={wait} skipped: {reason:?}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn busy_without_wait_is_skipped_with_its_job() {
        let c = cand(State::Busy, Some(1), Some(pod(er())));
        assert_eq!(
            action_for(&c, PlanOptions { wait: false }),
            Action::Skip(SkipReason::Busy {
                job: Some("build".into())
            })
        );
        assert_eq!(
            SkipReason::Busy {
                job: Some("build".into())
            }
            .describe(),
            "busy: job \"build\""
        );
    }

    #[test]
    fn missing_halves_are_named() {
        assert_eq!(
            action_for(
                &cand(State::Idle, None, Some(pod(er()))),
                PlanOptions::default()
            ),
            Action::Skip(SkipReason::PodOnly)
        );
        assert_eq!(
            action_for(&cand(State::Idle, Some(1), None), PlanOptions::default()),
            Action::Skip(SkipReason::RegistrationOnly)
        );
        assert_eq!(
            action_for(
                &cand(State::Conflict, Some(1), Some(pod(er()))),
                PlanOptions::default()
            ),
            Action::Skip(SkipReason::Conflict)
        );
    }

    #[test]
    fn scale_set_pods_delete_their_ephemeral_runner_never_the_pod() {
        let t = delete_target(&pod(er()));
        assert_eq!(t.display(), "ephemeralrunner/ns/r1");
        assert!(matches!(t, DeleteTarget::EphemeralRunner { ref uid, .. } if uid == "er-uid"));
        assert_eq!(t.pod_uid(), "pod-uid");
    }

    #[test]
    fn legacy_pods_are_annotated_then_deleted_other_pods_just_deleted() {
        for owner in [
            Owner::Runner { name: "r1".into() },
            Owner::StatefulSet { name: "s".into() },
        ] {
            let t = delete_target(&pod(owner));
            assert!(
                matches!(t, DeleteTarget::Pod { annotate: true, ref uid, .. } if uid == "pod-uid")
            );
            assert_eq!(t.display(), "pod/ns/r1");
        }
        assert!(matches!(
            delete_target(&pod(Owner::Other)),
            DeleteTarget::Pod {
                annotate: false,
                ..
            }
        ));
    }

    #[test]
    fn counts_add_up() {
        let steps = plan(
            &[
                cand(State::Idle, Some(1), Some(pod(er()))),
                cand(State::Busy, Some(2), Some(pod(er()))),
                cand(State::Offline, Some(3), Some(pod(er()))),
                cand(State::PodOnly, None, Some(pod(er()))),
            ],
            PlanOptions { wait: false },
        );
        assert_eq!(
            counts(&steps),
            PlanCounts {
                drain: 2,
                wait: 0,
                skip_busy: 1,
                skip_other: 1
            }
        );
    }

    #[test]
    fn narrowing_needs_one_flag() {
        assert!(!Narrowing::default().any());
        for n in [
            Narrowing {
                names: true,
                ..Default::default()
            },
            Narrowing {
                selector: true,
                ..Default::default()
            },
            Narrowing {
                node: true,
                ..Default::default()
            },
            Narrowing {
                scale_set: true,
                ..Default::default()
            },
            Narrowing {
                labels: true,
                ..Default::default()
            },
            Narrowing {
                group: true,
                ..Default::default()
            },
        ] {
            assert!(n.any());
        }
    }
}
