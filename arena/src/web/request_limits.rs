//! The bounds every request but an upload is held to, in one leaf module: the router
//! ([`crate::web::server`]) applies them, and the session check ([`crate::web::session`]), which reads a
//! form before any handler does, keeps to the same ones.

/// The body cap of every route but the uploads: forms and JSON are small.
pub const SMALL_BODY: usize = 64 << 10;

/// How long any request but an upload may take before it gets 408: far above the worker
/// lease's long poll ([`crate::web::worker_api::LONG_POLL`]) and any page, and a bound on what a client
/// that never finishes its request can hold. Uploads are bounded instead by
/// `uploads.idle_seconds` while their body arrives, then by the loader's compile limits and
/// the smoke match's budget: a deadline there would abort a validation half-way.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
