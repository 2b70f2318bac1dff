//! `croupier tournament`: a round robin of matches and a Bradley–Terry ranking, and with
//! `--bosses` every agent against every boss in duplicate deals, with the statement the
//! arena shows ("beats cheapest (95%)").

use super::{MatchCmd, game, runtime, with_game};
use crate::render::{table, write_json};
use anyhow::Result;
use clap::Args;
use croupier_tournament::matches::bosses::{AgentBosses, Boss, BossesSummary, run_bosses};
use croupier_tournament::matches::round_robin::{self, Pairing, TournamentSummary};

/// `croupier tournament`'s flags: a match's, and the bosses.
#[derive(Args, Clone)]
pub struct TournamentCmd {
    #[command(flatten)]
    pub m: MatchCmd,
    /// Also play every agent against each boss (comma-separated, weakest first: example
    /// agents or .wasm files), --games deals each, always in duplicate deals, and print per
    /// agent and boss its win rate (draws count half), the 95% interval over deals, and
    /// `beats NAME (95%)` when the interval's lower bound is above 50%: what the arena's
    /// pages and final say. With one agent, only the bosses are played.
    #[arg(long, value_delimiter = ',', value_name = "AGENT,...")]
    pub bosses: Vec<String>,
}

/// What `--json` writes with `--bosses`: the round robin (none with one agent) and the
/// bosses' statements.
#[derive(serde::Serialize)]
struct WithBosses<'a> {
    tournament: Option<&'a TournamentSummary>,
    bosses: &'a BossesSummary,
}

/// Plays every pairing, printing each as it ends, then the ranking; then the bosses; writes
/// the JSON.
pub fn execute(t: &TournamentCmd) -> Result<()> {
    let m = &t.m;
    if !t.bosses.is_empty() && (m.shard.is_some() || m.resume || m.watch) {
        return Err(crate::errors::user(
            "--bosses plays whole matches from the start: it cannot be used with --shard, --resume or --watch",
        ));
    }
    let host = runtime(m.limits(), !m.no_cache)?;
    let args = m.args();
    let kind = game(&m.game)?;
    let summary = if t.bosses.is_empty() || args.agents.len() >= 2 {
        let s = with_game!(kind, G => {
            round_robin::run_tournament_with::<G>(&host, &args, &(), &mut print_pairing)
        })
        .map_err(crate::errors::of_match)?;
        print_ranking(&s);
        Some(s)
    } else {
        None
    };
    if t.bosses.is_empty() {
        if let (Some(path), Some(s)) = (&m.json, &summary) {
            write_json(path, s)?;
        }
        return Ok(());
    }
    let bosses: Vec<Boss> = t
        .bosses
        .iter()
        .map(|b| Boss {
            name: b.clone(),
            agent: b.clone(),
        })
        .collect();
    println!(
        "\nAgainst the bosses: {} deals each, every deal once per seat rotation · seed {}",
        args.games, args.seed
    );
    println!(
        "(win rate: wins and half the draws over games; 95% interval: Wilson's over deals, the unit)"
    );
    let width = args
        .agents
        .iter()
        .chain(&t.bosses)
        .map(|a| a.chars().count())
        .max()
        .unwrap_or(0);
    println!(
        "{:<width$}  {:<width$}  {:>6}  {:>6}  {:>13}",
        "agent", "boss", "deals", "win%", "95% CI"
    );
    let mut print_agent = |a: &AgentBosses| {
        for s in &a.bosses {
            let ci = format!(
                "{:.1}–{:.1}%",
                100.0 * s.win_rate_ci95.0,
                100.0 * s.win_rate_ci95.1
            );
            println!(
                "{:<width$}  {:<width$}  {:>6}  {:>5.1}%  {:>13}  {}",
                a.agent,
                s.boss,
                s.deals,
                100.0 * s.win_rate,
                ci,
                s.badge.as_deref().unwrap_or("")
            );
        }
    };
    let against =
        with_game!(kind, G => run_bosses::<G>(&host, &args, &bosses, &(), &mut print_agent))
            .map_err(crate::errors::of_match)?;
    if let Some(path) = &m.json {
        write_json(
            path,
            &WithBosses {
                tournament: summary.as_ref(),
                bosses: &against,
            },
        )?;
    }
    Ok(())
}

/// One finished pairing's line.
pub fn print_pairing(p: &Pairing) {
    println!(
        "{:>24} vs {:<24} {:>5}-{:<5} ({} draws)",
        p.a, p.b, p.a_wins, p.b_wins, p.draws
    );
}

/// The ranking after the pairings: `merge` prints it too, so that it is the same text.
pub fn print_ranking(summary: &TournamentSummary) {
    println!(
        "\n{} ({}) round robin · {} games per pairing · seed {}",
        summary.game, summary.rules, summary.games_per_pairing, summary.seed
    );
    print!("{}", table(&summary.ranking));
    println!("(Elo: Bradley–Terry fit over all pairings, mean 0)");
}
