//! `croupier new GAME NAME`: a ready agent crate in `./NAME` that builds and plays unchanged.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};

pub mod c;
pub mod js;
pub mod python;

/// The language of a new agent project (`croupier new --lang`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// A Rust crate on croupier-sdk.
    #[default]
    Rust,
    /// A Python project on the `croupier` module (built with componentize-py).
    Python,
    /// A C project (Debian's clang, lld and wasi-libc).
    C,
    /// A JavaScript project on the `croupier` SDK module (esbuild, componentize-qjs).
    Js,
    /// A TypeScript project on the same SDK (tsc first).
    Ts,
}

/// Creates an agent project in `lang`; returns its directory.
pub fn create_lang(lang: Lang, game: GameKind, name: &str, parent: &Path) -> Result<PathBuf> {
    match lang {
        Lang::Rust => create(game, name, parent),
        Lang::Python => {
            let dir = new_dir(name, parent)?;
            python::create(game, name, &dir)?;
            Ok(dir)
        }
        Lang::C => {
            let dir = new_dir(name, parent)?;
            c::create(game, name, &dir)?;
            Ok(dir)
        }
        Lang::Js | Lang::Ts => {
            let dir = new_dir(name, parent)?;
            js::create(game, name, &dir, lang == Lang::Ts)?;
            Ok(dir)
        }
    }
}

/// The SDK this binary was built with (agents must speak the same contract).
fn sdk_path() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk");
    p.canonicalize().unwrap_or(p)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn lib_rs(game: GameKind) -> &'static str {
    match game {
        GameKind::Durak => {
            r#"//! My Durak agent. Start in `decide`: it gets everything this seat may know and the legal
//! actions, and must return one of them.

use croupier_sdk::durak::{Action, Durak, Observation};
use croupier_sdk::{Agent, Card, Ctx, GameInfo};

pub struct MyAgent {
    /// The trump suit never changes during a game.
    trump: croupier_sdk::Suit,
}

/// Lower is cheaper: any plain card is cheaper than any trump.
fn cost(card: Card, trump: croupier_sdk::Suit) -> u8 {
    card.rank() + if card.suit() == trump { 20 } else { 0 }
}

impl Agent<Durak> for MyAgent {
    fn new(info: &GameInfo<Durak>) -> Self {
        // info.options holds the rules (deck, players, transfer, ...); info.seat is our seat.
        let _ = info;
        MyAgent { trump: croupier_sdk::Suit::Clubs }
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        self.trump = obs.trump_suit;
        // What you can use: obs.hand, obs.table, obs.trump, obs.phase, obs.discard (cards gone
        // for good), obs.known (cards known to be in each hand), obs.unseen, obs.hand_sizes.
        // Simple legal strategy: play the cheapest card we can (lead, beat, throw in, transfer);
        // if no card can be played, the remaining action is take or pass.
        let card_of = |a: &Action| match *a {
            Action::Lead(c) | Action::Transfer(c) | Action::ThrowIn(c) => Some(c),
            Action::Beat { card, .. } => Some(card),
            _ => None,
        };
        let cheapest = legal
            .iter()
            .filter(|a| !matches!(a, Action::Transfer(_))) // transferring is a choice; try it later
            .filter_map(|a| card_of(a).map(|c| (cost(c, self.trump), *a)))
            .min_by_key(|(k, _)| *k)
            .map(|(_, a)| a);
        // Pass on throw-ins of trumps: keep them for defence.
        match cheapest {
            Some(Action::ThrowIn(c)) if c.suit() == self.trump => {
                legal.iter().copied().find(|a| *a == Action::Pass).unwrap_or(legal[0])
            }
            Some(a) => a,
            None => legal[0],
        }
    }
}

croupier_sdk::export_durak!(MyAgent);
"#
        }
        GameKind::Toepen => {
            r#"//! My Toepen agent. Start in `decide`: it gets everything this seat may know and the legal
//! actions, and must return one of them.

use croupier_sdk::toepen::{Action, Observation, Toepen};
use croupier_sdk::{Agent, Ctx, GameInfo};

pub struct MyAgent;

/// Toepen's order inside a suit: J < Q < K < A < 7 < 8 < 9 < 10.
fn strength(rank: u8) -> u8 {
    match rank {
        11 => 1,
        12 => 2,
        13 => 3,
        14 => 4,
        r => r - 2,
    }
}

impl Agent<Toepen> for MyAgent {
    fn new(_info: &GameInfo<Toepen>) -> Self {
        MyAgent
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        // What you can use: obs.hand, obs.trick (cards in the current trick), obs.played,
        // obs.voids (suits each player is known to lack), obs.unseen, obs.stake, obs.scores.
        // Simple legal strategy: never knock, stay when someone knocks, make no laundry claim,
        // and play the weakest legal card, except in the last trick: then the strongest.
        let _ = obs;
        let last_trick = obs.trick_no == 4;
        let plays = legal.iter().filter_map(|a| match a {
            Action::Play(c) => Some((strength(c.rank()), *a)),
            _ => None,
        });
        let card = if last_trick {
            plays.max_by_key(|(s, _)| *s)
        } else {
            plays.min_by_key(|(s, _)| *s)
        };
        if let Some((_, a)) = card {
            return a;
        }
        for wanted in [Action::Stay, Action::NoKnock, Action::NoClaim, Action::NoChallenge] {
            if legal.contains(&wanted) {
                return wanted;
            }
        }
        legal[0]
    }
}

croupier_sdk::export_toepen!(MyAgent);
"#
        }
        GameKind::Uno => {
            r#"//! My UNO agent. Start in `decide`: it gets everything this seat may know and the legal
//! actions, and must return one of them.

use croupier_sdk::uno::{Action, Color, Observation, Uno};
use croupier_sdk::{Agent, Ctx, GameInfo};

pub struct MyAgent;

impl Agent<Uno> for MyAgent {
    fn new(_info: &GameInfo<Uno>) -> Self {
        MyAgent
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        // What you can use: obs.hand, obs.top, obs.color, obs.hand_sizes, obs.pending (a stack
        // of draw cards aimed at us), obs.unseen (cards not yet seen, per face).
        // Simple legal strategy: play a card if we can (wild cards last, naming the colour we
        // hold most of), otherwise whatever the rules leave (draw, keep, accept).
        let mut counts = [0usize; 4];
        for c in &obs.hand {
            if let Some(col) = c.color() {
                counts[col as usize] += 1;
            }
        }
        let best = Color::ALL
            .into_iter()
            .max_by_key(|c| counts[*c as usize])
            .unwrap_or(Color::Red);
        let mut choice = None;
        for a in legal {
            match *a {
                Action::Play { declare: None, .. } | Action::PlayDrawn { declare: None, .. } => {
                    return *a;
                }
                Action::Play { declare: Some(c), .. }
                | Action::PlayDrawn { declare: Some(c), .. }
                    if c == best && choice.is_none() =>
                {
                    choice = Some(*a);
                }
                _ => {}
            }
        }
        choice.unwrap_or(legal[0])
    }
}

croupier_sdk::export_uno!(MyAgent);
"#
        }
    }
}

