//! Renders an error for the operator: the `error:` block (message, cause chain, hint) that ends
//! a failed command, and the one-line form a table cell or a result document holds.

use crate::error::{Error, Failure};

/// `error: MESSAGE`, then `  caused by: CAUSE` per cause, then `  hint: HINT`.
pub fn render_error(e: &Error) -> String {
    render_failure(&Failure::from(e))
}

/// [`render_error`] of the error a [`Failure`] holds.
pub fn render_failure(f: &Failure) -> String {
    let mut out = format!("error: {}\n", f.message);
    for cause in &f.causes {
        out.push_str(&format!("  caused by: {cause}\n"));
    }
    if let Some(h) = &f.hint {
        out.push_str(&format!("  hint: {h}\n"));
    }
    out
}

/// The message and its causes on one line (`MESSAGE: CAUSE: CAUSE`), without the hint: what a
/// table cell, an event line or a result document's `detail` says of a failure.
pub fn one_line(f: &Failure) -> String {
    let mut text = f.message.clone();
    for c in &f.causes {
        text.push_str(": ");
        text.push_str(c);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_chain_and_hint() {
        let e = Error::auth("GitHub rejected the token (401 Bad credentials)")
            .with_hint("org runners need a token with `admin:org`")
            .context("failed to list runners for org `acme`");
        insta::assert_snapshot!(render_error(&e), @r"
        error: failed to list runners for org `acme`
          caused by: GitHub rejected the token (401 Bad credentials)
          hint: org runners need a token with `admin:org`
        ");
    }

    #[test]
    fn one_line_joins_the_chain_and_leaves_the_hint() {
        let f = Failure::failed("connection reset")
            .context("failed to delete pod `ns/p`")
            .context("failed to drain");
        let f = Failure {
            hint: Some("retry".into()),
            ..f
        };
        assert_eq!(
            one_line(&f),
            "failed to drain: failed to delete pod `ns/p`: connection reset"
        );
    }
}
