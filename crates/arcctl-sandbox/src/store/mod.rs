//! The sandbox's Kubernetes object store: what an API server keeps, without the HTTP.
//!
//! Objects are JSON values keyed by resource type, namespace and name, with server-set uid,
//! resourceVersion and creationTimestamp. It implements the semantics the fake API server and
//! the simulated controller need: label and field selectors, paging order, JSON merge patch,
//! deletes with uid and resourceVersion preconditions, finalizers, and a stream of watch events.
//!
//! Finalizers, as the API server has them: deleting an object that has any (or a delete that
//! asks for `Foreground` or `Orphan` propagation, which add `foregroundDeletion` or `orphan`)
//! only sets `metadata.deletionTimestamp` and `deletionGracePeriodSeconds`; the object stays
//! visible (MODIFIED) until the last finalizer is removed, then goes (DELETED). Acting on the
//! finalizers (garbage collection, ARC's controllers) is the world's job, not the store's.
//!
//! The resource table (kinds, plural names, namespaced or not) is in `resources`, the label and
//! field selector parser in `selector`; both are re-exported here.

mod resources;
mod selector;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Value, json};

pub use resources::*;
pub use selector::{FieldSelector, LabelSelector};

/// What follows a page of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// The page is the last.
    Nothing,
    /// This many objects follow (known only for a list without selectors).
    Count(usize),
    /// More follow; how many would take matching all of them.
    Unknown,
}

/// Why a store operation was refused, as the API server would say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    NotFound,
    AlreadyExists,
    /// A precondition (uid, resourceVersion) did not hold: HTTP 409.
    Conflict(String),
    /// The request is malformed: HTTP 400.
    Invalid(String),
    /// The change is refused by validation (an immutable field, a finalizer added to an object
    /// being deleted): HTTP 422 `Invalid`, `KIND "NAME" is invalid: WHY`.
    Unprocessable(String),
}

/// A delete's `propagationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Dependents lose their owner reference and stay.
    Orphan,
    /// The object goes first; the garbage collector deletes dependents after it.
    Background,
    /// Dependents go first (the owner waits in `foregroundDeletion` for those with
    /// `blockOwnerDeletion`), then the owner.
    Foreground,
}

/// The garbage collector's finalizer of a foreground delete.
pub const FOREGROUND_DELETION: &str = "foregroundDeletion";
/// The garbage collector's finalizer of an orphaning delete.
pub const ORPHAN: &str = "orphan";

/// `DeleteOptions`, as far as the store honours them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `preconditions.uid`.
    pub uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub resource_version: Option<String>,
    /// `None`: the resource's default (background), keeping GC finalizers already set.
    pub propagation: Option<Propagation>,
    /// Recorded as `deletionGracePeriodSeconds` (0 when not given); nothing waits it out.
    pub grace_period_seconds: Option<i64>,
}

impl DeleteOptions {
    /// A background delete guarded by `uid`.
    pub fn with_uid(uid: Option<&str>) -> Self {
        DeleteOptions {
            uid: uid.map(str::to_owned),
            ..DeleteOptions::default()
        }
    }
}

/// What a delete (or the removal of a finalizer) did.
#[derive(Debug, Clone, PartialEq)]
pub enum Deletion {
    /// The object is gone (its last state).
    Removed(Value),
    /// The object stays, marked with a deletionTimestamp, until its finalizers are removed.
    /// `first`: this call set the deletionTimestamp.
    Marked { object: Value, first: bool },
}

/// The finalizers on `obj`.
pub fn finalizers(obj: &Value) -> Vec<String> {
    obj["metadata"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect()
}

/// Whether `obj` is being deleted (has a deletionTimestamp).
pub fn is_deleting(obj: &Value) -> bool {
    obj["metadata"]["deletionTimestamp"].is_string()
}

fn set_finalizers(obj: &mut Value, list: &[String]) {
    if list.is_empty() {
        if let Some(m) = obj["metadata"].as_object_mut() {
            m.remove("finalizers");
        }
    } else {
        obj["metadata"]["finalizers"] = json!(list);
    }
}

/// One change, as a watch stream reports it.
#[derive(Debug, Clone)]
pub struct WatchEvent {
    pub kind: ResourceType,
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub event_type: &'static str,
    pub object: Value,
}

type Key = (ResourceType, String, String);

/// How many recent watch events the store keeps, so a watch can resume from a list's
/// resourceVersion without missing what happened in between.
const HISTORY: usize = 4096;

/// One container log line and when it was written (RFC 3339 with nanoseconds, as
/// `kubectl logs --timestamps` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub time: String,
    pub line: String,
}

