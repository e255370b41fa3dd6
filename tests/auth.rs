//! Authentication against the in-process sandbox: a GitHub App with short-lived installation
//! tokens (list, and a drain that outlives several tokens), the token sources, and GitHub over
//! TLS behind a private CA (`sandbox --tls`, `--ca-cert`).
//! Only 127.0.0.1; every wait is bounded; no assertion on how long anything took.

use arcctl::context::Env;
use arcctl::sandbox::Sandbox;

use crate::support::fixtures::{PRIVATE_KEY, PUBLIC_KEY, app_jwt};
use crate::support::*;

/// A sandbox that accepts App 4242's JWTs, with `extra` options.
async fn app_sandbox(extra: Vec<String>) -> Sandbox {
    let mut words = args!("--app-id 4242 --app-public-key", PUBLIC_KEY);
    words.extend(extra);
    sandbox(words).await
}

/// What `arcctl sandbox --app-id …` hands its command, plus the App's private key, as the
/// caller's `ARCCTL_APP_KEY_FILE`.
fn app_env(sb: &Sandbox) -> Env {
    let mut env = env(sb);
    env.set("ARCCTL_APP_KEY_FILE", PRIVATE_KEY);
    env
}

async fn run_with(env: Env, args: Vec<String>) -> Run {
    Invocation::with_env(env).run(args).await
}

