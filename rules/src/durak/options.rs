//! Durak options, presets and their validation (docs/rules/durak.md#options).

use super::types::*;
use crate::cards::{CardSet, Seat};
use crate::game::{
    ConfigError, Preset, Rules, find_preset, parse_bool, parse_choice, parse_num, parse_opt_num,
};

/// The presets of docs/rules/durak.md#options; the first is the default.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "classic",
        rulebook: "durak_classic(n)",
        summary: "Podkidnoy (throw-in) Durak, 36 cards, individual play; 2 players = source B",
    },
    Preset {
        name: "perevodnoy",
        rulebook: "durak_perevodnoy(n)",
        summary: "Perevodnoy (transfer) Durak, 36 cards, individual play",
    },
    Preset {
        name: "teams",
        rulebook: "durak_teams()",
        summary: "2 v 2 partnership Durak with transfer, 52 cards (source A)",
    },
];

/// Every option name `set_option` knows, in `option_pairs` order.
pub const OPTION_NAMES: &[&str] = &[
    "deck",
    "num_players",
    "hand_size",
    "teams",
    "transfer",
    "transfer_by_showing_trump",
    "no_transfer_in_first_bout",
    "multi_card_lead",
    "bout_cap",
    "first_bout_cap",
    "throw_in_by",
    "throw_in_after_take",
    "first_attacker",
    "no_trump_fallback",
    "reveal_lowest_trump",
    "refill_start",
    "team_exit_rule",
    "dealer",
    "max_bouts",
];

impl Deck {
    /// Lowest rank of this deck (ranks run up to the ace, 14).
    pub const fn low_rank(self) -> u8 {
        match self {
            Deck::Deck24 => 9,
            Deck::Deck36 => 6,
            Deck::Deck52 => 2,
        }
    }
    /// Number of cards.
    pub const fn size(self) -> usize {
        (15 - self.low_rank() as usize) * 4
    }
    /// Every card of the deck.
    pub fn cards(self) -> CardSet {
        CardSet::ranks(self.low_rank()..=14)
    }
    /// Largest number of players docs/rules/durak.md#options allows with this deck.
    pub const fn max_players(self) -> u8 {
        match self {
            Deck::Deck24 => 4,
            Deck::Deck36 => 6,
            Deck::Deck52 => 8,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Deck::Deck24 => "Deck24",
            Deck::Deck36 => "Deck36",
            Deck::Deck52 => "Deck52",
        }
    }
}

impl Options {
    /// `durak_classic(n)`: all defaults (Podkidnoy, 36 cards, individual play).
    pub fn classic(n: u8) -> Options {
        Options {
            deck: Deck::Deck36,
            num_players: n,
            hand_size: 6,
            teams: Teams::None,
            transfer: false,
            transfer_by_showing_trump: false,
            no_transfer_in_first_bout: false,
            multi_card_lead: false,
            bout_cap: 6,
            first_bout_cap: None,
            throw_in_by: ThrowInBy::AllOpponents,
            throw_in_after_take: true,
            first_attacker: FirstAttacker::LowestTrump,
            no_trump_fallback: NoTrumpFallback::LeftOfDealer,
            reveal_lowest_trump: true,
            refill_start: RefillStart::FinalAttacker,
            team_exit_rule: TeamExitRule::PartnerProxy,
            dealer: None,
            max_bouts: DEFAULT_MAX_BOUTS,
        }
    }

    /// `durak_perevodnoy(n)`: defaults plus `transfer=true`.
    pub fn perevodnoy(n: u8) -> Options {
        Options {
            transfer: true,
            ..Options::classic(n)
        }
    }

    /// `durak_teams()`: `deck=Deck52, num_players=4, teams=Partnerships, transfer=true` (source A).
    pub fn teams() -> Options {
        Options {
            deck: Deck::Deck52,
            num_players: 4,
            teams: Teams::Partnerships,
            transfer: true,
            ..Options::classic(4)
        }
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::classic(2)
    }
}

fn on_off(b: bool) -> String {
    b.to_string()
}

