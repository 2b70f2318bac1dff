use super::*;
use croupier_host::player::{PlayerFactory, StartInfo};
use croupier_host::sandbox::MakeError;
use std::sync::Arc;

/// A first-legal-action player that reports `build` and logs one line each time it is asked.
pub(crate) struct Fixed {
    build: String,
}

impl<G: Game> Player<G> for Fixed {
    fn start(&mut self, _: &StartInfo) -> Result<(), Fault> {
        Ok(())
    }
    fn decide(&mut self, _: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        legal
            .first()
            .copied()
            .ok_or_else(|| Fault::new(Verdict::Trap, "no legal action"))
    }
    fn take_log(&mut self) -> Vec<LogLine> {
        vec![LogLine {
            level: "info".into(),
            text: format!("build {}", self.build),
            at: None,
        }]
    }
    fn stats(&self) -> CallStats {
        CallStats::default()
    }
    fn build_id(&self) -> String {
        self.build.clone()
    }
}

/// A factory hot-swapped between being asked its build and making the player: it says
/// "old" but makes "new" players, as a `--watch` swap can.
pub(crate) struct Swapped;

impl<G: Game> PlayerFactory<G> for Swapped {
    fn make(&self, _: u64) -> Result<Box<dyn Player<G>>, MakeError> {
        Ok(Box::new(Fixed {
            build: "new".into(),
        }))
    }
    fn build_id(&self) -> String {
        "old".into()
    }
}

/// The record names the build that played, which the player knows; the factory's
/// answer may already be out of date.
#[test]
fn a_record_names_the_build_that_played() {
    use croupier_rules::durak::{Durak, Options};
    let entrants: Vec<Entrant<Durak>> = (0..2)
        .map(|i| Entrant {
            name: format!("a{i}"),
            args: String::new(),
            factory: Arc::new(Swapped),
        })
        .collect();
    let options = Options::classic(2);
    let schedule = Schedule::new(2, 2, 1, false);
    let plan = Plan {
        options: &options,
        entrants: &entrants,
        schedule: &schedule,
        seed: 1,
        policy: FaultPolicy::Forfeit,
        threads: 1,
    };
    let rec = play_game(&plan, &StartRules::new::<Durak>(&options), 0).expect("played");
    assert_eq!(rec.builds, ["new", "new"]);
}

#[test]
fn schedule_fills_and_rotates() {
    let s = Schedule::new(2, 4, 10, false);
    assert_eq!(s.rotations, vec![vec![0, 1, 0, 1], vec![1, 0, 1, 0]]);
    assert_eq!(s.games(), 10);
    assert_eq!(s.game(3), (3, 1));
    let d = Schedule::new(2, 4, 10, true);
    assert_eq!(d.games(), 20);
    assert_eq!(d.game(3), (1, 1));
    let three = Schedule::new(3, 3, 1, true);
    assert_eq!(three.rotations.len(), 3);
}

#[test]
fn team_games_count_once_per_side() {
    let mut t = vec![EntrantTotals::default(), EntrantTotals::default()];
    let rec = GameRecord {
        index: 0,
        deal: 0,
        rotation: 0,
        seed: 0,
        seats: vec![0, 1, 0, 1],
        actions: vec![],
        results: vec![
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Win,
            SeatResult::Loss,
        ],
        scores: vec![],
        summary: String::new(),
        aborted: false,
        faults: vec![],
        forfeit: None,
        decisions: 0,
        teams: Some(vec![0, 1, 0, 1]),
        builds: vec![],
        logs: vec![],
        calls: (1..=4)
            .map(|k| CallStats {
                decisions: k,
                fuel: 100 * k,
                fuel_unknown: 0,
                fuel_max: 0,
            })
            .collect(),
    };
    tally(&mut t, &rec);
    assert_eq!((t[0].games, t[0].wins), (1, 1));
    assert_eq!((t[1].games, t[1].losses), (1, 1));
    // Decisions and fuel add up over both seats of an entrant.
    assert_eq!((t[0].decisions, t[0].fuel), (1 + 3, 100 + 300));
    assert_eq!((t[1].decisions, t[1].fuel), (2 + 4, 200 + 400));
}

fn record(seats: Vec<usize>, results: Vec<SeatResult>, teams: Option<Vec<u8>>) -> GameRecord {
    GameRecord {
        index: 0,
        deal: 0,
        rotation: 0,
        seed: 0,
        calls: vec![CallStats::default(); seats.len()],
        seats,
        actions: vec![],
        results,
        scores: vec![],
        summary: String::new(),
        aborted: false,
        faults: vec![],
        forfeit: None,
        decisions: 0,
        teams,
        builds: vec![],
        logs: vec![],
    }
}

