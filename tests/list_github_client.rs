//! The GitHub client against a scripted HTTP server on 127.0.0.1: headers, pagination, errors a
//! user can act on, read retries, and every typed outcome of `delete_runner`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcctl::github::auth::Credentials;
use arcctl::github::{DeleteOutcome, GitHubClient, ReadError, RetryPolicy, TransportKind};
use arcctl::github::{GitHubSettings, Scope};
use axum::body::Body;
use axum::http::{HeaderMap, Request, Response, StatusCode};
use secrecy::SecretString;
use serde_json::{Value, json};

const TOKEN: &str = "ghp_test_token_never_printed";

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: String,
    headers: HeaderMap,
}

type Responder = dyn Fn(&Seen, usize) -> Response<Body> + Send + Sync;

/// A server that answers every request with `respond(request, index)`.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    async fn start(
        respond: impl Fn(&Seen, usize) -> Response<Body> + Send + Sync + 'static,
    ) -> Server {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let respond: Arc<Responder> = Arc::new(respond);
        let s = seen.clone();
        let app = axum::Router::new().fallback(move |req: Request<Body>| {
            let s = s.clone();
            let respond = respond.clone();
            async move {
                let seen = Seen {
                    method: req.method().to_string(),
                    path: req.uri().path().to_owned(),
                    query: req.uri().query().unwrap_or("").to_owned(),
                    headers: req.headers().clone(),
                };
                let index = {
                    let mut v = s.lock().unwrap();
                    v.push(seen.clone());
                    v.len() - 1
                };
                respond(&seen, index)
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Server { url, seen, task }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn json_response(status: u16, body: Value, headers: &[(&str, String)]) -> Response<Body> {
    let mut r = Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=utf-8");
    for (k, v) in headers {
        r = r.header(*k, v);
    }
    r.body(Body::from(body.to_string())).unwrap()
}

fn runner(id: u64, name: &str) -> Value {
    json!({"id": id, "name": name, "os": "linux", "status": "online", "busy": false,
           "labels": [{"id": 1, "name": "self-hosted", "type": "read-only"}]})
}

fn settings(url: &str, scope: Scope) -> GitHubSettings {
    crate::support::install_tls();
    GitHubSettings {
        scope,
        base_url: url::Url::parse(&format!("{url}/")).unwrap(),
        credentials: Credentials::Token {
            token: SecretString::from(TOKEN.to_owned()),
            source: "GH_TOKEN".into(),
        },
        group: None,
        ca_cert: None,
        request_timeout: Duration::from_secs(5),
    }
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        min_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_rate_wait: Duration::from_secs(2),
    }
}

fn org() -> Scope {
    Scope::Org("acme".into())
}

fn client(server: &Server, scope: Scope) -> GitHubClient {
    GitHubClient::new(&settings(&server.url, scope))
        .unwrap()
        .with_retry_policy(fast_retries())
}

/// Pages of `total` runners, `per_page` as asked, linked with `rel="next"` as GitHub does.
fn paged(total: u64) -> impl Fn(&Seen, usize) -> Response<Body> {
    move |req, _| {
        let q: std::collections::HashMap<String, String> =
            url::form_urlencoded::parse(req.query.as_bytes())
                .into_owned()
                .collect();
        let per: u64 = q.get("per_page").and_then(|v| v.parse().ok()).unwrap_or(30);
        let page: u64 = q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
        let start = (page - 1) * per;
        let runners: Vec<Value> = (start..(start + per).min(total))
            .map(|i| runner(i + 1, &format!("r-{i:04}")))
            .collect();
        let host = req
            .headers
            .get("host")
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let mut headers = vec![("x-ratelimit-remaining", "4999".to_owned())];
        if start + per < total {
            headers.push((
                "link",
                format!(
                    "<http://{host}{}?per_page={per}&page={}>; rel=\"next\", <http://{host}{}?per_page={per}&page=99>; rel=\"last\"",
                    req.path,
                    page + 1,
                    req.path
                ),
            ));
        }
        json_response(
            200,
            json!({"total_count": total, "runners": runners}),
            &headers,
        )
    }
}

#[tokio::test]
async fn lists_every_page_with_githubs_headers() {
    let server = Server::start(paged(250)).await;
    let c = client(&server, org());
    let runners = c.list_runners().await.unwrap();
    assert_eq!(runners.len(), 250);
    assert_eq!(runners[249].name, "r-0249");
    let seen = server.seen();
    assert_eq!(seen.len(), 3, "100 + 100 + 50");
    for s in &seen {
        assert_eq!(s.method, "GET");
        assert_eq!(s.path, "/orgs/acme/actions/runners");
        assert!(s.query.contains("per_page=100"), "{}", s.query);
        assert_eq!(s.headers["accept"], "application/vnd.github+json");
        assert_eq!(s.headers["x-github-api-version"], "2022-11-28");
        assert_eq!(
            s.headers["user-agent"],
            format!("arcctl/{}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(s.headers["authorization"], format!("Bearer {TOKEN}"));
    }
    assert_eq!(c.last_rate().unwrap().remaining, Some(4999));
}

#[tokio::test]
async fn repo_and_enterprise_paths() {
    let server = Server::start(paged(3)).await;
    let repo = Scope::Repo {
        owner: "acme".into(),
        repo: "web".into(),
    };
    assert_eq!(client(&server, repo).list_runners().await.unwrap().len(), 3);
    let ent = Scope::Enterprise("big".into());
    assert_eq!(client(&server, ent).list_runners().await.unwrap().len(), 3);
    let paths: Vec<String> = server.seen().into_iter().map(|s| s.path).collect();
    assert_eq!(
        paths,
        vec![
            "/repos/acme/web/actions/runners",
            "/enterprises/big/actions/runners"
        ]
    );
}

#[tokio::test]
async fn a_github_enterprise_server_base_path_is_kept() {
    let server = Server::start(paged(1)).await;
    let mut s = settings(&server.url, org());
    s.base_url = url::Url::parse(&format!("{}/api/v3/", server.url)).unwrap();
    GitHubClient::new(&s).unwrap().list_runners().await.unwrap();
    assert_eq!(server.seen()[0].path, "/api/v3/orgs/acme/actions/runners");
}

#[tokio::test]
async fn bad_credentials_are_exit_4_with_the_scopes_needed() {
    let server = Server::start(|_, _| {
        json_response(401, json!({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}), &[])
    })
    .await;
    for (scope, needs) in [
        (org(), "admin:org"),
        (
            Scope::Repo {
                owner: "a".into(),
                repo: "b".into(),
            },
            "`repo`",
        ),
        (Scope::Enterprise("e".into()), "manage_runners:enterprise"),
    ] {
        let e = client(&server, scope).list_runners().await.unwrap_err();
        assert_eq!(e.exit_code(), 4);
        assert!(
            e.causes().join(" ").contains("401 Bad credentials"),
            "{:?}",
            e.causes()
        );
        assert!(e.hint().unwrap().contains(needs), "{:?}", e.hint());
        let all = format!("{e} {:?} {:?}", e.causes(), e.hint());
        assert!(!all.contains(TOKEN));
    }
    // 401 is never retried.
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn permission_403_differs_from_rate_limit_403() {
    let server = Server::start(|_, _| {
        json_response(
            403,
            json!({"message": "Resource not accessible by personal access token"}),
            &[(
                "x-accepted-github-permissions",
                "organization_self_hosted_runners=read".into(),
            )],
        )
    })
    .await;
    let e = client(&server, org()).list_runners().await.unwrap_err();
    assert_eq!(e.exit_code(), 4);
    assert!(
        e.hint()
            .unwrap()
            .contains("organization_self_hosted_runners=read")
    );

    let far = (std::time::SystemTime::now() + Duration::from_secs(3600))
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let server = Server::start(move |_, _| {
        json_response(
            403,
            json!({"message": "API rate limit exceeded for user ID 1."}),
            &[
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", far.to_string()),
            ],
        )
    })
    .await;
    let e = client(&server, org()).list_runners().await.unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert!(e.causes()[0].contains("rate limit"), "{:?}", e.causes());
    assert!(e.hint().unwrap().contains("wait"));
    // A wait of an hour is not sat out by a read.
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn an_unknown_org_is_not_found_or_not_visible() {
    let server =
        Server::start(|_, _| json_response(404, json!({"message": "Not Found"}), &[])).await;
    let e = client(&server, org()).list_runners().await.unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert_eq!(e.message(), "failed to list runners for org `acme`");
    assert_eq!(
        e.causes()[0],
        "`acme` not found or not visible to this token"
    );
}

#[tokio::test]
async fn reads_retry_server_errors_and_resets_then_give_up() {
    // Two 502s, then success.
    let server = Server::start(|req, i| {
        if i < 2 {
            json_response(502, json!({"message": "Server Error"}), &[])
        } else {
            paged(2)(req, i)
        }
    })
    .await;
    assert_eq!(
        client(&server, org()).list_runners().await.unwrap().len(),
        2
    );
    assert_eq!(server.seen().len(), 3);

    // Always 503: bounded attempts, then a failure naming the status.
    let server =
        Server::start(|_, _| json_response(503, json!({"message": "Unavailable"}), &[])).await;
    let e = client(&server, org()).list_runners().await.unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert!(e.causes()[0].contains("503"), "{:?}", e.causes());
    assert_eq!(server.seen().len(), 4, "1 attempt + 3 retries");
}

#[tokio::test]
async fn reads_wait_out_a_short_retry_after() {
    let server = Server::start(|req, i| {
        if i == 0 {
            json_response(
                403,
                json!({"message": "You have exceeded a secondary rate limit."}),
                &[("retry-after", "1".into())],
            )
        } else {
            paged(1)(req, i)
        }
    })
    .await;
    let start = std::time::Instant::now();
    assert_eq!(
        client(&server, org()).list_runners().await.unwrap().len(),
        1
    );
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "waited {:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn an_unreachable_api_names_the_url_and_the_cause() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let c = GitHubClient::new(&settings(&url, org()))
        .unwrap()
        .with_retry_policy(fast_retries());
    let e = c.list_runners().await.unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert!(e.causes()[0].contains(&url), "{:?}", e.causes());
    assert!(
        e.causes()[0].contains("connection failed"),
        "{:?}",
        e.causes()
    );
    assert!(
        e.causes().len() > 1,
        "the cause chain says why: {:?}",
        e.causes()
    );
}

/// A server that accepts connections, reads the request and never answers.
async fn hung_server() -> (String, Arc<Mutex<usize>>, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(0usize));
    let count = requests.clone();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut sock, _)) = listener.accept().await {
            use tokio::io::AsyncReadExt;
            let mut buf = [0u8; 4096];
            if sock.read(&mut buf).await.is_ok() {
                *count.lock().unwrap() += 1;
            }
            held.push(sock);
        }
    });
    (url, requests, task)
}

#[tokio::test]
async fn a_hung_server_times_out() {
    let (url, requests, task) = hung_server().await;
    let mut s = settings(&url, org());
    s.request_timeout = Duration::from_millis(200);
    let c = GitHubClient::new(&s)
        .unwrap()
        .with_retry_policy(RetryPolicy {
            max_retries: 1,
            ..fast_retries()
        });
    let e = c.list_runners().await.unwrap_err();
    assert!(e.causes()[0].contains("timed out"), "{:?}", e.causes());
    assert_eq!(
        *requests.lock().unwrap(),
        2,
        "timeouts are retried, boundedly"
    );
    let d = c.delete_runner(1).await;
    task.abort();
    assert!(
        matches!(
            d.outcome,
            DeleteOutcome::Transport {
                kind: TransportKind::Timeout,
                ..
            }
        ),
        "{d:?}"
    );
}

#[tokio::test]
async fn a_next_link_to_another_host_is_refused() {
    let server = Server::start(|_, _| {
        json_response(
            200,
            json!({"runners": [runner(1, "a")]}),
            &[(
                "link",
                "<http://evil.example/orgs/acme/actions/runners?page=2>; rel=\"next\"".into(),
            )],
        )
    })
    .await;
    let e = client(&server, org()).list_runners().await.unwrap_err();
    assert!(format!("{:?}", e.causes()).contains("refusing to send the token"));
}

#[tokio::test]
async fn get_and_find_runners() {
    let server = Server::start(|req, _| match (req.path.as_str(), req.query.as_str()) {
        ("/orgs/acme/actions/runners/5", _) => json_response(200, runner(5, "five"), &[]),
        ("/orgs/acme/actions/runners", q) if q.contains("name=five") => json_response(
            200,
            // GitHub's filter may return near matches; the exact name wins.
            json!({"total_count": 2, "runners": [runner(6, "five-b"), runner(5, "five")]}),
            &[],
        ),
        ("/orgs/acme/actions/runners", _) => {
            json_response(200, json!({"total_count": 0, "runners": []}), &[])
        }
        _ => json_response(404, json!({"message": "Not Found"}), &[]),
    })
    .await;
    let c = client(&server, org());
    assert_eq!(c.get_runner(5).await.unwrap().unwrap().name, "five");
    assert_eq!(c.get_runner(7).await.unwrap(), None);
    assert_eq!(c.find_runner_by_name("five").await.unwrap().unwrap().id, 5);
    assert_eq!(c.find_runner_by_name("nobody").await.unwrap(), None);
}

#[tokio::test]
async fn groups_resolve_by_name_or_id() {
    let server = Server::start(|req, _| match req.path.as_str() {
        "/orgs/acme/actions/runner-groups" => json_response(
            200,
            json!({"total_count": 2, "runner_groups": [
                {"id": 1, "name": "Default", "default": true},
                {"id": 4, "name": "gpu", "default": false}]}),
            &[],
        ),
        "/orgs/acme/actions/runner-groups/4/runners" => json_response(
            200,
            json!({"total_count": 1, "runners": [runner(9, "g")]}),
            &[],
        ),
        _ => json_response(404, json!({"message": "Not Found"}), &[]),
    })
    .await;
    let c = client(&server, org());
    let g = c.resolve_group("gpu").await.unwrap();
    assert_eq!(g.id, 4);
    assert_eq!(c.resolve_group("4").await.unwrap().name, "gpu");
    assert_eq!(c.list_group_runners(&g).await.unwrap()[0].name, "g");
    let e = c.resolve_group("nope").await.unwrap_err();
    assert!(e.message().contains("`nope` not found"));
    assert!(e.hint().unwrap().contains("gpu (4)"));
}

#[tokio::test]
async fn delete_outcomes_are_typed_and_never_retried() {
    let far = 4_000_000_000u64;
    let server = Server::start(move |req, _| {
        let id: u64 = req.path.rsplit('/').next().unwrap().parse().unwrap();
        match id {
            1 => Response::builder()
                .status(204)
                .header("x-ratelimit-remaining", "42")
                .body(Body::empty())
                .unwrap(),
            2 => json_response(404, json!({"message": "Not Found"}), &[]),
            3 => json_response(
                422,
                json!({"message": "Bad request - Runner \"r3\" is still running a job"}),
                &[],
            ),
            4 => json_response(
                403,
                json!({"message": "You have exceeded a secondary rate limit."}),
                &[("retry-after", "30".into())],
            ),
            5 => json_response(
                429,
                json!({"message": "Too Many Requests"}),
                &[
                    ("x-ratelimit-remaining", "0".into()),
                    ("x-ratelimit-reset", far.to_string()),
                ],
            ),
            6 => json_response(401, json!({"message": "Bad credentials"}), &[]),
            7 => json_response(
                403,
                json!({"message": "Must have admin rights to Repository."}),
                &[],
            ),
            8 => json_response(502, json!({"message": "Server Error"}), &[]),
            _ => Response::builder()
                .status(StatusCode::IM_A_TEAPOT)
                .body(Body::from("teapot"))
                .unwrap(),
        }
    })
    .await;
    let c = client(&server, org());
    let r = c.delete_runner(1).await;
    assert_eq!(r.outcome, DeleteOutcome::Removed);
    assert_eq!(r.rate.remaining, Some(42));
    assert_eq!(c.delete_runner(2).await.outcome, DeleteOutcome::NotFound);
    assert_eq!(
        c.delete_runner(3).await.outcome,
        DeleteOutcome::Busy {
            message: "Bad request - Runner \"r3\" is still running a job".into()
        }
    );
    assert_eq!(
        c.delete_runner(4).await.outcome,
        DeleteOutcome::RateLimited {
            status: 403,
            retry_after: Some(Duration::from_secs(30)),
            reset: None
        }
    );
    assert_eq!(
        c.delete_runner(5).await.outcome,
        DeleteOutcome::RateLimited {
            status: 429,
            retry_after: None,
            reset: Some(far)
        }
    );
    assert!(matches!(
        c.delete_runner(6).await.outcome,
        DeleteOutcome::Denied { status: 401, .. }
    ));
    assert!(matches!(
        c.delete_runner(7).await.outcome,
        DeleteOutcome::Denied { status: 403, .. }
    ));
    assert!(matches!(
        c.delete_runner(8).await.outcome,
        DeleteOutcome::ServerError { status: 502, .. }
    ));
    assert!(matches!(
        c.delete_runner(9).await.outcome,
        DeleteOutcome::Unexpected { status: 418, .. }
    ));
    let seen = server.seen();
    assert_eq!(seen.len(), 9, "one request per delete, no retries");
    assert!(seen.iter().all(|s| s.method == "DELETE"));
    assert_eq!(seen[0].path, "/orgs/acme/actions/runners/1");
    // The error for a denied delete is exit 4 and names what the token needs.
    let e = c.denied_error(403, "Must have admin rights to Repository.");
    assert_eq!(e.exit_code(), 4);
    assert!(e.hint().unwrap().contains("admin:org"));
}

#[tokio::test]
async fn delete_transport_errors_are_told_apart() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let c = GitHubClient::new(&settings(&url, org())).unwrap();
    assert!(matches!(
        c.delete_runner(1).await.outcome,
        DeleteOutcome::Transport {
            kind: TransportKind::Connect,
            ..
        }
    ));

    // A server that accepts and closes without answering: a reset.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        loop {
            if let Ok((mut sock, _)) = listener.accept().await {
                use tokio::io::AsyncReadExt;
                let mut buf = [0u8; 1024];
                let _ = sock.read(&mut buf).await;
                drop(sock);
            }
        }
    });
    let c = GitHubClient::new(&settings(&url, org())).unwrap();
    let d = c.delete_runner(1).await;
    task.abort();
    assert!(
        matches!(
            d.outcome,
            DeleteOutcome::Transport {
                kind: TransportKind::Reset,
                ..
            }
        ),
        "{d:?}"
    );
}

