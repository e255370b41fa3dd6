//! `drain`: take runners out of service without killing a job (docs/design.md §4).
//!
//! `plan` decides (pure), `pipeline` acts through the `ops` traits and emits `event`s, `pacer`
//! gates every GitHub call (unregisters spaced at a pace; after a rate limit, a wait, a lone
//! probe and a lower pace), `edges` connects it to the real GitHub and Kubernetes clients.

pub mod edges;
pub mod event;
pub mod evidence;
pub mod ops;
pub mod pacer;
pub mod pipeline;
pub mod plan;

pub use pacer::Rate;

#[cfg(test)]
mod pacer_tests;
#[cfg(test)]
mod pipeline_tests;
