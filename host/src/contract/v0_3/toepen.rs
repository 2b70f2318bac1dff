//! Toepen in contract 0.3.0: the observation in the rules crate's wire format.

super::glue!(
    toepen,
    toepen_types,
    Toepen,
    ToepenPre,
    croupier_agent_toepen_agent
);
