//! Replay documents: each viewer sees exactly what it may see. Games are played natively with
//! random legal actions under every preset of every game, recorded as a match would record
//! them, and replayed for the spectator and for every seat. The expected views come from the
//! rules engine directly (its events' visibility tags and `observe`), not from the replay code.

use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use croupier_host::sandbox::LogLine;
use croupier_host::verdict::Verdict;
use croupier_rules::durak::{self, Durak};
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::{self, Uno, UnoCard};
use croupier_rules::{Card, Game, GameRng, Rules, Seat};
use croupier_tournament::matches::log::LogHeader;
use croupier_tournament::replay::{
    Assets, Pile, PileCard, ReplayDoc, ReplayError, TableView, VIEWER_CSS, VIEWER_JS, doc_json,
    replay_doc, replay_html,
};
use croupier_tournament::runner::{FaultPolicy, GameRecord, SeatFault};
use std::collections::BTreeSet;

/// Seeds per preset: enough for deals, transfers, laundry, challenges and stacking to occur.
const SEEDS: u64 = 6;

fn header<G: Game>(kind: GameKind, preset: &str, opts: &G::Options, n: usize) -> LogHeader {
    LogHeader {
        kind: "match".into(),
        game: kind,
        rules: preset.into(),
        options: opts.option_pairs(),
        seed: 1,
        deals: 1,
        duplicate: false,
        agents: (0..n).map(|s| format!("agent-{s}")).collect(),
        limits: Limits::default(),
        policy: FaultPolicy::Fallback,
        shard: None,
        arena_match: None,
    }
}

/// A game played with random legal actions, recorded as the runner records it. Every seat
/// "logs" one line per decision it was asked (more than one legal action), stamped the way
/// the sandbox stamps them, and one at its start.
fn play<G: Game>(opts: &G::Options, seed: u64) -> (GameRecord, Vec<G>) {
    let mut game = G::new(opts, seed).expect("deal");
    let n = game.num_players();
    let mut rng = GameRng::new(seed ^ 0xABCD);
    let mut states = vec![game.clone()];
    let mut actions = Vec::new();
    let mut asked = vec![0u32; n];
    let mut logs: Vec<(u8, Vec<LogLine>)> = (0..n as u8)
        .map(|s| {
            (
                s,
                vec![LogLine {
                    level: "info".into(),
                    text: format!("P{s} @log start"),
                    at: Some(0),
                }],
            )
        })
        .collect();
    let mut legal = Vec::new();
    while let Some(seat) = game.to_act() {
        game.legal_actions(&mut legal);
        let a = *rng.choose(&legal).expect("a legal action");
        if legal.len() > 1 {
            asked[seat as usize] += 1;
            let k = asked[seat as usize];
            logs[seat as usize].1.push(LogLine {
                level: "debug".into(),
                text: format!("P{seat} decision {k} at action {}", actions.len()),
                at: Some(k),
            });
        }
        game.apply(a).expect("legal");
        actions.push(G::encode_action(a));
        states.push(game.clone());
        if actions.len() > 3000 {
            break;
        }
    }
    let outcome = game.outcome().cloned();
    let rec = GameRecord {
        index: seed,
        deal: seed,
        rotation: 0,
        seed,
        seats: (0..n).collect(),
        actions,
        results: outcome
            .as_ref()
            .map(|o| o.results.clone())
            .unwrap_or_default(),
        scores: outcome
            .as_ref()
            .map(|o| o.scores.clone())
            .unwrap_or_default(),
        summary: outcome.map(|o| o.summary).unwrap_or_default(),
        aborted: false,
        faults: vec![SeatFault {
            seat: 0,
            verdict: Verdict::IllegalAction,
            message: "SECRET-FAULT-MESSAGE of seat 0".into(),
            at: 1,
        }],
        forfeit: None,
        decisions: asked.iter().map(|&k| u64::from(k)).sum(),
        teams: None,
        builds: Vec::new(),
        logs,
        calls: Vec::new(),
    };
    (rec, states)
}

/// The card names in a text: `10H` and `QS` for French cards, `R7`, `GSkip`, `W4` for UNO.
fn card_words(game: GameKind, text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| match game {
            GameKind::Uno => w.parse::<UnoCard>().is_ok(),
            _ => w.parse::<Card>().is_ok(),
        })
        .map(String::from)
        .collect()
}

