use super::*;
use croupier_tournament::replay::{ReplayResult, Table};

/// A game of six moves: the person's at even counts ("go" is the one action besides "wait"),
/// the host's at odd ones.
struct Counter {
    moves: u64,
    ended: Option<String>,
}

impl HumanGame for Counter {
    fn view(&self) -> PlayView {
        PlayView {
            game: "durak".into(),
            rules: "classic".into(),
            seat: 0,
            players: vec!["you".into(), "agent".into()],
            teams: None,
            table: Table::default(),
            events: Vec::new(),
            legal: if self.waiting() == Waiting::Person {
                vec!["go".into(), "wait".into()]
            } else {
                Vec::new()
            },
            moves: self.moves,
            result: (self.waiting() == Waiting::Over).then(|| ReplayResult {
                summary: self.ended.clone().unwrap_or_else(|| "done".into()),
                results: Vec::new(),
                scores: Vec::new(),
                aborted: self.ended.is_some(),
                forfeit: None,
            }),
        }
    }
    fn waiting(&self) -> Waiting {
        if self.ended.is_some() || self.moves >= 6 {
            Waiting::Over
        } else if self.moves.is_multiple_of(2) {
            Waiting::Person
        } else {
            Waiting::Host
        }
    }
    fn step(&mut self) {
        if self.waiting() == Waiting::Host {
            self.moves += 1;
        }
    }
    fn act(&mut self, action: &str, moves: u64) -> Result<(), ActError> {
        if self.waiting() != Waiting::Person {
            return Err(ActError::NotYourTurn);
        }
        if action != "go" && action != "wait" {
            return Err(ActError::NotOffered {
                action: action.into(),
                offered: "go, wait".into(),
            });
        }
        assert_eq!(moves, self.moves);
        self.moves += 1;
        Ok(())
    }
    fn abandon(&mut self, why: &str) {
        if self.waiting() != Waiting::Over {
            self.ended = Some(why.into());
        }
    }
    fn finish(&mut self) -> Option<(LogHeader, GameRecord)> {
        None
    }
}

fn counter() -> Result<Box<dyn HumanGame>, String> {
    Ok(Box::new(Counter {
        moves: 0,
        ended: None,
    }))
}

fn bounds(turn_ms: i64, left_ms: i64) -> Bounds {
    Bounds {
        games: 3,
        per_owner: 2,
        turn_ms,
        left_ms,
        keep_ms: 60_000,
    }
}

