//! Flags and environment resolved into settings: the GitHub scope, API URL and token, and the
//! Kubernetes config, context and namespaces.
//!
//! Environment variables come from the injected `ctx.env`, never from `std::env`, so tests can
//! run commands with their own environment. Every rule here is a pure function with unit tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use secrecy::SecretString;
use url::Url;

use crate::cli::{GitHubArgs, KubeArgs};
use crate::cluster::settings::{InCluster, KubeSettings, Namespaces, SERVICE_ACCOUNT_DIR};
use crate::context::Env;
use crate::error::{Error, Result};
use crate::github::auth::{AppCredentials, Credentials};
use crate::github::settings::{GitHubSettings, Scope};

/// The GitHub API base when neither `--github-url` nor `GITHUB_API_URL` is given.
pub const DEFAULT_GITHUB_URL: &str = "https://api.github.com";

/// How long one GitHub request may take before arcctl gives up on it.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Resolves the GitHub scope: exactly one of org, repo, enterprise from flags or env.
///
/// A flag overrides the environment variable of the same kind; two different kinds (from flags
/// or env, in any mix) are ambiguous and refused, because acting on the wrong scope is worse
/// than asking.
pub fn resolve_scope(args: &GitHubArgs, env: &Env) -> Result<Scope> {
    let pick = |flag: &Option<String>, flag_name: &'static str, var: &'static str| match flag
        .as_deref()
        .filter(|v| !v.is_empty())
    {
        Some(v) => Some((v.to_owned(), flag_name)),
        None => env.get(var).map(|v| (v.to_owned(), var)),
    };
    let org = pick(&args.org, "--org", "ARCCTL_ORG");
    let repo = pick(&args.repo, "--repo", "ARCCTL_REPO");
    let ent = pick(&args.enterprise, "--enterprise", "ARCCTL_ENTERPRISE");
    let given: Vec<&'static str> = [&org, &repo, &ent]
        .iter()
        .filter_map(|s| s.as_ref().map(|(_, src)| *src))
        .collect();
    if given.len() > 1 {
        return Err(Error::usage(format!(
            "{} both set a GitHub scope; give exactly one of --org, --repo, --enterprise",
            given.join(" and ")
        ))
        .with_hint("unset the environment variable or drop one of the flags"));
    }
    if let Some((org, _)) = org {
        return Ok(Scope::Org(validate_segment(&org, "organization")?));
    }
    if let Some((repo, src)) = repo {
        let (owner, name) = repo
            .split_once('/')
            .filter(|(o, r)| !o.is_empty() && !r.is_empty() && !r.contains('/'))
            .ok_or_else(|| {
                Error::usage(format!("{src} `{repo}` is not OWNER/REPO"))
                    .with_hint("for example --repo acme/web")
            })?;
        return Ok(Scope::Repo {
            owner: validate_segment(owner, "repository owner")?,
            repo: validate_segment(name, "repository")?,
        });
    }
    if let Some((slug, _)) = ent {
        return Ok(Scope::Enterprise(validate_segment(&slug, "enterprise")?));
    }
    Err(Error::usage("no GitHub scope given")
        .with_hint("pass --org ORG, --repo OWNER/REPO or --enterprise SLUG (or set ARCCTL_ORG)"))
}

/// A scope name goes into a URL path: refuse what would change the path.
fn validate_segment(value: &str, what: &str) -> Result<String> {
    let ok = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && value != "."
        && value != "..";
    if ok {
        Ok(value.to_owned())
    } else {
        Err(Error::usage(format!(
            "`{value}` is not a valid {what} name"
        )))
    }
}

