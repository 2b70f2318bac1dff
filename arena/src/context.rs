//! The one struct every handler and worker shares: the arena's directory, config,
//! database, sandbox runtime, the board computed from results, and the compiled agents.

use crate::config::ArenaConfig;
use crate::linked::Linked;
use crate::queue::JobEntrant;
use crate::ratings::{self, Board};
use crate::store::db::{Db, DbError};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::player::PlayerFactory;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// Matches whose results are read at once when the board catches up.
const BOARD_SLICE: i64 = 2000;

/// The shared state of one arena.
pub struct Arena {
    /// The arena's directory (config, SQLite file, agents, compile cache).
    pub dir: PathBuf,
    /// Its config.
    pub cfg: ArenaConfig,
    /// Its database.
    pub db: Db,
    /// The sandbox runtime every agent runs in.
    pub runtime: Runtime,
    /// Ratings and tables, from the stored results.
    pub board: RwLock<Board>,
    /// The live events pages and `croupier submit` follow ([`crate::events`]).
    pub events: crate::events::Hub,
    /// Woken when results or versions change: the scheduler waits on it.
    pub changed: tokio::sync::Notify,
    /// Woken when matches become leasable (queued, or given back): the lease calls and the
    /// embedded worker wait on it. Apart from [`Arena::changed`] so that the scheduler's own
    /// queueing does not wake the scheduler, nor every result wake every waiting lease.
    pub queued: tokio::sync::Notify,
    /// Turns at checking uploads: two at once (compiling takes a core each), one per team,
    /// the team that used the least check time first ([`crate::turns`]).
    pub checks: crate::turns::Turns,
    /// The content hash of the reference agent (stored with the uploads).
    pub reference: String,
    /// The house agents a team may spar against (`ladder.reference`, then `spar.house`).
    pub house: Vec<House>,
    /// The bosses every team is measured against (`bosses.agents`), weakest first.
    pub bosses: Vec<House>,
    /// Games in one deal of a boss match: one per seat rotation of two entrants.
    pub boss_deal_games: u64,
    /// Tokens refused per client address in the current minute (see
    /// [`crate::web::identity::FAILED_TOKENS_PER_MINUTE`]).
    pub failed_tokens: std::sync::Mutex<HashMap<std::net::IpAddr, (i64, u32)>>,
    /// Every valid token's SHA-256 and when the set was read (ms): what an address past
    /// its refused-token limit is checked against, so that a valid token is never refused
    /// for another client's junk (see [`crate::web::identity`]).
    pub known_tokens: tokio::sync::Mutex<(i64, std::collections::HashSet<Vec<u8>>)>,
    /// The key of the browser forms' CSRF tokens ([`crate::web::session`]).
    pub csrf_key: [u8; 32],
    /// Serialises the upload-rate check with the count it makes, so parallel uploads are
    /// counted one after the other ([`crate::web::manage::begin_upload`]), and with an upload's
    /// move from being read to stored ([`crate::web::manage::store`]), so no count misses it.
    pub upload_gate: tokio::sync::Mutex<()>,
    /// Per team: uploads accepted for reading but not stored yet, and uploads not yet
    /// answered (read, stored or checked).
    pub uploads_open: std::sync::Mutex<HashMap<i64, (u32, u32)>>,
    /// Set by `arena final`: no more uploads and no more ladder matches.
    pub frozen: AtomicBool,
    /// The last application of the storage budget (shown on the admin page).
    pub storage: std::sync::Mutex<Option<crate::store::storage::Pruned>>,
    /// The ladder's pace as f64 bits, `u64::MAX` for none ([`Arena::pace`]).
    pace: std::sync::atomic::AtomicU64,
    /// Verdicts on uploads this server has stored: the scheduler reads the versions again
    /// when it changes.
    pub verdicts: std::sync::atomic::AtomicU64,
    /// Linked agents by content hash (the uploads' checks and the embedded worker share it).
    pub linked: Arc<Linked>,
    /// People's games against agents (`/play`), in memory only.
    pub play: Arc<crate::play::Games>,
    /// Serialises board updates, so two never interleave, and knows when the board was last
    /// saved.
    board_update: tokio::sync::Mutex<Saves>,
    /// Each version's team and content hash, as matches name them. Both are fixed when the
    /// version is stored, so they are read from the database once: a lease and a remote
    /// report each asked for every entrant again, two round trips per match.
    entrants: std::sync::Mutex<HashMap<i64, JobEntrant>>,
    /// Matches this server leased and has not seen end, as their reports are checked. A
    /// match's seed, deals and entrants never change once it is queued, so a report needs
    /// no read of the match; one that reaches another server (several on one PostgreSQL)
    /// reads it there.
    leased: std::sync::Mutex<HashMap<i64, crate::queue::MatchInfo>>,
    /// When this server last wrote each worker's `seen_ms`.
    seen: std::sync::Mutex<HashMap<i64, i64>>,
    /// Team names by id. A name never changes once the team is added, so pages read it
    /// from here; a team this map does not know yet (added since, perhaps by `croupier arena
    /// team add` in another process) makes it read the table again. Reading all 200 names
    /// per team page cost a fifth of the page under load (sqlx hands SQLite's rows over
    /// one at a time, between two threads).
    names: RwLock<Arc<HashMap<i64, String>>>,
}

