//! The `croupier` binary: the command line of [`croupier_cli`].

use std::process::ExitCode;

// The global allocator: a soak check allocates ~40 small buffers per state (copies of the
// state, observations); the system allocator was ~15% of a UNO soak, and this cut its CPU
// time by ~10% for the same games. The binary's choice, not the libraries'.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    croupier_cli::run(std::env::args_os())
}
