//! What of a line may be shown: trimmed, tokens redacted, cut to a readable
//! length. Every excerpt and note built from evidence goes through here.

/// Longest excerpt kept from a line.
const EXCERPT_CHARS: usize = 240;

/// A line, trimmed, tokens redacted, and cut to a readable length.
pub fn excerpt(line: &str) -> String {
    let line = crate::redact::redact(line.trim());
    let line = line.as_ref();
    if line.chars().count() <= EXCERPT_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(EXCERPT_CHARS - 1).collect();
    cut.push('…');
    cut
}
