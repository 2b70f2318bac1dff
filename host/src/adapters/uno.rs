//! UNO ↔ `croupier:agent/uno`, in every contract version that has it.

use crate::kind::GameKind;
use croupier_rules::uno::Uno;

super::adapter!(
    Uno,
    GameKind::Uno,
    uno,
    UnoPre,
    UnoBindings,
    UnoScratch,
    [V0_1 => v0_1, V0_2 => v0_2, V0_3 => v0_3]
);
