//! `toepen/policy`: the template of an exported toepen policy (`croupier policy export`, sdk's
//! `policy` module). Without a network embedded it plays its first legal action.

/// The agent.
pub type Policy = croupier_sdk::policy::Policy<croupier_sdk::rules::toepen::Toepen>;

croupier_sdk::export_toepen!(Policy);
