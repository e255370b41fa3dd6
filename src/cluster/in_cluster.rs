//! The in-cluster configuration: the API server from `KUBERNETES_SERVICE_HOST` and
//! `KUBERNETES_SERVICE_PORT`, the CA, token and namespace from the mounted service account, as
//! client-go and kube-rs's `Config::incluster` do.
//!
//! arcctl builds it itself rather than calling `kube::Config::incluster()` because that one
//! reads the process environment and a fixed directory: here both come from the settings
//! (`ctx.env`), so tests point it at the sandbox. The token file is handed to kube-rs by path,
//! which re-reads it as the kubelet rotates it; its content is never read here.

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::cluster::settings::InCluster;
use crate::error::{Error, Result};

fn not_in_cluster(why: String) -> Error {
    Error::usage(format!(
        "no kubeconfig found and not running inside a cluster ({why})"
    ))
    .with_hint("set KUBECONFIG or pass --kubeconfig PATH")
}

/// The kube-rs config of the pod's service account.
pub(crate) fn config(ic: &InCluster) -> Result<kube::Config> {
    let (Some(host), Some(port)) = (&ic.host, &ic.port) else {
        return Err(not_in_cluster(
            "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set".to_owned(),
        ));
    };
    let port: u16 = port
        .trim()
        .parse()
        .map_err(|_| Error::usage(format!("KUBERNETES_SERVICE_PORT `{port}` is not a port")))?;
    let host = host.trim();
    let authority = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let url: http::Uri = format!("https://{authority}").parse().map_err(|e| {
        Error::usage(format!(
            "KUBERNETES_SERVICE_HOST `{host}` is not a host name"
        ))
        .with_source(e)
    })?;

    let dir = &ic.account_dir;
    let token = dir.join("token");
    if !token.is_file() {
        return Err(not_in_cluster(format!(
            "no service account token at {}",
            token.display()
        )));
    }
    let ca = dir.join("ca.crt");
    let roots = CertificateDer::pem_file_iter(&ca)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| {
            Error::usage(format!(
                "failed to read the service account's CA `{}`",
                ca.display()
            ))
            .with_source(e)
        })?;
    if roots.is_empty() {
        return Err(Error::usage(format!(
            "the service account's CA `{}` holds no certificate",
            ca.display()
        )));
    }
    let namespace = std::fs::read_to_string(dir.join("namespace"))
        .ok()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_owned());

    let mut config = kube::Config::new(url);
    config.default_namespace = namespace;
    config.root_cert = Some(roots.into_iter().map(|c| c.to_vec()).collect());
    config.auth_info.token_file = Some(token.to_string_lossy().into_owned());
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ic(dir: &std::path::Path, host: &str, port: &str) -> InCluster {
        InCluster {
            host: Some(host.to_owned()),
            port: Some(port.to_owned()),
            account_dir: dir.to_owned(),
        }
    }

    #[test]
    fn refusals_name_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let none = InCluster {
            host: None,
            port: None,
            account_dir: dir.path().to_owned(),
        };
        let e = config(&none).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message().contains("KUBERNETES_SERVICE_HOST"));
        assert!(
            config(&ic(dir.path(), "10.0.0.1", "x"))
                .unwrap_err()
                .message()
                .contains("not a port")
        );
        let e = config(&ic(dir.path(), "10.0.0.1", "443")).unwrap_err();
        assert!(e.message().contains("token"), "{}", e.message());
        std::fs::write(dir.path().join("token"), "t").unwrap();
        let e = config(&ic(dir.path(), "10.0.0.1", "443")).unwrap_err();
        assert!(e.message().contains("ca.crt"), "{}", e.message());
    }
}
