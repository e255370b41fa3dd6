//! `arcctl list` output: the table and wide table, the `RunnerList` JSON/YAML document, names,
//! and the summary line on stderr.
//!
//! Rendering is pure (entries and a clock in, text out) so it is snapshot-tested; [`write`] is
//! the only place that writes, and a closed stdout pipe ends it quietly with exit 0.

use serde::Serialize;

use crate::cli::OutputFormat;
use crate::cluster::Mode;
use crate::context::Context;
use crate::error::{Error, Result, exit};
use crate::inventory::{Entry, Inventory, State, counts};
use crate::output::age;
use crate::output::table::{self, Cell, Color};

/// The `apiVersion` of the JSON/YAML document; bump on incompatible schema changes.
pub const API_VERSION: &str = "arcctl/v1";

const NONE: &str = "<none>";

/// How the list is presented.
#[derive(Debug, Clone, Copy)]
pub struct ListStyle {
    pub format: OutputFormat,
    pub headers: bool,
    /// Colour in the table on stdout.
    pub color: bool,
    /// The summary line and warnings on stderr.
    pub chatty: bool,
}

/// The JSON/YAML document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunnerList<'a> {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub items: Items<'a>,
}

/// The entries as document items, each made as it is serialized (never all at once).
#[derive(Debug, Clone, Copy)]
pub struct Items<'a>(pub &'a [Entry]);

impl Serialize for Items<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Item::from_entry))
    }
}

/// One runner in the document. Every key is always present (`null` when unknown), so `jq`
/// filters never need `?`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item<'a> {
    pub name: &'a str,
    /// GitHub's runner id.
    pub id: Option<u64>,
    pub state: State,
    /// GitHub's busy flag, or the EphemeralRunner's job; `null` for pod-only runners without one.
    pub busy: Option<bool>,
    /// GitHub's `online` / `offline`.
    pub status: Option<&'a str>,
    pub os: Option<&'a str>,
    pub labels: Vec<&'a str>,
    pub runner_group_id: Option<u64>,
    pub ephemeral: Option<bool>,
    pub version: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// The pod's name (equal to `name`).
    pub pod: Option<&'a str>,
    pub pod_uid: Option<&'a str>,
    pub pod_phase: Option<&'a str>,
    pub node: Option<&'a str>,
    pub mode: Option<Mode>,
    pub scale_set: Option<&'a str>,
    pub owner: Option<OwnerItem<'a>>,
    /// The runner id the cluster recorded (`actions-runner/id` or EphemeralRunner status).
    pub recorded_runner_id: Option<u64>,
    pub job: Option<&'a str>,
    /// The pod's creation time (RFC 3339).
    pub created_at: Option<String>,
    /// Why the state is what it is, when not obvious (conflicts, finished pods).
    pub reason: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerItem<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
}

impl<'a> Item<'a> {
    pub fn from_entry(e: &'a Entry) -> Self {
        let reg = e.registration.as_ref();
        let pod = e.pod.as_ref();
        Item {
            name: &e.name,
            id: reg.map(|r| r.id),
            state: e.state,
            busy: e.busy(),
            status: reg.map(|r| r.status.as_str()),
            os: reg.map(|r| r.os.as_str()).filter(|s| !s.is_empty()),
            labels: reg
                .map(|r| r.labels.iter().map(|l| l.name.as_str()).collect())
                .unwrap_or_default(),
            runner_group_id: reg.and_then(|r| r.runner_group_id),
            ephemeral: reg.and_then(|r| r.ephemeral),
            version: reg.and_then(|r| r.version.as_deref()),
            namespace: pod.map(|p| p.namespace.as_str()),
            pod: pod.map(|p| p.name.as_str()),
            pod_uid: pod.map(|p| p.uid.as_str()),
            pod_phase: pod.and_then(|p| p.phase.as_deref()),
            node: pod.and_then(|p| p.node.as_deref()),
            mode: pod.map(|p| p.mode),
            scale_set: pod.and_then(|p| p.scale_set.as_deref()),
            owner: pod.and_then(|p| p.owner.as_ref()).map(|o| OwnerItem {
                api_version: &o.api_version,
                kind: &o.kind,
                name: &o.name,
                uid: &o.uid,
            }),
            recorded_runner_id: e.recorded_runner_id(),
            job: e.job.as_deref(),
            created_at: pod.and_then(|p| p.created).map(|t| t.to_string()),
            reason: e.reason.as_deref(),
        }
    }
}

