//! GitHub's side: the REST client for self-hosted runners of one scope, its models, pagination
//! and rate-limit signals.
//!
//! Returns data and typed outcomes; never prints.

pub mod auth;
pub mod client;
pub mod model;
pub(crate) mod pagination;
pub mod rate;
pub mod settings;

pub use client::{DeleteOutcome, DeleteReply, GitHubClient, ReadError, RetryPolicy, TransportKind};
pub use model::{Runner, RunnerGroup, RunnerLabel};
pub use rate::RateInfo;
pub use settings::{GitHubSettings, Scope};
