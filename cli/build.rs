//! Nothing to build: this script exists so that `[build-dependencies]` in Cargo.toml can turn
//! on the features the arena's proc macros turn on in crates they share with the rest, so that
//! a build without the arena and one with it compile those crates, and wasmtime above them,
//! once (scripts/same-features.sh checks it).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
