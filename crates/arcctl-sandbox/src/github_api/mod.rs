//! The fake GitHub REST API over the shared world: the self-hosted runner endpoints at
//! organization, repository and enterprise level, as `shared/reference/github-api.md` describes
//! them, with GitHub's headers, pagination, error bodies, rate limits and injected faults.
//!
//! # Routes
//!
//! For each of `/orgs/{org}`, `/repos/{owner}/{repo}` and `/enterprises/{enterprise}`:
//! `GET …/actions/runners` (`per_page`, `page`, `name`), `GET`/`DELETE
//! …/actions/runners/{runner_id}`, `GET …/actions/runners/{runner_id}/labels`, `POST
//! …/actions/runners/registration-token` and `…/remove-token`. For org and enterprise: `GET
//! …/actions/runner-groups`, `…/runner-groups/{runner_group_id}` and `…/{runner_group_id}/runners`.
//! Lists show `busy` as [`World::listed_busy`](crate::world::World::listed_busy) (stale
//! with `--list-cache`); a runner by id shows the live value; DELETE is
//! [`World::unregister`](crate::world::World::unregister) (204, 404, or 422 with
//! GitHub's "is still running a job" message). With `--app-id`/`--app-public-key`, the App
//! endpoints of `app` take JWTs: `GET /app/installations`, `GET /orgs/{org}/installation`,
//! `GET /repos/{owner}/{repo}/installation`, `POST
//! /app/installations/{installation_id}/access_tokens`.
//!
//! # Request pipeline
//!
//! Every request passes `pipeline` in this order; the first step that answers wins:
//!
//! 1. `X-GitHub-Api-Version` other than `2022-11-28` / `2026-03-10` → 400.
//! 2. No `User-Agent` → 403 "Request forbidden by administrative rules…" (GitHub rejects these).
//! 3. `Authorization: Bearer T` / `token T` with `T` neither `World.token` nor an unexpired
//!    installation token minted by `app` → 401 "Bad credentials". The App endpoints take a
//!    valid App JWT instead (see `app`). Refused credentials count
//!    against no quota, and their `x-ratelimit-*` headers show the quota without spending it.
//! 4. Primary limit: 5,000 requests per hourly window (the window opens at the first
//!    authenticated request, `x-ratelimit-reset` is its end in epoch seconds); every
//!    authenticated request counts, refused ones included. Over it → 403 "API rate limit
//!    exceeded…" with `x-ratelimit-remaining: 0`, counted in `stats.rate_limit_violations`.
//! 5. `--secondary-limit N`: a sliding 60 s window of points (GET/HEAD 1, anything else 5). A
//!    request that would take the window over `N` → 403 "You have exceeded a secondary rate
//!    limit…" (GitHub's body and `documentation_url`) with `retry-after` = whole seconds until
//!    enough earlier points have left the window; requests that cost more than `N` on their
//!    own get `retry-after: 60`. A seeded share of these refusals (`--secondary-limit-silent`,
//!    default 0.25, from its own generator so the world's stream is unchanged) carries no
//!    `retry-after`, as GitHub sometimes answers. GitHub's other secondary limit, at most 100
//!    requests in flight, applies too, always without `retry-after` (GitHub cannot know when a
//!    slot frees); a request is in flight from admission until its answer leaves, or its
//!    client gives up. A refusal *limits* the client: until its `retry-after`, or for 60 s
//!    when it named none (GitHub's guidance: wait at least a minute). Every request made
//!    while limited is refused the same way (with `retry-after` = what is left of the wait
//!    when the first refusal named one) and does not lengthen the wait. Refused requests take
//!    no points, so a client that honours the wait succeeds next time, and one that paces
//!    itself never sees the 403. The window is one for all endpoints (GitHub counts per
//!    endpoint; one window is stricter, never looser). Every refusal counts in
//!    `stats.rate_limit_violations` ("refused requests"), the first one of a spell included.
//! 6. Faults (seeded, from [`World::fault`](crate::world::World::fault)), drawn in
//!    this order:
//!    - `github-403`, `github-429`: a rate-limit refusal with that status, not performed: by a
//!      coin, GitHub's primary-limit body with `x-ratelimit-remaining: 0` and
//!      `x-ratelimit-reset` a second ahead, or its secondary-limit body with `retry-after: 1`.
//!      Not counted as violations (the client did nothing wrong).
//!    - `github-5xx`: 500, 502 or 503 with a GitHub-like JSON body; the request is **not**
//!      performed.
//!    - `github-reset`: the connection is closed without a response (the response body fails
//!      before its head is flushed, so hyper drops the connection; clients see "connection
//!      closed before message completed"). Recorded with status [`STATUS_RESET`] (0).
//!    - `github-timeout`: no answer for [`TIMEOUT_HANG`] (then the connection is closed as for a
//!      reset), so clients must time out. Recorded with status [`STATUS_TIMEOUT`] (1).
//!
//!    For a reset or timeout of a mutating request (DELETE, POST) a seeded coin (p = 0.5)
//!    decides whether the operation took effect before the answer was lost, as on a real
//!    network: after a lost DELETE answer, the runner may or may not still be registered, and
//!    a client must look it up again. GETs are not performed (they change nothing).
//! 7. The route's handler runs against the world.
//!
//! Every response then gets `content-type: application/json; charset=utf-8` (except 204, which
//! has no body), `x-github-api-version-selected`, `x-github-media-type`, the `x-ratelimit-*`
//! headers and `x-github-request-id`; `--latency` is slept (outside every lock) before it
//! leaves; and `stats.record_github(method, route pattern, status)` counts it. Unrouted paths
//! are counted under the pattern `(unmatched)`.
//!
//! # Behaviours GitHub leaves undocumented, as chosen here
//!
//! - Non-integer `per_page` or `page` → 422 `validation-error-simple` ("Invalid request. For
//!   'per_page', "abc" is not an integer."). `per_page` < 1 → 30, above 100 → 100; `page` < 1
//!   → 1. A page past the end → 200 with an empty list, `prev` pointing at the last page and
//!   `first`. `per_page` is always in the `Link` URLs, other query parameters are kept.
//! - A method a route does not serve (e.g. `POST …/actions/runners`) → 404 like an unknown
//!   path, not 405.
//! - Non-integer `{runner_id}` / `{runner_group_id}` → 404, as for an unknown id.
//! - The `name` filter matches the runner name exactly.
//! - Org and enterprise lists hold only runners registered at that level (repository runners
//!   appear only under their repository), as on GitHub.
//! - Known scopes: the sandbox org, any repository owned by it, and every org, repository and
//!   enterprise a registration was under when the router started or when a request named a
//!   scope not yet known (remembered when its runners are gone, so a drained enterprise keeps
//!   answering 200 with an empty list). Anything else → 404.
//! - Runner groups are the world's groups, served at org and enterprise level alike.