/// Waits (up to 10 s) until game `id` is in `state`.
async fn until(g: &Arc<Games>, id: &str, owner: &Owner, state: &str) -> PlayState {
    for _ in 0..1000 {
        let s = g.state(id, owner).expect("the game");
        if s.state == state {
            return s;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("game {id} never reached `{state}`");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_are_capped_per_owner_and_in_all_and_seen_only_by_their_owner() {
    let g = Games::new(bounds(60_000, 60_000));
    let (a, b) = (Owner::Team(1), Owner::Team(2));
    let first = g
        .start(a.clone(), vec![true], counter)
        .await
        .expect("first");
    g.start(a.clone(), vec![true], counter)
        .await
        .expect("second");
    let e = g
        .start(a.clone(), vec![true], counter)
        .await
        .expect_err("a's third");
    assert!(matches!(e, PlayError::TooMany(_)), "{e}");
    g.start(b.clone(), vec![true], counter)
        .await
        .expect("b's first");
    let e = g
        .start(b.clone(), vec![true], counter)
        .await
        .expect_err("the fourth in all");
    assert!(matches!(e, PlayError::Full(_)), "{e}");
    assert!(matches!(g.state(&first, &b), Err(PlayError::NotFound(_))));
    assert!(matches!(
        g.act(&first, &b, "go", 0),
        Err(PlayError::NotFound(_))
    ));
    // A game that ends frees its place.
    g.leave(&first, &a).expect("leave");
    assert_eq!(g.state(&first, &a).expect("kept").state, "over");
    g.start(a.clone(), vec![true], counter)
        .await
        .expect("a's place again");
}

/// Issue #64: a client that drops its visitor's cookie is a new visitor at every `GET /play`,
/// so visitors are capped per address too: new cookies from one address get 429 past
/// `play.per_team`, while another address and a team from the same address are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_open_arena_game() {
    let mut b = bounds(60_000, 60_000);
    b.games = 8;
    let g = Games::new(b);
    let here = Some(std::net::IpAddr::from([10, 0, 0, 1]));
    let there = Some(std::net::IpAddr::from([10, 0, 0, 2]));
    let visitor = |n: u32| Owner::Visitor(format!("cookie-{n}"));
    for n in 0..2 {
        g.start_from(visitor(n), here, vec![true], counter)
            .await
            .expect("within the address's share");
    }
    let e = g
        .start_from(visitor(2), here, vec![true], counter)
        .await
        .expect_err("a third cookie from the same address");
    assert!(matches!(e, PlayError::TooMany(_)), "{e}");
    assert!(e.to_string().contains("play.per_team"), "{e}");
    g.start_from(visitor(3), there, vec![true], counter)
        .await
        .expect("another address");
    g.start_from(Owner::Team(1), here, vec![true], counter)
        .await
        .expect("a team from the same address");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_plays_offered_actions_and_the_host_plays_between() {
    let g = Games::new(bounds(60_000, 60_000));
    let me = Owner::Local;
    let id = g
        .start(me.clone(), vec![true], counter)
        .await
        .expect("start");
    let s = until(&g, &id, &me, "turn").await;
    assert_eq!(s.view.legal, ["go", "wait"]);
    assert!(s.turn_left_ms.is_some_and(|ms| ms > 0));
    let e = g.act(&id, &me, "fold", 0).expect_err("not offered");
    assert!(e.to_string().contains("`fold`"), "{e}");
    for m in [0, 2, 4] {
        until(&g, &id, &me, "turn").await;
        g.act(&id, &me, "go", m).expect("offered");
    }
    let s = until(&g, &id, &me, "over").await;
    assert_eq!(s.view.moves, 6);
    assert!(matches!(
        g.act(&id, &me, "go", 6),
        Err(PlayError::Act(ActError::Over))
    ));
}

/// Regression: the agents' thread showed the person's turn while it still held the game, so
/// an action sent the moment the turn showed was refused as not the person's turn (a suite
/// run caught it in the test above). Here every turn is acted on as soon as it shows, over
/// 40 games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_sent_as_the_turn_shows_is_taken() {
    let g = Games::new(bounds(60_000, 60_000));
    let me = Owner::Local;
    for _ in 0..40 {
        let id = g
            .start(me.clone(), vec![true], counter)
            .await
            .expect("start");
        for m in [0, 2, 4] {
            let start = std::time::Instant::now();
            while g.state(&id, &me).expect("the game").state != "turn" {
                assert!(start.elapsed().as_secs() < 10, "never the person's turn");
                tokio::task::yield_now().await;
            }
            g.act(&id, &me, "go", m)
                .expect("the turn shown is the person's");
        }
        until(&g, &id, &me, "over").await;
    }
}

/// A game under `bounds` whose person does nothing: what the sweep ends it with.
async fn quiet_game(bounds: Bounds) -> String {
    let g = Games::new(bounds);
    let me = Owner::Organiser;
    let id = g
        .start(me.clone(), vec![true], counter)
        .await
        .expect("start");
    until(&g, &id, &me, "turn").await;
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    g.sweep();
    // Asking now is too late: the sweep ended it.
    let s = g.state(&id, &me).expect("kept");
    assert_eq!(s.state, "over");
    s.view.result.expect("a result").summary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_out_of_time_or_a_page_gone_quiet_ends_the_game() {
    let why = quiet_game(bounds(50, 60_000)).await;
    assert!(why.contains("no move in"), "{why}");
    let why = quiet_game(bounds(60_000, 50)).await;
    assert!(why.contains("page was closed"), "{why}");
}
