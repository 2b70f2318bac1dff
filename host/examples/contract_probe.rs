//! What each shape of a decision call costs at wasmtime's component boundary, measured on the
//! engine agents run in (fuel, epochs, explicit bounds checks): the evidence for choosing
//! contract 0.3.0 (issue #19). `scripts/bench-contract.sh` builds the guest and runs this;
//! by hand: `cargo run --release -p croupier-host --example contract_probe -- PROBE.wasm`.
//!
//! Every shape is called with the same decision points, taken from real 2 v 2 Durak games
//! (`teams`), with realistic inputs: the 0.2.0 record, the record without lists, the events
//! each seat saw since its last decision (as u32 codes and as a typed variant list), a
//! handle to an observation kept in the host, and a call that carries only the legal
//! actions. Figures are medians of 7 rounds, nanoseconds per call, from one run.

use anyhow::{Context, Result};
use croupier_host::limits::Limits;
use croupier_rules::durak::{Durak, Event as DEvent, Observation, Options, Phase as DPhase};
use croupier_rules::{Game, GameRng};
use std::time::Instant;
use wasmtime::component::{Component, Linker, Resource, ResourceTable};
use wasmtime::{Engine, Store};

wasmtime::component::bindgen!({
    path: "../bench/contract-probe/wit",
    world: "probe-world",
    with: { "croupier:probe/view.obs": ObsHandle },
});

use croupier::probe::types::{
    BoutCard, Budget, Event, FlatObservation, FlatSeat, Observation as Wit, Phase, SeatView,
};

/// The host side of a handle: the record the call is about.
pub struct ObsHandle(usize);

struct Data {
    table: ResourceTable,
    /// The records of the decision points; a handle indexes them.
    records: Vec<Wit>,
    /// The point being decided (what `current()` returns).
    now: usize,
    /// The byte buffer (e) encodes into, reused as the host reuses its records.
    scratch: Vec<u8>,
}

impl croupier::probe::types::Host for Data {}

impl croupier::probe::view::Host for Data {
    fn current(&mut self) -> Wit {
        self.records[self.now].clone()
    }
}

impl croupier::probe::view::HostObs for Data {
    fn hand(&mut self, h: Resource<ObsHandle>) -> u64 {
        self.rec(&h).hand
    }
    fn trump(&mut self, h: Resource<ObsHandle>) -> u8 {
        self.rec(&h).trump
    }
    fn phase_code(&mut self, h: Resource<ObsHandle>) -> u8 {
        self.rec(&h).phase as u8
    }
    fn table_attack(&mut self, h: Resource<ObsHandle>) -> u64 {
        self.rec(&h).table.iter().fold(0, |m, b| m | 1 << b.attack)
    }
    fn table_defence(&mut self, h: Resource<ObsHandle>) -> u64 {
        self.rec(&h)
            .table
            .iter()
            .filter_map(|b| b.defence)
            .fold(0, |m, c| m | 1 << c)
    }
    fn hand_size(&mut self, h: Resource<ObsHandle>, seat: u8) -> u8 {
        self.rec(&h)
            .seats
            .get(seat as usize)
            .map_or(0, |s| s.hand_size)
    }
    fn all(&mut self, h: Resource<ObsHandle>) -> Wit {
        self.rec(&h).clone()
    }
    fn drop(&mut self, h: Resource<ObsHandle>) -> wasmtime::Result<()> {
        self.table.delete(h)?;
        Ok(())
    }
}

impl Data {
    fn rec(&self, h: &Resource<ObsHandle>) -> &Wit {
        let i = self.table.get(h).map_or(0, |o| o.0);
        &self.records[i]
    }
}

fn phase(p: DPhase) -> Phase {
    match p {
        DPhase::Lead => Phase::Lead,
        DPhase::Defend => Phase::Defend,
        DPhase::ThrowIn => Phase::ThrowIn,
        DPhase::Over => Phase::Over,
    }
}

