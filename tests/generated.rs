//! The checked-in `completions/` and `man/` must equal what the clap command generates.
//! Run with `ARCCTL_BLESS=1` to rewrite them after changing `src/cli.rs`.

use std::path::Path;

#[test]
fn completions_and_man_pages_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("ARCCTL_BLESS").is_some() {
        arcctl::cmd::generate::write_generated(root).expect("write generated files");
    }
    let mut stale = Vec::new();
    let files = arcctl::cmd::generate::generated_files();
    assert!(
        files.len() >= 11,
        "expected 5 completion scripts and 6 man pages"
    );
    for (rel, want) in files {
        let have = std::fs::read(root.join(&rel)).unwrap_or_default();
        if have != want {
            stale.push(rel);
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are out of date: {stale:?}\nrun `ARCCTL_BLESS=1 cargo test --test main generated::` and commit the result"
    );
}

#[test]
fn completion_scripts_name_every_subcommand() {
    let bash = arcctl::cmd::generate::completion_script(arcctl::cli::Shell::Bash);
    for sub in ["list", "drain", "recreate", "sandbox", "completions"] {
        assert!(bash.contains(sub), "bash completion lacks `{sub}`");
    }
}