/// Checks one document against the engine: at every step, the events are exactly those the
/// viewer may see, the hand is the viewer's own (none for a spectator), and every card named
/// anywhere in the step was named by an event the viewer saw by then or is in its own hand.
/// Returns the first difference.
fn check_doc<G: TableView>(doc: &ReplayDoc, states: &[G]) -> Result<(), String> {
    if doc.steps.len() != states.len() {
        return Err(format!(
            "{} steps for {} states",
            doc.steps.len(),
            states.len()
        ));
    }
    let viewer = doc.viewer;
    let sees = |vis: croupier_rules::Visibility| match viewer {
        None => vis.is_public(),
        Some(s) => vis.visible_to(s),
    };
    let mut seen_cards = BTreeSet::new();
    let mut shown = 0;
    for (i, (step, game)) in doc.steps.iter().zip(states).enumerate() {
        let new = &game.events()[shown..];
        shown = game.events().len();
        let want: Vec<String> = new
            .iter()
            .filter(|e| sees(e.vis))
            .map(|e| e.event.to_string())
            .collect();
        if step.events != want {
            return Err(format!("step {i}: events {:?}, want {want:?}", step.events));
        }
        for e in &want {
            seen_cards.extend(card_words(doc.game, e));
        }
        let own: Option<Vec<String>> = viewer.map(|s| {
            let obs = game.observe(s);
            G::table_view(&obs, Some(s)).hand.unwrap_or_default()
        });
        if step.table.hand != own {
            return Err(format!(
                "step {i}: hand {:?}, want {own:?}",
                step.table.hand
            ));
        }
        let mut allowed = seen_cards.clone();
        for c in own.iter().flatten() {
            allowed.insert(c.clone());
        }
        let text = serde_json::to_string(step).map_err(|e| e.to_string())?;
        for c in card_words(doc.game, &text) {
            if !allowed.contains(&c) {
                return Err(format!(
                    "step {i}: {c} is shown to {viewer:?}, who never saw it: {text}"
                ));
            }
        }
        for f in &step.faults {
            if f.message.is_some() && viewer != Some(f.seat) {
                return Err(format!(
                    "step {i}: P{}'s fault message shown to {viewer:?}",
                    f.seat
                ));
            }
        }
    }
    for l in &doc.log {
        let Some(s) = viewer else {
            return Err(format!("a spectator sees the log line {l:?}"));
        };
        if !l.text.starts_with(&format!("P{s} ")) {
            return Err(format!("seat {s} sees another seat's log line {l:?}"));
        }
    }
    Ok(())
}

/// Every viewer of `rec`: the spectator and each seat.
fn check_game<G: TableView>(kind: GameKind, preset: &str, seed: u64) {
    let opts = G::Options::preset(preset).expect("preset");
    let n = opts.seats();
    let h = header::<G>(kind, preset, &opts, n);
    let (rec, states) = play::<G>(&opts, seed);
    let last = states.len() - 1;
    let spectator = replay_doc::<G>(&h, &rec, None).expect("spectator doc");
    let at = format!("{kind} {preset} seed {seed}");
    check_doc(&spectator, &states).unwrap_or_else(|e| panic!("{at}, spectator: {e}"));
    assert!(spectator.log.is_empty(), "{at}");
    assert_eq!(spectator.steps[1].faults.len(), 1, "{at}");
    for (i, (step, game)) in spectator.steps.iter().zip(&states).enumerate() {
        // What a spectator sees is the same whichever seat's observation it is built from:
        // nothing in it depends on a hand.
        let mut from_each: Vec<_> = (0..n as Seat)
            .map(|s| G::table_view(&game.observe(s), None))
            .collect();
        from_each.dedup();
        assert_eq!(from_each.len(), 1, "{at}, step {i}: {from_each:#?}");
        let mut want = from_each.remove(0);
        want.to_act = game.to_act();
        assert_eq!(step.table, want, "{at}, step {i}");
        assert_eq!(step.table.hand, None, "{at}, step {i}");
        if i > 0 {
            assert_eq!(step.actor, states[i - 1].to_act(), "{at}, step {i}");
        }
    }
    let json = serde_json::to_string(&spectator).expect("json");
    assert!(!json.contains("SECRET-FAULT-MESSAGE"), "{at}");
    assert!(
        !json.contains("@log"),
        "{at}: a log line in the spectator view"
    );

    for s in 0..n as Seat {
        let doc = replay_doc::<G>(&h, &rec, Some(s)).expect("seat doc");
        check_doc(&doc, &states).unwrap_or_else(|e| panic!("{at}, seat {s}: {e}"));
        // A seat's table is the spectator's plus its own hand.
        for (i, (mine, public)) in doc.steps.iter().zip(&spectator.steps).enumerate() {
            let mut t = mine.table.clone();
            t.hand = None;
            assert_eq!(t, public.table, "{at}, seat {s}, step {i}");
        }
        let json = serde_json::to_string(&doc).expect("json");
        assert_eq!(
            json.contains("SECRET-FAULT-MESSAGE"),
            s == 0,
            "{at}, seat {s}"
        );
        // Its own log, every line beside the step its decision produced.
        let own = &rec.logs[s as usize].1;
        assert_eq!(doc.log.len(), own.len(), "{at}, seat {s}");
        assert_eq!(doc.log[0].step, Some(0), "{at}, seat {s}");
        for line in &doc.log[1..] {
            let step = line.step.expect("placed");
            let action: usize = line
                .text
                .rsplit(' ')
                .next()
                .and_then(|w| w.parse().ok())
                .expect("action index");
            assert_eq!(step, action + 1, "{at}, seat {s}: {line:?}");
            assert!(step <= last);
            assert_eq!(doc.steps[step].actor, Some(s), "{at}, seat {s}: {line:?}");
        }
    }
}

