//! review-consensus: read every review bot's comments on a pull request, merge duplicates
//! across bots, score how many agree, and gate the PR on the confirmed findings.
//!
//! The pipeline, and the module for each stage:
//! `config` -> `github` (fetch) -> `adapters` -> `consensus` -> `synthesis` -> `identity` ->
//! `gate` -> `render` -> `publish`. `pipeline::analyze` runs the pure middle; `action` the whole run.

pub mod action;
pub mod adapters;
pub mod api;
pub mod config;
pub mod consensus;
pub mod demo;
pub mod doctor;
pub mod gate;
pub mod github;
pub mod identity;
pub mod judge;
pub mod learn;
pub mod local;
pub mod model;
pub mod pipeline;
pub mod publish;
pub mod render;
pub mod stats;
pub mod synthesis;
pub mod wait;