fn record(o: &Observation) -> Wit {
    let at = |v: &[u8], s: usize| v.get(s).copied().unwrap_or(0);
    Wit {
        seat: o.seat,
        acting_for: o.acting_for,
        players: o.players,
        teams: o.teams,
        trump: o.trump.code(),
        trump_holder: o.trump_holder,
        talon: o.talon,
        hand: o.hand.bits(),
        out: o.out,
        phase: phase(o.phase),
        attacker: o.attacker,
        defender: o.defender,
        h0: o.h0,
        limit: o.limit,
        taking: o.taking,
        passed: o.passed,
        table: o
            .table
            .iter()
            .enumerate()
            .map(|(i, (a, d))| BoutCard {
                attack: a.code(),
                defence: d.map(|c| c.code()),
                attacker: at(&o.attackers, i),
            })
            .collect(),
        shown: o.shown.bits(),
        discard: o.discard.bits(),
        unseen: o.unseen.bits(),
        bout: o.bout,
        leader: o.leader,
        dealer: o.dealer,
        own_known: o.own_known.bits(),
        low_trumps: o.low_trumps.bits(),
        seats: (0..o.players as usize)
            .map(|s| SeatView {
                hand_size: at(&o.hand_sizes, s),
                known: o.known.get(s).map_or(0, |k| k.bits()),
                finish: at(&o.finish, s),
                low_trump_room: at(&o.low_trump_room, s),
            })
            .collect(),
    }
}

fn flat(w: &Wit) -> FlatObservation {
    let seat = |s: usize| {
        w.seats.get(s).map_or(
            FlatSeat {
                hand_size: 0,
                known: 0,
                finish: 0,
                low_trump_room: 0,
            },
            |v| FlatSeat {
                hand_size: v.hand_size,
                known: v.known,
                finish: v.finish,
                low_trump_room: v.low_trump_room,
            },
        )
    };
    let mut order = 0u64;
    let mut attackers = 0u32;
    for (i, b) in w.table.iter().enumerate().take(6) {
        order |= (b.attack as u64) << (8 * i);
        attackers |= (b.attacker as u32 & 7) << (3 * i);
    }
    FlatObservation {
        seat: w.seat,
        acting_for: w.acting_for,
        players: w.players,
        teams: w.teams,
        trump: w.trump,
        trump_holder: w.trump_holder,
        talon: w.talon,
        hand: w.hand,
        out: w.out,
        phase: w.phase,
        attacker: w.attacker,
        defender: w.defender,
        h0: w.h0,
        limit: w.limit,
        taking: w.taking,
        passed: w.passed,
        table_attack: w.table.iter().fold(0, |m, b| m | 1 << b.attack),
        table_defence: w
            .table
            .iter()
            .filter_map(|b| b.defence)
            .fold(0, |m, c| m | 1 << c),
        table_order: order,
        table_attackers: attackers,
        shown: w.shown,
        discard: w.discard,
        unseen: w.unseen,
        bout: w.bout,
        leader: w.leader,
        dealer: w.dealer,
        own_known: w.own_known,
        low_trumps: w.low_trumps,
        s0: seat(0),
        s1: seat(1),
        s2: seat(2),
        s3: seat(3),
        s4: seat(4),
        s5: seat(5),
    }
}

fn event(e: &DEvent) -> Event {
    use croupier_rules::durak::BoutEnd;
    match e {
        DEvent::Deal {
            dealer,
            trump,
            talon,
        } => Event::Deal((*dealer, trump.code(), *talon)),
        DEvent::Hand { seat, cards } => Event::Hand((*seat, cards.bits())),
        DEvent::Redeal => Event::Redeal,
        DEvent::LowestTrump { seat, card } => Event::LowestTrump((*seat, card.code())),
        DEvent::BoutStart { attacker, defender } => Event::BoutStart((*attacker, *defender)),
        DEvent::Lead { seat, cards } => Event::Lead((*seat, cards.bits())),
        DEvent::Beat {
            seat,
            slot,
            card,
            attack,
        } => Event::Beat((*seat, *slot, card.code(), attack.code())),
        DEvent::ThrowIn { seat, card } => Event::ThrowIn((*seat, card.code())),
        DEvent::Pass { seat } => Event::Pass(*seat),
        DEvent::Transfer {
            seat,
            card,
            new_defender,
        } => Event::Transfer((*seat, card.code(), *new_defender)),
        DEvent::ShowTrump {
            seat,
            card,
            new_defender,
        } => Event::ShowTrump((*seat, card.code(), *new_defender)),
        DEvent::Take { seat } => Event::Take(*seat),
        DEvent::BoutEnd { how, cards } => {
            Event::BoutEnd((matches!(how, BoutEnd::Taken) as u8, cards.bits()))
        }
        DEvent::Refill { seat, count, trump } => Event::Refill((*seat, *count, *trump)),
        DEvent::Drew { seat, cards } => Event::Drew((*seat, cards.bits())),
        DEvent::Out { seat } => Event::Out(*seat),
        DEvent::GameEnd { .. } => Event::GameEnd,
    }
}

