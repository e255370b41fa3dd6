//! `arcctl guard manifests`: every document parses as its Kubernetes type and says what
//! docs/design.md §8.1 promises; the `--self-signed` caBundle verifies the serving certificate
//! in a real TLS handshake; the emitted RBAC, loaded into the sandbox, lets the guard drain
//! through an eviction storm with no 403, and without one of its rules the guard is denied.

use std::time::Duration;

use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret, Service, ServiceAccount};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Deserialize;
use serde_json::{Value, json};

use arcctl::context::Env;
use arcctl::sandbox::Sandbox;

use crate::support::run::Invocation;
use crate::support::{NS, count, pods_on, sandbox};

const APP: &str = "--image registry.example.com/arcctl:0.1.0 --org acme --app-id 123456 --installation-id 7890123 --app-key-secret arcctl-github-app";

/// `arcctl guard manifests ARGS`, with an empty environment: stdout, stderr, exit code.
async fn manifests(args: &str) -> (String, String, u8) {
    let mut argv = vec!["guard".to_owned(), "manifests".to_owned()];
    argv.extend(args.split_whitespace().map(str::to_owned));
    let run = Invocation::with_env(Env::new(Vec::<(String, String)>::new()))
        .run(argv)
        .await;
    (run.stdout, run.stderr, run.code)
}

/// The YAML documents, as JSON values (kind and all).
fn documents(yaml: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(yaml)
        .map(|d| {
            let v = serde_yaml::Value::deserialize(d).expect("a YAML document");
            serde_json::to_value(v).expect("JSON-compatible YAML")
        })
        .collect()
}

fn the<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

