//! `guard`: the validating admission webhook that makes every eviction of a runner pod go
//! through the drain pipeline (docs/design.md §8).
//!
//! `review` reads and writes AdmissionReview v1 (pure), `decide` decides one eviction (look the
//! pod up, plan, start or join the runner's drain), `metrics` counts what it decided, `server`
//! serves it over HTTPS with readiness, liveness and metrics endpoints; `manifests` renders the
//! objects that install it, `certs` generates its certificate for `--self-signed`.

pub mod certs;
pub mod decide;
pub mod manifests;
pub mod metrics;
pub mod review;
pub mod server;

pub use decide::{Decision, Guard, GuardSettings};
