//! `arena.toml`: the game, the rules, the limits, the ladder, the upload caps and the
//! listen address of one arena. `croupier arena init` writes it with a comment on every
//! field; the organiser edits it, and the server reads it at start.
//!
//! Defaults and why:
//! - `ladder.deals` 8 with `duplicate`: a ladder match is every seat rotation of eight deals
//!   (16 games in 2 v 2 Durak), so luck of the deal cancels inside each match. Shorter
//!   matches make the ladder spend its time on bookkeeping: each match costs about eleven
//!   database statements and a lease, and with two deals the ladder rates about 65% of the
//!   games `croupier match` plays (`scripts/bench-arena.sh`,
//!   docs/benchmarks-history.md#the-arena-2026-11-23-the-2-core-development-machine).
//! - `ladder.placement` 4: a new version first plays four matches against a spread of
//!   opponents, as Halite and aiarena place newcomers, so its rating is known quickly.
//! - `ladder.suspend_after` 5: five faulted games in a row take a version out of matchmaking
//!   (Robot Rumble deactivates after 2 errors, Halite past 50 timeouts); five tolerates a
//!   rare timeout on a loaded machine and stops a broken agent within one or two matches.
//! - `ladder.rating` `weng-lin`: the one system that rates every shape of game the arena
//!   plays (see [`RATING_SYSTEMS`]).
//! - `ladder.tau` 0.1: uncertainty added before every rated game, so ratings keep moving
//!   while the pool changes (Halite used τ > 0 on the ladder, 0 in finals).
//! - `ladder.checkpoint_seconds` 10: the ratings are saved this often, so a restart counts
//!   seconds of results rather than all of them (18 s before the first page at 10⁶ games).
//! - `uploads.max_bytes` 32 MiB: interpreted agents reach 18 MB. Half the loader's own cap
//!   (64 MiB), because an upload is compiled on the server, whose CPU budget grows with the
//!   code in the file (10 s plus 24 s per MiB of code by default): 32 MiB bounds the worst
//!   single upload to about 780 s of one compiling child's CPU, which `per_hour` then
//!   bounds per team. An organiser whose class writes only Rust agents can lower both.
//! - `uploads.per_hour` 12: one every five minutes on average, plenty for a student and a
//!   bound on the compile work one team can cause. An upload counts from the moment it is
//!   accepted for reading, so parallel uploads cannot all pass the check before any is
//!   stored (they did: twenty at once with `per_hour = 12` made twenty versions).
//! - `uploads.in_flight` 2: uploads of one team being sent or checked at once. Two checks
//!   run on the server at a time, so a team with more could keep every other team's uploads
//!   waiting; two lets a student send a fix while a slow build is still being checked.
//! - `security.refused_tokens_per_minute` 20: see `identity`; an organiser raises it
//!   for a class behind one NAT that mistypes a lot, or for an API fuzzer's run.
//! - `storage.budget_mb` 4096: a 2-core course server's disk holds it many times over, and,
//!   paced over `plan_days`, it holds 200 teams' 8 weeks (docs/scale.md models it). Logs go
//!   first because they are most of a chatty agent's game (3.3 KB against 0.25 KB).
//! - `storage.log_bytes_per_game` 4096: a few dozen lines of a game, enough to see what an
//!   agent was thinking; the runtime's own cap (64 KiB) is for local runs.
//! - `storage.plan_days` 56: a course's eight weeks. A ladder of fast agents rates
//!   thousands of games a second, about 1.5 GB of results an hour, far more games than
//!   ratings need; paced, it spreads the budget over the course instead of pausing on day one.
//! - `storage.keep_hours` 48 and `keep_one_in` 100: a student looks at yesterday's games,
//!   not last month's; one match in a hundred keeps a sample of every week for the teacher.
//! - `spar.per_hour` 6 and `spar.deals` 2: a spar is played before ladder matches, so a
//!   student sees it within seconds; six an hour of 2-deal matches is a few dozen games a
//!   team, far under what the ladder plays, so sparring cannot starve the ladder or fill the
//!   storage budget.
//! - `bosses.deals` 8, `first` 32 and `share` 0.25: see [`Bosses`]' defaults; the ladder
//!   keeps at most half of its waiting matches boss matches, so bosses never starve it.
//! - `play.games` 16 and `play.per_team` 2: a person's game against agents (`/play`) keeps its
//!   agents' instances (each up to `limits.memory_mib`) while the person thinks, so the
//!   server holds at most 16 such games (48 instances at four seats, beside the ladder's
//!   few in a pool of 1 000); two per team let a student open a second game without one
//!   team taking them all.
//! - `play.turn_seconds` 600: a person reads, thinks, fetches coffee; ten minutes without a
//!   move means nobody is there, and the game ends so that its instances go.
//! - `play.left_seconds` 180: the page asks for the state every two seconds and says so as
//!   it closes; a browser that hides a tab may slow its timers to one a minute, so three
//!   minutes of silence, not seconds, mean the page is gone.
//! - `play.keep_minutes` 60: a finished human game is kept in memory only (never rated,
//!   never in the database), long enough to look at its replay and download it.
//! - `uploads.idle_seconds` 30: an upload whose body sends nothing for this long gets 408 and
//!   its connection back; a client that trickles a file in (slowloris) cannot hold a
//!   connection and a buffer for longer. A student on a slow line still sends something
//!   every few seconds.

