//! Fixture worlds for the fake GitHub tests, the in-process server on 127.0.0.1 and a reqwest
//! client for it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcctl::sandbox::Options as SandboxArgs;
use arcctl::sandbox::github_api::{self, ManualClock};
use arcctl::sandbox::world::{self, Label, Registration, Scope, SharedWorld, World};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::support::{install_tls, options};

pub const ORG: &str = "acme";
/// Where the manual clock starts (2027-01-15).
pub const EPOCH: Duration = Duration::from_secs(1_800_000_000);

/// Sandbox options for org [`ORG`] and `extra` words.
pub fn args(extra: Vec<String>) -> SandboxArgs {
    let mut words = args!("--org", ORG);
    words.extend(extra);
    options(words)
}

pub fn registration(id: u64, name: &str, scope: Scope, busy: bool) -> Registration {
    Registration {
        id,
        name: name.to_owned(),
        scope,
        os: "linux".to_owned(),
        status: "online",
        busy,
        listed_busy: busy,
        listed_at: Instant::now(),
        labels: vec![
            Label {
                id: 1,
                name: "self-hosted".to_owned(),
                label_type: "read-only",
            },
            Label {
                id: 7,
                name: "arc-runner-set".to_owned(),
                label_type: "custom",
            },
        ],
        runner_group_id: 1,
        ephemeral: true,
        version: if id.is_multiple_of(2) {
            Some("2.323.0".to_owned())
        } else {
            None
        },
        job: None,
        job_assigned_at: None,
    }
}

pub fn org() -> Scope {
    Scope::Org(ORG.to_owned())
}

/// A world with `n` idle org runners (ids 1..=n) plus whatever `extra` adds.
pub fn world_with(args: SandboxArgs, n: u64, extra: Vec<Registration>) -> World {
    let mut world = World::empty(args);
    for id in 1..=n {
        world.registrations.insert(
            id,
            registration(id, &format!("runner-{id:04}"), org(), false),
        );
    }
    for reg in extra {
        world.registrations.insert(reg.id, reg);
    }
    world
}

pub struct Server {
    pub world: SharedWorld,
    pub clock: Arc<ManualClock>,
    pub base: String,
    pub token: String,
    pub client: reqwest::Client,
}

impl Server {
    pub async fn start(world: World) -> Server {
        install_tls();
        let token = world.token.clone();
        let world = world.shared();
        let clock = Arc::new(ManualClock::new(EPOCH));
        let router = github_api::router_with_clock(world.clone(), clock.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        let client = reqwest::Client::builder()
            .no_proxy()
            .user_agent("arcctl-tests")
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client");
        Server {
            world,
            clock,
            base: format!("http://{addr}"),
            token,
            client,
        }
    }

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let url = if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", self.base)
        };
        self.client
            .request(method, url)
            .bearer_auth(&self.token)
            .header("accept", "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28")
    }

    pub async fn send(&self, method: Method, path: &str) -> Reply {
        Reply::read(self.request(method, path).send().await.expect("response")).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path).await
    }

    pub fn registered(&self, id: u64) -> bool {
        world::lock(&self.world).registrations.contains_key(&id)
    }

    pub fn recorded(&self, method: &str, pattern: &str, status: u16) -> u64 {
        let w = world::lock(&self.world);
        let key = (method.to_owned(), pattern.to_owned(), status);
        w.stats.github.get(&key).copied().unwrap_or(0)
    }

    pub fn violations(&self) -> u64 {
        world::lock(&self.world).stats.rate_limit_violations
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub async fn read(response: reqwest::Response) -> Reply {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        Reply {
            status,
            headers,
            text,
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `Link` header as rel → URL.
    pub fn links(&self) -> HashMap<String, String> {
        self.header("link")
            .map(|l| parse_link_header::parse_with_rel(l).expect("Link parses"))
            .unwrap_or_default()
            .into_iter()
            .map(|(rel, link)| (rel, link.raw_uri))
            .collect()
    }

    pub fn ids(&self) -> Vec<u64> {
        self.json()["runners"]
            .as_array()
            .expect("runners array")
            .iter()
            .map(|r| r["id"].as_u64().expect("integer id"))
            .collect()
    }
}
