//! The one integration-test binary: a module per area.

mod cli;
mod config;
mod engine;
mod outputs;
