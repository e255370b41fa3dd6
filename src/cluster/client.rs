//! The Kubernetes client: connecting from a kubeconfig (or in-cluster), listing runner pods and
//! EphemeralRunners page by page (decoded slim, `cluster::wire`), reading the runner container's log tail, and the small typed
//! mutations `drain` needs (deletes with a uid precondition, a pod annotation, cordon).
//!
//! Kubernetes errors become [`Error`]s naming the verb and resource: 401/403 are exit 4, a bad
//! kubeconfig or unknown context exit 2, anything else exit 1.

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Pod};
use kube::Resource;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GetParams, GroupVersionKind, ListParams,
    LogParams, Patch, PatchParams, Preconditions, PropagationPolicy,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;

use crate::cluster::model::{EphemeralRunner, RunnerPod};
use crate::cluster::settings::{KubeSettings, Namespaces};
use crate::cluster::{arc, retry, wire};
use crate::error::{Error, Result};

/// Page size of list calls: twice kubectl's `--chunk-size` default. Each page's continue token
/// is needed for the next, so a list's pages are one round trip after another; at 10,000 pods
/// 1,000 a page halves them, for one page body of about 4 MB held at a time.
const PAGE_SIZE: u32 = 1000;

/// Which pods to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodSelection {
    /// `-l`: a label selector the server applies.
    pub label_selector: Option<String>,
    /// `--node`: field selector `spec.nodeName`.
    pub node: Option<String>,
    /// `--scale-set`: scale set, RunnerDeployment or RunnerSet name.
    pub scale_set: Option<String>,
}

/// The namespaces a list covers, resolved against the context's namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamespaceScope {
    All,
    Only(Vec<String>),
}

impl NamespaceScope {
    pub fn contains(&self, ns: &str) -> bool {
        match self {
            NamespaceScope::All => true,
            NamespaceScope::Only(list) => list.iter().any(|n| n == ns),
        }
    }
}

/// What a delete with a uid precondition found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteResult {
    /// The object with that uid is deleted (or being deleted).
    Deleted,
    /// 404: nothing of that name any more.
    AlreadyGone,
    /// 409: an object of that name exists with another uid (a replacement); left alone.
    Replaced,
}

/// What cordoning a node did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CordonResult {
    Cordoned,
    AlreadyCordoned,
}

/// A connected cluster.
#[derive(Clone)]
pub struct Cluster {
    client: kube::Client,
    default_namespace: String,
    server: String,
    /// The kubeconfig context in use (`in-cluster` for the service account).
    context: String,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("server", &self.server)
            .field("default_namespace", &self.default_namespace)
            .finish()
    }
}

/// The EphemeralRunner resource (scale-set mode).
fn ephemeral_runner_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(arc::GROUP_SCALE_SET, "v1alpha1", "EphemeralRunner"),
        "ephemeralrunners",
    )
}

/// The legacy Runner resource.
fn legacy_runner_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(arc::GROUP_LEGACY, "v1alpha1", "Runner"),
        "runners",
    )
}

