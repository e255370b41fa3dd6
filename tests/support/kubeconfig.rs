//! The one kubeconfig writer: the sandbox's own rendering (context `sandbox`, the runner
//! namespace, no credentials), pointed at any server.

use std::path::{Path, PathBuf};

use super::sandbox::NS;

/// Writes `dir/name`, a kubeconfig whose API server is `server`; returns its path.
pub fn write(dir: &Path, name: &str, server: &str) -> PathBuf {
    let text = arcctl::sandbox::kubeconfig::render(server, NS).expect("kubeconfig renders");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("kubeconfig written");
    path
}
