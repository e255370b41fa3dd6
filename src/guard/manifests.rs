//! `arcctl guard manifests`: the objects that install the guard in a cluster, rendered as one
//! multi-document YAML text (docs/design.md §8.1). Pure: settings and, for `--self-signed`,
//! the generated certificate in; text out.
//!
//! What the objects promise: the webhook sees `CREATE pods/eviction` only in the runner
//! namespaces (by `namespaceSelector`, never the guard's own), fails closed, answers within its
//! timeout; the guard's RBAC is exactly what the drain pipeline sends for one runner (§4.1:
//! read the pod and its log, read and delete its EphemeralRunner, annotate or delete a legacy
//! pod) in each runner namespace and nothing cluster-wide.

use secrecy::ExposeSecret;
use serde_json::{Value, json};

use crate::guard::certs::SelfSigned;

/// The name of every object (and of the one webhook's configuration).
pub const NAME: &str = "arcctl-guard";
/// The webhook's name inside its configuration.
pub const WEBHOOK: &str = "guard.arcctl.io";
/// The webhook's `timeoutSeconds`; the guard answers within [`ANSWER_WITHIN`] of it.
pub const TIMEOUT_SECONDS: u64 = 10;
/// `guard serve --answer-within`, under [`TIMEOUT_SECONDS`].
pub const ANSWER_WITHIN: &str = "8s";
/// The guard's HTTPS port in its pod (`guard serve --listen`'s default).
pub const PORT: u16 = 8443;
/// A namespace carrying this label with the value [`OPT_OUT_VALUE`] leaves the selector.
pub const OPT_OUT_LABEL: &str = "arcctl.io/guard";
pub const OPT_OUT_VALUE: &str = "off";
/// The label every namespace carries with its own name (set by the API server).
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";
/// The Secret with the serving certificate (`tls.crt`, `tls.key`, `ca.crt`).
pub const TLS_SECRET: &str = "arcctl-guard-tls";
const TLS_DIR: &str = "/etc/arcctl-guard/tls";
const APP_KEY_DIR: &str = "/var/run/secrets/github-app";

/// Which GitHub runners the guard drains (`--org`, `--repo` OWNER/REPO, `--enterprise`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Org(String),
    Repo(String),
    Enterprise(String),
}

/// How the guard authenticates to GitHub: Secret names, never values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// A GitHub App; `key_secret` holds `private-key.pem`.
    App {
        app_id: u64,
        installation_id: u64,
        key_secret: String,
    },
    /// A token in `secret` under the key `token`.
    Token { secret: String },
}

/// Where the serving certificate comes from.
#[derive(Debug)]
pub enum Tls {
    /// cert-manager's Issuer and Certificate; its cainjector fills `caBundle`.
    CertManager,
    /// Generated now (`--self-signed`).
    SelfSigned(SelfSigned),
}

/// What `arcctl guard manifests` renders.
#[derive(Debug)]
pub struct Settings {
    /// Where the guard runs.
    pub namespace: String,
    /// Whose evictions it reviews; never `namespace`.
    pub runner_namespaces: Vec<String>,
    pub image: String,
    pub scope: Scope,
    pub group: Option<String>,
    pub github_url: Option<String>,
    pub auth: Auth,
    pub tls: Tls,
}

/// The Service's DNS names, as the API server calls it and the certificate must name it.
pub fn dns_names(namespace: &str) -> Vec<String> {
    vec![
        format!("{NAME}.{namespace}.svc"),
        format!("{NAME}.{namespace}.svc.cluster.local"),
    ]
}

/// The rules of each runner namespace's Role: what the guard's drain sends (docs/deploy.md).
pub fn rules() -> Value {
    json!([
        // The pod under eviction, re-read before deleting it; a legacy pod's
        // unregistration-complete annotation, and its delete (uid precondition).
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete", "patch"]},
        // The runner container's log: the job it runs, the idle check.
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
        // Scale sets: the runner's job and id, and deleting it (never the bare pod).
        {"apiGroups": ["actions.github.com"], "resources": ["ephemeralrunners"], "verbs": ["get", "delete"]},
    ])
}

/// Every document, in the order `kubectl apply` needs them (the namespace first, the webhook
/// configuration last, once its Service exists).
pub fn documents(s: &Settings) -> Vec<Value> {
    let ns = s.namespace.as_str();
    let labels = json!({"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "arcctl"});
    let mut docs = vec![
        json!({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": ns, "labels": labels},
        }),
        json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": NAME, "namespace": ns, "labels": labels},
        }),
    ];
    for runner_ns in &s.runner_namespaces {
        docs.push(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": NAME, "namespace": runner_ns, "labels": labels},
            "rules": rules(),
        }));
        docs.push(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": NAME, "namespace": runner_ns, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": NAME},
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": ns}],
        }));
    }
    docs.extend(certificate(s, &labels));
    docs.push(deployment(s, &labels));
    docs.push(json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": NAME, "namespace": ns, "labels": labels},
        "spec": {
            "minAvailable": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": NAME}},
        },
    }));
    docs.push(json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": NAME, "namespace": ns, "labels": labels},
        "spec": {
            "selector": {"app.kubernetes.io/name": NAME},
            "ports": [{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}],
        },
    }));
    docs.push(webhook_configuration(s, &labels));
    docs
}

