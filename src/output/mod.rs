//! The only code that writes to stdout and stderr: tables, JSON, progress, prompts, errors.

pub mod error;
pub mod style;

pub use error::render_error;
pub use style::{Presentation, PresentationFlags};
pub mod audit;
pub mod drain;

#[cfg(test)]
mod drain_tests;
