//! Tests that need a tool from outside Rust (componentize-py, node and npm packages, clang,
//! PostgreSQL, Chromium) FAIL when it is missing, naming it and how to install it: a test
//! that did not run must not count as passed. `CROUPIER_REQUIRE_<X>=0` skips them on purpose,
//! and each says loudly on stderr that it did not run.

use std::ffi::OsStr;

/// Whether a missing tool fails the test: always, unless the variable is exactly `0`.
pub fn required(var: Option<&OsStr>) -> bool {
    var.is_none_or(|v| v != "0")
}

/// True when nothing is missing (`missing` is `None`). Otherwise panics with the message,
/// or, when `$var` is `0`, says that `what` did NOT run and returns false.
pub fn or_skip(var: &str, missing: Option<String>, what: &str) -> bool {
    let Some(missing) = missing else {
        return true;
    };
    let msg = format!("{missing}, so {what} cannot run");
    if required(std::env::var_os(var).as_deref()) {
        panic!("{msg}; to skip it on purpose set {var}=0");
    }
    eprintln!("SKIPPED ({var}=0): {msg}. {what} did NOT run.");
    false
}
