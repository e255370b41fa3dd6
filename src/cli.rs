//! The clap command tree: the single source of `--help`, completions and man pages.
//!
//! Doc comments here are user-facing help text. Keep them short on the first line (shown by
//! `-h`) and put details in the following paragraphs (shown by `--help` and the man pages).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::drain::Rate;
use crate::error::exit;
use crate::inventory::State;

/// The exit-status section of `--help` (and so of the man pages), from [`exit::TABLE`]:
/// backticks dropped, meanings wrapped at 80 columns under a 7-column code.
fn exit_codes_help() -> String {
    const INDENT: usize = 7;
    const WIDTH: usize = 80;
    let mut out = String::from("Exit status:");
    for (code, meaning) in exit::TABLE {
        let mut line = format!("\n  {code:<5}");
        let mut used = INDENT;
        for (i, word) in meaning.replace('`', "").split_whitespace().enumerate() {
            if i > 0 && used + 1 + word.len() > WIDTH {
                line.push('\n');
                line.push_str(&" ".repeat(INDENT));
                used = INDENT;
            } else if i > 0 {
                line.push(' ');
                used += 1;
            }
            line.push_str(word);
            used += word.len();
        }
        out.push_str(&line);
    }
    out
}

fn root_after_help() -> String {
    format!(
        "\
Authentication:
  GitHub: GH_TOKEN, then GITHUB_TOKEN, then --token-file PATH; or a GitHub App with
  --app-id, --installation-id and --app-key PATH. Tokens are never taken from flag values.
  Kubernetes: --kubeconfig / KUBECONFIG, --context, or the in-cluster service account.

{}",
        exit_codes_help()
    )
}

#[cfg(feature = "sandbox")]
const SANDBOX_AFTER_HELP: &str = "\
Exit status:
  with a COMMAND   the command's exit status; 128+N if signal N ended it; 127 if it can't be
                   found and 126 if it can't be run (as a shell reports them)
  without one      0 after SIGINT or SIGTERM
  --demo           0 when no job was killed and no runner left broken, else 1
  any              1 if the sandbox can't start or the report can't be written; 2 on bad usage

Example:
  arcctl sandbox --runners 50 --busy 0.5 --job-duration 600s --report r.json -- \\
      kubectl delete pods -n arc-runners --all";

