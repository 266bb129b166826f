//! The runner-facing edge: files the runner reads and workflow commands on stdout.
// An edge module: the environment, files and the clock are its job.
#![allow(clippy::disallowed_methods)]

pub mod commands;
pub mod outputs;
