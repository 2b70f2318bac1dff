//! One logged game, step by step, as one viewer may see it: the [`ReplayDoc`] that the text
//! replay, the browser viewer and the arena all render.
//!
//! Privacy is the point. A document is built for one viewer: a spectator (public events and
//! the public table only) or one seat (also what that seat saw: its own private events, its
//! hand, its own agent's log and fault messages). The table comes from the engine's
//! observation through [`TableView`], which copies public fields one by one, so a field added
//! to an observation later stays out of every document until someone decides it is public.
//!
//! [`replay_html`] wraps a document in a standalone page with the viewer ([`VIEWER_JS`],
//! [`VIEWER_CSS`]) inlined, or linked for a server that sends its own files.

use crate::matches::log::LogHeader;
use crate::runner::GameRecord;
use croupier_host::loader::GameKind;
use croupier_host::text::escape;
use croupier_rules::{Rules, SeatResult, Visibility};
use serde::{Deserialize, Serialize};
use std::io::Write;

pub use crate::games::table::{Fact, Pile, PileCard, SeatView, Table, TableView};

/// The browser viewer: plain JavaScript that renders the document embedded in the page as
/// `<script type="application/json" id="replay-doc">`. It builds the DOM with `textContent`
/// only, so agent names and log lines cannot inject markup, and it needs no inline script or
/// style, so it runs under `default-src 'none'; script-src 'self'; style-src 'self'`.
pub const VIEWER_JS: &str = include_str!("../assets/viewer.js");

/// The viewer's style sheet (cards, table, controls).
pub const VIEWER_CSS: &str = include_str!("../assets/viewer.css");

/// A logged game as one viewer may see it, step by step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayDoc {
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// Every rule option in force, as (name, value).
    pub options: Vec<(String, String)>,
    /// The game's index in its run.
    pub index: u64,
    /// Which deal was played.
    pub deal: u64,
    /// The seed the cards were dealt from.
    pub seed: u64,
    /// The agent argument playing each seat, escaped like any agent text.
    pub players: Vec<String>,
    /// Team per seat in team games.
    pub teams: Option<Vec<u8>>,
    /// Whose view this is: `None` for a spectator.
    pub viewer: Option<u8>,
    /// How the game ended.
    pub result: ReplayResult,
    /// Step 0 is the table after the deal; step `i` is the table after the `i`-th action.
    pub steps: Vec<Step>,
    /// The viewing seat's own agent log (empty for a spectator).
    pub log: Vec<ReplayLogLine>,
}

/// How a replayed game ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayResult {
    /// One line for people, e.g. `P1 is the durak`.
    pub summary: String,
    /// The result per seat.
    pub results: Vec<SeatResult>,
    /// Game-specific scores per seat; empty where the game has none.
    pub scores: Vec<i64>,
    /// The game did not end by the rules.
    pub aborted: bool,
    /// The seat whose fault ended the game.
    pub forfeit: Option<u8>,
}

/// One step of a replay: an action and what the viewer saw because of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The seat that acted (`None` for step 0, the deal).
    pub actor: Option<u8>,
    /// The action's text, e.g. `lead 7H` (`None` for step 0).
    pub action: Option<String>,
    /// The events this step made visible to the viewer, as text.
    pub events: Vec<String>,
    /// Faults that happened at this point of the game.
    pub faults: Vec<ReplayFault>,
    /// The table as the viewer may see it after this step.
    pub table: Table,
}

/// A fault in a replay. Its message is shown only to the faulting seat's own view: an
/// illegal-action message lists the legal actions, which name the cards in that hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayFault {
    /// The seat whose agent faulted.
    pub seat: u8,
    /// The verdict's name, e.g. `TIMEOUT`.
    pub verdict: String,
    /// What happened (escaped); `None` unless the viewer is the faulting seat.
    pub message: Option<String>,
}

/// One line of the viewing seat's agent log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayLogLine {
    /// The step whose action the line was logged while deciding (0 = at the start);
    /// `None` in logs that did not record it.
    pub step: Option<usize>,
    /// The level: `error`, `warn`, `info` or `debug`.
    pub level: String,
    /// The text, escaped.
    pub text: String,
}

