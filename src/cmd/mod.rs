//! One module per subcommand: select, act, hand results to `output`.

pub mod drain;
pub mod generate;
pub mod list;
pub(crate) mod prepare;
pub mod recreate;
#[cfg(feature = "sandbox")]
pub(crate) mod sandbox;
pub(crate) mod select;
