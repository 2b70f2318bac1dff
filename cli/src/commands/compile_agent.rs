//! `croupier compile-agent` (internal): the child process that validates and compiles an
//! untrusted component under resource limits (see `croupier_host::loader`).

use clap::Args;
use std::process::ExitCode;

/// Validate and compile a component read from stdin, under the limits the parent set.
#[derive(Args)]
pub struct CompileAgentCommand {
    /// The memory limit (MiB) of the engine the artifact is for.
    #[arg(long)]
    memory: u32,
}

impl CompileAgentCommand {
    /// Writes the artifact to stdout; a refusal is one line on stderr and exit code 3.
    pub fn execute(&self) -> ExitCode {
        croupier_host::loader::compile_agent_main(self.memory)
    }
}
