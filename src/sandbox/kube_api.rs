//! The fake Kubernetes API server over the shared world.
//!
//! Placeholder router until the kube-api branch lands; it serves nothing yet.

use crate::sandbox::world::SharedWorld;

/// The fake Kubernetes API's routes.
pub fn router(world: SharedWorld) -> axum::Router {
    let _ = world;
    axum::Router::new()
}
