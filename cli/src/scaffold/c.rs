//! `croupier new GAME NAME --lang c`: a ready C agent project in `./NAME`.
//!
//! The project is `agent.toml` (`language = "c"`, which `croupier build` recognises), one
//! `agent.c` with a simple legal strategy, a Makefile (`make` builds, `make test` checks it
//! loads and plays a few games without a fault) and a README.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};

/// The `agent.c` of each game: a simple legal strategy, commented.
fn agent_c(game: GameKind) -> &'static str {
    match game {
        GameKind::Durak => {
            r#"// My Durak agent. Start in `decide`: it gets everything this seat may know and the
// legal actions, and must return one of them.
//
// Cards are bytes: suit * 13 + (rank - 2), suits clubs, diamonds, hearts, spades; a set of
// cards is a u64 with bit `card` set. Actions are u32: kind | a << 8 | b << 16 (see
// wit/v0.2/durak.wit in the Croupier repository, or build/bindings/durak.h after a build).
#include "durak.h"

enum { LEAD = 1, BEAT = 3, TRANSFER = 4, TAKE = 6, THROW_IN = 7, PASS = 8 };

static int suit(int card) { return card / 13; }
static int rank(int card) { return card % 13 + 2; }

// Lower is cheaper: any plain card is cheaper than any trump.
static int cost(int card, int trump) { return rank(card) + (suit(card) == trump ? 20 : 0); }

void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    // info->seat is our seat, info->players the number of players, info->seed our seed.
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_durak_agent_game_info_free(info);
}

exports_croupier_agent_durak_agent_action_t exports_croupier_agent_durak_agent_decide(
    exports_croupier_agent_durak_agent_observation_t *obs,
    exports_croupier_agent_durak_agent_list_action_t *legal,
    exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    // What you can use: obs->hand, obs->table (attack cards and their defence), obs->trump,
    // obs->phase, obs->discard (cards gone for good), obs->unseen, obs->seats[s].known ...
    // Simple legal strategy: play the cheapest card we can (lead, beat, throw in), but never
    // throw in a trump and never transfer; if no card fits, take or pass.
    int trump = suit(obs->trump);
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int best = 1000;
    for (size_t i = 0; i < legal->len; i++) {
        uint32_t a = legal->ptr[i];
        int kind = a & 0xff, card = (a >> 8) & 0xff;
        if (kind == LEAD || kind == BEAT || (kind == THROW_IN && suit(card) != trump)) {
            if (cost(card, trump) < best) {
                best = cost(card, trump);
                choice = a;
            }
        }
    }
    if (best == 1000) {
        for (size_t i = 0; i < legal->len; i++)
            if (legal->ptr[i] == PASS || legal->ptr[i] == TAKE) choice = legal->ptr[i];
    }
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return choice;
}
"#
        }
        GameKind::Toepen => {
            r#"// My Toepen agent. Start in `decide`: it gets everything this seat may know and the
// legal actions, and must return one of them.
//
// Cards are bytes: suit * 13 + (rank - 2). Actions are u32: play = 1 | card << 8; knock = 2;
// no-knock = 3; stay = 4; fold = 5; claim-laundry = 6; claim-white-laundry = 7;
// no-claim = 8; challenge = 9; no-challenge = 10 (wit/v0.2/toepen.wit).
#include "toepen.h"

enum { PLAY = 1, NO_KNOCK = 3, STAY = 4, NO_CLAIM = 8, NO_CHALLENGE = 10 };

// Toepen's order inside a suit: J < Q < K < A < 7 < 8 < 9 < 10.
static int strength(int card) {
    int rank = card % 13 + 2;
    return rank >= 11 ? rank - 10 : rank - 2;
}

void exports_croupier_agent_toepen_agent_start(exports_croupier_agent_toepen_agent_game_info_t *info) {
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_toepen_agent_game_info_free(info);
}

exports_croupier_agent_toepen_agent_action_t exports_croupier_agent_toepen_agent_decide(
    exports_croupier_agent_toepen_agent_observation_t *obs,
    exports_croupier_agent_toepen_agent_list_action_t *legal,
    exports_croupier_agent_toepen_agent_budget_t *budget) {
    (void)budget;
    // Simple legal strategy: play the weakest legal card; never knock, stay when someone
    // knocks, make no laundry claim and challenge nobody.
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int best = 100;
    for (size_t i = 0; i < legal->len; i++) {
        uint32_t a = legal->ptr[i];
        if ((a & 0xff) == PLAY && strength((a >> 8) & 0xff) < best) {
            best = strength((a >> 8) & 0xff);
            choice = a;
        }
    }
    if (best == 100) {
        for (size_t i = 0; i < legal->len; i++) {
            uint32_t a = legal->ptr[i];
            if (a == STAY || a == NO_KNOCK || a == NO_CLAIM || a == NO_CHALLENGE) choice = a;
        }
    }
    exports_croupier_agent_toepen_agent_observation_free(obs);
    exports_croupier_agent_toepen_agent_list_action_free(legal);
    return choice;
}
"#
        }
        GameKind::Uno => {
            r#"// My UNO agent. Start in `decide`: it gets everything this seat may know and the legal
// actions, and must return one of them.
//
// Actions are u32: kind | card << 8 | declare << 16 | uno << 24, declare 0 = none or
// 1 + colour; kinds choose-color = 1, play = 2, draw = 3, play-drawn = 4, keep = 5,
// challenge = 6, accept = 7, stack = 8, accept-penalty = 9, catch-uno = 10, no-catch = 11
// (wit/v0.2/uno.wit).
#include "uno.h"

enum { PLAY = 2, PLAY_DRAWN = 4 };

void exports_croupier_agent_uno_agent_start(exports_croupier_agent_uno_agent_game_info_t *info) {
    // The arguments belong to us: free them (the bindings allocated them with malloc).
    exports_croupier_agent_uno_agent_game_info_free(info);
}

exports_croupier_agent_uno_agent_action_t exports_croupier_agent_uno_agent_decide(
    exports_croupier_agent_uno_agent_observation_t *obs,
    exports_croupier_agent_uno_agent_list_action_t *legal,
    exports_croupier_agent_uno_agent_budget_t *budget) {
    (void)budget;
    // Simple legal strategy: play a coloured card if we can, else a wild card, else whatever
    // the rules leave first (draw, keep, accept).
    uint32_t choice = legal->ptr[0]; // the host only asks when there is a choice
    int found = 0;
    for (size_t i = 0; i < legal->len && found < 2; i++) {
        uint32_t a = legal->ptr[i];
        int kind = a & 0xff, declare = (a >> 16) & 0xff;
        if (kind == PLAY || kind == PLAY_DRAWN) {
            int score = declare == 0 ? 2 : 1;
            if (score > found) {
                found = score;
                choice = a;
            }
        }
    }
    exports_croupier_agent_uno_agent_observation_free(obs);
    exports_croupier_agent_uno_agent_list_action_free(legal);
    return choice;
}
"#
        }
    }
}

