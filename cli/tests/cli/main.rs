//! croupier-cli's integration tests: one test binary, one module per file beside this one.
//!
//! Each file was a test binary of its own once, and every one linked the whole host
//! (wasmtime), the arena and the `common` helpers it declared: 18 binaries, about 10
//! minutes of CPU to rebuild after a change to `common/` (docs/testing.md). One binary
//! compiles the helpers once and links once. The modules keep the files' names, so a test's
//! path is what it was (`arena::…`, `loading::…`, `hardening::f01_…`): `cargo nextest run
//! -E 'test(/^arena::/)'` or `cargo test --release -p croupier-cli --test cli arena::`
//! runs one file's tests.
//!
//! cargo-nextest (scripts/test.sh) runs every test in a process of its own; `cargo test`
//! runs them as threads of one process, two at a time here (docs/testing.md#one-test-binary-per-crate).

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
