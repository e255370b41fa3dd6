//! Bad input: flags, environment, files, kubeconfigs, URLs, and malformed, truncated or huge
//! server responses. Each case must end with one clear `error:` line (a hint where it helps),
//! the documented exit code (2 usage, 4 authentication, 1 an operation failed), and no
//! mutating request anywhere.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

mod server;

use std::path::Path;

use arcctl::sandbox::Sandbox;
use server::{Answer, Server, ok, ok_with};

use crate::support::*;

/// One bad input and what arcctl must say about it.
struct Case {
    name: &'static str,
    /// The command line, split on whitespace.
    args: &'static str,
    /// One more word after it, as it is (a value with spaces).
    word: Option<&'static str>,
    /// Environment changes: `(NAME, Some(VALUE))` sets, `(NAME, None)` removes. `{dir}` in a
    /// value or argument is the case files' directory.
    env: &'static [(&'static str, Option<&'static str>)],
    code: u8,
    /// Words the `error:` line must contain.
    says: &'static str,
    /// Whether a `hint:` line must follow.
    hint: bool,
}

const fn case(name: &'static str, args: &'static str, code: u8, says: &'static str) -> Case {
    Case {
        name,
        args,
        word: None,
        env: &[],
        code,
        says,
        hint: false,
    }
}

/// `c` with one more word after its command line.
const fn then(mut c: Case, word: &'static str) -> Case {
    c.word = Some(word);
    c
}

const fn hinted(mut c: Case) -> Case {
    c.hint = true;
    c
}

const fn with_env(mut c: Case, env: &'static [(&'static str, Option<&'static str>)]) -> Case {
    c.env = env;
    c
}

/// The files the cases point at.
fn write_files(dir: &Path) {
    let w = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    w("empty", "");
    w("blank-token", "  \n\n");
    w("not-pem", "this is not a PEM file\n");
    w(
        "garbage-ca.pem",
        "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
    );
    w("garbage.yaml", "apiVersion: v1\nclusters: [ {name: \n");
    w(
        "no-contexts.yaml",
        "apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n",
    );
    kubeconfig::write(dir, "closed-port.yaml", "http://127.0.0.1:1");
    kubeconfig::write(dir, "not-a-url.yaml", "::not a url::");
    std::fs::create_dir_all(dir.join("a-directory")).unwrap();
}