/// Creates the crate; returns its directory.
pub fn create(game: GameKind, name: &str, parent: &Path) -> Result<PathBuf> {
    let dir = new_dir(name, parent)?;
    std::fs::create_dir_all(dir.join("src"))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    write_crate(game, name, &dir)?;
    Ok(dir)
}

/// Checks the name and that `parent/name` does not exist yet, then creates it.
fn new_dir(name: &str, parent: &Path) -> Result<PathBuf> {
    if !valid_name(name) {
        anyhow::bail!(crate::errors::user(format!(
            "agent name `{name}`: use lower-case letters, digits and dashes, starting with a letter"
        )));
    }
    let dir = parent.join(name);
    if dir.exists() {
        anyhow::bail!(crate::errors::user(format!(
            "{}: already exists; choose another name or remove it",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn write_crate(game: GameKind, name: &str, dir: &Path) -> Result<()> {
    let cargo = format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[package.metadata.croupier]
game = "{game}"
name = "{name}"

[lib]
crate-type = ["cdylib", "rlib"]

[dependencies]
croupier-sdk = {{ path = "{sdk}", features = ["{game}"] }}

# A crate of its own, not part of any surrounding workspace.
[workspace]

# `croupier build` uses this profile for the wasm build.
[profile.agent]
inherits = "release"
lto = true
codegen-units = 1
panic = "abort"
strip = "debuginfo"
"#,
        sdk = sdk_path().display().to_string().replace('\\', "/"),
    );
    let readme = format!(
        r#"# {name}

```sh
croupier build .
croupier match {game} target/agents/{game}/{name}.wasm {opponent} --games 200
```

A {game} agent for Croupier. The strategy is in `src/lib.rs`: `decide` receives what this seat
may know (`Observation`) and the legal actions, and returns one of them.

- `croupier build .` compiles the crate to WebAssembly and encodes it as a component in
  `target/agents/{game}/{name}.wasm`.
- `croupier validate target/agents/{game}/{name}.wasm` checks it loads.
- `croupier agents` lists example agents to play against; `croupier match --help` lists the
  options (rules presets, seeds, threads, `--json`, `--log`).
- Illegal actions, panics, endless loops and memory bombs lose the game (see the Croupier
  README, "Limits and verdicts").
"#,
        opponent = match game {
            GameKind::Durak => "durak/cheapest",
            GameKind::Toepen => "toepen/random",
            GameKind::Uno => "uno/primary",
        }
    );
    std::fs::write(dir.join("Cargo.toml"), cargo)?;
    std::fs::write(dir.join("src/lib.rs"), lib_rs(game))?;
    std::fs::write(dir.join("README.md"), readme)?;
    std::fs::write(dir.join(".gitignore"), "/target\n")?;
    Ok(())
}
