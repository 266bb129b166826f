//! The per-PR cache: one small JSON file per merged PR (`pr-<N>.json`) holding its record,
//! so a weekly run reads from GitHub only the PRs merged since the last one. A file is used
//! only when it was written by this version with the same bots; anything else (another
//! version, other `--bots`, a damaged file) is read again and overwritten.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::record::PrRecord;
use crate::adapters::SourceConfig;

/// Bumped when a record's meaning changes.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    /// The tool version and the bots the record was measured with.
    key: String,
    record: PrRecord,
}

/// A cache directory for one configuration.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    key: String,
}

impl Cache {
    pub fn new(dir: &Path, sources: &[SourceConfig]) -> Cache {
        let bots: Vec<String> = sources
            .iter()
            .map(|s| format!("{}={}", s.adapter, s.logins.join("|")))
            .collect();
        Cache {
            dir: dir.to_owned(),
            key: format!("{} {}", env!("CARGO_PKG_VERSION"), bots.join(",")),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, number: u64) -> PathBuf {
        self.dir.join(format!("pr-{number}.json"))
    }

    /// The cached record of PR `number`, when there is a usable one.
    pub fn load(&self, number: u64) -> Option<PrRecord> {
        let path = self.path(number);
        let text = std::fs::read_to_string(&path).ok()?;
        match serde_json::from_str::<Entry>(&text) {
            Ok(entry) if entry.format == FORMAT && entry.key == self.key => {
                (entry.record.number == number).then_some(entry.record)
            }
            Ok(_) => None,
            Err(err) => {
                tracing::warn!("ignoring the damaged cache file {}: {err}", path.display());
                None
            }
        }
    }

    /// Keep a record. Written to a temporary file and renamed, so a run killed midway
    /// leaves no half-written file.
    pub fn store(&self, record: &PrRecord) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let entry = Entry {
            format: FORMAT,
            key: self.key.clone(),
            record: record.clone(),
        };
        let text = serde_json::to_string(&entry).map_err(std::io::Error::other)?;
        let path = self.path(record.number);
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::score::tests::pr;

    fn sources(logins: &[&str]) -> Vec<SourceConfig> {
        vec![SourceConfig {
            adapter: "generic".into(),
            logins: logins.iter().map(|l| (*l).to_owned()).collect(),
        }]
    }

    #[test]
    fn a_record_comes_back_only_for_the_same_bots() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), &sources(&["a[bot]"]));
        assert_eq!(cache.load(5), None);
        let record = pr(5, Vec::new());
        cache.store(&record).unwrap();
        assert_eq!(cache.load(5), Some(record));
        assert_eq!(cache.load(6), None);
        let other = Cache::new(dir.path(), &sources(&["a[bot]", "b[bot]"]));
        assert_eq!(other.load(5), None, "other bots: measured again");
    }

    #[test]
    fn a_damaged_or_misplaced_file_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path(), &sources(&["a[bot]"]));
        std::fs::write(dir.path().join("pr-5.json"), "{ not json").unwrap();
        assert_eq!(cache.load(5), None);
        cache.store(&pr(5, Vec::new())).unwrap();
        std::fs::copy(dir.path().join("pr-5.json"), dir.path().join("pr-8.json")).unwrap();
        assert_eq!(cache.load(8), None, "a file must hold its own PR");
    }
}
