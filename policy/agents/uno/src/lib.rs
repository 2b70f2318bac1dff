//! `uno/policy`: the template of an exported uno policy (`croupier policy export`, sdk's
//! `policy` module). Without a network embedded it plays its first legal action.

/// The agent.
pub type Policy = croupier_sdk::policy::Policy<croupier_sdk::rules::uno::Uno>;

croupier_sdk::export_uno!(Policy);
