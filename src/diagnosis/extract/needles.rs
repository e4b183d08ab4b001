//! Many wordings, one scan: which of a list of needles occur in a line.
//! The extractors look for dozens of wordings in every line of a log; one
//! Aho-Corasick pass replaces a substring search per wording.
//!
//! [`Needles::words`] lists wordings that start a word: a needle that begins
//! with a letter or digit does not match inside another word (Node's
//! `ENOTFOUND` is not in Ruby's `ResourceNotFoundError`), and may end inside
//! one (`ConnectTimeout` in `ConnectTimeoutError`). [`Needles::new`] lists
//! fragments that may stand anywhere (`Exception: (` ends a class name).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// A list of needles searched at once.
pub struct Needles(AhoCorasick, Vec<bool>);

impl Needles {
    /// `ignore_case`: ASCII letters match either case.
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>, ignore_case: bool) -> Self {
        Needles::build(words, ignore_case, false)
    }

    /// Needles that each start a word (see the module header).
    pub fn words<'a>(words: impl IntoIterator<Item = &'a str>, ignore_case: bool) -> Self {
        Needles::build(words, ignore_case, true)
    }

    fn build<'a>(
        words: impl IntoIterator<Item = &'a str>,
        ignore_case: bool,
        start_words: bool,
    ) -> Self {
        let words: Vec<&str> = words.into_iter().collect();
        let starts_word = words
            .iter()
            .map(|w| start_words && w.starts_with(|c: char| c.is_ascii_alphanumeric()))
            .collect();
        Needles(
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .ascii_case_insensitive(ignore_case)
                .build(words)
                .expect("a few short needles always build"),
            starts_word,
        )
    }

    /// The needles that occur in `text` at the start of a word, by index.
    fn found<'t>(&'t self, text: &'t str) -> impl Iterator<Item = usize> + 't {
        self.spans(text).map(|(index, ..)| index)
    }

    /// Every needle found in `text` at the start of a word: its index and
    /// byte range.
    pub fn spans<'t>(&'t self, text: &'t str) -> impl Iterator<Item = (usize, usize, usize)> + 't {
        self.0.find_overlapping_iter(text).filter_map(move |m| {
            let index = m.pattern().as_usize();
            let inside_word = self.1[index]
                && text[..m.start()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric());
            (!inside_word).then_some((index, m.start(), m.end()))
        })
    }

    pub fn any(&self, text: &str) -> bool {
        self.found(text).next().is_some()
    }

    /// The first needle in list order that occurs in `text` (by its index).
    pub fn first(&self, text: &str) -> Option<usize> {
        self.found(text).min()
    }
}

/// Where `line` holds a wording's parts (` … ` between them; a trailing
/// ` …` is what follows) in their order: the first part's start and the last
/// part's end. `ignore_case`: ASCII letters match either case.
pub fn parts_in_order(line: &str, text: &str, ignore_case: bool) -> Option<(usize, usize)> {
    let find = |from: usize, part: &str| {
        let (hay, needle) = (&line.as_bytes()[from..], part.as_bytes());
        let at = if ignore_case {
            hay.windows(needle.len())
                .position(|w| w.eq_ignore_ascii_case(needle))
        } else {
            line[from..].find(part)
        };
        at.map(|i| from + i)
    };
    let text = text.strip_suffix(" …").unwrap_or(text);
    let mut parts = text.split(" … ").filter(|p| !p.is_empty());
    let first = parts.next()?;
    let at = find(0, first)?;
    let mut end = at + first.len();
    for part in parts {
        end = find(end, part)? + part.len();
    }
    Some((at, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_stand_in_their_order() {
        let text = "auth exec command ' … ' failed with status …";
        let line = "Error: auth exec command 'x' failed with status exit code: 2";
        assert_eq!(parts_in_order(line, text, false), Some((7, 47)));
        assert_eq!(
            parts_in_order(&line.to_uppercase(), text, true),
            Some((7, 47))
        );
        assert_eq!(parts_in_order(&line.to_uppercase(), text, false), None);
        assert_eq!(
            parts_in_order("' failed with status auth exec command '", text, false),
            None
        );
    }

    #[test]
    fn list_order_decides_not_position() {
        let n = Needles::new(["timed out", "tls: "], true);
        assert_eq!(n.first("TLS: handshake timed out"), Some(0));
        assert_eq!(n.first("remote error: tls: bad"), Some(1));
        assert_eq!(n.first("fine"), None);
        assert!(n.any("x TIMED OUT"));
    }

    #[test]
    fn a_wording_starts_a_word_and_may_end_inside_one() {
        let n = Needles::words(["enotfound", "connecttimeout"], true);
        assert_eq!(n.first("Kubeclient::ResourceNotFoundError"), None);
        assert_eq!(n.first("getaddrinfo ENOTFOUND kubernetes"), Some(0));
        assert_eq!(n.first("urllib3 ConnectTimeoutError(...)"), Some(1));
    }
}
