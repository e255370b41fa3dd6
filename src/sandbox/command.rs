//! The `arcctl sandbox` command: start the world, run a command in it or serve, print the verdict.

use crate::cli::SandboxArgs;
use crate::context::Context;
use crate::error::{Error, Result};

pub(crate) async fn run(_ctx: &Context, _args: SandboxArgs) -> Result<u8> {
    Err(Error::failed("`arcctl sandbox` is not built yet"))
}
