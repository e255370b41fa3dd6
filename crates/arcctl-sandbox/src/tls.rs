//! `arcctl sandbox --tls`: HTTPS for the fake APIs, as GitHub Enterprise Server behind a
//! private CA would serve it.
//!
//! A fresh CA and a server certificate for `127.0.0.1` and `localhost` are generated (rcgen,
//! ring) at every start; only the CA certificate is written (`ca.pem` in the sandbox's
//! directory), so a client trusts the server only when it is given that file (`--ca-cert`).
//! The server side is tokio-rustls with the process's ring provider and hyper's HTTP/1.1.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;

use crate::error::{Error, Result};

/// The file name of the CA certificate in the sandbox's directory.
pub const CA_FILE: &str = "ca.pem";

fn failed(what: &'static str) -> impl FnOnce(rcgen::Error) -> Error {
    move |source| Error::Certificate { what, source }
}

/// Generates a CA and a server certificate for 127.0.0.1, writes the CA's PEM into `dir`, and
/// returns the TLS acceptor and the CA file's path.
pub fn acceptor(dir: &Path) -> Result<(TlsAcceptor, PathBuf)> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(failed("CA"))?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "arcctl sandbox CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().map_err(failed("CA key"))?;
    let ca = CertifiedIssuer::self_signed(ca_params, ca_key).map_err(failed("CA"))?;

    let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
        .map_err(failed("server certificate"))?;
    params
        .distinguished_name
        .push(DnType::CommonName, "arcctl sandbox");
    let key = KeyPair::generate().map_err(failed("server key"))?;
    let cert = params
        .signed_by(&key, &ca)
        .map_err(failed("server certificate"))?;

    let ca_path = dir.join(CA_FILE);
    if let Err(source) = std::fs::write(&ca_path, ca.pem()) {
        return Err(Error::WriteCa {
            path: ca_path,
            source,
        });
    }

    let chain = vec![cert.der().clone(), CertificateDer::from(ca.der().to_vec())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(Error::TlsServer)?;
    Ok((TlsAcceptor::from(Arc::new(config)), ca_path))
}

/// Serves `router` over TLS on `listener` until aborted. A failed handshake ends only that
/// connection (a client that does not trust the CA hangs up).
pub fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    acceptor: TlsAcceptor,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let service = TowerToHyperService::new(router.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    })
}
