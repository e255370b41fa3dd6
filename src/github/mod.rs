//! GitHub's side: the REST client for self-hosted runners of one scope (`client`), what it is
//! built from (`settings`, `auth`), what it answers (`model`, `outcome`), how reads retry
//! (`retry`), how failures become errors (`errors`), pagination (`pagination`, and `pages`: a list's pages read several at once) and rate-limit
//! signals.
//!
//! Returns data and typed outcomes; never prints.

pub mod auth;
pub mod client;
pub(crate) mod errors;
pub mod model;
pub mod outcome;
pub mod pages;
pub(crate) mod pagination;
pub mod rate;
pub(crate) mod retry;
pub mod settings;

pub use client::GitHubClient;
pub use model::{Runner, RunnerGroup, RunnerLabel};
pub use outcome::{DeleteOutcome, DeleteReply, ReadError, TransportKind};
pub use rate::RateInfo;
pub use retry::RetryPolicy;
pub use settings::{GitHubSettings, Scope};
