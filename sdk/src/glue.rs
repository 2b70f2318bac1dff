//! The private glue between the generated bindings and the idiomatic [`Agent`] trait.
//!
//! Each game's bindings are generated only when its feature is on (see Cargo.toml), and the
//! export macros (`export_durak!`, ...) wire an agent type to that world's exports.

#![allow(unused_imports, dead_code)]

use crate::agent::{Agent, Budget, GameInfo, Level, Services, agent_rng};
use croupier_rules::Rules;
use croupier_rules::wire::Item;
use croupier_rules::{Game, GameRng};

/// The one agent value of an instance (an instance lives for one game).
pub struct Slot<G: Game, A: Agent<G>> {
    agent: A,
    rng: GameRng,
    legal: Vec<G::Action>,
    /// The observation of the decision in play, decoded in place: the next decision refills
    /// its vectors, and it never moves. Moving it (136 bytes for Durak) was a `memory.copy`,
    /// which wasmtime runs as a call out of the sandbox, twice per decision.
    obs: G::Observation,
}

impl<G: Game, A: Agent<G>> Slot<G, A>
where
    G::Observation: Item,
{
    /// Parses the host's rule options (a panic if they do not parse: host and agent were built
    /// from different rules), installs the panic hook inside the sandbox and creates the agent.
    pub fn start(
        seat: u8,
        players: u8,
        preset: &str,
        overrides: &[(String, String)],
        seed: u64,
        args: String,
    ) -> Self {
        // The host sends a preset and options of a validated set, so this only fails when
        // the host and the agent were built from different rules: trapping says so loudly.
        let options = match G::Options::from_preset(preset, overrides) {
            Ok(o) => o,
            Err(e) => {
                panic!("the host's rule options do not parse in this agent's rules crate: {e}")
            }
        };
        install_panic_hook();
        let info = GameInfo {
            seat,
            players,
            options,
            seed,
            args,
        };
        Slot {
            agent: A::new(&info),
            rng: agent_rng(seed),
            legal: Vec::new(),
            obs: Item::blank(),
        }
    }

    /// Decodes the host's observation (contract 0.3.0's bytes) into the slot's and asks the
    /// agent.
    pub fn decide(
        &mut self,
        bytes: &[u8],
        legal: &[u32],
        budget: Budget,
        services: &mut dyn Services,
    ) -> u32 {
        refill::<G>(bytes, &mut self.obs);
        self.legal.clear();
        self.legal
            .extend(legal.iter().filter_map(|c| G::decode_action(*c)));
        let mut ctx = crate::agent::Ctx::new(budget, &mut self.rng, services);
        let action = self.agent.decide(&self.obs, &self.legal, &mut ctx);
        G::encode_action(action)
    }
}

/// A panic in an agent traps the instance (the host reports TRAP); on wasm there is no
/// stderr, so the hook sends the panic message to the agent's log first, where the game
/// record keeps it.
fn install_panic_hook() {
    #[cfg(target_arch = "wasm32")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                let msg = format!("panic: {info}");
                #[cfg(feature = "durak")]
                DurakImports.log(Level::Error, &msg);
                #[cfg(all(feature = "toepen", not(feature = "durak")))]
                ToepenImports.log(Level::Error, &msg);
                #[cfg(all(feature = "uno", not(feature = "durak"), not(feature = "toepen")))]
                UnoImports.log(Level::Error, &msg);
                let _ = msg;
            }));
        });
    }
}

/// Generates one world's bindings (when its feature is on) and its import services.
macro_rules! world {
    ($feature:literal, $module:ident, $world:literal, $export:literal, $path:literal, $imports:ident) => {
        #[cfg(feature = $feature)]
        #[allow(clippy::all, missing_docs)]
        pub mod $module {
            wit_bindgen::generate!({
                path: "../wit/v0.3",
                world: $world,
                pub_export_macro: true,
                export_macro_name: $export,
                default_bindings_module: $path,
                runtime_path: "croupier_sdk::__private::wit_bindgen::rt",
            });
        }

        /// The sandbox's imports as [`Services`].
        #[cfg(feature = $feature)]
        pub struct $imports;

        #[cfg(feature = $feature)]
        impl Services for $imports {
            fn random(&mut self) -> u64 {
                $module::croupier::agent::host::random()
            }
            fn log(&mut self, level: Level, message: &str) {
                use $module::croupier::agent::host::{Level as L, log};
                let l = match level {
                    Level::Error => L::Error,
                    Level::Warn => L::Warn,
                    Level::Info => L::Info,
                    Level::Debug => L::Debug,
                };
                log(l, message);
            }
        }

        #[cfg(feature = $feature)]
        impl From<$module::croupier::agent::common::Budget> for Budget {
            fn from(b: $module::croupier::agent::common::Budget) -> Budget {
                Budget {
                    fuel: b.fuel,
                    millis: b.millis,
                    bank_millis: b.bank_millis,
                }
            }
        }
    };
}

