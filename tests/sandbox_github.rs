//! The sandbox's fake GitHub REST API, served in-process on 127.0.0.1 and called with reqwest:
//! every answer on the runner endpoints validates against GitHub's OpenAPI description, and
//! pagination, unregistration, authentication, rate limits and faults behave as documented in
//! `crates/arcctl-sandbox/src/github_api/mod.rs`. Rate-limit windows run on a manual clock, so
//! nothing here depends on how fast the machine is.

mod fixture;
mod openapi;

use std::collections::BTreeSet;
use std::time::Duration;

use arcctl::sandbox::github_api::{STATUS_RESET, STATUS_TIMEOUT};
use arcctl::sandbox::world::{self, Scope};
use reqwest::{Method, StatusCode};
use serde_json::json;

use fixture::{EPOCH, ORG, Reply, Server, args, org, registration, world_with};
use openapi::{Spec, assert_github_headers};

use crate::support::fixtures::{PUBLIC_KEY, app_jwt};

// ---------------------------------------------------------------------------------------------
// Fidelity

#[tokio::test]
async fn every_runner_endpoint_answers_as_the_description_says() {
    let spec = Spec::load();
    let repo = Scope::Repo(ORG.to_owned(), "widgets".to_owned());
    let ent = Scope::Enterprise("bigco".to_owned());
    let server = Server::start(world_with(
        args(Vec::new()),
        3,
        vec![
            registration(10, "busy-runner", org(), true),
            registration(20, "repo-runner", repo.clone(), false),
            registration(21, "repo-busy", repo, true),
            registration(
                30,
                "ent-runner",
                Scope::Enterprise("bigco".to_owned()),
                false,
            ),
            registration(31, "ent-busy", ent, true),
        ],
    ))
    .await;

    let levels = [
        ("/orgs/{org}", "/orgs/acme", 1, 10),
        ("/repos/{owner}/{repo}", "/repos/acme/widgets", 20, 21),
        ("/enterprises/{enterprise}", "/enterprises/bigco", 30, 31),
    ];
    for (template, prefix, idle, busy) in levels {
        let t = |suffix: &str| format!("{template}/actions/runners{suffix}");
        let p = |suffix: &str| format!("{prefix}/actions/runners{suffix}");

        let list = server.get(&p("")).await;
        assert_eq!(list.status, StatusCode::OK);
        spec.check("GET", &t(""), &list);
        let ids = list.ids();
        assert!(
            ids.contains(&idle) && ids.contains(&busy),
            "{prefix}: {ids:?}"
        );
        let one = server.get(&p(&format!("/{busy}"))).await;
        assert_eq!(one.status, StatusCode::OK);
        spec.check("GET", &t("/{runner_id}"), &one);
        assert_eq!(one.json()["busy"], json!(true));
        let keys: BTreeSet<String> = one
            .json()
            .as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect();
        let want = [
            "busy",
            "ephemeral",
            "id",
            "labels",
            "name",
            "os",
            "runner_group_id",
            "status",
            "version",
        ];
        assert_eq!(keys, want.iter().map(|k| (*k).to_owned()).collect());

        let labels = server.get(&p(&format!("/{idle}/labels"))).await;
        assert_eq!(labels.status, StatusCode::OK);
        spec.check("GET", &t("/{runner_id}/labels"), &labels);
        assert_eq!(labels.json()["total_count"], json!(2));

        for missing in ["/999", "/not-a-number"] {
            let r = server.get(&p(missing)).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{prefix}{missing}");
            spec.check("GET", &t("/{runner_id}"), &r);
        }
        let r = server.get(&p("/999/labels")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
        spec.check("GET", &t("/{runner_id}/labels"), &r);

        let busy_delete = server.delete(&p(&format!("/{busy}"))).await;
        assert_eq!(busy_delete.status, StatusCode::UNPROCESSABLE_ENTITY);
        spec.check("DELETE", &t("/{runner_id}"), &busy_delete);
        assert!(server.registered(busy));

        let gone = server.delete(&p(&format!("/{idle}"))).await;
        assert_eq!(gone.status, StatusCode::NO_CONTENT);
        spec.check("DELETE", &t("/{runner_id}"), &gone);
        assert!(!server.registered(idle));
        let again = server.delete(&p(&format!("/{idle}"))).await;
        assert_eq!(again.status, StatusCode::NOT_FOUND);
        spec.check("DELETE", &t("/{runner_id}"), &again);

        for op in ["/registration-token", "/remove-token"] {
            let r = server.send(Method::POST, &p(op)).await;
            assert_eq!(r.status, StatusCode::CREATED);
            spec.check("POST", &t(op), &r);
        }

        let unauthorized = server
            .client
            .get(format!("{}{}", server.base, p("")))
            .header("authorization", "Bearer ghs_wrong")
            .send()
            .await
            .expect("response");
        let unauthorized = Reply::read(unauthorized).await;
        assert_eq!(unauthorized.status, StatusCode::UNAUTHORIZED);
        spec.check("GET", &t(""), &unauthorized);
    }

    // Runner groups at org and enterprise level.
    for (template, prefix) in [
        ("/orgs/{org}", "/orgs/acme"),
        ("/enterprises/{enterprise}", "/enterprises/bigco"),
    ] {
        let t = |suffix: &str| format!("{template}/actions/runner-groups{suffix}");
        let p = |suffix: &str| format!("{prefix}/actions/runner-groups{suffix}");
        let groups = server.get(&p("")).await;
        assert_eq!(groups.status, StatusCode::OK);
        spec.check("GET", &t(""), &groups);
        assert_eq!(groups.json()["runner_groups"][0]["default"], json!(true));
        let group = server.get(&p("/1")).await;
        spec.check("GET", &t("/{runner_group_id}"), &group);
        let members = server.get(&p("/1/runners")).await;
        assert_eq!(members.status, StatusCode::OK);
        spec.check("GET", &t("/{runner_group_id}/runners"), &members);
        assert!(!members.ids().is_empty());
        for missing in ["/77", "/77/runners"] {
            let r = server.get(&p(missing)).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{prefix}{missing}");
            let op = if missing.ends_with("runners") {
                "/{runner_group_id}/runners"
            } else {
                "/{runner_group_id}"
            };
            spec.check("GET", &t(op), &r);
        }
    }

    // Unknown scopes, a runner asked for under another scope than its own, unrouted paths and
    // methods: GitHub's 404.
    for (method, path) in [
        (Method::GET, "/orgs/nope/actions/runners"),
        (Method::GET, "/repos/someone/else/actions/runners"),
        (Method::GET, "/enterprises/nope/actions/runners"),
        (Method::GET, "/repos/acme/widgets/actions/runners/2"),
        (Method::DELETE, "/enterprises/bigco/actions/runners/2"),
        (Method::GET, "/orgs/acme/actions/secrets"),
        (Method::POST, "/orgs/acme/actions/runners"),
    ] {
        let r = server.send(method.clone(), path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(r.json()["message"], json!("Not Found"));
        assert_github_headers(&r);
    }
    assert!(server.registered(2));
    assert_eq!(server.recorded("GET", "(unmatched)", 404), 1);
}

#[tokio::test]
async fn a_drained_enterprise_or_foreign_repository_stays_known() {
    let server = Server::start(world_with(
        args(Vec::new()),
        0,
        vec![
            registration(1, "ent", Scope::Enterprise("solo".to_owned()), false),
            registration(
                2,
                "foreign",
                Scope::Repo("other".into(), "tool".into()),
                false,
            ),
        ],
    ))
    .await;
    for (prefix, id) in [("/enterprises/solo", 1), ("/repos/other/tool", 2)] {
        let runners = format!("{prefix}/actions/runners");
        assert_eq!(server.get(&runners).await.ids(), vec![id]);
        let gone = server.delete(&format!("{runners}/{id}")).await;
        assert_eq!(gone.status, StatusCode::NO_CONTENT);
        let empty = server.get(&runners).await;
        assert_eq!(empty.status, StatusCode::OK, "{prefix}");
        assert_eq!(empty.json(), json!({"total_count": 0, "runners": []}));
    }
    let never = server.get("/repos/other/unknown/actions/runners").await;
    assert_eq!(never.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_secondary_limit_answer_matches_the_description() {
    let spec = Spec::load();
    let server = Server::start(world_with(args(args!("--secondary-limit 1")), 1, vec![])).await;
    assert_eq!(
        server.get("/orgs/acme/actions/runners").await.status,
        StatusCode::OK
    );
    let limited = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(limited.status, StatusCode::FORBIDDEN);
    spec.check("GET", "/orgs/{org}/actions/runners", &limited);
    assert!(
        limited.json()["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("You have exceeded a secondary rate limit."))
    );
}

// ---------------------------------------------------------------------------------------------
// Pagination

/// Follows `rel="next"` from `first`, returning every id seen and the number of pages.
async fn walk(server: &Server, first: &str) -> (Vec<u64>, usize) {
    let mut ids = Vec::new();
    let mut pages = 0;
    let mut next = Some(first.to_owned());
    while let Some(url) = next.take() {
        let page = server.get(&url).await;
        assert_eq!(page.status, StatusCode::OK, "{url}");
        assert_eq!(page.json()["total_count"], json!(250));
        ids.extend(page.ids());
        pages += 1;
        assert!(pages <= 20, "pagination does not end");
        next = page.links().get("next").cloned();
    }
    (ids, pages)
}

#[tokio::test]
async fn following_next_visits_every_runner_exactly_once() {
    let server = Server::start(world_with(args(Vec::new()), 250, vec![])).await;
    let everyone: Vec<u64> = (1..=250).collect();
    for (first, pages, per_page) in [
        ("/orgs/acme/actions/runners?per_page=100", 3, 100),
        ("/orgs/acme/actions/runners", 9, 30),
        ("/orgs/acme/actions/runners?per_page=250", 3, 100),
    ] {
        let (mut ids, seen) = walk(&server, first).await;
        assert_eq!(seen, pages, "{first}");
        ids.sort_unstable();
        assert_eq!(ids, everyone, "{first}");

        let page_one = server.get(first).await;
        assert_eq!(page_one.ids().len(), per_page);
        let links = page_one.links();
        assert!(!links.contains_key("prev") && !links.contains_key("first"));
        let last = links.get("last").expect("rel=last");
        let absolute = format!(
            "{}/orgs/acme/actions/runners?per_page={per_page}&page={pages}",
            server.base
        );
        assert_eq!(last, &absolute);
        let last_page = server.get(last).await;
        let links = last_page.links();
        assert!(links.contains_key("prev") && links.contains_key("first"));
        assert!(!links.contains_key("next"));
    }
    // Everything on one page: no Link header at all.
    let single = server
        .get("/orgs/acme/actions/runners?name=runner-0042")
        .await;
    assert_eq!(single.ids(), vec![42]);
    assert_eq!(single.header("link"), None);
    // Non-integer paging parameters: 422 validation-error-simple.
    let bad = server.get("/orgs/acme/actions/runners?per_page=ten").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let body = bad.json();
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("per_page"))
    );
    assert!(body["documentation_url"].is_string());
}

// ---------------------------------------------------------------------------------------------
// Unregistration and authentication

#[tokio::test]
async fn delete_is_204_then_404_and_422_for_a_busy_runner() {
    let server = Server::start(world_with(
        args(Vec::new()),
        1,
        vec![registration(5, "arc-runner-abc12", org(), true)],
    ))
    .await;
    let first = server.delete("/orgs/acme/actions/runners/1").await;
    assert_eq!(
        (first.status, first.text.as_str()),
        (StatusCode::NO_CONTENT, "")
    );
    let second = server.delete("/orgs/acme/actions/runners/1").await;
    assert_eq!(second.status, StatusCode::NOT_FOUND);
    assert_eq!(
        second.json(),
        json!({
            "message": "Not Found",
            "documentation_url": "https://docs.github.com/rest/actions/self-hosted-runners#delete-a-self-hosted-runner-from-an-organization",
            "status": "404",
        })
    );
    let busy = server.delete("/orgs/acme/actions/runners/5").await;
    assert_eq!(busy.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        busy.json(),
        json!({
            "message": "Bad request - Runner \"arc-runner-abc12\" is still running a job",
            "documentation_url": "https://docs.github.com/rest/actions/self-hosted-runners#delete-a-self-hosted-runner-from-an-organization",
        })
    );
    let get = server.get("/orgs/acme/actions/runners/1").await;
    assert_eq!(
        get.json()["documentation_url"],
        json!(
            "https://docs.github.com/rest/actions/self-hosted-runners#get-a-self-hosted-runner-for-an-organization"
        )
    );
    assert_eq!(
        server.recorded("DELETE", "/orgs/{org}/actions/runners/{runner_id}", 204),
        1
    );
    assert_eq!(
        server.recorded("DELETE", "/orgs/{org}/actions/runners/{runner_id}", 404),
        1
    );
    assert_eq!(
        server.recorded("DELETE", "/orgs/{org}/actions/runners/{runner_id}", 422),
        1
    );
}

#[tokio::test]
async fn credentials_user_agent_and_quota_headers() {
    let server = Server::start(world_with(args(Vec::new()), 1, vec![])).await;
    let url = format!("{}/orgs/acme/actions/runners", server.base);
    let with_auth = |value: String| server.client.get(&url).header("authorization", value);

    let wrong = Reply::read(
        with_auth("Bearer nope".into())
            .send()
            .await
            .expect("response"),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        wrong.json(),
        json!({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
    );
    let none = Reply::read(server.client.get(&url).send().await.expect("response")).await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);

    let token_scheme = with_auth(format!("token {}", server.token))
        .send()
        .await
        .expect("response");
    assert_eq!(token_scheme.status(), StatusCode::OK);
    let first = server.get("/orgs/acme/actions/runners").await;
    let second = server.get("/orgs/acme/actions/runners").await;
    let remaining = |r: &Reply| {
        r.header("x-ratelimit-remaining")
            .and_then(|v| v.parse::<u64>().ok())
    };
    assert_eq!(remaining(&first), Some(4_998));
    assert_eq!(remaining(&second), Some(4_997));
    assert_eq!(second.header("x-ratelimit-used"), Some("3"));
    let reset = EPOCH.as_secs() + 3_600;
    assert_eq!(
        second.header("x-ratelimit-reset"),
        Some(reset.to_string().as_str())
    );

    // No User-Agent: a client built without one sends none.
    let bare = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let anonymous = bare
        .get(&url)
        .bearer_auth(&server.token)
        .send()
        .await
        .expect("response");
    let anonymous = Reply::read(anonymous).await;
    assert_eq!(anonymous.status, StatusCode::FORBIDDEN);
    assert!(
        anonymous.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("User-Agent"))
    );

    let stale = with_auth(format!("Bearer {}", server.token))
        .header("x-github-api-version", "2019-01-01")
        .send()
        .await
        .expect("response");
    assert_eq!(stale.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        server.recorded("GET", "/orgs/{org}/actions/runners", 401),
        2
    );
}

// ---------------------------------------------------------------------------------------------
// Secondary rate limit

#[tokio::test]
async fn a_burst_over_the_secondary_limit_is_refused_with_retry_after() {
    // 12 points a minute: two DELETEs (5 each) and two GETs fit; a third DELETE does not.
    let server = Server::start(world_with(
        args(args!("--secondary-limit 12 --secondary-limit-silent 0")),
        5,
        vec![],
    ))
    .await;
    assert_eq!(
        server.delete("/orgs/acme/actions/runners/1").await.status,
        StatusCode::NO_CONTENT
    );
    server.clock.advance(Duration::from_millis(10_500));
    assert_eq!(
        server.delete("/orgs/acme/actions/runners/2").await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        server.get("/orgs/acme/actions/runners").await.status,
        StatusCode::OK
    );
    assert_eq!(
        server.get("/orgs/acme/actions/runners").await.status,
        StatusCode::OK
    );
    server.clock.advance(Duration::from_secs(20));

    let refused = server.delete("/orgs/acme/actions/runners/3").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    // The first DELETE leaves the window at 60 s; the clock stands at 30.5 s.
    assert_eq!(refused.header("retry-after"), Some("30"));
    assert!(server.registered(3), "a refused request is not performed");
    assert_eq!(server.violations(), 1);
    let also = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(also.status, StatusCode::FORBIDDEN);
    assert_eq!(server.violations(), 2);

    server.clock.advance(Duration::from_secs(30));
    assert_eq!(
        server.delete("/orgs/acme/actions/runners/3").await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(server.violations(), 2);
    assert_eq!(
        server.recorded("DELETE", "/orgs/{org}/actions/runners/{runner_id}", 403),
        1
    );
}

#[tokio::test]
async fn a_limited_client_is_refused_until_its_wait_is_over_and_every_refusal_counts() {
    let spec = Spec::load();
    // 5 points a minute: one DELETE fills the window; every refusal names no wait.
    let server = Server::start(world_with(
        args(args!("--secondary-limit 5 --secondary-limit-silent 1")),
        3,
        vec![],
    ))
    .await;
    let delete = "/orgs/{org}/actions/runners/{runner_id}";
    assert_eq!(
        server.delete("/orgs/acme/actions/runners/1").await.status,
        StatusCode::NO_CONTENT
    );
    server.clock.advance(Duration::from_secs(10));
    let refused = server.delete("/orgs/acme/actions/runners/2").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    spec.check("DELETE", delete, &refused);
    assert_eq!(refused.header("retry-after"), None);
    assert_eq!(
        refused.json()["documentation_url"],
        json!(
            "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
        )
    );
    assert!(
        refused.json()["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("You have exceeded a secondary rate limit."))
    );
    // The window has room again 50 s later, but the client is limited for a minute: a GET
    // at 59 s is refused as well, and counted.
    server.clock.advance(Duration::from_secs(59));
    let get = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(get.status, StatusCode::FORBIDDEN);
    spec.check("GET", "/orgs/{org}/actions/runners", &get);
    assert_eq!(get.header("retry-after"), None);
    assert_eq!(server.violations(), 2);
    assert!(server.registered(2), "a refused request is not performed");
    server.clock.advance(Duration::from_secs(1));
    assert_eq!(
        server.delete("/orgs/acme/actions/runners/2").await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(server.violations(), 2);
    assert_eq!(server.recorded("DELETE", delete, 403), 1);
    assert_eq!(
        server.recorded("GET", "/orgs/{org}/actions/runners", 403),
        1
    );
}

#[tokio::test]
async fn a_client_that_paces_itself_sees_no_violation() {
    // 60 points a minute, spent exactly: one DELETE then 55 GETs in the first second of each
    // minute, for five minutes; a 61st point at any moment would be refused.
    let server = Server::start(world_with(
        args(args!("--secondary-limit 60 --secondary-limit-silent 0")),
        10,
        vec![],
    ))
    .await;
    for minute in 1..=5u64 {
        let delete = server
            .delete(&format!("/orgs/acme/actions/runners/{minute}"))
            .await;
        assert_eq!(delete.status, StatusCode::NO_CONTENT, "minute {minute}");
        for _ in 0..55 {
            let get = server.get("/orgs/acme/actions/runners?per_page=1").await;
            assert_eq!(get.status, StatusCode::OK, "minute {minute}");
        }
        server.clock.advance(Duration::from_secs(60));
    }
    assert_eq!(server.violations(), 0);
    // And the boundary is exact: a full window refuses the very next point.
    for _ in 0..60 {
        assert_eq!(
            server.get("/orgs/acme/actions/runners").await.status,
            StatusCode::OK
        );
    }
    let over = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(over.status, StatusCode::FORBIDDEN);
    assert_eq!(over.header("retry-after"), Some("60"));
    assert_eq!(server.violations(), 1);
}

#[tokio::test]
async fn the_hourly_quota_runs_out_and_comes_back_at_reset() {
    let spec = Spec::load();
    let server = Server::start(world_with(args(Vec::new()), 1, vec![])).await;
    let path = "/orgs/acme/actions/runners/1";
    // 4,999 requests: 99 batches of 50 (under the 100 in flight GitHub allows), then 49.
    for _ in 0..99 {
        let batch = (0..50).map(|_| server.request(Method::GET, path).send());
        for reply in futures::future::join_all(batch).await {
            assert_eq!(reply.expect("response").status(), StatusCode::OK);
        }
    }
    for _ in 0..49 {
        assert_eq!(server.get(path).await.status, StatusCode::OK);
    }
    let last = server.get(path).await;
    assert_eq!(last.header("x-ratelimit-remaining"), Some("0"));
    assert_eq!(last.status, StatusCode::OK);
    let spent = server.get(path).await;
    assert_eq!(spent.status, StatusCode::FORBIDDEN);
    spec.check("GET", "/orgs/{org}/actions/runners/{runner_id}", &spent);
    assert_eq!(spent.header("x-ratelimit-remaining"), Some("0"));
    assert!(
        spent.json()["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("API rate limit exceeded"))
    );
    assert_eq!(server.violations(), 1);
    let reset: u64 = spent
        .header("x-ratelimit-reset")
        .and_then(|v| v.parse().ok())
        .expect("x-ratelimit-reset");
    server
        .clock
        .advance(Duration::from_secs(reset - EPOCH.as_secs()));
    let again = server.get(path).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.header("x-ratelimit-remaining"), Some("4999"));
}

#[tokio::test]
async fn more_than_100_requests_in_flight_are_refused() {
    let server = Server::start(world_with(
        args(args!("--secondary-limit 1000 --fault github-timeout=1")),
        1,
        vec![],
    ))
    .await;
    // 100 requests left hanging by the timeout fault hold every slot.
    let hanging: Vec<_> = (0..100)
        .map(|_| {
            let request = server.request(Method::GET, "/orgs/acme/actions/runners");
            tokio::spawn(async move { request.send().await })
        })
        .collect();
    let pattern = "/orgs/{org}/actions/runners";
    for _ in 0..1_000 {
        if server.recorded("GET", pattern, STATUS_TIMEOUT) == 100 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(server.recorded("GET", pattern, STATUS_TIMEOUT), 100);
    world::lock(&server.world).options.faults.clear();

    // GitHub cannot know when a slot frees: no retry-after, and the client is limited for a
    // minute, whether slots free or not.
    let refused = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.header("retry-after"), None);
    assert_eq!(server.violations(), 1);
    hanging.iter().for_each(|h| h.abort());
    server.clock.advance(Duration::from_secs(59));
    let limited = server.get("/orgs/acme/actions/runners").await;
    assert_eq!(limited.status, StatusCode::FORBIDDEN);
    assert_eq!(server.violations(), 2);

    // A minute later, and with the clients that gave up having freed their slots.
    server.clock.advance(Duration::from_secs(1));
    let mut answered = None;
    for _ in 0..1_000 {
        let reply = server.get("/orgs/acme/actions/runners").await;
        if reply.status == StatusCode::OK {
            answered = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(answered.is_some(), "slots were never given back");
}

// ---------------------------------------------------------------------------------------------
// Faults

#[tokio::test]
async fn github_5xx_answers_an_error_and_does_not_perform() {
    let server = Server::start(world_with(args(args!("--fault github-5xx=1")), 1, vec![])).await;
    let reply = server.delete("/orgs/acme/actions/runners/1").await;
    assert!(
        [500, 502, 503].contains(&reply.status.as_u16()),
        "{}",
        reply.status
    );
    assert!(reply.json()["message"].is_string());
    assert!(server.registered(1));
    let status = reply.status.as_u16();
    assert_eq!(
        server.recorded("DELETE", "/orgs/{org}/actions/runners/{runner_id}", status),
        1
    );
}

#[tokio::test]
async fn github_reset_drops_the_connection_and_may_have_performed_a_delete() {
    let n = 20;
    let server = Server::start(world_with(args(args!("--fault github-reset=1")), n, vec![])).await;
    for id in 1..=n {
        let err = server
            .request(Method::DELETE, &format!("/orgs/acme/actions/runners/{id}"))
            .send()
            .await
            .expect_err("the connection is dropped without an answer");
        assert!(err.status().is_none() && !err.is_timeout(), "{err:?}");
        assert!(err.is_request() || err.is_connect(), "{err:?}");
    }
    assert_eq!(
        server.recorded(
            "DELETE",
            "/orgs/{org}/actions/runners/{runner_id}",
            STATUS_RESET
        ),
        n
    );
    // The answer is lost either way; a seeded coin decides whether the unregister happened.
    let left = (1..=n).filter(|id| server.registered(*id)).count();
    assert!(0 < left && left < 20, "{left} of {n} still registered");
}

#[tokio::test]
async fn github_timeout_leaves_the_request_unanswered() {
    let server = Server::start(world_with(
        args(args!("--fault github-timeout=1")),
        1,
        vec![],
    ))
    .await;
    let err = server
        .request(Method::GET, "/orgs/acme/actions/runners")
        .timeout(Duration::from_millis(500))
        .send()
        .await
        .expect_err("no answer");
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(
        server.recorded("GET", "/orgs/{org}/actions/runners", STATUS_TIMEOUT),
        1
    );
}

// ---------------------------------------------------------------------------------------------
// GitHub App authentication

#[tokio::test]
async fn a_github_app_jwt_buys_an_installation_token() {
    let server = Server::start(world_with(
        args(args!("--app-id 123 --app-public-key", PUBLIC_KEY)),
        2,
        vec![],
    ))
    .await;
    let now = EPOCH.as_secs();
    let good = app_jwt(&json!({"iat": now - 60, "exp": now + 540, "iss": 123}));
    let as_app = |method: Method, path: &str, jwt: &str| {
        server
            .client
            .request(method, format!("{}{path}", server.base))
            .bearer_auth(jwt)
    };

    let installation = Reply::read(
        as_app(Method::GET, "/orgs/acme/installation", &good)
            .send()
            .await
            .expect("response"),
    )
    .await;
    assert_eq!(installation.status, StatusCode::OK);
    let tokens_url = installation.json()["access_tokens_url"]
        .as_str()
        .expect("access_tokens_url")
        .to_owned();
    let listed = Reply::read(
        as_app(Method::GET, "/app/installations", &good)
            .send()
            .await
            .expect("response"),
    )
    .await;
    assert_eq!(listed.json()[0]["id"], installation.json()["id"]);
    let minted = server
        .client
        .post(&tokens_url)
        .bearer_auth(&good)
        .send()
        .await
        .expect("response");
    let minted = Reply::read(minted).await;
    assert_eq!(minted.status, StatusCode::CREATED);
    let token = minted.json()["token"].as_str().expect("token").to_owned();
    let runners = server
        .client
        .get(format!("{}/orgs/acme/actions/runners", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .expect("response");
    assert_eq!(runners.status(), StatusCode::OK);

    // Refusals: wrong issuer, too long a lifetime, expired, a JWT where a token belongs, a
    // token where a JWT belongs, an org the App is not installed on.
    let string_iss = app_jwt(&json!({"iat": now, "exp": now + 600, "iss": "123"}));
    let cases = [
        (
            app_jwt(&json!({"iat": now, "exp": now + 600, "iss": 124})),
            "/app/installations",
            401,
        ),
        (
            app_jwt(&json!({"iat": now - 60, "exp": now + 900, "iss": 123})),
            "/app/installations",
            401,
        ),
        (
            app_jwt(&json!({"iat": now - 700, "exp": now - 100, "iss": 123})),
            "/app/installations",
            401,
        ),
        (good.clone(), "/orgs/acme/actions/runners", 401),
        (server.token.clone(), "/app/installations", 401),
        (string_iss.clone(), "/orgs/elsewhere/installation", 404),
        (string_iss, "/repos/acme/widgets/installation", 200),
    ];
    for (credential, path, want) in cases {
        let reply = Reply::read(
            as_app(Method::GET, path, &credential)
                .send()
                .await
                .expect("response"),
        )
        .await;
        assert_eq!(reply.status.as_u16(), want, "{path}: {}", reply.text);
    }
}