/// A house agent: one of the example agents, which a team may spar against. It plays as
/// entrant `-id`, with team 0.
#[derive(Clone, Debug)]
pub struct House {
    /// Its id in `house_agents`.
    pub id: i64,
    /// Its name, e.g. `durak/cheapest`.
    pub name: String,
    /// SHA-256 of its build.
    pub sha256: String,
}

/// Versions whose team and hash are kept in memory; past this the map starts again (a
/// course's ladder holds a few thousand versions, so this bounds only a pathological one).
const MAX_CACHED_ENTRANTS: usize = 1 << 16;

/// How stale a worker's `seen_ms` may be: a sixth of the minute in which the scheduler counts
/// a worker as active.
pub const WORKER_SEEN_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Leased matches kept in memory; past this the map starts again. A lease that expires
/// leaves its match here until a new lease replaces it, so this bounds only what dead
/// workers leave behind (a worker holds at most a few matches at once).
const MAX_REMEMBERED_LEASES: usize = 1 << 14;

/// When the board was last saved as a checkpoint, and how far it counted then.
#[derive(Default)]
struct Saves {
    /// The saved checkpoint has been looked at (once, when the board is first filled).
    looked: bool,
    at: Option<std::time::Instant>,
    upto: i64,
    /// How long the last save took.
    took: std::time::Duration,
}

/// A save may take at most this share of the time between saves: a board of thousands of
/// versions (a long course, many uploads per team) makes a checkpoint of tens of MB, saved
/// then less often than `ladder.checkpoint_seconds` asks.
const SAVE_SHARE: u32 = 100;

/// Why the arena could not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The config.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The runtime or its cache.
    #[error("{0}")]
    Runtime(String),
}

/// The key the browser forms' CSRF tokens are made under: 32 random bytes, made once per
/// arena and kept in the database, so a restart does not invalidate the forms open in
/// browsers.
async fn csrf_key(db: &Db) -> Result<[u8; 32], OpenError> {
    let bad = |e: String| OpenError::Runtime(format!("the CSRF key: {e}"));
    let fresh = crate::auth::random_bytes::<32>().map_err(|e| bad(e.to_string()))?;
    let stored = db
        .meta_or_insert("csrf_key", &crate::auth::hex(&fresh))
        .await?;
    crate::auth::hex_decode(&stored)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| bad("meta.csrf_key is not 32 bytes of hex".into()))
}

/// The bosses of `bosses.agents`, each stored like an upload and recorded as a house agent
/// with its build, so a boss match names one build for ever. An organiser's own file is
/// checked by the loader here, so a broken boss stops the server at start, naming it,
/// rather than losing every game (and handing every team its badge).
async fn open_bosses(
    dir: &Path,
    cfg: &ArenaConfig,
    runtime: &Runtime,
    db: &Db,
) -> Result<Vec<House>, OpenError> {
    let bad = |name: &str, e: String| OpenError::Runtime(format!("bosses.agents: `{name}`: {e}"));
    let mut bosses = Vec::new();
    for name in &cfg.bosses.agents {
        let path = crate::config::Bosses::path(dir, name).map_err(|e| bad(name, e))?;
        if name.ends_with(".wasm") {
            let loaded = runtime.load(&path).map_err(|e| bad(name, e.to_string()))?;
            if loaded.game != cfg.kind() {
                return Err(bad(
                    name,
                    format!(
                        "a {} agent, and this arena plays {}",
                        loaded.game.name(),
                        cfg.game
                    ),
                ));
            }
        }
        bosses.push(House::record(dir, db, name, &path).await?);
    }
    Ok(bosses)
}