/// Resolves the API base URL: `--github-url`, then `GITHUB_API_URL`, then api.github.com.
pub fn resolve_base_url(args: &GitHubArgs, env: &Env) -> Result<Url> {
    let (raw, src) = match args.github_url.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => (v.to_owned(), "--github-url"),
        None => match env.get("GITHUB_API_URL") {
            Some(v) => (v.to_owned(), "GITHUB_API_URL"),
            None => (DEFAULT_GITHUB_URL.to_owned(), "the default"),
        },
    };
    let mut url = Url::parse(raw.trim()).map_err(|e| {
        Error::usage(format!("{src} `{raw}` is not a URL"))
            .with_source(e)
            .with_hint("for example https://api.github.com or https://HOST/api/v3")
    })?;
    if !matches!(url.scheme(), "https" | "http") || url.cannot_be_a_base() {
        return Err(Error::usage(format!("{src} `{raw}` is not an http(s) URL")));
    }
    url.set_query(None);
    url.set_fragment(None);
    // A base without a trailing slash would lose its last segment (`/api/v3`) on join.
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// Resolves the token: `GH_TOKEN`, then `GITHUB_TOKEN`, then `--token-file` (as `gh` orders
/// environment over stored credentials). Returns the token and where it came from.
pub fn resolve_token(args: &GitHubArgs, env: &Env) -> Result<(SecretString, String)> {
    for var in ["GH_TOKEN", "GITHUB_TOKEN"] {
        if let Some(v) = env.get(var) {
            let v = v.trim();
            if !v.is_empty() {
                return Ok((SecretString::from(v.to_owned()), var.to_owned()));
            }
        }
    }
    if let Some(path) = &args.token_file {
        return read_token_file(path);
    }
    Err(Error::auth("no GitHub token").with_hint(
        "set GH_TOKEN (or GITHUB_TOKEN), or pass --token-file PATH; tokens are never taken \
         from flag values. For a GitHub App, pass --app-id and --app-key PATH (or set \
         ARCCTL_APP_ID and ARCCTL_APP_KEY_FILE)",
    ))
}

fn read_token_file(path: &Path) -> Result<(SecretString, String)> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::usage(format!(
            "failed to read the token file `{}`",
            path.display()
        ))
        .with_source(e)
    })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(Error::usage(format!(
            "the token file `{}` is empty",
            path.display()
        )));
    }
    if token.contains(char::is_whitespace) {
        // Never echo the content: it may be a token with a stray line.
        return Err(Error::usage(format!(
            "the token file `{}` holds more than one word; it must hold only the token",
            path.display()
        )));
    }
    Ok((
        SecretString::from(token.to_owned()),
        format!("--token-file {}", path.display()),
    ))
}

/// Resolves GitHub App credentials when any App setting is given (flags, else
/// `ARCCTL_APP_ID`, `ARCCTL_INSTALLATION_ID`, `ARCCTL_APP_KEY_FILE`). An App configured on
/// purpose wins over tokens in the environment.
pub fn resolve_app(args: &GitHubArgs, env: &Env) -> Result<Option<AppCredentials>> {
    let number = |flag: Option<u64>, flag_name: &str, var: &str| -> Result<Option<u64>> {
        match (flag, env.get(var)) {
            (Some(v), _) => Ok(Some(v)),
            (None, Some(v)) => v.trim().parse().map(Some).map_err(|_| {
                Error::usage(format!(
                    "{var} `{v}` is not a number (as {flag_name} would be)"
                ))
            }),
            (None, None) => Ok(None),
        }
    };
    let app_id = number(args.app_id, "--app-id", "ARCCTL_APP_ID")?;
    let installation_id = number(
        args.installation_id,
        "--installation-id",
        "ARCCTL_INSTALLATION_ID",
    )?;
    let key = match &args.app_key {
        Some(p) => Some((p.clone(), "--app-key")),
        None => env
            .get("ARCCTL_APP_KEY_FILE")
            .map(|p| (PathBuf::from(p), "ARCCTL_APP_KEY_FILE")),
    };
    if app_id.is_none() && installation_id.is_none() && key.is_none() {
        return Ok(None);
    }
    let (Some(app_id), Some((key_path, key_flag))) = (app_id, key) else {
        return Err(
            Error::usage("GitHub App authentication needs both --app-id and --app-key").with_hint(
                "or set ARCCTL_APP_ID and ARCCTL_APP_KEY_FILE; --installation-id is optional",
            ),
        );
    };
    let key_source = format!("{key_flag} {}", key_path.display());
    let pem = std::fs::read_to_string(&key_path).map_err(|e| {
        Error::usage(format!("failed to read the GitHub App key ({key_source})")).with_source(e)
    })?;
    Ok(Some(AppCredentials {
        app_id,
        installation_id,
        private_key: SecretString::from(pem),
        key_source,
    }))
}