/// The documents as one YAML text (`---` between documents).
pub fn render(s: &Settings) -> String {
    let mut out = String::new();
    for doc in documents(s) {
        out.push_str("---\n");
        // A `Value` of strings, numbers, lists and maps always serializes.
        out.push_str(&serde_yaml::to_string(&doc).unwrap_or_default());
    }
    out
}

fn certificate(s: &Settings, labels: &Value) -> Vec<Value> {
    let ns = s.namespace.as_str();
    match &s.tls {
        Tls::CertManager => vec![
            json!({
                "apiVersion": "cert-manager.io/v1", "kind": "Issuer",
                "metadata": {"name": NAME, "namespace": ns, "labels": labels},
                "spec": {"selfSigned": {}},
            }),
            json!({
                "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                "metadata": {"name": NAME, "namespace": ns, "labels": labels},
                "spec": {
                    "secretName": TLS_SECRET,
                    "dnsNames": dns_names(ns),
                    "issuerRef": {"name": NAME, "kind": "Issuer", "group": "cert-manager.io"},
                    "privateKey": {"algorithm": "ECDSA", "size": 256, "rotationPolicy": "Always"},
                },
            }),
        ],
        Tls::SelfSigned(c) => {
            use base64::Engine;
            let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
            vec![json!({
                "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": TLS_SECRET, "namespace": ns, "labels": labels},
                "data": {
                    "tls.crt": b64(&c.cert_pem),
                    "tls.key": b64(c.key_pem.expose_secret()),
                    "ca.crt": b64(&c.ca_pem),
                },
            })]
        }
    }
}

fn deployment(s: &Settings, labels: &Value) -> Value {
    let mut args = vec![
        "guard".to_owned(),
        "serve".to_owned(),
        "--listen".to_owned(),
        format!("0.0.0.0:{PORT}"),
        "--tls-cert".to_owned(),
        format!("{TLS_DIR}/tls.crt"),
        "--tls-key".to_owned(),
        format!("{TLS_DIR}/tls.key"),
        "--answer-within".to_owned(),
        ANSWER_WITHIN.to_owned(),
    ];
    for n in &s.runner_namespaces {
        args.push("-n".to_owned());
        args.push(n.clone());
    }
    if let Some(g) = &s.group {
        args.push("--group".to_owned());
        args.push(g.clone());
    }
    let mut env = vec![match &s.scope {
        Scope::Org(o) => json!({"name": "ARCCTL_ORG", "value": o}),
        Scope::Repo(r) => json!({"name": "ARCCTL_REPO", "value": r}),
        Scope::Enterprise(e) => json!({"name": "ARCCTL_ENTERPRISE", "value": e}),
    }];
    if let Some(url) = &s.github_url {
        env.push(json!({"name": "GITHUB_API_URL", "value": url}));
    }
    let mut mounts = vec![json!({"name": "tls", "mountPath": TLS_DIR, "readOnly": true})];
    let mut volumes = vec![json!({
        "name": "tls",
        "secret": {"secretName": TLS_SECRET, "defaultMode": 0o440},
    })];
    match &s.auth {
        Auth::App {
            app_id,
            installation_id,
            key_secret,
        } => {
            env.push(json!({"name": "ARCCTL_APP_ID", "value": app_id.to_string()}));
            env.push(
                json!({"name": "ARCCTL_INSTALLATION_ID", "value": installation_id.to_string()}),
            );
            env.push(json!({
                "name": "ARCCTL_APP_KEY_FILE",
                "value": format!("{APP_KEY_DIR}/private-key.pem"),
            }));
            mounts.push(json!({"name": "github-app", "mountPath": APP_KEY_DIR, "readOnly": true}));
            volumes.push(json!({
                "name": "github-app",
                "secret": {"secretName": key_secret, "defaultMode": 0o440},
            }));
        }
        Auth::Token { secret } => env.push(json!({
            "name": "GH_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": secret, "key": "token"}},
        })),
    }
    let selector = json!({"matchLabels": {"app.kubernetes.io/name": NAME}});
    let probe = |path: &str| {
        json!({
            "httpGet": {"path": path, "port": "https", "scheme": "HTTPS"},
            "periodSeconds": 10,
            "timeoutSeconds": 2,
            "failureThreshold": 3,
        })
    };
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": s.namespace, "labels": labels},
        "spec": {
            "replicas": 2,
            "selector": selector,
            // One guard at a time goes during a rollout; the PDB keeps one through drains.
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": NAME,
                    // Drains in flight stop at a safe point on SIGTERM (docs/design.md §4.4).
                    "terminationGracePeriodSeconds": 30,
                    "securityContext": {
                        "runAsNonRoot": true,
                        "runAsUser": 65532,
                        "runAsGroup": 65532,
                        // Makes the mounted Secrets (0440) readable by the non-root user.
                        "fsGroup": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    // Two nodes, so that draining one leaves a guard answering.
                    "affinity": {"podAntiAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [{
                            "weight": 100,
                            "podAffinityTerm": {
                                "topologyKey": "kubernetes.io/hostname",
                                "labelSelector": selector,
                            },
                        }],
                    }},
                    "topologySpreadConstraints": [{
                        "maxSkew": 1,
                        "topologyKey": "kubernetes.io/hostname",
                        "whenUnsatisfiable": "ScheduleAnyway",
                        "labelSelector": selector,
                    }],
                    "containers": [{
                        "name": "guard",
                        "image": s.image,
                        "args": args,
                        "env": env,
                        "ports": [{"name": "https", "containerPort": PORT, "protocol": "TCP"}],
                        "readinessProbe": probe("/readyz"),
                        "livenessProbe": probe("/livez"),
                        "resources": {
                            "requests": {"cpu": "50m", "memory": "64Mi"},
                            "limits": {"memory": "256Mi"},
                        },
                        "securityContext": {
                            "allowPrivilegeEscalation": false,
                            "readOnlyRootFilesystem": true,
                            "capabilities": {"drop": ["ALL"]},
                        },
                        "volumeMounts": mounts,
                    }],
                    "volumes": volumes,
                },
            },
        },
    })
}

