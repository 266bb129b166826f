//! The runner-facing edge: files the runner reads and workflow commands on stdout.

pub mod commands;
pub mod outputs;
