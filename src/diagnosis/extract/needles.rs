//! Many wordings, one scan: which of a list of needles occur in a line.
//! The extractors look for dozens of wordings in every line of a log; one
//! Aho-Corasick pass replaces a substring search per wording.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// A list of needles searched at once.
pub struct Needles(AhoCorasick);

impl Needles {
    /// `ignore_case`: ASCII letters match either case.
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>, ignore_case: bool) -> Self {
        Needles(
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .ascii_case_insensitive(ignore_case)
                .build(words)
                .expect("a few short needles always build"),
        )
    }

    /// Whether any needle occurs in `text`.
    pub fn any(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// The first needle in list order that occurs in `text` (by its index).
    pub fn first(&self, text: &str) -> Option<usize> {
        self.0
            .find_overlapping_iter(text)
            .map(|m| m.pattern().as_usize())
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_order_decides_not_position() {
        let n = Needles::new(["timed out", "tls: "], true);
        assert_eq!(n.first("TLS: handshake timed out"), Some(0));
        assert_eq!(n.first("remote error: tls: bad"), Some(1));
        assert_eq!(n.first("fine"), None);
        assert!(n.any("x TIMED OUT"));
    }
}
