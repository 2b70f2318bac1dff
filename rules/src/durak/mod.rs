//! durak (placeholder while the engine is written).
mod types;
pub use types::*;
