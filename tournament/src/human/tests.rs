use super::*;
use crate::runner::tests::Swapped;
use croupier_host::player::PlayerFactory;
use croupier_rules::durak::{self, Durak};
use croupier_rules::uno::{self, Uno};
use std::sync::Arc;

fn game<G: TableView + Adapter>(
    preset: &str,
    options: G::Options,
    seat: usize,
    seed: u64,
) -> Box<dyn HumanGame> {
    let seats = (0..options.seats())
        .map(|s| {
            (s != seat).then(|| Entrant {
                name: format!("first{s}"),
                args: String::new(),
                factory: Arc::new(Swapped) as Arc<dyn PlayerFactory<G>>,
            })
        })
        .collect();
    seat_person::<G>(HumanSetup {
        preset: preset.into(),
        options,
        seats,
        seed,
        limits: Limits::default(),
        person: "you".into(),
    })
    .expect("a game")
}

fn host_plays(g: &mut dyn HumanGame) {
    while g.waiting() == Waiting::Host {
        g.step();
    }
}

/// The person sees their own hand and the others' as counts, is offered the legal actions
/// as text, and an action not offered, or sent at another move, is refused naming it.
#[test]
fn the_person_sees_their_seat_and_only_offered_actions_are_played() {
    for seed in 1..20 {
        let opts = durak::Options::classic(3);
        let mut g = game::<Durak>("classic", opts.clone(), 1, seed);
        host_plays(g.as_mut());
        assert_eq!(g.waiting(), Waiting::Person, "seed {seed}");
        let v = g.view();
        let mut truth = Durak::new(&opts, seed).expect("deal");
        let log = g.finish();
        assert!(log.is_none(), "a game that goes on has no record");
        // The same game replayed to the same move, to compare the person's view with.
        let rec_moves = v.moves as usize;
        let mut legal = Vec::new();
        for _ in 0..rec_moves {
            truth.legal_actions(&mut legal);
            truth.apply(legal[0]).expect("first legal");
        }
        let obs = truth.observe(1);
        let hand: Vec<String> = obs.hand.iter().map(|c| c.to_string()).collect();
        assert_eq!(v.table.hand.as_ref(), Some(&hand), "seed {seed}");
        assert_eq!(v.seat, 1);
        assert!(v.players[1] == "you" && v.players[0] == "first0");
        truth.legal_actions(&mut legal);
        let offered: Vec<String> = legal.iter().map(|a| a.to_string()).collect();
        assert_eq!(v.legal, offered);
        assert!(v.legal.len() > 1);
        let e = g.act("beat 0 AS", v.moves).expect_err("not offered");
        assert!(
            matches!(&e, ActError::NotOffered { action, .. } if action == "beat 0 AS"),
            "{e}"
        );
        assert!(e.to_string().contains("`beat 0 AS`"), "{e}");
        let e = g.act(&v.legal[0], v.moves + 1).expect_err("stale");
        assert!(matches!(e, ActError::Stale { .. }), "{e}");
        assert_eq!(g.view().moves, v.moves, "nothing was played");
        g.act(&v.legal[1], v.moves).expect("offered");
        assert_eq!(g.view().moves, v.moves + 1);
    }
}

/// A whole game, the person always taking the first action: it ends, and its record
/// replays (as the viewer will show it) to the same result, with the agents' logs in it.
#[test]
fn a_finished_game_replays_from_its_record() {
    let opts = uno::Options::house(3);
    let mut g = game::<Uno>("house", opts, 0, 5);
    let mut turns = 0;
    loop {
        host_plays(g.as_mut());
        match g.waiting() {
            Waiting::Person => {
                let v = g.view();
                assert_eq!(v.table.to_act, Some(0));
                g.act(&v.legal[0], v.moves).expect("offered");
                turns += 1;
            }
            Waiting::Over => break,
            Waiting::Host => unreachable!(),
        }
    }
    assert!(turns > 0);
    let v = g.view();
    let result = v.result.expect("a result");
    assert!(!result.aborted);
    assert!(v.legal.is_empty());
    assert_eq!(g.act("draw", v.moves), Err(ActError::Over));
    let (header, rec) = g.finish().expect("a record");
    assert_eq!(rec.actions.len() as u64, v.moves);
    assert_eq!(rec.results, result.results);
    assert_eq!(header.agents, ["you", "first1", "first2"]);
    assert!(
        rec.logs.iter().all(|(s, _)| *s != 0),
        "the person logs nothing"
    );
    assert_eq!(rec.logs.len(), 2, "each agent's log is in the record");
    assert_eq!(rec.builds, ["", "new", "new"]);
    let doc = crate::replay::replay_doc::<Uno>(&header, &rec, Some(0)).expect("replays");
    assert_eq!(doc.steps.len(), rec.actions.len() + 1);
    assert_eq!(doc.result.summary, result.summary);
}

/// A game ended early is over, unrated in effect (every seat a draw), and says why.
#[test]
fn an_abandoned_game_ends_with_its_reason() {
    let mut g = game::<Durak>("classic", durak::Options::classic(2), 0, 3);
    host_plays(g.as_mut());
    g.abandon("the person left the page");
    assert_eq!(g.waiting(), Waiting::Over);
    let v = g.view();
    let r = v.result.expect("over");
    assert!(r.aborted && r.summary == "the person left the page");
    assert!(r.results.iter().all(|x| *x == SeatResult::Draw));
    let (_, rec) = g.finish().expect("a record");
    assert_eq!(rec.summary, "the person left the page");
}