impl Cluster {
    /// Connects using the kubeconfig files of `settings` (merged in order), or the in-cluster
    /// service account when there are none. Needs a process-level rustls provider.
    pub async fn connect(settings: &KubeSettings) -> Result<Self> {
        let mut context = "in-cluster".to_owned();
        let mut config = if settings.kubeconfig.is_empty() {
            if settings.context.is_some() {
                return Err(
                    Error::usage("--context needs a kubeconfig, and none was found")
                        .with_hint("set KUBECONFIG or pass --kubeconfig PATH"),
                );
            }
            crate::cluster::in_cluster::config(&settings.in_cluster)?
        } else {
            let kubeconfig = read_kubeconfigs(&settings.kubeconfig, settings.kubeconfig_source)?;
            let contexts: Vec<String> =
                kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
            if let Some(ctx) = &settings.context
                && !contexts.iter().any(|c| c == ctx)
            {
                return Err(
                    Error::usage(format!("context `{ctx}` not found in the kubeconfig"))
                        .with_hint(context_hint(&contexts)),
                );
            }
            if let Some(name) = settings
                .context
                .clone()
                .or_else(|| kubeconfig.current_context.clone())
            {
                context = name;
            }
            let options = KubeConfigOptions {
                context: settings.context.clone(),
                ..KubeConfigOptions::default()
            };
            kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| {
                    Error::usage("the kubeconfig cannot be used")
                        .with_source(e)
                        .with_hint(context_hint(&contexts))
                })?
        };
        // A hung API server must not hang arcctl.
        config.connect_timeout = Some(Duration::from_secs(10).min(settings.request_timeout));
        config.read_timeout = Some(settings.request_timeout);
        config.write_timeout = Some(settings.request_timeout);
        config.reset_reader_on_write = true;
        let server = config.cluster_url.to_string();
        let default_namespace = config.default_namespace.clone();
        // Requests are logged (`-v`) by a layer that carries the run's log subscriber.
        let client = kube::client::ClientBuilder::try_from(config)
            .map_err(|e| {
                Error::failed(format!(
                    "failed to set up the Kubernetes client for {server}"
                ))
                .with_source(e)
            })?
            .with_layer(&crate::logging::KubeLog::current(&server))
            .build();
        Ok(Cluster {
            client,
            default_namespace,
            server,
            context,
        })
    }

    /// Wraps an existing client (tests, or a caller that built its own).
    pub fn from_client(client: kube::Client, default_namespace: &str, server: &str) -> Self {
        Cluster {
            client,
            default_namespace: default_namespace.to_owned(),
            server: server.to_owned(),
            context: "custom".to_owned(),
        }
    }

    fn at<'a>(
        &'a self,
        resource: &'a str,
        namespace: Option<&'a str>,
        missing_ok: bool,
    ) -> ListAt<'a> {
        ListAt {
            resource,
            namespace,
            server: &self.server,
            missing_ok,
        }
    }

    /// The context's namespace (`default` when it names none).
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// The kubeconfig context in use, for prompts and summaries.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// The API server URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// `-n` / `-A` / the context's namespace, resolved.
    pub fn namespace_scope(&self, ns: &Namespaces) -> NamespaceScope {
        match ns {
            Namespaces::All => NamespaceScope::All,
            Namespaces::Listed(list) => NamespaceScope::Only(list.clone()),
            Namespaces::ContextDefault => {
                NamespaceScope::Only(vec![self.default_namespace.clone()])
            }
        }
    }

    /// The ARC runner pods in `scope` that match `sel`, every page, namespaces concurrently.
    /// Each page is decoded into slim pods (`cluster::wire`) and reduced before the next is
    /// read, so only one page's body per namespace is held at a time.
    pub async fn list_runner_pods(
        &self,
        scope: &NamespaceScope,
        sel: &PodSelection,
    ) -> Result<Vec<RunnerPod>> {
        let mut lp = ListParams::default().limit(PAGE_SIZE);
        if let Some(l) = &sel.label_selector {
            lp = lp.labels(l);
        }
        if let Some(node) = &sel.node {
            lp = lp.fields(&format!("spec.nodeName={node}"));
        }
        let failed = || match scope {
            NamespaceScope::All => "failed to list runner pods in all namespaces".to_owned(),
            NamespaceScope::Only(list) => format!(
                "failed to list runner pods in namespace{} `{}`",
                if list.len() == 1 { "" } else { "s" },
                list.join("`, `")
            ),
        };
        let keep = |p: wire::Pod| {
            RunnerPod::from_wire(p).filter(|p| match &sel.scale_set {
                Some(want) => p.scale_set.as_deref() == Some(want.as_str()),
                None => true,
            })
        };
        match scope {
            NamespaceScope::All => {
                let path = Pod::url_path(&(), None);
                self.list_all(&path, &lp, self.at("pods", None, false), keep)
                    .await
                    .map_err(|e| e.context(failed()))
            }
            NamespaceScope::Only(list) => {
                let calls = list.iter().map(|ns| {
                    let path = Pod::url_path(&(), Some(ns));
                    let (lp, at) = (&lp, self.at("pods", Some(ns), false));
                    async move { self.list_all(&path, lp, at, keep).await }
                });
                Ok(futures::future::try_join_all(calls)
                    .await
                    .map_err(|e| e.context(failed()))?
                    .into_iter()
                    .flatten()
                    .collect())
            }
        }
    }

    /// The EphemeralRunners in `scope`; none when the cluster has no scale-set CRDs.
    pub async fn list_ephemeral_runners(
        &self,
        scope: &NamespaceScope,
    ) -> Result<Vec<EphemeralRunner>> {
        let ar = ephemeral_runner_resource();
        let lp = ListParams::default().limit(PAGE_SIZE);
        let keep = |e: wire::EphemeralRunner| Some(EphemeralRunner::from_wire(e));
        match scope {
            NamespaceScope::All => {
                let path = DynamicObject::url_path(&ar, None);
                self.list_all(&path, &lp, self.at("ephemeralrunners", None, true), keep)
                    .await
            }
            NamespaceScope::Only(list) => {
                let calls = list.iter().map(|ns| {
                    let path = DynamicObject::url_path(&ar, Some(ns));
                    let (lp, at) = (&lp, self.at("ephemeralrunners", Some(ns), true));
                    async move { self.list_all(&path, lp, at, keep).await }
                });
                Ok(futures::future::try_join_all(calls)
                    .await?
                    .into_iter()
                    .flatten()
                    .collect())
            }
        }
    }

    /// One pod, reduced; `None` when it is gone or not an ARC runner pod.
    pub async fn get_runner_pod(&self, namespace: &str, name: &str) -> Result<Option<RunnerPod>> {
        let path = Pod::url_path(&(), Some(namespace));
        match self.get_wire::<wire::Pod>(&path, name).await {
            Ok(pod) => Ok(RunnerPod::from_wire(pod)),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
            Err(e) => Err(kube_error(e, "get", "pods", Some(namespace), &self.server)
                .context(format!("failed to read pod `{namespace}/{name}`"))),
        }
    }

    /// One EphemeralRunner; `None` when it is gone (or scale sets are not installed).
    pub async fn get_ephemeral_runner(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<EphemeralRunner>> {
        let path = DynamicObject::url_path(&ephemeral_runner_resource(), Some(namespace));
        match self.get_wire::<wire::EphemeralRunner>(&path, name).await {
            Ok(er) => Ok(Some(EphemeralRunner::from_wire(er))),
            // Gone, or the resource type itself is unknown: no scale sets here.
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
            Err(e) => Err(
                kube_error(e, "get", "ephemeralrunners", Some(namespace), &self.server).context(
                    format!("failed to read EphemeralRunner `{namespace}/{name}`"),
                ),
            ),
        }
    }

    /// `GET {path}/{name}` decoded as `T`, with the bounded retries of `cluster::retry`.
    async fn get_wire<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        name: &str,
    ) -> std::result::Result<T, kube::Error> {
        retry::retrying(|| async {
            let mut req = kube::core::Request::new(path)
                .get(name, &GetParams::default())
                .map_err(kube::Error::BuildRequest)?;
            req.extensions_mut().insert("get");
            self.client.request::<T>(req).await
        })
        .await
    }

    /// Every page of a list at `path`, each page's items reduced by `keep` before the next page
    /// is read. With `at.missing_ok`, a 404 for the resource type (its CRD is not installed)
    /// is an empty list.
    async fn list_all<W, T>(
        &self,
        path: &str,
        lp: &ListParams,
        at: ListAt<'_>,
        keep: impl Fn(W) -> Option<T>,
    ) -> Result<Vec<T>>
    where
        W: serde::de::DeserializeOwned,
    {
        let mut out = Vec::new();
        let mut lp = lp.clone();
        let mut first = true;
        loop {
            let call = || async {
                let mut req = kube::core::Request::new(path)
                    .list(&lp)
                    .map_err(kube::Error::BuildRequest)?;
                req.extensions_mut().insert("list");
                self.client.request::<wire::Page<W>>(req).await
            };
            let page = match retry::retrying(call).await {
                Ok(page) => page,
                Err(kube::Error::Api(s)) if s.code == 404 && at.missing_ok && first => {
                    return Ok(Vec::new());
                }
                // A list is refused as a bad request only for what we passed: the selectors.
                Err(kube::Error::Api(s)) if s.code == 400 => {
                    return Err(Error::usage(format!(
                        "Kubernetes refused the selection of `{}`: {}",
                        at.resource, s.message
                    ))
                    .with_hint("check -l/--selector (`key=value`, `key!=value`, `key in (a,b)`, `key`, `!key`) and --node"));
                }
                Err(e) => {
                    return Err(kube_error(e, "list", at.resource, at.namespace, at.server));
                }
            };
            first = false;
            out.extend(page.items.into_iter().flatten().filter_map(&keep));
            match page.metadata.continue_token.filter(|c| !c.is_empty()) {
                Some(token) => lp.continue_token = Some(token),
                None => return Ok(out),
            }
        }
    }

    /// The last `lines` lines of the pod's `runner` container log.
    pub async fn runner_log_tail(&self, namespace: &str, pod: &str, lines: i64) -> Result<String> {
        let api = Api::<Pod>::namespaced(self.client.clone(), namespace);
        let lp = LogParams {
            container: Some("runner".to_owned()),
            tail_lines: Some(lines),
            ..LogParams::default()
        };
        retry::retrying(|| api.logs(pod, &lp))
            .await
            .map_err(|e| kube_error(e, "get", "pods/log", Some(namespace), &self.server))
            .map_err(|e| {
                e.context(format!(
                    "failed to read the runner log of pod `{namespace}/{pod}`"
                ))
            })
    }

    /// The pod's `runner` container log from `since` on, each line after its timestamp, at most
    /// `limit_bytes` (the API cuts the answer there).
    pub async fn runner_log_since(
        &self,
        namespace: &str,
        pod: &str,
        since: jiff::Timestamp,
        limit_bytes: i64,
    ) -> Result<String> {
        let api = Api::<Pod>::namespaced(self.client.clone(), namespace);
        let lp = LogParams {
            container: Some("runner".to_owned()),
            since_time: Some(since),
            limit_bytes: Some(limit_bytes),
            timestamps: true,
            ..LogParams::default()
        };
        retry::retrying(|| api.logs(pod, &lp))
            .await
            .map_err(|e| kube_error(e, "get", "pods/log", Some(namespace), &self.server))
            .map_err(|e| {
                e.context(format!(
                    "failed to read the runner log of pod `{namespace}/{pod}`"
                ))
            })
    }

    /// Deletes a pod if it still has `uid`.
    pub async fn delete_pod(&self, namespace: &str, name: &str, uid: &str) -> Result<DeleteResult> {
        let api = Api::<Pod>::namespaced(self.client.clone(), namespace);
        delete_with_uid(&api, name, uid, "pods", namespace, &self.server).await
    }

    /// Deletes an EphemeralRunner if it still has `uid` (ARC then unregisters and removes the pod).
    pub async fn delete_ephemeral_runner(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
    ) -> Result<DeleteResult> {
        let api = Api::<DynamicObject>::namespaced_with(
            self.client.clone(),
            namespace,
            &ephemeral_runner_resource(),
        );
        delete_with_uid(&api, name, uid, "ephemeralrunners", namespace, &self.server).await
    }

    /// Deletes a legacy Runner object if it still has `uid`.
    pub async fn delete_legacy_runner(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
    ) -> Result<DeleteResult> {
        let api = Api::<DynamicObject>::namespaced_with(
            self.client.clone(),
            namespace,
            &legacy_runner_resource(),
        );
        delete_with_uid(&api, name, uid, "runners", namespace, &self.server).await
    }

    /// Sets one annotation on the pod with `uid` (JSON merge patch): `Deleted` stands for done
    /// here, `AlreadyGone` for 404, `Replaced` for another pod under the name.
    ///
    /// The patch carries the pod's uid, which the API server treats as a precondition: a
    /// replacement under the same name is refused (422, or 409 from some servers) and is left
    /// unannotated.
    pub async fn annotate_pod(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
        key: &str,
        value: &str,
    ) -> Result<DeleteResult> {
        let api = Api::<Pod>::namespaced(self.client.clone(), namespace);
        let patch = json!({"metadata": {"uid": uid, "annotations": {key: value}}});
        let (pp, patch) = (PatchParams::default(), Patch::Merge(&patch));
        match retry::retrying(|| api.patch(name, &pp, &patch)).await {
            Ok(_) => Ok(DeleteResult::Deleted),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(DeleteResult::AlreadyGone),
            Err(kube::Error::Api(s)) if s.code == 409 => Ok(DeleteResult::Replaced),
            // A merge patch whose `metadata.uid` differs from the object's is refused as an
            // invalid change of an immutable field: another pod now has this name.
            Err(kube::Error::Api(s)) if s.code == 422 && s.message.contains("uid") => {
                Ok(DeleteResult::Replaced)
            }
            Err(e) => Err(
                kube_error(e, "patch", "pods", Some(namespace), &self.server)
                    .context(format!("failed to annotate pod `{namespace}/{name}`")),
            ),
        }
    }

    /// Whether the node is cordoned (`spec.unschedulable`).
    pub async fn node_unschedulable(&self, node: &str) -> Result<bool> {
        let api = Api::<Node>::all(self.client.clone());
        let n = retry::retrying(|| api.get(node))
            .await
            .map_err(|e| kube_error(e, "get", "nodes", None, &self.server))
            .map_err(|e| e.context(format!("failed to read node `{node}`")))?;
        Ok(n.spec.and_then(|s| s.unschedulable).unwrap_or(false))
    }

    /// Cordons a node (merge patch `spec.unschedulable: true`), idempotently.
    pub async fn cordon(&self, node: &str) -> Result<CordonResult> {
        let failed = || format!("failed to cordon node `{node}`");
        if self
            .node_unschedulable(node)
            .await
            .map_err(|e| e.context(failed()))?
        {
            return Ok(CordonResult::AlreadyCordoned);
        }
        let api = Api::<Node>::all(self.client.clone());
        let patch = json!({"spec": {"unschedulable": true}});
        let (pp, patch) = (PatchParams::default(), Patch::Merge(&patch));
        retry::retrying(|| api.patch(node, &pp, &patch))
            .await
            .map_err(|e| kube_error(e, "patch", "nodes", None, &self.server))
            .map_err(|e| e.context(failed()))?;
        Ok(CordonResult::Cordoned)
    }
}