/// Compact codes for one event, as an SDK-owned codec would send them: a word with the kind,
/// the seat and up to two small fields, then a card set as two more words where it has one.
fn codes(e: &Event, out: &mut Vec<u32>) {
    let word =
        |k: u32, a: u8, b: u8, c: u8| k | (a as u32) << 8 | (b as u32) << 16 | (c as u32) << 24;
    let mut set = |w: u32, cards: u64| {
        out.extend([w, cards as u32, (cards >> 32) as u32]);
    };
    match *e {
        Event::Hand((s, c)) => set(word(2, s, 0, 0), c),
        Event::Lead((s, c)) => set(word(6, s, 0, 0), c),
        Event::Drew((s, c)) => set(word(15, s, 0, 0), c),
        Event::BoutEnd((how, c)) => set(word(13, how, 0, 0), c),
        Event::Deal((d, t, n)) => out.push(word(1, d, t, n)),
        Event::Redeal => out.push(3),
        Event::LowestTrump((s, c)) => out.push(word(4, s, c, 0)),
        Event::BoutStart((a, d)) => out.push(word(5, a, d, 0)),
        Event::Beat((s, slot, c, _)) => out.push(word(7, s, slot, c)),
        Event::ThrowIn((s, c)) => out.push(word(8, s, c, 0)),
        Event::Pass(s) => out.push(word(9, s, 0, 0)),
        Event::Transfer((s, c, d)) => out.push(word(10, s, c, d)),
        Event::ShowTrump((s, c, d)) => out.push(word(11, s, c, d)),
        Event::Take(s) => out.push(word(12, s, 0, 0)),
        Event::Refill((s, n, t)) => out.push(word(14, s, n, t as u8)),
        Event::Out(s) => out.push(word(16, s, 0, 0)),
        Event::GameEnd => out.push(17),
    }
}

// (e) is the shape contract 0.3.0 took: the rules crate's own wire format.
use croupier_rules::wire as codec;

/// One decision: its inputs in every shape.
struct Point {
    bytes: Vec<u8>,
    legal: Vec<u32>,
    flat: FlatObservation,
    events: Vec<Event>,
    codes: Vec<u32>,
}

type Points = (Vec<Wit>, Vec<Observation>, Vec<Point>);

