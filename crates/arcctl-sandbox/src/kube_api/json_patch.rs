//! RFC 6902 JSON patch (`kubectl patch --type json`), turned into a merge patch.
//!
//! The world only mutates objects through `World::patch_object`, which takes a JSON merge patch,
//! so a JSON patch is applied to a copy and the difference is handed on as a merge patch.

use serde_json::{Map, Value};

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let rest = pointer
        .strip_prefix('/')
        .ok_or_else(|| format!("invalid JSON pointer {pointer:?}"))?;
    Ok(rest.split('/').map(unescape).collect())
}

fn index(token: &str, len: usize, allow_end: bool) -> Result<usize, String> {
    if allow_end && token == "-" {
        return Ok(len);
    }
    let i: usize = token
        .parse()
        .map_err(|_| format!("invalid array index {token:?}"))?;
    if i > len || (!allow_end && i == len) {
        return Err(format!("array index {i} out of bounds"));
    }
    Ok(i)
}

/// The parent container of `pointer` and its last token.
fn parent<'a>(doc: &'a mut Value, pointer: &str) -> Result<(&'a mut Value, String), String> {
    let mut toks = tokens(pointer)?;
    let last = toks
        .pop()
        .ok_or_else(|| "the root can't be changed".to_owned())?;
    let mut cur = doc;
    for t in toks {
        cur = match cur {
            Value::Object(m) => m
                .get_mut(&t)
                .ok_or_else(|| format!("missing path {pointer:?}"))?,
            Value::Array(a) => {
                let i = index(&t, a.len(), false)?;
                &mut a[i]
            }
            _ => return Err(format!("missing path {pointer:?}")),
        };
    }
    Ok((cur, last))
}

fn get(doc: &Value, pointer: &str) -> Result<Value, String> {
    doc.pointer(pointer)
        .cloned()
        .ok_or_else(|| format!("missing path {pointer:?}"))
}

fn add(doc: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    let (p, last) = parent(doc, pointer)?;
    match p {
        Value::Object(m) => {
            m.insert(last, value);
        }
        Value::Array(a) => {
            let i = index(&last, a.len(), true)?;
            a.insert(i, value);
        }
        _ => return Err(format!("missing path {pointer:?}")),
    }
    Ok(())
}

fn remove(doc: &mut Value, pointer: &str) -> Result<Value, String> {
    let (p, last) = parent(doc, pointer)?;
    match p {
        Value::Object(m) => m
            .remove(&last)
            .ok_or_else(|| format!("missing path {pointer:?}")),
        Value::Array(a) => {
            let i = index(&last, a.len(), false)?;
            Ok(a.remove(i))
        }
        _ => Err(format!("missing path {pointer:?}")),
    }
}

/// Applies the operations in `ops` (a JSON array) to `doc`.
pub(crate) fn apply(doc: &mut Value, ops: &Value) -> Result<(), String> {
    let ops = ops
        .as_array()
        .ok_or_else(|| "a JSON patch must be an array of operations".to_owned())?;
    for op in ops {
        let path = op["path"]
            .as_str()
            .ok_or_else(|| "an operation lacks \"path\"".to_owned())?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| format!("operation on {path:?} lacks \"value\""))
        };
        let from = || {
            op["from"]
                .as_str()
                .ok_or_else(|| format!("operation on {path:?} lacks \"from\""))
        };
        match op["op"].as_str().unwrap_or("") {
            "add" => add(doc, path, value()?)?,
            "remove" => {
                remove(doc, path)?;
            }
            "replace" => {
                remove(doc, path)?;
                add(doc, path, value()?)?;
            }
            "move" => {
                let v = remove(doc, from()?)?;
                add(doc, path, v)?;
            }
            "copy" => {
                let v = get(doc, from()?)?;
                add(doc, path, v)?;
            }
            "test" => {
                if get(doc, path)? != value()? {
                    return Err(format!("testing value {path} failed"));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}

/// The JSON merge patch that turns `old` into `new`.
pub(crate) fn diff(old: &Value, new: &Value) -> Value {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let mut out = Map::new();
            for (k, ov) in o {
                match n.get(k) {
                    None => {
                        out.insert(k.clone(), Value::Null);
                    }
                    Some(nv) if nv != ov => {
                        out.insert(k.clone(), diff(ov, nv));
                    }
                    Some(_) => {}
                }
            }
            for (k, nv) in n {
                if !o.contains_key(k) {
                    out.insert(k.clone(), nv.clone());
                }
            }
            Value::Object(out)
        }
        _ => new.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn applies_and_diffs() {
        let old = json!({"metadata": {"labels": {"a": "1", "b/c": "2"}}, "spec": {"x": [1, 2]}});
        let mut new = old.clone();
        apply(
            &mut new,
            &json!([
                {"op": "add", "path": "/metadata/annotations", "value": {"k": "v"}},
                {"op": "remove", "path": "/metadata/labels/b~1c"},
                {"op": "replace", "path": "/spec/x/0", "value": 9},
                {"op": "test", "path": "/metadata/labels/a", "value": "1"},
            ]),
        )
        .unwrap();
        assert_eq!(
            new,
            json!({"metadata": {"labels": {"a": "1"}, "annotations": {"k": "v"}}, "spec": {"x": [9, 2]}})
        );
        let patch = diff(&old, &new);
        assert_eq!(
            patch,
            json!({"metadata": {"labels": {"b/c": null}, "annotations": {"k": "v"}}, "spec": {"x": [9, 2]}})
        );
        let mut merged = old.clone();
        crate::store::merge(&mut merged, &patch);
        assert_eq!(merged, new);
        assert!(apply(&mut new, &json!([{"op": "remove", "path": "/nope"}])).is_err());
        assert!(
            apply(
                &mut new,
                &json!([{"op": "test", "path": "/spec/x/0", "value": 1}])
            )
            .is_err()
        );
    }
}