/// The document for `entries`.
pub fn document(entries: &[Entry]) -> RunnerList<'_> {
    RunnerList {
        api_version: API_VERSION,
        kind: "RunnerList",
        items: Items(entries),
    }
}

/// Streams the pretty JSON document (and a final newline) into `w`.
pub fn write_json(w: &mut dyn std::io::Write, entries: &[Entry]) -> std::io::Result<()> {
    // Plain structs of strings and numbers: only the writer can fail.
    serde_json::to_writer_pretty(&mut *w, &document(entries))?;
    w.write_all(b"\n")
}

pub fn render_json(entries: &[Entry]) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_json(&mut out, entries);
    String::from_utf8(out).unwrap_or_default()
}

pub fn render_yaml(entries: &[Entry]) -> String {
    serde_yaml::to_string(&document(entries)).unwrap_or_default()
}

pub fn render_names(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| format!("runner/{}\n", e.name))
        .collect()
}

fn state_color(s: State) -> Color {
    match s {
        State::Idle => Color::Green,
        State::Busy => Color::Yellow,
        State::Offline | State::Conflict => Color::Red,
        State::PodOnly | State::RegistrationOnly => Color::Magenta,
    }
}

const HEADERS: [&str; 6] = ["NAME", "NAMESPACE", "NODE", "STATE", "JOB", "AGE"];
const WIDE_HEADERS: [&str; 11] = [
    "NAME",
    "NAMESPACE",
    "NODE",
    "STATE",
    "JOB",
    "AGE",
    "RUNNER-ID",
    "SCALE-SET",
    "MODE",
    "POD-PHASE",
    "LABELS",
];

/// The table (`wide` adds columns), ages relative to `now`.
pub fn render_table(
    entries: &[Entry],
    wide: bool,
    headers: bool,
    color: bool,
    now: jiff::Timestamp,
) -> String {
    let or_none = |v: Option<&str>| Cell::plain(v.filter(|s| !s.is_empty()).unwrap_or(NONE));
    let rows: Vec<Vec<Cell>> = entries
        .iter()
        .map(|e| {
            let pod = e.pod.as_ref();
            let job = match (&e.job, e.state) {
                (Some(j), _) => j.clone(),
                // Busy, but neither ARC nor the log tail named the job.
                (None, State::Busy) => "<unknown>".to_owned(),
                (None, _) => NONE.to_owned(),
            };
            let mut row = vec![
                Cell::plain(e.name.clone()),
                or_none(pod.map(|p| p.namespace.as_str())),
                or_none(pod.and_then(|p| p.node.as_deref())),
                Cell::colored(e.state.as_str(), Some(state_color(e.state))),
                Cell::plain(job),
                Cell::plain(
                    pod.and_then(|p| p.created)
                        .map_or_else(|| NONE.to_owned(), |t| age::since(t, now)),
                ),
            ];
            if wide {
                let reg = e.registration.as_ref();
                row.extend([
                    Cell::plain(reg.map_or_else(|| NONE.to_owned(), |r| r.id.to_string())),
                    or_none(pod.and_then(|p| p.scale_set.as_deref())),
                    or_none(pod.map(|p| p.mode.as_str())),
                    or_none(pod.and_then(|p| p.phase.as_deref())),
                    Cell::plain(
                        reg.map(|r| r.label_names().join(","))
                            .filter(|s| !s.is_empty())
                            .unwrap_or_else(|| NONE.to_owned()),
                    ),
                ]);
            }
            row
        })
        .collect();
    let headers_list: &[&str] = if wide { &WIDE_HEADERS } else { &HEADERS };
    table::render(headers_list, &rows, headers, color)
}

