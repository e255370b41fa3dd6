//! The sandbox's options: the world (`--org`, `--mode`, `--runners`, …), its traffic, faults
//! and limits, and where the report goes, with their clap definition and value parsers.
//!
//! [`Options`] derives [`clap::Args`] so that `arcctl sandbox` flattens it: its doc comments are
//! the `--help` text. [`options`] parses command-line words into it, for tests and embedders.

use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// gha-runner-scale-set: AutoscalingRunnerSet, EphemeralRunnerSet, EphemeralRunner.
    ScaleSet,
    /// summerwind: RunnerDeployment, Runner, and RunnerSet-style StatefulSets.
    Legacy,
    /// Both, side by side.
    Mixed,
}

/// The world's options: what `arcctl sandbox` takes besides `--demo` and its command.
///
/// The clap definition here is the source of those flags' help text, completions and man
/// page; the CLI flattens it into its `sandbox` subcommand.
#[derive(Debug, Clone, Args)]
pub struct Options {
    /// Organization the simulated GitHub serves.
    #[arg(long, default_value = "sandbox-org", value_name = "NAME")]
    pub org: String,
    /// Which ARC flavour the simulated cluster runs.
    #[arg(long, value_enum, default_value_t = Mode::ScaleSet)]
    pub mode: Mode,
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
}

/// Sandbox options from command-line words (`["--runners", "5", "--mode", "legacy"]`), with
/// every default as `arcctl sandbox` has it: for tests and for embedding the sandbox.
pub fn options<I, S>(words: I) -> Result<Options, clap::Error>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    /// The options alone, as a command of their own.
    #[derive(Parser)]
    #[command(name = "arcctl-sandbox")]
    struct Words {
        #[command(flatten)]
        options: Options,
    }
    let argv = std::iter::once("arcctl-sandbox".into()).chain(words.into_iter().map(Into::into));
    Ok(Words::try_parse_from(argv)?.options)
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

fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_parse_with_the_defaults() {
        let o = options(["--runners", "5", "--mode", "legacy"]).unwrap();
        assert_eq!((o.runners, o.mode, o.nodes), (5, Mode::Legacy, 3));
        assert_eq!(o.job_duration.max, std::time::Duration::from_secs(30));
        assert!(options(["--secondary-limit-silent", "0.5"]).is_err());
        assert!(options(["--demo"]).is_err());
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