/// Flags, environment, files, kubeconfigs and URLs: refused before anything changes.
const CASES: &[Case] = &[
    // Flags.
    case(
        "unknown flag",
        "list --bogus",
        2,
        "unexpected argument '--bogus'",
    ),
    case(
        "concurrency 0",
        "drain --all -A --yes --concurrency 0",
        2,
        "--concurrency",
    ),
    case(
        "concurrency not a number",
        "drain --all -A --yes --concurrency many",
        2,
        "--concurrency",
    ),
    case(
        "rate not a rate",
        "drain --all -A --yes --max-unregister-rate fast",
        2,
        "is not a rate",
    ),
    case(
        "rate with an unknown unit",
        "drain --all -A --yes --max-unregister-rate 5/fortnight",
        2,
        "is not a rate",
    ),
    case(
        "timeout not a duration",
        "drain --all -A --yes --timeout banana",
        2,
        "--timeout",
    ),
    case(
        "negative confirm window",
        "drain --all -A --yes --confirm-window=-1s",
        2,
        "--confirm-window",
    ),
    hinted(case(
        "confirm window 0 turns the race check off",
        "drain --all -A --yes --confirm-window 0",
        2,
        "--confirm-window must be at least 2s",
    )),
    hinted(case(
        "confirm window below the minimum",
        "drain --all -A --yes --confirm-window 1500ms",
        2,
        "--confirm-window must be at least 2s",
    )),
    hinted(case(
        "a deadline shorter than the confirm window",
        "drain --all -A --yes --timeout 10s --confirm-window 20s",
        2,
        "--timeout 10s leaves no time to confirm a runner idle",
    )),
    hinted(case(
        "poll interval 0",
        "drain --all -A --yes --wait --poll-interval 0s",
        2,
        "--poll-interval",
    )),
    case("unknown output format", "list -o xml", 2, "'xml'"),
    case(
        "unknown colour choice",
        "list --color sometimes",
        2,
        "'sometimes'",
    ),
    case(
        "namespace and all namespaces",
        "list -n x -A",
        2,
        "cannot be used with",
    ),
    case("unknown state", "list --state sleepy", 2, "'sleepy'"),
    hinted(case(
        "request timeout 0",
        "list --request-timeout 0s",
        2,
        "--request-timeout",
    )),
    case(
        "request timeout not a duration",
        "list --request-timeout soon",
        2,
        "--request-timeout",
    ),
    hinted(case(
        "two scopes",
        "list --org a --repo a/b",
        2,
        "both set a GitHub scope",
    )),
    with_env(
        case("repo without owner", "list --repo justname", 2, "justname"),
        &[("ARCCTL_ORG", None)],
    ),
    then(
        case("org with a space", "list --org", 2, "bad org"),
        "bad org",
    ),
    hinted(then(
        case("broken selector", "list -l", 2, "selection of `pods`"),
        "app in (",
    )),
    case("broken glob", "list runner-[ -A", 2, "runner-["),
    case(
        "quiet and verbose",
        "drain --all -A --yes -q -v",
        2,
        "cannot be used with",
    ),
    hinted(case(
        "drain everything without --all",
        "drain -A --yes",
        2,
        "without `--all`",
    )),
    hinted(case(
        "drain without --yes and no terminal",
        "drain --all -A",
        2,
        "`--yes` is required",
    )),
    with_env(
        case(
            "group of a repository",
            "list --group x --repo a/b",
            2,
            "--group needs",
        ),
        &[("ARCCTL_ORG", None)],
    ),
    // Environment.
    hinted(with_env(
        case("no token", "list -A", 4, "no GitHub token"),
        &[("GH_TOKEN", None), ("GITHUB_TOKEN", None)],
    )),
    hinted(with_env(
        case("API URL not a URL", "list -A", 2, "is not a URL"),
        &[("GITHUB_API_URL", Some("not a url"))],
    )),
    with_env(
        case("API URL not http", "list -A", 2, "not an http(s) URL"),
        &[("GITHUB_API_URL", Some("ftp://example.com/"))],
    ),
    hinted(with_env(
        case(
            "org and repo in the environment",
            "list -A",
            2,
            "ARCCTL_ORG and ARCCTL_REPO",
        ),
        &[("ARCCTL_REPO", Some("a/b"))],
    )),
    with_env(
        case("repo with too many parts", "list -A", 2, "a/b/c"),
        &[("ARCCTL_ORG", None), ("ARCCTL_REPO", Some("a/b/c"))],
    ),
    with_env(
        case("app id not a number", "list -A", 2, "ARCCTL_APP_ID"),
        &[("ARCCTL_APP_ID", Some("abc"))],
    ),
    with_env(
        case("app id without the key", "list -A", 2, "--app-key"),
        &[("ARCCTL_APP_ID", Some("1"))],
    ),
    with_env(
        case(
            "KUBECONFIG names a missing file",
            "list -A",
            2,
            "{dir}/missing.yaml",
        ),
        &[("KUBECONFIG", Some("{dir}/missing.yaml"))],
    ),
    hinted(with_env(
        case("GitHub unreachable", "list -A", 1, "could not reach GitHub"),
        &[("GITHUB_API_URL", Some("http://127.0.0.1:1/"))],
    )),
    // Files.
    with_env(
        case(
            "token file missing",
            "list -A --token-file {dir}/missing-token",
            2,
            "{dir}/missing-token",
        ),
        &[("GH_TOKEN", None), ("GITHUB_TOKEN", None)],
    ),
    with_env(
        case(
            "token file empty",
            "list -A --token-file {dir}/blank-token",
            2,
            "{dir}/blank-token",
        ),
        &[("GH_TOKEN", None), ("GITHUB_TOKEN", None)],
    ),
    with_env(
        case(
            "token file is a directory",
            "list -A --token-file {dir}/a-directory",
            2,
            "{dir}/a-directory",
        ),
        &[("GH_TOKEN", None), ("GITHUB_TOKEN", None)],
    ),
    case(
        "app key missing",
        "list -A --app-id 1 --installation-id 2 --app-key {dir}/missing.pem",
        2,
        "{dir}/missing.pem",
    ),
    case(
        "app key not PEM",
        "list -A --app-id 1 --installation-id 2 --app-key {dir}/not-pem",
        2,
        "{dir}/not-pem",
    ),
    case(
        "CA certificate missing",
        "list -A --ca-cert {dir}/missing-ca.pem",
        2,
        "{dir}/missing-ca.pem",
    ),
    case(
        "CA certificate garbage",
        "list -A --ca-cert {dir}/garbage-ca.pem",
        2,
        "{dir}/garbage-ca.pem",
    ),
    case(
        "audit log in a missing directory",
        "drain --all -A --yes --audit-log {dir}/no/such/dir/audit.jsonl",
        2,
        "{dir}/no/such/dir/audit.jsonl",
    ),
    // Kubeconfigs.
    case(
        "kubeconfig not YAML",
        "list -A --kubeconfig {dir}/garbage.yaml",
        2,
        "{dir}/garbage.yaml",
    ),
    case(
        "kubeconfig empty",
        "list -A --kubeconfig {dir}/empty",
        2,
        "kubeconfig",
    ),
    case(
        "kubeconfig without contexts",
        "list -A --kubeconfig {dir}/no-contexts.yaml",
        2,
        "kubeconfig",
    ),
    hinted(case(
        "unknown context",
        "list -A --context nope",
        2,
        "context `nope` not found",
    )),
    case(
        "API server unreachable",
        "list -A --kubeconfig {dir}/closed-port.yaml",
        1,
        "127.0.0.1:1",
    ),
    case(
        "API server not a URL",
        "list -A --kubeconfig {dir}/not-a-url.yaml",
        2,
        "kubeconfig",
    ),
    // URLs.
    case(
        "GitHub URL without a host",
        "list -A --github-url http://",
        2,
        "--github-url",
    ),
];

