//! Toepen ↔ `croupier:agent/toepen`, in every contract version that has it.

use crate::kind::GameKind;
use croupier_rules::toepen::Toepen;

super::adapter!(
    Toepen,
    GameKind::Toepen,
    toepen,
    ToepenPre,
    ToepenBindings,
    ToepenScratch,
    [V0_1 => v0_1, V0_2 => v0_2, V0_3 => v0_3]
);
