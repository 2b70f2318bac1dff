#![deny(missing_docs)]
//! # croupier-host
//!
//! Runs card-game agents as sandboxed WebAssembly components against the authoritative rules
//! in `croupier-rules`.
//!
//! ## Threat model
//! Agents are untrusted code from students and strangers. An agent may loop forever, allocate
//! without bound, recurse until its stack overflows, panic, abort, answer with garbage or with
//! an illegal move, flood its log with terminal escape sequences, or import capabilities in
//! the hope that the host links them. None of this may harm the host, another agent, or the
//! results already played:
//! - an agent sees only its seat's observation (built by the rules crate from what that seat
//!   may know) and can call only `log` and a seeded `random` ([`loader`] refuses any other
//!   import, so there is no file, clock, network, environment or stdio to reach);
//! - every call runs under a fuel budget (deterministic) and an epoch deadline (wall clock),
//!   in a fresh store per agent per game whose memory is capped ([`engine`], [`limits`]);
//! - every failure becomes a typed [`verdict::Verdict`] against that agent, the game is
//!   scored by policy, and every other game goes on ([`sandbox`]; matches and their
//!   policies are `croupier-tournament`'s).

pub mod adapters;
pub mod cache;
pub mod compile;
pub mod contract;
pub mod engine;
pub mod functions;
pub mod kind;
pub mod limits;
pub mod loader;
pub mod player;
pub mod registry;
pub mod runtime;
pub mod sandbox;
pub mod start;
pub mod store;
pub mod text;
pub mod verdict;

pub use runtime::Runtime;
