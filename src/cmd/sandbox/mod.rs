//! The `arcctl sandbox` command: start the world, run a command in it or serve, print the
//! verdict.
//!
//! With a COMMAND it runs it with the sandbox's environment (stdin, stdout and stderr
//! inherited; other GitHub scopes and App credentials removed; 127.0.0.1 added to NO_PROXY),
//! then stops job arrivals, lets the controller settle, prints the verdict on
//! stderr, writes `--report` and exits with the command's exit code: 128+N when a signal N
//! ended it, 127 when it can't be found and 126 when it can't be run, as a shell does.
//! Without one it prints `export` lines and serves until SIGINT or SIGTERM (then exit 0).
//!
//! The world itself is the `arcctl-sandbox` crate; this module is what needs the CLI: running
//! `arcctl` in-process for `--demo`, the context's streams and interrupt, and arcctl's errors.

mod cpu;
mod demo;
#[cfg(feature = "guard")]
pub(crate) mod guard;

use std::time::Duration;

use arcctl_sandbox::report::Report;
use arcctl_sandbox::server::Sandbox;
use arcctl_sandbox::world::lock;
use arcctl_sandbox::{Options, overview};

use crate::cli::SandboxArgs;
use crate::context::{Context, Env};
use crate::error::{Error, Kind, Result};

/// After an interrupt, how long the command gets to end by itself before it is killed.
const COMMAND_GRACE: Duration = Duration::from_secs(10);

/// A sandbox that could not start, as arcctl reports it: the sandbox's message, its cause
/// below, and exit 2 when the options named a file that can't be used (as other bad input).
impl From<arcctl_sandbox::Error> for Error {
    fn from(e: arcctl_sandbox::Error) -> Self {
        use arcctl_sandbox::Error as E;
        let kind = match &e {
            E::ReadRbac { .. } | E::ParseRbac { .. } => Kind::Usage,
            E::Bind { .. }
            | E::TempDir { .. }
            | E::RenderKubeconfig(_)
            | E::WriteKubeconfig { .. }
            | E::Certificate { .. }
            | E::WriteCa { .. }
            | E::TlsServer(_) => Kind::Failed,
        };
        let message = e.to_string();
        match std::error::Error::source(&e) {
            Some(_) => Error::new(kind, message).with_source(Cause(e)),
            None => Error::new(kind, message),
        }
    }
}

/// The cause chain of a sandbox error below its own message (which the arcctl error carries).
#[derive(Debug)]
struct Cause(arcctl_sandbox::Error);

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match std::error::Error::source(&self.0) {
            Some(source) => std::fmt::Display::fmt(source, f),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0).and_then(std::error::Error::source)
    }
}

async fn start(options: Options) -> Result<Sandbox> {
    Ok(Sandbox::start(options).await?)
}

pub(crate) async fn run(ctx: &Context, args: SandboxArgs) -> Result<u8> {
    if args.demo {
        return run_demo(ctx, args.world).await;
    }
    let report_path = args.world.report.clone();
    let command = args.command;
    #[cfg(feature = "guard")]
    let namespace = args.world.namespace.clone();
    let sandbox = start(args.world).await?;
    #[cfg(feature = "guard")]
    let guard = match args.guard {
        true => Some(guard::start(&sandbox, &namespace).await?),
        false => None,
    };
    let code = if command.is_empty() {
        serve(ctx, &sandbox).await;
        0
    } else {
        run_command(ctx, &sandbox, &command).await
    };
    #[cfg(feature = "guard")]
    if let Some(guard) = guard {
        guard.shutdown().await;
    }
    finish(ctx, sandbox, report_path.as_deref()).await?;
    Ok(code)
}