/// Drain and recreate actions-runner-controller runners without ever killing a running job.
///
/// arcctl joins GitHub's self-hosted runner list with the runner pods of actions-runner-controller
/// (ARC). Before it deletes anything it unregisters the runner from GitHub: GitHub refuses (422)
/// while a job runs, so busy runners are skipped, never killed. After the unregister it confirms
/// that the pod is idle, then deletes the pod or its ARC object with a uid precondition.
#[derive(Debug, Parser)]
#[command(name = "arcctl", version, propagate_version = true, after_help = root_after_help())]
#[command(max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show runners joined with their pods.
    ///
    /// Lists the GitHub registrations of the selected scope and the runner pods of the selected
    /// namespaces, joined by name, with each runner's state: idle, busy, offline, pod-only,
    /// registration-only or conflict.
    #[command(after_help = exit_codes_help())]
    List(ListArgs),
    /// Take runners out of service: unregister, confirm idle, delete.
    ///
    /// For each selected runner: skip it if GitHub lists it busy; otherwise unregister it
    /// (GitHub answers 422 while a job runs: the runner is skipped and its pod left alone); after
    /// the unregister, wait --confirm-window and confirm from the runner's log and ARC status that
    /// no job started; only then delete the pod (legacy ARC) or its EphemeralRunner (scale sets),
    /// with a uid precondition. Without --yes it asks first; without a terminal it refuses.
    #[command(after_help = exit_codes_help())]
    Drain(DrainArgs),
    /// Replace runners in rolling batches: unregister, confirm idle, delete, wait for the replacement.
    ///
    /// Each runner goes through drain's steps (unregister; skip it on 422; confirm idle; delete
    /// its EphemeralRunner or pod with a uid precondition); ARC then creates its replacement. After
    /// each batch of --batch-size runners, waits until every replacement's pod is Running and
    /// online on GitHub (--wait-ready, bounded by --ready-timeout) before the next batch, so
    /// capacity never drops by more than a batch. A replacement that never comes stops further
    /// batches (exit 3). The summary pairs each old runner with its replacement.
    #[command(after_help = exit_codes_help())]
    Recreate(RecreateArgs),
    /// Run a simulated GitHub organization and ARC cluster with live job traffic.
    ///
    /// Serves a fake GitHub REST API and a fake Kubernetes API on 127.0.0.1 that share one
    /// simulated world, with an ARC-like controller and a job dispatcher. With a COMMAND, runs it
    /// with GITHUB_API_URL, GH_TOKEN, GITHUB_TOKEN, KUBECONFIG and ARCCTL_ORG pointing at the
    /// sandbox, lets the world settle, prints a verdict (jobs killed, stuck runners, requests) on
    /// stderr and exits with the command's exit code. Without one, prints `export` lines on stdout
    /// and serves until interrupted.
    #[cfg(feature = "sandbox")]
    #[command(after_help = SANDBOX_AFTER_HELP)]
    Sandbox(SandboxArgs),
    /// Guard evictions of runner pods: an admission webhook that drains a runner before its pod goes.
    ///
    /// `arcctl guard serve` is a validating admission webhook (HTTPS, AdmissionReview v1) for
    /// `CREATE pods/eviction`, so that `kubectl drain`, cluster-autoscaler, Karpenter and node
    /// upgrades never kill a job: an eviction of a busy runner is refused with 429 (the evictor
    /// retries), an idle runner is drained as `arcctl drain` does (unregister, confirm idle,
    /// delete its EphemeralRunner or pod) while the evictor is answered 429 "being drained,
    /// retry", and any other pod is let through at once.
    #[cfg(feature = "guard")]
    Guard(GuardArgs),
    /// Print a shell completion script to stdout.
    Completions(CompletionsArgs),
}

/// `arcctl guard`.
#[cfg(feature = "guard")]
#[derive(Debug, Clone, Args)]
pub struct GuardArgs {
    #[command(subcommand)]
    pub command: GuardCommand,
}

#[cfg(feature = "guard")]
#[derive(Debug, Clone, Subcommand)]
// Parsed once per process: the size of the smaller variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum GuardCommand {
    /// Serve the admission webhook until SIGTERM or Ctrl-C.
    ///
    /// Endpoints: POST /validate (AdmissionReview v1), GET /readyz, GET /livez, GET /metrics
    /// (Prometheus text). Register it with a ValidatingWebhookConfiguration for CREATE
    /// pods/eviction with a namespaceSelector for the runner namespaces, failurePolicy Fail and
    /// sideEffects NoneOnDryRun.
    Serve(GuardServeArgs),
    /// Print the Kubernetes manifests that install the guard (multi-document YAML on stdout).
    #[command(long_about = GUARD_MANIFESTS_LONG_ABOUT)]
    Manifests(GuardManifestsArgs),
}

#[cfg(feature = "guard")]
const GUARD_MANIFESTS_LONG_ABOUT: &str = "\
Print the Kubernetes manifests that install the guard (multi-document YAML on stdout).

