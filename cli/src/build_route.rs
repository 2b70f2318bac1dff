//! Which route builds each agent folder, and every example folder of this source tree: the
//! one module that knows every language. It sits above the routes (`componentize` for Rust
//! and Python and the parts they share, `c_agent`, `js_agent`), so that none of them
//! imports another's caller.

use crate::componentize::{self, Built, COMPONENTIZE_PY};
use crate::{c_agent, js_agent};
use anyhow::Result;
use std::path::{Path, PathBuf};

/// Builds Rust crates and Python, C, JavaScript and TypeScript agents alike.
pub fn build_any(
    dirs: &[PathBuf],
    out: Option<&Path>,
    verbose: bool,
    skip_python_if_missing: bool,
) -> Result<Vec<Built>> {
    let mut rust = Vec::new();
    let mut built = Vec::new();
    let mut python = Vec::new();
    let mut c = Vec::new();
    let mut js = Vec::new();
    for d in dirs {
        if let Some(a) = c_agent::read_c(d)? {
            c.push(a);
            continue;
        }
        if let Some(a) = js_agent::read_js(d)? {
            js.push(a);
            continue;
        }
        match componentize::read_python(d)? {
            Some(p) => python.push(p),
            None => rust.push(d.clone()),
        }
    }
    if !rust.is_empty() {
        built.extend(componentize::build(&rust, out, verbose)?);
    }
    let default = out
        .map(Path::to_path_buf)
        .unwrap_or_else(componentize::default_out);
    // As for Python: building every example tolerates missing C tools, naming one does not.
    let c_missing = c_agent::missing_tools();
    if !c.is_empty() && skip_python_if_missing && !c_missing.is_empty() {
        eprintln!(
            "warning: skipping {} C agent(s): missing {} (install: {}; or scripts/setup.sh --all)",
            c.len(),
            c_missing.iter().map(|m| m.0).collect::<Vec<_>>().join(", "),
            c_agent::APT
        );
    } else {
        for a in &c {
            built.push(c_agent::build_c(a, &default)?);
        }
    }
    // One warning for every skipped JavaScript or TypeScript agent, naming what they lack.
    let mut js_missing: Vec<&str> = Vec::new();
    let mut js_skipped = 0;
    for a in &js {
        let missing = js_agent::missing_for(a);
        if skip_python_if_missing && !missing.is_empty() {
            js_skipped += 1;
            for m in missing {
                if !js_missing.contains(&m) {
                    js_missing.push(m);
                }
            }
        } else {
            built.push(js_agent::build_js(a, &default)?);
        }
    }
    if js_skipped > 0 {
        eprintln!(
            "warning: skipping {js_skipped} JavaScript/TypeScript agent(s): missing {} (install: npm install -g {}; or scripts/setup.sh --all)",
            js_missing.join(", "),
            js_agent::NPM_PACKAGES
        );
    }
    if !python.is_empty() && skip_python_if_missing && !componentize::have_componentize_py() {
        eprintln!(
            "warning: skipping {} Python agent(s): componentize-py is not installed (install: pip install {COMPONENTIZE_PY}; or scripts/setup.sh --all)",
            python.len()
        );
        return Ok(built);
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(componentize::default_out);
    for p in &python {
        built.push(componentize::build_python(p, &out)?);
    }
    Ok(built)
}

/// Every crate directory under `example-agents/` of this source tree, then every Python
/// agent under `python-agents/`, then every C agent under `c-agents/`, then every
/// JavaScript and TypeScript agent under `js-agents/`.
pub fn example_dirs() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = componentize::sorted_dirs(
        &here.join("../example-agents"),
        componentize::is_agent_crate,
    );
    dirs.extend(componentize::sorted_dirs(
        &here.join("../python-agents"),
        |p| p.join("agent.toml").is_file(),
    ));
    dirs.extend(c_agent::example_dirs());
    dirs.extend(js_agent::example_dirs());
    dirs
}
