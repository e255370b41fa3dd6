//! `drain`: take runners out of service without killing a job (DESIGN.md §4).
//!
//! `plan` decides (pure), `pipeline` acts through the `ops` traits and emits `event`s, `pacer`
//! spaces GitHub mutations, `edges` connects it to the real
//! GitHub and Kubernetes clients.

pub mod edges;
pub mod event;
pub mod evidence;
pub mod ops;
pub mod pacer;
pub mod pipeline;
pub mod plan;

#[cfg(test)]
mod pacer_tests;
#[cfg(test)]
mod pipeline_tests;
