//! One module per subcommand: select, act, hand results to `output`.

pub mod generate;
pub mod list;
