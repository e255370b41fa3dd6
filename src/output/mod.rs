//! The only code that writes to stdout and stderr: tables, JSON, progress, prompts, errors.

pub mod age;
pub mod error;
pub mod list;
pub mod manifests;
pub mod style;
pub mod table;

pub use error::render_error;
pub use style::{Presentation, PresentationFlags};
pub mod audit;
pub mod drain;
pub mod recreate;

#[cfg(test)]
mod drain_tests;
#[cfg(test)]
mod recreate_tests;
