//! `arcctl guard manifests --self-signed`: a CA of the guard's own and a serving certificate
//! for its Service's DNS names (rcgen, ring), generated at every run.
//!
//! The private keys live only in the returned [`SelfSigned`]: the serving key as a
//! [`SecretString`] that goes nowhere but the manifests' `kubernetes.io/tls` Secret, and the
//! CA's key is dropped here (rotating means generating anew), so no key reaches a log or an error.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use secrecy::SecretString;

use crate::error::{Error, Result};

/// How long the CA and the serving certificate are valid, in years.
pub const VALID_YEARS: i16 = 10;

/// A generated CA and serving certificate (PEM).
pub struct SelfSigned {
    /// The CA certificate: the webhook's `caBundle` and the Secret's `ca.crt`.
    pub ca_pem: String,
    /// The serving certificate for the Service's DNS names, signed by the CA.
    pub cert_pem: String,
    /// The serving certificate's private key (PKCS#8).
    pub key_pem: SecretString,
}

impl std::fmt::Debug for SelfSigned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelfSigned")
            .field("ca_pem", &self.ca_pem)
            .field("cert_pem", &self.cert_pem)
            .field("key_pem", &"[redacted]")
            .finish()
    }
}

fn failed(what: &'static str) -> impl FnOnce(rcgen::Error) -> Error {
    // rcgen's errors describe parameters, never key material.
    move |e| Error::failed(format!("failed to generate the guard's {what}")).with_source(e)
}

/// A CA and a certificate for `dns_names` signed by it, valid from yesterday (clock skew) for
/// [`VALID_YEARS`] years.
pub fn generate(dns_names: &[String], today: jiff::civil::Date) -> Result<SelfSigned> {
    let from = today.yesterday().unwrap_or(today);
    let until = from.saturating_add(jiff::Span::new().years(VALID_YEARS));
    let date = |d: jiff::civil::Date| {
        rcgen::date_time_ymd(
            i32::from(d.year()),
            d.month().unsigned_abs(),
            d.day().unsigned_abs(),
        )
    };

    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(failed("CA"))?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "arcctl guard CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = date(from);
    ca_params.not_after = date(until);
    let ca_key = KeyPair::generate().map_err(failed("CA key"))?;
    let ca = CertifiedIssuer::self_signed(ca_params, ca_key).map_err(failed("CA"))?;

    let mut params =
        CertificateParams::new(dns_names.to_vec()).map_err(failed("serving certificate"))?;
    if let Some(first) = dns_names.first() {
        params
            .distinguished_name
            .push(DnType::CommonName, first.as_str());
    }
    params.is_ca = IsCa::ExplicitNoCa;
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.not_before = date(from);
    params.not_after = date(until);
    let key = KeyPair::generate().map_err(failed("serving key"))?;
    let cert = params
        .signed_by(&key, &ca)
        .map_err(failed("serving certificate"))?;
    Ok(SelfSigned {
        ca_pem: ca.pem(),
        cert_pem: cert.pem(),
        key_pem: SecretString::from(key.serialize_pem()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_never_in_debug_output() {
        let s = generate(&["guard.ns.svc".to_owned()], jiff::civil::date(2026, 12, 2)).unwrap();
        let shown = format!("{s:?}");
        assert!(shown.contains("[redacted]"));
        assert!(!shown.contains("PRIVATE KEY"));
        assert!(secrecy::ExposeSecret::expose_secret(&s.key_pem).contains("PRIVATE KEY"));
        assert!(s.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_ne!(s.ca_pem, s.cert_pem);
    }
}