fn fill(s: &str, dir: &str) -> String {
    s.replace("{dir}", dir)
}

/// Checks one run against its case; returns what is wrong, if anything.
fn judge(c: &Case, run: &Run, dir: &str) -> Option<String> {
    let mut wrong = Vec::new();
    if run.code != c.code {
        wrong.push(format!("exit {} instead of {}", run.code, c.code));
    }
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    if errors.len() != 1 {
        wrong.push(format!("{} `error:` lines instead of 1", errors.len()));
    }
    if !run.stderr.starts_with("error:") {
        wrong.push("stderr does not start with the error".into());
    }
    // The error line, or the `caused by:` lines under it, name the thing.
    let says = fill(c.says, dir);
    let block: String = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:") || l.trim_start().starts_with("caused by:"))
        .collect::<Vec<_>>()
        .join("\n");
    if !block.contains(&says) {
        wrong.push(format!("the error does not say `{says}`"));
    }
    if c.hint
        && !run
            .stderr
            .lines()
            .any(|l| l.trim_start().starts_with("hint:"))
    {
        wrong.push("no hint".into());
    }
    if !run.stdout.is_empty() {
        wrong.push("data on stdout".into());
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "{}: {}\n--- stderr:\n{}",
            c.name,
            wrong.join("; "),
            run.stderr
        )
    })
}

