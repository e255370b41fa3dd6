//! Runners × pods → states (docs/design.md §3): the join of GitHub registrations with ARC runner pods,
//! the selection filters, and the gathering of both sides concurrently.
//!
//! The join, states and filters are pure functions; [`gather`] is the only I/O here and it
//! returns data (warnings included) for `output` to show.

use futures::StreamExt;
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::cluster::{
    Cluster, EphemeralRunner, NamespaceScope, PodSelection, RunnerPod, running_job,
};
use crate::error::{Error, Result};
use crate::github::{GitHubClient, Runner};

/// How many runner logs are read at once for job names.
const LOG_CONCURRENCY: usize = 16;
/// How much of a runner log is read: enough for the last job's start, never the whole log.
const LOG_TAIL_LINES: i64 = 200;

/// A runner's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Registered, online, not busy, pod running.
    Idle,
    /// Running a job (GitHub says busy, or the EphemeralRunner has a job).
    Busy,
    /// Registered and offline (or its pod has finished), pod present.
    Offline,
    /// An ARC runner pod with no registration: starting up, or stuck.
    PodOnly,
    /// A registration with no pod in the selected namespaces.
    RegistrationOnly,
    /// The pod and the registration disagree (runner ids, or names shared); never touched.
    Conflict,
}

impl State {
    /// Every state, in the order summaries list them.
    pub const ALL: [State; 6] = [
        State::Idle,
        State::Busy,
        State::Offline,
        State::PodOnly,
        State::RegistrationOnly,
        State::Conflict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Busy => "busy",
            State::Offline => "offline",
            State::PodOnly => "pod-only",
            State::RegistrationOnly => "registration-only",
            State::Conflict => "conflict",
        }
    }
}

/// `--state NAME`: the names JSON prints, without per-value help. Written out rather than
/// derived because the derive would turn the variant docs above into help text for each value.
impl clap::ValueEnum for State {
    fn value_variants<'a>() -> &'a [Self] {
        &State::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// One runner: a registration, a pod, or both, with its state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub name: String,
    pub state: State,
    pub registration: Option<Runner>,
    pub pod: Option<RunnerPod>,
    /// The pod's EphemeralRunner (scale-set mode).
    pub ephemeral_runner: Option<EphemeralRunner>,
    /// The running job's name, when known.
    pub job: Option<String>,
    /// Why the state is what it is, where that is not obvious (conflicts, finished pods).
    pub reason: Option<String>,
}

impl Entry {
    /// The runner id the cluster recorded: the pod's `actions-runner/id`, else the
    /// EphemeralRunner's `status.runnerId`.
    pub fn recorded_runner_id(&self) -> Option<u64> {
        self.pod
            .as_ref()
            .and_then(|p| p.recorded_runner_id)
            .or_else(|| self.ephemeral_runner.as_ref().and_then(|e| e.runner_id))
    }

    /// Whether GitHub or ARC says a job runs; `None` without either source.
    pub fn busy(&self) -> Option<bool> {
        let er_job = self.ephemeral_runner.as_ref().map(|e| e.job_id.is_some());
        match (self.registration.as_ref().map(|r| r.busy), er_job) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(false) || b.unwrap_or(false)),
        }
    }
}

/// A runner pod with its EphemeralRunner, as the join pairs them.
type PodSide = (RunnerPod, Option<EphemeralRunner>);

