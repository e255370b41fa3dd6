//! Renders an `Error` for the operator: message, cause chain, hint.

use crate::error::Error;

/// `error: MESSAGE`, then `  caused by: CAUSE` per cause, then `  hint: HINT`.
pub fn render_error(e: &Error) -> String {
    let mut out = format!("error: {}\n", e.message());
    for cause in e.causes() {
        out.push_str(&format!("  caused by: {cause}\n"));
    }
    if let Some(h) = e.hint() {
        out.push_str(&format!("  hint: {h}\n"));
    }
    out
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
}