/// `--demo`: plays [`demo::STEPS`] in a demo world, then the verdict; 0 when it stayed clean.
async fn run_demo(ctx: &Context, options: Options) -> Result<u8> {
    let options = demo::options(options);
    let report_path = options.report.clone();
    let intro = demo::intro(&options);
    let sandbox = start(options).await?;
    let _ = ctx.stdout.write_str(&intro);
    let _ = ctx.stdout.write_str(&format!(
        "fake GitHub API at {}, fake Kubernetes API at {} (kubeconfig {})\n\n",
        sandbox.github_url(),
        sandbox.kube_url(),
        sandbox.kubeconfig_path().display()
    ));
    let world = sandbox.world();
    // Traffic from now on (population's events are not news).
    let mut seen = lock(&world).last_event_seq();
    for step in demo::STEPS {
        if ctx.interrupt.is_triggered() {
            break;
        }
        match step {
            demo::Step::Overview(title) => {
                let rows = lock(&world).overview();
                let _ = ctx
                    .stdout
                    .write_str(&format!("{title}:\n{}\n", overview::render(&rows)));
            }
            demo::Step::Watch(how_long) => {
                let _ = ctx.stdout.write_str("job traffic:\n");
                let start = tokio::time::Instant::now();
                let mut traffic = demo::Traffic::default();
                loop {
                    let events = lock(&world).events_since(seen);
                    for e in events {
                        seen = e.seq;
                        if let Some(line) = traffic.line(&e, start.elapsed()) {
                            let _ = ctx.stdout.write_str(&line);
                        }
                    }
                    if start.elapsed() >= how_long {
                        break;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(250)) => {}
                        () = crate::cmd::stop_requested(ctx) => break,
                    }
                }
                if traffic.unprinted > 0 {
                    let _ = ctx
                        .stdout
                        .write_str(&format!("  … and {} more job events\n", traffic.unprinted));
                }
                let _ = ctx.stdout.write_str("\n");
            }
            demo::Step::Arcctl(words) => {
                let _ = ctx
                    .stdout
                    .write_str(&format!("$ arcctl {}\n", words.join(" ")));
                let mut inner = ctx.clone();
                inner.env = Env::new(sandbox.env());
                let argv = std::iter::once("arcctl")
                    .chain(words.iter().copied())
                    .map(Into::into)
                    .collect();
                // `run` is where this command came from: box the recursion.
                let code = Box::pin(super::run(argv, inner)).await;
                let _ = ctx.stdout.write_str(&format!("(arcctl exited {code})\n\n"));
            }
        }
    }
    let _ = ctx.stdout.write_str(demo::OUTRO);
    let report = finish(ctx, sandbox, report_path.as_deref()).await?;
    Ok(if report.is_clean() { 0 } else { 1 })
}

/// Stops traffic, settles, prints the verdict and writes the report.
async fn finish(
    ctx: &Context,
    sandbox: Sandbox,
    report_path: Option<&std::path::Path>,
) -> Result<Report> {
    sandbox.stop_traffic();
    sandbox.settle().await;
    let mut report = sandbox.report();
    // After the command was waited for (its time is in the children's), before shutdown.
    report.cpu = cpu::measure();
    sandbox.shutdown().await;
    let _ = ctx.stderr.write_str(&report.verdict());
    if let Some(path) = report_path {
        write_report(path, &report)?;
    }
    Ok(report)
}

fn write_report(path: &std::path::Path, report: &Report) -> Result<()> {
    let what = || format!("failed to write the sandbox report `{}`", path.display());
    let mut text =
        serde_json::to_string_pretty(report).map_err(|e| Error::failed(what()).with_source(e))?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| Error::failed(what()).with_source(e))
}

/// Runs `command` in the sandbox's environment and returns its exit code.
async fn run_command(ctx: &Context, sandbox: &Sandbox, command: &[String]) -> u8 {
    let Some((program, rest)) = command.split_first() else {
        return 0;
    };
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(rest)
        .env_clear()
        .envs(child_env(&ctx.env, sandbox.env()))
        .stdin(std::process::Stdio::inherit())
        .stdout(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            let code = match e.kind() {
                std::io::ErrorKind::NotFound => 127,
                _ => 126,
            };
            let err =
                Error::failed(format!("failed to start `{program}` in the sandbox")).with_source(e);
            let _ = ctx.stderr.write_str(&crate::output::render_error(&err));
            return code;
        }
    };
    let status = tokio::select! {
        status = child.wait() => status,
        () = crate::cmd::stop_requested(ctx) => {
            // A terminal's Ctrl-C reached the command too: give it time to end by itself.
            match tokio::time::timeout(COMMAND_GRACE, child.wait()).await {
                Ok(status) => status,
                Err(_) => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            }
        }
    };
    match status {
        Ok(status) => exit_code(status),
        Err(e) => {
            let err = Error::failed(format!("failed to wait for `{program}`")).with_source(e);
            let _ = ctx.stderr.write_str(&crate::output::render_error(&err));
            1
        }
    }
}

/// Variables that would point a command at another GitHub scope or identity than the
/// sandbox's; they are not passed on.
const SCOPE_VARS: [&str; 5] = [
    "ARCCTL_REPO",
    "ARCCTL_ENTERPRISE",
    "ARCCTL_APP_ID",
    "ARCCTL_INSTALLATION_ID",
    "ARCCTL_APP_KEY_FILE",
];

/// Tokens a command would prefer over the App's credentials.
const TOKEN_VARS: [&str; 2] = ["GH_TOKEN", "GITHUB_TOKEN"];