impl Rules for Options {
    fn presets() -> &'static [Preset] {
        PRESETS
    }

    fn preset(name: &str) -> Result<Options, ConfigError> {
        // `durak_teams()` and `durak_classic(n)` are accepted as written in the rule book:
        // `find_preset` ignores the parentheses and names `name` as given when it fails.
        let idx = find_preset("durak", PRESETS, name)?;
        Ok(match idx {
            0 => Options::classic(2),
            1 => Options::perevodnoy(2),
            _ => Options::teams(),
        })
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let k = crate::game::option_key(key);
        let v = value.trim();
        match k.as_ref() {
            "deck" => {
                self.deck = parse_choice(
                    "deck",
                    v,
                    &[
                        ("Deck36", Deck::Deck36),
                        ("36", Deck::Deck36),
                        ("Deck52", Deck::Deck52),
                        ("52", Deck::Deck52),
                        ("Deck24", Deck::Deck24),
                        ("24", Deck::Deck24),
                    ],
                )?
            }
            "num_players" | "players" => self.num_players = parse_num("num_players", v)?,
            "hand_size" => self.hand_size = parse_num("hand_size", v)?,
            "teams" => {
                self.teams = parse_choice(
                    "teams",
                    v,
                    &[("None", Teams::None), ("Partnerships", Teams::Partnerships)],
                )?
            }
            "transfer" => self.transfer = parse_bool("transfer", v)?,
            "transfer_by_showing_trump" => {
                self.transfer_by_showing_trump = parse_bool("transfer_by_showing_trump", v)?
            }
            "no_transfer_in_first_bout" => {
                self.no_transfer_in_first_bout = parse_bool("no_transfer_in_first_bout", v)?
            }
            "multi_card_lead" => self.multi_card_lead = parse_bool("multi_card_lead", v)?,
            "bout_cap" => self.bout_cap = parse_num("bout_cap", v)?,
            "first_bout_cap" => self.first_bout_cap = parse_opt_num("first_bout_cap", v)?,
            "throw_in_by" => {
                self.throw_in_by = parse_choice(
                    "throw_in_by",
                    v,
                    &[
                        ("AllOpponents", ThrowInBy::AllOpponents),
                        ("Neighbours", ThrowInBy::Neighbours),
                        ("Neighbors", ThrowInBy::Neighbours),
                    ],
                )?
            }
            "throw_in_after_take" => {
                self.throw_in_after_take = parse_bool("throw_in_after_take", v)?
            }
            "first_attacker" => {
                self.first_attacker = parse_choice(
                    "first_attacker",
                    v,
                    &[
                        ("LowestTrump", FirstAttacker::LowestTrump),
                        ("LeftOfDealer", FirstAttacker::LeftOfDealer),
                    ],
                )?
            }
            "no_trump_fallback" => {
                self.no_trump_fallback = parse_choice(
                    "no_trump_fallback",
                    v,
                    &[
                        ("LeftOfDealer", NoTrumpFallback::LeftOfDealer),
                        ("Redeal", NoTrumpFallback::Redeal),
                    ],
                )?
            }
            "reveal_lowest_trump" => {
                self.reveal_lowest_trump = parse_bool("reveal_lowest_trump", v)?
            }
            "refill_start" => {
                self.refill_start = parse_choice(
                    "refill_start",
                    v,
                    &[
                        ("FinalAttacker", RefillStart::FinalAttacker),
                        ("OriginalLeader", RefillStart::OriginalLeader),
                    ],
                )?
            }
            "team_exit_rule" => {
                self.team_exit_rule = parse_choice(
                    "team_exit_rule",
                    v,
                    &[
                        ("PartnerProxy", TeamExitRule::PartnerProxy),
                        ("SkipOut", TeamExitRule::SkipOut),
                    ],
                )?
            }
            "dealer" => self.dealer = parse_opt_num::<Seat>("dealer", v)?,
            "max_bouts" => self.max_bouts = parse_num("max_bouts", v)?,
            _ => {
                return Err(ConfigError::UnknownOption {
                    game: "durak",
                    name: key.to_string(),
                    known: OPTION_NAMES.join(", "),
                });
            }
        }
        Ok(())
    }

    fn option_pairs(&self) -> Vec<(String, String)> {
        let opt = |v: Option<u8>| v.map_or("none".to_string(), |x| x.to_string());
        let vals: Vec<String> = vec![
            self.deck.name().to_string(),
            self.num_players.to_string(),
            self.hand_size.to_string(),
            match self.teams {
                Teams::None => "None",
                Teams::Partnerships => "Partnerships",
            }
            .to_string(),
            on_off(self.transfer),
            on_off(self.transfer_by_showing_trump),
            on_off(self.no_transfer_in_first_bout),
            on_off(self.multi_card_lead),
            self.bout_cap.to_string(),
            opt(self.first_bout_cap),
            match self.throw_in_by {
                ThrowInBy::AllOpponents => "AllOpponents",
                ThrowInBy::Neighbours => "Neighbours",
            }
            .to_string(),
            on_off(self.throw_in_after_take),
            match self.first_attacker {
                FirstAttacker::LowestTrump => "LowestTrump",
                FirstAttacker::LeftOfDealer => "LeftOfDealer",
            }
            .to_string(),
            match self.no_trump_fallback {
                NoTrumpFallback::LeftOfDealer => "LeftOfDealer",
                NoTrumpFallback::Redeal => "Redeal",
            }
            .to_string(),
            on_off(self.reveal_lowest_trump),
            match self.refill_start {
                RefillStart::FinalAttacker => "FinalAttacker",
                RefillStart::OriginalLeader => "OriginalLeader",
            }
            .to_string(),
            match self.team_exit_rule {
                TeamExitRule::PartnerProxy => "PartnerProxy",
                TeamExitRule::SkipOut => "SkipOut",
            }
            .to_string(),
            opt(self.dealer),
            self.max_bouts.to_string(),
        ];
        OPTION_NAMES
            .iter()
            .zip(vals)
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// Rejections of docs/rules/durak.md#options plus everything that would make a game impossible.
    //
    // Decision: `throw_in_by` is ignored (not rejected) with `teams=Partnerships`, where the
    // attacking team always throws in (docs/rules/durak.md#options non-team only);
    // `team_exit_rule` is ignored in individual play. The per-deck player ranges of the
    // docs/rules/durak.md#options table are enforced, and so is `hand_size * num_players <= deck
    // size` (the general form of 6*n <= deck size); caps and `hand_size` must be at least 1.
    fn validate(&self) -> Result<(), ConfigError> {
        let n = self.num_players;
        if n < 2 || n > self.deck.max_players() {
            return Err(ConfigError::invalid(
                "num_players",
                format!(
                    "{n} players with {}: the deck allows 2..={} players",
                    self.deck.name(),
                    self.deck.max_players()
                ),
            ));
        }
        if self.hand_size == 0 {
            return Err(ConfigError::invalid("hand_size", "must be at least 1"));
        }
        if self.hand_size as usize * n as usize > self.deck.size() {
            return Err(ConfigError::invalid(
                "hand_size",
                format!(
                    "{n} hands of {} cards need more than the {} cards of {}",
                    self.hand_size,
                    self.deck.size(),
                    self.deck.name()
                ),
            ));
        }
        if self.teams == Teams::Partnerships && n != 4 && n != 6 {
            return Err(ConfigError::invalid(
                "teams",
                format!("Partnerships needs 4 or 6 players, not {n}"),
            ));
        }
        if self.bout_cap == 0 {
            return Err(ConfigError::invalid("bout_cap", "must be at least 1"));
        }
        if let Some(c) = self.first_bout_cap {
            if c == 0 {
                return Err(ConfigError::invalid("first_bout_cap", "must be at least 1"));
            }
            if c > self.bout_cap {
                return Err(ConfigError::invalid(
                    "first_bout_cap",
                    format!("{c} is larger than bout_cap ({})", self.bout_cap),
                ));
            }
        }
        if self.transfer_by_showing_trump && !self.transfer {
            return Err(ConfigError::invalid(
                "transfer_by_showing_trump",
                "needs transfer=true (it is a way of transferring)",
            ));
        }
        if let Some(d) = self.dealer
            && d >= n
        {
            return Err(ConfigError::invalid(
                "dealer",
                format!("seat {d} does not exist with {n} players"),
            ));
        }
        if self.max_bouts == 0 {
            return Err(ConfigError::invalid("max_bouts", "must be at least 1"));
        }
        Ok(())
    }

    fn seats(&self) -> usize {
        self.num_players as usize
    }

    fn set_players(&mut self, n: usize) -> Result<(), ConfigError> {
        self.num_players = u8::try_from(n).map_err(|_| {
            ConfigError::bad_value("num_players", &n.to_string(), "at most 8 players")
        })?;
        Ok(())
    }
}
