//! What faces the network: the router, the pages, the JSON API, the worker API, sign-in
//! and sessions, and the one place errors become responses. Handlers stay thin: they
//! check who asks and what, and hand the work to [`manage`] (uploads, spars, withdrawals)
//! or read it through [`views`]. This wing imports the queue and the store; neither
//! imports it.

pub mod api;
pub mod errors;
pub mod export;
pub mod identity;
pub mod manage;
pub mod pages;
pub mod play;
pub mod play_local;
pub mod request_limits;
pub mod server;
pub mod session;
pub mod views;
pub mod worker_api;
