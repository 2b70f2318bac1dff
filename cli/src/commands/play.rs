//! `croupier play`: play a game yourself against agents, in the terminal, or with `--web` in
//! the browser from a server on this machine (the arena's `/play` page, without an arena).

use super::{RulesFlags, game, with_game};
use crate::human_seat::play;
use anyhow::Result;
use clap::Args;
use croupier_host::limits::Limits;

/// Play a game yourself against agents, in the terminal or (--web) in the browser.
#[derive(Args)]
pub struct PlayCommand {
    /// durak, toepen or uno.
    game: String,
    /// Agents for the other seats (they repeat in turn to fill the table). With --web, the
    /// agents the page offers for each seat (default: every built example agent of the game).
    #[arg(long = "vs", required_unless_present = "web", num_args = 1.., value_name = "AGENT")]
    vs: Vec<String>,
    #[command(flatten)]
    rules: RulesFlags,
    /// Your seat.
    #[arg(long, default_value_t = 0, conflicts_with = "web")]
    seat: u8,
    /// Seed of the deal (default: from the clock).
    #[arg(long, conflicts_with = "web")]
    seed: Option<u64>,
    /// Play in the browser: serve the play page on this machine, print its address, and stop
    /// on Ctrl-C or the page's "quit".
    #[arg(long)]
    web: bool,
    /// With --web: the address to listen on (port 0: any free port). Loopback only.
    #[arg(long, default_value = "127.0.0.1:0", requires = "web")]
    listen: String,
}

impl PlayCommand {
    /// Deals and plays one game at the terminal, or serves the play page.
    pub fn execute(&self) -> Result<()> {
        if self.web {
            return self.web();
        }
        let host = super::runtime(Limits::default(), true)?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs())
        });
        let r = self.rules.args();
        let mut input = std::io::stdin().lock();
        let mut out = std::io::stdout().lock();
        let (vs, seat) = (&self.vs, self.seat);
        with_game!(game(&self.game)?, G => play::<G>(&host, &r, vs, seat, seed, &mut input, &mut out))
    }

    #[cfg(not(feature = "arena"))]
    fn web(&self) -> Result<()> {
        anyhow::bail!(crate::errors::user(
            "croupier play --web serves the arena's play page, and this croupier was built without the arena; `cargo build --release -p croupier-cli` adds it"
        ))
    }

    #[cfg(feature = "arena")]
    fn web(&self) -> Result<()> {
        use croupier_arena::play::Bounds;
        use croupier_arena::web::play_local::{LocalSetup, serve};
        use std::io::Write;
        let kind = game(&self.game)?;
        let rules = self.rules.args();
        // The options are checked before anything is served, so a bad flag is said here.
        with_game!(kind, G => croupier_tournament::matches::setup::options::<G>(&rules).map(|_| ()))
            .map_err(crate::errors::of_options)?;
        let agents: Vec<String> = if self.vs.is_empty() {
            croupier_host::registry::examples()
                .into_iter()
                .filter(|e| e.game == kind)
                .map(|e| e.name)
                .collect()
        } else {
            self.vs.clone()
        };
        if agents.is_empty() {
            anyhow::bail!(crate::errors::user(format!(
                "no {} agent to play against: name some with --vs, or build the example agents (`croupier build`)",
                kind.name()
            )));
        }
        let limits = Limits::default();
        let host = super::runtime(limits.clone(), true)?;
        // Every agent is loaded once now, so a wrong name is said before the page opens.
        with_game!(kind, G => {
            let (_, opts) = croupier_tournament::matches::setup::options::<G>(&rules).map_err(crate::errors::of_options)?;
            for a in &agents {
                croupier_tournament::matches::setup::entrant::<G>(&host, a, &opts)
                    .map_err(|e| crate::errors::user(format!("--vs {a}: {e}")))?;
            }
        });
        let setup = LocalSetup {
            kind,
            rules,
            limits,
            agents,
            linked: std::sync::Arc::new(croupier_arena::linked::Linked::new(host)),
            bounds: Bounds::from(&croupier_arena::config::Play::default()),
        };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        rt.block_on(serve(setup, &self.listen, |addr| {
            println!("play at http://{addr}/play (Ctrl-C or the page's quit button stops it)");
            let _ = std::io::stdout().flush();
        }))
    }
}
