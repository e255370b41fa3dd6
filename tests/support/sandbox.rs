//! Starting the in-process sandbox from `arcctl sandbox` words, and readings of its world and
//! of the requests it counted.

use std::ffi::{OsStr, OsString};
use std::time::Duration;

use arcctl::context::{Env, Interrupt};
use arcctl::sandbox::Options;
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::report::Report;
use arcctl::sandbox::store::{FieldSelector, PODS};
use arcctl::sandbox::world::{World, lock};

/// The namespace the sandbox puts its runner pods in.
pub const NS: &str = "arc-runners";

/// One TLS provider for the process, as `main` installs it (reqwest and kube share rustls).
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Sandbox options from `arcctl sandbox` words, every default as the command has it.
pub fn options<I, S>(words: I) -> Options
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let words: Vec<OsString> = words.into_iter().map(|w| w.as_ref().to_owned()).collect();
    arcctl::sandbox::options(words).expect("sandbox options")
}

/// A populated world from `arcctl sandbox` words, not started: for a test that adjusts its
/// timing first, then starts it with [`Sandbox::start_world`].
pub fn populated<I, S>(words: I) -> World
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    install_tls();
    World::populated(options(words))
}

/// A running sandbox from `arcctl sandbox` words.
pub async fn sandbox<I, S>(words: I) -> Sandbox
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    install_tls();
    Sandbox::start(options(words))
        .await
        .expect("sandbox starts")
}

/// The environment `arcctl sandbox` hands its command.
pub fn env(sb: &Sandbox) -> Env {
    Env::new(sb.env())
}

/// Requests that change something: GitHub DELETE/POST/PATCH/PUT, Kubernetes DELETE/PATCH/POST.
pub fn mutating_requests(r: &Report) -> u64 {
    let gh: u64 = r
        .requests
        .github
        .by_route
        .iter()
        .filter(|c| c.method != "GET")
        .map(|c| c.count)
        .sum();
    let kube: u64 = r
        .requests
        .kube
        .by_route
        .iter()
        .filter(|c| c.method != "GET")
        .map(|c| c.count)
        .sum();
    gh + kube
}

/// Count of requests by method and a path fragment, any status.
pub fn count(r: &Report, github: bool, method: &str, path_contains: &str) -> u64 {
    let api = if github {
        &r.requests.github
    } else {
        &r.requests.kube
    };
    api.by_route
        .iter()
        .filter(|c| c.method == method && c.path.contains(path_contains))
        .map(|c| c.count)
        .sum()
}

/// Names of the runner pods now.
pub fn pod_names(sb: &Sandbox) -> Vec<String> {
    let w = sb.world();
    let w = lock(&w);
    let ns = w.options.namespace.clone();
    w.store
        .list(PODS, Some(&ns), &Default::default(), &Default::default())
        .into_iter()
        .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// Names of the runner pods on `node` now.
pub fn pods_on(sb: &Sandbox, node: &str) -> Vec<String> {
    let w = sb.world();
    let w = lock(&w);
    let on_node = FieldSelector::parse(&format!("spec.nodeName={node}")).expect("a field selector");
    w.store
        .list(PODS, Some(NS), &Default::default(), &on_node)
        .into_iter()
        .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// Names of registrations GitHub sees busy now.
pub fn busy_runners(sb: &Sandbox) -> Vec<String> {
    let w = sb.world();
    let w = lock(&w);
    w.registrations
        .values()
        .filter(|r| r.busy)
        .map(|r| r.name.clone())
        .collect()
}

/// Triggers `interrupt` once the sandbox has answered `n` DELETE requests on `github` (true) or
/// Kubernetes (false); bounded at 20 s of polling, then it triggers anyway.
pub fn interrupt_after_deletes(sb: &Sandbox, github: bool, n: u64, interrupt: Interrupt) {
    let world = sb.world();
    tokio::spawn(async move {
        for _ in 0..2000 {
            let deletes: u64 = {
                let w = lock(&world);
                let counts = if github {
                    &w.stats.github
                } else {
                    &w.stats.kube
                };
                counts
                    .iter()
                    .filter(|((m, _, _), _)| m == "DELETE")
                    .map(|(_, c)| *c)
                    .sum()
            };
            if deletes >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        interrupt.trigger();
    });
}

/// POSTs an Eviction of `pod` in [`NS`] over the API, as an evictor does (`query` after the
/// path, e.g. `?dryRun=All`): the status and the body.
pub async fn evict(sb: &Sandbox, pod: &str, query: &str) -> (u16, serde_json::Value) {
    let eviction = serde_json::json!({
        "apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": pod, "namespace": NS},
    });
    let url = format!(
        "{}/api/v1/namespaces/{NS}/pods/{pod}/eviction{query}",
        sb.kube_url()
    );
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let answer = client.post(url).json(&eviction).send().await.unwrap();
    let status = answer.status().as_u16();
    (
        status,
        answer.json().await.unwrap_or(serde_json::Value::Null),
    )
}