/// Reads and merges kubeconfig files; unreadable or malformed ones are usage errors.
fn read_kubeconfigs(paths: &[std::path::PathBuf], source: &str) -> Result<Kubeconfig> {
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        let kc = read_one(path, source)?;
        merged = Some(match merged {
            None => kc,
            Some(m) => m.merge(kc).map_err(|e| {
                Error::usage(format!("failed to merge kubeconfig `{}`", path.display()))
                    .with_source(e)
            })?,
        });
    }
    merged.ok_or_else(|| Error::usage(format!("{source} names no kubeconfig file")))
}

fn read_one(path: &Path, source: &str) -> Result<Kubeconfig> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::usage(format!(
            "failed to read kubeconfig `{}` (from {source})",
            path.display()
        ))
        .with_source(e)
    })?;
    Kubeconfig::from_yaml(&text).map_err(|e| {
        Error::usage(format!("kubeconfig `{}` is malformed", path.display())).with_source(e)
    })
}

fn context_hint(contexts: &[String]) -> String {
    if contexts.is_empty() {
        "the kubeconfig defines no contexts".to_owned()
    } else {
        format!("contexts in the kubeconfig: {}", contexts.join(", "))
    }
}

/// What a list call covers, for its error messages.
#[derive(Clone, Copy)]
struct ListAt<'a> {
    resource: &'a str,
    namespace: Option<&'a str>,
    server: &'a str,
    missing_ok: bool,
}

