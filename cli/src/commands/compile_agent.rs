//! `croupier compile-agent` (internal): the child process that validates and compiles an
//! untrusted component under resource limits (see `croupier_host::loader`). The library
//! compiles and serves the pipes (`croupier_host::compile::serve_child`): the component in on
//! stdin, the artifact out on stdout, and on stderr one line, a refusal or what the compile
//! cost.

use clap::Args;
use croupier_host::compile::serve_child;
use std::path::PathBuf;
use std::process::ExitCode;

/// Validate and compile a component read from stdin, under the limits the parent set.
#[derive(Args)]
pub struct CompileAgentCommand {
    /// The private folder of compiled functions to reuse and add to (the compile cache's).
    #[arg(long, value_name = "DIR")]
    functions: Option<PathBuf>,
}

impl CompileAgentCommand {
    /// Writes the artifact to stdout; a refusal is one line on stderr and exit code 3.
    pub fn execute(&self) -> ExitCode {
        ExitCode::from(serve_child(self.functions.as_deref()) as u8)
    }
}
