//! A person in a seat at the terminal, against agents (the work of `croupier play`).
//!
//! The person sees only what the seat may see: the events visible to that seat and its own
//! observation. Input is a number from the list of legal actions or the action's text
//! (`beat 0 9S`); anything else gets a message and a new prompt, never a crash.

use crate::errors::{of_options, user};
use anyhow::Result;
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::player::{Player, StartInfo};
use croupier_rules::{Game, Rules, Seat};
use croupier_tournament::games::Presentation;
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::matches::setup::{entrant, options};
use croupier_tournament::runner::agent_seed;
use std::io::{BufRead, Write};

/// Plays one game with a person at `seat`; `opponents` fill the other seats in turn.
pub fn play<G: Adapter + Presentation>(
    host: &Runtime,
    rules: &RulesArgs,
    opponents: &[String],
    seat: Seat,
    seed: u64,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<()> {
    let (preset, opts) = options::<G>(rules).map_err(of_options)?;
    let n = opts.seats();
    if seat as usize >= n {
        anyhow::bail!(user(format!(
            "--seat {seat}: this table has seats 0..{}",
            n - 1
        )));
    }
    if opponents.is_empty() {
        anyhow::bail!(user("give at least one agent to play against (--vs AGENT)"));
    }
    let entrants = opponents
        .iter()
        .map(|a| entrant::<G>(host, a, &opts).map_err(|e| user(e.to_string())))
        .collect::<Result<Vec<_>>>()?;
    let mut game = G::new(&opts, seed).map_err(|e| user(e.to_string()))?;
    let rules = croupier_host::player::StartRules::new::<G>(&opts);
    let mut players: Vec<Option<Box<dyn Player<G>>>> = Vec::new();
    let mut k = 0;
    for s in 0..n {
        if s == seat as usize {
            players.push(None);
            continue;
        }
        let e = &entrants[k % entrants.len()];
        k += 1;
        let aseed = agent_seed(seed, 0, s);
        let mut p = e
            .factory
            .make(aseed)
            .map_err(|f| user(format!("{}: {f}", e.name)))?;
        p.start(&StartInfo {
            seat: s as u8,
            players: n as u8,
            rules: rules.clone(),
            seed: aseed,
            args: e.args.clone(),
        })
        .map_err(|f| user(format!("{}: {f}", e.name)))?;
        writeln!(out, "P{s}: {}", e.name)?;
        players.push(Some(p));
    }
    writeln!(out, "P{seat}: you · {} ({preset}) · seed {seed}", G::NAME)?;
    let mut shown = 0;
    let mut legal = Vec::new();
    while let Some(actor) = game.to_act() {
        for ev in &game.events()[shown..] {
            if ev.vis.visible_to(seat) {
                writeln!(out, "  {}", ev.event)?;
            }
        }
        shown = game.events().len();
        game.legal_actions(&mut legal);
        let action = if legal.len() == 1 {
            legal[0]
        } else if actor == seat {
            writeln!(out, "\n{}", G::describe(&game.observe(seat)))?;
            for (i, a) in legal.iter().enumerate() {
                writeln!(out, "  {i:>2}: {a}")?;
            }
            ask::<G>(&legal, input, out)?
        } else {
            let p = players[actor as usize]
                .as_mut()
                .ok_or_else(|| anyhow::anyhow!("no player at P{actor}"))?;
            match p.decide(game.observe(actor), &legal) {
                Ok(a) => a,
                Err(f) => {
                    writeln!(
                        out,
                        "  ! P{actor} fault {f}; the host plays {} for it",
                        legal[0]
                    )?;
                    legal[0]
                }
            }
        };
        game.apply(action).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    for ev in &game.events()[shown..] {
        if ev.vis.visible_to(seat) {
            writeln!(out, "  {}", ev.event)?;
        }
    }
    if let Some(o) = game.outcome() {
        let mine = o.results.get(seat as usize);
        writeln!(out, "result: {} · you: {:?}", o.summary, mine.copied())?;
    }
    Ok(())
}

/// Reads until the person names a legal action, by number or by its text.
fn ask<G: Game>(
    legal: &[G::Action],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<G::Action> {
    loop {
        write!(out, "your move> ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            anyhow::bail!(user("input closed before the game ended"));
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if let Ok(i) = text.parse::<usize>() {
            match legal.get(i) {
                Some(a) => return Ok(*a),
                None => {
                    writeln!(out, "no action {i}: choose 0..{}", legal.len() - 1)?;
                    continue;
                }
            }
        }
        match text.parse::<G::Action>() {
            Ok(a) if legal.contains(&a) => return Ok(a),
            Ok(a) => writeln!(out, "`{a}` is not a legal action now; choose from the list")?,
            Err(_) => writeln!(
                out,
                "`{text}` is not an action: type its number, or its text as listed (e.g. `{}`)",
                legal[0]
            )?,
        }
    }
}
