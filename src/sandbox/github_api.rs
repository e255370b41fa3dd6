//! The fake GitHub REST API over the shared world.
//!
//! Placeholder router until the github-api branch lands; it serves nothing yet.

use crate::sandbox::world::SharedWorld;

/// The fake GitHub's routes.
pub fn router(world: SharedWorld) -> axum::Router {
    let _ = world;
    axum::Router::new()
}
