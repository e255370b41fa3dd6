//! `pods/log`: a container's log as text, with the API server's container rules and the
//! `sinceSeconds`/`sinceTime`, `tailLines`, `timestamps`, `limitBytes`, `previous` and `follow`
//! parameters, and the kubelet's 400 for a container that is waiting to start.
//!
//! The log is the world's [`crate::noise::LogView`]: the lines written to the
//! container and, under `--log-noise`, the runner's dockerd noise, synthesized per read.
//!
//! `follow=true` streams lines as the world appends them and ends when the pod goes away (or is
//! replaced under the same name), at `limitBytes`, or after [`super::watch::DEFAULT_TIMEOUT`]:
//! every stream stops by itself.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::Query;
use super::status::ApiError;
use crate::store::{LogEntry, PODS};
use crate::world::{self, SharedWorld};

/// How often a followed log looks for new lines.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn number(q: &Query, name: &str) -> Result<Option<usize>, ApiError> {
    q.get(name)
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| ApiError::bad_request(format!("{name}: Invalid value: {v:?}")))
        })
        .transpose()
}

/// What a log request asks for, checked before the pod is looked at.
struct Options {
    tail: Option<usize>,
    limit_bytes: Option<usize>,
    since: Option<jiff::Timestamp>,
    timestamps: bool,
    follow: bool,
}

/// `now` is the world's clock (`sinceSeconds` counts back from it).
fn options(q: &Query, now: jiff::Timestamp) -> Result<Options, ApiError> {
    let since_seconds = number(q, "sinceSeconds")?;
    let since_time = q.get("sinceTime");
    if since_seconds.is_some() && since_time.is_some() {
        return Err(ApiError::bad_request(
            "at most one of `sinceTime` or `sinceSeconds` may be specified",
        ));
    }
    let since = match (since_seconds, since_time) {
        (Some(0), _) => {
            return Err(ApiError::bad_request(
                "sinceSeconds: Invalid value: 0: must be greater than 0",
            ));
        }
        (Some(s), _) => {
            let secs = i64::try_from(s).unwrap_or(i64::MAX);
            Some(
                now.checked_sub(jiff::SignedDuration::from_secs(secs))
                    .unwrap_or(jiff::Timestamp::MIN),
            )
        }
        (None, Some(t)) => {
            let t: jiff::Timestamp = t.parse().map_err(|_| {
                ApiError::bad_request(format!("sinceTime: Invalid value: {t:?}: not RFC 3339"))
            })?;
            // The API server hands `sinceTime` to the kubelet as RFC 3339 in whole seconds: a
            // fraction is dropped, so the answer may start up to a second earlier.
            Some(jiff::Timestamp::from_second(t.as_second()).unwrap_or(t))
        }
        (None, None) => None,
    };
    Ok(Options {
        tail: number(q, "tailLines")?,
        limit_bytes: number(q, "limitBytes")?,
        since,
        timestamps: q.flag("timestamps"),
        follow: q.flag("follow"),
    })
}

/// The container a request names, by the API server's rules.
fn container(pod: &Value, name: &str, q: &Query) -> Result<String, ApiError> {
    let containers = names(&pod["spec"]["containers"]);
    let init = names(&pod["spec"]["initContainers"]);
    match q.get("container").filter(|c| !c.is_empty()) {
        Some(c) if containers.iter().chain(&init).any(|n| n == c) => Ok(c.to_owned()),
        Some(c) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {name}"
        ))),
        None if containers.len() == 1 => Ok(containers[0].clone()),
        None => {
            let mut msg = format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                containers.join(" ")
            );
            if !init.is_empty() {
                msg.push_str(&format!(
                    " or one of the init containers: [{}]",
                    init.join(" ")
                ));
            }
            Err(ApiError::bad_request(msg))
        }
    }
}

