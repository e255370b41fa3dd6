//! arcctl's integration suite: one test binary, as ripgrep, just and nextest have it, so the
//! crate and its dependencies (kube, reqwest, axum, rustls) are linked once, not once per file.
//!
//! Layout: `tests/main.rs` (this file) declares one module per area; each is `tests/NAME.rs`,
//! with its own helpers under `tests/NAME/` when it has any (`bad_input/server.rs`,
//! `list/readers.rs`, `sandbox_github/fixture.rs`, `sandbox_kube/fixture.rs`,
//! `sandbox_webhooks/webhook.rs`).
//! `tests/support/` is shared by all: command lines as typed (`args!("drain --all -A --yes")`,
//! the `FAST` timing profile), the in-process sandbox, the one in-process runner
//! (`arcctl::run` with a captured context), the audit-log reader, the drain verdict,
//! kubeconfigs, the real kubectl (found on `PATH`; its tests fail without it) and the files in
//! `tests/fixtures/`. Every test talks to 127.0.0.1 only, bounds every wait and asserts no
//! timing.
//!
//! Run everything with `cargo test --test main`, one module with `cargo test --test main
//! drain::`, one test with `cargo test --test main drain::the_prompt_decides`.
//!
//! Snapshots (insta) live in `tests/snapshots/`, named `main__MODULE__NAME.snap`. After a
//! change in what the operator sees, review them with `cargo insta review`, or rewrite them
//! with `INSTA_UPDATE=always cargo test --test main snapshots_runs::` and read the diff.
//! The checked-in completions and man pages are rewritten with
//! `ARCCTL_BLESS=1 cargo test --test main generated::`.

#[macro_use]
mod support;

/// GitHub App tokens, the token sources, GitHub over TLS behind a private CA.
mod auth;
/// The in-cluster configuration: service account, TLS, bearer token.
mod auth_in_cluster;
/// Bad flags, environment, files, kubeconfigs, URLs and server answers.
mod bad_input;
/// Every `§` reference names a heading of docs/design.md.
mod design_references;
/// `arcctl drain`: every branch of the pipeline against the sandbox.
mod drain;
/// Each fault class alone and with job traffic: the invariant holds.
mod faults;
/// The checked-in completions and man pages match the clap command.
mod generated;
/// `arcctl guard`: evictions of runner pods through the drain pipeline.
mod guard;
/// `arcctl guard manifests`: parsed as Kubernetes objects, the certificate, the RBAC enforced.
mod guard_manifests;
/// GitHub's secondary rate limit, enforced as GitHub does.
mod hostile_github;
/// Pending runner pods and EphemeralRunners deleted as ARC deletes them.
mod hostile_k8s;
/// Lagging job traces and dockerd noise in runner logs.
mod hostile_logs;
/// Ctrl-C at twenty points of a drain, and SIGINT to the binary.
mod interrupt;
/// Imports between the top-level modules of `src/` run one way.
mod layering;
/// `arcctl list` end to end: scopes, selectors, states, formats, errors.
mod list;
/// `arcctl list` refusals that need no server.
mod list_config;
/// The GitHub client against a scripted HTTP server.
mod list_github_client;
/// The documented RBAC, enforced by the sandbox.
mod rbac;
/// `arcctl recreate`: rolling batches in every ARC mode.
mod recreate;
/// `arcctl sandbox` as a command, and the in-process `Sandbox` API.
mod sandbox_command;
/// The fake GitHub API against GitHub's OpenAPI description.
mod sandbox_github;
/// The fake Kubernetes API against the real kubectl and kube-rs.
mod sandbox_kube;
/// Admission webhooks on evictions: the real kubectl drain against webhooks that deny and fail.
mod sandbox_webhooks;
/// The simulated world without HTTP.
mod sandbox_world;
/// No secret in any output, at `-vvv`.
mod secrets;
/// Whole-run insta snapshots of denials: each error told once, with its hint.
mod snapshots_errors;
/// Whole-run insta snapshots of what the operator sees.
mod snapshots_runs;
