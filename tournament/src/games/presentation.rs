//! What a game module says about its game besides its table: a leaf, so that the game
//! modules and the list of them (`games/mod.rs`) both import it and not each other.

use super::table::TableView;

/// A game as people see it. Implemented by each game's rules type in its own module.
pub trait Presentation: TableView {
    /// The example agent a new project's README plays against first: beatable, legal.
    const FIRST_OPPONENT: &'static str;
    /// The example agent every arena upload is smoke-tested against (`ladder.reference`'s
    /// default): it must be one that plays every preset.
    const REFERENCE: &'static str;
    /// Three example agents, weakest first (an easy, a medium and a hard boss): the bosses
    /// `croupier arena init` suggests and `croupier arena demo` plays. The easy one is
    /// beaten by nearly every sensible agent, so the demo shows badges within its first
    /// minute; the hard one is the game's strongest house agent
    /// (docs/benchmarks-history.md#bosses).
    const BOSSES: [&'static str; 3];
    /// The name a JavaScript agent's module exports (`durakAgent`).
    const JS_EXPORT: &'static str;
    /// What `croupier new` writes for this game.
    const NEW: &'static Scaffold;
    /// The observation as text for a person at the terminal: the public table and, last,
    /// the seat's own hand.
    fn describe(obs: &Self::Observation) -> String;
}

/// What `croupier new GAME NAME --lang …` writes for one game, besides the files every game
/// shares (manifests and READMEs, which the CLI writes around these).
pub struct Scaffold {
    /// Rust: `src/lib.rs`.
    pub rust_lib: &'static str,
    /// Python: `app.py`, the agent.
    pub python_app: &'static str,
    /// Python: `test_app.py`, its unit tests on hand-made observations.
    pub python_test: &'static str,
    /// The game's files of the Python SDK (`sdk/python/croupier/`), by path under the
    /// project.
    pub python_sdk: &'static [(&'static str, &'static str)],
    /// JavaScript: `app.js`.
    pub js_app: &'static str,
    /// TypeScript: `app.ts`.
    pub ts_app: &'static str,
    /// JavaScript: `app.test.js` (the TypeScript test is made from it).
    pub js_test: &'static str,
    /// The game's files of the JavaScript SDK (`sdk/js/croupier/`), by path under the
    /// project.
    pub js_sdk: &'static [(&'static str, &'static str)],
    /// C: `agent.c`.
    pub c_agent: &'static str,
}

/// The [`Scaffold`] of the game named `$game`: the templates in `src/games/$game/new/` and
/// the game's files of the Python and JavaScript SDKs, every game's the same way.
macro_rules! scaffold {
    ($game:literal) => {
        $crate::games::Scaffold {
            rust_lib: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/lib.rs.template"
            )),
            python_app: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/app.py"
            )),
            python_test: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/test_app.py"
            )),
            python_sdk: &[(
                concat!("croupier/", $game, ".py"),
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../sdk/python/croupier/",
                    $game,
                    ".py"
                )),
            )],
            js_app: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/app.js"
            )),
            ts_app: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/app.ts"
            )),
            js_test: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/app.test.js"
            )),
            js_sdk: &[
                (
                    concat!("croupier/", $game, ".js"),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../sdk/js/croupier/",
                        $game,
                        ".js"
                    )),
                ),
                (
                    concat!("croupier/wit/", $game, ".d.ts"),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../sdk/js/croupier/wit/",
                        $game,
                        ".d.ts"
                    )),
                ),
                (
                    concat!(
                        "croupier/wit/interfaces/croupier-agent-",
                        $game,
                        "-agent.d.ts"
                    ),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../sdk/js/croupier/wit/interfaces/croupier-agent-",
                        $game,
                        "-agent.d.ts"
                    )),
                ),
                (
                    concat!(
                        "croupier/wit/interfaces/croupier-agent-",
                        $game,
                        "-types.d.ts"
                    ),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/../sdk/js/croupier/wit/interfaces/croupier-agent-",
                        $game,
                        "-types.d.ts"
                    )),
                ),
            ],
            c_agent: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/games/",
                $game,
                "/new/agent.c"
            )),
        }
    };
}
pub(crate) use scaffold;
