//! What of a line may be shown: trimmed, tokens redacted, cut to a readable
//! length. Every excerpt and note built from evidence goes through here.

/// Longest excerpt kept from a line.
const EXCERPT_CHARS: usize = 240;

/// Replaces anything shaped like a JWT (`eyJ….….…`) with `<token>`: evidence
/// (kubectl -v=9 logs, pasted headers) may carry a token, and output never shows one.
pub fn redact_tokens(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("eyJ") {
        return std::borrow::Cow::Borrowed(text);
    }
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("eyJ") {
        out.push_str(&rest[..i]);
        let candidate = &rest[i..];
        let len = candidate
            .find(|c: char| !(is_b64(c) || c == '.'))
            .unwrap_or(candidate.len());
        let word = &candidate[..len];
        if word.matches('.').count() >= 2 && len >= 20 {
            out.push_str("<token>");
        } else {
            out.push_str(word);
        }
        rest = &candidate[len.max(3)..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A line, trimmed, tokens redacted, and cut to a readable length.
pub fn excerpt(line: &str) -> String {
    let line = redact_tokens(line.trim());
    let line = line.as_ref();
    if line.chars().count() <= EXCERPT_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(EXCERPT_CHARS - 1).collect();
    cut.push('…');
    cut
}