impl House {
    /// House agent `name`, the file at `path`: stored like an upload in `dir`'s agents and
    /// recorded with its build, so a match's entrant `-id` names one build for ever.
    async fn record(dir: &Path, db: &Db, name: &str, path: &Path) -> Result<House, OpenError> {
        let bytes = std::fs::read(path)
            .map_err(|e| OpenError::Runtime(format!("{}: {e}", path.display())))?;
        let agents = dir.join("agents");
        let sha256 = crate::store::agents::store_agent(&agents, &bytes)
            .map_err(|e| OpenError::Runtime(format!("{}: {e}", agents.display())))?;
        let id = db.house_agent(name, &sha256).await?;
        Ok(House {
            id,
            name: name.to_string(),
            sha256,
        })
    }
}

impl Arena {
    /// Opens the arena in `dir` (its config must exist), on SQLite in `dir` or on `database`.
    /// The board starts empty: the server fills it ([`Arena::update_board`]) before it
    /// serves, while a command that only adds a team never reads millions of results.
    pub async fn open(dir: &Path, database: Option<&str>) -> Result<Arc<Arena>, OpenError> {
        let cfg = ArenaConfig::load(dir)?;
        let db = Db::open(dir, database).await?;
        let cache = croupier_host::cache::Cache::at(dir.join("cache"))
            .map_err(|e| OpenError::Runtime(format!("{}: compile cache: {e}", dir.display())))?;
        let runtime = Runtime::new(cfg.limits.clone(), cache)
            .map_err(|e| OpenError::Runtime(format!("the sandbox runtime: {e:#}")))?;
        let agents = dir.join("agents");
        std::fs::create_dir_all(&agents).map_err(|e| {
            OpenError::Runtime(format!(
                "{}: cannot make the agents folder: {e}",
                agents.display()
            ))
        })?;
        let reference = croupier_host::registry::resolve(&cfg.ladder.reference)
            .map_err(|e| OpenError::Runtime(format!("ladder.reference: {e}")))?;
        let bytes = std::fs::read(&reference.path)
            .map_err(|e| OpenError::Runtime(format!("{}: {e}", reference.path.display())))?;
        let reference = crate::store::agents::store_agent(&agents, &bytes)
            .map_err(|e| OpenError::Runtime(format!("{}: {e}", agents.display())))?;
        // The agents a team may spar against: the reference first, each stored like an
        // upload and recorded with its build, so a spar's entrant names one build for ever.
        let mut house = Vec::new();
        let wanted = std::iter::once(&cfg.ladder.reference).chain(&cfg.spar.house);
        for name in wanted {
            if house.iter().any(|h: &House| &h.name == name) {
                continue;
            }
            let agent = croupier_host::registry::resolve(name)
                .map_err(|e| OpenError::Runtime(format!("spar.house: {e}")))?;
            house.push(House::record(dir, &db, name, &agent.path).await?);
        }
        let bosses = open_bosses(dir, &cfg, &runtime, &db).await?;
        let boss_deal_games = croupier_tournament::with_game!(cfg.kind(), G => {
            croupier_tournament::matches::setup::options::<G>(&cfg.rules_args())
                .map(|(_, opts)| croupier_rules::Rules::seats(&opts))
                .map_err(|e| OpenError::Runtime(format!("rules: {e}")))?
        });
        let boss_deal_games = croupier_tournament::bosses::games_per_deal(boss_deal_games);
        let frozen = db.meta("frozen").await?.is_some();
        let csrf_key = csrf_key(&db).await?;
        let linked = Arc::new(Linked::new(runtime.clone()));
        let play = crate::play::Games::new(crate::play::Bounds::from(&cfg.play));
        let arena = Arc::new(Arena {
            dir: dir.to_path_buf(),
            cfg,
            db,
            runtime,
            board: RwLock::new(Board::default()),
            changed: tokio::sync::Notify::new(),
            queued: tokio::sync::Notify::new(),
            checks: crate::turns::Turns::new(2),
            failed_tokens: std::sync::Mutex::new(HashMap::new()),
            known_tokens: tokio::sync::Mutex::new((i64::MIN, Default::default())),
            reference,
            house,
            bosses,
            boss_deal_games,
            frozen: AtomicBool::new(frozen),
            storage: std::sync::Mutex::new(None),
            pace: std::sync::atomic::AtomicU64::new(u64::MAX),
            csrf_key,
            upload_gate: tokio::sync::Mutex::new(()),
            uploads_open: std::sync::Mutex::new(HashMap::new()),
            verdicts: std::sync::atomic::AtomicU64::new(0),
            play,
            linked,
            board_update: tokio::sync::Mutex::new(Saves::default()),
            entrants: std::sync::Mutex::new(HashMap::new()),
            events: Default::default(),
            leased: std::sync::Mutex::new(HashMap::new()),
            seen: std::sync::Mutex::new(HashMap::new()),
            names: RwLock::new(Arc::new(HashMap::new())),
        });
        Ok(arena)
    }

