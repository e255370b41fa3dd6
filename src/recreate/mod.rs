//! `recreate`: replace runners in rolling batches without killing a job.
//!
//! Each batch goes through drain's pipeline (unregister → confirm idle → uid-guarded delete);
//! `batch` sizes and orders the batches (pure), `ready` recognises each deleted runner's
//! replacement in the cluster and on GitHub, and `rolling` runs batch after batch, waiting for
//! the replacements before it starts the next, so capacity never drops by more than a batch.

pub mod batch;
pub mod ready;
pub mod rolling;
