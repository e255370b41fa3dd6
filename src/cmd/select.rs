//! The selection flags shared by `list`, `drain` and `recreate`, turned into what the cluster
//! lists server-side and what the inventory filters client-side.

use crate::cli::SelectionArgs;
use crate::cluster::PodSelection;
use crate::drain::plan::Narrowing;
use crate::error::Result;
use crate::inventory::{Filter, State};

/// A resolved selection.
#[derive(Debug)]
pub(crate) struct Selection {
    pub pods: PodSelection,
    pub filter: Filter,
    pub narrowing: Narrowing,
}

/// Resolves `sel` (and `--state`, `--group`) into pod selection, filter and narrowing.
pub(crate) fn resolve(sel: &SelectionArgs, states: &[State], group: bool) -> Result<Selection> {
    let pods = PodSelection {
        label_selector: sel.selector.clone().filter(|s| !s.trim().is_empty()),
        node: sel.node.clone().filter(|s| !s.is_empty()),
        scale_set: sel.scale_set.clone().filter(|s| !s.is_empty()),
    };
    let pod_selected = pods != PodSelection::default();
    let filter = Filter::new(&sel.runners, states, &sel.labels, pod_selected, group)?;
    let narrowing = Narrowing {
        names: !sel.runners.is_empty(),
        selector: pods.label_selector.is_some(),
        node: pods.node.is_some(),
        scale_set: pods.scale_set.is_some(),
        labels: !sel.labels.is_empty(),
        group,
    };
    Ok(Selection {
        pods,
        filter,
        narrowing,
    })
}