    /// Where an agent with this content hash is stored.
    pub fn agent_path(&self, sha256: &str) -> PathBuf {
        self.dir.join("agents").join(format!("{sha256}.wasm"))
    }

    /// Notes that worker `id` asked for work. `seen_ms` only has to say whether it was heard
    /// from in the last minute (the scheduler's count of workers, [`WORKER_SEEN_EVERY`]), so it
    /// is written at most that often per worker, not on every lease call.
    pub async fn worker_seen(&self, id: i64) -> Result<(), DbError> {
        let now = crate::now_ms();
        let due = self.seen.lock().map_or(true, |mut m| {
            let last = m.entry(id).or_insert(i64::MIN);
            let due = now.saturating_sub(*last) >= WORKER_SEEN_EVERY.as_millis() as i64;
            if due {
                *last = now;
            }
            due
        });
        if due {
            self.db.worker_seen(id).await?;
        }
        Ok(())
    }

    /// Keeps a match this server just leased, for its reports.
    pub fn remember_leased(&self, info: &crate::queue::MatchInfo) {
        if let Ok(mut m) = self.leased.lock() {
            if m.len() >= MAX_REMEMBERED_LEASES {
                m.clear();
            }
            m.insert(info.id, info.clone());
        }
    }

    /// A match this server leased, if it still has it in memory.
    pub fn leased_match(&self, id: i64) -> Option<crate::queue::MatchInfo> {
        self.leased.lock().ok()?.get(&id).cloned()
    }

    /// Forgets a match that has ended.
    pub fn forget_leased(&self, id: i64) {
        if let Ok(mut m) = self.leased.lock() {
            m.remove(&id);
        }
    }

    /// Version `id` as a match entrant (team and content hash), from memory when it was read
    /// before; `None` if there is no such version. A negative id is a house agent (team 0).
    pub async fn entrant(&self, id: i64) -> Result<Option<JobEntrant>, DbError> {
        if let Some(e) = self.entrants.lock().ok().and_then(|m| m.get(&id).cloned()) {
            return Ok(Some(e));
        }
        let e = if id < 0 {
            // A house agent in a spar.
            let Some((_, sha256)) = self.db.house_agent_by_id(-id).await? else {
                return Ok(None);
            };
            JobEntrant {
                version: id,
                team: 0,
                sha256,
            }
        } else {
            let Some(v) = self.db.version(id).await? else {
                return Ok(None);
            };
            JobEntrant {
                version: id,
                team: v.team_id,
                sha256: v.sha256,
            }
        };
        if let Ok(mut m) = self.entrants.lock() {
            if m.len() >= MAX_CACHED_ENTRANTS {
                m.clear();
            }
            m.insert(id, e.clone());
        }
        Ok(Some(e))
    }

    /// Team names by id, covering at least `ids` when those teams exist (read from the
    /// database only when one of them is not known yet).
    pub async fn team_names(
        &self,
        ids: impl IntoIterator<Item = i64>,
    ) -> Result<Arc<HashMap<i64, String>>, DbError> {
        let known = self
            .names
            .read()
            .map(|n| n.clone())
            .unwrap_or_else(|_| Arc::new(HashMap::new()));
        if ids.into_iter().all(|id| known.contains_key(&id)) {
            return Ok(known);
        }
        let fresh = Arc::new(self.db.team_names().await?);
        if let Ok(mut n) = self.names.write() {
            *n = fresh.clone();
        }
        Ok(fresh)
    }