#[tokio::test]
async fn single_reads_report_rate_limits_and_denials_typed() {
    let server = Server::start(|req, _| match req.path.as_str() {
        "/orgs/acme/actions/runners/1" => json_response(
            403,
            json!({"message": "You have exceeded a secondary rate limit."}),
            &[("retry-after", "45".into())],
        ),
        "/orgs/acme/actions/runners/2" => {
            json_response(401, json!({"message": "Bad credentials"}), &[])
        }
        _ => json_response(500, json!({"message": "Server Error"}), &[]),
    })
    .await;
    let c = client(&server, org());
    let start = std::time::Instant::now();
    match c.get_runner(1).await {
        Err(ReadError::RateLimited { wait, limit, error }) => {
            assert_eq!(wait, Duration::from_secs(45));
            assert_eq!(
                limit,
                arcctl::github::rate::Limit {
                    kind: arcctl::github::rate::LimitKind::Secondary,
                    wait: Some(Duration::from_secs(45))
                }
            );
            assert!(error.causes()[0].contains("rate limit"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "a rate limit is reported, not waited out"
    );
    match c.get_runner(2).await {
        Err(ReadError::Denied(e)) => assert_eq!(e.exit_code(), 4),
        other => panic!("{other:?}"),
    }
    match c.find_runner_by_name("x").await {
        Err(ReadError::Other(e)) => assert!(e.message().contains("failed to look up runner `x`")),
        other => panic!("{other:?}"),
    }
    // 1 + 1 + (1 + 3 retries of the 500).
    assert_eq!(server.seen().len(), 6);
}

/// `(page, per_page)` of a request.
fn page_of(req: &Seen) -> (u64, u64) {
    let q: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(req.query.as_bytes())
            .into_owned()
            .collect();
    (
        q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1),
        q.get("per_page").and_then(|v| v.parse().ok()).unwrap_or(30),
    )
}

/// A page of runners `ids`, claiming `total`, with a next link to `page + 1` when `more`.
fn page_answer(req: &Seen, ids: std::ops::Range<u64>, total: u64, more: bool) -> Response<Body> {
    let (page, per) = page_of(req);
    let host = req.headers["host"].to_str().unwrap().to_owned();
    let mut headers = vec![];
    if more {
        headers.push((
            "link",
            format!(
                "<http://{host}{}?per_page={per}&page={}>; rel=\"next\"",
                req.path,
                page + 1
            ),
        ));
    }
    let runners: Vec<Value> = ids.map(|i| runner(i, &format!("r-{i:04}"))).collect();
    json_response(
        200,
        json!({"total_count": total, "runners": runners}),
        &headers,
    )
}

fn pages_asked(server: &Server) -> Vec<u64> {
    server.seen().iter().map(|s| page_of(s).0).collect()
}

#[tokio::test]
async fn the_pages_after_the_first_are_read_side_by_side_and_kept_in_order() {
    let server = Server::start(paged(1_050)).await;
    let c = client(&server, org()).with_page_concurrency(4);
    let runners = c.list_runners().await.unwrap();
    let ids: Vec<u64> = runners.iter().map(|r| r.id).collect();
    assert_eq!(ids, (1..=1_050).collect::<Vec<_>>());
    let mut asked = pages_asked(&server);
    assert_eq!(asked[0], 1, "the first page alone gives total_count");
    asked.sort_unstable();
    assert_eq!(asked, (1..=11).collect::<Vec<_>>(), "each page once");
}

#[tokio::test]
async fn a_page_without_a_next_link_ends_the_list_and_moved_runners_count_once() {
    // total_count says 10 pages; the list shrank while it was read: page 4 is the last, and a
    // runner moved from page 2 to page 3.
    let server = Server::start(|req, _| {
        let (page, per) = page_of(req);
        let from = (page - 1) * per + 1;
        match page {
            1 | 2 => page_answer(req, from..from + per, 1_000, true),
            3 => page_answer(req, from - 1..from + per, 1_000, true),
            4 => page_answer(req, from..from + 10, 310, false),
            _ => page_answer(req, 0..0, 310, false),
        }
    })
    .await;
    let runners = client(&server, org()).list_runners().await.unwrap();
    let ids: Vec<u64> = runners.iter().map(|r| r.id).collect();
    assert_eq!(ids, (1..=310).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_list_that_grew_past_its_last_page_is_followed_on() {
    // total_count says 250 (three pages); by the third the list has grown to a fourth.
    let server = Server::start(|req, _| {
        let (page, per) = page_of(req);
        let from = (page - 1) * per + 1;
        match page {
            1 => page_answer(req, from..from + per, 250, true),
            2 | 3 => page_answer(req, from..from + per, 320, true),
            _ => page_answer(req, from..from + 20, 320, false),
        }
    })
    .await;
    let runners = client(&server, org()).list_runners().await.unwrap();
    assert_eq!(runners.len(), 320);
    assert_eq!(runners.last().unwrap().id, 320);
    let mut asked = pages_asked(&server);
    asked.sort_unstable();
    assert_eq!(asked, vec![1, 2, 3, 4]);
}

#[tokio::test]
async fn a_refused_page_is_read_again_after_githubs_wait() {
    // The first request for page 3 is refused over the secondary limit; it is read again after
    // `retry-after`, and the list is whole.
    let refused = Arc::new(Mutex::new(false));
    let r = refused.clone();
    let server = Server::start(move |req, _| {
        let (page, per) = page_of(req);
        if page == 3 && !std::mem::replace(&mut *r.lock().unwrap(), true) {
            return json_response(
                403,
                json!({"message": "You have exceeded a secondary rate limit."}),
                &[("retry-after", "1".into())],
            );
        }
        let from = (page - 1) * per + 1;
        page_answer(req, from..(from + per).min(501), 500, page < 5)
    })
    .await;
    let runners = client(&server, org()).list_runners().await.unwrap();
    assert_eq!(runners.len(), 500);
    assert!(*refused.lock().unwrap());
    let asked = pages_asked(&server);
    assert_eq!(asked.iter().filter(|p| **p == 3).count(), 2, "{asked:?}");
    assert_eq!(asked.len(), 6);
}
