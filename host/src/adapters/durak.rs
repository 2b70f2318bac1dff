//! Durak ↔ `croupier:agent/durak`, in every contract version that has it.

use crate::kind::GameKind;
use croupier_rules::durak::Durak;

super::adapter!(
    Durak,
    GameKind::Durak,
    durak,
    DurakPre,
    DurakBindings,
    DurakScratch,
    [V0_1 => v0_1, V0_2 => v0_2, V0_3 => v0_3]
);
