//! What the three scenario files share: the check that every refusal reason has a scenario
//! asserting it by name.

use std::collections::HashSet;
use std::fmt::Debug;

/// The variant's name, from its `Debug` text (`NoSlot(1)` → `NoSlot`,
/// `MaxStake { stake: 3 }` → `MaxStake`).
pub fn variant<W: Debug>(why: &W) -> String {
    format!("{why:?}")
        .chars()
        .take_while(|ch| ch.is_ascii_alphanumeric())
        .collect()
}

/// Each sample's scenario (`scenario_of`) is a `#[test]` in `src` whose body names the
/// variant as `Why::<Variant>`; the samples are one per variant and as many as `src`'s
/// `scenario_of` has arms.
pub fn check_scenarios<W: Debug + Copy>(
    src: &str,
    one_of_each: &[W],
    scenario_of: fn(W) -> &'static str,
) {
    let mut seen = HashSet::new();
    for why in one_of_each {
        let v = variant(why);
        assert!(seen.insert(v.clone()), "{v} is listed twice");
        let name = scenario_of(*why);
        let head = format!("#[test]\nfn {name}() {{\n");
        let start = src
            .find(&head)
            .unwrap_or_else(|| panic!("no test `{name}` for {v}"));
        let body = &src[start..];
        let body = &body[..body.find("\n}\n").unwrap()];
        assert!(
            body.contains(&format!("Why::{v}")),
            "`{name}` does not assert Why::{v} by name"
        );
    }
    let arms = src
        .split("fn scenario_of(")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with("Why::"))
        .count();
    assert_eq!(seen.len(), arms, "one sample per arm of `scenario_of`");
}