/// The object store.
#[derive(Debug)]
pub struct Store {
    objects: BTreeMap<Key, Value>,
    resource_version: u64,
    uid_seed: u64,
    uid_counter: u64,
    logs: BTreeMap<(String, String, String), Vec<String>>,
    /// Pods per `spec.nodeName`, kept up to date so scheduling is not a scan of every pod.
    pods_per_node: BTreeMap<String, usize>,
    /// Objects by the uids in their `ownerReferences`, kept up to date so the garbage
    /// collector's "what does this own" is a lookup, not a scan of every object.
    owned: BTreeMap<String, BTreeSet<Key>>,
    log_times: BTreeMap<(String, String, String), Vec<String>>,
    events: tokio::sync::broadcast::Sender<WatchEvent>,
    /// The last [`HISTORY`] events with their resourceVersions, oldest first.
    history: VecDeque<(u64, WatchEvent)>,
}

impl Store {
    /// A new store; `seed` makes the generated uids reproducible.
    pub fn new(seed: u64) -> Self {
        Store {
            objects: BTreeMap::new(),
            resource_version: 1000,
            uid_seed: seed,
            uid_counter: 0,
            logs: BTreeMap::new(),
            pods_per_node: BTreeMap::new(),
            owned: BTreeMap::new(),
            log_times: BTreeMap::new(),
            events: tokio::sync::broadcast::channel(4096).0,
            history: VecDeque::new(),
        }
    }

