//! `croupier`: run card-game agents as sandboxed WebAssembly components.
//!
//! The command line only: one file per subcommand under `commands/` (as wasmtime's
//! `src/commands/`), each parsing its flags and calling the libraries. The sandbox runtime,
//! matches and statistics live in `croupier-host`. A library so that the Python extension
//! (`python/`) can be the `croupier` command too, with [`run`]: the wheel then ships the
//! compiled code once.

mod build_cache;
mod build_route;
mod c_agent;
mod commands;
mod componentize;
mod errors;
mod events;
mod human_seat;
mod js_agent;
mod policy_embed;
mod render;
mod scaffold;
mod soak_ledger;

use clap::{Parser, Subcommand};
use commands::{
    MatchCmd, agents::execute as agents, build::BuildCommand, compile_agent::CompileAgentCommand,
    ledger::LedgerCommand, merge::MergeCommand, new::NewCommand, play::PlayCommand,
    replay::ReplayCommand, soak::SoakCommand, validate::ValidateCommand,
};
use errors::UserError;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "croupier",
    version,
    about = "Runs card-game agents (Durak, Toepen, UNO) as sandboxed WebAssembly components",
    after_help = "Agents are .wasm component files or built example agents by name (durak/cheapest); \
                  `croupier agents` lists them. Append #ARGS to pass text to an agent: durak/ismcts#iters=200."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play N games between agents and print a table per agent.
    Match(MatchCmd),
    /// Round robin: every pair of agents plays a match; prints a ranking. With --bosses,
    /// every agent also plays each boss and is told whether it beats it (95%).
    Tournament(commands::tournament::TournamentCmd),
    /// Put the logs of a sharded match or tournament (--shard K/N --log FILE) together: the
    /// unsharded run's table, JSON and log.
    Merge(MergeCommand),
    /// Say which world and version a component implements, or exactly why it cannot load.
    Validate(ValidateCommand),
    /// List the example agents that are built, with their game and language.
    Agents,
    /// Show a logged game move by move, as a spectator saw it.
    Replay(ReplayCommand),
    /// Play random games checking every rules invariant in every state.
    Soak(SoakCommand),
    /// Sum up a soak ledger (`soak --record`): which games of each soak its parts checked,
    /// and what they found.
    Ledger(LedgerCommand),
    /// Play a game yourself in the terminal against agents.
    Play(PlayCommand),
    /// Create a ready agent project in ./NAME (Rust, or Python with --lang python).
    New(NewCommand),
    /// Internal: validate and compile a component read from stdin, in a child process under
    /// resource limits.
    #[command(name = "compile-agent", hide = true)]
    CompileAgent(CompileAgentCommand),
    /// Build agent crates into components (default: every crate in example-agents/).
    Build(BuildCommand),
    /// Turn a trained policy into an agent: `croupier policy export model.safetensors`.
    Policy(commands::policy::PolicyCommand),
    /// Run a competition server: uploads, a ladder, ratings, pages and replays.
    #[cfg(feature = "arena")]
    Arena(commands::arena::ArenaCommand),
    /// Upload an agent to an arena and print its verdict.
    #[cfg(feature = "arena")]
    Submit(commands::submit::SubmitCommand),
    /// Run a competition server (not in this build: it says how to get it).
    #[cfg(not(feature = "arena"))]
    #[command(disable_help_flag = true)]
    Arena {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
    /// Upload an agent to an arena (not in this build: it says how to get it).
    #[cfg(not(feature = "arena"))]
    #[command(disable_help_flag = true)]
    Submit {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
}

/// What `croupier arena` and `croupier submit` say in a build without them.
#[cfg(not(feature = "arena"))]
const NO_ARENA: &str = "this croupier was built without the arena (scripts/setup.sh builds \
                        only what the main job needs); `cargo build --release -p croupier-cli` \
                        adds it (a few minutes), as do scripts/setup.sh --all and scripts/test.sh";

impl Command {
    fn execute(self) -> anyhow::Result<ExitCode> {
        let done = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
        match self {
            Command::Match(m) => done(commands::r#match::execute(&m)),
            Command::Tournament(m) => done(commands::tournament::execute(&m)),
            Command::Merge(c) => done(c.execute()),
            Command::Validate(c) => done(c.execute()),
            Command::Agents => done(agents()),
            Command::Replay(c) => done(c.execute()),
            Command::Soak(c) => c.execute(),
            Command::Ledger(c) => c.execute(),
            Command::Play(c) => done(c.execute()),
            Command::New(c) => done(c.execute()),
            Command::CompileAgent(c) => Ok(c.execute()),
            Command::Build(c) => done(c.execute()),
            Command::Policy(c) => done(c.execute()),
            #[cfg(feature = "arena")]
            Command::Arena(c) => done(c.execute()),
            #[cfg(feature = "arena")]
            Command::Submit(c) => c.execute(),
            #[cfg(not(feature = "arena"))]
            Command::Arena { .. } | Command::Submit { .. } => Err(anyhow::anyhow!(NO_ARENA)),
        }
    }
}

/// Runs the command line `args` (the program's name first, as `std::env::args_os` gives it)
/// and returns the exit code; errors are printed on stderr.
pub fn run(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    restore_sigpipe();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are "errors" that print to stdout and exit 0.
            let _ = e.print();
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    // The compile child's stderr is a protocol with its parent (its last line); nothing else
    // may write there.
    if !matches!(cli.command, Command::CompileAgent(_)) {
        events::show_on_stderr();
    }
    match cli.command.execute() {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<UserError>().is_some() {
                eprintln!("error: {e}");
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

/// Rust ignores SIGPIPE, so `croupier … | head -1` made every later `println!` panic with a
/// backtrace once `head` had gone. A command-line tool whose reader has gone should end
/// quietly, as `cat` does: the default action does that. Nothing is lost by it, since
/// results, logs and ledgers are written to their files before anything is printed about
/// them; and the default only matters for stdout and stderr, the only pipes this process
/// writes to (a compiling child gets its input as a file, never through a pipe).
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: SIG_DFL is a valid action for SIGPIPE, and setting a disposition is safe from
    // any thread (the Python extension calls this with the interpreter's threads running).
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Issue #44: `croupier arena serve --help` printed the database URL, password and all,
    /// from `[env: CROUPIER_DATABASE=…]`. Every flag that clap may read from the environment
    /// hides the value in the help: a URL or a token there is a secret.
    #[test]
    fn no_help_echoes_a_value_from_the_environment() {
        fn walk(cmd: &clap::Command, path: &str, found: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                if arg.get_env().is_some() && !arg.is_hide_env_values_set() {
                    found.push(format!("{path} --{}", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), found);
            }
        }
        let mut found = Vec::new();
        walk(&Cli::command(), "croupier", &mut found);
        assert!(found.is_empty(), "help would show the value of: {found:?}");
    }
}