/// Resolves all GitHub settings.
pub fn resolve_github(args: &GitHubArgs, env: &Env) -> Result<GitHubSettings> {
    let scope = resolve_scope(args, env)?;
    let base_url = resolve_base_url(args, env)?;
    let group = args.group.clone().filter(|g| !g.trim().is_empty());
    if group.is_some() && !scope.has_groups() {
        return Err(Error::usage(
            "--group needs --org or --enterprise: repositories have no runner groups",
        ));
    }
    let credentials = match resolve_app(args, env)? {
        Some(app) => {
            if matches!(scope, Scope::Enterprise(_)) {
                return Err(
                    Error::usage("GitHub Apps cannot use the enterprise runner endpoints")
                        .with_hint(scope.token_requirements()),
                );
            }
            Credentials::App(app)
        }
        None => {
            let (token, source) = resolve_token(args, env)?;
            Credentials::Token { token, source }
        }
    };
    Ok(GitHubSettings {
        scope,
        base_url,
        credentials,
        group,
        ca_cert: args
            .ca_cert
            .clone()
            .or_else(|| env.get("ARCCTL_CA_CERT").map(PathBuf::from)),
        request_timeout: resolve_request_timeout(args)?,
    })
}

/// `--request-timeout`: applies to GitHub and Kubernetes requests alike; 0 would fail every
/// request, so it is refused.
pub fn resolve_request_timeout(args: &GitHubArgs) -> Result<Duration> {
    if args.request_timeout.is_zero() {
        return Err(Error::usage("--request-timeout must be longer than 0")
            .with_hint("give a duration such as `30s` (the default)"));
    }
    Ok(args.request_timeout)
}