/// Why a logged game cannot be shown. The messages name what is wrong by the log's words
/// and the field (`seat`), never a command-line flag; the caller says it its own way.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The header's options are not options of its game.
    #[error("log options: {0}")]
    Options(String),
    /// The game cannot be dealt from the record's seed under those options.
    #[error("{reason}")]
    Deal {
        /// The game's index.
        index: u64,
        /// What the rules said.
        reason: String,
    },
    /// The viewing `seat` is not a seat of the game.
    #[error("seat {seat}: game {index} has seats 0 to {last}")]
    Seat {
        /// The seat asked for.
        seat: u8,
        /// The game's index.
        index: u64,
        /// Its last seat.
        last: usize,
    },
    /// A logged action is no action of the game.
    #[error("game {index}: action {at} ({code:#x}) does not decode")]
    Decode {
        /// The game's index.
        index: u64,
        /// The action's position in the game.
        at: usize,
        /// Its logged code.
        code: u32,
    },
    /// A logged action is not legal where the log puts it.
    #[error("game {index}: action {at} does not replay: {reason}")]
    Illegal {
        /// The game's index.
        index: u64,
        /// The action's position in the game.
        at: usize,
        /// What the rules said.
        reason: String,
    },
    /// The text could not be written.
    #[error("cannot write the replay: {0}")]
    Write(std::io::Error),
}

/// Builds the replay of `rec` (a game of the run `header` heads) as `seat` saw it, or as a
/// spectator (`seat` = `None`): deals the game again from its seed and applies the logged
/// actions one by one.
pub fn replay_doc<G: TableView>(
    header: &LogHeader,
    rec: &GameRecord,
    seat: Option<u8>,
) -> Result<ReplayDoc, ReplayError> {
    let opts =
        G::Options::from_pairs(&header.options).map_err(|e| ReplayError::Options(e.to_string()))?;
    let mut game = G::new(&opts, rec.seed).map_err(|e| ReplayError::Deal {
        index: rec.index,
        reason: e.to_string(),
    })?;
    let n = game.num_players();
    if let Some(s) = seat
        && usize::from(s) >= n
    {
        return Err(ReplayError::Seat {
            seat: s,
            index: rec.index,
            last: n.saturating_sub(1),
        });
    }
    let sees = |vis: Visibility| match seat {
        None => vis.is_public(),
        Some(s) => vis.visible_to(s),
    };
    // A spectator's table is built from seat 0's observation; `TableView` keeps only what
    // every seat sees.
    let table = |game: &G| {
        let mut t = G::table_view(&game.observe(seat.unwrap_or(0)), seat);
        t.to_act = game.to_act();
        t
    };
    let mut shown = 0;
    let mut new_events = |game: &G| {
        let events: Vec<String> = game.events()[shown..]
            .iter()
            .filter(|e| sees(e.vis))
            .map(|e| e.event.to_string())
            .collect();
        shown = game.events().len();
        events
    };
    let mut steps = vec![Step {
        actor: None,
        action: None,
        events: new_events(&game),
        faults: Vec::new(),
        table: table(&game),
    }];
    // The step each of the viewing seat's decisions led to, for placing its log lines: the
    // agent is asked only when it has more than one legal action.
    let mut decided_at: Vec<usize> = Vec::new();
    let mut legal = Vec::new();
    for (i, code) in rec.actions.iter().enumerate() {
        let Some(action) = G::decode_action(*code) else {
            return Err(ReplayError::Decode {
                index: rec.index,
                at: i,
                code: *code,
            });
        };
        let actor = game.to_act();
        if seat.is_some() && actor == seat {
            game.legal_actions(&mut legal);
            if legal.len() > 1 {
                decided_at.push(i + 1);
            }
        }
        game.apply(action).map_err(|e| ReplayError::Illegal {
            index: rec.index,
            at: i,
            reason: e.to_string(),
        })?;
        steps.push(Step {
            actor,
            action: Some(action.to_string()),
            events: new_events(&game),
            faults: Vec::new(),
            table: table(&game),
        });
    }
    let last = steps.len() - 1;
    for f in &rec.faults {
        // `at` is the number of actions applied when the fault happened: the step it
        // interrupted. A log may come from anywhere, so an `at` past the end is clamped.
        steps[f.at.min(last)].faults.push(ReplayFault {
            seat: f.seat,
            verdict: f.verdict.to_string(),
            message: (seat == Some(f.seat)).then(|| escape(&f.message)),
        });
    }
    let log = match seat {
        None => Vec::new(),
        Some(s) => rec
            .logs
            .iter()
            .filter(|(ls, _)| *ls == s)
            .flat_map(|(_, lines)| lines)
            .map(|l| ReplayLogLine {
                step: l.at.map(|k| match k {
                    0 => 0,
                    // A line of a decision that applied no action (the agent faulted and
                    // the game ended) belongs to the last step.
                    k => decided_at.get(k as usize - 1).copied().unwrap_or(last),
                }),
                level: escape(&l.level),
                text: escape(&l.text),
            })
            .collect(),
    };
    Ok(ReplayDoc {
        game: header.game,
        rules: header.rules.clone(),
        options: header.options.clone(),
        index: rec.index,
        deal: rec.deal,
        seed: rec.seed,
        players: (0..n)
            .map(|s| {
                let name = rec.seats.get(s).and_then(|e| header.agents.get(*e));
                escape(name.map(String::as_str).unwrap_or("?"))
            })
            .collect(),
        teams: rec.teams.clone(),
        viewer: seat,
        result: ReplayResult {
            summary: escape(&rec.summary),
            results: rec.results.clone(),
            scores: rec.scores.clone(),
            aborted: rec.aborted,
            forfeit: rec.forfeit,
        },
        steps,
        log,
    })
}

