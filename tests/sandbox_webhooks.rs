//! The sandbox's API server calls validating admission webhooks on `pods/eviction` as a real
//! one does: the real `kubectl drain` retries a webhook's 429, prints its denial, and a webhook
//! that cannot be reached refuses or lets through per its `failurePolicy`; dry runs are
//! reviewed as dry runs and change nothing; selectors skip what they do not select.

mod webhook;

use serde_json::{Value, json};
use webhook::{Answer, Webhook, configuration, hook};

use arcctl::sandbox::Sandbox;
use arcctl::sandbox::store::{PODS, VALIDATING_WEBHOOK_CONFIGURATIONS};
use arcctl::sandbox::world;

use crate::support::kubectl::Kubectl;
use crate::support::{NS, pod_names, pods_on, sandbox};

/// A scale-set world with four idle runners on two nodes and no job traffic.
async fn quiet_sandbox() -> Sandbox {
    sandbox(args!(
        "--mode scale-set --runners 4 --nodes 2 --busy 0 --job-rate 0"
    ))
    .await
}

/// Stores a configuration as the API server would after `kubectl apply`.
fn register(sb: &Sandbox, config: Value) {
    world::lock(&sb.world())
        .store
        .create(VALIDATING_WEBHOOK_CONFIGURATIONS, None, config)
        .expect("the configuration is stored");
}

/// The uid of runner pod `name`, if it exists.
fn uid(sb: &Sandbox, name: &str) -> Option<String> {
    world::lock(&sb.world())
        .store
        .get(PODS, Some(NS), name)
        .and_then(|p| p["metadata"]["uid"].as_str().map(str::to_owned))
}

/// POSTs an Eviction of `pod` (with `delete_options`, and `query` after the path); the status
/// and the body of the answer.
async fn evict(sb: &Sandbox, pod: &str, query: &str, delete_options: Value) -> (u16, Value) {
    let mut eviction = json!({
        "apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": pod, "namespace": NS},
    });
    if !delete_options.is_null() {
        eviction["deleteOptions"] = delete_options;
    }
    let url = format!(
        "{}/api/v1/namespaces/{NS}/pods/{pod}/eviction{query}",
        sb.kube_url()
    );
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let answer = client.post(url).json(&eviction).send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