    /// Applies the storage budget now ([`crate::store::storage::prune`]), keeps what it did for
    /// the admin page, and pauses or resumes the ladder with it.
    pub async fn apply_storage_budget(&self) -> Result<crate::store::storage::Pruned, DbError> {
        let done = crate::store::storage::prune(
            &self.db,
            &self.cfg.storage,
            self.cfg.final_.deadline_ms(),
            crate::now_ms(),
        )
        .await?;
        self.set_pace(done.pace);
        let was = self.storage_full();
        if let Ok(mut last) = self.storage.lock() {
            *last = Some(done);
        }
        if was && !done.after.full {
            self.changed.notify_waiters();
        }
        Ok(done)
    }

    /// Whether the last pass of the storage budget found the results alone filling it: the
    /// scheduler then queues no ladder match.
    pub fn storage_full(&self) -> bool {
        self.storage
            .lock()
            .is_ok_and(|l| l.is_some_and(|p| p.after.full))
    }

    /// Sets the ladder's pace ([`crate::store::storage::pace`]): rated games a second, or none.
    pub fn set_pace(&self, pace: Option<f64>) {
        let bits = pace.map_or(u64::MAX, |p| p.max(0.0).to_bits());
        self.pace.store(bits, Ordering::Relaxed);
    }

    /// The ladder's pace: rated games a second, or none for full speed.
    pub fn pace(&self) -> Option<f64> {
        let bits = self.pace.load(Ordering::Relaxed);
        (bits != u64::MAX).then(|| f64::from_bits(bits))
    }

    /// Whether the arena is frozen, read from the database: `arena final` and `arena
    /// reopen` run in other processes, and an upload must be refused (or taken again) the
    /// moment it starts, not when the ladder next looks.
    pub async fn frozen_now(&self) -> Result<bool, DbError> {
        let frozen = self.db.meta("frozen").await?.is_some();
        self.frozen.store(frozen, Ordering::Relaxed);
        Ok(frozen)
    }

    /// Why uploads are closed now, if they are: the final has begun, or `final.deadline`
    /// has passed.
    pub async fn uploads_closed(&self) -> Result<Option<String>, DbError> {
        if self.frozen_now().await? {
            return Ok(Some("submissions are closed: the final has begun".into()));
        }
        Ok(self.past_deadline())
    }

    /// The deadline's refusal, once `final.deadline` has passed.
    pub fn past_deadline(&self) -> Option<String> {
        let d = self.cfg.final_.deadline_ms()?;
        (crate::now_ms() >= d).then(|| {
            format!(
                "submissions closed at the deadline, {}",
                self.cfg.final_.deadline.as_deref().unwrap_or("")
            )
        })
    }

    /// Whether submissions and the ladder are stopped for the final, as this process last
    /// saw it (pages; an upload asks [`Arena::frozen_now`]).
    pub fn is_frozen(&self) -> bool {
        self.frozen.load(Ordering::Relaxed)
    }

    /// The ratings rules of the ladder.
    pub fn rating_rules(&self) -> ratings::Rules {
        ratings::Rules {
            tau: self.cfg.ladder.tau,
            suspend_after: self.cfg.ladder.suspend_after,
        }
    }

    /// Counts the results of every match that is done and has no open match before it. The
    /// first time, it starts from the saved checkpoint if that can be used; it saves a new
    /// one every `ladder.checkpoint_seconds` while results come in.
    pub async fn update_board(&self) -> Result<(), DbError> {
        let mut saves = self.board_update.lock().await;
        let upto = self.db.done_below().await?;
        if !saves.looked {
            saves.looked = true;
            self.restore_board(upto).await?;
            saves.upto = self.board.read().map(|b| b.applied_upto).unwrap_or(0);
            saves.at = Some(std::time::Instant::now());
        }
        let mut from = self.board.read().map(|b| b.applied_upto).unwrap_or(0);
        let rules = self.rating_rules();
        // In slices of matches, so that a restart over millions of games never holds them
        // all in memory at once.
        while from < upto {
            let to = upto.min(from.saturating_add(BOARD_SLICE));
            let rows = self.db.seats_between(from, to).await?;
            let team: HashMap<i64, i64> = rows.iter().map(|r| (r.version_id, r.team_id)).collect();
            if let Ok(mut b) = self.board.write() {
                b.apply(&rows, to, rules, &|v| team.get(&v).copied().unwrap_or(0));
            }
            from = to;
        }
        let every = std::time::Duration::from_secs(self.cfg.ladder.checkpoint_seconds)
            .max(saves.took * SAVE_SHARE);
        if from > saves.upto && saves.at.is_none_or(|t| t.elapsed() >= every) {
            self.save_board(&mut saves).await;
        }
        Ok(())
    }

