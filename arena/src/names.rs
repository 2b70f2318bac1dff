//! Names and texts the organiser sets that everyone reads: team and worker names, a
//! withdrawal's reason. One normal form for storing and for looking up, the characters that
//! would make two different texts look the same refused, and the key (Unicode TS #39's
//! confusable skeleton) under which two names that read alike are one name.
//!
//! Every table here is Unicode's own, through `unicode-normalization`, `unicode-properties`
//! (general categories) and `unicode-security` (TS #39: identifier types, skeletons, script
//! sets), not a list kept by hand: a hand-kept table of format characters let through the
//! invisible letters that are not format characters (issue #64).

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

/// Text as it is stored and compared: Unicode NFKC (a full-width or ligature spelling is the
/// plain one), trimmed, each run of spaces one space (a page shows a run as one); `None` if
/// it holds an [`invisible`] character.
pub fn shown_text(text: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    let text: String = text.nfkc().collect();
    if text.chars().any(invisible) {
        return None;
    }
    Some(
        text.split(' ')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The first [`invisible`] character of `text` as typed (or, if none, after NFKC: U+3164
/// becomes U+1160), to name in a refusal.
pub fn first_invisible(text: &str) -> Option<char> {
    use unicode_normalization::UnicodeNormalization;
    let invisible = |c: &char| invisible(*c);
    text.chars()
        .find(invisible)
        .or_else(|| text.nfkc().find(invisible))
}

/// A character a reader cannot see or tell from a space, which would make "Al\u{34f}pha"
/// a second "Alpha": any of Unicode's "other" categories (controls, format characters such as
/// zero-width joiners and bidirectional overrides, private use, unassigned), a default
/// ignorable code point (the combining grapheme joiner, the Hangul fillers, variation
/// selectors: letters and marks that draw nothing), any white space but the plain space
/// (NFKC already maps most spaces to it), and any character TS #39 holds confusable with
/// white space (U+2800, the braille blank).
pub fn invisible(c: char) -> bool {
    if c == ' ' {
        return false;
    }
    c.general_category_group() == GeneralCategoryGroup::Other
        || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
        || c.is_whitespace()
        || unicode_security::skeleton(c.encode_utf8(&mut [0; 4])).all(char::is_whitespace)
}

/// The key under which two names are the same name: TS #39's skeleton of the stored form, so
/// "Аlpha" (Cyrillic А), "Αlpha" (Greek Α) and "Alphа" (Cyrillic а) share "Alpha"'s.
pub fn name_key(name: &str) -> String {
    let name = shown_text(name).unwrap_or_else(|| name.to_string());
    unicode_security::skeleton(&name).collect()
}

/// Why `name` mixes scripts in a way TS #39's restriction levels flag, or `None`. Its letters
/// (what is not common to every script: spaces, digits, punctuation, emoji) must be at most
/// "moderately restrictive": one script, or Latin with one other recommended script that is
/// not Cyrillic or Greek (whose letters copy Latin ones), or Latin with Han, Kana and Hangul as
/// Japanese and Korean write. A letter TS #39 restricts from identifiers (an obsolete or
/// little-used one) is refused as well, since its look-alikes are not all mapped.
pub fn mixed_scripts(name: &str) -> Option<String> {
    let letters: String = name
        .chars()
        .filter(|&c| !AugmentedScriptSet::for_char(c).is_all())
        .collect();
    if let Some(c) = letters.chars().find(|&c| !c.identifier_allowed()) {
        return Some(format!(
            "`{c}` (U+{:04X}) is a letter Unicode TS #39 restricts from identifiers",
            c as u32
        ));
    }
    if letters.as_str().detect_restriction_level() <= RestrictionLevel::ModeratelyRestrictive {
        return None;
    }
    let mut scripts: Vec<String> = Vec::new();
    for c in letters.chars() {
        let s = AugmentedScriptSet::for_char(c).base.to_string();
        if !scripts.contains(&s) {
            scripts.push(s);
        }
    }
    Some(format!(
        "it mixes {} letters, which Unicode TS #39 flags as look-alike spellings",
        scripts.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::{mixed_scripts, name_key, shown_text};

    /// Issues #44 and #64: invisible characters, format or not, are refused; compatibility
    /// spellings become the plain one.
    #[test]
    fn names_are_normalised_and_invisible_characters_refused() {
        for bad in [
            "Al\u{200b}pha",
            "Alpha\u{200d}",
            "\u{202e}ahplA",
            "Al\u{2066}pha\u{2069}",
            "Al\u{00ad}pha",
            "\u{feff}Alpha",
            "Al\u{e0041}pha",
            "Al\npha",
            "Al\u{34f}pha",
            "Al\u{115f}pha",
            "Al\u{1160}pha",
            "Al\u{3164}pha",
            "Al\u{ffa0}pha",
            "Al\u{2800}pha",
            "Al\u{fe00}pha",
            "Alpha\u{fe0f}",
            "Al\u{e000}pha",
            "Al\u{2028}pha",
        ] {
            assert_eq!(shown_text(bad), None, "{bad:?}");
        }
        assert_eq!(shown_text("  Alpha ").as_deref(), Some("Alpha"));
        assert_eq!(shown_text("Team  Rocket").as_deref(), Some("Team Rocket"));
        // Full-width letters and a ligature: NFKC gives the plain spelling.
        assert_eq!(shown_text("\u{ff21}lpha").as_deref(), Some("Alpha"));
        assert_eq!(shown_text("\u{fb01}ve").as_deref(), Some("five"));
        // Letters of other scripts, and emoji, stay.
        assert_eq!(shown_text("Ёлка 🃏").as_deref(), Some("Ёлка 🃏"));
    }

    /// The look-alikes of issue #64 share "Alpha"'s key, and mix scripts; names in one
    /// script, or in scripts TS #39 lets go together, do not.
    #[test]
    fn look_alikes_share_a_key_and_mixed_scripts_are_flagged() {
        for alike in ["\u{410}lpha", "\u{391}lpha", "Alph\u{430}"] {
            assert_eq!(name_key(alike), name_key("Alpha"), "{alike}");
            assert!(mixed_scripts(alike).is_some(), "{alike}");
        }
        assert_ne!(name_key("Alpha"), name_key("Beta"));
        let why = mixed_scripts("\u{410}lpha").expect("mixed");
        assert!(why.contains("Cyrillic") && why.contains("Latin"), "{why}");
        for fine in [
            "Alpha",
            "Ёлка 🃏",
            "Team 7: C++ bots",
            "Δέλτα",
            "東京 Team",
            "Ærø",
        ] {
            assert_eq!(mixed_scripts(fine), None, "{fine}");
        }
    }
}
