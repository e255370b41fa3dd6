//! A running sandbox: the fake GitHub and Kubernetes APIs on 127.0.0.1, the world's clock
//! ticking (jobs, controller), and the environment a command needs to use them. Integration
//! tests use [`Sandbox`] in-process; `arcctl sandbox` wraps it.
//!
//! ```no_run
//! # async fn example() -> arcctl_sandbox::Result<()> {
//! use arcctl_sandbox::Sandbox;
//!
//! let options = arcctl_sandbox::options(["--runners", "10", "--busy", "0.5", "--job-duration", "600s"])
//!     .expect("valid options");
//! let sandbox = Sandbox::start(options).await?;
//! // Point a client at it: GITHUB_API_URL, GH_TOKEN, KUBECONFIG, ARCCTL_ORG (arcctl's tests run
//! // `arcctl::run` in-process with this environment).
//! for (name, value) in sandbox.env() {
//!     println!("export {name}={value}");
//! }
//! sandbox.stop_traffic();
//! sandbox.settle().await;
//! let report = sandbox.report();
//! assert_eq!(report.jobs.killed, 0);
//! sandbox.shutdown().await;
//! # Ok(())
//! # }
//! ```

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::kubeconfig::{self, TempDir};
use crate::options::Options;
use crate::report::Report;
use crate::world::{SharedWorld, World, lock};
use crate::{github_api, kube_api, tls};

/// How often the world's clock ticks.
const TICK: Duration = Duration::from_millis(50);
/// The longest [`Sandbox::settle`] waits: a runner unregistered at the end of a run may take
/// 10 s to notice, 5 s to exit, then be reaped and replaced.
const SETTLE_MAX: Duration = Duration::from_secs(30);

/// A running sandbox. Its servers and clock stop when it is shut down or dropped.
pub struct Sandbox {
    world: SharedWorld,
    github: SocketAddr,
    kube: SocketAddr,
    dir: TempDir,
    kubeconfig: std::path::PathBuf,
    /// `--tls`: the CA of the GitHub API's certificate.
    ca_cert: Option<std::path::PathBuf>,
    tasks: Vec<JoinHandle<()>>,
}

async fn bind(what: &'static str) -> Result<(tokio::net::TcpListener, SocketAddr)> {
    let fail = |source| Error::Bind { what, source };
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(fail)?;
    let addr = listener.local_addr().map_err(fail)?;
    Ok((listener, addr))
}

fn serve(listener: tokio::net::TcpListener, router: axum::Router) -> JoinHandle<()> {
    tokio::spawn(async move {
        // Ends only on an accept error; the sandbox aborts it on shutdown.
        let _ = axum::serve(listener, router).await;
    })
}

impl Sandbox {
    /// Populates a world per `args` and starts it.
    pub async fn start(args: Options) -> Result<Sandbox> {
        Sandbox::start_world(World::populated(args)).await
    }

    /// Starts an already built world (tests may adjust [`World::timing`] first).
    pub async fn start_world(world: World) -> Result<Sandbox> {
        let namespace = world.options.namespace.clone();
        let tls = world.options.tls;
        kube_api::check_options(&world.options)?;
        let world = world.shared();
        let (gh_listener, github) = bind("GitHub API").await?;
        let (kube_listener, kube) = bind("Kubernetes API").await?;
        let dir = TempDir::new()?;
        let kubeconfig = kubeconfig::write(dir.path(), &format!("http://{kube}"), &namespace)?;
        let github_router = github_api::router(world.clone());
        let (github_task, ca_cert) = if tls {
            let (acceptor, ca) = tls::acceptor(dir.path())?;
            (tls::serve(gh_listener, github_router, acceptor), Some(ca))
        } else {
            (serve(gh_listener, github_router), None)
        };
        let tasks = vec![
            github_task,
            serve(kube_listener, kube_api::router(world.clone())),
            tokio::spawn(clock(world.clone())),
        ];
        Ok(Sandbox {
            world,
            github,
            kube,
            dir,
            kubeconfig,
            ca_cert,
            tasks,
        })
    }

    /// `http://127.0.0.1:PORT` of the fake GitHub REST API (`https` with `--tls`).
    pub fn github_url(&self) -> String {
        let scheme = if self.ca_cert.is_some() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}", self.github)
    }

    /// `http://127.0.0.1:PORT` of the fake Kubernetes API server.
    pub fn kube_url(&self) -> String {
        format!("http://{}", self.kube)
    }

    /// The kubeconfig (context `sandbox`) pointing at the fake Kubernetes API.
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig
    }

    /// The sandbox's private temp directory (holds the kubeconfig; removed with the sandbox).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The environment a command gets: `GITHUB_API_URL`, `GH_TOKEN`, `GITHUB_TOKEN`,
    /// `KUBECONFIG`, `ARCCTL_ORG`. With `--app-id`, `ARCCTL_APP_ID` and
    /// `ARCCTL_INSTALLATION_ID` instead of the tokens (the App's private key is the caller's:
    /// `ARCCTL_APP_KEY_FILE`). With `--tls`, `ARCCTL_CA_CERT`.
    pub fn env(&self) -> Vec<(String, String)> {
        let w = lock(&self.world);
        let mut env = vec![("GITHUB_API_URL".to_owned(), self.github_url())];
        match w.options.app_id {
            Some(app_id) => {
                env.push(("ARCCTL_APP_ID".to_owned(), app_id.to_string()));
                env.push((
                    "ARCCTL_INSTALLATION_ID".to_owned(),
                    github_api::INSTALLATION_ID.to_string(),
                ));
            }
            None => {
                env.push(("GH_TOKEN".to_owned(), w.token.clone()));
                env.push(("GITHUB_TOKEN".to_owned(), w.token.clone()));
            }
        }
        if let Some(ca) = &self.ca_cert {
            env.push((
                "ARCCTL_CA_CERT".to_owned(),
                ca.to_string_lossy().into_owned(),
            ));
        }
        env.push((
            "KUBECONFIG".to_owned(),
            self.kubeconfig.to_string_lossy().into_owned(),
        ));
        env.push(("ARCCTL_ORG".to_owned(), w.options.org.clone()));
        env
    }

    /// The PEM file of the CA that signed the GitHub API's certificate (`--tls`).
    pub fn ca_cert_path(&self) -> Option<&Path> {
        self.ca_cert.as_deref()
    }

    /// The shared world.
    pub fn world(&self) -> SharedWorld {
        self.world.clone()
    }

    /// Stops job arrivals (running jobs still end).
    pub fn stop_traffic(&self) {
        lock(&self.world).stop_traffic();
    }

    /// Waits until the controller work begun so far is done (replacements created and
    /// started; not work that jobs ending meanwhile begin); at most 10 s.
    pub async fn settle(&self) {
        let start = Instant::now();
        let since = lock(&self.world).now();
        while !lock(&self.world).settled_since(since) && start.elapsed() < SETTLE_MAX {
            tokio::time::sleep(TICK).await;
        }
    }

    /// The report of the world as it is now.
    pub fn report(&self) -> Report {
        lock(&self.world).report()
    }

    /// Stops the servers and the clock, and removes the temp directory.
    pub async fn shutdown(mut self) {
        for task in self.tasks.drain(..) {
            task.abort();
            let _ = task.await;
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Ticks the world until aborted.
async fn clock(world: SharedWorld) {
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        lock(&world).tick(Instant::now());
    }
}
