//! Terminal-escape hygiene. Claims are attacker-controlled text: a `sub` holding
//! `\x1b]52;…` or a bidi override could rewrite the user's terminal or disguise a
//! value. Before any token-supplied string reaches the table renderer it is
//! escaped here (after fd's `sanitize.rs`). JSON output needs no such pass:
//! serde_json escapes control characters itself.

use std::borrow::Cow;

/// Escapes C0/C1 controls, DEL, bidi overrides and zero-width characters as `\u{…}`.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_dangerous) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_dangerous(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200b}'..='\u{200f}'   // zero-width space/joiners, LRM/RLM
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls_and_bidi() {
        assert_eq!(sanitize("plain"), "plain");
        assert_eq!(sanitize("a\x1b[31mb"), "a\\u{1b}[31mb");
        assert_eq!(sanitize("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(sanitize("\u{9b}"), "\\u{9b}");
        assert_eq!(sanitize("tab\there"), "tab\\u{9}here");
    }
}