    /// The current resourceVersion of the whole store (lists report it).
    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    /// Watch events from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<WatchEvent> {
        self.events.subscribe()
    }

    fn next_uid(&mut self) -> String {
        self.uid_counter += 1;
        // A v4-shaped uid derived from seed and counter: unique and reproducible.
        let a = splitmix(self.uid_seed ^ self.uid_counter.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let b = splitmix(a ^ self.uid_counter);
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            (a >> 32) as u32,
            (a >> 16) as u16,
            (a & 0xfff) as u16,
            ((b >> 48) as u16 & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        )
    }

    fn bump(&mut self) -> String {
        self.resource_version += 1;
        self.resource_version.to_string()
    }

    fn key(rt: ResourceType, ns: Option<&str>, name: &str) -> Key {
        let ns = if rt.namespaced { ns.unwrap_or("") } else { "" };
        (rt, ns.to_owned(), name.to_owned())
    }

    fn emit(&mut self, kind: ResourceType, event_type: &'static str, object: &Value) {
        let event = WatchEvent {
            kind,
            event_type,
            object: object.clone(),
        };
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history
            .push_back((self.resource_version, event.clone()));
        // No receivers is fine: nobody is watching.
        let _ = self.events.send(event);
    }

    /// The events after resourceVersion `rv`, oldest first; `None` when some of them are no
    /// longer kept (the API server's "too old resource version").
    pub fn events_since(&self, rv: u64) -> Option<Vec<WatchEvent>> {
        let oldest_kept = self
            .history
            .front()
            .map_or(self.resource_version, |(v, _)| *v);
        // Every version from rv+1 on must still be kept; versions are consecutive.
        if rv < self.resource_version && rv + 1 < oldest_kept {
            return None;
        }
        Some(
            self.history
                .iter()
                .filter(|(v, _)| *v > rv)
                .map(|(_, e)| e.clone())
                .collect(),
        )
    }

    /// Creates `obj`, filling apiVersion, kind, namespace, uid, resourceVersion and
    /// creationTimestamp. `metadata.generateName` is honoured when `metadata.name` is empty.
    pub fn create(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        mut obj: Value,
    ) -> Result<Value, StoreError> {
        if !obj.is_object() {
            return Err(StoreError::Invalid("object must be a JSON object".into()));
        }
        let meta = obj
            .as_object_mut()
            .map(|o| o.entry("metadata").or_insert_with(|| json!({})))
            .ok_or_else(|| StoreError::Invalid("object must be a JSON object".into()))?;
        let mut name = meta["name"].as_str().unwrap_or("").to_owned();
        if name.is_empty() {
            let prefix = meta["generateName"].as_str().unwrap_or("").to_owned();
            if prefix.is_empty() {
                return Err(StoreError::Invalid("metadata.name: Required value".into()));
            }
            // Five random characters collide now and then in big worlds; the controllers that
            // use generateName retry on AlreadyExists, so the store picks another suffix.
            for _ in 0..16 {
                name = format!("{prefix}{}", self.random_suffix());
                if !self.objects.contains_key(&Store::key(rt, ns, &name)) {
                    break;
                }
            }
        }
        let key = Store::key(rt, ns, &name);
        if self.objects.contains_key(&key) {
            return Err(StoreError::AlreadyExists);
        }
        let uid = self.next_uid();
        let rv = self.bump();
        obj["apiVersion"] = json!(rt.api_version());
        obj["kind"] = json!(rt.kind);
        let meta = &mut obj["metadata"];
        meta["name"] = json!(name);
        if rt.namespaced {
            meta["namespace"] = json!(key.1);
        }
        meta["uid"] = json!(uid);
        meta["resourceVersion"] = json!(rv);
        if meta.get("creationTimestamp").is_none_or(Value::is_null) {
            meta["creationTimestamp"] = json!(now_rfc3339());
        }
        if rt == NAMESPACES {
            // The API server labels every namespace with its name (webhooks select on it).
            meta["labels"]["kubernetes.io/metadata.name"] = json!(name);
        }
        if rt == PODS {
            self.count_on_node(&obj, 1);
        }
        self.index_owners(&key, &obj);
        self.objects.insert(key, obj.clone());
        self.emit(rt, "ADDED", &obj);
        Ok(obj)
    }

    /// A 5-character suffix from Kubernetes' alphabet, as generateName uses.
    pub fn random_suffix(&mut self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        self.uid_counter += 1;
        let mut x = splitmix(self.uid_seed.rotate_left(17) ^ self.uid_counter);
        (0..5)
            .map(|_| {
                let c = ALPHABET[(x % ALPHABET.len() as u64) as usize] as char;
                x /= ALPHABET.len() as u64;
                c
            })
            .collect()
    }

    pub fn get(&self, rt: ResourceType, ns: Option<&str>, name: &str) -> Option<&Value> {
        self.objects.get(&Store::key(rt, ns, name))
    }

    /// Objects of `rt` (in `ns`, or all namespaces when `None`) that match both selectors,
    /// ordered by namespace and name (the order `limit`/`continue` pages through).
    pub fn list(
        &self,
        rt: ResourceType,
        ns: Option<&str>,
        labels: &LabelSelector,
        fields: &FieldSelector,
    ) -> Vec<&Value> {
        // The whole list is one page without a limit.
        self.list_page(rt, ns, (labels, fields), None, 0).0
    }

    /// One page of a list: up to `limit` (0: all) objects of `rt` in `ns` (all namespaces when
    /// `None`) matching the selectors, after the (namespace, name) of `after`, and how many
    /// more there are. The walk starts at `after` in the key order, so reading a list page by
    /// page costs each object once, not once per page. As a real API server does, the count of
    /// the rest is only known without selectors (`None` with them, or when nothing is left).
    pub fn list_page(
        &self,
        rt: ResourceType,
        ns: Option<&str>,
        sel: (&LabelSelector, &FieldSelector),
        after: Option<(&str, &str)>,
        limit: usize,
    ) -> (Vec<&Value>, Rest) {
        use std::ops::Bound;
        let (labels, fields) = sel;
        // Keys sort by type, then namespace, then name: walk only the slice asked for.
        let ns = if rt.namespaced { ns } else { None };
        let start = match after {
            Some((ans, aname)) => Bound::Excluded((rt, ans.to_owned(), aname.to_owned())),
            None => Bound::Included((rt, ns.unwrap_or("").to_owned(), String::new())),
        };
        let mut walk = self
            .objects
            .range((start, Bound::Unbounded))
            .take_while(|((t, n, _), _)| *t == rt && ns.is_none_or(|ns| ns == n))
            .map(|(_, v)| v);
        let mut page = Vec::new();
        for v in walk.by_ref() {
            if labels.matches(&v["metadata"]["labels"]) && fields.matches(v) {
                page.push(v);
                if page.len() == limit {
                    break;
                }
            }
        }
        let rest = if labels.is_empty() && fields.is_empty() {
            match walk.count() {
                0 => Rest::Nothing,
                n => Rest::Count(n),
            }
        } else if walk.any(|v| labels.matches(&v["metadata"]["labels"]) && fields.matches(v)) {
            Rest::Unknown
        } else {
            Rest::Nothing
        };
        (page, rest)
    }

    /// Changes an object in place with `f` and bumps its resourceVersion.
    pub fn modify(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        f: impl FnOnce(&mut Value),
    ) -> Result<Value, StoreError> {
        let key = Store::key(rt, ns, name);
        if !self.objects.contains_key(&key) {
            return Err(StoreError::NotFound);
        }
        let rv = self.bump();
        let obj = self.objects.get_mut(&key).ok_or(StoreError::NotFound)?;
        let node_before = obj["spec"]["nodeName"].as_str().map(str::to_owned);
        let owners_before = owner_uids(obj);
        f(obj);
        obj["metadata"]["resourceVersion"] = json!(rv);
        let obj = obj.clone();
        if owner_uids(&obj) != owners_before {
            self.unindex(&key, &owners_before);
            self.index_owners(&key, &obj);
        }
        if rt == PODS && obj["spec"]["nodeName"].as_str() != node_before.as_deref() {
            if let Some(n) = node_before {
                self.adjust_node(&n, -1);
            }
            self.count_on_node(&obj, 1);
        }
        self.emit(rt, "MODIFIED", &obj);
        Ok(obj)
    }

    /// Applies an RFC 7386 JSON merge patch. Identity fields (name, namespace, uid) can't change.
    pub fn merge_patch(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        patch: &Value,
    ) -> Result<Value, StoreError> {
        if !patch.is_object() {
            return Err(StoreError::Invalid("patch must be a JSON object".into()));
        }
        // Anything but an object here would leave the object without metadata.
        if patch.get("metadata").is_some_and(|m| !m.is_object()) {
            return Err(StoreError::Invalid(
                "metadata: Invalid value: must be an object".into(),
            ));
        }
        let current = self.get(rt, ns, name).ok_or(StoreError::NotFound)?;
        // `metadata.uid` is immutable: a patch that names another uid fails validation, as on
        // the API server (a replacement with the same name is never patched).
        if let Some(want) = patch["metadata"]["uid"].as_str() {
            let have = current["metadata"]["uid"].as_str().unwrap_or("");
            if have != want {
                return Err(StoreError::Unprocessable(format!(
                    "metadata.uid: Invalid value: \"{want}\": field is immutable"
                )));
            }
        }
        let deleting = is_deleting(current);
        if deleting && patch["metadata"].get("finalizers").is_some() {
            let had = finalizers(current);
            let mut after = current.clone();
            merge(&mut after, patch);
            let added: Vec<String> = finalizers(&after)
                .into_iter()
                .filter(|f| !had.contains(f))
                .collect();
            if !added.is_empty() {
                let quoted: Vec<String> = added.iter().map(|f| format!("\"{f}\"")).collect();
                return Err(StoreError::Unprocessable(format!(
                    "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                )));
            }
        }
        let obj = self.modify(rt, ns, name, |obj| {
            let keep = (
                obj["metadata"]["name"].clone(),
                obj["metadata"]["namespace"].clone(),
                obj["metadata"]["uid"].clone(),
                obj["apiVersion"].clone(),
                obj["kind"].clone(),
                obj["metadata"]["deletionTimestamp"].clone(),
                obj["metadata"]["deletionGracePeriodSeconds"].clone(),
            );
            merge(obj, patch);
            obj["metadata"]["name"] = keep.0;
            if !keep.1.is_null() {
                obj["metadata"]["namespace"] = keep.1;
            }
            obj["metadata"]["uid"] = keep.2;
            obj["apiVersion"] = keep.3;
            obj["kind"] = keep.4;
            // Set only by a delete; a patch can neither set nor clear them.
            let meta = &mut obj["metadata"];
            for (field, value) in [
                ("deletionTimestamp", keep.5),
                ("deletionGracePeriodSeconds", keep.6),
            ] {
                if value.is_null() {
                    if let Some(m) = meta.as_object_mut() {
                        m.remove(field);
                    }
                } else {
                    meta[field] = value;
                }
            }
        })?;
        // The last finalizer of an object being deleted is gone: the object goes.
        if deleting && finalizers(&obj).is_empty() {
            let key = Store::key(rt, ns, name);
            return self.remove(&key).ok_or(StoreError::NotFound);
        }
        Ok(obj)
    }

    /// Removes finalizer `finalizer` from an object (a no-op when it lacks it). When that was
    /// the last one of an object being deleted, the object goes.
    pub fn remove_finalizer(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        finalizer: &str,
    ) -> Result<Deletion, StoreError> {
        let current = self.get(rt, ns, name).ok_or(StoreError::NotFound)?;
        let mut list = finalizers(current);
        let deleting = is_deleting(current);
        if list.iter().any(|f| f == finalizer) {
            list.retain(|f| f != finalizer);
            self.modify(rt, ns, name, |o| set_finalizers(o, &list))?;
        }
        if deleting && list.is_empty() {
            let key = Store::key(rt, ns, name);
            return self
                .remove(&key)
                .map(Deletion::Removed)
                .ok_or(StoreError::NotFound);
        }
        let object = self
            .get(rt, ns, name)
            .cloned()
            .ok_or(StoreError::NotFound)?;
        Ok(Deletion::Marked {
            object,
            first: false,
        })
    }

    /// Deletes an object, as the API server does: preconditions first (409 when the uid or
    /// resourceVersion differ: a replacement of the same name is never hit), then either the
    /// object goes at once, or — when it has finalizers, or the propagation policy adds one —
    /// it is marked with a deletionTimestamp and stays until they are removed. Deleting an
    /// object already being deleted changes nothing but the GC finalizers the policy asks for.
    pub fn delete(
        &mut self,
        rt: ResourceType,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deletion, StoreError> {
        let key = Store::key(rt, ns, name);
        let current = self.objects.get(&key).ok_or(StoreError::NotFound)?;
        if let Some(want) = &opts.uid {
            let have = current["metadata"]["uid"].as_str().unwrap_or("");
            if have != want {
                return Err(StoreError::Conflict(format!(
                    "Precondition failed: UID in precondition: {want}, UID in object meta: {have}"
                )));
            }
        }
        if let Some(want) = &opts.resource_version {
            let have = current["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or("");
            if have != want {
                return Err(StoreError::Conflict(format!(
                    "Precondition failed: ResourceVersion in precondition: {want}, ResourceVersion in object meta: {have}"
                )));
            }
        }
        let had = finalizers(current);
        let mut list = had.clone();
        let mut keep_only = |add: Option<&str>, drop: &[&str]| {
            list.retain(|f| !drop.contains(&f.as_str()));
            if let Some(a) = add
                && !list.iter().any(|f| f == a)
            {
                list.push(a.to_owned());
            }
        };
        match opts.propagation {
            Some(Propagation::Foreground) => keep_only(Some(FOREGROUND_DELETION), &[ORPHAN]),
            Some(Propagation::Orphan) => keep_only(Some(ORPHAN), &[FOREGROUND_DELETION]),
            Some(Propagation::Background) => keep_only(None, &[ORPHAN, FOREGROUND_DELETION]),
            None => {}
        }
        let deleting = is_deleting(current);
        if list.is_empty() {
            return self
                .remove(&key)
                .map(Deletion::Removed)
                .ok_or(StoreError::NotFound);
        }
        if deleting && list == had {
            return Ok(Deletion::Marked {
                object: current.clone(),
                first: false,
            });
        }
        let at = now_rfc3339();
        let grace = opts.grace_period_seconds.unwrap_or(0);
        let object = self.modify(rt, ns, name, |o| {
            set_finalizers(o, &list);
            if !deleting {
                o["metadata"]["deletionTimestamp"] = json!(at);
                o["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
            }
        })?;
        Ok(Deletion::Marked {
            object,
            first: !deleting,
        })
    }

    /// Takes an object out of the store (its pod's logs too) and tells the watchers.
    fn remove(&mut self, key: &Key) -> Option<Value> {
        let mut obj = self.objects.remove(key)?;
        self.unindex(key, &owner_uids(&obj));
        obj["metadata"]["resourceVersion"] = json!(self.bump());
        let rt = key.0;
        if rt == PODS {
            self.count_on_node(&obj, -1);
            // Logs are keyed by (namespace, pod, container): drop this pod's slice only.
            let from = (key.1.clone(), key.2.clone(), String::new());
            let doomed: Vec<_> = self
                .logs
                .range(from..)
                .take_while(|((n, p, _), _)| n == &key.1 && p == &key.2)
                .map(|(k, _)| k.clone())
                .collect();
            for k in doomed {
                self.logs.remove(&k);
                self.log_times.remove(&k);
            }
        }
        self.emit(rt, "DELETED", &obj);
        Some(obj)
    }

    /// The objects whose `ownerReferences` name `uid`, ordered as [`ALL_TYPES`] lists the
    /// types, then by namespace and name (the order a scan of every type would find them).
    pub fn owned_by(&self, uid: &str) -> Vec<(ResourceType, &Value)> {
        let mut found: Vec<(usize, &Key, &Value)> = self
            .owned
            .get(uid)
            .into_iter()
            .flatten()
            .filter_map(|k| {
                let rank = ALL_TYPES.iter().position(|t| *t == k.0)?;
                Some((rank, k, self.objects.get(k)?))
            })
            .collect();
        found.sort_by(|a, b| (a.0, &a.1.1, &a.1.2).cmp(&(b.0, &b.1.1, &b.1.2)));
        found.into_iter().map(|(_, k, v)| (k.0, v)).collect()
    }

    fn index_owners(&mut self, key: &Key, obj: &Value) {
        for uid in owner_uids(obj) {
            self.owned.entry(uid).or_default().insert(key.clone());
        }
    }

    fn unindex(&mut self, key: &Key, uids: &[String]) {
        for uid in uids {
            if let Some(set) = self.owned.get_mut(uid) {
                set.remove(key);
                if set.is_empty() {
                    self.owned.remove(uid);
                }
            }
        }
    }

    /// How many pods are bound to `node` now.
    pub fn pods_on_node(&self, node: &str) -> usize {
        self.pods_per_node.get(node).copied().unwrap_or(0)
    }

    fn count_on_node(&mut self, pod: &Value, delta: isize) {
        if let Some(n) = pod["spec"]["nodeName"].as_str() {
            let n = n.to_owned();
            self.adjust_node(&n, delta);
        }
    }

    fn adjust_node(&mut self, node: &str, delta: isize) {
        let c = self.pods_per_node.entry(node.to_owned()).or_default();
        *c = c.saturating_add_signed(delta);
    }

    /// Appends a line to a container's log.
    pub fn append_log(&mut self, ns: &str, pod: &str, container: &str, line: String) {
        self.append_log_at(ns, pod, container, jiff::Timestamp::now(), line);
    }

    /// Appends a line written at `at` (the world's clock, which tests may drive ahead):
    /// `kubectl logs --timestamps` and `sinceTime` see that time.
    pub fn append_log_at(
        &mut self,
        ns: &str,
        pod: &str,
        container: &str,
        at: jiff::Timestamp,
        line: String,
    ) {
        let key = (ns.to_owned(), pod.to_owned(), container.to_owned());
        self.log_times
            .entry(key.clone())
            .or_default()
            .push(rfc3339_nanos(at));
        self.logs.entry(key).or_default().push(line);
    }

    /// A container's log lines from line `from` on (0: all), with the times they were written.
    pub fn log_entries(&self, ns: &str, pod: &str, container: &str, from: usize) -> Vec<LogEntry> {
        let key = (ns.to_owned(), pod.to_owned(), container.to_owned());
        let times = self.log_times.get(&key).map_or(&[][..], Vec::as_slice);
        self.log(ns, pod, container)
            .iter()
            .zip(times)
            .skip(from)
            .map(|(line, time)| LogEntry {
                time: time.clone(),
                line: line.clone(),
            })
            .collect()
    }

    /// A container's log lines (all of them; the API layer applies `tailLines`).
    pub fn log(&self, ns: &str, pod: &str, container: &str) -> &[String] {
        self.logs
            .get(&(ns.to_owned(), pod.to_owned(), container.to_owned()))
            .map_or(&[], Vec::as_slice)
    }
}

/// The owner uids in `obj`'s `ownerReferences`.
fn owner_uids(obj: &Value) -> Vec<String> {
    obj["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uid"].as_str().map(str::to_owned))
        .collect()
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// RFC 7386: objects merge recursively, `null` removes a key, anything else replaces.
pub fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = json!({});
            }
            if let Value::Object(t) = target {
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge(t.entry(k.clone()).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// The current time as Kubernetes writes it (RFC 3339, seconds, UTC).
pub fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .round(jiff::Unit::Second)
        .unwrap_or_else(|_| jiff::Timestamp::now())
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A time as `kubectl logs --timestamps` shows it (RFC 3339, nanoseconds, UTC).
pub fn rfc3339_nanos(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.9fZ").to_string()
}
