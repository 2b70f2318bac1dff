//! `croupier new GAME NAME --lang c`: a ready C agent project in `./NAME`.
//!
//! The project is `agent.toml` (`language = "c"`, which `croupier build` recognises), one
//! `agent.c` with a simple legal strategy, a Makefile (`make` builds, `make test` checks it
//! loads and plays a few games without a fault) and a README.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::Path;

/// Writes the project into `dir`, which the caller created (empty, named after the agent).
pub fn create(game: GameKind, name: &str, dir: &Path) -> Result<()> {
    let opponent = super::templates::first_opponent(game);
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
    write("agent.c", super::templates::new_files(game).c_agent)?;
    write("Makefile", &makefile)?;
    write("README.md", &readme)?;
    write(".gitignore", "/build\n")?;
    Ok(())
}
