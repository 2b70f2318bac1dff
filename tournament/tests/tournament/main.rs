//! croupier-tournament's integration tests: one test binary (each links the host, wasmtime
//! and all), one module per file beside this one (docs/testing.md#one-test-binary-per-crate).
//! Their data stays in `tournament/tests/golden/` and `tournament/tests/viewer_dom.js`.

mod compact;
mod replay;
