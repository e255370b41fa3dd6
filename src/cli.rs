//! The clap command tree: the single source of `--help`, completions and man pages.
//!
//! Doc comments here are user-facing help text. Keep them short on the first line (shown by
//! `-h`) and put details in the following paragraphs (shown by `--help` and the man pages).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::error::exit;

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
    #[command(after_help = SANDBOX_AFTER_HELP)]
    Sandbox(SandboxArgs),
    /// Print a shell completion script to stdout.
    Completions(CompletionsArgs),
}

/// GitHub scope and connection.
#[derive(Debug, Clone, Args)]
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

/// A runner state, as `--state` filters it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    Idle,
    Busy,
    Offline,
    PodOnly,
    RegistrationOnly,
    Conflict,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Only runners in this state (repeatable).
    #[arg(long = "state", value_enum, value_name = "STATE")]
    pub states: Vec<StateArg>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxMode {
    /// gha-runner-scale-set: AutoscalingRunnerSet, EphemeralRunnerSet, EphemeralRunner.
    ScaleSet,
    /// summerwind: RunnerDeployment, Runner, and RunnerSet-style StatefulSets.
    Legacy,
    /// Both, side by side.
    Mixed,
}

#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    /// Organization the simulated GitHub serves.
    #[arg(long, default_value = "sandbox-org", value_name = "NAME")]
    pub org: String,
    /// Which ARC flavour the simulated cluster runs.
    #[arg(long, value_enum, default_value_t = SandboxMode::ScaleSet)]
    pub mode: SandboxMode,
    /// Number of runners at start.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub runners: u32,
    /// Namespace of the runner pods.
    #[arg(long, default_value = "arc-runners", value_name = "NS")]
    pub namespace: String,
    /// Number of nodes the pods are spread over.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub nodes: u32,
    /// Share of runners busy at start (0 to 1).
    #[arg(long, default_value_t = 0.0, value_name = "FRACTION", value_parser = parse_fraction)]
    pub busy: f64,
    /// New jobs per second.
    #[arg(long, default_value_t = 0.0, value_name = "PER_SECOND", value_parser = parse_non_negative)]
    pub job_rate: f64,
    /// How long a job runs: `DUR` or `MIN..MAX`.
    #[arg(long, default_value = "30s", value_name = "DUR|MIN..MAX", value_parser = parse_duration_range)]
    pub job_duration: DurationRange,
    /// Added to every API response.
    #[arg(long, default_value = "0s", value_name = "DUR", value_parser = parse_duration)]
    pub latency: std::time::Duration,
    /// How stale `busy` may be in runner lists (GitHub caches lists for up to ~60s).
    #[arg(long, default_value = "0s", value_name = "DUR", value_parser = parse_duration)]
    pub list_cache: std::time::Duration,
    /// Extra time the ARC-like controller takes to start each new runner pod (Pending to Running
    /// and online): slow or, with a long value, hold back replacements, e.g. to rehearse
    /// `recreate --ready-timeout`.
    #[arg(long, default_value = "0s", value_name = "DUR", value_parser = parse_duration)]
    pub controller_delay: std::time::Duration,
    /// Share of new runner pods (at start and every one created later) that wait 5 to 40 s
    /// before their containers start (0 to 1): `ContainerCreating`, and for a third of them a
    /// failing image pull (`ErrImagePull`, `ImagePullBackOff`). A waiting scale-set runner is
    /// registered and listed offline; a legacy one has no registration yet; reading the runner
    /// log answers 400 "is waiting to start".
    #[arg(long, default_value_t = 0.0, value_name = "FRACTION", value_parser = parse_fraction)]
    pub pending: f64,
    /// How late a job's traces appear: when GitHub assigns a job (the registration is busy at
    /// once), the runner's `Running job: NAME` log line appears a random delay up to DUR later,
    /// and the EphemeralRunner's `status.jobId` (what ARC's listener patches in) up to 2×DUR
    /// later, each drawn from the seed.
    #[arg(long, default_value = "0s", value_name = "DUR", value_parser = parse_duration)]
    pub job_lag: std::time::Duration,
    /// dockerd lines per second in every runner container's log while a job runs, as a dind
    /// runner image writes them (`time="…" level=info msg="…"`), and one every few seconds
    /// while idle; legacy pods then run `summerwind/actions-runner-dind` (dockerd in the runner
    /// container, no docker sidecar).
    #[arg(long, default_value_t = 0, value_name = "LINES_PER_SECOND")]
    pub log_noise: u32,
    /// Inject a fault with probability P (repeatable): github-5xx, github-reset, github-timeout,
    /// github-403, github-429 (rate-limit answers, with retry-after or x-ratelimit-reset),
    /// kube-5xx, kube-timeout, unsafe-204.
    #[arg(long = "fault", value_name = "NAME=P", value_parser = parse_fault)]
    pub faults: Vec<(FaultKind, f64)>,
    /// GitHub secondary rate limit in points per minute (GET 1, DELETE 5), and at most 100
    /// requests in flight. Over it: 403 "You have exceeded a secondary rate limit", and the
    /// client is limited: until the retry-after it was told, or for 60s when the answer had
    /// none (always for the 100-in-flight limit; see --secondary-limit-silent); every request
    /// made while limited is refused the same way. Each refusal counts as a rate-limit
    /// violation.
    #[arg(long, value_name = "POINTS_PER_MINUTE")]
    pub secondary_limit: Option<u32>,
    /// Share of the points refusals of --secondary-limit answered without retry-after (seeded),
    /// as GitHub sometimes does: the client must then wait at least a minute.
    #[arg(long, default_value_t = 0.25, value_name = "FRACTION", value_parser = parse_fraction, requires = "secondary_limit")]
    pub secondary_limit_silent: f64,
    /// Answer 403 Forbidden to every request in this namespace, as RBAC would (repeatable).
    #[arg(long = "forbid-namespace", value_name = "NS")]
    pub forbid_namespaces: Vec<String>,
    /// Accept GitHub App JWTs for this App id.
    #[arg(long, value_name = "ID", requires = "app_public_key")]
    pub app_id: Option<u64>,
    /// The App's public key (PEM), to verify JWTs.
    #[arg(long, value_name = "PATH", requires = "app_id")]
    pub app_public_key: Option<PathBuf>,
    /// How long the installation tokens the App gets stay valid (GitHub: 1 hour); expired ones
    /// are refused with 401.
    #[arg(long, default_value = "1h", value_name = "DUR", value_parser = parse_duration, requires = "app_id")]
    pub app_token_lifetime: std::time::Duration,
    /// Serve the GitHub API over HTTPS with a generated certificate for 127.0.0.1; its CA is
    /// written to the sandbox's directory and exported as ARCCTL_CA_CERT.
    #[arg(long)]
    pub tls: bool,
    /// Enforce the RBAC rules of the Roles and ClusterRoles in this YAML file on the
    /// Kubernetes API: anything they do not allow is answered 403.
    #[arg(long, value_name = "FILE")]
    pub rbac: Option<PathBuf>,
    /// Seed of the simulation: the same seed gives the same world.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Write the verdict as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Run the built-in demonstration: a world with job traffic, a node drained, the verdict.
    ///
    /// 24 runners (30% busy) with about a job a second of 3 to 12 seconds: shows the runners per
    /// node and a few seconds of job traffic, then runs `arcctl drain --node node-1 --wait`
    /// inside the world with the traffic on, shows the world again and the verdict (no job
    /// killed). About 30 seconds.
    #[arg(long, conflicts_with = "command")]
    pub demo: bool,
    /// Command to run against the sandbox.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    Github5xx,
    GithubReset,
    GithubTimeout,
    Github403,
    Github429,
    Kube5xx,
    KubeTimeout,
    Unsafe204,
}