fn first_pod_on_node_1(sb: &Sandbox) -> String {
    pods_on(sb, "node-1")
        .into_iter()
        .next()
        .expect("a runner pod on node-1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_drain_retries_the_webhooks_429_until_it_allows() {
    let sb = quiet_sandbox().await;
    let guard = Webhook::start(Answer::DenyFirst {
        n: 2,
        code: 429,
        message: "runner is busy (test)".into(),
    })
    .await;
    let kube = Kubectl::with_kubeconfig(sb.kubeconfig_path().to_owned());
    // Registered with `kubectl apply -f`, as an operator would.
    let yaml = format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: test-guard
webhooks:
- name: guard.test.arcctl.io
  clientConfig:
    url: {url}
    caBundle: {ca}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods/eviction"]
    scope: Namespaced
  namespaceSelector:
    matchLabels:
      kubernetes.io/metadata.name: {NS}
  failurePolicy: Fail
  sideEffects: NoneOnDryRun
  admissionReviewVersions: ["v1"]
  timeoutSeconds: 5
"#,
        url = guard.url,
        ca = guard.ca_bundle
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    // The sandbox serves no OpenAPI for kubectl's client-side schema validation.
    let out = kube
        .ok(args!("apply --validate=false -f", file.path()))
        .await;
    assert!(
        out.contains(
            "validatingwebhookconfiguration.admissionregistration.k8s.io/test-guard created"
        ),
        "{out}"
    );
    let listed = kube
        .ok(args!("get validatingwebhookconfigurations -o name"))
        .await;
    assert!(listed.contains("test-guard"), "{listed}");

    let on_node_1 = pods_on(&sb, "node-1");
    assert!(!on_node_1.is_empty());
    let out = kube
        .run(args!(
            "drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout 60s"
        ))
        .await;
    assert!(out.ok, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("node/node-1 drained"), "{}", out.stdout);
    assert!(
        out.stderr.contains("(will retry after 5s)")
            && out.stderr.contains(
                "admission webhook \"guard.test.arcctl.io\" denied the request: runner is busy (test)"
            ),
        "kubectl drain retries the webhook's 429:\n{}",
        out.stderr
    );
    assert!(pods_on(&sb, "node-1").is_empty(), "node-1 is drained");

    let reviews = guard.reviews();
    assert!(reviews.len() >= on_node_1.len() + 2, "{reviews:#?}");
    let request = &reviews[0]["request"];
    assert_eq!(reviews[0]["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(
        request["kind"],
        json!({"group": "policy", "version": "v1", "kind": "Eviction"})
    );
    assert_eq!(
        request["resource"],
        json!({"group": "", "version": "v1", "resource": "pods"})
    );
    assert_eq!(request["subResource"], "eviction");
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(request["namespace"], NS);
    assert_eq!(request["dryRun"], false);
    assert_eq!(request["object"]["kind"], "Eviction");
    assert!(on_node_1.iter().any(|p| request["name"] == *p), "{request}");
    assert!(request["uid"].as_str().is_some_and(|u| u.len() == 36));
    let admission = sb.report().requests.admission;
    assert_eq!(admission.denied, 2, "{admission:?}");
    assert_eq!(admission.failed, 0, "{admission:?}");
    assert_eq!(admission.calls, reviews.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_reaches_kubectl_with_the_webhooks_message() {
    let sb = quiet_sandbox().await;
    let guard = Webhook::start(Answer::DenyAll {
        status: json!({"message": "no evictions today"}),
    })
    .await;
    register(
        &sb,
        configuration(
            "deny",
            vec![hook(
                "deny.test.arcctl.io",
                &guard.url,
                &guard.ca_bundle,
                json!({}),
            )],
        ),
    );
    let pod = first_pod_on_node_1(&sb);
    let before = uid(&sb, &pod);
    let (status, body) = evict(&sb, &pod, "", Value::Null).await;
    assert_eq!(status, 400, "no code in the webhook's status: 400 {body}");
    assert_eq!(
        body["message"],
        "admission webhook \"deny.test.arcctl.io\" denied the request: no evictions today"
    );
    assert_eq!(body["kind"], "Status");
    assert_eq!(uid(&sb, &pod), before);

    let kube = Kubectl::with_kubeconfig(sb.kubeconfig_path().to_owned());
    let out = kube
        .run(args!(
            "drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout 20s"
        ))
        .await;
    assert!(!out.ok, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "admission webhook \"deny.test.arcctl.io\" denied the request: no evictions today"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(uid(&sb, &pod), before, "a denied eviction deletes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_webhook_refuses_with_fail_and_lets_through_with_ignore() {
    let sb = quiet_sandbox().await;
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("https://127.0.0.1:{port}/validate");
    register(
        &sb,
        configuration(
            "down",
            vec![hook("down.test.arcctl.io", &url, "", json!({}))],
        ),
    );
    let pod = first_pod_on_node_1(&sb);
    let before = uid(&sb, &pod);
    let (status, body) = evict(&sb, &pod, "", Value::Null).await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["reason"], "InternalError");
    assert_eq!(
        body["message"],
        format!(
            "Internal error occurred: failed calling webhook \"down.test.arcctl.io\": failed to call webhook: \
             Post \"https://127.0.0.1:{port}/validate?timeout=5s\": dial tcp 127.0.0.1:{port}: connect: connection refused"
        )
    );
    assert_eq!(
        uid(&sb, &pod),
        before,
        "failurePolicy Fail: nothing is evicted"
    );

    let kube = Kubectl::with_kubeconfig(sb.kubeconfig_path().to_owned());
    kube.ok(args!(
        "patch validatingwebhookconfiguration down --type=json -p",
        r#"[{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}]"#
    ))
    .await;
    let (status, body) = evict(&sb, &pod, "", Value::Null).await;
    assert_eq!(
        status, 201,
        "failurePolicy Ignore: the eviction proceeds {body}"
    );
    // ARC recreates a scale-set pod deleted alone under its name: a new uid, if any.
    assert_ne!(uid(&sb, &pod), before, "the pod was deleted");
    let admission = sb.report().requests.admission;
    assert_eq!(
        (admission.calls, admission.failed, admission.denied),
        (2, 2, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_eviction_is_reviewed_as_one_and_changes_nothing() {
    let sb = quiet_sandbox().await;
    let guard = Webhook::start(Answer::Allow).await;
    register(
        &sb,
        configuration(
            "guard",
            vec![hook(
                "guard.test.arcctl.io",
                &guard.url,
                &guard.ca_bundle,
                json!({}),
            )],
        ),
    );
    let pod = first_pod_on_node_1(&sb);
    let before = uid(&sb, &pod);
    let (status, body) = evict(&sb, &pod, "?dryRun=All", Value::Null).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(uid(&sb, &pod), before, "a dry run deletes nothing");
    let reviews = guard.reviews();
    let request = &reviews[0]["request"];
    assert_eq!(request["dryRun"], true);
    assert_eq!(request["options"]["dryRun"], json!(["All"]));
    assert_eq!(request["object"]["deleteOptions"]["dryRun"], json!(["All"]));

    // `kubectl drain --dry-run=server` sets only the Eviction's deleteOptions: the API server
    // reviews that with `dryRun: false`, and only the object says it is a dry run.
    let (status, body) = evict(&sb, &pod, "", json!({"dryRun": ["All"]})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(uid(&sb, &pod), before);
    let request = &guard.reviews()[1]["request"];
    assert_eq!(request["dryRun"], false);
    assert_eq!(request["object"]["deleteOptions"]["dryRun"], json!(["All"]));

    // A webhook with side effects cannot take a dry run (an object stored before
    // admissionregistration/v1 validation refused `sideEffects: Some`).
    register(
        &sb,
        configuration(
            "side-effects",
            vec![hook(
                "side.test.arcctl.io",
                &guard.url,
                &guard.ca_bundle,
                json!({"sideEffects": "Some"}),
            )],
        ),
    );
    let (status, body) = evict(&sb, &pod, "?dryRun=All", Value::Null).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["message"],
        "admission webhook \"side.test.arcctl.io\" does not support dry run"
    );
    assert_eq!(uid(&sb, &pod), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_that_do_not_match_skip_the_call() {
    let sb = quiet_sandbox().await;
    let guard = Webhook::start(Answer::Allow).await;
    let other_namespace =
        json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "team-b"}}});
    // The Eviction, not the pod, is the object: a selector on runner labels never matches.
    let runner_labels = json!({"objectSelector": {"matchExpressions": [
        {"key": "actions.github.com/scale-set-name", "operator": "Exists"}]}});
    register(
        &sb,
        configuration(
            "skipped",
            vec![
                hook(
                    "ns.test.arcctl.io",
                    &guard.url,
                    &guard.ca_bundle,
                    other_namespace,
                ),
                hook(
                    "labels.test.arcctl.io",
                    &guard.url,
                    &guard.ca_bundle,
                    runner_labels,
                ),
            ],
        ),
    );
    let pods = pod_names(&sb);
    let before = uid(&sb, &pods[0]);
    let (status, body) = evict(&sb, &pods[0], "", Value::Null).await;
    assert_eq!(status, 201, "{body}");
    assert_ne!(uid(&sb, &pods[0]), before, "evicted");
    assert!(guard.reviews().is_empty(), "{:#?}", guard.reviews());
    assert!(sb.report().requests.admission.is_empty());

    let runner_namespace =
        json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NS}}});
    register(
        &sb,
        configuration(
            "selected",
            vec![hook(
                "runners.test.arcctl.io",
                &guard.url,
                &guard.ca_bundle,
                runner_namespace,
            )],
        ),
    );
    let (status, body) = evict(&sb, &pods[1], "", Value::Null).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(guard.reviews().len(), 1, "the runner namespace is selected");
    assert_eq!(guard.reviews()[0]["request"]["name"], pods[1].as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_reference_goes_where_the_sandbox_routes_it() {
    let sb = quiet_sandbox().await;
    let guard = Webhook::start(Answer::Allow).await;
    let service = json!({"clientConfig": {"url": null, "service":
        {"namespace": "arc-system", "name": "guard", "path": "/validate"}}});
    register(
        &sb,
        configuration(
            "svc",
            vec![hook("svc.test.arcctl.io", "", &guard.ca_bundle, service)],
        ),
    );
    let pod = first_pod_on_node_1(&sb);
    let (status, body) = evict(&sb, &pod, "", Value::Null).await;
    assert_eq!(status, 500, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with(
            "Post \"https://guard.arc-system.svc:443/validate?timeout=5s\": service \"guard\" not found"
        ),
        "{message}"
    );

    // Routed to the test webhook, whose certificate names 127.0.0.1, not the service: the
    // server is verified against the service's name, as the API server does.
    world::lock(&sb.world())
        .webhook_services
        .insert(("arc-system".into(), "guard".into(), 443), guard.addr);
    let (status, body) = evict(&sb, &pod, "", Value::Null).await;
    assert_eq!(status, 500, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with("x509: certificate is not valid for guard.arc-system.svc"),
        "{message}"
    );
    assert!(guard.reviews().is_empty());
}