/// Resolves the Kubernetes settings from flags and `ctx.env`.
pub fn resolve_kube(args: &KubeArgs, env: &Env) -> Result<KubeSettings> {
    let (kubeconfig, kubeconfig_source) = match &args.kubeconfig {
        Some(p) => (vec![p.clone()], "--kubeconfig"),
        None => match env.get("KUBECONFIG") {
            Some(list) => (
                std::env::split_paths(list)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect(),
                "KUBECONFIG",
            ),
            None => match env.get("HOME").map(|h| Path::new(h).join(".kube/config")) {
                Some(p) if p.is_file() => (vec![p], "~/.kube/config"),
                _ => (Vec::new(), "in-cluster"),
            },
        },
    };
    let namespaces = if args.all_namespaces {
        Namespaces::All
    } else if args.namespaces.is_empty() {
        Namespaces::ContextDefault
    } else {
        let mut seen = Vec::new();
        for ns in &args.namespaces {
            for ns in ns.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                if !seen.iter().any(|s: &String| s == ns) {
                    seen.push(ns.to_owned());
                }
            }
        }
        if seen.is_empty() {
            return Err(Error::usage("-n/--namespace needs a namespace name"));
        }
        Namespaces::Listed(seen)
    };
    Ok(KubeSettings {
        kubeconfig,
        kubeconfig_source,
        context: args.context.clone().filter(|c| !c.is_empty()),
        namespaces,
        in_cluster: InCluster {
            host: env.get("KUBERNETES_SERVICE_HOST").map(str::to_owned),
            port: env.get("KUBERNETES_SERVICE_PORT").map(str::to_owned),
            account_dir: PathBuf::from(SERVICE_ACCOUNT_DIR),
        },
        // `--request-timeout` lives with the GitHub flags; commands copy it over.
        request_timeout: DEFAULT_REQUEST_TIMEOUT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    fn gh() -> GitHubArgs {
        GitHubArgs {
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            ..GitHubArgs::default()
        }
    }

    fn kube() -> KubeArgs {
        KubeArgs {
            kubeconfig: None,
            context: None,
            namespaces: Vec::new(),
            all_namespaces: false,
        }
    }

    #[test]
    fn scope_from_each_flag_and_env() {
        let env = Env::default();
        let a = GitHubArgs {
            org: Some("acme".into()),
            ..gh()
        };
        assert_eq!(resolve_scope(&a, &env).unwrap(), Scope::Org("acme".into()));
        let a = GitHubArgs {
            repo: Some("acme/web".into()),
            ..gh()
        };
        assert_eq!(
            resolve_scope(&a, &env).unwrap(),
            Scope::Repo {
                owner: "acme".into(),
                repo: "web".into()
            }
        );
        let a = GitHubArgs {
            enterprise: Some("big".into()),
            ..gh()
        };
        assert_eq!(
            resolve_scope(&a, &env).unwrap(),
            Scope::Enterprise("big".into())
        );
        for (var, want) in [
            ("ARCCTL_ORG", Scope::Org("e".into())),
            ("ARCCTL_ENTERPRISE", Scope::Enterprise("e".into())),
        ] {
            assert_eq!(resolve_scope(&gh(), &Env::new([(var, "e")])).unwrap(), want);
        }
        assert_eq!(
            resolve_scope(&gh(), &Env::new([("ARCCTL_REPO", "o/r")])).unwrap(),
            Scope::Repo {
                owner: "o".into(),
                repo: "r".into()
            }
        );
    }

    #[test]
    fn a_flag_overrides_env_of_the_same_kind() {
        let env = Env::new([("ARCCTL_ORG", "from-env")]);
        let a = GitHubArgs {
            org: Some("from-flag".into()),
            ..gh()
        };
        assert_eq!(
            resolve_scope(&a, &env).unwrap(),
            Scope::Org("from-flag".into())
        );
    }

    #[test]
    fn two_kinds_are_a_usage_error() {
        let a = GitHubArgs {
            org: Some("a".into()),
            repo: Some("a/b".into()),
            ..gh()
        };
        let e = resolve_scope(&a, &Env::default()).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message().contains("--org and --repo"), "{}", e.message());
        let a = GitHubArgs {
            repo: Some("a/b".into()),
            ..gh()
        };
        let e = resolve_scope(&a, &Env::new([("ARCCTL_ORG", "x")])).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.message().contains("ARCCTL_ORG and --repo"),
            "{}",
            e.message()
        );
        let env = Env::new([("ARCCTL_ORG", "x"), ("ARCCTL_ENTERPRISE", "y")]);
        assert_eq!(resolve_scope(&gh(), &env).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn no_scope_and_bad_names_are_usage_errors() {
        assert_eq!(
            resolve_scope(&gh(), &Env::default())
                .unwrap_err()
                .exit_code(),
            2
        );
        for bad in ["acme", "acme/", "/web", "a/b/c"] {
            let a = GitHubArgs {
                repo: Some(bad.into()),
                ..gh()
            };
            assert_eq!(
                resolve_scope(&a, &Env::default()).unwrap_err().exit_code(),
                2,
                "{bad}"
            );
        }
        for bad in ["a/b", "..", "a b", "a?x"] {
            let a = GitHubArgs {
                org: Some(bad.into()),
                ..gh()
            };
            assert_eq!(
                resolve_scope(&a, &Env::default()).unwrap_err().exit_code(),
                2,
                "{bad}"
            );
        }
    }

    #[test]
    fn token_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tok");
        std::fs::write(&file, "from-file\n").unwrap();
        let a = GitHubArgs {
            token_file: Some(file.clone()),
            ..gh()
        };
        let both = Env::new([("GH_TOKEN", "gh"), ("GITHUB_TOKEN", "github")]);
        let (t, src) = resolve_token(&a, &both).unwrap();
        assert_eq!((t.expose_secret(), src.as_str()), ("gh", "GH_TOKEN"));
        let (t, _) = resolve_token(&a, &Env::new([("GITHUB_TOKEN", "github")])).unwrap();
        assert_eq!(t.expose_secret(), "github");
        let (t, src) = resolve_token(&a, &Env::default()).unwrap();
        assert_eq!(t.expose_secret(), "from-file");
        assert!(src.starts_with("--token-file"));
        // No token at all: authentication required.
        assert_eq!(
            resolve_token(&gh(), &Env::default())
                .unwrap_err()
                .exit_code(),
            4
        );
    }

    #[test]
    fn token_file_problems_never_echo_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tok");
        std::fs::write(&file, "secret-one secret-two").unwrap();
        let a = GitHubArgs {
            token_file: Some(file),
            ..gh()
        };
        let e = resolve_token(&a, &Env::default()).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(!format!("{e:?}").contains("secret-one"));
        let a = GitHubArgs {
            token_file: Some(dir.path().join("missing")),
            ..gh()
        };
        assert_eq!(
            resolve_token(&a, &Env::default()).unwrap_err().exit_code(),
            2
        );
    }

    #[test]
    fn secret_token_is_redacted_in_debug() {
        let env = Env::new([("GH_TOKEN", "ghp_supersecret"), ("ARCCTL_ORG", "a")]);
        let s = resolve_github(&gh(), &env).unwrap();
        assert!(!format!("{s:?}").contains("ghp_supersecret"));
        assert!(
            matches!(s.credentials, Credentials::Token { ref source, .. } if source == "GH_TOKEN")
        );
    }

    #[test]
    fn base_url_precedence_and_trailing_slash() {
        let env = Env::new([("GITHUB_API_URL", "http://127.0.0.1:9/api/v3")]);
        assert_eq!(
            resolve_base_url(&gh(), &env).unwrap().as_str(),
            "http://127.0.0.1:9/api/v3/"
        );
        let a = GitHubArgs {
            github_url: Some("https://ghe.example/api/v3/".into()),
            ..gh()
        };
        assert_eq!(
            resolve_base_url(&a, &env).unwrap().as_str(),
            "https://ghe.example/api/v3/"
        );
        assert_eq!(
            resolve_base_url(&gh(), &Env::default()).unwrap().as_str(),
            "https://api.github.com/"
        );
        for bad in ["not a url", "ftp://x/", "mailto:a@b"] {
            let a = GitHubArgs {
                github_url: Some(bad.into()),
                ..gh()
            };
            assert_eq!(
                resolve_base_url(&a, &env).unwrap_err().exit_code(),
                2,
                "{bad}"
            );
        }
    }

    #[test]
    fn group_needs_an_org_or_enterprise() {
        let env = Env::new([("GH_TOKEN", "t")]);
        let a = GitHubArgs {
            repo: Some("o/r".into()),
            group: Some("g".into()),
            ..gh()
        };
        assert_eq!(resolve_github(&a, &env).unwrap_err().exit_code(), 2);
        let a = GitHubArgs {
            org: Some("o".into()),
            group: Some("g".into()),
            ..gh()
        };
        assert_eq!(
            resolve_github(&a, &env).unwrap().group.as_deref(),
            Some("g")
        );
    }

    #[test]
    fn app_settings_win_over_tokens_and_need_id_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("app.pem");
        std::fs::write(&key, "-----BEGIN RSA PRIVATE KEY-----\n").unwrap();
        let env = Env::new([("GH_TOKEN", "t"), ("ARCCTL_ORG", "acme")]);
        let a = GitHubArgs {
            app_id: Some(12),
            app_key: Some(key.clone()),
            ..gh()
        };
        match resolve_github(&a, &env).unwrap().credentials {
            Credentials::App(app) => {
                assert_eq!(app.app_id, 12);
                assert_eq!(app.installation_id, None);
            }
            other => panic!("{other:?}"),
        }
        // From the environment, with an installation id.
        let env2 = Env::new([
            ("ARCCTL_ORG", "acme"),
            ("ARCCTL_APP_ID", "12"),
            ("ARCCTL_INSTALLATION_ID", "99"),
            ("ARCCTL_APP_KEY_FILE", key.to_str().unwrap()),
        ]);
        match resolve_github(&gh(), &env2).unwrap().credentials {
            Credentials::App(app) => assert_eq!(app.installation_id, Some(99)),
            other => panic!("{other:?}"),
        }
        // An id without a key, a bad number, a missing key file, an enterprise: usage errors.
        let a = GitHubArgs {
            app_id: Some(12),
            ..gh()
        };
        assert_eq!(resolve_github(&a, &env).unwrap_err().exit_code(), 2);
        let env3 = Env::new([("ARCCTL_ORG", "acme"), ("ARCCTL_APP_ID", "twelve")]);
        assert_eq!(resolve_github(&gh(), &env3).unwrap_err().exit_code(), 2);
        let a = GitHubArgs {
            app_id: Some(12),
            app_key: Some(dir.path().join("missing.pem")),
            ..gh()
        };
        assert_eq!(resolve_github(&a, &env).unwrap_err().exit_code(), 2);
        let a = GitHubArgs {
            app_id: Some(12),
            app_key: Some(key),
            enterprise: Some("e".into()),
            ..gh()
        };
        let env4 = Env::new([("GH_TOKEN", "t")]);
        assert_eq!(resolve_github(&a, &env4).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn kube_settings() {
        let env = Env::new([("KUBECONFIG", "/a:/b")]);
        let s = resolve_kube(&kube(), &env).unwrap();
        assert_eq!(s.kubeconfig, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(s.namespaces, Namespaces::ContextDefault);
        let a = KubeArgs {
            kubeconfig: Some("/c".into()),
            namespaces: vec!["x".into(), "y,x".into()],
            context: Some("ctx".into()),
            ..kube()
        };
        let s = resolve_kube(&a, &env).unwrap();
        assert_eq!(s.kubeconfig, vec![PathBuf::from("/c")]);
        assert_eq!(
            s.namespaces,
            Namespaces::Listed(vec!["x".into(), "y".into()])
        );
        assert_eq!(s.context.as_deref(), Some("ctx"));
        let a = KubeArgs {
            all_namespaces: true,
            ..kube()
        };
        assert_eq!(resolve_kube(&a, &env).unwrap().namespaces, Namespaces::All);
        // No KUBECONFIG and no ~/.kube/config: in-cluster.
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new([("HOME", dir.path().to_str().unwrap())]);
        assert!(resolve_kube(&kube(), &env).unwrap().kubeconfig.is_empty());
    }
}
