//! What the GitHub client is built from: the scope whose runners it manages and the resolved
//! connection settings. `config` resolves flags, environment and files into these; nothing
//! here reads them.

use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use crate::github::auth::Credentials;

/// Where runners are registered on GitHub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Org(String),
    Repo { owner: String, repo: String },
    Enterprise(String),
}

impl Scope {
    /// The API path of the scope, e.g. `orgs/acme` (no leading or trailing slash).
    pub fn path(&self) -> String {
        match self {
            Scope::Org(org) => format!("orgs/{org}"),
            Scope::Repo { owner, repo } => format!("repos/{owner}/{repo}"),
            Scope::Enterprise(slug) => format!("enterprises/{slug}"),
        }
    }

    /// How messages name the scope: ``org `acme` ``.
    pub fn describe(&self) -> String {
        match self {
            Scope::Org(org) => format!("org `{org}`"),
            Scope::Repo { owner, repo } => format!("repo `{owner}/{repo}`"),
            Scope::Enterprise(slug) => format!("enterprise `{slug}`"),
        }
    }

    /// The bare name, as GitHub's "not found" answers need it: `acme`, `acme/web`.
    pub fn name(&self) -> String {
        match self {
            Scope::Org(org) => org.clone(),
            Scope::Repo { owner, repo } => format!("{owner}/{repo}"),
            Scope::Enterprise(slug) => slug.clone(),
        }
    }

    /// Which token scopes or permissions this scope needs, for 401/403 hints.
    pub fn token_requirements(&self) -> &'static str {
        match self {
            Scope::Org(_) => {
                "org runners need a classic token with `admin:org`, or a fine-grained token or \
                 GitHub App with the organization permission \"Self-hosted runners\" (read to \
                 list, read and write to drain)"
            }
            Scope::Repo { .. } => {
                "repo runners need a classic token with `repo`, or a fine-grained token or GitHub \
                 App with the repository permission \"Administration\" (read to list, read and \
                 write to drain)"
            }
            Scope::Enterprise(_) => {
                "enterprise runners need a classic token with `manage_runners:enterprise` \
                 (fine-grained tokens and GitHub Apps cannot use the enterprise runner endpoints)"
            }
        }
    }

    /// Runner groups exist for orgs and enterprises, not repositories.
    pub fn has_groups(&self) -> bool {
        !matches!(self, Scope::Repo { .. })
    }
}

/// Everything the GitHub client needs.
#[derive(Debug, Clone)]
pub struct GitHubSettings {
    pub scope: Scope,
    /// The API base, always ending in `/` so relative paths join below it.
    pub base_url: Url,
    /// A token, or a GitHub App.
    pub credentials: Credentials,
    /// `--group`: a runner group name or id.
    pub group: Option<String>,
    /// `--ca-cert`: extra root certificate (PEM).
    pub ca_cert: Option<PathBuf>,
    pub request_timeout: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_paths_and_names() {
        let r = Scope::Repo {
            owner: "o".into(),
            repo: "r".into(),
        };
        assert_eq!(r.path(), "repos/o/r");
        assert_eq!(r.describe(), "repo `o/r`");
        assert_eq!(Scope::Org("a".into()).path(), "orgs/a");
        assert_eq!(Scope::Enterprise("e".into()).path(), "enterprises/e");
        assert!(
            Scope::Org("a".into())
                .token_requirements()
                .contains("admin:org")
        );
        assert!(r.token_requirements().contains("Administration"));
        assert!(
            Scope::Enterprise("e".into())
                .token_requirements()
                .contains("manage_runners:enterprise")
        );
    }
}