mod app;
mod clock;
mod errors;
mod faults;
mod groups;
mod pagination;
mod pipeline;
mod rate_limit;
mod render;
mod routes;
mod runners;
mod scope;

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use crate::world::SharedWorld;

pub use app::INSTALLATION_ID;
pub use clock::{Clock, ManualClock, SystemClock};
pub(crate) use faults::dropped_connection;
pub use faults::{STATUS_RESET, STATUS_TIMEOUT, TIMEOUT_HANG};

/// State shared by the pipeline and the handlers of one fake GitHub.
#[derive(Clone)]
pub(crate) struct Api {
    pub(crate) world: SharedWorld,
    /// Primary and secondary limit accounting (its own lock; never held with the world's
    /// across an `.await`).
    pub(crate) limits: Arc<Mutex<rate_limit::Limits>>,
    pub(crate) clock: Arc<dyn Clock>,
    /// The GitHub App whose JWTs the App endpoints accept (`--app-id`, `--app-public-key`).
    pub(crate) app: Option<app::App>,
    /// Installation tokens minted for the App, with their expiry.
    pub(crate) app_tokens: Arc<Mutex<app::Tokens>>,
    /// Scopes seen so far, so a scope stays known after its last runner is gone.
    pub(crate) known: Arc<Mutex<scope::Known>>,
    /// Numbers `x-github-request-id`.
    pub(crate) requests: Arc<AtomicU64>,
}

/// The fake GitHub's routes, on the wall clock.
pub fn router(world: SharedWorld) -> axum::Router {
    router_with_clock(world, Arc::new(SystemClock::new()))
}

/// The fake GitHub's routes with the rate limits driven by `clock` (tests use a
/// [`ManualClock`] so that the limit windows do not depend on how fast the test runs).
pub fn router_with_clock(world: SharedWorld, clock: Arc<dyn Clock>) -> axum::Router {
    // Read the options under the lock; load the App key (file I/O) after releasing it.
    let (options, known) = {
        let w = crate::world::lock(&world);
        let mut known = scope::Known::default();
        known.learn(&w);
        (w.options.clone(), known)
    };
    let limits = rate_limit::Limits::new(
        options.secondary_limit,
        options.secondary_limit_silent,
        options.seed,
    );
    let app = app::App::from_options(&options);
    let api = Api {
        world,
        limits: Arc::new(Mutex::new(limits)),
        clock,
        app,
        app_tokens: Arc::new(Mutex::new(app::Tokens::default())),
        known: Arc::new(Mutex::new(known)),
        requests: Arc::new(AtomicU64::new(0)),
    };
    routes::routes(&api).with_state(api)
}
