//! `review-consensus stats`: which review bot is right, measured over merged pull requests
//! (CONTRACT section 9, docs/stats.md).
//!
//! Shaped like the pipeline: `run` (the edge) lists the merged PRs of the window and reads
//! each with `github::fetch_snapshot`, unless `cache` already holds its record; `record`
//! (pure) runs the same adapters and matching as the action on it; `score` (pure) sums the
//! records per bot; `markdown` and `chart` (pure) render the scorecard.

pub mod cache;
pub mod chart;
pub mod markdown;
pub mod progress;
pub mod record;
pub mod run;
pub mod score;

pub use record::{record_pr, PrRecord};
pub use run::{run, StatsRequest, StatsResult};
pub use score::{score, Scorecard};
