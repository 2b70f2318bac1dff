//! What the command line shows: the per-agent table, progress bars, summaries, JSON files.

use crate::errors::user;
use anyhow::Result;
use croupier_tournament::matches::summary::{AgentSummary, MatchSummary};
use croupier_tournament::runner::{GameRecord, Progress};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// Renders the per-agent table.
pub fn table(agents: &[AgentSummary]) -> String {
    let w = agents
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut s = format!(
        "{:<w$}  {:>6} {:>6} {:>6} {:>6}  {:>6}  {:>15}  {:>6}  {:>9}  {:>9}  faults\n",
        "agent",
        "games",
        "wins",
        "losses",
        "draws",
        "win%",
        "95% CI",
        "Elo",
        "fuel/dec",
        "fuel max"
    );
    for a in agents {
        let faults = if a.faults == 0 {
            "0".to_string()
        } else {
            a.faults_by_verdict
                .iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        s += &format!(
            "{:<w$}  {:>6} {:>6} {:>6} {:>6}  {:>5.1}%  {:>6.1}% – {:>5.1}%  {:>6}  {:>9}  {:>9}  {}\n",
            a.name,
            a.games,
            a.wins,
            a.losses,
            a.draws,
            100.0 * a.win_rate,
            100.0 * a.win_rate_ci95.0,
            100.0 * a.win_rate_ci95.1,
            a.elo
                .map(|e| format!("{e:+.0}"))
                .unwrap_or_else(|| "-".into()),
            a.fuel_per_decision
                .map(human_count)
                .unwrap_or_else(|| "-".into()),
            a.fuel_max
                .map(|m| human_count(m as f64))
                .unwrap_or_else(|| "-".into()),
            faults
        );
    }
    s
}

/// `950`, `12.3k`, `4.56M`: fuel figures span six orders of magnitude between agents.
fn human_count(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A progress bar over `len` games on stderr (hidden when stderr is not a terminal).
pub fn games_bar(len: u64) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::new(len);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {pos}/{len} games [{elapsed_precise}] {bar:30} {rate} eta {eta}",
        )
        .map(|style| {
            style.with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} games/s", state.per_sec());
                },
            )
        })
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    b
}

/// A progress bar over a match's games, or nothing.
pub struct Bar(pub Option<indicatif::ProgressBar>);

impl Progress for Bar {
    fn game_done(&self, _: &GameRecord) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
}

/// The first line of a match and its table.
pub fn print_summary(s: &MatchSummary) {
    let (elapsed, played) = (Duration::from_secs_f64(s.elapsed_seconds), s.played);
    let rate = played as f64 / elapsed.as_secs_f64().max(1e-9);
    let time = if played == 0 {
        // Resumed to the end, or merged from shards: no game was played now.
        "every game from the log".to_string()
    } else {
        format!("{:.3} s ({rate:.0} games/s)", elapsed.as_secs_f64())
    };
    println!(
        "{} ({}) · {} games{} · seed {} · {time}{}",
        s.game,
        s.rules,
        s.games,
        if s.duplicate { " (duplicate)" } else { "" },
        s.seed,
        if s.aborted > 0 {
            format!(" · {} aborted by a safety limit", s.aborted)
        } else {
            String::new()
        }
    );
    print!("{}", table(&s.agents));
}

pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    if path == Path::new("-") {
        println!("{text}");
        return Ok(());
    }
    std::fs::write(path, text + "\n").map_err(|e| {
        user(format!(
            "{}: cannot write the JSON summary: {e}",
            path.display()
        ))
    })
}

impl Bar {
    /// A bar for `games` games when `show` and the match is long enough to need one.
    pub fn for_games(show: bool, games: u64) -> Bar {
        Bar((show && games >= 200).then(|| games_bar(games)))
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
