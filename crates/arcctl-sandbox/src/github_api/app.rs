//! GitHub App authentication (`--app-id`, `--app-public-key`): RS256 JWTs signed with the App's
//! key are accepted on the App endpoints, which find the sandbox org's installation and mint
//! installation tokens.
//!
//! JWT checks follow GitHub's documented rules, on the API's clock: signature (RS256 with the
//! configured public key), `iss` equal to the App id (number or string), `iat` not in the
//! future (60 s of drift allowed), `exp` in the future and at most 10 minutes after `iat`. The
//! installation token handed out is a fresh `ghs_` token, valid for `--app-token-lifetime`
//! (default 1 hour, as on GitHub) on the API's clock; the pipeline accepts it wherever the
//! world's token is accepted until it expires, then answers 401 "Bad credentials", so a client
//! must renew its token during a long run.

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Value, json};

use super::errors::{self, json_response};
use super::scope::ScopePath;
use super::{Api, clock};
use crate::options::Options;
use crate::world;

/// The id of the only installation of the sandbox's App, on the sandbox org (also found with
/// `GET /orgs/{org}/installation`).
pub const INSTALLATION_ID: u64 = 4_242;
const DRIFT: u64 = 60;
const MAX_LIFETIME: u64 = 600;

/// The App whose JWTs the fake accepts.
#[derive(Clone)]
pub(crate) struct App {
    id: u64,
    key: DecodingKey,
}

impl App {
    /// The App configured by `--app-id` / `--app-public-key`, if both are given and the key
    /// loads; a key that does not load disables App authentication (logged), since every JWT
    /// would be refused anyway.
    pub(crate) fn from_options(options: &Options) -> Option<App> {
        let (id, path) = (options.app_id?, options.app_public_key.as_ref()?);
        let loaded = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|pem| DecodingKey::from_rsa_pem(&pem).map_err(|e| e.to_string()));
        match loaded {
            Ok(key) => Some(App { id, key }),
            Err(e) => {
                tracing::warn!(path = %path.display(), "GitHub App public key not loaded: {e}");
                None
            }
        }
    }

    /// Checks a JWT; the error is GitHub's message for the refusal.
    pub(crate) fn verify(&self, jwt: &str, now: Duration) -> Result<(), &'static str> {
        let mut validation = Validation::new(Algorithm::RS256);
        validation.validate_exp = false;
        validation.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<Value>(jwt, &self.key, &validation)
            .map_err(|_| "A JSON web token could not be decoded")?
            .claims;
        let now = now.as_secs();
        let iss_matches = match &claims["iss"] {
            Value::Number(n) => n.as_u64() == Some(self.id),
            Value::String(s) => s.trim() == self.id.to_string(),
            _ => false,
        };
        if !iss_matches {
            return Err("'Issuer' claim ('iss') must be an Integer");
        }
        let Some(iat) = claims["iat"].as_u64().filter(|iat| *iat <= now + DRIFT) else {
            return Err(
                "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
            );
        };
        match claims["exp"].as_u64() {
            Some(exp) if exp <= now => Err(
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
            ),
            Some(exp) if exp > iat + MAX_LIFETIME => {
                Err("'Expiration time' claim ('exp') is too far in the future")
            }
            Some(_) => Ok(()),
            None => Err(
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
            ),
        }
    }
}

/// The installation tokens minted so far and when each expires (on the API's clock).
#[derive(Default)]
pub(crate) struct Tokens {
    expiry: HashMap<String, Duration>,
    minted: u64,
}

impl Tokens {
    /// Mints a token valid for `lifetime` from `now`.
    fn mint(&mut self, now: Duration, lifetime: Duration) -> (String, Duration) {
        // Forget expired tokens so that a long sandbox run does not grow the map; a forgotten
        // token is refused like any unknown one.
        self.expiry.retain(|_, expires| *expires > now);
        self.minted += 1;
        let token = format!("ghs_{:032x}", rand::random::<u128>());
        let expires = now + lifetime;
        self.expiry.insert(token.clone(), expires);
        (token, expires)
    }