fn webhook_configuration(s: &Settings, labels: &Value) -> Value {
    let ns = s.namespace.as_str();
    let mut client =
        json!({"service": {"name": NAME, "namespace": ns, "path": "/validate", "port": 443}});
    let mut metadata = json!({"name": NAME, "labels": labels});
    match &s.tls {
        Tls::CertManager => {
            metadata["annotations"] =
                json!({"cert-manager.io/inject-ca-from": format!("{ns}/{NAME}")});
        }
        Tls::SelfSigned(c) => {
            use base64::Engine;
            client["caBundle"] = json!(base64::engine::general_purpose::STANDARD.encode(&c.ca_pem));
        }
    }
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": metadata,
        "webhooks": [webhook(client, &s.runner_namespaces)],
    })
}

/// The one webhook of the configuration, for a guard reached at `client_config` (a Service
/// here, a URL in `arcctl sandbox --guard`).
pub fn webhook(client_config: Value, runner_namespaces: &[String]) -> Value {
    json!({
        "name": WEBHOOK,
        "clientConfig": client_config,
        "rules": [{
            "operations": ["CREATE"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods/eviction"],
            "scope": "Namespaced",
        }],
        // objectSelector would see the Eviction, not the pod: select the namespaces. The
        // guard's own namespace is never among them.
        "namespaceSelector": namespace_selector(runner_namespaces),
        // A guard that is down makes runner evictions wait; it never lets them through.
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "sideEffects": "NoneOnDryRun",
        "admissionReviewVersions": ["v1"],
        "timeoutSeconds": TIMEOUT_SECONDS,
    })
}

/// The runner namespaces, minus any labelled `arcctl.io/guard=off` (the emergency opt-out).
pub fn namespace_selector(runner_namespaces: &[String]) -> Value {
    json!({"matchExpressions": [
        {"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": runner_namespaces},
        {"key": OPT_OUT_LABEL, "operator": "NotIn", "values": [OPT_OUT_VALUE]},
    ]})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(tls: Tls) -> Settings {
        Settings {
            namespace: "g".into(),
            runner_namespaces: vec!["a".into(), "b".into()],
            image: "img".into(),
            scope: Scope::Org("acme".into()),
            group: None,
            github_url: None,
            auth: Auth::Token { secret: "t".into() },
            tls,
        }
    }

    #[test]
    fn each_runner_namespace_gets_a_role_and_a_binding_and_the_guard_none() {
        let docs = documents(&settings(Tls::CertManager));
        let roles: Vec<&str> = docs
            .iter()
            .filter(|d| d["kind"] == "Role" || d["kind"] == "RoleBinding")
            .map(|d| d["metadata"]["namespace"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["a", "a", "b", "b"]);
        assert!(!docs.iter().any(|d| d["kind"] == "ClusterRole"));
        let webhook = docs.last().unwrap();
        assert_eq!(
            webhook["webhooks"][0]["namespaceSelector"]["matchExpressions"][0]["values"],
            json!(["a", "b"])
        );
    }

    #[test]
    fn every_document_starts_with_a_separator() {
        let text = render(&settings(Tls::CertManager));
        assert_eq!(
            text.matches("---\n").count(),
            documents(&settings(Tls::CertManager)).len()
        );
    }
}
