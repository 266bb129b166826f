//! Pure renderers: an `Outcome` in, text out. Writing it anywhere is `publish`'s job.

pub mod annotations;
pub mod escape;
pub mod identity;
pub mod markdown;
pub mod report;

pub use markdown::{render_comment, RenderOptions};
pub use report::render_report;
