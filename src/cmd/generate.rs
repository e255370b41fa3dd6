//! `arcctl completions SHELL`, and the generators of the checked-in `completions/` and `man/`.

use std::path::Path;

use crate::cli::{CompletionsArgs, Shell};
use crate::context::Context;
use crate::error::{Error, Result};

fn clap_shell(shell: Shell) -> clap_complete::Shell {
    match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
        Shell::Powershell => clap_complete::Shell::PowerShell,
        Shell::Elvish => clap_complete::Shell::Elvish,
    }
}

/// The completion script for `shell`.
pub fn completion_script(shell: Shell) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(
        clap_shell(shell),
        &mut crate::cli::command(),
        "arcctl",
        &mut buf,
    );
    String::from_utf8_lossy(&buf).into_owned()
}

pub(crate) fn run(ctx: &Context, args: &CompletionsArgs) -> Result<u8> {
    ctx.stdout
        .write_str(&completion_script(args.shell))
        .map_err(|e| Error::failed("failed to write the completion script").with_source(e))?;
    Ok(crate::error::exit::OK)
}

/// The checked-in files: (path relative to the repository root, contents).
pub fn generated_files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "arcctl.bash"),
        (Shell::Zsh, "_arcctl"),
        (Shell::Fish, "arcctl.fish"),
        (Shell::Powershell, "_arcctl.ps1"),
        (Shell::Elvish, "arcctl.elv"),
    ] {
        files.push((
            format!("completions/{name}"),
            completion_script(shell).into_bytes(),
        ));
    }
    let root = crate::cli::command();
    files.push(("man/arcctl.1".to_owned(), man_page(root.clone())));
    for sub in root.get_subcommands() {
        let name = format!("arcctl-{}", sub.get_name());
        let cmd = sub.clone().name(name.clone()).bin_name(name.clone());
        files.push((format!("man/{name}.1"), man_page(cmd)));
    }
    files
}

fn man_page(cmd: clap::Command) -> Vec<u8> {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = clap_mangen::Man::new(cmd)
        .date("2026-11-29")
        .source(format!("arcctl {}", env!("CARGO_PKG_VERSION")))
        .render(&mut buf);
    buf
}

/// Writes the generated files below `root` (used by the drift test with `ARCCTL_BLESS=1`).
pub fn write_generated(root: &Path) -> std::io::Result<()> {
    for (rel, contents) in generated_files() {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, contents)?;
    }
    Ok(())
}