For `arcctl guard manifests ... | kubectl apply -f -`: the guard's Namespace, ServiceAccount, a
Role and RoleBinding in each runner namespace (get, delete and patch on pods, get on pods/log,
get and delete on ephemeralrunners: what the drain sends, nothing more), a Deployment of 2
replicas spread across nodes (non-root, read-only root filesystem, probes on /readyz and
/livez), a PodDisruptionBudget (minAvailable 1), a Service (443 to the guard's 8443), the
certificate, and the ValidatingWebhookConfiguration: CREATE pods/eviction in the runner
namespaces (a namespaceSelector: an objectSelector would see the Eviction, not the pod),
failurePolicy Fail, sideEffects NoneOnDryRun, timeoutSeconds 10 (the guard answers within 8s).

The certificate: by default a cert-manager Issuer and Certificate, with cert-manager's cainjector
filling the webhook's caBundle (cert-manager must be installed). With --self-signed, a CA and a
serving certificate for the Service's DNS names are generated now, valid 10 years: the private
key is printed only inside the kubernetes.io/tls Secret, so treat the output as a secret.

GitHub credentials are never values on the command line: a GitHub App (recommended; --app-id,
--installation-id and the Secret holding its private key as `private-key.pem`, mounted as a
file) or a token (the Secret's key `token`, as GH_TOKEN).

The guard's own namespace is never in the webhook's selector (arcctl refuses it as a runner
namespace), so its own pods are never guarded.

Emergency opt-out: `kubectl delete validatingwebhookconfiguration arcctl-guard` lets every
eviction through at once; `kubectl label namespace NS arcctl.io/guard=off` takes one runner
namespace out of the selector. With failurePolicy Fail a guard that is down makes runner
evictions wait (nothing is killed); that is the reason to opt out, never to lose a job.";

/// `arcctl guard serve`.
#[cfg(feature = "guard")]
#[derive(Debug, Clone, Args)]
pub struct GuardServeArgs {
    #[command(flatten)]
    pub github: GitHubArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
    /// Address to listen on (HTTPS).
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8443")]
    pub listen: std::net::SocketAddr,
    /// The server's certificate chain, a PEM file.
    #[arg(long, value_name = "PATH")]
    pub tls_cert: PathBuf,
    /// The server's private key, a PEM file.
    #[arg(long, value_name = "PATH")]
    pub tls_key: PathBuf,
    /// Answer every review within this long (keep it under the webhook's timeoutSeconds);
    /// a drain it started goes on in the background.
    #[arg(long, value_name = "DUR", default_value = "8s", value_parser = parse_duration)]
    pub answer_within: std::time::Duration,
    /// After an unregister, how long to watch a runner with no proof of being idle (at least 2s).
    #[arg(long, value_name = "DUR", default_value = "20s", value_parser = parse_duration)]
    pub confirm_window: std::time::Duration,
    /// How often a busy runner's drain asks GitHub whether its job has ended.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_duration)]
    pub poll_interval: std::time::Duration,
    /// Give up on a runner's drain after this long (its job never ended); the next eviction
    /// starts another.
    #[arg(long, value_name = "DUR", default_value = "1h", value_parser = parse_duration)]
    pub drain_timeout: std::time::Duration,
    /// Pace of unregister (DELETE) calls to GitHub, shared by every eviction, e.g. `1/s`.
    #[arg(long, value_name = "RATE", default_value = "1/s", value_parser = parse_rate)]
    pub max_unregister_rate: Rate,
    /// More logs (`-v`: what arcctl decides from the answers; `-vv`: everything); every request
    /// and every review is logged without it.
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// `arcctl guard manifests`.
#[cfg(feature = "guard")]
#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("scope").required(true).args(["org", "repo", "enterprise"]))]
#[command(group = clap::ArgGroup::new("auth").required(true).args(["app_id", "token_secret"]))]
pub struct GuardManifestsArgs {
    /// Namespace the guard runs in (never guarded itself).
    #[arg(long, value_name = "NS", default_value = "arcctl-guard")]
    pub namespace: String,
    /// Namespace of runner pods whose evictions are guarded (repeatable).
    #[arg(
        long = "runner-namespace",
        value_name = "NS",
        default_value = "arc-runners"
    )]
    pub runner_namespaces: Vec<String>,
    /// Container image with the arcctl binary.
    #[arg(long, value_name = "IMAGE")]
    pub image: String,
    /// Generate a CA and serving certificate now (Secret + caBundle) instead of cert-manager's.
    #[arg(long)]
    pub self_signed: bool,
    /// Organization whose runners the guard drains.
    #[arg(long, value_name = "ORG", help_heading = "GitHub")]
    pub org: Option<String>,
    /// Repository (OWNER/REPO) whose runners the guard drains.
    #[arg(long, value_name = "OWNER/REPO", help_heading = "GitHub")]
    pub repo: Option<String>,
    /// Enterprise (slug) whose runners the guard drains.
    #[arg(long, value_name = "SLUG", help_heading = "GitHub")]
    pub enterprise: Option<String>,
    /// Only runners of this runner group (name or id).
    #[arg(long, value_name = "GROUP", help_heading = "GitHub")]
    pub group: Option<String>,
    /// GitHub API base URL (GitHub Enterprise Server: https://HOST/api/v3).
    #[arg(long, value_name = "URL", help_heading = "GitHub")]
    pub github_url: Option<String>,
    /// GitHub App id (recommended: with --installation-id and --app-key-secret).
    #[arg(long, value_name = "ID", requires_all = ["installation_id", "app_key_secret"], help_heading = "GitHub")]
    pub app_id: Option<u64>,
    /// GitHub App installation id.
    #[arg(long, value_name = "ID", requires = "app_id", help_heading = "GitHub")]
    pub installation_id: Option<u64>,
    /// Secret (in the guard's namespace) holding the App's private key as `private-key.pem`.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "app_id",
        help_heading = "GitHub"
    )]
    pub app_key_secret: Option<String>,
    /// Secret (in the guard's namespace) holding a GitHub token as `token` (instead of an App).
    #[arg(
        long,
        value_name = "SECRET",
        conflicts_with = "app_id",
        help_heading = "GitHub"
    )]
    pub token_secret: Option<String>,
}

