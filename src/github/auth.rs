//! Credentials for GitHub: a token (from `GH_TOKEN`, `GITHUB_TOKEN` or `--token-file`), or a
//! GitHub App installation, whose short-lived token is minted from an RS256 JWT and renewed
//! before it expires; and the client's authenticated send, which mints that token (once for
//! all concurrent requests) and mints again when GitHub refuses one thought fresh.
//!
//! Secrets stay in [`SecretString`]s: they are exposed only to build a header or sign a JWT.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use url::Url;

use crate::error::{Error, Result};
use crate::github::client::GitHubClient;
use crate::github::errors::{Failure, error_message};
use crate::github::outcome::Reply;

/// Renew an installation token this long before GitHub says it expires.
pub(crate) const RENEW_BEFORE: Duration = Duration::from_secs(300);

/// How arcctl authenticates to GitHub.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// A personal, fine-grained or installation token.
    Token {
        token: SecretString,
        /// Where it came from, for messages (`GH_TOKEN`, `--token-file PATH`).
        source: String,
    },
    /// A GitHub App: installation tokens are minted on demand.
    App(AppCredentials),
}

impl Credentials {
    /// How messages name the credentials (never their value).
    pub fn describe(&self) -> String {
        match self {
            Credentials::Token { source, .. } => format!("the token from {source}"),
            Credentials::App(app) => format!("the installation token of GitHub App {}", app.app_id),
        }
    }
}

/// A GitHub App's id, optional installation id and private key.
#[derive(Debug, Clone)]
pub struct AppCredentials {
    pub app_id: u64,
    /// Found from the scope (`GET /orgs/{org}/installation`) when not given.
    pub installation_id: Option<u64>,
    /// The PEM private key.
    pub private_key: SecretString,
    /// Where the key came from, for messages.
    pub key_source: String,
}

#[derive(Serialize)]
struct Claims {
    iat: u64,
    exp: u64,
    iss: String,
}

/// A JWT for the App: issued 60 s in the past (clock drift) and valid 9 minutes, as GitHub
/// recommends (at most 10).
fn app_jwt(app: &AppCredentials, now: SystemTime) -> Result<SecretString> {
    let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let key =
        EncodingKey::from_rsa_pem(app.private_key.expose_secret().as_bytes()).map_err(|e| {
            Error::usage(format!(
                "the GitHub App key {} is not an RSA private key in PEM form",
                app.key_source
            ))
            .with_source(e)
        })?;
    let claims = Claims {
        iat: now.saturating_sub(60),
        exp: now + 540,
        iss: app.app_id.to_string(),
    };
    // A public key in PEM form loads but cannot sign: name the file, never its content.
    let jwt = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &key).map_err(|e| {
        Error::usage(format!(
            "failed to sign the GitHub App JWT with the key {}",
            app.key_source
        ))
        .with_source(e)
        .with_hint("the key must be the App's private key (PEM), not its public key")
    })?;
    Ok(SecretString::from(jwt))
}

/// `POST /app/installations/{id}/access_tokens` → 201 `{token, expires_at}`.
#[derive(Deserialize)]
struct InstallationToken {
    token: String,
    expires_at: Option<String>,
}

/// `GET /orgs/{org}/installation` → `{id, …}`.
#[derive(Deserialize)]
struct Installation {
    id: u64,
}

/// A minted installation token and when to renew it.
#[derive(Debug, Clone)]
pub(crate) struct Minted {
    pub token: SecretString,
    pub renew_at: SystemTime,
}

impl Minted {
    /// Keeps the token until shortly before `expires_at` (RFC 3339); without one, for 55 min.
    /// The margin is [`RENEW_BEFORE`], or a fifth of the token's lifetime when that is shorter
    /// (a token that lives 10 s is renewed after 8 s, not at every request).
    pub fn new(token: String, expires_at: Option<&str>, now: SystemTime) -> Self {
        let expires = expires_at
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map(|t| UNIX_EPOCH + Duration::from_secs(t.as_second().max(0).unsigned_abs()))
            .unwrap_or(now + Duration::from_secs(3600));
        let lifetime = expires.duration_since(now).unwrap_or_default();
        let margin = RENEW_BEFORE.min(lifetime / 5);
        Minted {
            token: SecretString::from(token),
            renew_at: expires.checked_sub(margin).unwrap_or(now).max(now),
        }
    }

    pub fn fresh(&self, now: SystemTime) -> bool {
        now < self.renew_at
    }
}

impl GitHubClient {
    /// Sends one request with the current credentials; any HTTP status is `Ok`.
    ///
    /// An App's installation token that GitHub refuses (401) although it was thought fresh
    /// (clock skew, a revoked token) is dropped and the request sent once more with a new one.
    pub(super) async fn send(&self, method: Method, url: Url) -> Result<Reply, Failure> {
        let bearer = self.bearer().await?;
        let reply = self.send_as(method.clone(), url.clone(), &bearer).await?;
        if reply.status != StatusCode::UNAUTHORIZED
            || !matches!(self.credentials, Credentials::App(_))
        {
            return Ok(reply);
        }
        {
            let mut minted = self.minted.lock().await;
            // Another request may have renewed it already.
            if minted
                .as_ref()
                .is_some_and(|m| m.token.expose_secret() == bearer.expose_secret())
            {
                *minted = None;
            }
        }
        self.log(|| tracing::debug!("installation token refused (401); minting a new one"));
        let bearer = self.bearer().await?;
        self.send_as(method, url, &bearer).await
    }