/// Joins registrations with runner pods (and their EphemeralRunners) by name.
///
/// `pods` must hold only pods of the selected namespaces: a registration whose pod is elsewhere
/// is `registration-only`, as docs/design.md §3.2 says. The result is sorted by name, then namespace
/// (a name's registrations without a pod first, in GitHub's order).
///
/// A merge of the two sides sorted by name, into a vector of the exact size: at fleet scale
/// (10,000 runners) the entries are most of what `list` holds, so there is no map of names, no
/// per-name vectors and no regrown or re-sorted output beside them.
pub fn join(
    mut registrations: Vec<Runner>,
    pods: Vec<RunnerPod>,
    ephemeral_runners: Vec<EphemeralRunner>,
) -> Vec<Entry> {
    let mut pods = attach_ephemeral_runners(pods, ephemeral_runners);
    // Stable sorts: a name's registrations keep GitHub's order, its pods the cluster's within
    // a namespace.
    registrations.sort_by(|a, b| a.name.cmp(&b.name));
    pods.sort_by(|(a, _), (b, _)| (&a.name, &a.namespace).cmp(&(&b.name, &b.namespace)));
    let groups = name_groups(&registrations, &pods);
    let len = groups.iter().map(|&(nr, np)| entries_of(nr, np)).sum();
    let mut out = Vec::with_capacity(len);
    let mut regs = registrations.into_iter();
    let mut pods = pods.into_iter();
    for (nr, np) in groups {
        let rs: Vec<Runner> = regs.by_ref().take(nr).collect();
        let ps = pods.by_ref().take(np);
        match (nr, np) {
            (_, 0) => out.extend(rs.into_iter().map(|r| Entry {
                name: r.name.clone(),
                state: State::RegistrationOnly,
                registration: Some(r),
                pod: None,
                ephemeral_runner: None,
                job: None,
                reason: None,
            })),
            (0, _) => out.extend(ps.map(|(p, er)| Entry {
                name: p.name.clone(),
                state: State::PodOnly,
                registration: None,
                job: None,
                reason: None,
                pod: Some(p),
                ephemeral_runner: er,
            })),
            (1, 1) => {
                let (r, (p, er)) = match (rs.into_iter().next(), ps.into_iter().next()) {
                    (Some(r), Some(p)) => (r, p),
                    // The group sizes say both are there.
                    _ => continue,
                };
                let mut e = Entry {
                    name: r.name.clone(),
                    state: State::Idle,
                    registration: Some(r),
                    pod: Some(p),
                    ephemeral_runner: er,
                    job: None,
                    reason: None,
                };
                let (state, reason) = pair_state(&e);
                e.state = state;
                e.reason = reason;
                if e.state == State::Busy {
                    e.job = e
                        .ephemeral_runner
                        .as_ref()
                        .and_then(|er| er.job_display_name.clone());
                }
                out.push(e);
            }
            (nr, np) => {
                // Names are shared: never guess which pod is which runner.
                let name = rs.first().map(|r| r.name.clone()).unwrap_or_default();
                let reason = format!("{nr} registrations and {np} pods share the name `{name}`");
                let single = (nr == 1).then(|| rs[0].clone());
                if nr > 1 {
                    out.extend(rs.into_iter().map(|r| Entry {
                        name: name.clone(),
                        state: State::Conflict,
                        registration: Some(r),
                        pod: None,
                        ephemeral_runner: None,
                        job: None,
                        reason: Some(reason.clone()),
                    }));
                }
                out.extend(ps.map(|(p, er)| Entry {
                    name: name.clone(),
                    state: State::Conflict,
                    registration: single.clone(),
                    pod: Some(p),
                    ephemeral_runner: er,
                    job: None,
                    reason: Some(reason.clone()),
                }));
            }
        }
    }
    out
}

/// The sizes of the runs of one name in the two sorted sides, in name order: (registrations,
/// pods) per name.
fn name_groups(regs: &[Runner], pods: &[PodSide]) -> Vec<(usize, usize)> {
    let (mut i, mut j) = (0, 0);
    let mut groups = Vec::new();
    while i < regs.len() || j < pods.len() {
        let name = match (regs.get(i), pods.get(j)) {
            (Some(r), Some((p, _))) => r.name.as_str().min(p.name.as_str()),
            (Some(r), None) => r.name.as_str(),
            (None, Some((p, _))) => p.name.as_str(),
            (None, None) => break,
        };
        let nr = regs[i..].iter().take_while(|r| r.name == name).count();
        let np = pods[j..].iter().take_while(|(p, _)| p.name == name).count();
        groups.push((nr, np));
        i += nr;
        j += np;
    }
    groups
}

/// How many entries a name with `nr` registrations and `np` pods becomes.
fn entries_of(nr: usize, np: usize) -> usize {
    match (nr, np) {
        (_, 0) => nr,
        (0, _) | (1, _) => np,
        _ => nr + np,
    }
}

