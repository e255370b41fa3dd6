//! `--audit-log FILE`: one JSON line per API mutation, appended as it happens.
//!
//! Lines hold the time, the action, the target, the runner id and the HTTP status; never a
//! token or any header.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::drain::event::Mutation;
use crate::error::{Error, Result};

/// An open audit log.
#[derive(Debug)]
pub struct AuditLog {
    file: std::fs::File,
    path: String,
}

#[derive(Serialize)]
struct Line<'a> {
    time: String,
    action: &'a str,
    target: &'a str,
    runner_id: Option<u64>,
    status: u16,
}

impl AuditLog {
    /// Opens `path` for appending (created if missing).
    pub fn open(path: &Path) -> Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                Error::usage(format!("failed to open the audit log `{}`", path.display()))
                    .with_source(e)
            })?;
        Ok(AuditLog {
            file,
            path: path.display().to_string(),
        })
    }

    /// Appends one mutation; flushed at once so a crash loses nothing already done.
    pub fn record(&mut self, m: &Mutation) -> Result<()> {
        let line = Line {
            time: jiff::Timestamp::now().to_string(),
            action: m.action,
            target: &m.target,
            runner_id: m.runner_id,
            status: m.status,
        };
        let mut text = serde_json::to_string(&line)
            .map_err(|e| Error::failed("failed to encode an audit record").with_source(e))?;
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| {
                Error::failed(format!("failed to write the audit log `{}`", self.path))
                    .with_source(e)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_one_json_line_per_mutation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let mut log = AuditLog::open(&path).unwrap();
        log.record(&Mutation {
            action: "unregister",
            target: "runner/r1".into(),
            runner_id: Some(7),
            status: 204,
        })
        .unwrap();
        log.record(&Mutation {
            action: "delete",
            target: "pod/ns/r1".into(),
            runner_id: Some(7),
            status: 200,
        })
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["action"], "unregister");
        assert_eq!(lines[0]["status"], 204);
        assert_eq!(lines[1]["target"], "pod/ns/r1");
        assert!(lines[1]["time"].as_str().unwrap().ends_with('Z'));
    }
}
