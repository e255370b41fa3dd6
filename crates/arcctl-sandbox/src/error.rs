//! What the sandbox's public API returns when a sandbox cannot start: each variant names what
//! failed and keeps its cause as the `source`.
//!
//! Messages are lowercase fragments (`failed to bind the sandbox's GitHub API on 127.0.0.1`),
//! as the CLI's own errors are; the CLI turns these into its error type, which decides the exit
//! code and renders the cause chain.

use std::path::PathBuf;

/// Why a sandbox could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A listener for one of the fake APIs could not be opened on 127.0.0.1.
    #[error("failed to bind the sandbox's {what} on 127.0.0.1")]
    Bind {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// The sandbox's private directory (kubeconfig, CA) could not be created under `base`.
    #[error("failed to create a directory for the sandbox's kubeconfig in `{}`", base.display())]
    TempDir {
        base: PathBuf,
        #[source]
        source: Option<std::io::Error>,
    },
    /// The kubeconfig could not be rendered as YAML.
    #[error("failed to render the sandbox's kubeconfig")]
    RenderKubeconfig(#[source] serde_yaml::Error),
    /// The kubeconfig could not be written.
    #[error("failed to write the sandbox's kubeconfig `{}`", path.display())]
    WriteKubeconfig {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--tls`: a key or certificate could not be generated.
    #[error("failed to generate the sandbox's {what}")]
    Certificate {
        what: &'static str,
        #[source]
        source: rcgen::Error,
    },
    /// `--tls`: the CA certificate could not be written.
    #[error("failed to write the sandbox's CA to `{}`", path.display())]
    WriteCa {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--tls`: rustls refused the generated certificate chain.
    #[error("failed to set up the sandbox's TLS server")]
    TlsServer(#[source] rustls::Error),
    /// `--rbac FILE` could not be read (bad input, not a failure of the sandbox).
    #[error("failed to read the RBAC file `{}`", path.display())]
    ReadRbac {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `--rbac FILE` is not Kubernetes YAML (bad input, not a failure of the sandbox).
    #[error("the RBAC file `{}` is not Kubernetes YAML", path.display())]
    ParseRbac {
        path: PathBuf,
        #[source]
        source: serde_yaml::Error,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn messages_name_the_thing_and_keep_the_cause() {
        let e = Error::ReadRbac {
            path: "/etc/rbac.yaml".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(
            e.to_string(),
            "failed to read the RBAC file `/etc/rbac.yaml`"
        );
        assert_eq!(
            e.source().map(ToString::to_string),
            Some(std::io::Error::from(std::io::ErrorKind::NotFound).to_string())
        );
        let e = Error::TempDir {
            base: "/tmp".into(),
            source: None,
        };
        assert!(e.source().is_none());
    }
}
