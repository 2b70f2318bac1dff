//! The one escape function for text that comes from an agent or an agent file.
//!
//! Threat model: import and export names, the producers section, parser messages that quote
//! them, and everything an agent logs are chosen by the agent's author. Printed raw, they
//! could clear a terminal, set its title or forge a second `error:` line. Every such string
//! goes through [`escape`] before it is shown or stored, which also keeps a refusal on one
//! line.

/// Makes agent text safe to print: control characters (terminal escape sequences, carriage
/// returns, bells, newlines) and the bidirectional overrides are shown as `\u{..}` escapes
/// instead of being interpreted.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_terminal_sequences() {
        assert_eq!(escape("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape("x\ny\r"), "x\\u{a}y\\u{d}");
        assert_eq!(escape("ok ✓"), "ok ✓");
        assert_eq!(escape("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape("a\u{2067}b"), "a\\u{2067}b");
    }
}
