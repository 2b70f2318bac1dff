//! croupier-cli's integration tests: one test binary, one module per file beside this one.
//!
//! Each file was a test binary of its own once, and every one linked the whole host
//! (wasmtime) and the arena and compiled the `common` helpers it declared: 20 binaries,
//! about 10 minutes of CPU to build again after a change to `common/`, a third of that now
//! (docs/testing.md#one-test-binary-per-crate). The modules keep the files' names, so a
//! test's path is what it was (`arena::…`, `loading::…`, `hardening::f01_…`): `cargo
//! nextest run -E 'test(/^arena::/)'` or `cargo test --release -p croupier-cli --test cli
//! arena::` runs one file's tests. A new file needs its `mod` line here.
//!
//! cargo-nextest (scripts/test.sh) runs every test in a process of its own; `cargo test`
//! runs them as threads of one process, two at a time here.

mod common;

// The arena's tests need the `arena` feature (on by default); those with a server, workers
// or PostgreSQL of their own, Unix.
#[cfg(feature = "arena")]
mod arena;
#[cfg(all(unix, feature = "arena"))]
mod arena_bosses;
#[cfg(feature = "arena")]
mod arena_class;
#[cfg(all(unix, feature = "arena"))]
mod arena_crash;
#[cfg(all(unix, feature = "arena"))]
mod arena_postgres;
#[cfg(all(unix, feature = "arena"))]
mod arena_workers;
#[cfg(feature = "arena")]
mod browser;
#[cfg(feature = "arena")]
mod browser_play;

mod c;
mod cli;
mod contract;
mod hardening;
mod js;
mod loading;
mod play;
mod python;
mod sandbox;
mod scaffold;
mod shard;
mod watch;