/// GitHub scope and connection.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "GitHub")]
pub struct GitHubArgs {
    /// Organization whose runners to use [env: ARCCTL_ORG].
    #[arg(long, value_name = "ORG")]
    pub org: Option<String>,
    /// Repository (OWNER/REPO) whose runners to use [env: ARCCTL_REPO].
    #[arg(long, value_name = "OWNER/REPO")]
    pub repo: Option<String>,
    /// Enterprise (slug) whose runners to use [env: ARCCTL_ENTERPRISE].
    #[arg(long, value_name = "SLUG")]
    pub enterprise: Option<String>,
    /// Only runners of this runner group (name or id); uses the runner-group endpoints.
    #[arg(long, value_name = "GROUP")]
    pub group: Option<String>,
    /// GitHub API base URL [env: GITHUB_API_URL] [default: https://api.github.com]; for GitHub
    /// Enterprise Server use https://HOST/api/v3.
    #[arg(long, value_name = "URL")]
    pub github_url: Option<String>,
    /// Read the GitHub token from this file (GH_TOKEN and GITHUB_TOKEN take precedence).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// GitHub App id, to authenticate as an App installation instead of with a token
    /// [env: ARCCTL_APP_ID].
    #[arg(long, value_name = "ID")]
    pub app_id: Option<u64>,
    /// GitHub App installation id [env: ARCCTL_INSTALLATION_ID].
    #[arg(long, value_name = "ID")]
    pub installation_id: Option<u64>,
    /// GitHub App private key, a PEM file [env: ARCCTL_APP_KEY_FILE].
    #[arg(long, value_name = "PATH")]
    pub app_key: Option<PathBuf>,
    /// Extra root certificate (PEM) to trust, e.g. for GitHub Enterprise Server [env:
    /// ARCCTL_CA_CERT].
    #[arg(long, value_name = "PATH")]
    pub ca_cert: Option<PathBuf>,
    /// Give up on a GitHub or Kubernetes request with no answer after this long, e.g. `10s`.
    #[arg(long, value_name = "DUR", default_value = "30s", value_parser = parse_duration)]
    pub request_timeout: std::time::Duration,
}

/// Kubernetes connection and namespaces.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Kubernetes")]
pub struct KubeArgs {
    /// Path to the kubeconfig file [env: KUBECONFIG] (default: ~/.kube/config, then in-cluster).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Namespace where runner pods live (repeatable; default: the context's namespace).
    #[arg(short = 'n', long = "namespace", value_name = "NS")]
    pub namespaces: Vec<String>,
    /// Look for runner pods in all namespaces.
    #[arg(short = 'A', long, conflicts_with = "namespaces")]
    pub all_namespaces: bool,
}