fn seat_fault(seat: u8, verdict: Verdict) -> SeatFault {
    SeatFault {
        seat,
        verdict,
        message: String::new(),
        at: 0,
    }
}

/// Without teams every seat is a side of its own: an entrant in two seats plays two
/// games, and wins, losses and draws (anything else is a draw) are counted per seat.
/// Faults count per fault, by verdict; fuel per decision counts only known fuel.
#[test]
fn tally_counts_every_seat_result_and_fault() {
    use SeatResult::{Draw, Loss, Win};
    let mut t = vec![EntrantTotals::default(); 3];
    let mut rec = record(vec![0, 1, 0, 2], vec![Win, Draw, Loss, Draw], None);
    rec.faults = vec![
        seat_fault(2, Verdict::Timeout),
        seat_fault(1, Verdict::Trap),
        seat_fault(2, Verdict::Timeout),
        // A fault of a seat that does not exist is ignored, not a panic.
        seat_fault(9, Verdict::Trap),
    ];
    rec.calls[1] = CallStats {
        decisions: 10,
        fuel: 5_000,
        fuel_unknown: 3,
        fuel_max: 900,
    };
    tally(&mut t, &rec);
    let wdl = |x: &EntrantTotals| (x.games, x.wins, x.draws, x.losses);
    assert_eq!(wdl(&t[0]), (2, 1, 0, 1));
    assert_eq!(wdl(&t[1]), (1, 0, 1, 0));
    assert_eq!(wdl(&t[2]), (1, 0, 1, 0));
    assert_eq!((t[0].faults, t[1].faults, t[2].faults), (2, 1, 0));
    let by = &t[0].faults_by_verdict;
    assert_eq!((by.get("TIMEOUT"), by.get("TRAP")), (Some(&2), None));
    assert_eq!(t[1].faults_by_verdict.get("TRAP"), Some(&1));
    assert!(t[2].faults_by_verdict.is_empty());
    assert_eq!(
        (t[1].decisions, t[1].fuel, t[1].fuel_decisions),
        (10, 5_000, 7)
    );
    // A second game adds to the first; the costliest decision is the most of either.
    let mut rec = record(vec![2, 1, 0, 0], vec![Win, Win, Draw, Loss], None);
    rec.calls[1].count_fuel(400);
    tally(&mut t, &rec);
    assert_eq!((t[1].fuel, t[1].fuel_max), (5_400, 900));
    assert_eq!(wdl(&t[0]), (4, 1, 1, 2));
    assert_eq!(wdl(&t[1]), (2, 1, 1, 0));
    assert_eq!(wdl(&t[2]), (2, 1, 1, 0));
    assert_eq!((t[0].faults, t[1].faults), (2, 1));
}

/// In team play each side counts once per entrant, but two entrants on one side each
/// get the game.
#[test]
fn tally_counts_each_entrant_of_a_side() {
    use SeatResult::{Loss, Win};
    let mut t = vec![EntrantTotals::default(); 3];
    let rec = record(
        vec![0, 1, 2, 1],
        vec![Win, Loss, Win, Loss],
        Some(vec![0, 1, 0, 1]),
    );
    tally(&mut t, &rec);
    assert_eq!((t[0].games, t[0].wins), (1, 1));
    assert_eq!((t[2].games, t[2].wins), (1, 1));
    assert_eq!((t[1].games, t[1].losses), (1, 1));
}

/// A forfeit: the culprit loses, and with teams its whole team loses; everybody else
/// wins; the record names the culprit and the verdict of the last fault.
#[test]
fn forfeit_loses_for_the_culprit_and_its_team() {
    use croupier_rules::durak::Durak;
    let no_players = || -> Vec<Option<Box<dyn Player<Durak>>>> { (0..4).map(|_| None).collect() };
    use SeatResult::{Loss, Win};

    let mut rec = record(vec![0, 1, 2, 3], vec![], None);
    rec.faults = vec![
        seat_fault(1, Verdict::Trap),
        seat_fault(2, Verdict::OutOfFuel),
    ];
    let r = forfeit(rec.clone(), &mut no_players(), 2, &[None; 4]);
    assert_eq!(r.results, vec![Win, Win, Loss, Win]);
    assert_eq!(r.forfeit, Some(2));
    assert_eq!(r.summary, "P2 forfeits (OUT_OF_FUEL)");

    let teams = [Some(0), Some(1), Some(0), Some(1)];
    let r = forfeit(rec.clone(), &mut no_players(), 1, &teams);
    assert_eq!(r.results, vec![Win, Loss, Win, Loss]);
    assert_eq!(r.forfeit, Some(1));

    rec.faults.clear();
    let r = forfeit(rec, &mut no_players(), 0, &teams);
    assert_eq!(r.results, vec![Loss, Win, Loss, Win]);
    assert_eq!(r.summary, "P0 forfeits (fault)");
}