async fn run_case(sb: &Sandbox, c: &Case, dir: &str) -> Run {
    let mut inv = Invocation::new(sb);
    for (name, value) in c.env {
        match value {
            Some(v) => inv.env.set(*name, fill(v, dir)),
            None => inv.env.remove(name),
        }
    }
    let args: Vec<String> = c
        .args
        .split_whitespace()
        .chain(c.word)
        .map(|w| fill(w, dir))
        .collect();
    // A drain that got past its checks would not dawdle.
    if args[0] == "drain" {
        inv.run(fast(args)).await
    } else {
        inv.run(args).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_flags_env_files_kubeconfigs_and_urls_are_refused_clearly() {
    assert!(CASES.len() >= 40, "{} cases", CASES.len());
    let sb = sandbox(args!("--runners 3 --seed 5")).await;
    let tmp = tempfile::tempdir().unwrap();
    write_files(tmp.path());
    let dir = tmp.path().to_str().unwrap().to_owned();
    let mut failures = Vec::new();
    for c in CASES {
        let run = run_case(&sb, c, &dir).await;
        if let Some(w) = judge(c, &run, &dir) {
            failures.push(w);
        }
        let m = mutating_requests(&sb.report());
        assert_eq!(m, 0, "{}: {m} mutating requests", c.name);
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases wrong:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// A server answer arcctl must refuse to act on.
struct Served {
    name: &'static str,
    answer: fn() -> Answer,
    says: &'static str,
}

const RUNNER: &str = r#"{"id":1,"name":"r1","os":"linux","status":"online","busy":false,"ephemeral":true,"labels":[]}"#;

fn page(runners: &str) -> String {
    format!(r#"{{"total_count":1,"runners":[{runners}]}}"#)
}

/// Malformed, truncated or huge GitHub answers.
const GITHUB_ANSWERS: &[Served] = &[
    Served {
        name: "not JSON",
        answer: || ok("<<not json>>"),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "truncated JSON",
        answer: || ok(r#"{"total_count":2,"runners":[{"id":1,"#),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "body cut short of its content-length",
        answer: || {
            Answer::Raw(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{\"total_count\":1,\"runn"
                    .to_vec(),
            )
        },
        says: "GitHub",
    },
    Served {
        name: "no runners field",
        answer: || ok(r#"{"total_count":1}"#),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "runner id a string",
        answer: || ok(&page(&RUNNER.replace(r#""id":1"#, r#""id":"one""#))),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "an HTML login page",
        answer: || ok("<html><body>Sign in to the proxy</body></html>"),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "malformed Link header",
        answer: || ok_with(&page(RUNNER), &["link: <<<; rel=next"]),
        says: "unexpected response from GitHub",
    },
    Served {
        name: "next page on another origin",
        answer: || {
            ok_with(
                &page(RUNNER),
                &[
                    r#"link: <http://198.51.100.7/orgs/sandbox-org/actions/runners?page=2>; rel="next""#,
                ],
            )
        },
        says: "unexpected response from GitHub",
    },
    Served {
        name: "next page is the same page forever",
        answer: || {
            ok_with(
                &page(RUNNER),
                &[
                    r#"link: <{base}/orgs/sandbox-org/actions/runners?per_page=100&page=1>; rel="next""#,
                ],
            )
        },
        says: "unexpected response from GitHub",
    },
    Served {
        name: "a huge page",
        answer: || {
            let mut body = page(RUNNER).into_bytes();
            // Valid JSON padded with whitespace far beyond any real page of 100 runners.
            body.splice(1..1, std::iter::repeat_n(b' ', 40 << 20));
            Answer::Body {
                status: "200 OK",
                headers: Vec::new(),
                body,
            }
        },
        says: "GitHub",
    },
    Served {
        name: "garbage status line",
        answer: || Answer::Raw(b"HTTP/1.1 abc\r\n\r\n".to_vec()),
        says: "GitHub",
    },
];

/// Malformed or truncated Kubernetes answers.
const KUBE_ANSWERS: &[Served] = &[
    Served {
        name: "kube: not JSON",
        answer: || ok("<<not json>>"),
        says: "unexpected response from the Kubernetes API",
    },
    Served {
        name: "kube: an HTML page",
        answer: || ok("<html><body>Sign in to the proxy</body></html>"),
        says: "unexpected response from the Kubernetes API",
    },
    Served {
        name: "kube: truncated JSON",
        answer: || ok(r#"{"kind":"PodList","apiVersion":"v1","items":[{"metadata":"#),
        says: "unexpected response from the Kubernetes API",
    },
];

fn judge_served(s: &Served, run: &Run, server: &Server) -> Option<String> {
    let c = Case {
        name: s.name,
        args: "",
        word: None,
        env: &[],
        code: 1,
        says: s.says,
        hint: false,
    };
    let mut wrong = judge(&c, run, "").unwrap_or_default();
    if server.mutating() > 0 {
        wrong.push_str(&format!(
            "\n{}: mutating requests sent: {:?}",
            s.name,
            server.requests()
        ));
    }
    (!wrong.is_empty()).then_some(wrong)
}

/// The commands each bad answer is served to.
const COMMANDS: [(&str, &str); 2] = [
    ("list", "list -A"),
    ("drain", "drain --all -A --yes --confirm-window 2s"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_truncated_and_huge_answers_fail_cleanly_and_change_nothing() {
    let sb = sandbox(args!("--runners 3 --seed 6")).await;
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for s in GITHUB_ANSWERS {
        let server = Server::start((s.answer)()).await;
        for (command, line) in COMMANDS {
            let mut inv = Invocation::new(&sb);
            inv.env.set("GITHUB_API_URL", server.base.clone());
            let run = inv.run(args!(line)).await;
            if let Some(w) = judge_served(s, &run, &server) {
                failures.push(format!("[{command}] {w}"));
            }
        }
    }
    for (i, s) in KUBE_ANSWERS.iter().enumerate() {
        let server = Server::start((s.answer)()).await;
        let path = kubeconfig::write(tmp.path(), &format!("kube-{i}.yaml"), &server.base);
        for (command, line) in COMMANDS {
            let mut inv = Invocation::new(&sb);
            inv.env.set("KUBECONFIG", path.to_str().unwrap());
            let run = inv.run(args!(line)).await;
            if let Some(w) = judge_served(s, &run, &server) {
                failures.push(format!("[{command}] {w}"));
            }
        }
    }
    assert_eq!(mutating_requests(&sb.report()), 0);
    assert!(
        failures.is_empty(),
        "{} wrong:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
