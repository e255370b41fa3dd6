//! The one decision about the terminal: colour, progress bars and prompts.
//!
//! A pure function of facts (which streams are terminals, `CI`, `NO_COLOR`, flags) so that it is
//! unit-tested and every command decides the same way.

use crate::cli::{ColorChoice, OutputFormat};
use crate::context::{Env, Terminals};

/// How to present a command's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Presentation {
    /// ANSI colour on stderr and table output.
    pub color: bool,
    /// indicatif progress bars on stderr (otherwise one event line per step).
    pub progress: bool,
    /// A confirmation prompt may be shown (stdin and stderr are terminals).
    pub can_prompt: bool,
    /// Event lines and summaries on stderr (off with `-q`).
    pub chatty: bool,
}

/// The flags that bear on presentation.
#[derive(Debug, Clone, Copy)]
pub struct PresentationFlags {
    pub color: ColorChoice,
    pub no_progress: bool,
    pub quiet: bool,
    pub output: OutputFormat,
}

impl Presentation {
    pub fn resolve(t: Terminals, env: &Env, flags: PresentationFlags) -> Self {
        let ci = env.get("CI").is_some_and(|v| v != "false" && v != "0");
        let color = match flags.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                t.stderr && env.get("NO_COLOR").is_none() && env.get("TERM") != Some("dumb")
            }
        };
        Presentation {
            color,
            progress: t.stderr && !ci && !flags.no_progress && !flags.quiet,
            can_prompt: t.stdin && t.stderr,
            chatty: !flags.quiet,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags() -> PresentationFlags {
        PresentationFlags {
            color: ColorChoice::Auto,
            no_progress: false,
            quiet: false,
            output: OutputFormat::Table,
        }
    }

    const TTY: Terminals = Terminals {
        stdin: true,
        stdout: true,
        stderr: true,
        width: None,
    };

    #[test]
    fn a_terminal_gets_everything() {
        let p = Presentation::resolve(TTY, &Env::default(), flags());
        assert!(p.color && p.progress && p.can_prompt && p.chatty);
    }

    #[test]
    fn pipes_get_nothing_interactive() {
        let p = Presentation::resolve(Terminals::default(), &Env::default(), flags());
        assert!(!p.color && !p.progress && !p.can_prompt && p.chatty);
    }

    #[test]
    fn ci_disables_progress_but_not_prompting() {
        let p = Presentation::resolve(TTY, &Env::new([("CI", "true")]), flags());
        assert!(!p.progress);
        assert!(p.can_prompt);
    }

    #[test]
    fn no_color_is_honoured_in_auto_only() {
        let env = Env::new([("NO_COLOR", "1")]);
        assert!(!Presentation::resolve(TTY, &env, flags()).color);
        let always = PresentationFlags {
            color: ColorChoice::Always,
            ..flags()
        };
        assert!(Presentation::resolve(Terminals::default(), &env, always).color);
    }

    #[test]
    fn quiet_and_no_progress_hide_bars() {
        let quiet = PresentationFlags {
            quiet: true,
            ..flags()
        };
        let p = Presentation::resolve(TTY, &Env::default(), quiet);
        assert!(!p.progress && !p.chatty);
        let np = PresentationFlags {
            no_progress: true,
            ..flags()
        };
        assert!(!Presentation::resolve(TTY, &Env::default(), np).progress);
    }

    #[test]
    fn prompting_needs_stdin_and_stderr() {
        let t = Terminals {
            stdin: false,
            ..TTY
        };
        assert!(!Presentation::resolve(t, &Env::default(), flags()).can_prompt);
        let t = Terminals {
            stderr: false,
            ..TTY
        };
        assert!(!Presentation::resolve(t, &Env::default(), flags()).can_prompt);
    }
}