fn every_preset<G: TableView>(kind: GameKind) {
    for p in G::Options::presets() {
        for seed in 0..SEEDS {
            check_game::<G>(kind, p.name, seed);
        }
    }
}

#[test]
fn durak_docs_show_each_viewer_only_what_it_may_see() {
    every_preset::<Durak>(GameKind::Durak);
}

#[test]
fn toepen_docs_show_each_viewer_only_what_it_may_see() {
    every_preset::<Toepen>(GameKind::Toepen);
}

#[test]
fn uno_docs_show_each_viewer_only_what_it_may_see() {
    every_preset::<Uno>(GameKind::Uno);
}

/// The check above can fail: a seat's document passed off as a spectator's (its hand and
/// private events in a public view) and a spectator's with another seat's hand planted in it
/// are both caught, in every game.
#[test]
fn the_privacy_check_catches_a_leak() {
    fn leaks<G: TableView>(kind: GameKind) {
        let p = G::Options::presets()[0].name;
        let opts = G::Options::preset(p).expect("preset");
        let n = opts.seats();
        let h = header::<G>(kind, p, &opts, n);
        let (rec, states) = play::<G>(&opts, 3);
        let mut relabelled = replay_doc::<G>(&h, &rec, Some(0)).expect("doc");
        relabelled.viewer = None;
        assert!(
            check_doc(&relabelled, &states).is_err(),
            "{kind}: relabelled"
        );

        let mut planted = replay_doc::<G>(&h, &rec, None).expect("doc");
        check_doc(&planted, &states).expect("the honest document passes");
        // A card of seat 1's hand that no public event named at the deal.
        let public: String = planted.steps[0].events.join(" ");
        let public = card_words(kind, &public);
        let hidden = G::table_view(&states[0].observe(1), Some(1))
            .hand
            .expect("a hand")
            .into_iter()
            .find(|c| !public.contains(c))
            .expect("a hidden card");
        planted.steps[0].table.piles.push(Pile {
            label: "planted".into(),
            cards: vec![PileCard {
                card: hidden,
                seat: Some(1),
                cover: None,
            }],
        });
        let err = check_doc(&planted, &states).expect_err("a planted card is caught");
        assert!(err.contains("never saw"), "{kind}: {err}");

        let mut private_event = replay_doc::<G>(&h, &rec, None).expect("doc");
        let secret = states[0]
            .events()
            .iter()
            .find(|e| !e.vis.is_public())
            .expect("a private deal event")
            .event
            .to_string();
        private_event.steps[0].events.push(secret);
        assert!(check_doc(&private_event, &states).is_err(), "{kind}: event");
    }
    leaks::<Durak>(GameKind::Durak);
    leaks::<Toepen>(GameKind::Toepen);
    leaks::<Uno>(GameKind::Uno);
}