/// Which runners a command acts on.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Selection")]
pub struct SelectionArgs {
    /// Runner names or globs (`arc-runners-*`).
    #[arg(value_name = "RUNNER")]
    pub runners: Vec<String>,
    /// Pod label selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`).
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Only runner pods scheduled on this node.
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// Only runners of this ARC scale set, RunnerDeployment or RunnerSet.
    #[arg(long, value_name = "NAME")]
    pub scale_set: Option<String>,
    /// Only runners that carry this GitHub label (repeatable; all must match).
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
}

/// How results are written.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Output format for data on stdout.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Don't print table headers.
    #[arg(long)]
    pub no_headers: bool,
    /// When to use colour (NO_COLOR disables it in auto mode) [env: NO_COLOR].
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Never show progress bars.
    #[arg(long)]
    pub no_progress: bool,
    /// Print only data and errors.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// More detail on stderr (repeatable: -v requests, -vv responses, -vvv everything).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A table of the main columns.
    Table,
    /// A table with more columns.
    Wide,
    /// One JSON document (stable schema, see the README).
    Json,
    /// The JSON document as YAML.
    Yaml,
    /// One `runner/NAME` per line.
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Only runners in this state (repeatable).
    #[arg(long = "state", value_enum, value_name = "STATE")]
    pub states: Vec<State>,
    /// How many pages of GitHub's runner list are read at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: u32,
    #[command(flatten)]
    pub github: GitHubArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Flags shared by `drain` and `recreate`.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Drain")]
pub struct DrainOptions {
    /// Required when nothing else narrows the selection.
    #[arg(long)]
    pub all: bool,
    /// Print the exact plan and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Don't ask for confirmation (required when not running interactively).
    #[arg(short, long)]
    pub yes: bool,
    /// Wait for busy (and held) runners to become idle, then drain them.
    #[arg(long)]
    pub wait: bool,
    /// Give up after this long (0 = no limit), e.g. `10m`. No unregister starts later than one
    /// confirm window before it, and a runner already unregistered is still confirmed and
    /// deleted (or held) after it, so it must be longer than --confirm-window.
    #[arg(long, value_name = "DUR", default_value = "0", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// How often to poll a busy runner while waiting.
    #[arg(long, value_name = "DUR", default_value = "10s", value_parser = parse_duration)]
    pub poll_interval: std::time::Duration,
    /// After an unregister, how long to watch a runner that shows no proof of being idle before
    /// taking the absence of any job trace as proof (at least 2s).
    ///
    /// A job that GitHub assigned just before the unregister shows up in the runner log and on
    /// the EphemeralRunner seconds later. A runner that exits, never started, or logs that its
    /// registration was deleted is proven idle at once; the others are watched this long.
    #[arg(long, value_name = "DUR", default_value = "20s", value_parser = parse_duration)]
    pub confirm_window: std::time::Duration,
    /// Cordon the node first (default when --node is given).
    #[arg(long, overrides_with = "no_cordon")]
    pub cordon: bool,
    /// Don't cordon the node.
    #[arg(long, overrides_with = "cordon")]
    pub no_cordon: bool,
    /// How many reads and Kubernetes operations run at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Pace of unregister (DELETE) calls to GitHub, e.g. `1/s`, `3/s`, `30/m`.
    ///
    /// At a rate, unregisters go one at a time, spaced. `0` turns the ceiling off: up to
    /// `--concurrency` unregisters at once, until GitHub refuses a request; then one at a time.
    #[arg(long, value_name = "RATE", default_value = "1/s", value_parser = parse_rate)]
    pub max_unregister_rate: Rate,
    /// Append one JSON line per API mutation to this file.
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DrainArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub drain: DrainOptions,
    #[command(flatten)]
    pub github: GitHubArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct RecreateArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub drain: DrainOptions,
    /// Runners replaced per batch: a count or a percentage of the selection (`25%`).
    #[arg(
        long,
        value_name = "N|P%",
        default_value = "1",
        help_heading = "Recreate"
    )]
    pub batch_size: String,
    /// Wait for each replacement to be Running and online before the next batch (default).
    #[arg(long, overrides_with = "no_wait_ready", help_heading = "Recreate")]
    pub wait_ready: bool,
    /// Don't wait for replacements.
    #[arg(long, overrides_with = "wait_ready", help_heading = "Recreate")]
    pub no_wait_ready: bool,
    /// Give up on a replacement after this long.
    #[arg(long, value_name = "DUR", default_value = "5m", value_parser = parse_duration, help_heading = "Recreate")]
    pub ready_timeout: std::time::Duration,
    #[command(flatten)]
    pub github: GitHubArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `arcctl sandbox`: the world's options (the sandbox crate defines them and their help), then
