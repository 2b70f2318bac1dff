//! The `arena.toml` that `croupier arena init` writes: every field with a comment saying
//! what it does and why its default is what it is. A test reads it back to the same config.

use super::ArenaConfig;

impl ArenaConfig {
    /// The file `croupier arena init` writes: every field with a comment.
    pub fn to_commented_toml(&self) -> String {
        let l = &self.limits;
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        // A TOML list's items, quoted.
        let list = |items: &[&str]| items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ");
        fn strs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let set = list(&strs(&self.set));
        let bank = match l.time_bank_millis {
            Some(ms) => format!("time_bank_millis = {ms}"),
            None => "# time_bank_millis = 1000".into(),
        };
        format!(
            r#"# Croupier arena. Edit, then restart `croupier arena serve`.
# Changing the game, rules or limits of an arena that has played games mixes results
# played under different conditions: start a new arena instead.

# Shown on every page.
title = {title}
# The game: durak, toepen or uno.
game = {game}
# A preset of the game (`croupier match --help` lists them).
rules = {rules}
# Option settings on top of the preset, as with `--set NAME=VALUE`.
set = [{set}]
# The address the server listens on. Keep 127.0.0.1 behind a reverse proxy.
listen = {listen}

# What every agent runs under (the README's "Limits and verdicts" gives each reason).
[limits]
# Deterministic budget per decision, in fuel.
fuel_per_decision = {fuel}
# Wall-clock backstop per decision.
millis_per_decision = {millis}
# Memory per agent instance.
memory_mib = {mem}
# An agent's log per game: bytes (each line costs 16 more) and lines.
log_bytes_per_game = {logb}
log_lines_per_game = {logl}
# Optional per-game time bank on top of the per-decision limit.
{bank}
# Fuel for instantiation and `start`.
start_fuel = {start}
# Fuel one agent may spend on `start` and all its decisions in one game: what bounds a game.
game_fuel = {game_fuel}
# The wall-clock net over one agent's game: 3× what its fuel can take at the slowest rate seen.
game_millis = {game_ms}
# The largest agent file the loader reads.
max_file_bytes = {maxf}
# The compiling child process: CPU seconds for any file, plus CPU seconds per MiB of code
# (a budget that grows with the code, so an interpreter compiles on a slow machine and a
# small bomb stops quickly), and its address space.
compile_cpu_seconds = {ccpu}
compile_cpu_seconds_per_mib = {ccpum}
compile_memory_mib = {cmem}

[ladder]
# Deals in one ladder match; with `duplicate`, each deal is played once per seat rotation.
deals = {deals}
duplicate = {dup}
# Matches a new version plays first, against a spread of opponents.
placement = {placement}
# Faulted games in a row that take a version out of matchmaking until a new upload.
suspend_after = {suspend}
# The smoke match of every upload: this agent, this many deals.
reference = {reference}
smoke_deals = {smoke}
# Threads the server's ladder worker plays on; 0: only `croupier arena worker`s play.
threads = {threads}
# The rating system: "weng-lin" (OpenSkill), the one that rates two seats, four seats and
# 2 v 2 teams alike (Glicko-2 and Elo rate only one against one; TrueSkill is patented).
rating = {rating}
# Uncertainty added before each rated game, so ratings follow a changing pool (0 freezes).
tau = {tau}
# Master seed: each ladder match's games derive from it and the match number (which
# versions meet, and when, follows uploads and workers, and is not reproducible).
seed = {seed}
# Seconds a worker holds a match without a heartbeat; a dead worker's match is replayed after.
lease_seconds = {lease}
# Seconds between saves of the ratings; a restart counts only the results stored since.
checkpoint_seconds = {checkpoint}

[uploads]
# The largest upload, in bytes (413 beyond).
max_bytes = {max_bytes}
# Submissions per team in any hour (429 beyond, with Retry-After).
per_hour = {per_hour}
# Seconds an upload may send nothing before the server drops it (408).
idle_seconds = {idle}
# Uploads of one team being sent or checked at once (429 beyond).
in_flight = {in_flight}

[security]
# Refused tokens one address may present in a minute; past it, unknown tokens get 429 unread
# (a valid token always passes, so one student's junk behind a NAT locks nobody out).
refused_tokens_per_minute = {refused}

[storage]
# MiB the stored games may take (logs, replays and results). Past it the oldest logs go
# first, then the oldest replays; results stay, and if they alone fill it the ladder pauses.
budget_mb = {budget}
# Log bytes kept per agent per game (each line costs 16 more); a longer log is cut.
log_bytes_per_game = {keep_log}
# Games of the last this many hours keep their replays and logs...
keep_hours = {keep_hours}
# ...and of older matches one in this many (1: all); the others keep only their results.
keep_one_in = {keep_one_in}
# Seconds between the server's passes (`croupier arena prune DIR` runs one at once).
prune_seconds = {prune_seconds}
# The ladder paces itself so that the results fit the budget until final.deadline, or for
# this many days from the first pass without one (0: full speed until the budget pauses it).
plan_days = {plan_days}

[spar]
# Practice matches a team asks for, unrated and played first: this many per team per hour,
per_hour = {spar_per_hour}
# of this many deals (each once per seat rotation),
deals = {spar_deals}
# against another team or a house agent: ladder.reference or one of these.
house = [{spar_house}]

[bosses]
# House agents every team's latest valid version plays in duplicate deals, unrated, weakest
# first: example agents, or your own agents as .wasm files under this directory
# (bosses/teacher.wasm). Pages show the win rate against each with its 95% interval (a deal
# is the unit), and "beats cheapest (95%)" once the interval is above 50%. For example:
# agents = [{boss_example}]
agents = [{boss_agents}]
# Deals in one boss match (each once per seat rotation).
deals = {boss_deals}
# Deals each version plays against each boss as soon as it is valid,
first = {boss_first}
# then its boss games grow with its rated games, up to this share of them (all bosses).
share = {boss_share:?}

[play]
# People playing agents from the browser (/play), never rated, kept in memory only: this
# many games at once on the server,
games = {play_games}
# this many per team,
per_team = {play_per_team}
# seconds a person has for one decision before the game ends,
turn_seconds = {play_turn}
# seconds without a sign of the game's page before it ends (the page asks every 2 s),
left_seconds = {play_left}
# and minutes a finished game's replay is kept.
keep_minutes = {play_keep}
# Anyone may play, signed in or not (`croupier arena demo` sets it).
open = {play_open}

[final]
# When uploads close by themselves, with its offset; the ladder plays on until the final.
# deadline = "2026-12-18T23:59:00+01:00"
{deadline}"#,
            title = q(&self.title),
            game = q(&self.game),
            rules = q(&self.rules),
            listen = q(&self.listen),
            fuel = l.fuel_per_decision,
            millis = l.millis_per_decision,
            mem = l.memory_mib,
            logb = l.log_bytes_per_game,
            logl = l.log_lines_per_game,
            start = l.start_fuel,
            game_fuel = l.game_fuel,
            game_ms = l.game_millis,
            maxf = l.max_file_bytes,
            ccpu = l.compile_cpu_seconds,
            ccpum = l.compile_cpu_seconds_per_mib,
            cmem = l.compile_memory_mib,
            deals = self.ladder.deals,
            dup = self.ladder.duplicate,
            placement = self.ladder.placement,
            suspend = self.ladder.suspend_after,
            reference = q(&self.ladder.reference),
            smoke = self.ladder.smoke_deals,
            threads = self.ladder.threads,
            rating = q(&self.ladder.rating),
            tau = self.ladder.tau,
            seed = self.ladder.seed,
            lease = self.ladder.lease_seconds,
            checkpoint = self.ladder.checkpoint_seconds,
            max_bytes = self.uploads.max_bytes,
            per_hour = self.uploads.per_hour,
            idle = self.uploads.idle_seconds,
            in_flight = self.uploads.in_flight,
            refused = self.security.refused_tokens_per_minute,
            budget = self.storage.budget_mb,
            keep_log = self.storage.log_bytes_per_game,
            keep_hours = self.storage.keep_hours,
            keep_one_in = self.storage.keep_one_in,
            prune_seconds = self.storage.prune_seconds,
            plan_days = self.storage.plan_days,
            spar_per_hour = self.spar.per_hour,
            spar_deals = self.spar.deals,
            spar_house = list(&strs(&self.spar.house)),
            boss_example = list(&super::suggested_bosses(self.kind())),
            boss_agents = list(&strs(&self.bosses.agents)),
            boss_deals = self.bosses.deals,
            boss_first = self.bosses.first,
            boss_share = self.bosses.share,
            play_games = self.play.games,
            play_per_team = self.play.per_team,
            play_turn = self.play.turn_seconds,
            play_left = self.play.left_seconds,
            play_keep = self.play.keep_minutes,
            play_open = self.play.open,
            deadline = self
                .final_
                .deadline
                .as_ref()
                .map_or(String::new(), |d| format!("deadline = {}\n", q(d))),
        )
    }
}
