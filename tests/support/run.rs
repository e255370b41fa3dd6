//! The one in-process runner: `arcctl::run` with a captured context (environment, terminals,
//! prompter, interrupt), and readers of what a run printed.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use arcctl::context::{Context, Env, Interrupt, ScriptedPrompter, Terminals};
use arcctl::sandbox::Sandbox;
use serde_json::Value;

use super::sandbox::{env, install_tls};

/// The result of one in-process run.
pub struct Run {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// How to run arcctl: no terminal, the default prompter and an untriggered interrupt unless a
/// test sets them.
pub struct Invocation {
    pub env: Env,
    pub terminals: Terminals,
    pub prompter: Option<Arc<ScriptedPrompter>>,
    pub interrupt: Interrupt,
}

impl Invocation {
    /// With the environment `arcctl sandbox` hands its command.
    pub fn new(sb: &Sandbox) -> Self {
        Invocation::with_env(env(sb))
    }

    pub fn with_env(env: Env) -> Self {
        Invocation {
            env,
            terminals: Terminals::default(),
            prompter: None,
            interrupt: Interrupt::default(),
        }
    }

    /// All three streams a terminal (stdin, stdout, stderr).
    pub fn on_a_terminal(mut self) -> Self {
        self.terminals = Terminals {
            stdin: true,
            stdout: true,
            stderr: true,
            width: None,
        };
        self
    }

    /// Runs `arcctl ARGS`.
    pub async fn run<I, S>(self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        // What `main` does before any client is built.
        install_tls();
        let (mut ctx, out, err) = Context::captured(self.env);
        ctx.terminals = self.terminals;
        ctx.interrupt = self.interrupt;
        if let Some(p) = self.prompter {
            ctx.prompter = p;
        }
        let argv: Vec<OsString> = std::iter::once(OsString::from("arcctl"))
            .chain(args.into_iter().map(|a| a.as_ref().to_owned()))
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
pub async fn arcctl<I, S>(sb: &Sandbox, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Invocation::new(sb).run(args).await
}

/// The JSON result document of a `-o json` run.
pub fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    })
}

/// Outcome label → runner names, from a result document.
pub fn outcomes(doc: &Value) -> BTreeMap<String, Vec<String>> {
    let mut m = BTreeMap::<String, Vec<String>>::new();
    for r in doc["runners"].as_array().expect("runners") {
        m.entry(r["outcome"].as_str().unwrap_or("?").to_owned())
            .or_default()
            .push(r["name"].as_str().unwrap_or("?").to_owned());
    }
    m
}
