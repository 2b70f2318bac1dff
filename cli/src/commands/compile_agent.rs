//! `croupier compile-agent` (internal): the child process that validates and compiles an
//! untrusted component under resource limits (see `croupier_host::loader`). The library
//! compiles; this command owns the pipes: the component in on stdin, the artifact out on
//! stdout, and on stderr one line, a refusal or what the compile cost.

use clap::Args;
use croupier_host::compile::{REFUSED, child_input_cap, compile_for_parent};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Validate and compile a component read from stdin, under the limits the parent set.
#[derive(Args)]
pub struct CompileAgentCommand {
    /// The memory limit (MiB) of the engine the artifact is for.
    #[arg(long)]
    memory: u32,
    /// The private folder of compiled functions to reuse and add to (the compile cache's).
    #[arg(long, value_name = "DIR")]
    functions: Option<PathBuf>,
}

impl CompileAgentCommand {
    /// Writes the artifact to stdout; a refusal is one line on stderr and exit code 3.
    pub fn execute(&self) -> ExitCode {
        let refused = ExitCode::from(REFUSED as u8);
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin()
            .take(child_input_cap())
            .read_to_end(&mut bytes)
        {
            eprintln!("cannot read the component: {e}");
            return refused;
        }
        match compile_for_parent(self.memory, self.functions.as_deref(), &bytes) {
            Ok((artifact, cost)) => match std::io::stdout().lock().write_all(&artifact) {
                Ok(()) => {
                    // The last line of stderr, which the parent reads.
                    eprintln!("{cost}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("cannot write the artifact: {e}");
                    refused
                }
            },
            Err(refusal) => {
                eprintln!("{refusal}");
                refused
            }
        }
    }
}