fn one<T: serde::de::DeserializeOwned>(docs: &[Value], kind: &str) -> T {
    let found = the(docs, kind);
    assert_eq!(found.len(), 1, "one {kind}: {found:?}");
    serde_json::from_value(found[0].clone()).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

#[tokio::test]
async fn every_document_parses_as_its_kubernetes_type_and_keeps_the_contract() {
    let (yaml, stderr, code) = manifests(&format!(
        "{APP} --namespace guard-system --runner-namespace arc-runners --runner-namespace arc-gpu"
    ))
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
    let docs = documents(&yaml);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "ServiceAccount",
            "Role",
            "RoleBinding",
            "Role",
            "RoleBinding",
            "Issuer",
            "Certificate",
            "Deployment",
            "PodDisruptionBudget",
            "Service",
            "ValidatingWebhookConfiguration"
        ]
    );

    let ns: Namespace = one(&docs, "Namespace");
    assert_eq!(ns.metadata.name.as_deref(), Some("guard-system"));
    let sa: ServiceAccount = one(&docs, "ServiceAccount");
    assert_eq!(sa.metadata.namespace.as_deref(), Some("guard-system"));

    // RBAC: a Role per runner namespace, bound to the guard's ServiceAccount, nothing
    // cluster-wide and nothing the drain does not send.
    let roles: Vec<Role> = the(&docs, "Role")
        .into_iter()
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .collect();
    let mut granted = Vec::new();
    for role in &roles {
        for rule in role.rules.as_deref().unwrap_or_default() {
            for resource in rule.resources.as_deref().unwrap_or_default() {
                for verb in &rule.verbs {
                    granted.push(format!(
                        "{}:{}/{resource}:{verb}",
                        role.metadata.namespace.as_deref().unwrap(),
                        rule.api_groups.as_deref().unwrap_or_default().join(",")
                    ));
                }
            }
        }
    }
    let mut expected = Vec::new();
    for ns in ["arc-runners", "arc-gpu"] {
        for g in [
            "/pods:get",
            "/pods:delete",
            "/pods:patch",
            "/pods/log:get",
            "actions.github.com/ephemeralrunners:get",
            "actions.github.com/ephemeralrunners:delete",
        ] {
            expected.push(format!("{ns}:{g}"));
        }
    }
    assert_eq!(granted, expected);
    for d in the(&docs, "RoleBinding") {
        let b: RoleBinding = serde_json::from_value(d.clone()).unwrap();
        assert_eq!(b.role_ref.kind, "Role");
        let subjects = b.subjects.unwrap();
        assert_eq!(subjects.len(), 1);
        assert_eq!(subjects[0].kind, "ServiceAccount");
        assert_eq!(subjects[0].name, "arcctl-guard");
        assert_eq!(subjects[0].namespace.as_deref(), Some("guard-system"));
    }

    // The Deployment: 2 replicas on different nodes, probes, non-root, read-only root fs.
    let deploy: Deployment = one(&docs, "Deployment");
    assert_eq!(deploy.metadata.namespace.as_deref(), Some("guard-system"));
    let spec = deploy.spec.unwrap();
    assert_eq!(spec.replicas, Some(2));
    let pod = spec.template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some("arcctl-guard"));
    let psc = pod.security_context.unwrap();
    assert_eq!(psc.run_as_non_root, Some(true));
    let anti = pod.affinity.unwrap().pod_anti_affinity.unwrap();
    let term = &anti
        .preferred_during_scheduling_ignored_during_execution
        .unwrap()[0];
    assert_eq!(
        term.pod_affinity_term.topology_key,
        "kubernetes.io/hostname"
    );
    assert_eq!(
        pod.topology_spread_constraints.unwrap()[0].topology_key,
        "kubernetes.io/hostname"
    );
    let c = &pod.containers[0];
    assert_eq!(
        c.image.as_deref(),
        Some("registry.example.com/arcctl:0.1.0")
    );
    let args = c.args.clone().unwrap();
    assert_eq!(&args[..2], ["guard", "serve"]);
    let joined = args.join(" ");
    assert!(joined.contains("-n arc-runners -n arc-gpu"), "{joined}");
    assert!(joined.contains("--answer-within 8s"), "{joined}");
    let port = &c.ports.as_ref().unwrap()[0];
    assert_eq!(port.container_port, 8443);
    assert!(joined.contains("--listen 0.0.0.0:8443"), "{joined}");
    for (probe, path) in [
        (c.readiness_probe.as_ref(), "/readyz"),
        (c.liveness_probe.as_ref(), "/livez"),
    ] {
        let get = probe.unwrap().http_get.as_ref().unwrap();
        assert_eq!(get.path.as_deref(), Some(path));
        assert_eq!(get.scheme.as_deref(), Some("HTTPS"));
        assert_eq!(get.port, IntOrString::String("https".into()));
    }
    let sc = c.security_context.as_ref().unwrap();
    assert_eq!(sc.read_only_root_filesystem, Some(true));
    assert_eq!(sc.allow_privilege_escalation, Some(false));
    let res = c.resources.as_ref().unwrap();
    assert!(res.requests.as_ref().unwrap().contains_key("memory"));
    assert!(res.limits.as_ref().unwrap().contains_key("memory"));
    // GitHub App auth: ids as values, the key as a mounted file, never a value.
    let env: Vec<(String, Option<String>)> = c
        .env
        .clone()
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.value))
        .collect();
    assert!(env.contains(&("ARCCTL_ORG".into(), Some("acme".into()))));
    assert!(env.contains(&("ARCCTL_APP_ID".into(), Some("123456".into()))));
    assert!(env.contains(&(
        "ARCCTL_APP_KEY_FILE".into(),
        Some("/var/run/secrets/github-app/private-key.pem".into())
    )));
    let volumes = pod.volumes.unwrap();
    let secrets: Vec<&str> = volumes
        .iter()
        .filter_map(|v| v.secret.as_ref()?.secret_name.as_deref())
        .collect();
    assert_eq!(secrets, ["arcctl-guard-tls", "arcctl-github-app"]);

    let pdb: PodDisruptionBudget = one(&docs, "PodDisruptionBudget");
    let pdb_spec = pdb.spec.unwrap();
    assert_eq!(pdb_spec.min_available, Some(IntOrString::Int(1)));
    let labels = spec.template.metadata.unwrap().labels.unwrap();
    for (k, v) in pdb_spec.selector.unwrap().match_labels.unwrap() {
        assert_eq!(labels.get(&k), Some(&v), "the PDB selects the guard's pods");
    }

    let svc: Service = one(&docs, "Service");
    let svc_spec = svc.spec.unwrap();
    let sp = &svc_spec.ports.unwrap()[0];
    assert_eq!(sp.port, 443);
    assert_eq!(
        sp.target_port,
        Some(IntOrString::String(port.name.clone().unwrap()))
    );
    for (k, v) in svc_spec.selector.unwrap() {
        assert_eq!(
            labels.get(&k),
            Some(&v),
            "the Service selects the guard's pods"
        );
    }

    // The webhook: pods/eviction in the runner namespaces only, failing closed.
    let vwc: ValidatingWebhookConfiguration = one(&docs, "ValidatingWebhookConfiguration");
    let hooks = vwc.webhooks.unwrap();
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    let rule = &hook.rules.as_ref().unwrap()[0];
    assert_eq!(rule.operations.as_deref(), Some(&["CREATE".to_owned()][..]));
    assert_eq!(
        rule.resources.as_deref(),
        Some(&["pods/eviction".to_owned()][..])
    );
    assert_eq!(rule.api_versions.as_deref(), Some(&["v1".to_owned()][..]));
    assert_eq!(hook.failure_policy.as_deref(), Some("Fail"));
    assert_eq!(hook.side_effects, "NoneOnDryRun");
    assert_eq!(hook.admission_review_versions, ["v1"]);
    assert_eq!(hook.timeout_seconds, Some(10));
    assert!(hook.object_selector.is_none());
    let sel = hook.namespace_selector.as_ref().unwrap();
    let exprs = sel.match_expressions.as_ref().unwrap();
    assert_eq!(exprs[0].key, "kubernetes.io/metadata.name");
    assert_eq!(exprs[0].operator, "In");
    let selected = exprs[0].values.clone().unwrap();
    assert_eq!(selected, ["arc-runners", "arc-gpu"]);
    assert!(!selected.contains(&"guard-system".to_owned()));
    assert_eq!(
        (exprs[1].key.as_str(), exprs[1].operator.as_str()),
        ("arcctl.io/guard", "NotIn")
    );
    let target = hook.client_config.service.as_ref().unwrap();
    assert_eq!(
        (target.name.as_str(), target.namespace.as_str(), target.port),
        ("arcctl-guard", "guard-system", Some(443))
    );
    assert_eq!(target.path.as_deref(), Some("/validate"));
    assert_eq!(svc.metadata.name.as_deref(), Some("arcctl-guard"));
    assert!(hook.client_config.ca_bundle.is_none());

    // cert-manager: the Certificate names the Service, fills the Secret the pod mounts, and
    // cainjector is pointed at it.
    let cert = the(&docs, "Certificate")[0];
    assert_eq!(cert["apiVersion"], "cert-manager.io/v1");
    assert_eq!(
        cert["spec"]["dnsNames"],
        json!([
            "arcctl-guard.guard-system.svc",
            "arcctl-guard.guard-system.svc.cluster.local"
        ])
    );
    assert_eq!(cert["spec"]["secretName"], "arcctl-guard-tls");
    let issuer = the(&docs, "Issuer")[0];
    assert_eq!(
        cert["spec"]["issuerRef"]["name"],
        issuer["metadata"]["name"]
    );
    assert_eq!(cert["spec"]["issuerRef"]["kind"], "Issuer");
    assert!(issuer["spec"]["selfSigned"].is_object());
    assert_eq!(
        vwc.metadata.annotations.unwrap()["cert-manager.io/inject-ca-from"],
        format!(
            "guard-system/{}",
            cert["metadata"]["name"].as_str().unwrap()
        )
    );
}

