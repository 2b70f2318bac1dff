//! Durak in contract 0.3.0: the observation in the rules crate's wire format.

super::glue!(
    durak,
    durak_types,
    Durak,
    DurakPre,
    croupier_agent_durak_agent
);
