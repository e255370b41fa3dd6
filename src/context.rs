//! The process around a command: environment, terminals, output streams, prompter and Ctrl-C.
//!
//! Commands never read `std::env` or write to `std::io` directly; they get a `Context`, so
//! tests run them in-process with their own environment, captured output and scripted prompts.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// Environment variables, snapshotted once.
#[derive(Debug, Clone, Default)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    pub fn from_process() -> Self {
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }

    pub fn new<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        Env(vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect())
    }

    /// The value of `name`, treating an empty value as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    pub fn remove(&mut self, name: &str) {
        self.0.remove(name);
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Which standard streams are terminals, and how wide stderr is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Terminals {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
    pub width: Option<u16>,
}

impl Terminals {
    pub fn from_process() -> Self {
        use std::io::IsTerminal;
        Terminals {
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
            width: None,
        }
    }
}

/// A cloneable, thread-safe writer (stdout, stderr, or a capture buffer in tests).
#[derive(Clone)]
pub struct Stream(Arc<Mutex<Box<dyn Write + Send>>>);

impl Stream {
    pub fn new(w: impl Write + Send + 'static) -> Self {
        Stream(Arc::new(Mutex::new(Box::new(w))))
    }

    pub fn stdout() -> Self {
        Stream::new(std::io::stdout())
    }

    pub fn stderr() -> Self {
        Stream::new(std::io::stderr())
    }

    /// A stream that keeps what is written, and a handle to read it back.
    pub fn capture() -> (Self, Capture) {
        let buf = Capture::default();
        (Stream::new(buf.clone()), buf)
    }

    /// Writes all of `text`; a closed pipe is reported as `BrokenPipe` for `main` to exit 0.
    pub fn write_str(&self, text: &str) -> std::io::Result<()> {
        let mut w = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        w.write_all(text.as_bytes())?;
        w.flush()
    }

    /// Lets `write` stream into the stream through one buffer, then flushes: a long document
    /// is written as it is rendered, never held whole. Errors as [`Stream::write_str`].
    pub fn write_with(
        &self,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut w = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut buffered = std::io::BufWriter::with_capacity(64 << 10, &mut **w);
        write(&mut buffered)?;
        buffered.flush()?;
        drop(buffered);
        w.flush()
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream")
    }
}

/// What a captured stream received.
#[derive(Clone, Default, Debug)]
pub struct Capture(Arc<Mutex<Vec<u8>>>);

impl Capture {
    pub fn text(&self) -> String {
        let buf = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

impl Write for Capture {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Asks the operator a yes/no question.
pub trait Prompter: Send + Sync {
    /// `Ok(true)` to go ahead; the default answer is no.
    fn confirm(&self, question: &str) -> Result<bool>;
}

/// The terminal prompter (dialoguer), default *no*.
#[derive(Debug, Default)]
pub struct TerminalPrompter;

impl Prompter for TerminalPrompter {
    fn confirm(&self, question: &str) -> Result<bool> {
        dialoguer::Confirm::new()
            .with_prompt(question)
            .default(false)
            .interact()
            .map_err(|e| match e {
                dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted => {
                    Error::interrupted("interrupted at the prompt")
                }
                other => Error::failed("failed to read the answer").with_source(other),
            })
    }
}

/// A prompter that answers from a script, for tests.
#[derive(Debug)]
pub struct ScriptedPrompter {
    answer: bool,
    asked: Mutex<Vec<String>>,
}

impl ScriptedPrompter {
    pub fn new(answer: bool) -> Self {
        ScriptedPrompter {
            answer,
            asked: Mutex::new(Vec::new()),
        }
    }

    /// The questions asked so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Prompter for ScriptedPrompter {
    fn confirm(&self, question: &str) -> Result<bool> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(question.to_owned());
        Ok(self.answer)
    }
}

/// Ctrl-C, as a signal every part of a run can watch.
#[derive(Debug, Clone)]
pub struct Interrupt {
    tx: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt {
            tx: Arc::new(tokio::sync::watch::channel(false).0),
        }
    }
}

impl Interrupt {
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }

    /// Resolves once the interrupt is triggered.
    pub async fn triggered(&self) {
        let mut rx = self.tx.subscribe();
        // wait_for only fails when the sender is gone, and we hold it.
        let _ = rx.wait_for(|v| *v).await;
    }
}

/// Everything a command may touch outside itself.
#[derive(Clone)]
pub struct Context {
    pub env: Env,
    pub terminals: Terminals,
    pub stdout: Stream,
    pub stderr: Stream,
    pub prompter: Arc<dyn Prompter>,
    pub interrupt: Interrupt,
}

impl Context {
    pub fn from_process() -> Self {
        Context {
            env: Env::from_process(),
            terminals: Terminals::from_process(),
            stdout: Stream::stdout(),
            stderr: Stream::stderr(),
            prompter: Arc::new(TerminalPrompter),
            interrupt: Interrupt::default(),
        }
    }

    /// A context for tests: the given environment, no terminals, captured streams.
    pub fn captured(env: Env) -> (Self, Capture, Capture) {
        let (stdout, out) = Stream::capture();
        let (stderr, err) = Stream::capture();
        let ctx = Context {
            env,
            terminals: Terminals::default(),
            stdout,
            stderr,
            prompter: Arc::new(ScriptedPrompter::new(false)),
            interrupt: Interrupt::default(),
        };
        (ctx, out, err)
    }
}