    /// Whether `token` is an installation token that has not expired at `now`.
    pub(crate) fn valid(&self, token: &str, now: Duration) -> bool {
        self.expiry.get(token).is_some_and(|expires| *expires > now)
    }

    /// How many tokens were minted.
    #[cfg(test)]
    fn minted(&self) -> u64 {
        self.minted
    }
}

/// The 401 GitHub sends for a refused JWT.
pub(crate) fn refused(message: &str) -> Response {
    json_response(
        StatusCode::UNAUTHORIZED,
        &json!({
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            "status": "401",
        }),
    )
}

fn installation(api: &Api, headers: &HeaderMap) -> Value {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    let world = world::lock(&api.world);
    let org = world.options.org.clone();
    let app_id = world.options.app_id.unwrap_or_default();
    let scheme = if world.options.tls { "https" } else { "http" };
    drop(world);
    json!({
        "id": INSTALLATION_ID,
        "account": {"login": org, "id": 1, "type": "Organization"},
        "app_id": app_id,
        "app_slug": "arcctl-sandbox",
        "target_id": 1,
        "target_type": "Organization",
        "permissions": permissions(),
        "events": [],
        "repository_selection": "all",
        "single_file_name": null,
        "access_tokens_url": format!("{scheme}://{host}/app/installations/{INSTALLATION_ID}/access_tokens"),
        "repositories_url": format!("{scheme}://{host}/installation/repositories"),
        "html_url": format!("{scheme}://{host}/organizations/{org}/settings/installations/{INSTALLATION_ID}"),
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
    })
}

fn permissions() -> Value {
    json!({"organization_self_hosted_runners": "write", "administration": "write", "metadata": "read"})
}

/// `GET /app/installations`.
pub(crate) async fn list_installations(State(api): State<Api>, headers: HeaderMap) -> Response {
    json_response(StatusCode::OK, &json!([installation(&api, &headers)]))
}

/// `GET /orgs/{org}/installation` and `GET /repos/{owner}/{repo}/installation`: the
/// installation on the sandbox org covers the org and all its repositories.
pub(crate) async fn scope_installation(
    State(api): State<Api>,
    Path(params): Path<std::collections::HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let org = world::lock(&api.world).options.org.to_ascii_lowercase();
    let covered = ScopePath::from_params(&params).is_some_and(|s| s.owner() == Some(&org));
    if covered {
        json_response(StatusCode::OK, &installation(&api, &headers))
    } else {
        errors::not_found("https://docs.github.com/rest/apps/apps")
    }
}

/// `POST /app/installations/{installation_id}/access_tokens`.
pub(crate) async fn access_token(
    State(api): State<Api>,
    Path(params): Path<std::collections::HashMap<String, String>>,
    _uri: Uri,
) -> Response {
    let id = params
        .get("installation_id")
        .and_then(|v| v.parse::<u64>().ok());
    if id != Some(INSTALLATION_ID) {
        return errors::not_found(
            "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app",
        );
    }
    let lifetime = world::lock(&api.world).options.app_token_lifetime;
    let (token, expires) = api
        .app_tokens
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .mint(api.clock.now(), lifetime);
    let expires_at = clock::rfc3339(expires);
    json_response(
        StatusCode::CREATED,
        &json!({
            "token": token,
            "expires_at": expires_at,
            "permissions": permissions(),
            "repository_selection": "all",
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_expire_after_their_lifetime() {
        let mut tokens = Tokens::default();
        let t0 = Duration::from_secs(1_000);
        let (a, expires) = tokens.mint(t0, Duration::from_secs(5));
        assert_eq!(expires, t0 + Duration::from_secs(5));
        assert!(a.starts_with("ghs_"));
        assert!(tokens.valid(&a, t0 + Duration::from_secs(4)));
        assert!(!tokens.valid(&a, t0 + Duration::from_secs(5)));
        assert!(!tokens.valid("ghs_unknown", t0));
        let (b, _) = tokens.mint(t0 + Duration::from_secs(6), Duration::from_secs(5));
        assert_ne!(a, b);
        assert!(!tokens.valid(&a, t0), "expired tokens are forgotten");
        assert_eq!(tokens.minted(), 2);
    }
}