/// What the kubelet answers for the log of a container that has not started
/// (`validateContainerLogStatus`), relayed by the API server as 400 BadRequest: `kubectl logs`
/// prints `Error from server (BadRequest): container "runner" in pod "NAME" is waiting to
/// start: ContainerCreating`. The kubelet words the two image-pull reasons its own way.
fn waiting_to_start(pod: &Value, name: &str, container: &str) -> Option<String> {
    let status = &pod["status"];
    let cs = ["containerStatuses", "initContainerStatuses"]
        .iter()
        .filter_map(|k| status[*k].as_array())
        .flatten()
        .find(|c| c["name"] == container)?;
    let waiting = cs["state"]["waiting"].as_object()?;
    // A container that ran before has a log to show (the kubelet serves the last one).
    if cs["lastState"]["terminated"].is_object() {
        return None;
    }
    let reason = waiting.get("reason").and_then(Value::as_str).unwrap_or("");
    let what = match reason {
        "ErrImagePull" => "image can't be pulled",
        "ImagePullBackOff" => "trying and failing to pull image",
        other => other,
    };
    Some(format!(
        "container \"{container}\" in pod \"{name}\" is waiting to start: {what}"
    ))
}

fn render(entries: &[LogEntry], timestamps: bool) -> String {
    let mut text = String::new();
    for e in entries {
        if timestamps {
            text.push_str(&e.time);
            text.push(' ');
        }
        text.push_str(&e.line);
        text.push('\n');
    }
    text
}

fn truncate(text: &mut String, limit: usize) {
    if limit < text.len() {
        let mut cut = limit;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
}

/// The log of one container of pod `ns`/`name`, as text or, with `follow`, a stream.
pub(crate) fn logs(
    world: &SharedWorld,
    ns: &str,
    name: &str,
    q: &Query,
) -> Result<Response, ApiError> {
    let now = world::lock(world).wall_now();
    let opts = options(q, now)?;
    let (container, uid, view) = {
        let w = world::lock(world);
        let pod = w
            .store
            .get(PODS, Some(ns), name)
            .ok_or_else(|| ApiError::not_found(PODS, name))?;
        let container = container(pod, name, q)?;
        if let Some(why) = waiting_to_start(pod, name, &container) {
            return Err(ApiError::bad_request(why));
        }
        if q.flag("previous") {
            return Err(ApiError::bad_request(format!(
                "previous terminated container \"{container}\" in pod \"{name}\" not found"
            )));
        }
        let uid = pod["metadata"]["uid"].clone();
        let view = w.log_view(ns, name, &container);
        (container, uid, view)
    };
    // Runner noise is synthesized here, outside the world's lock.
    let seen = if opts.follow {
        view.entries(None).len()
    } else {
        0
    };
    let recent: Vec<LogEntry> = view.entries(opts.since);
    let skip = opts.tail.map_or(0, |t| recent.len().saturating_sub(t));
    let mut text = render(&recent[skip..], opts.timestamps);
    if let Some(limit) = opts.limit_bytes {
        truncate(&mut text, limit);
    }
    if !opts.follow || opts.limit_bytes.is_some_and(|l| text.len() >= l) {
        return Ok(([(CONTENT_TYPE, "text/plain")], text).into_response());
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    let world = world.clone();
    let (ns, name) = (ns.to_owned(), name.to_owned());
    tokio::spawn(async move {
        let mut sent = text.len();
        if tx.send(Bytes::from(text)).await.is_err() {
            return;
        }
        let mut seen = seen;
        let deadline = tokio::time::Instant::now() + super::watch::DEFAULT_TIMEOUT;
        while tokio::time::Instant::now() < deadline {
            tokio::select! {
                () = tx.closed() => return,
                () = tokio::time::sleep(FOLLOW_POLL) => {}
            }
            let view = {
                let w = world::lock(&world);
                match w.store.get(PODS, Some(&ns), &name) {
                    Some(pod) if pod["metadata"]["uid"] == uid => {}
                    // The container is gone: a followed log ends, as when it terminates.
                    _ => return,
                }
                w.log_view(&ns, &name, &container)
            };
            let new: Vec<LogEntry> = view.entries(None).into_iter().skip(seen).collect();
            if new.is_empty() {
                continue;
            }
            seen += new.len();
            let mut chunk = render(&new, opts.timestamps);
            if let Some(limit) = opts.limit_bytes {
                truncate(&mut chunk, limit.saturating_sub(sent));
            }
            sent += chunk.len();
            if tx.send(Bytes::from(chunk)).await.is_err()
                || opts.limit_bytes.is_some_and(|l| sent >= l)
            {
                return;
            }
        }
    });
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    Ok(([(CONTENT_TYPE, "text/plain")], Body::from_stream(stream)).into_response())
}