/// A seat out of range is refused, naming the seat by its field: `--seat` is the command
/// line's word for it, not the library's.
#[test]
fn a_seat_the_game_lacks_is_refused() {
    let opts = durak::Options::preset("classic").expect("preset");
    let h = header::<Durak>(GameKind::Durak, "classic", &opts, 2);
    let (rec, _) = play::<Durak>(&opts, 1);
    let e = replay_doc::<Durak>(&h, &rec, Some(2)).expect_err("seat 2 of 2");
    assert!(
        matches!(
            e,
            ReplayError::Seat {
                seat: 2,
                last: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("seat 2: "), "{e}");
    assert!(!e.to_string().contains("--"), "a flag in the library: {e}");
}

/// A log that does not replay is refused naming what is wrong: the options, or the game and
/// the action.
#[test]
fn a_log_that_does_not_replay_names_the_game_and_action() {
    let opts = durak::Options::preset("classic").expect("preset");
    let h = header::<Durak>(GameKind::Durak, "classic", &opts, 2);
    let (rec, _) = play::<Durak>(&opts, 1);
    let mut bad = h.clone();
    bad.options.push(("no_such_option".into(), "1".into()));
    let e = replay_doc::<Durak>(&bad, &rec, None).expect_err("bad options");
    assert!(matches!(e, ReplayError::Options(_)), "{e:?}");
    assert!(e.to_string().starts_with("log options: "), "{e}");
    let mut undecodable = rec.clone();
    undecodable.actions[3] = u32::MAX;
    let e = replay_doc::<Durak>(&h, &undecodable, None).expect_err("undecodable");
    assert!(matches!(e, ReplayError::Decode { at: 3, .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with(&format!("game {}: action 3 ", rec.index)),
        "{e}"
    );
    // The first action again in place of the second: not legal there.
    let mut illegal = rec.clone();
    illegal.actions[1] = illegal.actions[0];
    let e = replay_doc::<Durak>(&h, &illegal, None).expect_err("illegal");
    assert!(matches!(e, ReplayError::Illegal { at: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("action 1 does not replay"), "{e}");
}

/// The text replay is the document's: the same events, the fault without its message for a
/// spectator, with it for the faulting seat.
#[test]
fn the_text_replay_prints_the_document() {
    let opts = durak::Options::preset("teams").expect("preset");
    let h = header::<Durak>(GameKind::Durak, "teams", &opts, 4);
    let (rec, _) = play::<Durak>(&opts, 2);
    let doc = replay_doc::<Durak>(&h, &rec, None).expect("doc");
    let mut out = Vec::new();
    croupier_tournament::replay::replay::<Durak>(&h, &rec, None, &mut out).expect("replay");
    let text = String::from_utf8(out).expect("utf-8");
    let events: Vec<&String> = doc.steps.iter().flat_map(|s| &s.events).collect();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("durak (teams) · game 2"), "{text}");
    assert_eq!(lines[1], "  P0: agent-0");
    for e in &events {
        assert!(
            lines.contains(&format!("  {e}").as_str()),
            "`{e}` missing:\n{text}"
        );
    }
    assert!(text.contains("  ! P0 fault ILLEGAL_ACTION\n"), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    assert_eq!(
        lines.last().copied(),
        Some(format!("result: {}", rec.summary).as_str())
    );
    let mut out = Vec::new();
    croupier_tournament::replay::replay::<Durak>(&h, &rec, Some(0), &mut out).expect("replay");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.contains("  ! P0 fault ILLEGAL_ACTION: SECRET-FAULT-MESSAGE of seat 0\n"),
        "{text}"
    );
}

/// Hostile text in a document (an agent named `</script>`, a log line with markup) cannot
/// end the JSON's script element; the page's JSON reads back as the same document.
#[test]
fn the_page_embeds_hostile_text_safely() {
    let opts = uno::Options::preset("two-player").expect("preset");
    let mut h = header::<Uno>(GameKind::Uno, "two-player", &opts, 2);
    let evil = "</script><script>alert(1)</script><!--";
    h.agents[0] = evil.into();
    h.agents[1] = "a & b <img src=x onerror=alert(2)> \u{2028}".into();
    let (mut rec, _) = play::<Uno>(&opts, 4);
    rec.logs[0].1[0].text = "</SCRIPT >log".into();
    let doc = replay_doc::<Uno>(&h, &rec, Some(0)).expect("doc");
    assert_eq!(doc.players[0], evil);

    let page = replay_html(&doc, Assets::Inline).expect("page");
    let open = "<script type=\"application/json\" id=\"replay-doc\">";
    let start = page.find(open).expect("the doc element") + open.len();
    let len = page[start..].find("</script>").expect("its end");
    let json = &page[start..start + len];
    for bad in ["<", ">", "&", "\u{2028}"] {
        assert!(!json.contains(bad), "raw {bad:?} in the embedded JSON");
    }
    let back: ReplayDoc = serde_json::from_str(json).expect("the JSON parses");
    assert_eq!(back, doc, "the embedded document reads back whole");
    assert_eq!(json, doc_json(&doc).expect("json"));
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.to_ascii_lowercase().contains("</script >"));
    // Exactly two script elements: the document and the viewer.
    assert_eq!(page.matches("<script").count(), 2);
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(page.contains(VIEWER_JS) && page.contains(VIEWER_CSS));
    assert!(page.contains("<main id=\"replay\">"));

    let linked = replay_html(
        &doc,
        Assets::Linked {
            js: "/static/viewer.js",
            css: "/static/viewer.css?v=\"1\"",
        },
    )
    .expect("page");
    assert!(linked.contains("<script src=\"/static/viewer.js\"></script>"));
    assert!(linked.contains("href=\"/static/viewer.css?v=&quot;1&quot;\""));
    assert!(!linked.contains(VIEWER_JS) && !linked.contains("<style>"));
    // Nothing inline but the JSON: a strict CSP (`script-src 'self'`) runs it as it is.
    assert!(!linked.contains("style="), "{linked}");
    assert_eq!(linked.matches("<script").count(), 2);
}

/// The viewer builds its DOM from text only and needs nothing inline, as its CSP promises.
#[test]
fn the_viewer_uses_no_markup_sinks_and_nothing_inline() {
    for sink in [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        "setTimeout(\"",
        ".style",
        "setAttribute(\"style",
        "setAttribute(\"on",
        "</script",
        "<!--",
    ] {
        assert!(!VIEWER_JS.contains(sink), "viewer.js uses `{sink}`");
    }
    assert!(!VIEWER_CSS.contains("</style"));
    assert!(
        !VIEWER_CSS.contains("url("),
        "no fetches from the style sheet"
    );
    for id in [
        "replay-next",
        "replay-prev",
        "replay-first",
        "replay-last",
        "replay-step",
        "replay-slider",
        "replay-hand",
        "replay-table",
        "replay-events",
        "replay-log",
        "replay-doc",
    ] {
        assert!(VIEWER_JS.contains(&format!("\"{id}\"")), "no #{id}");
    }
}

/// Whether a missing `node` fails the viewer test: always, unless `CROUPIER_REQUIRE_NODE=0`
/// opts out (as `CROUPIER_REQUIRE_PYTHON` does for the Python agent test).
fn node_required() -> bool {
    std::env::var_os("CROUPIER_REQUIRE_NODE").is_none_or(|v| v != "0")
}

/// Runs the viewer in Node against a fake DOM (`tests/viewer_dom.js`) on `doc`: every step
/// rendered (hand, table cards, events, faults, log lines), and the buttons, keys and slider.
fn run_viewer(doc: &ReplayDoc) -> Result<String, String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new("node")
        .arg(dir.join("tests/viewer_dom.js"))
        .arg(dir.join("assets/viewer.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run node: {e}"))?;
    let json = doc_json(doc).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(json.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() && text.starts_with("ok") {
        Ok(text)
    } else {
        Err(format!("{text}{}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// The viewer itself, run in Node: for a spectator and a seat of each game (with a hostile
/// agent name), it shows every step's hand, table cards, events and log, and its controls
/// move as they should. Needs `node`; fails without it unless `CROUPIER_REQUIRE_NODE=0`.
#[test]
fn the_viewer_renders_every_step_and_its_controls_work() {
    use std::process::Command;
    if Command::new("node").arg("--version").output().is_err() {
        let msg = "node is not installed, so the viewer test cannot run";
        if node_required() {
            panic!("{msg}; to skip it on purpose set CROUPIER_REQUIRE_NODE=0");
        }
        eprintln!("SKIPPED: {msg} (CROUPIER_REQUIRE_NODE=0)");
        return;
    }
    fn docs<G: TableView>(kind: GameKind) -> Vec<ReplayDoc> {
        let p = G::Options::presets()[0].name;
        let opts = G::Options::preset(p).expect("preset");
        let n = opts.seats();
        let mut h = header::<G>(kind, p, &opts, n);
        h.agents[0] = "</script><img src=x onerror=alert(1)>".into();
        let (rec, _) = play::<G>(&opts, 5);
        vec![
            replay_doc::<G>(&h, &rec, None).expect("doc"),
            replay_doc::<G>(&h, &rec, Some(0)).expect("doc"),
        ]
    }
    let mut all = docs::<Durak>(GameKind::Durak);
    all.extend(docs::<Toepen>(GameKind::Toepen));
    all.extend(docs::<Uno>(GameKind::Uno));
    for doc in &all {
        run_viewer(doc).unwrap_or_else(|e| panic!("{} {:?}: {e}", doc.game, doc.viewer));
    }
    // The test can fail: a document whose hand names a card the viewer cannot draw.
    let mut bad = all[1].clone();
    bad.steps[0].table.hand = Some(vec!["not-a-card".into()]);
    assert!(run_viewer(&bad).is_err());
}

/// The seat tags of a table follow the observation's bits, seat by seat: Durak's `out` and
/// `passed`, Toepen's `eliminated` and `folded`. (The documents above are compared with
/// `table_view` itself, so this is where a wrong bit test would show.)
#[test]
fn seat_tags_follow_the_observation() {
    let tags = |t: &croupier_tournament::replay::Table, s: usize| t.seats[s].tags.clone();
    let has = |v: &[String], tag: &str| {
        v.iter()
            .any(|x| x == tag || x.starts_with(&format!("{tag} (")))
    };
    let mut seen = [0u32; 4]; // passed, out, eliminated, folded
    let mut legal = Vec::new();
    for preset in ["classic", "teams"] {
        let opts = <Durak as Game>::Options::preset(preset).expect("preset");
        for seed in 0..SEEDS {
            let mut game = Durak::new(&opts, seed).expect("deal");
            let mut rng = GameRng::new(seed);
            loop {
                let obs = game.observe(0);
                let table = Durak::table_view(&obs, None);
                let over = obs.phase == durak::Phase::Over;
                for s in 0..obs.players as usize {
                    let t = tags(&table, s);
                    let out = obs.out >> s & 1 == 1 || obs.finish[s] > 0;
                    let passed = !out && !over && obs.passed >> s & 1 == 1;
                    assert_eq!(has(&t, "out"), out, "{preset} seed {seed}, P{s}: {t:?}");
                    assert_eq!(
                        has(&t, "passed"),
                        passed,
                        "{preset} seed {seed}, P{s}: {t:?}"
                    );
                    seen[0] += passed as u32;
                    seen[1] += out as u32;
                }
                if game.to_act().is_none() {
                    break;
                }
                game.legal_actions(&mut legal);
                game.apply(legal[rng.below(legal.len())]).expect("legal");
            }
        }
    }
    let mut legal = Vec::new();
    for preset in ["standard", "cafe"] {
        let opts = <Toepen as Game>::Options::preset(preset).expect("preset");
        for seed in 0..SEEDS {
            let mut game = Toepen::new(&opts, seed).expect("deal");
            let mut rng = GameRng::new(seed);
            loop {
                let obs = game.observe(0);
                let table = Toepen::table_view(&obs, None);
                for s in 0..obs.players as usize {
                    let t = tags(&table, s);
                    let eliminated = obs.eliminated >> s & 1 == 1;
                    let folded = !eliminated && obs.dealt >> s & 1 == 1 && obs.live >> s & 1 == 0;
                    assert_eq!(
                        has(&t, "eliminated"),
                        eliminated,
                        "{preset} seed {seed}, P{s}: {t:?}"
                    );
                    assert_eq!(
                        has(&t, "folded"),
                        folded,
                        "{preset} seed {seed}, P{s}: {t:?}"
                    );
                    seen[2] += eliminated as u32;
                    seen[3] += folded as u32;
                }
                if game.to_act().is_none() {
                    break;
                }
                game.legal_actions(&mut legal);
                game.apply(legal[rng.below(legal.len())]).expect("legal");
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "passed, out, eliminated, folded seen {seen:?} times"
    );
}

/// The tables a replay shows are pinned: for one game of each preset below, every step's
/// table as the spectator sees it and seat 0's hand, one line per step, in
/// `tests/golden/replay-<game>-<preset>.jsonl`. The tests above compare documents with
/// `table_view` itself, so a wrong tag, fact or pile would pass them; here it changes a line.
/// After a deliberate change to what a table shows, rewrite them with
///
/// ```text
/// CROUPIER_BLESS=1 cargo test -p croupier-tournament --release --test tournament pinned
/// ```
///
/// and say in the commit what every table now shows differently.
#[test]
fn replay_tables_are_pinned() {
    fn lines<G: TableView>(kind: GameKind, preset: &str, seed: u64) -> String {
        let opts = G::Options::preset(preset).expect("preset");
        let h = header::<G>(kind, preset, &opts, opts.seats());
        let (rec, _) = play::<G>(&opts, seed);
        // Seat 0's table differs from the spectator's only by its hand (a test above holds
        // that), so its line adds the hand alone.
        let spectator = replay_doc::<G>(&h, &rec, None).expect("spectator doc");
        let seat = replay_doc::<G>(&h, &rec, Some(0)).expect("seat doc");
        let mut out = String::new();
        for (i, (a, b)) in spectator.steps.iter().zip(&seat.steps).enumerate() {
            let table = serde_json::to_string(&a.table).expect("json");
            let hand = serde_json::to_string(&b.table.hand).expect("json");
            out.push_str(&format!("{i} {table} P0 {hand}\n"));
        }
        out
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("CROUPIER_BLESS").is_some();
    // Presets whose one game shows every tag and pile: transfers, taking, passing and going
    // out (Durak); folding, knocking, laundry shown and elimination (Toepen); UNO's house game.
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "durak",
            "teams",
            lines::<Durak>(GameKind::Durak, "teams", 2),
        ),
        (
            "durak",
            "perevodnoy",
            lines::<Durak>(GameKind::Durak, "perevodnoy", 2),
        ),
        (
            "toepen",
            "standard",
            lines::<Toepen>(GameKind::Toepen, "standard", 2),
        ),
        (
            "toepen",
            "cafe",
            lines::<Toepen>(GameKind::Toepen, "cafe", 2),
        ),
        ("uno", "house", lines::<Uno>(GameKind::Uno, "house", 2)),
    ];
    for (game, preset, got) in cases {
        let path = dir.join(format!("replay-{game}-{preset}.jsonl"));
        if bless {
            std::fs::create_dir_all(&dir).expect("golden dir");
            std::fs::write(&path, &got).expect("write golden");
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (bless it, see above)", path.display()));
        if let Some((i, (w, g))) = want
            .lines()
            .zip(got.lines())
            .enumerate()
            .find(|(_, (w, g))| w != g)
        {
            panic!(
                "{}, line {}: the table changed\nwant {w}\ngot  {g}",
                path.display(),
                i + 1
            );
        }
        assert_eq!(
            want.lines().count(),
            got.lines().count(),
            "{}: another number of steps",
            path.display()
        );
    }
}

/// A fault's step comes from the log, which may come from anywhere: one placed past the last
/// action (or exactly at it, where a game ended by a fault stops) lands on the last step.
#[test]
fn a_fault_past_the_end_lands_on_the_last_step() {
    let opts = <Durak as Game>::Options::preset("classic").expect("preset");
    let h = header::<Durak>(GameKind::Durak, "classic", &opts, 2);
    let (mut rec, _) = play::<Durak>(&opts, 1);
    let end = rec.actions.len();
    for at in [end, end + 1, end + 1000] {
        rec.faults[0].at = at;
        let doc = replay_doc::<Durak>(&h, &rec, None).expect("doc");
        let last = doc.steps.len() - 1;
        assert_eq!(last, end, "one step per action after the deal");
        assert_eq!(doc.steps[last].faults.len(), 1, "at {at}");
        assert!(
            doc.steps[..last].iter().all(|s| s.faults.is_empty()),
            "at {at}"
        );
    }
}