impl FaultKind {
    pub const ALL: [(&'static str, FaultKind); 8] = [
        ("github-5xx", FaultKind::Github5xx),
        ("github-reset", FaultKind::GithubReset),
        ("github-timeout", FaultKind::GithubTimeout),
        ("github-403", FaultKind::Github403),
        ("github-429", FaultKind::Github429),
        ("kube-5xx", FaultKind::Kube5xx),
        ("kube-timeout", FaultKind::KubeTimeout),
        ("unsafe-204", FaultKind::Unsafe204),
    ];

    pub fn name(self) -> &'static str {
        FaultKind::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("unknown", |(n, _)| n)
    }
}

/// A job duration: fixed, or uniformly drawn from `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DurationRange {
    pub min: std::time::Duration,
    pub max: std::time::Duration,
}

/// A request rate: `count` per `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub per: std::time::Duration,
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

fn parse_duration_range(s: &str) -> Result<DurationRange, String> {
    match s.split_once("..") {
        Some((a, b)) => {
            let (min, max) = (parse_duration(a)?, parse_duration(b)?);
            if min > max {
                return Err(format!("`{s}`: the minimum is larger than the maximum"));
            }
            Ok(DurationRange { min, max })
        }
        None => {
            let d = parse_duration(s)?;
            Ok(DurationRange { min: d, max: d })
        }
    }
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("`{s}` is not between 0 and 1"))
    }
}

fn parse_non_negative(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("`{s}` must be a number of at least 0"))
    }
}

fn parse_fault(s: &str) -> Result<(FaultKind, f64), String> {
    let names = || {
        FaultKind::ALL
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (name, p) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=P (faults: {})", names()))?;
    let kind = FaultKind::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .ok_or_else(|| format!("unknown fault `{name}` (faults: {})", names()))?;
    Ok((kind, parse_fraction(p)?))
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
    fn durations_and_ranges_parse() {
        assert_eq!(parse_duration("0").unwrap(), std::time::Duration::ZERO);
        let r = parse_duration_range("2s..20s").unwrap();
        assert_eq!(r.min, std::time::Duration::from_secs(2));
        assert_eq!(r.max, std::time::Duration::from_secs(20));
        assert!(parse_duration_range("20s..2s").is_err());
        assert!(parse_duration("ten").is_err());
    }

    #[test]
    fn faults_parse() {
        assert_eq!(
            parse_fault("unsafe-204=0.5").unwrap(),
            (FaultKind::Unsafe204, 0.5)
        );
        assert!(parse_fault("github-5xx=2").is_err());
        assert!(parse_fault("nope=0.1").is_err());
    }
}
