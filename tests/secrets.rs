//! No secret in any output: every command runs at `-vvv` against the sandbox — with a token
//! from the environment, from `--token-file`, and as a GitHub App with short-lived tokens; on
//! success, on refusals and on failures — and stdout, stderr and the audit log are searched
//! for the token, installation tokens, JWTs and the App's private key.
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::context::Env;
use arcctl::sandbox::Sandbox;
use arcctl::sandbox::world::lock;

use crate::support::fixtures::{PRIVATE_KEY, PUBLIC_KEY};
use crate::support::*;

/// Everything secret this test knows of.
struct Secrets(Vec<String>);

impl Secrets {
    fn new(sb: &Sandbox, extra: &[&str]) -> Self {
        let mut all: Vec<String> = vec![lock(&sb.world()).token.clone()];
        all.extend(extra.iter().map(|s| (*s).to_owned()));
        // The key's body, line by line (any 40-character piece of it would be a leak).
        let key = std::fs::read_to_string(PRIVATE_KEY).unwrap();
        all.extend(
            key.lines()
                .filter(|l| !l.starts_with("-----") && l.len() >= 40)
                .map(str::to_owned),
        );
        Secrets(all)
    }

    /// Fails when `text` holds a secret, an installation token (`ghs_…`), a JWT (`eyJ…`, the
    /// encoding of `{"`) or a PEM private key.
    fn assert_absent(&self, what: &str, text: &str) {
        for secret in &self.0 {
            assert!(
                !text.contains(secret.as_str()),
                "{what} leaks a secret:\n{text}"
            );
        }
        for marker in ["ghs_", "eyJ", "PRIVATE KEY", "Bearer ", "authorization:"] {
            assert!(!text.contains(marker), "{what} holds `{marker}`:\n{text}");
        }
    }
}

/// Runs arcctl with `env` and `args` at `-vvv` (except for commands without `-v`) and checks
/// every output; returns the run.
async fn check(secrets: &Secrets, env: &Env, mut args: Vec<String>) -> Run {
    if matches!(args[0].as_str(), "list" | "drain" | "recreate") {
        args.push("-vvv".to_owned());
    }
    if matches!(args[0].as_str(), "drain" | "recreate") {
        args = fast(args);
    }
    let run = Invocation::with_env(env.clone()).run(&args).await;
    let what = format!("`arcctl {}` (exit {})", args.join(" "), run.code);
    secrets.assert_absent(&format!("stdout of {what}"), &run.stdout);
    secrets.assert_absent(&format!("stderr of {what}"), &run.stderr);
    run
}

fn logged_requests(run: &Run) -> bool {
    run.stderr.contains("github: GET ") && run.stderr.contains("kube: GET ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_command_shows_a_token_at_vvv() {
    let sb = sandbox(args!("--runners 6 --busy 0.3 --job-duration 1s")).await;
    let dir = tempfile::tempdir().unwrap();
    let secrets = Secrets::new(&sb, &["ghp_FileTokenThatMustNotShow0123456789"]);
    let env = env(&sb);

    for line in [
        "list -A",
        "list -A -o wide",
        "list -A -o json",
        "list -A -o yaml",
        "list -A -o name",
        "list -A --group Default",
        "drain -A --all --dry-run",
        "recreate -A --all --yes --ready-timeout 30s",
        "completions bash",
    ] {
        let run = check(&secrets, &env, args!(line)).await;
        if line.starts_with("list") {
            assert_eq!(run.code, 0, "{line}: {}", run.stderr);
            assert!(logged_requests(&run), "-vvv logs requests:\n{}", run.stderr);
        }
    }

    // A real drain with an audit log, waiting for busy runners.
    let audit = dir.path().join("audit.jsonl");
    let run = check(
        &secrets,
        &env,
        args!(
            "drain -A --all --yes --wait --timeout 60s -o json --audit-log",
            &audit
        ),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(logged_requests(&run), "{}", run.stderr);
    assert!(run.stderr.contains("github: DELETE "), "{}", run.stderr);
    let audit_text = std::fs::read_to_string(&audit).unwrap();
    assert!(!audit_text.is_empty());
    secrets.assert_absent("the audit log", &audit_text);

    // The token from --token-file, and refusals of a wrong token in each place.
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "ghp_FileTokenThatMustNotShow0123456789\n").unwrap();

    let mut no_env_token = env.clone();
    no_env_token.remove("GH_TOKEN");
    no_env_token.remove("GITHUB_TOKEN");
    let run = check(
        &secrets,
        &no_env_token,
        args!("list -A --token-file", &token_file),
    )
    .await;
    assert_eq!(run.code, 4, "the file's token is not the sandbox's");
    let mut wrong = env.clone();
    wrong.set("GH_TOKEN", "ghp_FileTokenThatMustNotShow0123456789");
    let run = check(&secrets, &wrong, args!("drain -A --all --yes")).await;
    assert_eq!(run.code, 4, "{}", run.stderr);
    let run = check(&secrets, &no_env_token, args!("list -A")).await;
    assert_eq!(run.code, 4);
    // A GitHub that cannot be reached.
    let run = check(
        &secrets,
        &env,
        args!("list -A --github-url http://127.0.0.1:9"),
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    // The sandbox itself, which knows the token.
    let run = check(&secrets, &env, args!("sandbox --runners 2 -- true")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_command_shows_app_credentials_at_vvv() {
    let mut words = args!("--app-id 4242 --app-public-key", PUBLIC_KEY);
    words.extend(args!(
        "--app-token-lifetime 2s --runners 4 --busy 0.5 --job-duration 3s"
    ));
    let sb = sandbox(words).await;
    let secrets = Secrets::new(&sb, &[]);
    let mut env = env(&sb);
    env.set("ARCCTL_APP_KEY_FILE", PRIVATE_KEY);

    let run = check(&secrets, &env, args!("list -A -o json")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("minted an installation token"),
        "{}",
        run.stderr
    );
    let run = check(
        &secrets,
        &env,
        args!("drain -A --all --yes --wait --timeout 60s"),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        count(&sb.report(), true, "POST", "/access_tokens") >= 2,
        "tokens were renewed during the drain"
    );

    // Refusals: another App id, a key that is not a key, a missing key file.
    let mut wrong_app = env.clone();
    wrong_app.set("ARCCTL_APP_ID", "7");
    assert_eq!(check(&secrets, &wrong_app, args!("list -A")).await.code, 4);
    let mut not_a_key = env.clone();
    not_a_key.set("ARCCTL_APP_KEY_FILE", PUBLIC_KEY);
    let run = check(&secrets, &not_a_key, args!("list -A")).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    let mut missing = env.clone();
    missing.set("ARCCTL_APP_KEY_FILE", "/nonexistent/key.pem");
    assert_eq!(check(&secrets, &missing, args!("list -A")).await.code, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_refusals_show_no_token_either() {
    let sb = sandbox(args!("--runners 2 --forbid-namespace arc-runners")).await;
    let secrets = Secrets::new(&sb, &[]);
    let run = check(&secrets, &env(&sb), args!("list -A")).await;
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("`list`"), "{}", run.stderr);
}
