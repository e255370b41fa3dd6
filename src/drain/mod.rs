//! `drain`: take runners out of service without killing a job (DESIGN.md §4).
//!
//! `plan` decides (pure), `pipeline` acts through the `ops` traits and emits `event`s, `pacer`
//! spaces GitHub mutations, `idle` reads runner logs.

pub mod event;
pub mod idle;
pub mod ops;
pub mod pacer;
pub mod pipeline;
pub mod plan;

#[cfg(test)]
mod pipeline_tests;
