//! Cell hygiene for tables. Claims and server answers are attacker-controlled
//! text: a `sub` holding `\x1b]52;…` or a bidi override could rewrite the user's
//! terminal or disguise a value, and a 300 KB reason would cost comfy-table
//! quadratic time to wrap. Before any such string reaches the table renderer it
//! passes [`sanitize`]: secrets masked (before wrapping could split one),
//! dangerous characters escaped (after fd's `sanitize.rs`), length capped. JSON
//! and YAML escape the same characters in their own syntax
//! ([`crate::report::json`], [`crate::report::write_data`]).

use std::borrow::Cow;

/// Most bytes of one value a table shows; the rest is counted, not shown
/// (`-o json` has it all). Keeps wrapping cheap: comfy-table's cost grows with
/// the square of an unbroken word's length.
pub const MAX_CELL_BYTES: usize = 2048;

/// Masks secrets ([`crate::redact`]), escapes C0/C1 controls, DEL, bidi
/// controls, zero-width characters and line separators as `\u{…}`, and cuts
/// the text at [`MAX_CELL_BYTES`] with "… (N more bytes)".
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let redacted = crate::redact::redact(text);
    let cut = redacted.floor_char_boundary(MAX_CELL_BYTES);
    let hidden = redacted.len() - cut;
    if hidden == 0 && !redacted.chars().any(is_dangerous) {
        return redacted;
    }
    let shown = &redacted[..cut];
    let mut out = String::with_capacity(shown.len() + 32);
    for c in shown.chars() {
        if is_dangerous(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    if hidden > 0 {
        out.push_str(&format!("… ({hidden} more bytes)"));
    }
    Cow::Owned(out)
}

/// A cell's value: the text [`sanitize`]d.
pub fn cell(text: &str) -> String {
    sanitize(text).into_owned()
}

/// A cell's value [`sanitize`]d, or `-` without one.
pub fn or_dash(value: Option<&str>) -> String {
    value.map_or_else(|| "-".to_owned(), cell)
}

/// `text`, or its first `max - 1` characters and `…`: a cell cut to its column.
pub fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Characters that must not reach a terminal raw (also escaped by the JSON
/// and YAML writers).
pub fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061c}'                 // Arabic letter mark (bidi)
            | '\u{200b}'..='\u{200f}' // zero-width space/joiners, LRM/RLM
            | '\u{2028}'..='\u{2029}' // line and paragraph separators
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{feff}')
}

/// Every string of a JSON document sanitised in place, map keys too: another
/// run's document (`--merge`) may have been written by anyone.
pub fn sanitize_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = sanitize(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sanitize_json),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut v) in entries {
                sanitize_json(&mut v);
                map.insert(sanitize(&key).into_owned(), v);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls_and_bidi() {
        for (text, want) in [
            ("plain", "plain"),
            ("a\x1b[31mb", "a\\u{1b}[31mb"),
            ("x\u{202e}y", "x\\u{202e}y"),
            ("\u{9b}", "\\u{9b}"),
            ("tab\there", "tab\\u{9}here"),
            ("a\u{2028}b\u{61c}c", "a\\u{2028}b\\u{61c}c"),
        ] {
            assert_eq!(sanitize(text), want, "{text:?}");
        }
    }

    #[test]
    fn long_values_are_cut_and_counted() {
        let long = "é".repeat(MAX_CELL_BYTES);
        let shown = sanitize(&long);
        assert!(
            shown.ends_with(&format!("… ({} more bytes)", MAX_CELL_BYTES)),
            "{}",
            &shown[shown.len() - 40..]
        );
        assert!(shown.len() < MAX_CELL_BYTES + 40);
        assert_eq!(sanitize(&"x".repeat(MAX_CELL_BYTES)).len(), MAX_CELL_BYTES);
    }

    #[test]
    fn tokens_are_masked_before_anything_else() {
        let shown = sanitize("echo Bearer eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.c2lnbmF0dXJlcw");
        assert!(shown.starts_with("echo Bearer [token sha256:"), "{shown}");
    }
}
