//! A small validating admission webhook for the tests: HTTPS on 127.0.0.1 behind a CA of its
//! own (the sandbox's `tls` module makes both), answering AdmissionReviews as told and keeping
//! every review it was sent.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use base64::Engine;
use serde_json::{Value, json};

use arcctl::sandbox::tls;

/// How the webhook answers.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Allows every eviction.
    Allow,
    /// Denies the first `n` reviews with `code` and `message`, then allows.
    DenyFirst {
        n: usize,
        code: u16,
        message: String,
    },
    /// Denies every review with this `status` (no `code` in it: the API server's default).
    DenyAll { status: Value },
}

struct Shared {
    answer: Answer,
    reviews: Vec<Value>,
}

/// A running webhook; stops when dropped.
pub struct Webhook {
    /// `https://127.0.0.1:PORT/validate`
    pub url: String,
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    /// The base64 PEM of its CA, for `clientConfig.caBundle`.
    pub ca_bundle: String,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn review(State(shared): State<Arc<Mutex<Shared>>>, body: String) -> axum::Json<Value> {
    let review: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let uid = review["request"]["uid"].clone();
    let mut s = shared.lock().unwrap();
    s.reviews.push(review);
    let seen = s.reviews.len();
    let (allowed, status) = match &s.answer {
        Answer::Allow => (true, Value::Null),
        Answer::DenyFirst { n, code, message } if seen <= *n => {
            (false, json!({"code": code, "message": message}))
        }
        Answer::DenyFirst { .. } => (true, Value::Null),
        Answer::DenyAll { status } => (false, status.clone()),
    };
    let mut response = json!({"uid": uid, "allowed": allowed});
    if !status.is_null() {
        response["status"] = status;
    }
    axum::Json(json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": response,
    }))
}

impl Webhook {
    pub async fn start(answer: Answer) -> Webhook {
        crate::support::install_tls();
        let dir = tempfile::tempdir().expect("temp dir");
        let (acceptor, ca) = tls::acceptor(dir.path()).expect("a CA and a certificate");
        let pem = std::fs::read(ca).expect("the CA file");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(Shared {
            answer,
            reviews: Vec::new(),
        }));
        let router = axum::Router::new()
            .route("/validate", post(review))
            .with_state(shared.clone());
        Webhook {
            url: format!("https://{addr}/validate"),
            addr,
            ca_bundle: base64::engine::general_purpose::STANDARD.encode(pem),
            shared,
            task: tls::serve(listener, router, acceptor),
            _dir: dir,
        }
    }

    /// The AdmissionReviews sent so far.
    pub fn reviews(&self) -> Vec<Value> {
        self.shared.lock().unwrap().reviews.clone()
    }
}

/// A webhook entry on `CREATE pods/eviction` calling `url`, with `extra` merged over it.
pub fn hook(name: &str, url: &str, ca_bundle: &str, extra: Value) -> Value {
    let mut hook = json!({
        "name": name,
        "clientConfig": {"url": url, "caBundle": ca_bundle},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                   "resources": ["pods/eviction"], "scope": "Namespaced"}],
        "failurePolicy": "Fail",
        "sideEffects": "NoneOnDryRun",
        "admissionReviewVersions": ["v1"],
        "timeoutSeconds": 5,
    });
    arcctl::sandbox::store::merge(&mut hook, &extra);
    hook
}

/// A ValidatingWebhookConfiguration named `name` holding `hooks`.
pub fn configuration(name: &str, hooks: Vec<Value>) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": hooks,
    })
}