async fn delete_with_uid<K>(
    api: &Api<K>,
    name: &str,
    uid: &str,
    resource: &str,
    namespace: &str,
    server: &str,
) -> Result<DeleteResult>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    // Background: an EphemeralRunner's pod has `blockOwnerDeletion`, so a foreground delete
    // would remove the pod first, before ARC's finalizer has removed the runner.
    let dp = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some(uid.to_owned()),
            resource_version: None,
        }),
        propagation_policy: Some(PropagationPolicy::Background),
        ..DeleteParams::default()
    };
    match retry::retrying(|| api.delete(name, &dp)).await {
        Ok(_) => Ok(DeleteResult::Deleted),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(DeleteResult::AlreadyGone),
        Err(kube::Error::Api(s)) if s.code == 409 => Ok(DeleteResult::Replaced),
        Err(e) => Err(kube_error(e, "delete", resource, Some(namespace), server)
            .context(format!("failed to delete {resource} `{namespace}/{name}`"))),
    }
}

/// A Kubernetes error as an [`Error`] naming the verb and resource that failed.
pub(crate) fn kube_error(
    e: kube::Error,
    verb: &str,
    resource: &str,
    ns: Option<&str>,
    server: &str,
) -> Error {
    let place = match ns {
        Some(ns) => format!("`{resource}` in namespace `{ns}`"),
        None => format!("`{resource}`"),
    };
    match e {
        kube::Error::Api(s) if s.code == 401 || s.code == 403 => {
            let message = if s.message.is_empty() {
                s.reason.clone()
            } else {
                s.message.clone()
            };
            Error::auth(format!(
                "Kubernetes denied `{verb}` on {place} ({} {message})",
                s.code
            ))
            .with_hint(format!(
                "the kubeconfig's user needs RBAC permission to `{verb}` {resource}{}",
                ns.map(|n| format!(" in `{n}`")).unwrap_or_default()
            ))
        }
        // A list the server calls malformed carries our user's selector.
        kube::Error::Api(s) if s.code == 400 && verb == "list" => Error::usage(format!(
            "Kubernetes refused the selection when listing {place} (400 {})",
            if s.message.is_empty() {
                &s.reason
            } else {
                &s.message
            }
        ))
        .with_hint("check -l/--selector and --node"),
        kube::Error::Api(s) => {
            let message = if s.message.is_empty() {
                s.reason.clone()
            } else {
                s.message.clone()
            };
            Error::failed(format!(
                "failed to {verb} {place}: Kubernetes answered {} {message}",
                s.code
            ))
        }
        other => {
            let at = if server.is_empty() {
                String::new()
            } else {
                format!(" at {server}")
            };
            // An answer that came but made no sense is not a network problem.
            let what = if matches!(other, kube::Error::SerdeError(_)) {
                "unexpected response from the Kubernetes API"
            } else {
                "could not reach the Kubernetes API"
            };
            Error::failed(format!("failed to {verb} {place}: {what}{at}")).with_source(other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, reason: &str, message: &str) -> kube::Error {
        let status: kube::core::Status = serde_json::from_value(serde_json::json!({
            "status": "Failure", "code": code, "reason": reason, "message": message,
        }))
        .unwrap();
        kube::Error::Api(Box::new(status))
    }

    #[test]
    fn denials_are_exit_4_naming_verb_resource_and_namespace() {
        let e = kube_error(
            api(
                403,
                "Forbidden",
                "pods is forbidden: User \"u\" cannot list resource \"pods\"",
            ),
            "list",
            "pods",
            Some("arc"),
            "http://k",
        );
        assert_eq!(e.exit_code(), 4);
        assert!(e.message().starts_with(
            "Kubernetes denied `list` on `pods` in namespace `arc` (403 pods is forbidden"
        ));
        assert!(e.hint().unwrap().contains("`list` pods in `arc`"));
        let e = kube_error(
            api(401, "Unauthorized", ""),
            "get",
            "nodes",
            None,
            "http://k",
        );
        assert_eq!(e.exit_code(), 4);
        assert_eq!(
            e.message(),
            "Kubernetes denied `get` on `nodes` (401 Unauthorized)"
        );
    }

    #[test]
    fn bad_selections_are_usage_errors_and_the_rest_failures() {
        let e = kube_error(
            api(400, "BadRequest", "unable to parse requirement"),
            "list",
            "pods",
            None,
            "",
        );
        assert_eq!(e.exit_code(), 2);
        assert!(e.hint().unwrap().contains("--selector"));
        let e = kube_error(
            api(500, "InternalError", "boom"),
            "list",
            "pods",
            Some("a"),
            "",
        );
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.message(),
            "failed to list `pods` in namespace `a`: Kubernetes answered 500 boom"
        );
    }

    #[test]
    fn only_server_errors_and_lost_connections_are_retried() {
        assert!(retry::is_transient(&api(500, "InternalError", "")));
        assert!(retry::is_transient(&api(503, "ServiceUnavailable", "")));
        assert!(retry::is_transient(&api(429, "TooManyRequests", "")));
        assert!(!retry::is_transient(&api(403, "Forbidden", "")));
        assert!(!retry::is_transient(&api(404, "NotFound", "")));
        assert!(!retry::is_transient(&api(400, "BadRequest", "")));
    }

    #[test]
    fn namespace_scopes() {
        assert!(NamespaceScope::All.contains("x"));
        let only = NamespaceScope::Only(vec!["a".into(), "b".into()]);
        assert!(only.contains("b") && !only.contains("c"));
    }
}