/// `12 runners: 7 idle, 3 busy, 1 offline, 1 pod-only`.
pub fn summary(entries: &[Entry]) -> String {
    if entries.is_empty() {
        return "no runners found".to_owned();
    }
    let n = entries.len();
    let parts: Vec<String> = counts(entries)
        .into_iter()
        .map(|(s, c)| format!("{c} {}", s.as_str()))
        .collect();
    format!(
        "{n} runner{}: {}",
        if n == 1 { "" } else { "s" },
        parts.join(", ")
    )
}

/// Writes the inventory: data on stdout, warnings and the table summary on stderr.
pub fn write(ctx: &Context, style: ListStyle, inv: &Inventory, now: jiff::Timestamp) -> Result<u8> {
    if style.chatty {
        for w in &inv.warnings {
            // A closed stderr is no reason to withhold the data.
            let _ = ctx.stderr.write_str(&format!("warning: {w}\n"));
        }
    }
    let data = match style.format {
        OutputFormat::Json => {
            return finish(ctx.stdout.write_with(|w| write_json(w, &inv.entries)));
        }
        OutputFormat::Table | OutputFormat::Wide => {
            if inv.entries.is_empty() {
                String::new()
            } else {
                render_table(
                    &inv.entries,
                    style.format == OutputFormat::Wide,
                    style.headers,
                    style.color,
                    now,
                )
            }
        }
        OutputFormat::Yaml => render_yaml(&inv.entries),
        OutputFormat::Name => render_names(&inv.entries),
    };
    if let Err(e) = ctx.stdout.write_str(&data) {
        // A closed pipe ends the run quietly, without the summary.
        return finish(Err(e));
    }
    if style.chatty && matches!(style.format, OutputFormat::Table | OutputFormat::Wide) {
        let _ = ctx
            .stderr
            .write_str(&format!("{}\n", summary(&inv.entries)));
    }
    Ok(exit::OK)
}

