//! The one error type of arcctl: what went wrong, which exit code it means, and a hint; and
//! [`Failure`], the same as plain data for the pipelines to carry.
//!
//! Messages are lowercase fragments naming the thing (`failed to list runners for org `acme``),
//! followed by their chain of causes and an optional hint. Only `output` renders them.

use std::fmt;

/// The documented exit codes, and [`exit::TABLE`]: the one table `--help`, the man pages, the
/// README and docs/design.md §2.4 show (tests fail when a copy drifts from it).
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const INCOMPLETE: u8 = 3;
    pub const AUTH: u8 = 4;
    pub const INTERRUPTED: u8 = 130;

    /// Each code and what it means, in Markdown (flags in backticks).
    pub const TABLE: &[(u8, &str)] = &[
        (OK, "all selected runners handled, or nothing to do"),
        (FAILED, "an operation failed"),
        (
            USAGE,
            "usage error or bad input (also: a mutating command without `--yes` and no terminal)",
        ),
        (
            INCOMPLETE,
            "incomplete: busy runners skipped, runners held, `--timeout` reached, or a \
             replacement not ready within `--ready-timeout`",
        ),
        (
            AUTH,
            "authentication or permission denied (GitHub or Kubernetes)",
        ),
        (INTERRUPTED, "interrupted, or declined at the prompt"),
    ];

    /// The table as the README and docs/design.md write it.
    pub fn markdown() -> String {
        let mut out = String::from("| code | meaning |\n| --- | --- |\n");
        for (code, meaning) in TABLE {
            out.push_str(&format!("| {code} | {meaning} |\n"));
        }
        out
    }
}

/// What kind of failure this is; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An operation failed (network, server error, unexpected response).
    Failed,
    /// Bad flags, environment or input files.
    Usage,
    /// Authentication or permission denied by GitHub or Kubernetes.
    Auth,
    /// Interrupted, or declined at the prompt.
    Interrupted,
}

/// An error with a message, an optional cause chain and an optional hint.
#[derive(Debug)]
pub struct Error {
    kind: Kind,
    message: String,
    hint: Option<String>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            hint: None,
            source: None,
        }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Error::new(Kind::Failed, message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(Kind::Usage, message)
    }

    pub fn auth(message: impl Into<String>) -> Self {
        Error::new(Kind::Auth, message)
    }

    pub fn interrupted(message: impl Into<String>) -> Self {
        Error::new(Kind::Interrupted, message)
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// Wraps this error in a higher-level message, keeping kind and hint.
    #[must_use]
    pub fn context(self, message: impl Into<String>) -> Self {
        Error {
            kind: self.kind,
            message: message.into(),
            hint: self.hint.clone(),
            source: Some(Box::new(Inner {
                message: self.message,
                source: self.source,
            })),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::Failed => exit::FAILED,
            Kind::Usage => exit::USAGE,
            Kind::Auth => exit::AUTH,
            Kind::Interrupted => exit::INTERRUPTED,
        }
    }

    /// The cause chain below this error's own message, outermost first.
    pub fn causes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut next: Option<&(dyn std::error::Error + 'static)> = self
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static));
        while let Some(e) = next {
            let text = e.to_string();
            // reqwest and hyper repeat their source in their own message; keep the chain short.
            if out.last() != Some(&text) {
                out.push(text);
            }
            next = e.source();
        }
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// An [`Error`] as data: its kind, message, causes (outermost first) and hint, comparable and
/// cheap to clone, so the drain and recreate pipelines can carry it in their answers, events
/// and outcomes. `output` renders it, once; [`Error::from`] turns it back into an error for
/// the top-level render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    pub message: String,
    pub causes: Vec<String>,
    pub hint: Option<String>,
}

impl Failure {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hint: None,
        }
    }

    /// An operation that failed, without a cause below it.
    pub fn failed(message: impl Into<String>) -> Self {
        Failure::new(Kind::Failed, message)
    }

    /// Whether GitHub or Kubernetes denied permission (the run stops, exit 4).
    pub fn is_denied(&self) -> bool {
        self.kind == Kind::Auth
    }

    /// Wraps this failure in a higher-level message, keeping kind and hint (as
    /// [`Error::context`]).
    #[must_use]
    pub fn context(mut self, message: impl Into<String>) -> Self {
        let inner = std::mem::replace(&mut self.message, message.into());
        self.causes.insert(0, inner);
        self
    }
}

impl From<&Error> for Failure {
    fn from(e: &Error) -> Self {
        Failure {
            kind: e.kind,
            message: e.message.clone(),
            causes: e.causes(),
            hint: e.hint.clone(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::from(&e)
    }
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        let source = f.causes.into_iter().rev().fold(None, |source, message| {
            Some(Box::new(Inner { message, source }) as Box<dyn std::error::Error + Send + Sync>)
        });
        Error {
            kind: f.kind,
            message: f.message,
            hint: f.hint,
            source,
        }
    }
}

/// A wrapped inner error, kept so `context` preserves the chain.
#[derive(Debug)]
struct Inner {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Inner {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_kind() {
        assert_eq!(Error::failed("x").exit_code(), 1);
        assert_eq!(Error::usage("x").exit_code(), 2);
        assert_eq!(Error::auth("x").exit_code(), 4);
        assert_eq!(Error::interrupted("x").exit_code(), 130);
    }

    #[test]
    fn context_keeps_kind_hint_and_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let e = Error::auth("bad credentials")
            .with_source(io)
            .with_hint("check GH_TOKEN")
            .context("failed to list runners for org `acme`");
        assert_eq!(e.kind(), Kind::Auth);
        assert_eq!(e.hint(), Some("check GH_TOKEN"));
        assert_eq!(e.to_string(), "failed to list runners for org `acme`");
        assert_eq!(e.causes(), vec!["bad credentials", "connection refused"]);
    }

    #[test]
    fn a_failure_is_the_error_as_data_and_back() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "403 forbidden");
        let e = Error::auth("Kubernetes denied `patch` on `nodes`")
            .with_source(io)
            .with_hint("grant `patch` on nodes")
            .context("failed to cordon node `node-1`");
        let f = Failure::from(&e);
        assert_eq!(
            f,
            Failure {
                kind: Kind::Auth,
                message: "failed to cordon node `node-1`".into(),
                causes: vec![
                    "Kubernetes denied `patch` on `nodes`".into(),
                    "403 forbidden".into()
                ],
                hint: Some("grant `patch` on nodes".into()),
            }
        );
        assert!(f.is_denied());
        let back = Error::from(f.clone());
        assert_eq!(back.kind(), Kind::Auth);
        assert_eq!(back.exit_code(), exit::AUTH);
        assert_eq!(back.message(), f.message);
        assert_eq!(back.causes(), f.causes);
        assert_eq!(back.hint(), f.hint.as_deref());
    }

    #[test]
    fn failure_context_pushes_the_message_down() {
        let f = Failure::failed("timed out").context("failed to get pod `ns/p`");
        assert_eq!(f.message, "failed to get pod `ns/p`");
        assert_eq!(f.causes, vec!["timed out"]);
        assert_eq!(f.kind, Kind::Failed);
    }
}