/// Creates the project; returns its directory.
pub fn create(game: GameKind, name: &str, parent: &Path) -> Result<PathBuf> {
    if !super::valid_name(name) {
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
    let opponent = match game {
        GameKind::Durak => "durak/cheapest",
        GameKind::Toepen => "toepen/random",
        GameKind::Uno => "uno/primary",
    };
    let toml = format!(
        "# A Croupier agent in C: `croupier build .` compiles every .c file of this directory.\n\
         [agent]\ngame = \"{game}\"\nname = \"{name}\"\nlanguage = \"c\"\n"
    );
    // Recipe lines must start with a tab.
    let makefile = format!(
        "# `make` builds the component; `make test` checks it loads and plays without a fault.\n\
         AGENT = build/{game}/{name}.wasm\n\n\
         build:\n\tcroupier build . --out build\n\n\
         test: build\n\tcroupier validate $(AGENT)\n\
         \tcroupier match {game} $(AGENT) {opponent} --games 50 --quiet --json build/test.json\n\
         \t@if grep -Eq '\"faults\": *[1-9]' build/test.json; then cat build/test.json; \\\n\
         \t  echo 'test FAILED: a fault (see build/test.json)'; exit 1; \\\n\
         \telse echo 'test passed: 50 games, no fault'; fi\n\n\
         clean:\n\trm -rf build\n\n\
         .PHONY: build test clean\n"
    );
    let readme = format!(
        r#"# {name}

```sh
make          # = croupier build . --out build  ->  build/{game}/{name}.wasm
make test     # loads it and plays 50 games against {opponent}: no illegal move, no crash
croupier match {game} build/{game}/{name}.wasm {opponent} --games 200
```

A {game} agent for Croupier, in C. The strategy is in `agent.c`: `decide` receives what this
seat may know (the observation) and the legal actions, and returns one of them.

- Needs Debian's clang and lld for wasm32 and its wasi-libc (`apt-get install clang lld
  wasi-libc libclang-rt-dev-wasm32`; for C++ also `libc++-dev-wasm32`), and nothing else:
  `croupier` carries the bindings generator and the component encoder.
- `croupier build .` writes the {game} world's C bindings (they land in
  `build/bindings/{game}.h`: every type of the observation is there), compiles every `.c`
  file here with clang for wasm32, and encodes the result as a component.
- The component may import nothing but the game world and `host` (`log`, `random`): no files,
  clock or printf. `croupier_agent_host_random()` is your seeded randomness.
- Arguments passed to `start` and `decide` belong to your code: free them with the generated
  `..._free` functions, or memory grows every decision.
- Illegal actions, crashes, endless loops and memory bombs lose the game (see the Croupier
  README, "Limits and verdicts").
"#
    );
    let write = |file: &str, text: &str| {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write("agent.toml", &toml)?;
    write("agent.c", agent_c(game))?;
    write("Makefile", &makefile)?;
    write("README.md", &readme)?;
    write(".gitignore", "/build\n")?;
    Ok(dir)
}
