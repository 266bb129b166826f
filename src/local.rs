//! Local inputs and outputs: saved-API-JSON folders, normalised-findings files, SARIF files.

use std::path::Path;

use crate::api::PrSnapshot;

/// Read a saved-API-JSON folder (`pull.json`, `review_comments.json`, ...).
pub fn load_snapshot_dir(dir: &Path) -> anyhow::Result<PrSnapshot> {
    let _ = dir;
    todo!("edge-config")
}

/// Write a snapshot as a saved-API-JSON folder that `load_snapshot_dir` reads back.
pub fn save_snapshot_dir(snapshot: &PrSnapshot, dir: &Path) -> anyhow::Result<()> {
    let _ = (snapshot, dir);
    todo!("edge-config")
}
