//! Tuning harness (ignored; native, so about three times faster than the sandbox): the boss
//! against one source agent over duplicate deals, every agent linked natively and given the
//! default fuel budget, so it plans exactly as in the sandbox.
//!
//! `OPP=cheapest PRESET=classic DEALS=100 SEED=1 ARGS=iters=100 THREADS=2 cargo test --release
//! -p durak-ismcts --test strength -- --ignored --nocapture`. The benchmark of record is
//! `scripts/bench-bosses.sh` (sandboxed, on a seed the agents were not tuned on).
//!
//! `SEE=hands` measures a ceiling instead (issue #42): the boss is told every other hand (its
//! observation's `known` cards are the true hands, so each world deals only the talon at
//! random). What the same search does with the opponents' cards known bounds what better
//! inference of them could give.

use croupier_sdk::durak::{Action, Durak, Observation, Options};
use croupier_sdk::rules::SeatResult;
use croupier_sdk::{Budget, Game, GameInfo, GameRng, Level, Native, Rules, Services};
use durak_common::{BaseAgent, CHEAPEST, RANDOM_LEAD, TRUMP_TOSSER};
use durak_ismcts::Ismcts;

struct Host(GameRng);
impl Services for Host {
    fn random(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn log(&mut self, _: Level, _: &str) {}
}

type Decide = Box<dyn FnMut(&Observation, &[Action], &mut Host) -> Action>;

fn agent<A: croupier_sdk::Agent<Durak> + 'static>(info: &GameInfo<Durak>) -> Decide {
    let mut a = Native::<Durak, A>::new(info);
    let budget = Budget {
        fuel: 200_000_000,
        millis: 40_000,
        bank_millis: None,
    };
    Box::new(move |o, l, h| a.decide(o, l, budget, h))
}

fn make(name: &str, info: &GameInfo<Durak>) -> Decide {
    match name {
        "boss" => agent::<Ismcts>(info),
        "cheapest" => agent::<BaseAgent<CHEAPEST>>(info),
        "random-lead" => agent::<BaseAgent<RANDOM_LEAD>>(info),
        "trump-tosser" => agent::<BaseAgent<TRUMP_TOSSER>>(info),
        "fuzzy" => agent::<durak_fuzzy::Fuzzy>(info),
        "hand-value" => agent::<durak_hand_value::HandValue>(info),
        "first" => Box::new(|_, l, _| l[0]),
        other => panic!("unknown agent {other}"),
    }
}

/// One game; `boss_even`: the boss holds the even seats; `sees`: the boss is told every
/// other hand. Returns the boss's result.
fn game(
    opts: &Options,
    seed: u64,
    opp: &str,
    args: &str,
    boss_even: bool,
    sees: bool,
) -> SeatResult {
    let mut g = Durak::new(opts, seed).unwrap();
    let n = opts.num_players;
    let mut seats: Vec<(Decide, Host)> = (0..n)
        .map(|s| {
            let boss = (s % 2 == 0) == boss_even;
            let info = GameInfo {
                seat: s,
                players: n,
                options: opts.clone(),
                seed: GameRng::derive(seed, s as u64 + 1),
                args: if boss { args.into() } else { String::new() },
            };
            let host = Host(GameRng::new(GameRng::derive(seed, s as u64 + 100)));
            (make(if boss { "boss" } else { opp }, &info), host)
        })
        .collect();
    let mut legal = Vec::new();
    while let Some(p) = g.to_act() {
        g.legal_actions(&mut legal);
        let mut obs = g.observe(p);
        if sees && (p % 2 == 0) == boss_even {
            for s in 0..n {
                if s != p {
                    obs.known[s as usize] = g.hand(s);
                }
            }
        }
        let (d, h) = &mut seats[p as usize];
        let a = d(&obs, &legal, h);
        assert!(legal.contains(&a), "illegal {a}");
        g.apply(a).unwrap();
    }
    g.outcome().unwrap().results[usize::from(!boss_even)]
}

#[test]
#[ignore]
fn strength() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let opp = env("OPP", "cheapest");
    let preset = env("PRESET", "classic");
    let deals: u64 = env("DEALS", "50").parse().unwrap();
    let seed: u64 = env("SEED", "1").parse().unwrap();
    let args = env("ARGS", "");
    let threads: u64 = env("THREADS", "2").parse().unwrap();
    let sees = env("SEE", "") == "hands";
    let opts = Options::preset(&preset).unwrap();
    let t0 = std::time::Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (opts, opp, args) = (opts.clone(), opp.clone(), args.clone());
            std::thread::spawn(move || {
                let mut r = [0u32; 3];
                for d in (t..deals).step_by(threads as usize) {
                    for even in [true, false] {
                        let k = match game(&opts, seed * 1_000_003 + d, &opp, &args, even, sees) {
                            SeatResult::Win => 0,
                            SeatResult::Loss => 1,
                            _ => 2,
                        };
                        r[k] += 1;
                    }
                }
                r
            })
        })
        .collect();
    let mut r = [0u32; 3];
    for h in handles {
        let x = h.join().unwrap();
        for i in 0..3 {
            r[i] += x[i];
        }
    }
    let n = (r[0] + r[1] + r[2]) as f64;
    let p = r[0] as f64 / n;
    let half = 1.96 * (p * (1.0 - p) / n).sqrt();
    eprintln!(
        "{preset} boss[{args}]{} vs {opp}: {} W {} L {} D of {n} ({deals} deals, seed {seed}): {:.1}% ±{:.1} in {:.0?}",
        if sees { " seeing every hand" } else { "" },
        r[0],
        r[1],
        r[2],
        100.0 * p,
        100.0 * half,
        t0.elapsed()
    );
}
