//! The host embedded in a program of its own: load an agent file with every check, then play
//! one Durak game between two instances of it, with no `croupier` executable anywhere. The
//! agent is compiled in a child process that is this program again
//! ([`Compiler::ThisProcess`]), so `main` first lets such a child serve its parent.
//!
//! ```text
//! cargo run --release -p croupier-host --example embed -- target/agents/durak/cheapest.wasm
//! ```

use anyhow::{Context, anyhow};
use croupier_host::Runtime;
use croupier_host::cache::Cache;
use croupier_host::compile::{Compiler, serve_if_child};
use croupier_host::limits::Limits;
use croupier_host::player::{Player, StartInfo, StartRules};
use croupier_rules::durak::{Durak, Options};
use croupier_rules::{Game, Rules, SeatResult};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    // Started as the compile child: compile, answer the parent, and stop.
    if let Some(code) = serve_if_child() {
        std::process::exit(code);
    }
    let path = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .context("usage: embed AGENT.wasm (a Durak agent)")?,
    );
    let runtime =
        Runtime::new(Limits::default(), Cache::disabled())?.with_compiler(Compiler::ThisProcess);
    let loaded = runtime.load(&path)?;
    let opts = Options::preset("classic")?;
    let factory = runtime.factory::<Durak>(&loaded, &opts, "")?;

    let seed = 7;
    let mut game = Durak::new(&opts, seed)?;
    let players = game.num_players();
    let mut seats: Vec<Box<dyn Player<Durak>>> = Vec::new();
    for seat in 0..players {
        let mut player = factory
            .make(seed + seat as u64)
            .map_err(|e| anyhow!("seat {seat}: {e}"))?;
        player
            .start(&StartInfo {
                seat: seat as u8,
                players: players as u8,
                rules: StartRules::new::<Durak>(&opts),
                seed: seed + seat as u64,
                args: String::new(),
            })
            .map_err(|e| anyhow!("seat {seat}: {e}"))?;
        seats.push(player);
    }
    let (mut legal, mut decisions) = (Vec::new(), 0);
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        // The host plays forced moves itself, as in every match.
        let action = match legal.as_slice() {
            [only] => *only,
            _ => {
                decisions += 1;
                seats[seat as usize]
                    .decide(game.observe(seat), &legal)
                    .map_err(|e| anyhow!("seat {seat}: {e}"))?
            }
        };
        game.apply(action)
            .map_err(|e| anyhow!("seat {seat}: {e}"))?;
    }
    let outcome = game
        .outcome()
        .context("the game ended without an outcome")?;
    let result = |r: &SeatResult| match r {
        SeatResult::Win => "win",
        SeatResult::Loss => "loss",
        SeatResult::Draw => "draw",
    };
    let results: Vec<&str> = outcome.results.iter().map(result).collect();
    println!(
        "{}: {} agent decisions, seats' results {}",
        path.display(),
        decisions,
        results.join(" ")
    );
    Ok(())
}
