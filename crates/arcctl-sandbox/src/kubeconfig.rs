//! The kubeconfig the sandbox hands to the command it runs: one cluster, one context named
//! `sandbox` with the runner namespace, and an empty user (the fake API server needs no
//! credentials).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use crate::error::{Error, Result};

/// The kubeconfig text for an API server at `server` and default namespace `namespace`.
pub fn render(server: &str, namespace: &str) -> Result<String> {
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "sandbox", "cluster": {"server": server}}],
        "contexts": [{"name": "sandbox", "context": {"cluster": "sandbox", "user": "sandbox", "namespace": namespace}}],
        "current-context": "sandbox",
        "users": [{"name": "sandbox", "user": {}}],
        "preferences": {},
    });
    serde_yaml::to_string(&config).map_err(Error::RenderKubeconfig)
}

/// A private directory of this sandbox under the system temp dir, removed on drop.
#[derive(Debug)]
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new() -> Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = None;
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("arcctl-sandbox-{}-{nanos}-{n}", std::process::id()));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&path) {
                Ok(()) => return Ok(TempDir(path)),
                Err(e) => last = Some(e),
            }
        }
        Err(Error::TempDir { base, source: last })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a leftover temp dir holds no secret.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the kubeconfig into `dir` and returns its path.
pub(crate) fn write(dir: &Path, server: &str, namespace: &str) -> Result<PathBuf> {
    let path = dir.join("kubeconfig");
    match std::fs::write(&path, render(server, namespace)?) {
        Ok(()) => Ok(path),
        Err(source) => Err(Error::WriteKubeconfig { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_names_the_sandbox_context_and_namespace() {
        let text = render("http://127.0.0.1:4242", "arc-runners").unwrap();
        let v: serde_json::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(v["current-context"], "sandbox");
        assert_eq!(
            v["clusters"][0]["cluster"]["server"],
            "http://127.0.0.1:4242"
        );
        assert_eq!(v["contexts"][0]["context"]["namespace"], "arc-runners");
        assert_eq!(v["users"][0]["user"], json!({}));
    }

    #[test]
    fn temp_dirs_are_distinct_and_removed() {
        let (a, b) = (TempDir::new().unwrap(), TempDir::new().unwrap());
        assert_ne!(a.path(), b.path());
        let path = a.path().to_owned();
        assert!(path.is_dir());
        drop(a);
        assert!(!path.exists());
    }
}