/// The exit code of a written list: a closed pipe is success too.
fn finish(written: std::io::Result<()>) -> Result<u8> {
    match written {
        Ok(()) => Ok(exit::OK),
        // `arcctl list | head -1`: the reader has what it wanted.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::OK),
        Err(e) => Err(Error::failed("failed to write the runner list").with_source(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::RunnerPod;
    use crate::cluster::arc::Owner;
    use crate::github::{Runner, RunnerLabel};

    fn now() -> jiff::Timestamp {
        "2026-11-29T21:00:00Z".parse().unwrap()
    }

    fn reg(id: u64, name: &str, status: &str, busy: bool) -> Runner {
        Runner {
            id,
            name: name.into(),
            os: "linux".into(),
            status: status.into(),
            busy,
            labels: ["self-hosted", "linux", "x64"]
                .iter()
                .map(|l| RunnerLabel {
                    id: None,
                    name: (*l).into(),
                    label_type: Some("read-only".into()),
                })
                .collect(),
            runner_group_id: Some(1),
            ephemeral: Some(true),
            version: Some("2.330.0".into()),
        }
    }

    fn pod(name: &str, node: &str, minutes_old: i64) -> RunnerPod {
        RunnerPod {
            name: name.into(),
            namespace: "arc-runners".into(),
            uid: format!("uid-{name}"),
            node: Some(node.into()),
            phase: Some("Running".into()),
            created: Some(now() - jiff::SignedDuration::from_mins(minutes_old)),
            deleting: false,
            mode: Mode::ScaleSet,
            owner: Some(Owner {
                api_version: "actions.github.com/v1alpha1".into(),
                kind: "EphemeralRunner".into(),
                name: name.into(),
                uid: format!("er-{name}"),
                controller: true,
            }),
            scale_set: Some("arc".into()),
            recorded_runner_id: None,
            runner_container: None,
        }
    }

    fn entries() -> Vec<Entry> {
        let mut v = crate::inventory::join(
            vec![
                reg(11, "arc-x-runner-aaaaa", "online", false),
                reg(12, "arc-x-runner-bbbbb", "online", true),
                reg(13, "arc-x-runner-ccccc", "offline", false),
                reg(14, "vm-runner-1", "online", false),
            ],
            vec![
                pod("arc-x-runner-aaaaa", "node-1", 5),
                pod("arc-x-runner-bbbbb", "node-2", 190),
                pod("arc-x-runner-ccccc", "node-1", 3000),
                pod("arc-x-runner-ddddd", "node-3", 1),
            ],
            vec![],
        );
        v[1].job = Some("build (linux)".into());
        v
    }

    #[test]
    fn table() {
        insta::assert_snapshot!(render_table(&entries(), false, true, false, now()), @r"
        NAME                 NAMESPACE     NODE     STATE               JOB             AGE
        arc-x-runner-aaaaa   arc-runners   node-1   idle                <none>          5m
        arc-x-runner-bbbbb   arc-runners   node-2   busy                build (linux)   3h10m
        arc-x-runner-ccccc   arc-runners   node-1   offline             <none>          2d2h
        arc-x-runner-ddddd   arc-runners   node-3   pod-only            <none>          60s
        vm-runner-1          <none>        <none>   registration-only   <none>          <none>
        ");
    }

    #[test]
    fn wide_table_without_headers() {
        insta::assert_snapshot!(render_table(&entries(), true, false, false, now()), @r"
        arc-x-runner-aaaaa   arc-runners   node-1   idle                <none>          5m       11       arc      scale-set   Running   self-hosted,linux,x64
        arc-x-runner-bbbbb   arc-runners   node-2   busy                build (linux)   3h10m    12       arc      scale-set   Running   self-hosted,linux,x64
        arc-x-runner-ccccc   arc-runners   node-1   offline             <none>          2d2h     13       arc      scale-set   Running   self-hosted,linux,x64
        arc-x-runner-ddddd   arc-runners   node-3   pod-only            <none>          60s      <none>   arc      scale-set   Running   <none>
        vm-runner-1          <none>        <none>   registration-only   <none>          <none>   14       <none>   <none>      <none>    self-hosted,linux,x64
        ");
    }

    #[test]
    fn busy_without_a_known_job_says_unknown() {
        let mut e = entries();
        e[1].job = None;
        assert!(
            render_table(&e, false, false, false, now()).contains("busy                <unknown>")
        );
    }

    #[test]
    fn json_document() {
        let e = entries();
        let v: serde_json::Value = serde_json::from_str(&render_json(&e)).unwrap();
        assert_eq!(v["apiVersion"], "arcctl/v1");
        assert_eq!(v["kind"], "RunnerList");
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 5);
        insta::assert_json_snapshot!(items[1], @r#"
        {
          "busy": true,
          "createdAt": "2026-11-29T17:50:00Z",
          "ephemeral": true,
          "id": 12,
          "job": "build (linux)",
          "labels": [
            "self-hosted",
            "linux",
            "x64"
          ],
          "mode": "scale-set",
          "name": "arc-x-runner-bbbbb",
          "namespace": "arc-runners",
          "node": "node-2",
          "os": "linux",
          "owner": {
            "apiVersion": "actions.github.com/v1alpha1",
            "kind": "EphemeralRunner",
            "name": "arc-x-runner-bbbbb",
            "uid": "er-arc-x-runner-bbbbb"
          },
          "pod": "arc-x-runner-bbbbb",
          "podPhase": "Running",
          "podUid": "uid-arc-x-runner-bbbbb",
          "reason": null,
          "recordedRunnerId": null,
          "runnerGroupId": 1,
          "scaleSet": "arc",
          "state": "busy",
          "status": "online",
          "version": "2.330.0"
        }
        "#);
        // Every item has every key.
        let keys =
            |i: &serde_json::Value| i.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert!(items.iter().all(|i| keys(i) == keys(&items[0])));
        assert_eq!(items[4]["pod"], serde_json::Value::Null);
        assert_eq!(items[3]["busy"], serde_json::Value::Null);
    }

    #[test]
    fn yaml_and_names() {
        let e = entries();
        let y: serde_json::Value = serde_yaml::from_str(&render_yaml(&e)).unwrap();
        assert_eq!(y["kind"], "RunnerList");
        assert_eq!(y["items"][0]["state"], "idle");
        assert_eq!(
            render_names(&e[..2]),
            "runner/arc-x-runner-aaaaa\nrunner/arc-x-runner-bbbbb\n"
        );
    }

    #[test]
    fn summaries() {
        let e = entries();
        assert_eq!(
            summary(&e),
            "5 runners: 1 idle, 1 busy, 1 offline, 1 pod-only, 1 registration-only"
        );
        assert_eq!(summary(&e[..1]), "1 runner: 1 idle");
        assert_eq!(summary(&[]), "no runners found");
    }

    #[test]
    fn a_closed_pipe_is_success_and_quiet() {
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (mut ctx, _out, err) = Context::captured(crate::context::Env::default());
        ctx.stdout = crate::context::Stream::new(Closed);
        let inv = Inventory {
            entries: entries(),
            warnings: Vec::new(),
        };
        let style = ListStyle {
            format: OutputFormat::Table,
            headers: true,
            color: false,
            chatty: true,
        };
        assert_eq!(write(&ctx, style, &inv, now()).unwrap(), 0);
        assert_eq!(err.text(), "");
        // The streamed JSON too.
        let json = ListStyle {
            format: OutputFormat::Json,
            ..style
        };
        assert_eq!(write(&ctx, json, &inv, now()).unwrap(), 0);
        assert_eq!(err.text(), "");
    }

    #[test]
    fn the_streamed_json_is_the_rendered_document() {
        let (ctx, out, _err) = Context::captured(crate::context::Env::default());
        let inv = Inventory {
            entries: entries(),
            warnings: Vec::new(),
        };
        let style = ListStyle {
            format: OutputFormat::Json,
            headers: true,
            color: false,
            chatty: true,
        };
        write(&ctx, style, &inv, now()).unwrap();
        assert_eq!(out.text(), render_json(&inv.entries));
        assert!(out.text().starts_with("{\n  \"apiVersion\": \"arcctl/v1\",\n  \"kind\": \"RunnerList\",\n  \"items\": [\n    {\n      \"name\": \"arc-x-runner-aaaaa\","));
        assert!(out.text().ends_with("\n  ]\n}\n"));
    }

    #[test]
    fn summary_and_warnings_go_to_stderr() {
        let (ctx, out, err) = Context::captured(crate::context::Env::default());
        let inv = Inventory {
            entries: entries(),
            warnings: vec!["could not read a log".into()],
        };
        let style = ListStyle {
            format: OutputFormat::Table,
            headers: true,
            color: false,
            chatty: true,
        };
        write(&ctx, style, &inv, now()).unwrap();
        assert!(out.text().starts_with("NAME"));
        assert!(!out.text().contains("runners:"));
        assert_eq!(
            err.text(),
            "warning: could not read a log\n5 runners: 1 idle, 1 busy, 1 offline, 1 pod-only, 1 registration-only\n"
        );
        // JSON: no summary; quiet: no warnings.
        let (ctx, _out, err) = Context::captured(crate::context::Env::default());
        let json = ListStyle {
            format: OutputFormat::Json,
            chatty: false,
            ..style
        };
        write(&ctx, json, &inv, now()).unwrap();
        assert_eq!(err.text(), "");
    }
}
