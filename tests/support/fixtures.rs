//! The files under `tests/fixtures/`, and what tests make from them: the sandbox App's key pair
//! and JWTs signed with its private key.

use std::path::PathBuf;

use serde_json::Value;

/// The private key of the sandbox's test GitHub App (PEM).
pub const PRIVATE_KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/sandbox-app-test-key.pem"
);

/// Its public key, as `arcctl sandbox --app-public-key` takes it.
pub const PUBLIC_KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/sandbox-app-test-key.pub.pem"
);

/// The path of `tests/fixtures/NAME`.
pub fn fixture(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A JWT with these claims, signed RS256 with the App's private key, as an App presents it.
pub fn app_jwt(claims: &Value) -> String {
    let pem = std::fs::read(PRIVATE_KEY).expect("test App key");
    let key = jsonwebtoken::EncodingKey::from_rsa_pem(&pem).expect("RSA key");
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256),
        claims,
        &key,
    )
    .expect("sign")
}
