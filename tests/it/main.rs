//! Integration tests: one binary, one module per area.

mod adapters;
mod adapters_more;