use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod check;
mod commented;
mod time;

pub use time::rfc3339_ms;

/// A config that cannot be used, naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The file is not valid TOML of the right shape.
    #[error("{path}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and field.
        reason: String,
    },
    /// A field has a value the arena cannot use.
    #[error("{path}: `{field}`: {reason}")]
    Field {
        /// The file.
        path: PathBuf,
        /// The field, e.g. `ladder.deals`.
        field: String,
        /// Why it cannot be used.
        reason: String,
    },
}

/// The ladder's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    /// Deals in one ladder match.
    pub deals: u64,
    /// Play every deal once per seat rotation.
    pub duplicate: bool,
    /// Placement matches a new version plays against a spread of opponents.
    pub placement: u32,
    /// Faulted games in a row that suspend a version from matchmaking.
    pub suspend_after: u32,
    /// The agent a new upload plays its smoke match against (an example agent's name).
    pub reference: String,
    /// Deals in the smoke match.
    pub smoke_deals: u64,
    /// Threads the server's own ladder worker plays on; 0 runs no worker in the server (only
    /// `croupier arena worker`s on other machines play).
    pub threads: usize,
    /// The rating system: `weng-lin` (see [`RATING_SYSTEMS`]).
    #[serde(default = "default_rating")]
    pub rating: String,
    /// Uncertainty (σ) added before every rated ladder game.
    pub tau: f64,
    /// The arena's master seed: ladder match `m` is played from a seed derived from it and
    /// `m` (`ladder::match_seed`); which versions meet is not reproducible.
    pub seed: u64,
    /// How long a worker holds a match without a heartbeat. A dead worker's match is played
    /// again after this; too short, and a worker on a slow link loses matches it is playing.
    #[serde(default = "default_lease_seconds")]
    pub lease_seconds: u64,
    /// How often the server saves its ratings board while the ladder plays, so that a
    /// restart counts only the results stored since.
    #[serde(default = "default_checkpoint_seconds")]
    pub checkpoint_seconds: u64,
}

/// The rating systems an arena can use, with why the others are not offered.
///
/// Weng-Lin (OpenSkill, `skillratings`) is the one that rates all three shapes of game the
/// arena plays: two seats, four free-for-all seats (Toepen) and 2 v 2 teams (Durak). Glicko-2
/// and Elo rate one player against one, so they would rate only some arenas; TrueSkill covers
/// teams too but is patented (the `skillratings` docs warn of it).
pub const RATING_SYSTEMS: &[&str] = &["weng-lin"];

/// An arena.toml written before `ladder.rating` existed rated with Weng-Lin.
fn default_rating() -> String {
    "weng-lin".into()
}

/// Workers beat every third of the lease: 30 s survives two lost beats and a 10 s stall.
fn default_lease_seconds() -> u64 {
    30
}

/// A restart then counts at most ten seconds of results (about 60 000 games from one worker,
/// under a second) instead of every game: 20 s at a million. A save of 200 teams' board
/// (1 MiB) takes milliseconds; a bigger board is saved less often, so that saving never
/// takes more than a hundredth of the server's time.
fn default_checkpoint_seconds() -> u64 {
    10
}

