//! croupier-rules' integration tests: one test binary, one module per file beside this one
//! (each was a binary of its own once; docs/testing.md#one-test-binary-per-crate). The modules
//! keep the files' names, so a test's path is what it was: `cargo test --release -p
//! croupier-rules --test rules golden::` runs the golden records. Their data stays in
//! `rules/tests/golden/`.

mod common;

mod check_props;
mod durak_props;
mod durak_scenarios;
mod golden;
mod toepen_props;
mod toepen_scenarios;
mod uno_props;
mod uno_scenarios;
mod wire;
