//! What the libraries report, shown: the arena's server, workers and finals report through
//! `tracing` events and never print (a library that prints cannot be embedded), and this
//! binary writes those events to stderr, one line each, as the message alone, so that an
//! organiser reads what the server said before (`arena: …`, `arena worker box1: …`).
//!
//! Shown: Croupier's own events at INFO and above (`CROUPIER_LOG=debug` adds DEBUG, `warn`
//! keeps only warnings and errors), and other crates' errors only: sqlx, hyper and wasmtime
//! report at their own levels, and their debug lines would drown the arena's. A small
//! subscriber of our own rather than `tracing-subscriber`: one format, no spans, and one
//! crate less to build.

use std::io::Write;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata};

/// Installs the subscriber for the whole process. Called once, first thing in `main`.
pub fn show_on_stderr() {
    let own = match std::env::var("CROUPIER_LOG").ok().as_deref() {
        Some("trace") => Level::TRACE,
        Some("debug") => Level::DEBUG,
        Some("warn") => Level::WARN,
        Some("error") => Level::ERROR,
        _ => Level::INFO,
    };
    // Fails only if one is installed already; then that one shows the events.
    let _ = tracing::subscriber::set_global_default(Stderr { own });
}

struct Stderr {
    own: Level,
}

impl Stderr {
    fn shows(&self, meta: &Metadata<'_>) -> bool {
        // A lower level is more verbose: TRACE > DEBUG > INFO > WARN > ERROR in `tracing`.
        if meta.target().starts_with("croupier") {
            *meta.level() <= self.own
        } else {
            *meta.level() == Level::ERROR
        }
    }
}

impl tracing::Subscriber for Stderr {
    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        self.shows(meta)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // Spans are not shown; every one gets the same id.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line::default();
        event.record(&mut line);
        if !event.metadata().target().starts_with("croupier") {
            line.text
                .insert_str(0, &format!("{}: ", event.metadata().target()));
        }
        // One write per line, so that lines of two threads never interleave.
        line.text.push('\n');
        let _ = std::io::stderr().lock().write_all(line.text.as_bytes());
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// An event's message, then its other fields as ` name=value`.
#[derive(Default)]
struct Line {
    text: String,
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.text.insert_str(0, &format!("{value:?}"));
        } else {
            self.text.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.text.insert_str(0, value);
        } else {
            self.text.push_str(&format!(" {}={value}", field.name()));
        }
    }
}