/// Caps on uploads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uploads {
    /// The largest upload accepted, in bytes.
    pub max_bytes: u64,
    /// Submissions one team may make in any hour.
    pub per_hour: u32,
    /// Seconds an upload's body may send nothing before the server gives up on it (408).
    #[serde(default = "default_idle_seconds")]
    pub idle_seconds: u32,
    /// Uploads of one team being sent or checked at once (429 beyond).
    #[serde(default = "default_in_flight")]
    pub in_flight: u32,
}

/// An arena.toml written before `uploads.in_flight` existed gets the default.
fn default_in_flight() -> u32 {
    2
}

/// An arena.toml written before `uploads.idle_seconds` existed gets the default.
fn default_idle_seconds() -> u32 {
    30
}

/// One arena's `arena.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// The arena's title, shown on every page.
    pub title: String,
    /// `durak`, `toepen` or `uno`.
    pub game: String,
    /// A rules preset of the game.
    pub rules: String,
    /// `NAME=VALUE` option settings on top of the preset.
    #[serde(default)]
    pub set: Vec<String>,
    /// Where the server listens.
    pub listen: String,
    /// What every agent runs under.
    pub limits: Limits,
    /// The ladder.
    pub ladder: Ladder,
    /// Upload caps.
    pub uploads: Uploads,
    /// The guard against clients that present refused tokens.
    #[serde(default)]
    pub security: Security,
    /// The final's settings.
    #[serde(default, rename = "final")]
    pub final_: Final,
    /// What the database keeps of played games.
    #[serde(default)]
    pub storage: Storage,
    /// Practice matches teams ask for.
    #[serde(default)]
    pub spar: Spar,
    /// House agents every team is measured against, unrated.
    #[serde(default)]
    pub bosses: Bosses,
    /// People playing agents from the browser (`/play`).
    #[serde(default)]
    pub play: Play,
}

/// Bosses (`queue::ladder` schedules them, `croupier_tournament::bosses` says what they
/// show): fixed agents every team's latest valid version plays in duplicate deals, apart
/// from the ratings, so that a course can grade by "beats cheapest (95%)".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bosses {
    /// The bosses, weakest first: example agents' names (`durak/cheapest`) or the
    /// organiser's own agents as `.wasm` files under the arena's directory
    /// (`bosses/teacher.wasm`). None by default.
    #[serde(default)]
    pub agents: Vec<String>,
    /// Deals in one boss match (each once per seat rotation).
    #[serde(default = "default_boss_deals")]
    pub deals: u64,
    /// Deals each version plays against each boss as soon as it is valid.
    #[serde(default = "default_boss_first")]
    pub first: u64,
    /// After `first`, a version's boss games grow with its rated games: at most this share
    /// of them, split among the bosses.
    #[serde(default = "default_boss_share")]
    pub share: f64,
}

/// The default of [`Bosses::deals`]: the ladder's match length, for the same reason.
fn default_boss_deals() -> u64 {
    8
}

/// The default of [`Bosses::first`]: enough that a clear win (about 75% of deals) shows its
/// badge at once, while a class's uploads at the start of a course cost each version 32
/// deals a boss, a few seconds of play.
fn default_boss_first() -> u64 {
    32
}

/// The default of [`Bosses::share`]: a quarter of the games a version plays on the ladder.
fn default_boss_share() -> f64 {
    0.25
}

impl Default for Bosses {
    fn default() -> Bosses {
        Bosses {
            agents: Vec::new(),
            deals: default_boss_deals(),
            first: default_boss_first(),
            share: default_boss_share(),
        }
    }
}

impl Bosses {
    /// Where boss `name` is: an organiser's `.wasm` file under `dir` (the arena's
    /// directory), or a built example agent. Says why not, for the config's error.
    pub fn path(dir: &Path, name: &str) -> Result<PathBuf, String> {
        if name.contains('#') {
            return Err(format!(
                "`{name}`: a boss plays without arguments (the arena runs a house agent by its build alone)"
            ));
        }
        if name.ends_with(".wasm") {
            let rel = Path::new(name);
            if rel.is_absolute()
                || rel
                    .components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                return Err(format!(
                    "`{name}`: an organiser's boss is a path inside the arena's directory, like bosses/teacher.wasm"
                ));
            }
            let path = dir.join(rel);
            if !path.is_file() {
                return Err(format!("`{name}`: no such file {}", path.display()));
            }
            return Ok(path);
        }
        croupier_host::registry::resolve(name)
            .map(|a| a.path)
            .map_err(|e| e.to_string())
    }
}