    /// The token to send: the configured one, or the App's installation token, minted (once,
    /// for all concurrent requests) when missing or about to expire.
    async fn bearer(&self) -> Result<SecretString, Failure> {
        let app = match &self.credentials {
            Credentials::Token { token, .. } => return Ok(token.clone()),
            Credentials::App(app) => app,
        };
        let mut minted = self.minted.lock().await;
        let now = SystemTime::now();
        if let Some(m) = minted.as_ref().filter(|m| m.fresh(now)) {
            return Ok(m.token.clone());
        }
        let jwt = app_jwt(app, now).map_err(Failure::Auth)?;
        let installation = match app.installation_id {
            Some(id) => id,
            None => {
                let url = self
                    .url_plain(&format!("{}/installation", self.scope.path()))
                    .map_err(Failure::Auth)?;
                let reply = self.send_as(Method::GET, url, &jwt).await?;
                self.app_answer::<Installation>(&reply, app.app_id, "find its installation on")?
                    .id
            }
        };
        let url = self
            .url_plain(&format!("app/installations/{installation}/access_tokens"))
            .map_err(Failure::Auth)?;
        let reply = self.send_as(Method::POST, url, &jwt).await?;
        let t: InstallationToken =
            self.app_answer(&reply, app.app_id, "get an installation token for")?;
        let m = Minted::new(t.token, t.expires_at.as_deref(), now);
        self.log(|| {
            tracing::debug!(
                "github: minted an installation token for GitHub App {} (installation \
                 {installation}), expires at {}, renewed after {}",
                app.app_id,
                t.expires_at.as_deref().unwrap_or("(not given)"),
                jiff::Timestamp::try_from(m.renew_at)
                    .map(|t| t.to_string())
                    .unwrap_or_default()
            );
        });
        let token = m.token.clone();
        *minted = Some(m);
        Ok(token)
    }

    /// Decodes an answer of the App endpoints; refusals become errors naming the App.
    fn app_answer<T: DeserializeOwned>(
        &self,
        reply: &Reply,
        app_id: u64,
        doing: &str,
    ) -> Result<T, Failure> {
        let status = reply.status.as_u16();
        if reply.status.is_success() {
            return serde_json::from_slice(&reply.body).map_err(|e| {
                Failure::Auth(
                    Error::failed(format!(
                        "unexpected answer from GitHub's App API ({status})"
                    ))
                    .with_source(e),
                )
            });
        }
        let message = error_message(reply);
        let what = format!(
            "GitHub App {app_id} could not {doing} {} ({status} {message})",
            self.scope.describe()
        );
        Err(Failure::Auth(match status {
            401 => Error::auth(what)
                .with_hint("check --app-id and that --app-key is the App's current private key"),
            403 => Error::auth(what),
            404 => Error::auth(what).with_hint(format!(
                "install the App on {} (or pass --installation-id)",
                self.scope.describe()
            )),
            _ => Error::failed(what),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_that_is_not_pem_is_a_usage_error_without_its_content() {
        let app = AppCredentials {
            app_id: 7,
            installation_id: None,
            private_key: SecretString::from("not-a-key-but-secret".to_owned()),
            key_source: "--app-key /k.pem".into(),
        };
        let e = app_jwt(&app, SystemTime::now()).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message().contains("--app-key /k.pem"));
        assert!(!format!("{e:?}").contains("not-a-key-but-secret"));
    }

    fn at(t: &str) -> SystemTime {
        let t: jiff::Timestamp = t.parse().unwrap();
        UNIX_EPOCH + Duration::from_secs(t.as_second().unsigned_abs())
    }

    #[test]
    fn minted_tokens_renew_before_expiry() {
        let now = UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let m = Minted::new("t".into(), Some("2027-01-15T08:00:00Z"), now);
        let expires: jiff::Timestamp = "2027-01-15T08:00:00Z".parse().unwrap();
        let expires = UNIX_EPOCH + Duration::from_secs(expires.as_second().unsigned_abs());
        assert_eq!(m.renew_at, expires - RENEW_BEFORE);
        assert!(m.fresh(now));
        assert!(!m.fresh(expires - Duration::from_secs(60)));
        // A short-lived token is kept for four fifths of its life.
        let m = Minted::new(
            "t".into(),
            Some("2026-09-21T12:00:10Z"),
            at("2026-09-21T12:00:00Z"),
        );
        assert!(m.fresh(at("2026-09-21T12:00:07Z")));
        assert!(!m.fresh(at("2026-09-21T12:00:08Z")));
        // Already (nearly) expired: renew at once.
        let m = Minted::new("t".into(), Some("2000-01-01T00:00:00Z"), now);
        assert!(!m.fresh(now));
        let m = Minted::new("t".into(), None, now);
        assert!(m.fresh(now + Duration::from_secs(3000)));
        assert!(!m.fresh(now + Duration::from_secs(3400)));
    }

    #[test]
    fn credentials_describe_without_values() {
        let c = Credentials::Token {
            token: SecretString::from("ghp_x".to_owned()),
            source: "GH_TOKEN".into(),
        };
        assert_eq!(c.describe(), "the token from GH_TOKEN");
        assert!(!format!("{c:?}").contains("ghp_x"));
    }
}
