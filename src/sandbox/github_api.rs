//! The fake GitHub REST API over the shared world.
