//! `arcctl list` refusals that need no server: scope, token and kubeconfig problems, each with
//! its exit code and one clear message on stderr.

use arcctl::context::Env;

use crate::support::Invocation;

/// Runs `arcctl ARGS` with exactly `env`: exit code, stdout, stderr.
async fn run(args: Vec<String>, env: Env) -> (u8, String, String) {
    let run = Invocation::with_env(env).run(args).await;
    (run.code, run.stdout, run.stderr)
}

/// A kubeconfig with contexts `a` and `b`, both pointing at a closed port (never contacted).
const KUBECONFIG: &str = r#"apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: http://127.0.0.1:9
contexts:
- name: a
  context: {cluster: c, user: u, namespace: arc-runners}
- name: b
  context: {cluster: c, user: u}
current-context: a
users:
- name: u
  user: {}
"#;

fn env_with(kubeconfig: &std::path::Path) -> Env {
    Env::new([
        ("GH_TOKEN", "ghp_never_shown_anywhere"),
        ("ARCCTL_ORG", "acme"),
        ("GITHUB_API_URL", "http://127.0.0.1:9"),
        ("KUBECONFIG", kubeconfig.to_str().unwrap()),
    ])
}

#[tokio::test]
async fn an_unknown_context_is_a_usage_error_naming_the_contexts() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("config");
    std::fs::write(&kc, KUBECONFIG).unwrap();
    let (code, out, err) = run(args!("list --context nope"), env_with(&kc)).await;
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(
        err.starts_with("error: context `nope` not found in the kubeconfig\n"),
        "{err}"
    );
    assert!(
        err.contains("hint: contexts in the kubeconfig: a, b"),
        "{err}"
    );
}

#[tokio::test]
async fn a_malformed_kubeconfig_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("config");
    std::fs::write(&kc, "clusters: [this is: not: yaml").unwrap();
    let (code, _, err) = run(args!("list -A"), env_with(&kc)).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: kubeconfig `{}` is malformed",
            kc.display()
        )),
        "{err}"
    );
    let (code, _, err) = run(args!("list -A"), env_with(&dir.path().join("missing"))).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("failed to read kubeconfig"), "{err}");
}

#[tokio::test]
async fn two_scope_kinds_are_refused_before_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("config");
    std::fs::write(&kc, KUBECONFIG).unwrap();
    let (code, _, err) = run(args!("list --repo acme/web"), env_with(&kc)).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("ARCCTL_ORG and --repo both set a GitHub scope"),
        "{err}"
    );
    let (code, _, err) = run(args!("list --org a --enterprise e"), Env::default()).await;
    assert_eq!(code, 2);
    assert!(err.contains("--org and --enterprise"), "{err}");
}

#[tokio::test]
async fn no_token_is_exit_4_and_bad_globs_exit_2() {
    let (code, _, err) = run(args!("list --org acme"), Env::default()).await;
    assert_eq!(code, 4);
    assert!(err.starts_with("error: no GitHub token\n"), "{err}");
    assert!(err.contains("GH_TOKEN"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("config");
    std::fs::write(&kc, KUBECONFIG).unwrap();
    let (code, _, err) = run(args!("list runner-[ -A"), env_with(&kc)).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("`runner-[` is not a valid runner name or glob"),
        "{err}"
    );
    assert!(!err.contains("ghp_never_shown_anywhere"));
}

#[tokio::test]
async fn an_unreachable_cluster_names_the_resource() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("config");
    std::fs::write(&kc, KUBECONFIG).unwrap();
    let (code, _, err) = run(args!("list --context b"), env_with(&kc)).await;
    assert_eq!(code, 1, "{err}");
    // Whichever side fails first, the message names what could not be reached.
    assert!(
        err.contains("could not reach the Kubernetes API at http://127.0.0.1:9")
            || err.contains("could not reach GitHub at http://127.0.0.1:9"),
        "{err}"
    );
    assert!(!err.contains("ghp_never_shown_anywhere"));
}
