//! What every module of the suite shares: command lines as typed ([`args!`], `FAST`), the
//! in-process sandbox and readings of it, the one in-process runner, the audit log, the drain
//! verdict, kubeconfigs, the real kubectl, and the fixture files.

#[macro_use]
pub mod args;
pub mod audit;
pub mod fixtures;
pub mod kubeconfig;
pub mod kubectl;
pub mod run;
pub mod sandbox;
pub mod verdict;

pub use args::{fast, with_defaults};
pub use run::{Invocation, Run, arcctl, json, outcomes};
pub use sandbox::{
    NS, busy_runners, count, env, evict, install_tls, interrupt_after_deletes, mutating_requests,
    options, pod_names, pods_on, populated, sandbox,
};