/// The command's environment: ours, with the sandbox's variables, without other GitHub
/// scopes, and with 127.0.0.1 exempt from any HTTP proxy.
///
/// When the sandbox runs a GitHub App (it exports `ARCCTL_APP_ID`), the caller's
/// `ARCCTL_APP_KEY_FILE` (the App's private key) is kept and tokens are dropped, so that the
/// command authenticates as the App.
fn child_env(env: &Env, sandbox: Vec<(String, String)>) -> Vec<(String, String)> {
    let app = sandbox.iter().any(|(k, _)| k == "ARCCTL_APP_ID");
    let mut out: std::collections::BTreeMap<String, String> = env
        .iter()
        .filter(|(k, _)| {
            if app {
                *k == "ARCCTL_APP_KEY_FILE" || !(SCOPE_VARS.contains(k) || TOKEN_VARS.contains(k))
            } else {
                !SCOPE_VARS.contains(k)
            }
        })
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    out.extend(sandbox);
    for name in ["NO_PROXY", "no_proxy"] {
        let value = match env.get(name) {
            Some(v) => format!("{v},127.0.0.1,localhost"),
            None => "127.0.0.1,localhost".to_owned(),
        };
        out.insert(name.to_owned(), value);
    }
    out.into_iter().collect()
}

/// The exit code a shell would report for `status`.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return (code & 0xff) as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return (128 + signal).clamp(0, 255) as u8;
        }
    }
    1
}

/// Prints the environment and serves until stopped.
async fn serve(ctx: &Context, sandbox: &Sandbox) {
    let mut exports = String::new();
    for (name, value) in sandbox.env() {
        exports.push_str(&format!("export {name}={}\n", shell_quote(&value)));
    }
    let _ = ctx.stdout.write_str(&exports);
    let _ = ctx.stderr.write_str(&format!(
        "sandbox: GitHub API {}, Kubernetes API {}; serving until interrupted (Ctrl-C)\n",
        sandbox.github_url(),
        sandbox.kube_url()
    ));
    crate::cmd::stop_requested(ctx).await;
}

/// `value` quoted for a POSIX shell (bare when it needs no quoting).
fn shell_quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_environment_points_at_the_sandbox_only() {
        let env = Env::new([
            ("PATH", "/bin"),
            ("ARCCTL_REPO", "acme/app"),
            ("GITHUB_API_URL", "https://api.github.com"),
            ("NO_PROXY", "corp.example"),
        ]);
        let sandbox = vec![("GITHUB_API_URL".to_owned(), "http://127.0.0.1:1".to_owned())];
        let out: std::collections::BTreeMap<_, _> = child_env(&env, sandbox).into_iter().collect();
        assert_eq!(out["PATH"], "/bin");
        assert_eq!(out["GITHUB_API_URL"], "http://127.0.0.1:1");
        assert!(!out.contains_key("ARCCTL_REPO"));
        assert_eq!(out["NO_PROXY"], "corp.example,127.0.0.1,localhost");
        assert_eq!(out["no_proxy"], "127.0.0.1,localhost");
    }

    #[test]
    fn an_app_sandbox_keeps_the_app_key_and_drops_tokens() {
        let env = Env::new([
            ("GH_TOKEN", "ghp_real"),
            ("ARCCTL_APP_KEY_FILE", "/k.pem"),
            ("ARCCTL_APP_ID", "1"),
        ]);
        let sandbox = vec![("ARCCTL_APP_ID".to_owned(), "4242".to_owned())];
        let out: std::collections::BTreeMap<_, _> = child_env(&env, sandbox).into_iter().collect();
        assert_eq!(out["ARCCTL_APP_KEY_FILE"], "/k.pem");
        assert_eq!(out["ARCCTL_APP_ID"], "4242");
        assert!(!out.contains_key("GH_TOKEN"));
        // Without an App, the caller's App key never reaches the command.
        let out: std::collections::BTreeMap<_, _> = child_env(&env, vec![]).into_iter().collect();
        assert!(!out.contains_key("ARCCTL_APP_KEY_FILE"));
    }

    #[test]
    fn a_sandbox_error_keeps_its_message_once_and_its_cause() {
        let io = || std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use");
        let e = Error::from(arcctl_sandbox::Error::Bind {
            what: "GitHub API",
            source: io(),
        });
        assert_eq!(
            (e.exit_code(), e.message()),
            (1, "failed to bind the sandbox's GitHub API on 127.0.0.1")
        );
        assert_eq!(e.causes(), ["address in use"]);
        let e = Error::from(arcctl_sandbox::Error::ReadRbac {
            path: "/r.yaml".into(),
            source: io(),
        });
        assert_eq!(e.exit_code(), 2);
        let e = Error::from(arcctl_sandbox::Error::TempDir {
            base: "/tmp".into(),
            source: None,
        });
        assert!(e.causes().is_empty());
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("http://127.0.0.1:80"), "http://127.0.0.1:80");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