/// Pairs each pod with its EphemeralRunner: a scale-set pod belongs to the EphemeralRunner that
/// owns it (same name in ARC), any other pod to the one of its own name, if any.
fn attach_ephemeral_runners(
    pods: Vec<RunnerPod>,
    mut ephemeral_runners: Vec<EphemeralRunner>,
) -> Vec<PodSide> {
    ephemeral_runners.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    // Which EphemeralRunner each pod claims; the first pod to claim one gets it.
    let mut claimed = vec![false; ephemeral_runners.len()];
    let claims: Vec<Option<usize>> = pods
        .iter()
        .map(|p| {
            let er_name = match (&p.mode, &p.owner) {
                (crate::cluster::Mode::ScaleSet, Some(o)) => o.name.as_str(),
                _ => p.name.as_str(),
            };
            let i = ephemeral_runners
                .binary_search_by(|e| {
                    (e.namespace.as_str(), e.name.as_str()).cmp(&(p.namespace.as_str(), er_name))
                })
                .ok()?;
            (!std::mem::replace(&mut claimed[i], true)).then_some(i)
        })
        .collect();
    let mut ers: Vec<Option<EphemeralRunner>> = ephemeral_runners.into_iter().map(Some).collect();
    pods.into_iter()
        .zip(claims)
        .map(|(p, i)| {
            let er = i.and_then(|i| ers[i].take());
            (p, er)
        })
        .collect()
}

/// The state of a registration joined with its pod.
fn pair_state(e: &Entry) -> (State, Option<String>) {
    let (Some(reg), Some(pod)) = (&e.registration, &e.pod) else {
        return (
            State::Conflict,
            Some("internal: pair without both sides".into()),
        );
    };
    let annotation = pod.recorded_runner_id;
    let er_id = e.ephemeral_runner.as_ref().and_then(|er| er.runner_id);
    for (recorded, source) in [
        (annotation, "pod annotation `actions-runner/id`"),
        (er_id, "EphemeralRunner status.runnerId"),
    ] {
        if let Some(id) = recorded
            && id != reg.id
        {
            return (
                State::Conflict,
                Some(format!(
                    "{source} is {id} but GitHub's runner `{}` is {}",
                    reg.name, reg.id
                )),
            );
        }
    }
    if e.busy() == Some(true) {
        return (State::Busy, None);
    }
    if !reg.is_online() {
        return (State::Offline, None);
    }
    match pod.phase.as_deref() {
        Some(phase @ ("Succeeded" | "Failed")) => (
            State::Offline,
            Some(format!(
                "pod phase is {phase}: the runner process has exited"
            )),
        ),
        _ => (State::Idle, None),
    }
}

/// The selection a command applies after the join.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    names: Option<GlobSet>,
    states: Vec<State>,
    labels: Vec<String>,
    /// A pod-side selector (`-l`, `--node`, `--scale-set`) was given: only runners with a
    /// selected pod can match (a registration's pod may merely be elsewhere).
    pod_selected: bool,
    /// A GitHub-side selector (`--group`, `--label`) was given: only registrations can match
    /// (a pod's registration may merely be in another group).
    registration_selected: bool,
}

impl Filter {
    /// Builds a filter; a malformed glob is a usage error.
    pub fn new(
        names: &[String],
        states: &[State],
        labels: &[String],
        pod_selected: bool,
        group_selected: bool,
    ) -> Result<Self> {
        let names = if names.is_empty() {
            None
        } else {
            let mut b = GlobSetBuilder::new();
            for n in names {
                let glob = Glob::new(n).map_err(|e| {
                    Error::usage(format!("`{n}` is not a valid runner name or glob")).with_source(e)
                })?;
                b.add(glob);
            }
            Some(
                b.build()
                    .map_err(|e| Error::usage("invalid runner globs").with_source(e))?,
            )
        };
        Ok(Filter {
            names,
            states: states.to_vec(),
            labels: labels.to_vec(),
            pod_selected,
            registration_selected: group_selected || !labels.is_empty(),
        })
    }

    /// Whether the entry is selected by everything but the state (states are applied after
    /// job names are known, which doesn't change states, but keeps one place for them).
    pub fn matches(&self, e: &Entry) -> bool {
        if self.pod_selected && e.pod.is_none() {
            return false;
        }
        if self.registration_selected {
            match &e.registration {
                None => return false,
                Some(r) if !r.has_labels(&self.labels) => return false,
                Some(_) => {}
            }
        }
        if let Some(g) = &self.names
            && !g.is_match(&e.name)
        {
            return false;
        }
        self.states.is_empty() || self.states.contains(&e.state)
    }

    pub fn apply(&self, entries: Vec<Entry>) -> Vec<Entry> {
        entries.into_iter().filter(|e| self.matches(e)).collect()
    }
}

/// Counts per state, in [`State::ALL`] order, zeros left out.
pub fn counts(entries: &[Entry]) -> Vec<(State, usize)> {
    State::ALL
        .iter()
        .map(|s| (*s, entries.iter().filter(|e| e.state == *s).count()))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The joined, filtered runners and what went wrong on the way without failing the whole list.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    pub entries: Vec<Entry>,
    pub warnings: Vec<String>,
}

