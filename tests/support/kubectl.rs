//! The real kubectl, found on `PATH` as the README asks, run against a sandbox with a private
//! HOME and cache, no proxy, and a bound on how long it may take.

use std::path::PathBuf;
use std::time::Duration;

use super::kubeconfig;

/// kubectl's path: the first `kubectl` on `PATH`. Fails the test when there is none: these
/// tests drive the real kubectl, and CI installs it.
pub fn path() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("kubectl"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "kubectl is not on PATH ({}): the fidelity tests drive the real kubectl; \
                 install it (`apt-get install kubernetes-client`) or put one on PATH",
                std::env::var("PATH").unwrap_or_default()
            )
        })
}

/// The output of one kubectl run.
pub struct Out {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// kubectl with one kubeconfig, and a fresh directory that serves it as HOME and cache.
pub struct Kubectl {
    home: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Kubectl {
    /// For the API server at `url`, through a kubeconfig of its own.
    pub fn for_server(url: &str) -> Kubectl {
        let home = tempfile::tempdir().expect("temp dir");
        let kubeconfig = kubeconfig::write(home.path(), "kubeconfig", url);
        Kubectl { home, kubeconfig }
    }

    /// Through an existing kubeconfig (a running sandbox's).
    pub fn with_kubeconfig(kubeconfig: PathBuf) -> Kubectl {
        let home = tempfile::tempdir().expect("temp dir");
        Kubectl { home, kubeconfig }
    }

    pub fn kubeconfig(&self) -> &std::path::Path {
        &self.kubeconfig
    }

    /// Runs kubectl with `args`, killed after 60 s.
    pub async fn run<I, S>(&self, args: I) -> Out
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.run_for(args, Duration::from_secs(60)).await
    }

    /// Runs kubectl with `args`, killed after `limit` (a drain that waits for jobs).
    pub async fn run_for<I, S>(&self, args: I, limit: Duration) -> Out
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let args: Vec<std::ffi::OsString> =
            args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let home = self.home.path();
        let mut cmd = tokio::process::Command::new(path());
        cmd.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(home.join("cache"))
            .arg("--request-timeout=20s")
            .args(&args)
            .env("HOME", home)
            .env("CLOUDSDK_CONFIG", home.join("gcloud"))
            .env_remove("KUBECONFIG")
            .env("NO_PROXY", "127.0.0.1")
            .kill_on_drop(true);
        for var in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            cmd.env_remove(var);
        }
        let out = tokio::time::timeout(limit, cmd.output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} did not finish within {limit:?}"))
            .expect("kubectl runs");
        Out {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Like [`Kubectl::run`], failing the test unless kubectl succeeds; its stdout.
    pub async fn ok<I, S>(&self, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let args: Vec<std::ffi::OsString> =
            args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = self.run(&args).await;
        assert!(
            out.ok,
            "kubectl {args:?} failed:\n{}\n{}",
            out.stdout, out.stderr
        );
        out.stdout
    }
}