fn points(n: usize) -> Result<Points> {
    let opts = Options::teams();
    let (mut records, mut observations, mut points) = (Vec::new(), Vec::new(), Vec::new());
    let mut legal = Vec::new();
    for g in 0.. {
        let mut game = Durak::new(&opts, GameRng::derive(7, g)).context("deal")?;
        let mut rng = GameRng::new(g);
        // Where each seat's view of the event log stood at its last decision.
        let mut seen = [0usize; 8];
        while let Some(a) = game.to_act() {
            game.legal_actions(&mut legal);
            if legal.len() > 1 {
                let log = game.events();
                let events: Vec<Event> = log[seen[a as usize]..]
                    .iter()
                    .filter(|l| l.vis.visible_to(a))
                    .map(|l| event(&l.event))
                    .collect();
                seen[a as usize] = log.len();
                let o = game.observe(a);
                let w = record(&o);
                let mut bytes = Vec::new();
                codec::encode(&o, &mut bytes);
                let mut back = o.clone();
                back.table.clear();
                if codec::decode(&bytes, &mut back).is_none() || back != o {
                    anyhow::bail!("the codec does not round-trip game {g}");
                }
                points.push(Point {
                    bytes,
                    legal: (0..legal.len() as u32).collect(),
                    flat: flat(&w),
                    codes: {
                        let mut c = Vec::new();
                        events.iter().for_each(|e| codes(e, &mut c));
                        c
                    },
                    events,
                });
                records.push(w);
                observations.push(o);
                if points.len() == n {
                    return Ok((records, observations, points));
                }
            }
            game.apply(legal[rng.below(legal.len())])
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        }
    }
    unreachable!()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    let path = std::env::args()
        .nth(1)
        .context("usage: contract_probe PROBE.wasm")?;
    let limits = Limits::default();
    let engine: Engine = croupier_host::engine::build()?;
    let component =
        Component::from_file(&engine, &path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let mut linker = Linker::<Data>::new(&engine);
    ProbeWorld::add_to_linker::<Data, wasmtime::component::HasSelf<Data>>(&mut linker, |d| d)?;
    let (records, observations, points) = points(2000)?;
    let mean_bytes =
        points.iter().map(|p| p.bytes.len()).sum::<usize>() as f64 / points.len() as f64;
    let mean_events =
        points.iter().map(|p| p.events.len()).sum::<usize>() as f64 / points.len() as f64;
    let mean_codes =
        points.iter().map(|p| p.codes.len()).sum::<usize>() as f64 / points.len() as f64;
    let mean_legal =
        points.iter().map(|p| p.legal.len()).sum::<usize>() as f64 / points.len() as f64;
    let mut store = Store::new(
        &engine,
        Data {
            table: ResourceTable::new(),
            records,
            now: 0,
            scratch: Vec::new(),
        },
    );
    store.set_fuel(limits.fuel_per_decision)?;
    store.set_epoch_deadline(1000);
    let probe = ProbeWorld::instantiate(&mut store, &component, &linker)?;
    let p = probe.croupier_probe_probe();
    let budget = Budget {
        fuel: limits.fuel_per_decision,
        millis: limits.millis_per_decision,
        bank_millis: None,
    };

    // The floor of a core WebAssembly call on the same engine and store, for comparison:
    // what the component model's own machinery adds to an empty call.
    let core = wasmtime::Module::new(
        &engine,
        r#"(module (func (export "f") (result i32) i32.const 7))"#,
    )
    .map_err(|e| anyhow::anyhow!("core module: {e}"))?;
    let core_f = wasmtime::Instance::new(&mut store, &core, &[])?
        .get_typed_func::<(), i32>(&mut store, "f")?;

    type Call<'a> = Box<dyn FnMut(&mut Store<Data>, usize) -> wasmtime::Result<u32> + 'a>;
    let shapes: Vec<(&str, Call)> = vec![
        (
            "core wasm call, no arguments (not a component)",
            Box::new(|s, _| core_f.call(s, ()).map(|x| x as u32)),
        ),
        (
            "nothing (one entry, no arguments)",
            Box::new(|s, _| p.call_nothing(s)),
        ),
        (
            "legal actions only",
            Box::new(|s, i| p.call_legal(s, &points[i].legal)),
        ),
        (
            "0.2.0 record + legal + budget",
            Box::new(|s, i| {
                let r = s.data().records[i].clone();
                p.call_snapshot(s, &r, &points[i].legal, budget)
            }),
        ),
        (
            "(e) record as bytes in the rules' codec + legal + budget",
            Box::new(|s, i| {
                let mut b = std::mem::take(&mut s.data_mut().scratch);
                codec::encode(&observations[i], &mut b);
                let r = p.call_packed(&mut *s, &b, &points[i].legal, budget);
                s.data_mut().scratch = b;
                r
            }),
        ),
        (
            "(e) the same in postcard (serde derive) + legal + budget",
            Box::new(|s, i| {
                let b = postcard::to_allocvec(&observations[i])?;
                p.call_postcard(&mut *s, &b, &points[i].legal, budget)
            }),
        ),
        (
            "(e') bytes: record and legal actions in one list + budget",
            Box::new(|s, i| {
                let mut b = std::mem::take(&mut s.data_mut().scratch);
                codec::encode(&observations[i], &mut b);
                for a in &points[i].legal {
                    b.extend_from_slice(&a.to_le_bytes());
                }
                b.push(points[i].legal.len() as u8);
                let r = p.call_packed_all(&mut *s, &b, budget);
                s.data_mut().scratch = b;
                r
            }),
        ),
        (
            "(c) record without lists + legal + budget",
            Box::new(|s, i| p.call_flat(s, points[i].flat, &points[i].legal, budget)),
        ),
        (
            "(a) events as u32 codes + legal + budget",
            Box::new(|s, i| p.call_event_codes(s, &points[i].codes, &points[i].legal, budget)),
        ),
        (
            "(a) events as typed variants + legal + budget",
            Box::new(|s, i| p.call_events(s, &points[i].events, &points[i].legal, budget)),
        ),
        ("(b) handle, no reads", Box::new(|s, i| handle(p, s, i, 0))),
        (
            "(b) handle, 6 accessor calls",
            Box::new(|s, i| handle(p, s, i, 6)),
        ),
        (
            "(b) handle, 20 accessor calls",
            Box::new(|s, i| handle(p, s, i, 20)),
        ),
        (
            "(b) handle, one all() call",
            Box::new(|s, i| handle(p, s, i, 255)),
        ),
        (
            "(d) legal + budget, no pull",
            Box::new(|s, i| p.call_pull(s, &points[i].legal, budget, false)),
        ),
        (
            "(d) legal + budget, pull the record",
            Box::new(|s, i| {
                s.data_mut().now = i;
                p.call_pull(s, &points[i].legal, budget, true)
            }),
        ),
    ];
    // The record clone in the 0.2.0 row is the host's own work per decision in any shape
    // that sends a record; measure it to subtract.
    let clone_ns = {
        let mut v = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for i in 0..points.len() {
                std::hint::black_box(store.data().records[i].clone());
            }
            v.push(t.elapsed().as_nanos() as f64 / points.len() as f64);
        }
        median(v)
    };
    println!(
        "{} Durak `teams` decision points; {:.1} events ({:.1} code words) seen per decision, {:.1} legal actions, {:.0} bytes encoded",
        points.len(),
        mean_events,
        mean_codes,
        mean_legal,
        mean_bytes
    );
    println!(
        "ns per call, median of 7 rounds (the host's clone of a record, {clone_ns:.0} ns, included where a record is sent)"
    );
    // An optional second argument keeps only the shapes whose name contains it (for `perf`),
    // a third repeats each round that many times.
    let only = std::env::args().nth(2).unwrap_or_default();
    let repeat: usize = std::env::args()
        .nth(3)
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    for (name, mut call) in shapes {
        if !name.contains(only.as_str()) {
            continue;
        }
        let mut rounds = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for i in (0..points.len()).cycle().take(points.len() * repeat) {
                store.set_fuel(limits.fuel_per_decision)?;
                store.set_epoch_deadline(1000);
                std::hint::black_box(call(&mut store, i)?);
            }
            rounds.push(t.elapsed().as_nanos() as f64 / (points.len() * repeat) as f64);
        }
        println!("{:>8.0}  {name}", median(rounds));
    }
    Ok(())
}

fn handle(
    p: &exports::croupier::probe::probe::Guest,
    s: &mut Store<Data>,
    i: usize,
    reads: u8,
) -> wasmtime::Result<u32> {
    let h = s.data_mut().table.push(ObsHandle(i))?;
    let legal: Vec<u32> = (0..4).collect();
    let r = p.call_handle(
        &mut *s,
        Resource::new_borrow(h.rep()),
        &legal,
        Budget {
            fuel: 0,
            millis: 0,
            bank_millis: None,
        },
        reads,
    );
    s.data_mut().table.delete(h)?;
    r
}
