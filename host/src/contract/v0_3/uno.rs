//! UNO in contract 0.3.0: the observation in the rules crate's wire format.

super::glue!(uno, uno_types, Uno, UnoPre, croupier_agent_uno_agent);
