//! The one integration-test binary: one module per area.

mod config;
mod outputs;