#[tokio::test]
async fn a_token_is_a_secret_reference_never_a_value() {
    let (yaml, stderr, code) = manifests(
        "--image i --repo acme/web --token-secret gh-token --github-url https://ghe.example.com/api/v3",
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let docs = documents(&yaml);
    let deploy: Deployment = one(&docs, "Deployment");
    let c = &deploy.spec.unwrap().template.spec.unwrap().containers[0];
    let env = c.env.clone().unwrap();
    let token = env.iter().find(|e| e.name == "GH_TOKEN").unwrap();
    assert!(token.value.is_none());
    let r = token
        .value_from
        .as_ref()
        .unwrap()
        .secret_key_ref
        .as_ref()
        .unwrap();
    assert_eq!((r.name.as_str(), r.key.as_str()), ("gh-token", "token"));
    assert!(
        env.iter()
            .any(|e| e.name == "ARCCTL_REPO" && e.value.as_deref() == Some("acme/web"))
    );
    assert!(env.iter().any(|e| e.name == "GITHUB_API_URL"));
}

#[tokio::test]
async fn bad_flags_are_usage_errors() {
    for (args, says) in [
        ("--image i --org acme", "--app-id"),
        ("--image i --token-secret t", "--org"),
        (
            "--image i --org acme --token-secret t --namespace arc-runners",
            "the guard's namespace `arc-runners` cannot be a runner namespace",
        ),
        (
            "--image i --org acme --token-secret t --runner-namespace Bad_NS",
            "`Bad_NS` is not a namespace name",
        ),
        (
            "--image i --org acme --app-id 1 --token-secret t",
            "cannot be used with",
        ),
    ] {
        let (stdout, stderr, code) = manifests(args).await;
        assert_eq!(code, 2, "{args}: {stdout}{stderr}");
        assert!(stderr.contains(says), "{args}: {stderr}");
        assert_eq!(stdout, "", "{args}");
    }
}

/// What cert-manager and the generated certificate leave the same in every run.
fn redacted(yaml: &str) -> String {
    let mut out = String::new();
    for line in yaml.lines() {
        match line.split_once(": ") {
            Some((key, _))
                if ["tls.crt", "tls.key", "ca.crt", "caBundle"].contains(&key.trim_start()) =>
            {
                out.push_str(&format!("{key}: '[redacted]'"));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[tokio::test]
async fn snapshots() {
    let (yaml, stderr, code) = manifests(APP).await;
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("guard_manifests_cert_manager", yaml);
    let (yaml, stderr, code) = manifests(&format!("{APP} --self-signed")).await;
    assert_eq!(code, 0, "{stderr}");
    let r = redacted(&yaml);
    assert!(!r.contains("LS0t"), "generated material left in:\n{r}");
    insta::assert_snapshot!("guard_manifests_self_signed", r);
}

/// The PEM text behind a base64 field.
fn pem(b64: &Value) -> String {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.as_str().expect("a base64 string"))
        .expect("base64");
    String::from_utf8(bytes).expect("PEM text")
}

/// A TLS handshake with a server holding `cert`/`key`, by a client that trusts `ca` only and
/// asks for `name`: `Ok` when the client accepted the server's certificate.
async fn handshake(cert: &str, key: &str, ca: &str, name: &str) -> Result<(), String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    crate::support::install_tls();
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    std::fs::write(&cert_path, cert).unwrap();
    std::fs::write(&key_path, key).unwrap();
    let acceptor = arcctl::guard::server::acceptor_from_files(&cert_path, &key_path)
        .map_err(|e| format!("acceptor: {}", e.message()))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let _ = acceptor.accept(tcp).await;
    });
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        connector.connect(ServerName::try_from(name.to_owned()).unwrap(), tcp),
    )
    .await
    .map_err(|_| "handshake timed out".to_owned())
    .and_then(|r| r.map(drop).map_err(|e| e.to_string()));
    server.abort();
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_self_signed_ca_bundle_verifies_the_serving_certificate() {
    let (yaml, stderr, code) = manifests(&format!("{APP} --self-signed --namespace gns")).await;
    assert_eq!(code, 0, "{stderr}");
    // The key goes to stdout inside the Secret, and nowhere else.
    assert_eq!(stderr, "");
    let docs = documents(&yaml);
    assert!(the(&docs, "Certificate").is_empty() && the(&docs, "Issuer").is_empty());
    let secret: Secret = one(&docs, "Secret");
    assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/tls"));
    assert_eq!(secret.metadata.name.as_deref(), Some("arcctl-guard-tls"));
    let raw = the(&docs, "Secret")[0];
    let (cert, key, ca_crt) = (
        pem(&raw["data"]["tls.crt"]),
        pem(&raw["data"]["tls.key"]),
        pem(&raw["data"]["ca.crt"]),
    );
    assert!(key.contains("PRIVATE KEY"));
    let vwc: ValidatingWebhookConfiguration = one(&docs, "ValidatingWebhookConfiguration");
    assert!(vwc.metadata.annotations.is_none());
    let raw_vwc = the(&docs, "ValidatingWebhookConfiguration")[0];
    let ca = pem(&raw_vwc["webhooks"][0]["clientConfig"]["caBundle"]);
    assert_eq!(ca, ca_crt);

    for name in ["arcctl-guard.gns.svc", "arcctl-guard.gns.svc.cluster.local"] {
        handshake(&cert, &key, &ca, name)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The same certificate is not good for another name, nor under another run's CA.
    assert!(
        handshake(&cert, &key, &ca, "arcctl-guard.other.svc")
            .await
            .is_err()
    );
    let (other, _, _) = manifests(&format!("{APP} --self-signed --namespace gns")).await;
    let other = documents(&other);
    let other_ca = pem(
        &the(&other, "ValidatingWebhookConfiguration")[0]["webhooks"][0]["clientConfig"]["caBundle"],
    );
    assert_ne!(other_ca, ca);
    assert!(
        handshake(&cert, &key, &other_ca, "arcctl-guard.gns.svc")
            .await
            .is_err()
    );
}

/// The guard's manifests for the sandbox's namespace, with `edit` applied to each Role's
/// rules, plus what the evictor itself needs (`create` on `pods/eviction`: the evictor's
/// permission, not the guard's), as an `--rbac` file.
async fn rbac_file(dir: &std::path::Path, edit: impl Fn(&mut Vec<Value>)) -> String {
    let (yaml, stderr, code) = manifests(&format!("{APP} --runner-namespace {NS}")).await;
    assert_eq!(code, 0, "{stderr}");
    let mut text = String::new();
    for mut doc in documents(&yaml) {
        if doc["kind"] == "Role" {
            let mut rules = doc["rules"].as_array().unwrap().clone();
            edit(&mut rules);
            doc["rules"] = Value::Array(rules);
        }
        text.push_str("---\n");
        text.push_str(&serde_yaml::to_string(&doc).unwrap());
    }
    text.push_str(&format!(
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: evictor\n  namespace: {NS}\nrules:\n- apiGroups: ['']\n  resources: ['pods/eviction']\n  verbs: ['create']\n"
    ));
    let path = dir.join("guard-rbac.yaml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn forbidden(sb: &Sandbox) -> u64 {
    let r = sb.report();
    r.requests.kube.by_status.get("403").copied().unwrap_or(0)
}

/// Evicts `pod`: the status and the message.
async fn evict(sb: &Sandbox, pod: &str) -> (u16, String) {
    let (status, body) = crate::support::evict(sb, pod, "").await;
    (
        status,
        body["message"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_emitted_rbac_the_guard_drains_a_node_and_is_denied_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = rbac_file(dir.path(), |_| {}).await;
    for mode in ["scale-set", "legacy"] {
        let sb = sandbox(args!(
            format!("--mode {mode} --runners 6 --nodes 2 --busy 0.5 --job-rate 0.5 --job-duration 2s..6s --job-lag 1s --rbac"),
            &file
        ))
        .await;
        let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
        let mut pending = pods_on(&sb, "node-1");
        assert!(!pending.is_empty());
        for _ in 0..240 {
            let mut left = Vec::new();
            for pod in pending {
                match evict(&sb, &pod).await {
                    (200 | 201 | 404, _) => {}
                    (429, _) => left.push(pod),
                    (status, message) => panic!("{mode}: eviction of {pod}: {status} {message}"),
                }
            }
            pending = left;
            if pending.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        assert!(pending.is_empty(), "{mode}: never evicted: {pending:?}");
        guard.shutdown().await;
        sb.stop_traffic();
        sb.settle().await;
        let report = sb.report();
        assert_eq!(
            forbidden(&sb),
            0,
            "{mode}: {:?}",
            report.requests.kube.by_route
        );
        assert!(report.is_clean(), "{mode}: {}", report.verdict());
        // The guard drained through the API (not only let pods go).
        assert!(
            count(&report, false, "DELETE", "") >= 1,
            "{mode}: {}",
            report.verdict()
        );
    }
}

/// A rule the drain needs, gone: the guard is denied (403) and refuses the eviction with 429,
/// naming what was denied.
type Edit = fn(&mut Vec<Value>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_rule_of_the_emitted_rbac_the_guard_is_denied_and_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Edit, &str); 2] = [
        (
            "scale-set",
            |rules| rules.retain(|r| r["resources"] != json!(["ephemeralrunners"])),
            "`ephemeralrunners`",
        ),
        (
            "legacy",
            |rules| {
                for r in rules
                    .iter_mut()
                    .filter(|r| r["resources"] == json!(["pods"]))
                {
                    r["verbs"] = json!(["get", "patch"]);
                }
            },
            "`delete` on `pods`",
        ),
    ];
    for (mode, edit, says) in cases {
        let file = rbac_file(dir.path(), edit).await;
        let sb = sandbox(args!(
            format!("--mode {mode} --runners 2 --nodes 1 --busy 0 --job-rate 0 --rbac"),
            &file
        ))
        .await;
        let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
        let pods = pods_on(&sb, "node-1");
        assert!(!pods.is_empty());
        let mut answers = Vec::new();
        // A few rounds: the denial comes from the lookup, or from the drain it started.
        'rounds: for _ in 0..20 {
            for pod in &pods {
                let (status, message) = evict(&sb, pod).await;
                let named = message.contains(says);
                answers.push((status, message));
                if named {
                    break 'rounds;
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        guard.shutdown().await;
        assert!(forbidden(&sb) > 0, "{mode}: no 403: {answers:?}");
        let (status, _) = answers
            .iter()
            .find(|(_, m)| m.contains(says))
            .unwrap_or_else(|| panic!("{mode}: no denial names {says}: {answers:?}"));
        assert_eq!(*status, 429);
        assert_eq!(sb.report().jobs.killed, 0);
    }
}

/// The emergency opt-out of `--help` and docs/deploy.md: a runner namespace labelled
/// `arcctl.io/guard=off` leaves the webhook's selector, and its evictions go through at once
/// without calling the guard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespace_labelled_off_is_no_longer_guarded() {
    let sb = sandbox(args!(
        "--mode scale-set --runners 4 --nodes 1 --busy 0 --job-rate 0"
    ))
    .await;
    let guard = arcctl::cmd::start_sandbox_guard(&sb, NS).await.unwrap();
    let pods = pods_on(&sb, "node-1");
    let (status, message) = evict(&sb, &pods[0]).await;
    assert_eq!(status, 429, "guarded first: {message}");
    let calls = sb.report().requests.admission.calls;
    assert!(calls > 0);
    arcctl::sandbox::world::lock(&sb.world())
        .store
        .merge_patch(
            arcctl::sandbox::store::NAMESPACES,
            None,
            NS,
            &json!({"metadata": {"labels": {"arcctl.io/guard": "off"}}}),
        )
        .unwrap();
    let (status, message) = evict(&sb, &pods[1]).await;
    assert!((200..300).contains(&status), "{status} {message}");
    assert_eq!(sb.report().requests.admission.calls, calls);
    guard.shutdown().await;
}
