//! The API server's HTTPS client for admission webhooks: one POST of a JSON body over
//! HTTP/1.1 and rustls, the server verified against the webhook's `caBundle` only (an empty
//! bundle trusts nothing: the sandbox has no system roots to fall back on), within the
//! webhook's timeout.
//!
//! Errors read as Go's `net/http` and `crypto/x509` put them after `Post "URL": `, since the
//! API server quotes them in its `failed calling webhook` message.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;

/// The largest answer read from a webhook.
const MAX_ANSWER: usize = 3 * 1024 * 1024;

/// Where one call goes.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The URL as the API server names it in errors (with its `?timeout=`).
    pub url: String,
    /// The host the certificate must be valid for, and the `Host` header.
    pub host: String,
    pub port: u16,
    /// Where to connect instead of resolving `host` (a service resolved in the sandbox).
    pub addr: Option<SocketAddr>,
    pub path_and_query: String,
}

fn root_store(ca_pem: &[u8]) -> rustls::RootCertStore {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem).flatten() {
        // A certificate rustls cannot use is skipped, as Go skips unparseable PEM blocks.
        let _ = roots.add(cert);
    }
    roots
}

/// Go's wording for a certificate the client refused.
fn tls_error(e: &std::io::Error, host: &str) -> String {
    use rustls::CertificateError;
    let rustls_error = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    match rustls_error {
        Some(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) => {
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                .to_owned()
        }
        Some(rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        )) => {
            format!("tls: failed to verify certificate: x509: certificate is not valid for {host}")
        }
        Some(rustls::Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. },
        )) => {
            "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
                .to_owned()
        }
        Some(other) => format!("tls: {other}"),
        None => format!("tls: {e}"),
    }
}

async fn exchange(target: &Target, ca_pem: &[u8], body: Vec<u8>) -> Result<Vec<u8>, String> {
    let tcp = match target.addr {
        Some(addr) => TcpStream::connect(addr).await,
        None => TcpStream::connect((target.host.as_str(), target.port)).await,
    }
    .map_err(|e| {
        let to = target.addr.map_or_else(
            || format!("{}:{}", target.host, target.port),
            |a| a.to_string(),
        );
        let why = match e.kind() {
            std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_owned(),
            _ => e.to_string(),
        };
        format!("dial tcp {to}: {why}")
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls: {e}"))?
        .with_root_certificates(root_store(ca_pem))
        .with_no_client_auth();
    let name = ServerName::try_from(target.host.clone())
        .map_err(|e| format!("tls: invalid server name {:?}: {e}", target.host))?;
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| tls_error(&e, &target.host))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let host = if target.port == 443 {
        target.host.clone()
    } else {
        format!("{}:{}", target.host, target.port)
    };
    let request = axum::http::Request::post(&target.path_and_query)
        .header(HOST, host)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, */*")
        .body(Body::from(body))
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("{e}"))?;
    let status = response.status();
    let answer = axum::body::to_bytes(Body::new(response.into_body()), MAX_ANSWER)
        .await
        .map_err(|e| format!("reading the answer: {e}"))?;
    if !status.is_success() {
        return Err(format!(
            "the server responded with the status code {} but did not return more information",
            status.as_u16()
        ));
    }
    Ok(answer.to_vec())
}

/// POSTs `body` to `target` and returns the answer's body, or the reason the call failed, as
/// the API server quotes it (`Post "URL": …`, `Post "URL": context deadline exceeded`).
pub(crate) async fn post(
    target: &Target,
    ca_pem: &[u8],
    body: Vec<u8>,
    timeout: Duration,
) -> Result<Vec<u8>, String> {
    let url = &target.url;
    match tokio::time::timeout(timeout, exchange(target, ca_pem, body)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(why)) => Err(format!("Post {url:?}: {why}")),
        Err(_) => Err(format!("Post {url:?}: context deadline exceeded")),
    }
}
