//! The private glue between the generated bindings and the idiomatic [`Agent`] trait.
//!
//! Each game's bindings are generated only when its feature is on (see Cargo.toml), and the
//! export macros (`export_durak!`, ...) wire an agent type to that world's exports.

#![allow(unused_imports, dead_code)]

use crate::{Agent, Budget, GameInfo, Level, Rules, Services, agent_rng};
use croupier_rules::{Card, CardSet, Game, GameRng};

/// The one agent value of an instance (an instance lives for one game).
pub struct Slot<G: Game, A: Agent<G>> {
    agent: A,
    rng: GameRng,
    legal: Vec<G::Action>,
    /// The last observation, whose vectors the next one reuses.
    spare: Option<G::Observation>,
}

impl<G: Game, A: Agent<G>> Slot<G, A> {
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
            spare: None,
        }
    }

    pub fn decide(
        &mut self,
        obs: G::Observation,
        legal: &[u32],
        budget: Budget,
        services: &mut dyn Services,
    ) -> u32 {
        self.legal.clear();
        self.legal
            .extend(legal.iter().filter_map(|c| G::decode_action(*c)));
        let mut ctx = crate::Ctx::new(budget, &mut self.rng, services);
        let action = self.agent.decide(&obs, &self.legal, &mut ctx);
        self.spare = Some(obs);
        G::encode_action(action)
    }

    /// The previous observation, for its vectors.
    pub fn take_spare(&mut self) -> Option<G::Observation> {
        self.spare.take()
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
                path: "../wit/v0.2",
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

fn card(code: u8) -> Card {
    // The host only sends valid codes; a bad one becomes the lowest card rather than a trap.
    Card::from_code(code).unwrap_or(Card::new(2, croupier_rules::Suit::Clubs))
}

fn opt_card(code: u8) -> Option<Card> {
    Card::from_code(code)
}

/// Refills a vector of the previous decision's observation instead of allocating a new one:
/// inside the sandbox every allocation is a `dlmalloc` call, and a decision built six of them.
fn refill<T>(mut v: Vec<T>, items: impl Iterator<Item = T>) -> Vec<T> {
    v.clear();
    v.extend(items);
    v
}

/// `reuse!(spare.field, items)`: the `field` vector of the spare observation, refilled.
macro_rules! reuse {
    ($spare:ident . $field:ident, $items:expr) => {
        refill(
            $spare
                .as_mut()
                .map(|p| std::mem::take(&mut p.$field))
                .unwrap_or_default(),
            $items,
        )
    };
}

#[cfg(feature = "durak")]
pub fn durak_obs(
    o: durak_world::croupier::agent::durak_types::Observation,
    mut spare: Option<croupier_rules::durak::Observation>,
) -> croupier_rules::durak::Observation {
    use croupier_rules::durak::{Observation, Phase};
    use durak_world::croupier::agent::durak_types::Phase as W;
    Observation {
        seat: o.seat,
        acting_for: o.acting_for,
        players: o.players,
        teams: o.teams,
        trump: card(o.trump),
        trump_suit: card(o.trump).suit(),
        trump_holder: o.trump_holder,
        talon: o.talon,
        hand: CardSet(o.hand),
        hand_sizes: reuse!(spare.hand_sizes, o.seats.iter().map(|s| s.hand_size)),
        out: o.out,
        phase: match o.phase {
            W::Lead => Phase::Lead,
            W::Defend => Phase::Defend,
            W::ThrowIn => Phase::ThrowIn,
            W::Over => Phase::Over,
        },
        attacker: o.attacker,
        defender: o.defender,
        h0: o.h0,
        limit: o.limit,
        taking: o.taking,
        passed: o.passed,
        table: reuse!(
            spare.table,
            o.table
                .iter()
                .map(|b| (card(b.attack), b.defence.and_then(opt_card)))
        ),
        shown: CardSet(o.shown),
        discard: CardSet(o.discard),
        known: reuse!(spare.known, o.seats.iter().map(|s| CardSet(s.known))),
        unseen: CardSet(o.unseen),
        bout: o.bout,
        attackers: reuse!(spare.attackers, o.table.iter().map(|b| b.attacker)),
        leader: o.leader,
        dealer: o.dealer,
        finish: reuse!(spare.finish, o.seats.iter().map(|s| s.finish)),
        own_known: CardSet(o.own_known),
        low_trumps: CardSet(o.low_trumps),
        low_trump_room: reuse!(
            spare.low_trump_room,
            o.seats.iter().map(|s| s.low_trump_room)
        ),
    }
}

#[cfg(feature = "toepen")]
pub fn toepen_obs(
    o: toepen_world::croupier::agent::toepen_types::Observation,
    mut spare: Option<croupier_rules::toepen::Observation>,
) -> croupier_rules::toepen::Observation {
    use croupier_rules::toepen::{Decision, Observation};
    use toepen_world::croupier::agent::toepen_types::Decision as W;
    Observation {
        seat: o.seat,
        players: o.players,
        decision: match o.decision {
            W::Laundry => Decision::Laundry,
            W::LaundryChallenge => Decision::LaundryChallenge,
            W::Poverty => Decision::Poverty,
            W::Play => Decision::Play,
            W::KnockWindow => Decision::KnockWindow,
            W::KnockResponse => Decision::KnockResponse,
            W::Over => Decision::Over,
        },
        round: o.round,
        dealer: o.dealer,
        hand: CardSet(o.hand),
        scores: reuse!(spare.scores, o.seats.iter().map(|s| s.score)),
        eliminated: o.eliminated,
        live: o.live,
        stake: o.stake,
        last_knocker: o.last_knocker,
        stock: o.stock,
        trick_no: o.trick_no,
        leader: o.leader,
        trick: o
            .trick
            .chunks_exact(2)
            .map(|p| (p[0], card(p[1])))
            .collect(),
        trick_winners: o.trick_winners,
        played: reuse!(spare.played, o.seats.iter().map(|s| CardSet(s.played))),
        hand_counts: reuse!(spare.hand_counts, o.seats.iter().map(|s| s.hand_count)),
        voids: reuse!(spare.voids, o.seats.iter().map(|s| s.voids)),
        unseen: CardSet(o.unseen),
        own_laundry: CardSet(o.own_laundry),
        revealed: CardSet(o.revealed),
        to_act: o.to_act,
        dealt: o.dealt,
        fold_stakes: reuse!(spare.fold_stakes, o.seats.iter().map(|s| s.fold_stake)),
        dead: o.dead,
        past_tricks: {
            let mut tricks: Vec<Vec<(u8, Card)>> = Vec::new();
            for t in o.past_tricks.chunks_exact(3) {
                let i = t[0] as usize;
                while tricks.len() <= i {
                    tricks.push(Vec::new());
                }
                tricks[i].push((t[1], card(t[2])));
            }
            tricks
        },
        poor: o.poor,
        laundry_done: o.laundry_done,
        claimed: o.claimed,
        white_claims: o.white_claims,
        challenged: o.challenged,
        returned: o.returned,
        revealed_by: reuse!(
            spare.revealed_by,
            o.seats.iter().map(|s| CardSet(s.revealed_by))
        ),
        claimant: o.claimant,
        poverty_done: o.poverty_done,
        knock_window: o.knock_window,
        hand_knowers: reuse!(spare.hand_knowers, o.seats.iter().map(|s| s.hand_knowers)),
        stock_knowers: o
            .stock_knowers
            .chunks_exact(2)
            .map(|p| (p[0], p[1]))
            .collect(),
        known_cards: reuse!(
            spare.known_cards,
            o.seats.iter().map(|s| CardSet(s.known_cards))
        ),
        known_stock: o
            .known_stock
            .into_iter()
            .map(|(b, s)| (b, CardSet(s)))
            .collect(),
        eliminated_at: reuse!(spare.eliminated_at, o.seats.iter().map(|s| s.eliminated_at)),
    }
}

#[cfg(feature = "uno")]
pub fn uno_obs(
    o: uno_world::croupier::agent::uno_types::Observation,
    mut spare: Option<croupier_rules::uno::Observation>,
) -> croupier_rules::uno::Observation {
    use croupier_rules::uno::{Color, Decision, Observation, UnoCard};
    use uno_world::croupier::agent::uno_types::{Color as WC, Decision as W};
    let color = |c: WC| match c {
        WC::Red => Color::Red,
        WC::Yellow => Color::Yellow,
        WC::Green => Color::Green,
        WC::Blue => Color::Blue,
    };
    Observation {
        seat: o.seat,
        players: o.players,
        decision: match o.decision {
            W::ChooseStartColor => Decision::ChooseStartColor,
            W::Turn => Decision::Turn,
            W::AfterDraw => Decision::AfterDraw,
            W::Wd4Challenge => Decision::Wd4Challenge,
            W::PenaltyTurn => Decision::PenaltyTurn,
            W::UnoCatch => Decision::UnoCatch,
            W::Over => Decision::Over,
        },
        hand_no: o.hand_no,
        dealer: o.dealer,
        hand: o.hand.into_iter().map(UnoCard).collect(),
        top: UnoCard(o.top),
        color: color(o.color),
        direction: o.direction,
        pending: o.pending,
        hand_sizes: reuse!(spare.hand_sizes, o.seats.iter().map(|s| s.hand_size)),
        draw_pile: o.draw_pile,
        discard_pile: o.discard_pile,
        scores: reuse!(spare.scores, o.seats.iter().map(|s| s.score)),
        drawn: o.drawn.map(UnoCard),
        unseen: o.unseen,
        to_act: o.to_act,
        discard: o.discard.into_iter().map(UnoCard).collect(),
        turns: o.turns,
        known: {
            let mut known = vec![Vec::new(); o.seats.len()];
            for &(seat, c) in &o.known {
                if let Some(h) = known.get_mut(seat as usize) {
                    h.push(UnoCard(c));
                }
            }
            known
        },
        color_caps: o
            .seats
            .iter()
            .map(|s| {
                let (r, y, g, b) = s.color_caps;
                [r, y, g, b]
            })
            .collect(),
        kind_caps: o
            .kind_caps
            .chunks_exact(13)
            .map(|c| {
                let mut k = [0u8; 13];
                k.copy_from_slice(c);
                k
            })
            .collect(),
        offender: o.offender,
        wd4: o.wd4.map(|w| croupier_rules::uno::Wd4Pending {
            offender: w.offender,
            victim: w.victim,
            prev_color: color(w.prev_color),
            prev_top: UnoCard(w.prev_top),
            hand_len: w.hand_len,
            hand: w.hand.map(|h| h.into_iter().map(UnoCard).collect()),
        }),
    }
}

/// Wires an agent type to one world's exports; used by `export_durak!` and friends.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_game {
    ($agent:ty, $game:ty, $world:ident, $iface:ident, $types:ident, $obs:ident, $imports:ident, $export:ident) => {
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
                                let spare = slot.take_spare();
                                slot.decide(
                                    $crate::__private::$obs(obs, spare),
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
            durak_obs,
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
            toepen_obs,
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
            uno_obs,
            UnoImports,
            __export_uno_world
        );
    };
}