/// what only the command has.
#[cfg(feature = "sandbox")]
#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    #[command(flatten)]
    pub world: arcctl_sandbox::Options,
    /// Run the built-in demonstration: a world with job traffic, a node drained, the verdict.
    ///
    /// 24 runners (30% busy) with about a job a second of 3 to 12 seconds: shows the runners per
    /// node and a few seconds of job traffic, then runs `arcctl drain --node node-1 --wait`
    /// inside the world with the traffic on, shows the world again and the verdict (no job
    /// killed). About 30 seconds.
    #[arg(long, conflicts_with = "command")]
    pub demo: bool,
    /// Start `arcctl guard serve` in-process and register it for the runner namespace
    /// (failurePolicy Fail) before the command runs, so evictions of runner pods are guarded.
    #[cfg(feature = "guard")]
    #[arg(long, conflicts_with = "demo")]
    pub guard: bool,
    /// Command to run against the sandbox.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The clap command, for help, completions and man pages.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

pub(crate) fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    if s == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    humantime::parse_duration(s)
        .map_err(|e| format!("`{s}` is not a duration ({e}); examples: 500ms, 10s, 5m, 1h"))
}

pub(crate) fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || format!("`{s}` is not a rate; examples: 1/s, 3/s, 30/m, 0 (unlimited)");
    if s.trim() == "0" || s.trim() == "unlimited" {
        return Ok(Rate {
            count: 0,
            per: std::time::Duration::from_secs(1),
        });
    }
    let (n, unit) = s.split_once('/').ok_or_else(bad)?;
    let count: u32 = n.trim().parse().map_err(|_| bad())?;
    let per = match unit.trim() {
        "s" | "sec" | "second" => std::time::Duration::from_secs(1),
        "m" | "min" | "minute" => std::time::Duration::from_secs(60),
        "h" | "hour" => std::time::Duration::from_secs(3600),
        other => parse_duration(other).map_err(|_| bad())?,
    };
    if count == 0 || per.is_zero() {
        return Err(bad());
    }
    Ok(Rate { count, per })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn exit_status_help_is_the_table_wrapped() {
        assert_eq!(
            exit_codes_help(),
            "\
Exit status:
  0    all selected runners handled, or nothing to do
  1    an operation failed
  2    usage error or bad input (also: a mutating command without --yes and no
       terminal)
  3    incomplete: busy runners skipped, runners held, --timeout reached, or a
       replacement not ready within --ready-timeout
  4    authentication or permission denied (GitHub or Kubernetes)
  130  interrupted, or declined at the prompt"
        );
        assert!(exit_codes_help().lines().all(|l| l.len() <= 80));
    }

    /// The README and the design repeat the table for readers; they must say what the code says.
    #[test]
    fn readme_and_design_show_the_exit_code_table() {
        let table = exit::markdown();
        for (name, text) in [
            ("README.md", include_str!("../README.md")),
            ("docs/design.md", include_str!("../docs/design.md")),
        ] {
            assert!(
                text.contains(&table),
                "{name} must contain the exit-code table exactly as error::exit::markdown() \
                 renders it:\n{table}"
            );
        }
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("3/s").unwrap().count, 3);
        assert_eq!(
            parse_rate("30/m").unwrap().per,
            std::time::Duration::from_secs(60)
        );
        assert_eq!(parse_rate("0").unwrap().count, 0);
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("0/s").is_err());
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("0").unwrap(), std::time::Duration::ZERO);
        assert!(parse_duration("ten").is_err());
    }
}
