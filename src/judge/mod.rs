//! The model judge (the `judge` input, off by default): a language model reads the pairs of
//! findings the fitted `issue` model cannot decide, and its verdicts decide those pairs.
//! Word overlap cannot tell two edge cases of one regex apart, or a bug from the test that
//! misses it; reading can. The fitted model stays the default and the fallback: the judge
//! only decides pairs inside the band ([`crate::consensus::Band`]), a person's `/consensus
//! split` or `same` beats it, and any failure leaves the fitted model's decision standing.
//!
//! - [`plan`] (pure): which pairs to ask, most consequential first, and each question as sent.
//! - [`prompt`] (pure): the system message, batches under the endpoint's input limit, and the
//!   chat-completions request body.
//! - [`answer`] (pure): reading an answer: only ids that were asked, once each.
//! - [`memory`] (pure): verdicts kept in the sticky comment's state block, so a rerun asks
//!   nothing and a push asks only new pairs.
//! - [`client`] (edge): the POSTs, their failures and retries, within the run's deadline.

pub mod answer;
pub mod client;
pub mod memory;
pub mod plan;
pub mod prompt;

use serde::{Deserialize, Serialize};

pub use crate::model::JudgeRun;
use crate::model::JudgeSaid;

/// Which endpoint judges (the `judge` input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    /// No judge: the fitted model decides every pair.
    #[default]
    Off,
    /// GitHub Models, with the workflow's own token (`permissions: models: read`).
    GitHubModels,
    /// Any OpenAI-compatible chat-completions endpoint, with a token the user passes.
    OpenAi,
}

impl Provider {
    pub const ACCEPTED: &'static str = "off, github-models, openai";

    pub fn parse(text: &str) -> Option<Provider> {
        match text.trim() {
            "off" => Some(Provider::Off),
            "github-models" => Some(Provider::GitHubModels),
            "openai" => Some(Provider::OpenAi),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Off => "off",
            Provider::GitHubModels => "github-models",
            Provider::OpenAi => "openai",
        }
    }
}

/// GitHub Models' chat-completions endpoint (`judge-endpoint`'s default for `github-models`).
pub const GITHUB_MODELS_ENDPOINT: &str = "https://models.github.ai/inference/chat/completions";
/// `judge-model`'s default: a small model of GitHub Models' "low" rate-limit tier (15
/// requests a minute, 150 a day on the free plan) that follows a JSON schema (README).
pub const DEFAULT_MODEL: &str = "openai/gpt-4.1-mini";
/// `judge-max-pairs`'s default: pairs asked per run at most.
pub const DEFAULT_MAX_PAIRS: usize = 40;
/// `judge-keep`'s default: fitted links at or above it are not asked and cannot be split
/// (chosen by cross-validation on the recorded answers over 0.9: docs/judge.md).
pub const DEFAULT_KEEP: f64 = 0.95;
/// The band's floor: below it, a pair of one file that names no shared code keeps the
/// fitted model's "apart" without asking. Chosen by cross-validation on the recorded
/// answers (docs/judge.md).
pub const BAND_FLOOR: f64 = 0.01;

/// The judge's settings, validated (the `judge*` inputs; the token travels apart).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub provider: Provider,
    pub model: String,
    pub endpoint: String,
    pub max_pairs: usize,
    pub keep: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            provider: Provider::Off,
            model: DEFAULT_MODEL.to_owned(),
            endpoint: GITHUB_MODELS_ENDPOINT.to_owned(),
            max_pairs: DEFAULT_MAX_PAIRS,
            keep: DEFAULT_KEEP,
        }
    }
}

impl Settings {
    pub fn is_on(&self) -> bool {
        self.provider != Provider::Off
    }

    /// The band the judge may decide.
    pub fn band(&self) -> crate::consensus::Band {
        crate::consensus::Band {
            floor: BAND_FLOOR.min(self.keep),
            keep: self.keep,
        }
    }
}

/// One verdict on one pair: live from the endpoint, remembered from an earlier run, or
/// replayed from a recorded answers file (`render --judge-answers`, one a line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The pair's id ([`plan::pair_id`]).
    pub id: String,
    pub same: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// At most 20 words (untrusted text).
    #[serde(default)]
    pub why: String,
    /// The model (or reader) that answered.
    #[serde(default)]
    pub model: String,
}

impl Answer {
    pub fn said(&self) -> JudgeSaid {
        JudgeSaid {
            model: self.model.clone(),
            same: self.same,
            why: self.why.clone(),
        }
    }
}