world!(
    "durak",
    durak_world,
    "durak",
    "__export_durak_world",
    "croupier_sdk::__private::durak_world",
    DurakImports
);
world!(
    "toepen",
    toepen_world,
    "toepen",
    "__export_toepen_world",
    "croupier_sdk::__private::toepen_world",
    ToepenImports
);
world!(
    "uno",
    uno_world,
    "uno",
    "__export_uno_world",
    "croupier_sdk::__private::uno_world",
    UnoImports
);

/// Decodes the host's observation (contract 0.3.0: the rules crate's wire format 1) into
/// `into`, refilling its vectors: inside the sandbox every allocation is a `dlmalloc` call.
pub fn refill<G: Game>(bytes: &[u8], into: &mut G::Observation)
where
    G::Observation: Item,
{
    if croupier_rules::wire::decode(bytes, into).is_none() {
        // The host and this agent disagree about the format of the version both claim:
        // trapping says so, where playing on a wrong observation would hide it.
        panic!(
            "the host's observation ({} bytes) does not decode in this agent's rules crate",
            bytes.len()
        );
    }
}

/// Wires an agent type to one world's exports; used by `export_durak!` and friends.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_game {
    ($agent:ty, $game:ty, $world:ident, $iface:ident, $types:ident, $imports:ident, $export:ident) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::__private::$world as __w;
            struct __CroupierAgent;
            ::std::thread_local! {
                static __SLOT: ::core::cell::RefCell<
                    ::core::option::Option<$crate::__private::Slot<$game, $agent>>,
                > = const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }
            impl __w::exports::croupier::agent::$iface::Guest for __CroupierAgent {
                fn start(info: __w::croupier::agent::common::GameInfo) {
                    let slot = $crate::__private::Slot::<$game, $agent>::start(
                        info.seat,
                        info.players,
                        &info.preset,
                        &info.rules,
                        info.seed,
                        info.args,
                    );
                    __SLOT.with(|s| *s.borrow_mut() = ::core::option::Option::Some(slot));
                }
                fn decide(
                    obs: __w::croupier::agent::$types::Observation,
                    legal: ::std::vec::Vec<u32>,
                    budget: __w::croupier::agent::common::Budget,
                ) -> u32 {
                    __SLOT.with(|s| {
                        let mut s = s.borrow_mut();
                        match s.as_mut() {
                            ::core::option::Option::Some(slot) => {
                                slot.decide(
                                    &obs,
                                    &legal,
                                    budget.into(),
                                    &mut $crate::__private::$imports,
                                )
                            }
                            ::core::option::Option::None => {
                                ::core::panic!("decide called before start")
                            }
                        }
                    })
                }
            }
            $crate::__private::$world::$export!(__CroupierAgent with_types_in $crate::__private::$world);
        };
    };
}

/// Exports a Durak agent: `croupier_sdk::export_durak!(MyAgent);` (needs the `durak` feature).
#[macro_export]
macro_rules! export_durak {
    ($agent:ty) => {
        $crate::__export_game!(
            $agent,
            $crate::durak::Durak,
            durak_world,
            durak_agent,
            durak_types,
            DurakImports,
            __export_durak_world
        );
    };
}

/// Exports a Toepen agent: `croupier_sdk::export_toepen!(MyAgent);` (needs the `toepen` feature).
#[macro_export]
macro_rules! export_toepen {
    ($agent:ty) => {
        $crate::__export_game!(
            $agent,
            $crate::toepen::Toepen,
            toepen_world,
            toepen_agent,
            toepen_types,
            ToepenImports,
            __export_toepen_world
        );
    };
}

/// Exports an UNO agent: `croupier_sdk::export_uno!(MyAgent);` (needs the `uno` feature).
#[macro_export]
macro_rules! export_uno {
    ($agent:ty) => {
        $crate::__export_game!(
            $agent,
            $crate::uno::Uno,
            uno_world,
            uno_agent,
            uno_types,
            UnoImports,
            __export_uno_world
        );
    };
}