    /// Saves the board now if it counts more than the last save (at a clean shutdown).
    pub async fn checkpoint_board(&self) {
        let mut saves = self.board_update.lock().await;
        let upto = self.board.read().map(|b| b.applied_upto).unwrap_or(0);
        if saves.looked && upto > saves.upto {
            self.save_board(&mut saves).await;
        }
    }

    /// Writes the checkpoint. A failure is only logged: the checkpoint is derived data, and
    /// without it a restart is slower, nothing more.
    async fn save_board(&self, saves: &mut Saves) {
        let started = std::time::Instant::now();
        match self.write_checkpoint().await {
            Ok(upto) => saves.upto = upto,
            Err(e) => tracing::error!("arena: saving the ratings checkpoint: {e}"),
        }
        saves.took = started.elapsed();
        saves.at = Some(std::time::Instant::now());
    }

    /// Writes the board as the checkpoint; the match it counts up to.
    async fn write_checkpoint(&self) -> Result<i64, String> {
        let row = {
            let b = self
                .board
                .read()
                .map_err(|_| "the board's lock is poisoned".to_string())?;
            crate::store::db::checkpoint::CheckpointRow {
                applied_upto: b.applied_upto,
                games: (b.games + b.boss_games) as i64,
                body: b.save(self.rating_rules()).map_err(|e| e.to_string())?,
            }
        };
        self.db
            .save_checkpoint(&row)
            .await
            .map_err(|e| e.to_string())?;
        Ok(row.applied_upto)
    }

    /// Starts the empty board from the saved checkpoint, if there is one that this build
    /// counted under these settings and that agrees with the stored games. Otherwise every
    /// result is counted, and the server says why.
    async fn restore_board(&self, done_below: i64) -> Result<(), DbError> {
        let Some(c) = self.db.load_checkpoint().await? else {
            return Ok(());
        };
        let why_not = if c.applied_upto > done_below {
            // Matches below it were done when it was saved, and a done match stays done.
            format!(
                "it counts matches up to {} and only those below {done_below} are done",
                c.applied_upto
            )
        } else {
            match Board::restore(&c.body, self.rating_rules()) {
                Err(e) => e.to_string(),
                Ok(board)
                    if board.applied_upto != c.applied_upto
                        || (board.games + board.boss_games) as i64 != c.games =>
                {
                    format!(
                        "its row says {} games below match {}, its body {} below {}",
                        c.games, c.applied_upto, board.games, board.applied_upto
                    )
                }
                Ok(board) => {
                    let stored = self.db.games_below(c.applied_upto).await?;
                    if stored != c.games {
                        format!(
                            "it counts {} games below match {} and {stored} are stored",
                            c.games, c.applied_upto
                        )
                    } else {
                        tracing::info!(
                            "arena: ratings from the checkpoint at match {} ({} games, {} KiB); counting the {} matches since",
                            c.applied_upto,
                            c.games,
                            c.body.len() / 1024,
                            done_below - c.applied_upto
                        );
                        if let Ok(mut b) = self.board.write() {
                            *b = board;
                        }
                        return Ok(());
                    }
                }
            }
        };
        tracing::info!(
            "arena: the ratings checkpoint is not used ({why_not}); counting every result"
        );
        Ok(())
    }

    /// The linked agent stored under `sha256`, loading and linking it on first use.
    pub fn factory<G: Adapter>(
        &self,
        sha256: &str,
        opts: &G::Options,
    ) -> Result<Arc<dyn PlayerFactory<G>>, String> {
        self.linked
            .factory::<G>(sha256, &self.agent_path(sha256), opts)
    }
}
