//! The simulated world both fake APIs share: GitHub registrations, Kubernetes objects, jobs,
//! request statistics, and the seeded randomness behind faults.
//!
//! The HTTP layers (`github_api`, `kube_api`) read it and mutate it only through the methods
//! here, so every mutation runs the simulation's reactions (a deleted pod kills its job, the
//! controller replaces it) inside the same lock, at the moment it happens.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::cli::{FaultKind, SandboxArgs};
use crate::sandbox::stats::Stats;
use crate::sandbox::store::{ResourceType, Store, StoreError};

/// The world behind one lock. Never hold it across an `.await`.
pub type SharedWorld = Arc<Mutex<World>>;

/// Locks the world, recovering from a poisoned lock (a panicked handler must not wedge the rest).
pub fn lock(world: &SharedWorld) -> std::sync::MutexGuard<'_, World> {
    world
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where runners are registered on the simulated GitHub.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Org(String),
    Repo(String, String),
    Enterprise(String),
}

/// A GitHub runner label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub id: u64,
    pub name: String,
    /// `read-only` or `custom`.
    pub label_type: &'static str,
}

/// A runner group of the simulated organization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerGroup {
    pub id: u64,
    pub name: String,
    pub default: bool,
}

/// A runner registration on the simulated GitHub.
#[derive(Debug, Clone)]
pub struct Registration {
    pub id: u64,
    pub name: String,
    pub scope: Scope,
    pub os: String,
    /// `online` or `offline`.
    pub status: &'static str,
    /// Live busy state: GET by id and DELETE see this.
    pub busy: bool,
    /// What runner lists report while the list cache (`--list-cache`) is stale.
    pub listed_busy: bool,
    /// When `listed_busy` was last brought up to date.
    pub listed_at: Instant,
    pub labels: Vec<Label>,
    pub runner_group_id: u64,
    pub ephemeral: bool,
    pub version: Option<String>,
    /// The running job, if any.
    pub job: Option<u64>,
    /// When the running job was assigned (for `unsafe-204`).
    pub job_assigned_at: Option<Instant>,
}

/// What GitHub answers to `DELETE …/actions/runners/{id}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unregister {
    /// 204: removed (possibly unsafely, with a job still running: `unsafe-204`).
    Removed,
    /// 404: no such runner.
    NotFound,
    /// 422: `Bad request - Runner "NAME" is still running a job`.
    Busy { name: String },
}

/// The simulated world.
pub struct World {
    pub options: SandboxArgs,
    pub store: Store,
    pub registrations: BTreeMap<u64, Registration>,
    pub runner_groups: Vec<RunnerGroup>,
    /// The token the fake GitHub accepts.
    pub token: String,
    pub stats: Stats,
    pub started: Instant,
    rng: ChaCha8Rng,
}

impl World {
    /// An empty world; `sandbox::populate` fills it.
    pub fn empty(options: SandboxArgs) -> Self {
        let seed = options.seed;
        World {
            store: Store::new(seed),
            registrations: BTreeMap::new(),
            runner_groups: vec![RunnerGroup {
                id: 1,
                name: "Default".to_owned(),
                default: true,
            }],
            token: format!(
                "ghs_sandbox{:024x}",
                u128::from(seed).wrapping_mul(0x2545_F491_4F6C_DD1D)
            ),
            stats: Stats::default(),
            started: Instant::now(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            options,
        }
    }

    pub fn shared(self) -> SharedWorld {
        Arc::new(Mutex::new(self))
    }

    /// True with probability `p`, from the world's seeded generator.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.random_bool(p.min(1.0))
    }

    /// A uniformly drawn integer in `range`.
    pub fn draw(&mut self, range: std::ops::Range<u64>) -> u64 {
        if range.is_empty() {
            range.start
        } else {
            self.rng.random_range(range)
        }
    }

    /// The probability configured for `fault` (0 when not configured).
    pub fn fault_probability(&self, fault: FaultKind) -> f64 {
        self.options
            .faults
            .iter()
            .filter(|(k, _)| *k == fault)
            .map(|(_, p)| *p)
            .fold(0.0, f64::max)
    }

    /// Whether `fault` strikes this request.
    pub fn fault(&mut self, fault: FaultKind) -> bool {
        let p = self.fault_probability(fault);
        self.chance(p)
    }

    /// Deletes a Kubernetes object (with an optional uid precondition) and runs the world's
    /// reactions to it: a running job on a deleted pod is killed, the controller replaces what
    /// ARC would replace.
    pub fn delete_object(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        precondition_uid: Option<&str>,
    ) -> Result<Value, StoreError> {
        let obj = self.store.delete(rt, ns, name, precondition_uid)?;
        self.on_deleted(rt, &obj);
        Ok(obj)
    }

    /// Applies a JSON merge patch to a Kubernetes object and runs the world's reactions.
    pub fn patch_object(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        patch: &Value,
    ) -> Result<Value, StoreError> {
        let obj = self.store.merge_patch(rt, ns, name, patch)?;
        self.on_patched(rt, &obj);
        Ok(obj)
    }

    /// The reactions to a deleted object (filled in by the controller).
    fn on_deleted(&mut self, _rt: ResourceType, _obj: &Value) {}

    /// The reactions to a patched object (filled in by the controller).
    fn on_patched(&mut self, _rt: ResourceType, _obj: &Value) {}

    /// What the list endpoints show as `busy` for `reg` now (stale by up to `--list-cache`).
    pub fn listed_busy(&self, reg: &Registration) -> bool {
        if self.options.list_cache.is_zero() {
            reg.busy
        } else {
            reg.listed_busy
        }
    }

    /// GitHub's `DELETE …/actions/runners/{id}`.
    pub fn unregister(&mut self, id: u64) -> Unregister {
        let Some(reg) = self.registrations.get(&id) else {
            return Unregister::NotFound;
        };
        if reg.busy {
            return Unregister::Busy {
                name: reg.name.clone(),
            };
        }
        self.registrations.remove(&id);
        Unregister::Removed
    }
}