/// What the database keeps of played games (`storage.rs` applies it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// MiB the stored games may take, logs and replays and results (estimated per row, see
    /// `storage.rs`). Past it, the oldest logs and then the oldest replays are dropped; if
    /// the results alone fill it, the ladder pauses.
    pub budget_mb: u64,
    /// Log bytes kept per agent per game (each line costs 16 more); the rest of a longer
    /// log is cut when the game is stored, with a line saying how much.
    pub log_bytes_per_game: u32,
    /// Every game this recent keeps its replay and logs.
    pub keep_hours: u32,
    /// Of older matches, one in this many keeps its replays and logs (1 keeps every one);
    /// the others keep only their results, which the ratings are made of.
    pub keep_one_in: u32,
    /// Seconds between the server's applications of the budget (`croupier arena prune`
    /// applies it at once).
    #[serde(default = "default_prune_seconds")]
    pub prune_seconds: u32,
    /// Days the budget must last: the ladder paces itself so that the results fit until
    /// `final.deadline`, or without one for this many days from the first pass. 0 lets it
    /// play at full speed until the budget pauses it.
    #[serde(default = "default_plan_days")]
    pub plan_days: u32,
}

/// The default of [`Storage::plan_days`]: a course's eight weeks.
fn default_plan_days() -> u32 {
    56
}

/// The default of [`Storage::prune_seconds`]: at the fastest ladder measured (about 1 700
/// games a second with logging agents, cut to 4 KiB of logs a seat) five minutes add at most
/// a few hundred MB before the next pass.
fn default_prune_seconds() -> u32 {
    300
}

impl Default for Storage {
    fn default() -> Storage {
        Storage {
            budget_mb: 4096,
            log_bytes_per_game: 4096,
            keep_hours: 48,
            keep_one_in: 100,
            prune_seconds: default_prune_seconds(),
            plan_days: default_plan_days(),
        }
    }
}

/// The final's settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Final {
    /// When uploads close by themselves (RFC 3339 with its offset, e.g.
    /// `2026-12-18T23:59:00+01:00`); none if left out. The ladder plays on until the final.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<String>,
}

impl Final {
    /// The deadline in ms since the epoch, if one is set and readable.
    pub fn deadline_ms(&self) -> Option<i64> {
        self.deadline.as_deref().and_then(rfc3339_ms)
    }
}

/// The default of [`Security::refused_tokens_per_minute`].
pub const DEFAULT_REFUSED_TOKENS_PER_MINUTE: u32 = 20;

/// Practice matches a team asks for (`manage::spar`): unrated, played before ladder matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spar {
    /// Spar matches one team may ask for in any hour (429 beyond).
    pub per_hour: u32,
    /// Deals in one spar match (each once per seat rotation).
    pub deals: u64,
    /// House agents a team may spar against besides `ladder.reference`, e.g.
    /// `["durak/random-lead", "durak/ismcts"]`.
    #[serde(default)]
    pub house: Vec<String>,
}

impl Default for Spar {
    fn default() -> Spar {
        Spar {
            per_hour: 6,
            deals: 2,
            house: Vec::new(),
        }
    }
}

/// People playing agents from the browser ([`crate::play`]): never rated, kept in memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Play {
    /// Human games going at once on the server, all teams together (503 beyond).
    pub games: u32,
    /// Human games one team may have going at once (429 beyond).
    pub per_team: u32,
    /// Seconds a person has for one decision; past it the game ends.
    pub turn_seconds: u32,
    /// Seconds without a sign of the game's page after which the game ends.
    pub left_seconds: u32,
    /// Minutes a finished human game's replay is kept (in memory only).
    pub keep_minutes: u32,
    /// Anyone may play, signed in or not, against the house agents (`arena demo` sets it).
    #[serde(default)]
    pub open: bool,
}

impl Default for Play {
    fn default() -> Play {
        Play {
            games: 16,
            per_team: 2,
            turn_seconds: 600,
            left_seconds: 180,
            keep_minutes: 60,
            open: false,
        }
    }
}

