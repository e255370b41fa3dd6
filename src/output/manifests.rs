//! `arcctl guard manifests`: the YAML on stdout, as rendered (it may hold a private key, so it
//! goes nowhere else).

use crate::context::Stream;
use crate::error::{Error, Result};

pub fn print(stdout: &Stream, yaml: &str) -> Result<()> {
    stdout
        .write_str(yaml)
        .map_err(|e| Error::failed("failed to write the manifests").with_source(e))
}
