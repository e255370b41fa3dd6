//! The world at start: nodes, the namespace, runner groups, and per `--mode` the ARC objects,
//! pods and GitHub registrations of `--runners` runners, a `--busy` share of them running jobs.
//!
//! Pools per mode (two runner groups, runners split between them):
//! - scale-set: AutoscalingRunnerSets `arc-runner-set` (group Default) and
//!   `arc-runner-set-large` (group `large-runners`);
//! - legacy: RunnerDeployment `arc-runnerdeploy` (Default) and RunnerSet `arc-runnerset`
//!   (`large-runners`);
//! - mixed: `arc-runner-set` (Default), `arc-runnerdeploy` and `arc-runnerset`
//!   (`large-runners`).
//!
//! Everything is drawn from `--seed`: the same seed gives the same names, ids, uids and busy
//! set.

use std::time::Duration;

use crate::objects;
use crate::options::Mode;
use crate::runners::{Pool, PoolKind};
use crate::store::{
    AUTOSCALING_RUNNER_SETS, EPHEMERAL_RUNNER_SETS, NAMESPACES, NODES, RUNNER_DEPLOYMENTS,
    RUNNER_REPLICA_SETS, RUNNER_SETS,
};
use crate::world::{RunnerGroup, World};

const MINUTE: u64 = 60;
const DAY: u64 = 24 * 60 * MINUTE;

/// The second runner group every sandbox organization has.
pub const LARGE_GROUP: (u64, &str) = (2, "large-runners");

/// `n` split into `parts` near-equal shares, larger ones first.
fn split(n: u32, parts: u32) -> Vec<u32> {
    (0..parts)
        .map(|i| n / parts + u32::from(i < n % parts))
        .collect()
}

impl World {
    pub(crate) fn populate(&mut self) {
        let ns = self.options.namespace.clone();
        // The cluster has been up for weeks; pools for days; runners for minutes (ephemeral
        // runners are recycled job by job).
        self.backdate = Duration::from_secs(self.draw(14 * DAY..60 * DAY));
        for i in 1..=self.options.nodes {
            let _ = self.create_object(NODES, None, objects::node(&format!("node-{i}"), i));
        }
        let _ = self.create_object(NAMESPACES, None, objects::namespace(&ns));
        self.runner_groups.push(RunnerGroup {
            id: LARGE_GROUP.0,
            name: LARGE_GROUP.1.to_owned(),
            default: false,
        });
        let n = self.options.runners;
        let plan: Vec<(PoolKind, &str, u64, u32)> = match self.options.mode {
            Mode::ScaleSet => {
                let s = split(n, 2);
                vec![
                    (PoolKind::ScaleSet, "arc-runner-set", 1, s[0]),
                    (
                        PoolKind::ScaleSet,
                        "arc-runner-set-large",
                        LARGE_GROUP.0,
                        s[1],
                    ),
                ]
            }
            Mode::Legacy => {
                let s = split(n, 2);
                vec![
                    (PoolKind::Deployment, "arc-runnerdeploy", 1, s[0]),
                    (PoolKind::RunnerSet, "arc-runnerset", LARGE_GROUP.0, s[1]),
                ]
            }
            Mode::Mixed => {
                let half = split(n, 2);
                let rest = split(half[1], 2);
                vec![
                    (PoolKind::ScaleSet, "arc-runner-set", 1, half[0]),
                    (
                        PoolKind::Deployment,
                        "arc-runnerdeploy",
                        LARGE_GROUP.0,
                        rest[0],
                    ),
                    (PoolKind::RunnerSet, "arc-runnerset", LARGE_GROUP.0, rest[1]),
                ]
            }
        };
        for (kind, name, group, replicas) in plan {
            self.create_pool(kind, name, group, replicas);
        }
        // The world starts steady; `--controller-delay` slows only the runners created from now.
        self.timing.pod_start += self.options.controller_delay;
        let busy = (f64::from(n) * self.options.busy).round() as usize;
        self.start_initial_jobs(busy);
        self.backdate = Duration::ZERO;
        self.schedule_first_arrival();
    }

    /// Creates a pool's top-level ARC objects and its runners.
    fn create_pool(&mut self, kind: PoolKind, name: &str, group: u64, replicas: u32) {
        self.backdate = Duration::from_secs(self.draw(DAY..14 * DAY));
        let ns = self.options.namespace.clone();
        let org = self.options.org.clone();
        let group_name = self
            .runner_groups
            .iter()
            .find(|g| g.id == group)
            .map_or_else(|| "Default".to_owned(), |g| g.name.clone());
        let labels = match kind {
            // Scale-set runners carry only the scale set's name (ARC #3330).
            PoolKind::ScaleSet => vec![self.label(name, "custom")],
            PoolKind::Deployment | PoolKind::RunnerSet => vec![
                self.label("self-hosted", "read-only"),
                self.label("Linux", "read-only"),
                self.label("X64", "read-only"),
                self.label(name, "custom"),
            ],
        };
        let scale_set_id = self.draw(1..100);
        let template_hash = format!("{:09x}", self.draw(0..1 << 36));
        let mut pool = Pool {
            kind,
            name: name.to_owned(),
            namespace: ns.clone(),
            replica_set: None,
            runner_group_id: group,
            runner_group_name: group_name,
            labels,
            scale_set_id,
            template_hash,
            replicas,
        };
        match kind {
            PoolKind::ScaleSet => {
                let ars = self.create_object(
                    AUTOSCALING_RUNNER_SETS,
                    Some(&ns),
                    objects::autoscaling_runner_set(&pool, &org),
                );
                if let Ok(ars) = ars {
                    let ers = objects::ephemeral_runner_set(&pool, &org, &ars);
                    pool.replica_set = self
                        .create_object(EPHEMERAL_RUNNER_SETS, Some(&ns), ers)
                        .ok()
                        .and_then(|o| o["metadata"]["name"].as_str().map(str::to_owned));
                }
            }
            PoolKind::Deployment => {
                let rd = self.create_object(
                    RUNNER_DEPLOYMENTS,
                    Some(&ns),
                    objects::runner_deployment(&pool, &org),
                );
                if let Ok(rd) = rd {
                    let rrs = objects::runner_replica_set(&pool, &org, &rd);
                    pool.replica_set = self
                        .create_object(RUNNER_REPLICA_SETS, Some(&ns), rrs)
                        .ok()
                        .and_then(|o| o["metadata"]["name"].as_str().map(str::to_owned));
                }
            }
            PoolKind::RunnerSet => {
                let _ =
                    self.create_object(RUNNER_SETS, Some(&ns), objects::runner_set(&pool, &org));
            }
        }
        self.pools.insert(name.to_owned(), pool);
        for _ in 0..replicas {
            let age = self.draw(3 * MINUTE..60 * MINUTE);
            self.backdate = Duration::from_secs(age);
            self.add_replica(name);
            // Its pod started a few seconds after it was created.
            self.backdate = Duration::from_secs(age - self.draw(2..10));
            self.start_all_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_shares_are_near_equal_and_sum_up() {
        assert_eq!(split(5, 2), [3, 2]);
        assert_eq!(split(1, 2), [1, 0]);
        assert_eq!(split(7, 3), [3, 2, 2]);
        assert_eq!(split(0, 2), [0, 0]);
    }
}