/// The guard against clients that present refused tokens (`identity.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Security {
    /// Refused tokens one client address may present in a minute before every unknown token
    /// it presents is refused unread (429); a valid token always passes.
    pub refused_tokens_per_minute: u32,
}

impl Default for Security {
    fn default() -> Security {
        Security {
            refused_tokens_per_minute: DEFAULT_REFUSED_TOKENS_PER_MINUTE,
        }
    }
}

impl ArenaConfig {
    /// The defaults for `game` under preset `rules`.
    pub fn new(game: GameKind, rules: &str) -> ArenaConfig {
        ArenaConfig {
            title: format!("{} arena", game.name()),
            game: game.name().to_string(),
            rules: rules.to_string(),
            set: Vec::new(),
            listen: "127.0.0.1:8080".into(),
            limits: Limits::default(),
            ladder: Ladder {
                deals: 8,
                duplicate: true,
                placement: 4,
                suspend_after: 5,
                reference: default_reference(game).into(),
                smoke_deals: 1,
                threads: 1,
                rating: default_rating(),
                tau: 0.1,
                seed: 1,
                lease_seconds: default_lease_seconds(),
                checkpoint_seconds: default_checkpoint_seconds(),
            },
            uploads: Uploads {
                max_bytes: 32 << 20,
                per_hour: 12,
                idle_seconds: default_idle_seconds(),
                in_flight: default_in_flight(),
            },
            security: Security::default(),
            final_: Final::default(),
            storage: Storage::default(),
            spar: Spar::default(),
            bosses: Bosses::default(),
            play: Play::default(),
        }
    }

    /// The game, parsed.
    pub fn kind(&self) -> GameKind {
        // Checked by `check` when the file is read.
        GameKind::parse(&self.game).unwrap_or(GameKind::Durak)
    }

    /// The rule options as the match library takes them.
    pub fn rules_args(&self) -> croupier_tournament::matches::RulesArgs {
        croupier_tournament::matches::RulesArgs {
            rules: Some(self.rules.clone()),
            players: None,
            set: self.set.clone(),
        }
    }

    /// Reads and checks `DIR/arena.toml`.
    pub fn load(dir: &Path) -> Result<ArenaConfig, ConfigError> {
        let path = dir.join("arena.toml");
        let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::Io {
            path: path.clone(),
            reason: format!(
                "cannot read the arena config: {e} (make one with `croupier arena init`)"
            ),
        })?;
        let cfg: ArenaConfig = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.clone(),
            reason: e.to_string().trim_end().replace('\n', " "),
        })?;
        cfg.check(&path)?;
        Ok(cfg)
    }
}

/// Three example agents of `game`, weakest first: the bosses `croupier arena init` suggests
/// and `croupier arena demo` plays (each game's presentation names them).
pub fn suggested_bosses(game: GameKind) -> [&'static str; 3] {
    croupier_tournament::with_game!(game, G => <G as croupier_tournament::games::Presentation>::BOSSES)
}

