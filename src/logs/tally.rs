//! Pure: what the log readers keep of what streams by: how often and when
//! ([`Seen`]), what is counted but not listed ([`Other`]), and strings cut to
//! a bound ([`kept`]), so that memory grows with what is distinct, never with
//! the events.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Micros;

/// Longest string kept (a user agent, a name, a message); longer ones are
/// cut, and say so.
pub const MAX_STRING_BYTES: usize = 512;

/// `text`, or its first [`MAX_STRING_BYTES`] with "… (N more bytes)".
pub fn kept(text: &str) -> String {
    cut(text, MAX_STRING_BYTES)
}

/// `text`, or its first `max` bytes (at a character boundary) with "… (N more
/// bytes)": the same text always cuts the same way, so keys stay keys.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let at = text.floor_char_boundary(max);
    format!("{}… ({} more bytes)", &text[..at], text.len() - at)
}

/// How often, and when first and last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seen {
    pub first: Micros,
    pub last: Micros,
    pub count: u64,
}

impl Seen {
    pub fn at(at: Micros) -> Self {
        Seen {
            first: at,
            last: at,
            count: 1,
        }
    }

    pub fn add(&mut self, at: Micros) {
        self.merge(&Seen::at(at));
    }

    pub fn merge(&mut self, other: &Seen) {
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.count += other.count;
    }
}

/// Adds an event at `at` to `seen`, the first one when it is `None`.
pub fn see(seen: &mut Option<Seen>, at: Micros) {
    widen(seen, Some(Seen::at(at)));
}

/// Adds `other`'s to `seen`.
pub fn widen(seen: &mut Option<Seen>, other: Option<Seen>) {
    match (seen.as_mut(), other) {
        (Some(s), Some(o)) => s.merge(&o),
        (None, o) => *seen = o,
        (Some(_), None) => {}
    }
}

/// Adds `other`'s counts to `counts`, key by key.
pub fn add_counts<K: Ord>(counts: &mut BTreeMap<K, u64>, other: BTreeMap<K, u64>) {
    for (k, n) in other {
        let mine = counts.entry(k).or_default();
        *mine = mine.saturating_add(n);
    }
}

/// The first and last instant of both spans.
pub fn widen_span(span: &mut Option<(Micros, Micros)>, other: Option<(Micros, Micros)>) {
    *span = match (*span, other) {
        (Some((f, l)), Some((of, ol))) => Some((f.min(of), l.max(ol))),
        (a, b) => a.or(b),
    };
}

/// Findings counted but not listed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Other {
    /// Identities not listed.
    pub identities: u64,
    /// Their events.
    pub events: u64,
}
