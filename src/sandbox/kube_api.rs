//! The fake Kubernetes API server over the shared world.
