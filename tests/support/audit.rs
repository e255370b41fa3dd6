//! The one audit-log reader: `--audit-log FILE` holds one JSON object per API mutation.

use std::path::Path;

use serde_json::Value;

/// The audit log's lines, in order; none when the file was never written (a run stopped
/// before its first mutation opens no log).
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("audit line is JSON"))
        .collect()
}