/// The example agent every upload of `game` is smoke-tested against.
pub fn default_reference(game: GameKind) -> &'static str {
    croupier_tournament::with_game!(game, G => <G as croupier_tournament::games::Presentation>::REFERENCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commented_file_reads_back_to_the_same_config() {
        for kind in GameKind::ALL {
            let mut cfg = ArenaConfig::new(kind, "x");
            cfg.set = vec!["a=\"1\"".into()];
            cfg.limits.time_bank_millis = Some(7);
            let back: ArenaConfig = toml::from_str(&cfg.to_commented_toml()).expect("parses");
            assert_eq!(back, cfg);
        }
    }

    /// A rating system the arena does not have, and an upload idle time of zero, are refused
    /// naming the file and the field; an arena.toml from before either field existed still
    /// loads, with the defaults.
    #[test]
    fn a_bad_rating_or_idle_time_is_refused_by_name_and_old_files_still_load() {
        let path = Path::new("/arenas/course/arena.toml");
        let mut cfg = ArenaConfig::new(GameKind::Durak, "teams");
        cfg.check(path).expect("the defaults are valid");
        cfg.ladder.rating = "trueskill".into();
        let e = cfg.check(path).expect_err("refused").to_string();
        assert!(
            e.contains("/arenas/course/arena.toml")
                && e.contains("ladder.rating")
                && e.contains("weng-lin"),
            "{e}"
        );
        let mut cfg = ArenaConfig::new(GameKind::Durak, "teams");
        cfg.uploads.idle_seconds = 0;
        let e = cfg.check(path).expect_err("refused").to_string();
        assert!(e.contains("uploads.idle_seconds"), "{e}");
        let old = ArenaConfig::new(GameKind::Durak, "teams")
            .to_commented_toml()
            .lines()
            .filter(|l| {
                !l.starts_with("rating =")
                    && !l.starts_with("idle_seconds =")
                    && !l.starts_with("in_flight =")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let back: ArenaConfig = toml::from_str(&old).expect("an older file parses");
        assert_eq!(back.ladder.rating, "weng-lin");
        assert_eq!(back.uploads.idle_seconds, 30);
        assert_eq!(back.uploads.in_flight, 2);
    }

    /// Bosses read back from the commented file; a boss the arena cannot use, and a deal
    /// count or share out of range, are refused naming the file and the field.
    #[test]
    fn a_bad_boss_is_refused_naming_its_field() {
        let dir = std::env::temp_dir().join(format!("croupier-bosses-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bosses")).expect("mkdir");
        std::fs::write(
            dir.join("bosses/mine.wasm"),
            b"checked by the loader at start",
        )
        .expect("write");
        let path = dir.join("arena.toml");
        let mut cfg = ArenaConfig::new(GameKind::Durak, "teams");
        cfg.bosses.agents = vec!["durak/cheapest".into(), "bosses/mine.wasm".into()];
        cfg.bosses.share = 1.0;
        cfg.check(&path)
            .expect("an example agent and a file under the arena");
        let back: ArenaConfig = toml::from_str(&cfg.to_commented_toml()).expect("parses");
        assert_eq!(back, cfg);
        let refused = |edit: &dyn Fn(&mut Bosses)| {
            let mut c = cfg.clone();
            edit(&mut c.bosses);
            c.check(&path).expect_err("refused").to_string()
        };
        for (agents, says) in [
            ("durak/nobody", "durak/nobody"),
            ("toepen/random", "toepen agent"),
            ("../mine.wasm", "inside the arena's directory"),
            ("/tmp/mine.wasm", "inside the arena's directory"),
            ("bosses/none.wasm", "no such file"),
            ("durak/ismcts#iters=9", "without arguments"),
        ] {
            let e = refused(&|b| b.agents = vec![agents.into()]);
            assert!(
                e.contains("bosses.agents") && e.contains(says) && e.contains("arena.toml"),
                "{agents}: {e}"
            );
        }
        let e = refused(&|b| b.agents = vec!["durak/cheapest".into(), "durak/cheapest".into()]);
        assert!(e.contains("bosses.agents") && e.contains("twice"), "{e}");
        let e = refused(&|b| b.deals = 0);
        assert!(e.contains("bosses.deals"), "{e}");
        let e = refused(&|b| b.first = 0);
        assert!(e.contains("bosses.first"), "{e}");
        for share in [-0.1, 1.5, f64::NAN] {
            let e = refused(&|b| b.share = share);
            assert!(e.contains("bosses.share"), "{share}: {e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `final.deadline` is an RFC 3339 time with its offset: read to the millisecond, and
    /// anything else is refused naming the field.
    #[test]
    fn a_deadline_is_an_rfc_3339_time() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(rfc3339_ms("2000-03-01T00:00:00.5Z"), Some(951_868_800_500));
        assert_eq!(
            rfc3339_ms("2026-12-18T23:59:00+01:00"),
            Some(1_797_634_740_000)
        );
        for bad in [
            "2026-12-18",
            "2026-12-18T23:59:00",
            "2026-02-30T00:00:00Z",
            "2026-12-18T23:59:00+1:00",
            "tomorrow",
        ] {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
        let mut cfg = ArenaConfig::new(GameKind::Durak, "teams");
        cfg.final_.deadline = Some("18/12/2026".into());
        let e = cfg
            .check(std::path::Path::new("/a/arena.toml"))
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains("final.deadline") && e.contains("18/12/2026"),
            "{e}"
        );
        cfg.final_.deadline = Some("2026-12-18T23:59:00+01:00".into());
        let text = cfg.to_commented_toml();
        let back: ArenaConfig = toml::from_str(&text).expect("parses");
        assert_eq!(back.final_, cfg.final_);
    }
}
