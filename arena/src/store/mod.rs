//! What is kept: the database ([`db`]), the agent files stored by their SHA-256
//! ([`agents`]), and the storage budget that bounds what the database keeps of games
//! ([`storage`]). This wing imports neither the queue nor the web.

pub mod agents;
pub mod db;
pub mod storage;