fn github_statuses(sb: &Sandbox) -> std::collections::BTreeMap<String, u64> {
    sb.report().requests.github.by_status.into_iter().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_sandbox_exports_the_app_and_no_token() {
    let sb = app_sandbox(args!("--runners 2")).await;
    let env: std::collections::BTreeMap<_, _> = sb.env().into_iter().collect();
    assert_eq!(env["ARCCTL_APP_ID"], "4242");
    assert_eq!(env["ARCCTL_INSTALLATION_ID"], "4242");
    assert!(!env.contains_key("GH_TOKEN") && !env.contains_key("GITHUB_TOKEN"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_works_as_a_github_app_without_any_token() {
    let sb = app_sandbox(args!("--runners 5 --busy 0.4")).await;
    let run = run_with(app_env(&sb), args!("list -A -o name")).await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.lines().count(), 5, "{}", run.stdout);
    let r = sb.report();
    assert_eq!(
        count(&r, true, "POST", "/access_tokens"),
        1,
        "one installation token for the whole run"
    );

    // Without --installation-id the App finds its installation on the org.
    let mut env = app_env(&sb);
    env.remove("ARCCTL_INSTALLATION_ID");
    let run = run_with(env, args!("list -A -o name")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(count(&sb.report(), true, "GET", "}/installation"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_app_id_is_refused_with_exit_4_naming_the_app() {
    let sb = app_sandbox(args!("--runners 1")).await;
    let mut env = app_env(&sb);
    env.set("ARCCTL_APP_ID", "7");
    let run = run_with(env, args!("list -A")).await;
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("GitHub App 7"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_installation_token_is_refused_by_the_sandbox() {
    use arcctl::sandbox::github_api::{ManualClock, router_with_clock};
    use std::time::Duration;
    let world = populated(args!(
        "--runners 1 --app-id 4242 --app-token-lifetime 30s --app-public-key",
        PUBLIC_KEY
    ))
    .shared();
    let clock = std::sync::Arc::new(ManualClock::new(Duration::from_secs(1_800_000_000)));
    let app = router_with_clock(world, clock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let now = 1_800_000_000u64;
    let jwt = app_jwt(&serde_json::json!({"iat": now - 60, "exp": now + 540, "iss": 4242}));
    let client = reqwest::Client::builder()
        .user_agent("arcctl-test")
        .no_proxy()
        .build()
        .unwrap();
    let minted: serde_json::Value = client
        .post(format!("{base}/app/installations/4242/access_tokens"))
        .bearer_auth(&jwt)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = minted["token"].as_str().expect("token").to_owned();
    assert!(token.starts_with("ghs_"));
    assert_eq!(minted["expires_at"], "2027-01-15T08:00:30Z");
    let get = |token: String| {
        let req = client
            .get(format!("{base}/orgs/sandbox-org/actions/runners"))
            .bearer_auth(token);
        async move { req.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(get(token.clone()).await, 200);
    clock.advance(Duration::from_secs(29));
    assert_eq!(get(token.clone()).await, 200);
    clock.advance(Duration::from_secs(1));
    assert_eq!(get(token).await, 401, "expired");
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_that_outlives_several_installation_tokens_completes() {
    // Tokens live 2 s; busy runners' jobs take 3 s and `--wait` waits for them, so the drain
    // must renew its token in the middle of the run.
    let sb = app_sandbox(args!(
        "--runners 4 --busy 0.5 --job-rate 0 --job-duration 3s --app-token-lifetime 2s"
    ))
    .await;
    let run = run_with(
        app_env(&sb),
        fast(args!("drain --all -A --yes --wait --timeout 60s -o json")),
    )
    .await;
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let doc = json(&run);
    assert_eq!(outcomes(&doc)["drained"].len(), 4, "{doc:#}");
    sb.settle().await;
    let r = sb.report();
    assert_eq!(r.jobs.killed, 0);
    assert_eq!(r.jobs.completed, 2);
    let minted = count(&r, true, "POST", "/access_tokens");
    assert!(
        minted >= 2,
        "the token was renewed mid-run ({minted} minted)"
    );
    // Renewed before it expired: no request was refused.
    let statuses = github_statuses(&sb);
    assert!(!statuses.contains_key("401"), "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_any_credentials_the_error_names_all_three_token_sources() {
    let sb = sandbox(args!("--runners 1")).await;
    let mut env = env(&sb);
    env.remove("GH_TOKEN");
    env.remove("GITHUB_TOKEN");
    let run = run_with(env, args!("list -A")).await;
    assert_eq!(run.code, 4, "{}", run.stderr);
    for name in ["GH_TOKEN", "GITHUB_TOKEN", "--token-file", "--app-id"] {
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ghes_over_tls_needs_the_private_ca() {
    let sb = sandbox(args!("--runners 3 --tls")).await;
    let url = sb.github_url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let ca = sb.ca_cert_path().expect("--tls writes its CA").to_owned();
    assert!(
        std::fs::read_to_string(&ca)
            .unwrap()
            .contains("BEGIN CERTIFICATE")
    );
    let ghes = format!("{url}/api/v3");
    let ghes_api = |env: &Env| {
        let mut env = env.clone();
        env.remove("GITHUB_API_URL");
        env
    };

    // The exported ARCCTL_CA_CERT is trusted, under a GHES-style `/api/v3` base.
    let env = ghes_api(&env(&sb));
    assert_eq!(env.get("ARCCTL_CA_CERT"), ca.to_str());
    let run = run_with(env.clone(), args!("list -A -o name --github-url", &url)).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 3);

    // `--ca-cert PATH` does the same.
    let mut no_ca = env.clone();
    no_ca.remove("ARCCTL_CA_CERT");
    let run = run_with(
        no_ca.clone(),
        args!(format!("list -A -o name --github-url {url} --ca-cert"), &ca),
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);

    // Without it, the certificate is not trusted: TLS is always verified.
    let run = run_with(no_ca, args!("list -A --github-url", &url)).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("could not reach GitHub"),
        "{}",
        run.stderr
    );

    // A GHES base path is kept: requests go below /api/v3 (which the sandbox does not serve).
    let run = run_with(env, args!("list -A --github-url", &ghes)).await;
    assert_ne!(run.code, 0);
    assert!(
        count(&sb.report(), true, "GET", "(unmatched)") >= 1,
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_github_app_on_ghes_behind_a_private_ca() {
    let sb = app_sandbox(args!("--runners 2 --tls")).await;
    let env = app_env(&sb);
    assert!(
        env.get("GITHUB_API_URL")
            .is_some_and(|u| u.starts_with("https://"))
    );
    assert!(env.get("ARCCTL_CA_CERT").is_some());
    let run = run_with(env, args!("list -A -o name")).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 2);
    assert_eq!(count(&sb.report(), true, "POST", "/access_tokens"), 1);
}
