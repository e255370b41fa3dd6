//! Command lines as the operator types them, and the one timing profile that keeps drains quick.

use std::ffi::OsStr;

/// Command-line words: `args!("drain --all -A --yes")` splits the line on whitespace; each
/// further argument is one word as it is, for a path or a value with spaces:
/// `args!("list -A --ca-cert", &ca)`, `args!("list --org", "bad org")`.
macro_rules! args {
    ($line:expr $(, $word:expr)* $(,)?) => {
        $line
            .split_whitespace()
            .map(str::to_owned)
            .chain([$($crate::support::args::word($word)),*])
            .collect::<Vec<String>>()
    };
}

/// One command-line word from a string or a path.
pub fn word(w: impl AsRef<OsStr>) -> String {
    let w = w.as_ref();
    w.to_str()
        .unwrap_or_else(|| panic!("{w:?} is not UTF-8"))
        .to_owned()
}

/// Short waits so drains and recreates finish quickly, and the pacer off: the profile of every
/// test that is not about one of these.
pub const FAST: &str = "--confirm-window 2s --poll-interval 100ms --max-unregister-rate 0";

/// `args` and each `--flag value` of `FAST` that `args` does not set itself.
pub fn fast(args: Vec<String>) -> Vec<String> {
    with_defaults(args, FAST)
}

/// `args` and each `--flag value` pair of `defaults` whose flag `args` does not set.
pub fn with_defaults(mut args: Vec<String>, defaults: &str) -> Vec<String> {
    let defaults: Vec<&str> = defaults.split_whitespace().collect();
    for pair in defaults.chunks(2) {
        if !sets(&args, pair[0]) {
            args.extend(pair.iter().map(|w| (*w).to_owned()));
        }
    }
    args
}

/// Whether `args` give `flag` a value (`--flag v` or `--flag=v`).
fn sets(args: &[String], flag: &str) -> bool {
    args.iter().any(|a| {
        a == flag
            || a.strip_prefix(flag)
                .is_some_and(|rest| rest.starts_with('='))
    })
}
