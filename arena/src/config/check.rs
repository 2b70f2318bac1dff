//! The checks of `arena.toml` that its types alone do not make: each names the file and
//! the field, and says what would be accepted.

use super::time::rfc3339_ms;
use super::{ArenaConfig, ConfigError, RATING_SYSTEMS};
use croupier_host::kind::GameKind;
use std::path::Path;

impl ArenaConfig {
    /// Every field that the types alone do not check.
    pub fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let field = |field: &str, reason: String| ConfigError::Field {
            path: path.to_path_buf(),
            field: field.into(),
            reason,
        };
        let Some(kind) = GameKind::parse(&self.game) else {
            return Err(field(
                "game",
                format!(
                    "unknown game `{}`; known games: {}",
                    self.game,
                    GameKind::ALL.map(GameKind::name).join(", ")
                ),
            ));
        };
        croupier_tournament::with_game!(kind, G => {
            croupier_tournament::matches::setup::options::<G>(&self.rules_args())
                .map_err(|e| field("rules", e.to_string()))?;
        });
        if let Some((name, why)) = self.limits.problem() {
            return Err(field(&format!("limits.{name}"), format!("is {why}")));
        }
        if self.ladder.deals == 0 {
            return Err(field("ladder.deals", "must be at least 1".into()));
        }
        if self.ladder.smoke_deals == 0 {
            return Err(field("ladder.smoke_deals", "must be at least 1".into()));
        }
        if self.ladder.lease_seconds < 3 {
            return Err(field(
                "ladder.lease_seconds",
                "must be at least 3 (a worker beats every third of it)".into(),
            ));
        }
        if self.ladder.checkpoint_seconds == 0 {
            return Err(field(
                "ladder.checkpoint_seconds",
                "must be at least 1".into(),
            ));
        }
        if !RATING_SYSTEMS.contains(&self.ladder.rating.as_str()) {
            return Err(field(
                "ladder.rating",
                format!(
                    "`{}` is not a rating system the arena has ({}); Weng-Lin is the one that rates two seats, four seats and 2 v 2 teams alike, and TrueSkill is patented",
                    self.ladder.rating,
                    RATING_SYSTEMS.join(", ")
                ),
            ));
        }
        if !(self.ladder.tau.is_finite() && self.ladder.tau >= 0.0) {
            return Err(field("ladder.tau", "must be a number ≥ 0".into()));
        }
        if self.uploads.max_bytes == 0 || self.uploads.max_bytes > self.limits.max_file_bytes {
            return Err(field(
                "uploads.max_bytes",
                format!(
                    "must be between 1 and limits.max_file_bytes ({})",
                    self.limits.max_file_bytes
                ),
            ));
        }
        if self.uploads.idle_seconds == 0 {
            return Err(field("uploads.idle_seconds", "must be at least 1".into()));
        }
        if let Some(d) = &self.final_.deadline
            && rfc3339_ms(d).is_none()
        {
            return Err(field(
                "final.deadline",
                format!(
                    "`{d}` is not an RFC 3339 time with its offset, e.g. 2026-12-18T23:59:00+01:00"
                ),
            ));
        }
        if self.security.refused_tokens_per_minute == 0 {
            return Err(field(
                "security.refused_tokens_per_minute",
                "must be at least 1".into(),
            ));
        }
        if self.uploads.in_flight == 0 {
            return Err(field("uploads.in_flight", "must be at least 1".into()));
        }
        if self.uploads.per_hour == 0 {
            return Err(field("uploads.per_hour", "must be at least 1".into()));
        }
        if self.storage.budget_mb == 0 {
            return Err(field("storage.budget_mb", "must be at least 1".into()));
        }
        if self.storage.prune_seconds == 0 {
            return Err(field("storage.prune_seconds", "must be at least 1".into()));
        }
        if self.storage.keep_one_in == 0 {
            return Err(field(
                "storage.keep_one_in",
                "must be at least 1 (1 keeps every match's replays)".into(),
            ));
        }
        croupier_host::registry::resolve(&self.ladder.reference)
            .map_err(|e| field("ladder.reference", e.to_string()))?;
        if self.spar.per_hour == 0 {
            return Err(field(
                "spar.per_hour",
                "must be at least 1 (leave sparring out of the config for the default)".into(),
            ));
        }
        if self.spar.deals == 0 {
            return Err(field("spar.deals", "must be at least 1".into()));
        }
        for name in &self.spar.house {
            croupier_host::registry::resolve(name)
                .map_err(|e| field("spar.house", e.to_string()))?;
            if let Some(why) = self.other_game(name) {
                return Err(field("spar.house", why));
            }
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut seen = std::collections::HashSet::new();
        for name in &self.bosses.agents {
            if !seen.insert(name) {
                return Err(field("bosses.agents", format!("`{name}` is listed twice")));
            }
            super::Bosses::path(dir, name).map_err(|e| field("bosses.agents", e))?;
            if !name.ends_with(".wasm")
                && let Some(why) = self.other_game(name)
            {
                return Err(field("bosses.agents", why));
            }
        }
        if self.bosses.deals == 0 {
            return Err(field("bosses.deals", "must be at least 1".into()));
        }
        if self.bosses.first == 0 {
            return Err(field(
                "bosses.first",
                "must be at least 1 (leave `agents` empty for no bosses)".into(),
            ));
        }
        if !(self.bosses.share.is_finite() && (0.0..=1.0).contains(&self.bosses.share)) {
            return Err(field(
                "bosses.share",
                "must be a number from 0 to 1 (a share of a version's rated games)".into(),
            ));
        }
        for (name, value) in [
            ("play.games", self.play.games),
            ("play.per_team", self.play.per_team),
            ("play.turn_seconds", self.play.turn_seconds),
            ("play.left_seconds", self.play.left_seconds),
        ] {
            if value == 0 {
                return Err(field(name, "must be at least 1".into()));
            }
        }
        if self.listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(field(
                "listen",
                format!("`{}` is not an address like 127.0.0.1:8080", self.listen),
            ));
        }
        Ok(())
    }

    /// Why example agent `name` cannot play here: its name starts with another game's.
    fn other_game(&self, name: &str) -> Option<String> {
        let (game, _) = name.split_once('/')?;
        GameKind::parse(game)
            .is_some_and(|g| g != self.kind())
            .then(|| {
                format!(
                    "`{name}` is a {game} agent, and this arena plays {}",
                    self.game
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memory limit past a 32-bit memory's range (or of zero) is refused by its field, not
    /// when the engine would reserve it.
    #[test]
    fn a_memory_limit_out_of_range_is_refused_by_name() {
        let path = Path::new("/arenas/course/arena.toml");
        for mib in [0, 4097] {
            let mut cfg = ArenaConfig::new(GameKind::Durak, "teams");
            cfg.limits.memory_mib = mib;
            let e = cfg.check(path).expect_err("refused").to_string();
            assert!(e.contains("limits.memory_mib") && e.contains("4096"), "{e}");
        }
    }
}
