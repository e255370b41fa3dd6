//! Harness for the drain tests: an in-process sandbox, `arcctl` run in-process against it with
//! a captured context, and readings of the sandbox's request counts.

#![allow(dead_code)]

use std::sync::Arc;

use arcctl::context::{Context, Env, Interrupt, ScriptedPrompter, Terminals};
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::report::Report;
use arcctl::sandbox::world::lock;

/// The result of one in-process run.
pub struct Run {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A sandbox from `arcctl sandbox` words.
pub async fn sandbox(words: &[&str]) -> Sandbox {
    install_tls();
    let args = arcctl::sandbox::options(words.iter().copied()).expect("sandbox options");
    Sandbox::start(args).await.expect("sandbox starts")
}

/// The environment `arcctl sandbox` hands its command.
pub fn env(sb: &Sandbox) -> Env {
    Env::new(sb.env())
}

/// How to run arcctl.
pub struct Invocation {
    pub env: Env,
    pub terminals: Terminals,
    pub prompter: Option<Arc<ScriptedPrompter>>,
    pub interrupt: Interrupt,
}

impl Invocation {
    pub fn new(sb: &Sandbox) -> Self {
        Invocation {
            env: env(sb),
            terminals: Terminals::default(),
            prompter: None,
            interrupt: Interrupt::default(),
        }
    }

    pub async fn run(self, args: &[&str]) -> Run {
        let (mut ctx, out, err) = Context::captured(self.env);
        ctx.terminals = self.terminals;
        ctx.interrupt = self.interrupt;
        if let Some(p) = self.prompter {
            ctx.prompter = p;
        }
        let argv = std::iter::once("arcctl")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect();
        let code = arcctl::run(argv, ctx).await;
        Run {
            code,
            stdout: out.text(),
            stderr: err.text(),
        }
    }
}

/// Runs `arcctl ARGS` against the sandbox with no terminal.
pub async fn arcctl(sb: &Sandbox, args: &[&str]) -> Run {
    Invocation::new(sb).run(args).await
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
    let all = (Default::default(), Default::default());
    w.store
        .list(arcctl::sandbox::store::PODS, Some(&ns), &all.0, &all.1)
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

/// The JSON result document of a `-o json` run.
pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    })
}

/// Outcome label → runner names, from a result document.
pub fn outcomes(doc: &serde_json::Value) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut m = std::collections::BTreeMap::<String, Vec<String>>::new();
    for r in doc["runners"].as_array().expect("runners") {
        m.entry(r["outcome"].as_str().unwrap_or("?").to_owned())
            .or_default()
            .push(r["name"].as_str().unwrap_or("?").to_owned());
    }
    m
}

/// Triggers `interrupt` once the sandbox has answered `n` DELETE requests on `github` (true) or
/// Kubernetes (false); bounded at 20 s of polling, then it triggers anyway.
pub fn interrupt_after_deletes(
    sb: &Sandbox,
    github: bool,
    n: u64,
    interrupt: arcctl::context::Interrupt,
) {
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
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        interrupt.trigger();
    });
}