/// What to gather.
#[derive(Debug, Clone)]
pub struct Query {
    pub namespaces: NamespaceScope,
    pub pods: PodSelection,
    /// `--group`: a runner group name or id.
    pub group: Option<String>,
}

/// Lists registrations, runner pods and EphemeralRunners concurrently, joins and filters them,
/// then reads job names of busy runners whose EphemeralRunner doesn't name one.
pub async fn gather(
    github: &GitHubClient,
    cluster: &Cluster,
    query: &Query,
    filter: &Filter,
) -> Result<Inventory> {
    let registrations = async {
        match &query.group {
            Some(spec) => {
                let group = github.resolve_group(spec).await?;
                github.list_group_runners(&group).await
            }
            None => github.list_runners().await,
        }
    };
    let pods = cluster.list_runner_pods(&query.namespaces, &query.pods);
    let ers = cluster.list_ephemeral_runners(&query.namespaces);
    let (registrations, pods, ers) = futures::try_join!(registrations, pods, ers)?;
    let entries = filter.apply(join(registrations, pods, ers));
    let mut inv = Inventory {
        entries,
        warnings: Vec::new(),
    };
    fill_jobs_from_logs(cluster, &mut inv).await;
    Ok(inv)
}

/// Reads the runner log tail of busy runners without a job name, a few at a time.
pub async fn fill_jobs_from_logs(cluster: &Cluster, inv: &mut Inventory) {
    let wanted: Vec<(usize, String, String)> = inv
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.state == State::Busy && e.job.is_none())
        .filter_map(|(i, e)| {
            e.pod
                .as_ref()
                .map(|p| (i, p.namespace.clone(), p.name.clone()))
        })
        .collect();
    let results: Vec<(usize, Result<String>)> = futures::stream::iter(wanted)
        .map(|(i, ns, name)| async move {
            (i, cluster.runner_log_tail(&ns, &name, LOG_TAIL_LINES).await)
        })
        .buffer_unordered(LOG_CONCURRENCY)
        .collect()
        .await;
    let mut failed = Vec::new();
    for (i, r) in results {
        match r {
            Ok(log) => inv.entries[i].job = running_job(&log),
            Err(e) => failed.push((inv.entries[i].name.clone(), e)),
        }
    }
    if let Some((name, e)) = failed.first() {
        let mut text = format!(
            "could not read the runner log of {} busy runner{} (first: `{name}`: {})",
            failed.len(),
            if failed.len() == 1 { "" } else { "s" },
            e.message()
        );
        if let Some(c) = e.causes().first() {
            text.push_str(&format!(": {c}"));
        }
        inv.warnings.push(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cluster::Mode;
    use crate::cluster::arc::Owner;
    use crate::github::RunnerLabel;

    fn reg(id: u64, name: &str, status: &str, busy: bool) -> Runner {
        Runner {
            id,
            name: name.into(),
            os: "linux".into(),
            status: status.into(),
            busy,
            labels: vec![
                RunnerLabel {
                    id: Some(1),
                    name: "self-hosted".into(),
                    label_type: Some("read-only".into()),
                },
                RunnerLabel {
                    id: Some(2),
                    name: "gpu".into(),
                    label_type: Some("custom".into()),
                },
            ],
            runner_group_id: Some(1),
            ephemeral: Some(true),
            version: None,
        }
    }

    fn pod(name: &str, ns: &str) -> RunnerPod {
        RunnerPod {
            name: name.into(),
            namespace: ns.into(),
            uid: format!("uid-{name}"),
            node: Some("node-1".into()),
            phase: Some("Running".into()),
            created: None,
            deleting: false,
            mode: Mode::LegacyRunner,
            owner: None,
            scale_set: Some("rd".into()),
            recorded_runner_id: None,
            runner_container: None,
        }
    }

    fn scale_set_pod(name: &str) -> RunnerPod {
        RunnerPod {
            mode: Mode::ScaleSet,
            owner: Some(Owner {
                api_version: "actions.github.com/v1alpha1".into(),
                kind: "EphemeralRunner".into(),
                name: name.into(),
                uid: format!("er-{name}"),
                controller: true,
            }),
            ..pod(name, "arc")
        }
    }

    fn er(
        name: &str,
        runner_id: Option<u64>,
        job: Option<&str>,
        display: Option<&str>,
    ) -> EphemeralRunner {
        EphemeralRunner {
            name: name.into(),
            namespace: "arc".into(),
            uid: format!("er-{name}"),
            runner_id,
            job_id: job.map(str::to_owned),
            job_display_name: display.map(str::to_owned),
            job_repository: None,
            workflow_run_id: None,
            phase: Some("Running".into()),
        }
    }

    fn one(regs: Vec<Runner>, pods: Vec<RunnerPod>, ers: Vec<EphemeralRunner>) -> Entry {
        let mut v = join(regs, pods, ers);
        assert_eq!(v.len(), 1, "{v:#?}");
        v.remove(0)
    }

    #[test]
    fn idle_busy_offline() {
        let e = one(
            vec![reg(1, "a", "online", false)],
            vec![pod("a", "ns")],
            vec![],
        );
        assert_eq!(e.state, State::Idle);
        assert_eq!(e.busy(), Some(false));
        let e = one(
            vec![reg(1, "a", "online", true)],
            vec![pod("a", "ns")],
            vec![],
        );
        assert_eq!(e.state, State::Busy);
        assert_eq!(e.job, None);
        let e = one(
            vec![reg(1, "a", "offline", false)],
            vec![pod("a", "ns")],
            vec![],
        );
        assert_eq!(e.state, State::Offline);
        // Busy wins over offline: GitHub would refuse the unregister anyway.
        let e = one(
            vec![reg(1, "a", "offline", true)],
            vec![pod("a", "ns")],
            vec![],
        );
        assert_eq!(e.state, State::Busy);
    }

    #[test]
    fn a_finished_pod_is_offline_with_a_reason() {
        let mut p = pod("a", "ns");
        p.phase = Some("Failed".into());
        let e = one(vec![reg(1, "a", "online", false)], vec![p], vec![]);
        assert_eq!(e.state, State::Offline);
        assert!(e.reason.unwrap().contains("Failed"));
        let mut p = pod("a", "ns");
        p.phase = Some("Pending".into());
        assert_eq!(
            one(vec![reg(1, "a", "online", false)], vec![p], vec![]).state,
            State::Idle
        );
    }

    #[test]
    fn orphans_on_both_sides() {
        let v = join(
            vec![reg(1, "vm-runner", "online", false)],
            vec![pod("starting", "ns")],
            vec![],
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].name, "starting");
        assert_eq!(v[0].state, State::PodOnly);
        assert_eq!(v[0].busy(), None);
        assert_eq!(v[1].state, State::RegistrationOnly);
        assert_eq!(v[1].busy(), Some(false));
    }

    #[test]
    fn legacy_id_mismatch_is_a_conflict() {
        let mut p = pod("a", "ns");
        p.recorded_runner_id = Some(7);
        let e = one(vec![reg(8, "a", "online", false)], vec![p.clone()], vec![]);
        assert_eq!(e.state, State::Conflict);
        assert!(e.reason.as_deref().unwrap().contains("actions-runner/id"));
        assert_eq!(e.recorded_runner_id(), Some(7));
        p.recorded_runner_id = Some(8);
        assert_eq!(
            one(vec![reg(8, "a", "online", false)], vec![p], vec![]).state,
            State::Idle
        );
    }

    #[test]
    fn scale_set_id_mismatch_is_a_conflict_even_when_busy() {
        let e = one(
            vec![reg(8, "s", "online", true)],
            vec![scale_set_pod("s")],
            vec![er("s", Some(9), Some("1"), Some("build"))],
        );
        assert_eq!(e.state, State::Conflict);
        assert!(e.reason.unwrap().contains("status.runnerId"));
    }

    #[test]
    fn ephemeral_runner_job_makes_busy_and_names_the_job() {
        // GitHub's list may be stale; the EphemeralRunner already has the job.
        let e = one(
            vec![reg(8, "s", "online", false)],
            vec![scale_set_pod("s")],
            vec![er("s", Some(8), Some("123"), Some("build (linux)"))],
        );
        assert_eq!(e.state, State::Busy);
        assert_eq!(e.job.as_deref(), Some("build (linux)"));
        let e = one(
            vec![reg(8, "s", "online", false)],
            vec![scale_set_pod("s")],
            vec![er("s", Some(8), None, None)],
        );
        assert_eq!(e.state, State::Idle);
        assert!(e.ephemeral_runner.is_some());
    }

    #[test]
    fn ephemeral_runners_join_by_namespace_and_owner() {
        let mut other_ns = er("s", Some(8), Some("1"), None);
        other_ns.namespace = "elsewhere".into();
        let e = one(
            vec![reg(8, "s", "online", false)],
            vec![scale_set_pod("s")],
            vec![other_ns],
        );
        assert!(e.ephemeral_runner.is_none());
        assert_eq!(e.state, State::Idle);
    }

    #[test]
    fn shared_names_are_conflicts_never_guesses() {
        let v = join(
            vec![reg(1, "a", "online", false)],
            vec![pod("a", "ns1"), pod("a", "ns2")],
            vec![],
        );
        assert_eq!(v.len(), 2);
        assert!(v.iter().all(|e| e.state == State::Conflict));
        assert_eq!(v[0].pod.as_ref().unwrap().namespace, "ns1");
        let v = join(
            vec![reg(1, "a", "online", false), reg(2, "a", "offline", false)],
            vec![pod("a", "ns1")],
            vec![],
        );
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|e| e.state == State::Conflict));
    }

    #[test]
    fn join_is_sorted_and_keeps_everything() {
        let regs: Vec<Runner> = (0..50)
            .map(|i| reg(i, &format!("r{i:03}"), "online", i % 2 == 0))
            .collect();
        let pods: Vec<RunnerPod> = (25..75).map(|i| pod(&format!("r{i:03}"), "ns")).collect();
        let v = join(regs, pods, vec![]);
        assert_eq!(v.len(), 75);
        assert!(v.windows(2).all(|w| w[0].name <= w[1].name));
        let c = counts(&v);
        assert_eq!(
            c,
            vec![
                // Joined ids 25..=49: 12 even (busy), 13 odd (idle).
                (State::Idle, 13),
                (State::Busy, 12),
                (State::PodOnly, 25),
                (State::RegistrationOnly, 25)
            ]
        );
    }

    #[test]
    fn filters_by_glob_state_and_label() {
        let v = join(
            vec![
                reg(1, "arc-a", "online", false),
                reg(2, "arc-b", "online", true),
                reg(3, "vm-c", "online", false),
            ],
            vec![pod("arc-a", "ns"), pod("arc-b", "ns"), pod("lone", "ns")],
            vec![],
        );
        let names = |f: &Filter| {
            f.apply(v.clone())
                .into_iter()
                .map(|e| e.name)
                .collect::<Vec<_>>()
        };
        let f = Filter::new(&["arc-*".into()], &[], &[], false, false).unwrap();
        assert_eq!(names(&f), vec!["arc-a", "arc-b"]);
        let f = Filter::new(&["vm-c".into(), "lone".into()], &[], &[], false, false).unwrap();
        assert_eq!(names(&f), vec!["lone", "vm-c"]);
        let f = Filter::new(&[], &[State::Busy, State::PodOnly], &[], false, false).unwrap();
        assert_eq!(names(&f), vec!["arc-b", "lone"]);
        // Pod-side selectors drop registration-only runners.
        let f = Filter::new(&[], &[], &[], true, false).unwrap();
        assert_eq!(names(&f), vec!["arc-a", "arc-b", "lone"]);
        // GitHub-side selectors drop pod-only runners; labels must all match.
        let f = Filter::new(
            &[],
            &[],
            &["GPU".into(), "self-hosted".into()],
            false,
            false,
        )
        .unwrap();
        assert_eq!(names(&f), vec!["arc-a", "arc-b", "vm-c"]);
        let f = Filter::new(&[], &[], &["gpu".into(), "x64".into()], false, false).unwrap();
        assert!(names(&f).is_empty());
        let f = Filter::new(&[], &[], &[], false, true).unwrap();
        assert_eq!(names(&f), vec!["arc-a", "arc-b", "vm-c"]);
        // Character classes and `?` work; bad globs are usage errors.
        let f = Filter::new(&["arc-[b]".into(), "vm-?".into()], &[], &[], false, false).unwrap();
        assert_eq!(names(&f), vec!["arc-b", "vm-c"]);
        assert_eq!(
            Filter::new(&["arc-[".into()], &[], &[], false, false)
                .unwrap_err()
                .exit_code(),
            2
        );
    }

    #[test]
    fn states_parse_and_print_kebab() {
        use clap::ValueEnum;
        assert_eq!(
            State::from_str("registration-only", false).unwrap(),
            State::RegistrationOnly
        );
        assert!(State::from_str("registration_only", false).is_err());
        assert_eq!(
            serde_json::to_string(&State::PodOnly).unwrap(),
            "\"pod-only\""
        );
        for s in State::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
