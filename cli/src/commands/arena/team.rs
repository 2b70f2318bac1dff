//! `croupier arena team`: add a team or a class, give a team a new token, withdraw and
//! reinstate it, list the teams.

use super::common::{Place, TokenFor, add_with_token, new_token, tokio};
use anyhow::Result;
use clap::Subcommand;
use croupier_arena::web::manage;
use std::path::PathBuf;

/// Teams: `team add DIR NAME` prints the new team's token once; `team import DIR
/// CLASS.csv --tokens FILE` adds a whole class.
#[derive(Subcommand)]
pub enum TeamSub {
    /// Add a team; prints its token once (only a hash is stored).
    Add {
        #[command(flatten)]
        at: Place,
        /// The team's name.
        name: String,
    },
    /// Give the team a new token, printed once; the old one stops working at once (when
    /// one leaked).
    Token {
        #[command(flatten)]
        at: Place,
        /// The team's name.
        name: String,
    },
    /// Take a team out of the ladder (it left the course, or is disqualified): it plays no
    /// new games, leaves the ranking and the final, and its uploads are refused. Its games
    /// stay. A running server sees it within a second.
    Withdraw {
        #[command(flatten)]
        at: Place,
        /// The team's name.
        name: String,
        /// Why, shown on the leaderboard and the team's page.
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Put a withdrawn team back in the ladder, with the rating it had.
    Reinstate {
        #[command(flatten)]
        at: Place,
        /// The team's name.
        name: String,
    },
    /// Add a whole class from a CSV file (the team's name first; other columns are kept):
    /// every line is checked first, and each new token goes to the file --tokens names
    /// (made new, readable by you only). Nothing is added if any line is wrong.
    Import {
        #[command(flatten)]
        at: Place,
        /// The class list (CSV; a first row starting `team` or `name` is a header).
        class: PathBuf,
        /// Where to write each team's token (must not exist yet).
        #[arg(long)]
        tokens: PathBuf,
    },
    /// List the teams, and which are withdrawn.
    List {
        #[command(flatten)]
        at: Place,
    },
}

impl TeamSub {
    /// Runs the subcommand.
    pub fn execute(&self) -> Result<()> {
        match self {
            TeamSub::Add { at, name } => add_with_token(at, name, TokenFor::Team),
            TeamSub::Token { at, name } => new_token(at, name, TokenFor::Team),
            TeamSub::Withdraw { at, name, reason } => standing(at, name, Some(reason)),
            TeamSub::Reinstate { at, name } => standing(at, name, None),
            TeamSub::Import { at, class, tokens } => {
                tokio()?.block_on(super::import::import(at, class, tokens))
            }
            TeamSub::List { at } => list(at),
        }
    }
}

/// `arena team list`: each team's id, name and standing, one per line.
fn list(at: &Place) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        for t in arena.db.teams().await? {
            let standing = match &t.withdrawn {
                None => "plays".to_string(),
                Some(why) if why.is_empty() => "withdrawn".into(),
                Some(why) => format!("withdrawn: {}", croupier_host::text::escape(why)),
            };
            println!(
                "{}\t{}\t{standing}",
                t.id,
                croupier_host::text::escape(&t.name)
            );
        }
        arena.db.close().await;
        Ok(())
    })
}

/// `arena team withdraw` (`reason` given) and `arena team reinstate` (`None`).
fn standing(at: &Place, name: &str, reason: Option<&str>) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let t = async {
            let id = manage::team_named(&arena, name).await?;
            match reason {
                Some(why) => manage::withdraw_team(&arena, id, why).await,
                None => manage::reinstate_team(&arena, id).await,
            }
        }
        .await
        .map_err(|e| anyhow::anyhow!("{}: {e}", at.dir.display()))?;
        let says = match t.withdrawn {
            Some(_) => "withdrawn: it plays no new games, leaves the ranking and takes no uploads",
            None => "is back in the ladder",
        };
        println!(
            "team {} `{}` {says}",
            t.id,
            croupier_host::text::escape(&t.name)
        );
        arena.db.close().await;
        Ok(())
    })
}
