//! A short picture of the world for people: runners per node and state (the demo shows it).

use std::collections::BTreeMap;

use serde_json::json;

use crate::runners::SlotState;
use crate::store::{FieldSelector, LabelSelector, NODES, PODS};
use crate::world::World;

/// Runner counts on one node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeRow {
    pub node: String,
    pub cordoned: bool,
    pub idle: u32,
    pub busy: u32,
    /// Pending, finishing, unregistered or stuck runners.
    pub other: u32,
}

impl World {
    /// Runners per node: idle (registered, online, free), busy, and anything else.
    pub fn overview(&self) -> Vec<NodeRow> {
        let all = (LabelSelector::default(), FieldSelector::default());
        let mut rows: BTreeMap<String, NodeRow> = self
            .store
            .list(NODES, None, &all.0, &all.1)
            .into_iter()
            .filter_map(|n| {
                let name = n["metadata"]["name"].as_str()?.to_owned();
                let row = NodeRow {
                    node: name.clone(),
                    cordoned: n["spec"]["unschedulable"] == json!(true),
                    ..NodeRow::default()
                };
                Some((name, row))
            })
            .collect();
        for ((ns, pod), slot) in &self.runners {
            let Some(p) = self.store.get(PODS, Some(ns), pod) else {
                continue;
            };
            let node = p["spec"]["nodeName"]
                .as_str()
                .unwrap_or("(unscheduled)")
                .to_owned();
            let row = rows.entry(node.clone()).or_insert_with(|| NodeRow {
                node,
                ..NodeRow::default()
            });
            let registered = slot
                .registration
                .and_then(|id| self.registrations.get(&id))
                .is_some_and(|r| r.status == "online");
            match (slot.state, slot.job, registered) {
                (SlotState::Running, Some(_), _) => row.busy += 1,
                (SlotState::Running, None, true) => row.idle += 1,
                _ => row.other += 1,
            }
        }
        rows.into_values().collect()
    }
}

/// The overview as a small aligned table.
pub fn render(rows: &[NodeRow]) -> String {
    let mut out = format!(
        "  {:<16} {:>5} {:>5} {:>6}\n",
        "NODE", "IDLE", "BUSY", "OTHER"
    );
    let mut total = NodeRow::default();
    for r in rows {
        let node = if r.cordoned {
            format!("{} (cordoned)", r.node)
        } else {
            r.node.clone()
        };
        out.push_str(&format!(
            "  {node:<16} {:>5} {:>5} {:>6}\n",
            r.idle, r.busy, r.other
        ));
        total.idle += r.idle;
        total.busy += r.busy;
        total.other += r.other;
    }
    out.push_str(&format!(
        "  {:<16} {:>5} {:>5} {:>6}\n",
        "total", total.idle, total.busy, total.other
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overview_counts_each_runner_once() {
        let args = crate::options(["--runners", "9", "--busy", "0.34"]).unwrap();
        let w = World::populated(args);
        let rows = w.overview();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows.iter().map(|r| r.idle + r.busy + r.other).sum::<u32>(),
            9
        );
        assert_eq!(rows.iter().map(|r| r.busy).sum::<u32>(), 3);
        let text = render(&rows);
        assert!(text.contains("node-1") && text.contains("total"), "{text}");
    }
}
