//! `?watch=true`: a stream of `{"type":…,"object":…}` lines, filtered by namespace and selectors.
//!
//! Without a resourceVersion (or with "0") the stream starts with the current objects as
//! `ADDED`, like the real server; with one it replays the store's kept history after it, or
//! sends a 410 `Expired` error event when that history is gone (clients then relist). Every
//! stream ends by itself at `timeoutSeconds`, or after [`DEFAULT_TIMEOUT`]: kubectl waits on
//! watches, so a server that never ends one would hang it, and one that ignores `watch=true`
//! would hang it too.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::Query;
use super::objects::selectors;
use super::status::ApiError;
use super::table;
use crate::store::{FieldSelector, LabelSelector, ResourceType, WatchEvent};
use crate::world::{self, SharedWorld};

/// How long a watch without `timeoutSeconds` lasts.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest watch served, whatever the client asks for.
const MAX_TIMEOUT: Duration = Duration::from_secs(1800);

struct Filter {
    rt: ResourceType,
    ns: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    fn matches(&self, e: &WatchEvent) -> bool {
        e.kind == self.rt
            && self
                .ns
                .as_deref()
                .is_none_or(|ns| e.object["metadata"]["namespace"] == ns)
            && self.labels.matches(&e.object["metadata"]["labels"])
            && self.fields.matches(&e.object)
    }
}

/// Encodes events, as objects or as Tables with the column definitions on the first one.
struct Encoder {
    rt: ResourceType,
    table: bool,
    sent: bool,
}

impl Encoder {
    fn line(&mut self, event_type: &str, object: &Value) -> Bytes {
        if event_type == "ERROR" || !self.table {
            return line(event_type, object);
        }
        let first = !self.sent;
        self.sent = true;
        line(event_type, &table::event_table(self.rt, object, first))
    }
}

fn line(event_type: &str, object: &Value) -> Bytes {
    let mut text = json!({ "type": event_type, "object": object }).to_string();
    text.push('\n');
    Bytes::from(text)
}

/// Starts a watch of `rt` in `ns` (all namespaces when `None`); `table`: the client asked for
/// Tables.
pub(crate) fn watch(
    world: &SharedWorld,
    rt: ResourceType,
    ns: Option<String>,
    q: &Query,
    table: bool,
) -> Result<Response, ApiError> {
    let (labels, fields) = selectors(rt, q)?;
    let timeout = match q.get("timeoutSeconds") {
        None | Some("") => DEFAULT_TIMEOUT,
        Some(t) => Duration::from_secs(
            t.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid timeoutSeconds {t:?}")))?,
        )
        .min(MAX_TIMEOUT),
    };
    let since: Option<u64> = match q.get("resourceVersion") {
        None | Some("") | Some("0") => None,
        Some(rv) => Some(
            rv.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid resourceVersion {rv:?}")))?,
        ),
    };
    let filter = Filter {
        rt,
        ns,
        labels,
        fields,
    };
    let mut enc = Encoder {
        rt,
        table,
        sent: false,
    };
    // Subscribing and taking the starting point under one lock: nothing falls in between.
    let (mut events, initial, expired) = {
        let w = world::lock(world);
        let events = w.store.subscribe();
        match since {
            None => {
                let initial: Vec<Bytes> = w
                    .store
                    .list(rt, filter.ns.as_deref(), &filter.labels, &filter.fields)
                    .into_iter()
                    .map(|o| enc.line("ADDED", o))
                    .collect();
                (events, initial, false)
            }
            Some(rv) => match w.store.events_since(rv) {
                Some(replay) => {
                    let initial = replay
                        .iter()
                        .filter(|e| filter.matches(e))
                        .map(|e| enc.line(e.event_type, &e.object))
                        .collect();
                    (events, initial, false)
                }
                None => {
                    let expired = ApiError::expired(rv, w.store.resource_version());
                    (events, vec![line("ERROR", &expired.body())], true)
                }
            },
        }
    };
    let world = world.clone();
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(64);
    tokio::spawn(async move {
        for l in initial {
            if tx.send(l).await.is_err() {
                return;
            }
        }
        if expired {
            return;
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let next = tokio::select! {
                () = tx.closed() => return,
                r = tokio::time::timeout_at(deadline, events.recv()) => r,
            };
            match next {
                Ok(Ok(e)) if filter.matches(&e) => {
                    if tx.send(enc.line(e.event_type, &e.object)).await.is_err() {
                        return;
                    }
                }
                Ok(Ok(_)) => {}
                // This watcher fell behind: like the real server, tell it to relist, and end.
                Ok(Err(RecvError::Lagged(_))) => {
                    let rv = world::lock(&world).store.resource_version();
                    let _ = tx
                        .send(line("ERROR", &ApiError::expired(rv, rv).body()))
                        .await;
                    return;
                }
                Ok(Err(RecvError::Closed)) | Err(_) => return,
            }
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    Ok((
        [(CONTENT_TYPE, "application/json")],
        Body::from_stream(stream),
    )
        .into_response())
}