/// Writes a document as the text `croupier replay` prints: the header, each step's events
/// and faults, and the result.
pub fn write_text(doc: &ReplayDoc, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({}) · game {} · deal {} · seed {}",
        doc.game, doc.rules, doc.index, doc.deal, doc.seed
    )?;
    for (s, name) in doc.players.iter().enumerate() {
        writeln!(out, "  P{s}: {name}")?;
    }
    for step in &doc.steps {
        for e in &step.events {
            writeln!(out, "  {e}")?;
        }
        for f in &step.faults {
            match &f.message {
                Some(m) => writeln!(out, "  ! P{} fault {}: {m}", f.seat, f.verdict)?,
                None => writeln!(out, "  ! P{} fault {}", f.seat, f.verdict)?,
            }
        }
    }
    writeln!(out, "result: {}", doc.result.summary)?;
    Ok(())
}

/// Where a page finds the viewer's script and style sheet.
#[derive(Clone, Copy, Debug)]
pub enum Assets<'a> {
    /// Inlined: one self-contained file (`croupier replay --html`).
    Inline,
    /// Linked, for a server that sends them itself under a strict Content-Security-Policy.
    Linked {
        /// The script's URL, e.g. `/static/viewer.js`.
        js: &'a str,
        /// The style sheet's URL, e.g. `/static/viewer.css`.
        css: &'a str,
    },
}

/// Text made safe inside HTML text and double-quoted attributes.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A document as JSON that can sit inside a `<script>` element: `<`, `>` and `&` are
/// written as JSON escapes, so no text in it (an agent named `</script>`) can end the
/// element or open a comment. `JSON.parse` reads the escapes back as the same characters.
pub fn doc_json(doc: &ReplayDoc) -> serde_json::Result<String> {
    let json = serde_json::to_string(doc)?;
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            // Line and paragraph separators are legal in JSON but not in older script
            // parsers; escaped, they cannot matter anywhere.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A complete HTML page that shows `doc` in the viewer, its script and style inlined or
/// linked as `assets` says. The document is embedded as JSON in
/// `<script type="application/json" id="replay-doc">`; nothing from it is written as HTML.
pub fn replay_html(doc: &ReplayDoc, assets: Assets<'_>) -> serde_json::Result<String> {
    let json = doc_json(doc)?;
    let title = html_escape(&format!(
        "{} game {} · croupier replay",
        doc.game, doc.index
    ));
    let (head, tail) = match assets {
        Assets::Inline => (
            format!("<style>\n{VIEWER_CSS}\n</style>"),
            format!("<script>\n{VIEWER_JS}\n</script>"),
        ),
        Assets::Linked { js, css } => (
            format!("<link rel=\"stylesheet\" href=\"{}\">", html_escape(css)),
            format!("<script src=\"{}\"></script>", html_escape(js)),
        ),
    };
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n{head}\n</head>\n<body>\n\
         <main id=\"replay\"><noscript>This replay needs JavaScript.</noscript></main>\n\
         <script type=\"application/json\" id=\"replay-doc\">{json}</script>\n{tail}\n\
         </body>\n</html>\n"
    ))
}

/// `croupier replay`: one logged game move by move, as a spectator (or one seat) saw it,
/// as text. The same document as the browser viewer's ([`replay_doc`]), so
/// the two cannot disagree about what a viewer may see.
pub fn replay<G: TableView>(
    header: &LogHeader,
    rec: &GameRecord,
    seat: Option<u8>,
    out: &mut dyn Write,
) -> Result<(), ReplayError> {
    let doc = replay_doc::<G>(header, rec, seat)?;
    write_text(&doc, out).map_err(ReplayError::Write)
}
