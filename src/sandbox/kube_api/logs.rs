//! `pods/log`: a container's log as text, with the API server's container rules and the
//! `tailLines`, `timestamps`, `limitBytes` and `previous` parameters.
//!
//! `follow=true` answers the log so far and ends: the sandbox does not stream logs.

use serde_json::Value;

use super::Query;
use super::status::ApiError;
use crate::sandbox::store::PODS;
use crate::sandbox::world::{self, SharedWorld};

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn flag(q: &Query, name: &str) -> bool {
    q.get(name) == Some("true")
}

fn number(q: &Query, name: &str) -> Result<Option<usize>, ApiError> {
    q.get(name)
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| ApiError::bad_request(format!("{name}: Invalid value: {v:?}")))
        })
        .transpose()
}

/// The log text of one container of pod `ns`/`name`.
pub(crate) fn logs(
    world: &SharedWorld,
    ns: &str,
    name: &str,
    q: &Query,
) -> Result<String, ApiError> {
    let tail = number(q, "tailLines")?;
    let limit_bytes = number(q, "limitBytes")?;
    let w = world::lock(world);
    let pod = w
        .store
        .get(PODS, Some(ns), name)
        .ok_or_else(|| ApiError::not_found(PODS, name))?;
    let containers = names(&pod["spec"]["containers"]);
    let init = names(&pod["spec"]["initContainers"]);
    let container = match q.get("container").filter(|c| !c.is_empty()) {
        Some(c) if containers.iter().chain(&init).any(|n| n == c) => c.to_owned(),
        Some(c) => {
            return Err(ApiError::bad_request(format!(
                "container {c} is not valid for pod {name}"
            )));
        }
        None if containers.len() == 1 => containers[0].clone(),
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
            return Err(ApiError::bad_request(msg));
        }
    };
    if flag(q, "previous") {
        return Err(ApiError::bad_request(format!(
            "previous terminated container \"{container}\" in pod \"{name}\" not found"
        )));
    }
    let entries = w.store.log_entries(ns, name, &container);
    drop(w);
    let skip = tail.map_or(0, |t| entries.len().saturating_sub(t));
    let timestamps = flag(q, "timestamps");
    let mut text = String::new();
    for e in &entries[skip..] {
        if timestamps {
            text.push_str(&e.time);
            text.push(' ');
        }
        text.push_str(&e.line);
        text.push('\n');
    }
    if let Some(limit) = limit_bytes.filter(|l| *l < text.len()) {
        let mut cut = limit;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    Ok(text)
}
