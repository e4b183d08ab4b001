//! Redaction as a property of the output: every byte the process writes to
//! stdout and stderr (reports, errors, clap's usage errors and help, the panic
//! line) passes through [`Redacted`], and every table cell through [`redact`]
//! before it is wrapped (a wrapped token would no longer match). Two kinds of
//! text are masked:
//!
//! - **Known secrets**, registered as they are read: every [`SecretToken`]
//!   (the token under test, a kubeconfig token or tokenFile's contents) and its
//!   signature segment, and kubeconfig credentials that are not tokens (a client
//!   key's PEM lines). Found wherever they appear, whatever surrounds them.
//! - **Anything token-shaped**, whatever delimits it (`token=…`, `--token=…`,
//!   `?token=…`, quotes, a sentence's full stop, a JSON escape): a JWS
//!   ([`jws_at`]) or a bootstrap token ([`bootstrap_at`]).
//!
//! Each is replaced by `[token sha256:1a2b3c4d]`, the fingerprint the reports
//! already show ([`fingerprint`]), so a masked value can still be
//! told apart from another. This is the only redactor: evidence excerpts
//! (classify) and stored messages (audit) call [`redact`] too. Both passes are
//! linear: `memchr::memmem` per known secret (a handful at a time), and the
//! shapes tried from each `.` (memchr), looking only at the base64url runs
//! around it.
//!
//! What this does not do: it cannot recognise a secret it was never told about
//! that has no token shape (a static token typed where a path belongs), nor a
//! secret shorter than [`MIN_SECRET_BYTES`] (masking it would garble ordinary
//! text).
//!
//! [`SecretToken`]: crate::secret::SecretToken

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::{OnceLock, PoisonError, RwLock};

use memchr::memmem;

/// Secrets shorter than this are not registered: masking every occurrence of a
/// five-letter word would garble output and protect little.
pub const MIN_SECRET_BYTES: usize = 8;

/// Tokens remembered besides the pinned credentials: the last two. Output
/// about a token is written right after it is read (batches stream, one line
/// ahead), and anything older that is token-shaped is still masked by shape.
/// Kept small: every output line is searched for each.
const RECENT_SECRETS: usize = 2;

/// A line longer than this is written in pieces even without a newline, cut
/// where no token can be split (see [`Redacted`]).
const MAX_PENDING_BYTES: usize = 4 * 1024 * 1024;

/// Bytes of a secret searched for: its last ones (a token's end is its
/// signature's, the most random part). A whole occurrence contains them; a
/// hit is then checked against the whole secret. Searching for a short tail
/// keeps both the search and building the searcher cheap (once per token of a
/// batch).
const ANCHOR_BYTES: usize = 32;

/// One secret text and what its mask calls it, and perhaps a secret of its
/// own at its end (a token's signature), masked where it shows without the
/// rest. Both are found by one search, for an anchor inside the end. The
/// fingerprint in the mask is computed when a match is found (rare), not when
/// the secret is registered.
struct Secret {
    text: Vec<u8>,
    /// Length of the secret suffix of `text`, if any.
    tail: Option<usize>,
    /// Searches for the last [`ANCHOR_BYTES`] of `text` (of the tail, if shorter).
    anchor: memmem::Finder<'static>,
    label: &'static str,
}

/// Where a [`Secret`] shows: the start and the length, and whether only its tail.
struct Occurrence {
    start: usize,
    len: usize,
    tail: bool,
}

impl Secret {
    fn new(text: &[u8], tail: Option<usize>, label: &'static str) -> Secret {
        let anchor = ANCHOR_BYTES.min(tail.unwrap_or(text.len()));
        Secret {
            text: text.to_vec(),
            tail,
            anchor: memmem::Finder::new(&text[text.len() - anchor..]).into_owned(),
            label,
        }
    }

    fn mask(&self, occurrence: &Occurrence) -> String {
        if occurrence.tail {
            let tail = &self.text[self.text.len() - occurrence.len..];
            format!("[{} signature sha256:{}]", self.label, fingerprint(tail))
        } else {
            format!("[{} sha256:{}]", self.label, fingerprint(&self.text))
        }
    }

    /// Each whole occurrence in `haystack` (or of the tail alone), in order.
    fn occurrences<'h>(&'h self, haystack: &'h [u8]) -> impl Iterator<Item = Occurrence> + 'h {
        let anchor = self.anchor.needle().len();
        self.anchor.find_iter(haystack).filter_map(move |hit| {
            let end = hit + anchor;
            let found = |len: usize| {
                let start = end.checked_sub(len)?;
                (haystack[start..end] == self.text[self.text.len() - len..]).then_some(start)
            };
            if let Some(start) = found(self.text.len()) {
                return Some(Occurrence {
                    start,
                    len: self.text.len(),
                    tail: false,
                });
            }
            let len = self.tail?;
            found(len).map(|start| Occurrence {
                start,
                len,
                tail: true,
            })
        })
    }
}

#[derive(Default)]
struct Registry {
    /// Kubeconfig credentials: kept for the whole run.
    pinned: Vec<Secret>,
    /// Tokens as they are read, oldest first.
    recent: std::collections::VecDeque<Secret>,
}

impl Registry {
    fn knows(&self, text: &[u8]) -> bool {
        self.pinned
            .iter()
            .chain(&self.recent)
            .any(|s| s.text == text)
    }

    fn add(&mut self, text: &[u8], tail: Option<usize>, label: &'static str, pinned: bool) {
        if text.len() < MIN_SECRET_BYTES || self.knows(text) {
            return;
        }
        let secret = Secret::new(text, tail, label);
        if pinned {
            self.pinned.push(secret);
        } else {
            self.recent.push_back(secret);
            while self.recent.len() > RECENT_SECRETS {
                self.recent.pop_front();
            }
        }
    }
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(RwLock::default)
}

/// The mask for token-shaped `text`: `[token sha256:1a2b3c4d]`.
pub fn mask(text: &[u8]) -> String {
    format!("[token sha256:{}]", fingerprint(text))
}

/// Registers a token as it is read: the whole text, and its signature (the
/// base64url run after the last `.`, when it ends the token) as a secret of
/// its own.
pub fn register_token(text: &str) {
    let text = text.trim().as_bytes();
    let signature = memchr::memrchr(b'.', text)
        .map(|dot| text.len() - dot - 1)
        .filter(|&len| {
            len >= MIN_SECRET_BYTES && text[text.len() - len..].iter().all(|&b| is_token_byte(b))
        });
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    registry.add(text, signature, "token", false);
}

/// Registers a credential that is not a bearer token (a client key), kept for
/// the whole run. PEM is registered line by line: output is matched per line.
pub fn register_credential(text: &[u8]) {
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    if text.starts_with(b"-----BEGIN") {
        for line in text.split(|&b| b == b'\n') {
            let line = line.trim_ascii();
            if !line.starts_with(b"-----") {
                registry.add(line, None, "credential", true);
            }
        }
    } else {
        registry.add(text.trim_ascii(), None, "credential", true);
    }
}

/// Registers a bearer credential read from a kubeconfig (a token or a
/// tokenFile's contents), kept for the whole run.
pub fn register_bearer(text: &str) {
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    registry.add(text.trim().as_bytes(), None, "token", true);
}

/// Byte classes, looked up: the shape scan asks them around every dot of the output.
const B64URL: u8 = 1;
const TOKEN: u8 = 2;
const CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            classes[i] = B64URL | TOKEN;
        } else if b == b'.' || b == b'=' {
            classes[i] = TOKEN;
        }
        i += 1;
    }
    classes
};

fn is_token_byte(b: u8) -> bool {
    CLASSES[usize::from(b)] & TOKEN != 0
}

fn is_b64url(b: u8) -> bool {
    CLASSES[usize::from(b)] & B64URL != 0
}

/// Index after the base64url run starting at `at`, and after its `=` padding.
fn segment_end(text: &[u8], at: usize) -> (usize, usize) {
    let run = at + text[at..].iter().take_while(|&&b| is_b64url(b)).count();
    let padded = run + text[run..].iter().take_while(|&&b| b == b'=').count();
    (run, padded)
}

/// Token-shaped ranges of `text`, in order, not overlapping. Every candidate
/// holds a `.`: a JWS (`header.payload.signature`, found at its first dot) or
/// a bootstrap token, whatever delimits it.
fn shape_matches(text: &[u8]) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut done = 0;
    for dot in memchr::memchr_iter(b'.', text) {
        if dot < done {
            continue;
        }
        if let Some((start, end)) = jws_at(text, dot).or_else(|| bootstrap_at(text, dot)) {
            found.push((start.max(done), end));
            done = end;
        }
    }
    found
}

/// Base64url characters of the shortest JWS signature (HS256's 32 bytes).
const MIN_SIGNATURE_CHARS: usize = 43;

/// Base64url characters of the shortest JWS header, `{"alg":""}`: shorter
/// runs before a dot (host names, versions, words) are not tried.
const MIN_HEADER_CHARS: usize = 14;

/// The JWS whose header ends at `dot`: two more base64url segments (each
/// perhaps `=`-padded, the signature perhaps empty) and a header found by
/// [`header_start`] in the base64url run before the dot. Also what is left of
/// a token cut at its header's `=` padding (`key=value` parsers do that):
/// `payload.signature`, the second segment as long as a signature.
fn jws_at(text: &[u8], dot: usize) -> Option<(usize, usize)> {
    if !text.get(dot + 1).is_some_and(|&b| is_b64url(b)) {
        return None;
    }
    let header_end = dot - text[..dot].iter().rev().take_while(|&&b| b == b'=').count();
    // A header-long run before the dot, tested from its far end: most words
    // and host names fail at once.
    let shortest = header_end.checked_sub(MIN_HEADER_CHARS)?;
    if !text[shortest..header_end].iter().all(|&b| is_b64url(b)) {
        return None;
    }
    let (second, after_second) = segment_end(text, dot + 1);
    let end = if text.get(after_second) == Some(&b'.') {
        segment_end(text, after_second + 1).1
    } else if second - (dot + 1) >= MIN_SIGNATURE_CHARS {
        after_second
    } else {
        return None;
    };
    let run = shortest
        - text[..shortest]
            .iter()
            .rev()
            .take_while(|&&b| is_b64url(b))
            .count();
    let start = run + header_start(&text[run..header_end])?;
    Some((start, end))
}

/// Where a JWS header starts in `run`, the base64url run before a token's
/// first dot, which may be glued to what precedes the token (`--token-`,
/// `x_`, a JSON escape's `\u001b`). A header is a JSON object holding `alg`
/// (RFC 7515 §4.1.1): most begin `{"`, base64url `eyJ`; others open with
/// whitespace or `{ ` and are recognised by their `"alg"` (whose base64url
/// text is one of three, by alignment), then decoded to find where the object
/// opens.
fn header_start(run: &[u8]) -> Option<usize> {
    let find = |needle: &[u8]| run.windows(needle.len()).position(|w| w == needle);
    if let Some(at) = find(b"eyJ") {
        return Some(at);
    }
    [b"ImFsZy", b"JhbGci", b"iYWxnI"]
        .iter()
        .any(|marker| find(*marker).is_some())
        .then(|| decoded_object_start(run))?
}

/// The first offset of `run` (a base64url header glued to what precedes it)
/// from which it decodes to whitespace, `{`, and then `"alg"`. Offsets four
/// apart decode alike from there on, so one decode per alignment suffices.
fn decoded_object_start(run: &[u8]) -> Option<usize> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    (0..4.min(run.len()))
        .filter_map(|align| {
            let decoded = LENIENT.decode(&run[align..]).ok()?;
            let alg = memmem::find(&decoded, br#""alg""#)?;
            (0..=alg / 3).find_map(|group| {
                let rest = &decoded[group * 3..alg];
                let open = rest.iter().position(|b| !b.is_ascii_whitespace())?;
                (rest[open] == b'{').then_some(align + group * 4)
            })
        })
        .min()
}

/// The bootstrap token (`[a-z0-9]{6}.[a-z0-9]{16}`, kubeadm's
/// `bootstraputil.BootstrapTokenRegexp`) around `dot`, delimited by anything
/// but a letter or digit. A letter right before it may end a string escape
/// (`\t`, `\u001b`, `\x1b`, as JSON and YAML write control characters), which
/// does not join the token either.
fn bootstrap_at(text: &[u8], dot: usize) -> Option<(usize, usize)> {
    let start = dot.checked_sub(6)?;
    let end = dot + 17;
    let lower_alnum = |b: &u8| matches!(b, b'a'..=b'z' | b'0'..=b'9');
    if end > text.len()
        || !text[start..dot].iter().all(lower_alnum)
        || !text[dot + 1..end].iter().all(lower_alnum)
        || text.get(end).is_some_and(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    let glued = text[..start]
        .iter()
        .rev()
        .take(10)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let escaped = glued > 0
        && glued < 10
        && (start - glued).checked_sub(1).and_then(|i| text.get(i)) == Some(&b'\\');
    (glued == 0 || escaped).then_some((start, end))
}

/// Whether `text` as a whole is a token (JWS or bootstrap), optionally after
/// `Bearer `: for "this looks like a token, not a path" hints.
pub fn looks_like_token(text: &str) -> bool {
    let text = text.trim();
    let text = text
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("bearer "))
        .map_or(text, |_| text[7..].trim_start());
    shape_matches(text.as_bytes()) == [(0, text.len())]
}

/// `text` with every known secret and token-shaped string masked.
pub fn redact(text: &str) -> Cow<'_, str> {
    match redact_bytes(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Masks are ASCII and replace whole matches of ASCII patterns, so
        // UTF-8 stays UTF-8; lossy only as a belt to the braces.
        Cow::Owned(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    }
}

/// [`redact`] over bytes. Shapes first, so a whole JWS is named by its own
/// fingerprint; then the known secrets, in what is left. Both are looked for
/// in the text as written and as decoded ([`Decoded`]): a token whose dots
/// are `%2E` or `\u002e`, or that follows a `%3D`, is still a token.
pub fn redact_bytes(text: &[u8]) -> Cow<'_, [u8]> {
    let mut current = match Decoded::of(text) {
        Some(view) => Cow::Owned(splice(text, view.masks(text).into_iter())),
        None => mask_shapes(text),
    };
    let registry = registry().read().unwrap_or_else(PoisonError::into_inner);
    for secret in registry.pinned.iter().chain(&registry.recent) {
        if secret.occurrences(&current).next().is_some() {
            let masks = secret
                .occurrences(&current)
                .map(|o| (o.start, o.start + o.len, secret.mask(&o)));
            current = Cow::Owned(splice(&current, masks));
        }
    }
    current
}

fn mask_shapes(text: &[u8]) -> Cow<'_, [u8]> {
    // Both shapes contain a '.'; text without one is done.
    if memchr::memchr(b'.', text).is_none() {
        return Cow::Borrowed(text);
    }
    let found = shape_matches(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let masks = found.into_iter().map(|(s, e)| (s, e, mask(&text[s..e])));
    Cow::Owned(splice(text, masks))
}

/// Text with its percent-escapes (`%2E`) and JSON/JavaScript escapes
/// (`\u002e`, `\\`) decoded, nested ones too (`%5Cu002e`, `\u00252E`,
/// `%252E`), each decoded byte knowing the span of the text it came from.
struct Decoded {
    bytes: Vec<u8>,
    /// For each byte of `bytes`, its `(start, end)` in the original text.
    spans: Vec<(usize, usize)>,
}

/// Rounds of decoding: an escape inside an escape inside an escape.
const DECODING_ROUNDS: usize = 4;

impl Decoded {
    /// The decoded view of `text`, if it holds an escape at all.
    fn of(text: &[u8]) -> Option<Decoded> {
        let escaped =
            |t: &[u8]| memchr::memchr(b'%', t).is_some() || memmem::find(t, b"\\").is_some();
        if !escaped(text) {
            return None;
        }
        let mut view = Decoded {
            bytes: text.to_vec(),
            spans: (0..text.len()).map(|i| (i, i + 1)).collect(),
        };
        let mut changed = false;
        for _ in 0..DECODING_ROUNDS {
            if !escaped(&view.bytes) || !view.decode_once() {
                break;
            }
            changed = true;
        }
        changed.then_some(view)
    }

    /// One round: every escape replaced by its byte. False when none was.
    fn decode_once(&mut self) -> bool {
        let hex = |b: &[u8]| {
            std::str::from_utf8(b)
                .ok()
                .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
        };
        let (mut bytes, mut spans) = (
            Vec::with_capacity(self.bytes.len()),
            Vec::with_capacity(self.bytes.len()),
        );
        let mut i = 0;
        let mut changed = false;
        while i < self.bytes.len() {
            let rest = &self.bytes[i..];
            let (byte, len) = match rest {
                [b'%', h1, h2, ..] => match hex(&[*h1, *h2]) {
                    Some(b) => (b as u8, 3),
                    None => (b'%', 1),
                },
                [b'\\', b'u', ..] if rest.len() >= 6 => {
                    match hex(&rest[2..6]).filter(|&c| c < 0x80) {
                        Some(b) => (b as u8, 6),
                        None => (b'\\', 1),
                    }
                }
                [b'\\', b'\\', ..] => (b'\\', 2),
                [b, ..] => (*b, 1),
                [] => break,
            };
            changed |= len > 1;
            bytes.push(byte);
            spans.push((self.spans[i].0, self.spans[i + len - 1].1));
            i += len;
        }
        self.bytes = bytes;
        self.spans = spans;
        changed
    }

    /// The span of the original text that `start..end` of the view came from.
    fn original(&self, start: usize, end: usize) -> (usize, usize) {
        (self.spans[start].0, self.spans[end - 1].1)
    }

    /// Masks for `text`: its tokens as written and as decoded, and the known
    /// secrets that only its decoded form shows, overlapping ones merged.
    fn masks(&self, text: &[u8]) -> Vec<(usize, usize, String)> {
        let mut found: Vec<(usize, usize, String)> = shape_matches(text)
            .into_iter()
            .map(|(s, e)| (s, e, mask(&text[s..e])))
            .chain(shape_matches(&self.bytes).into_iter().map(|(s, e)| {
                let (from, to) = self.original(s, e);
                (from, to, mask(&self.bytes[s..e]))
            }))
            .collect();
        let registry = registry().read().unwrap_or_else(PoisonError::into_inner);
        for secret in registry.pinned.iter().chain(&registry.recent) {
            for o in secret.occurrences(&self.bytes) {
                let (from, to) = self.original(o.start, o.start + o.len);
                found.push((from, to, secret.mask(&o)));
            }
        }
        found.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        let mut merged: Vec<(usize, usize, String)> = Vec::with_capacity(found.len());
        for (s, e, m) in found {
            match merged.last_mut() {
                Some(last) if s < last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e, m)),
            }
        }
        merged
    }
}

/// `text` with each `(start, end, mask)` range replaced by its mask, in order.
fn splice(text: &[u8], masks: impl Iterator<Item = (usize, usize, String)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    for (start, end, mask) in masks {
        // Overlapping occurrences: the earlier one was already masked whole.
        if start < copied {
            continue;
        }
        out.extend_from_slice(&text[copied..start]);
        out.extend_from_slice(mask.as_bytes());
        copied = end;
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// A `Write` adaptor that masks secrets (see the module docs). Text is held
/// until a newline, so a token written in several calls is still found whole;
/// [`Write::flush`] writes the complete lines only, and [`Redacted::finish`]
/// (or drop) the rest. A line over 4 MiB is written in pieces cut after a byte
/// no token contains.
pub struct Redacted<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Redacted<W> {
    pub fn new(inner: W) -> Self {
        Redacted {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes what is held, even without a final newline, and flushes.
    pub fn finish(&mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.inner.write_all(&redact_bytes(&rest))?;
        }
        self.inner.flush()
    }

    fn write_complete_lines(&mut self) -> io::Result<()> {
        let cut = match memchr::memrchr(b'\n', &self.pending) {
            Some(newline) => newline + 1,
            None if self.pending.len() > MAX_PENDING_BYTES => {
                match self.pending.iter().rposition(|&b| !is_token_byte(b)) {
                    Some(i) => i + 1,
                    None => self.pending.len(),
                }
            }
            None => return Ok(()),
        };
        self.inner.write_all(&redact_bytes(&self.pending[..cut]))?;
        self.pending.drain(..cut);
        Ok(())
    }
}

impl<W: Write> Write for Redacted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Whole lines in one call (a JSON line, a table line) go straight
        // through, without a copy into the buffer.
        if self.pending.is_empty() && buf.ends_with(b"\n") {
            self.inner.write_all(&redact_bytes(buf))?;
            return Ok(buf.len());
        }
        self.pending.extend_from_slice(buf);
        if memchr::memchr(b'\n', buf).is_some() || self.pending.len() > MAX_PENDING_BYTES {
            self.write_complete_lines()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_complete_lines()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Redacted<W> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// First 8 hex digits of SHA-256 of `bytes`.
pub fn fingerprint(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes);
    // One allocation, no formatting machinery: this runs for every token of a batch.
    let mut hex = String::with_capacity(8);
    for b in &digest.as_ref()[..4] {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    // Test tokens are unique per test: the registry is process-wide.
    const JWS: &str = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXRlc3Q";

    fn through_writer(pieces: &[&[u8]]) -> String {
        let mut sink = Vec::new();
        {
            let mut w = Redacted::new(&mut sink);
            for p in pieces {
                w.write_all(p).unwrap();
            }
        }
        String::from_utf8(sink).unwrap()
    }

    #[test]
    fn jws_is_masked_with_its_fingerprint() {
        let out = redact(&format!("got Bearer {JWS} back")).into_owned();
        let fp = fingerprint(JWS.as_bytes());
        assert_eq!(out, format!("got Bearer [token sha256:{fp}] back"));
    }

    #[test]
    fn padded_jws_is_masked_whole() {
        let padded = "eyJhbGciOiJub25lIn0=.eyJzdWIiOiJ4In0=.c2lnbmF0dXJlIQ==";
        let out = redact(&format!("x {padded} y")).into_owned();
        assert!(!out.contains("c2ln"), "{out}");
        assert!(!out.contains("=."), "{out}");
        assert!(
            out.starts_with("x [token sha256:") && out.ends_with("] y"),
            "{out}"
        );
    }

    #[test]
    fn tokens_are_found_through_percent_and_json_escapes() {
        let (h, p, sig) = (
            "eyJhbGciOiJSUzI1NiJ9",
            "eyJzdWIiOiJlbmNvZGVkIn0",
            "ZW5jb2RlZC1zaWduYXR1cmUtbG9uZy1lbm91Z2gtMTIzNDU2Nzg5",
        );
        for sep in [
            "%2E",
            "%2e",
            "\\u002e",
            "\\u002E",
            "%5Cu002e",
            "%252E",
            "\\u00252E",
            "\\\\u002e",
        ] {
            let text =
                format!("GET /x?token={h}{sep}{p}{sep}{sig}&y=1 and \"{h}{sep}{p}{sep}{sig}\"");
            let out = redact(&text).into_owned();
            assert!(!out.contains(sig) && !out.contains(p), "{sep}: {out}");
            assert!(
                out.contains("&y=1") && out.starts_with("GET /x?token=[token sha256:"),
                "{out}"
            );
        }
        for text in [
            "token%3Dabcdef.0123456789abcdef&x=1",
            "token%253Dabcdef.0123456789abcdef",
            "t=abcdef%2E0123456789abcdef",
            "{\"t\":\"\\u003dabcdef\\u002e0123456789abcdef\"}",
        ] {
            let out = redact(text).into_owned();
            assert!(!out.contains("0123456789abcdef"), "{out}");
        }
        // Escapes with no token behind them are left as they are.
        for text in ["a%20b %2E %3D", "C:\\\\Users\\\\x", "\\u002e.\\u002e"] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn bootstrap_tokens_are_masked() {
        // (text, the token's secret half)
        for (text, secret) in [
            ("join with abcdef.0123456789abcdef now", "0123456789abcdef"),
            ("token=\"07401b.f395accd246ae52d\"", "f395accd246ae52d"),
        ] {
            let out = redact(text);
            assert!(!out.contains(secret), "{text} -> {out}");
        }
    }

    #[test]
    fn tokens_are_masked_whatever_delimits_them() {
        let bootstrap = "07401b.f395accd246ae52d";
        let other_header = "eyAiYWxnIjogIlJTMjU2IiB9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLWRlbGltaXRlcnM";
        for token in [JWS, bootstrap, other_header] {
            for (before, after) in [
                ("token=", ""),
                ("--token=", " "),
                ("https://h/?token=", "&watch=1"),
                ("it was ", "."),
                ("x-", "-x"),
                ("x_", "_x"),
                ("x.", ".x"),
                ("=", "="),
                ("\\t", "\\n"),
                ("\\u001b", ""),
            ] {
                let text = format!("{before}{token}{after}");
                let out = redact(&text);
                // A JWS's signature takes base64url and `=` after it along.
                let secret = token.rsplit('.').next().unwrap();
                assert!(
                    out.starts_with(&format!("{before}[token sha256:")) && !out.contains(secret),
                    "{text} -> {out}"
                );
            }
        }
    }

    #[test]
    fn headers_that_do_not_begin_eyj_are_found_by_their_alg() {
        let b64 = |s: &str| {
            use base64::Engine as _;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s)
        };
        for header in [
            r#"{ "alg": "RS256" }"#,
            "{\n  \"kid\": \"k\",\n  \"alg\": \"ES256\"\n}",
            r#"  {"alg":"none"}"#,
            "\t{\"typ\":\"JWT\",\"alg\":\"HS256\"}",
        ] {
            let token = format!("{}.{}.c2lnbmF0dXJlLWhlYWRlcnM", b64(header), b64("{}"));
            assert!(!token.starts_with("eyJ"), "{token}");
            for glued in ["", "a", "ab-", "abc_", "--token-"] {
                let text = format!("{glued}{token}.");
                assert_eq!(redact(&text), format!("{glued}{}.", mask(token.as_bytes())));
            }
        }
    }

    #[test]
    fn a_token_cut_at_its_headers_padding_keeps_its_signature_masked() {
        let rest = "eyJzdWIiOiJjdXQifQ.c2lnbmF0dXJlLW9mLWEtdG9rZW4tY3V0LWF0LWl0cy1wYWRkaW5n";
        let text = format!("name \"=.{rest}\" is not a duration");
        assert_eq!(
            redact(&text),
            format!("name \"=.{}\" is not a duration", mask(rest.as_bytes()))
        );
    }

    #[test]
    fn near_misses_stay() {
        for text in [
            "v1.34.1",
            "kube-apiserver v1.34.1+k3s1",
            "kid mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU",
            "uid 8f7c4c44-7f2e-4f3a-9a59-0b7d1f2b8a11",
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0",
            "abcdef.0123456789abcdefg",
            "xabcdef.0123456789abcdef",
            "kube-system.example.com.svc",
            "ABCDEF.0123456789ABCDEF",
            "system:serviceaccount:default:builder",
            "https://kubernetes.default.svc.cluster.local",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
    }

    #[test]
    fn known_secrets_are_masked_anywhere() {
        let secret = "s3cr3t-static-token-for-redact-test";
        register_bearer(secret);
        let out = redact(&format!("message: Bearer{secret}!")).into_owned();
        assert_eq!(out, format!("message: Bearer{}!", mask(secret.as_bytes())));
    }

    #[test]
    fn a_registered_tokens_signature_is_masked_alone() {
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJyZWRhY3QifQ.c2lnLW9ubHktcmVkYWN0LXRlc3Q";
        register_token(token);
        let out = redact("sig=c2lnLW9ubHktcmVkYWN0LXRlc3Q;");
        assert!(!out.contains("c2lnLW9ubHk"), "{out}");
        assert!(out.contains("[token signature sha256:"), "{out}");
    }

    #[test]
    fn pem_keys_are_masked_line_by_line() {
        let key = b"-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgREDACTTEST\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----\n";
        register_credential(key);
        let out = redact("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgREDACTTEST");
        assert!(out.starts_with("[credential sha256:"), "{out}");
    }

    #[test]
    fn split_writes_are_joined_before_matching() {
        let (a, b) = JWS.split_at(25);
        let (b, c) = b.split_at(7);
        let out = through_writer(&[b"a ", a.as_bytes(), b.as_bytes(), c.as_bytes(), b" z\n"]);
        assert!(!out.contains("c2lnbmF0dXJl"), "{out}");
        assert!(
            out.starts_with("a [token sha256:") && out.ends_with("] z\n"),
            "{out}"
        );
    }

    #[test]
    fn flush_writes_complete_lines_and_drop_the_rest() {
        let mut sink = Vec::new();
        {
            let mut w = Redacted::new(&mut sink);
            w.write_all(b"one\ntwo").unwrap();
            w.flush().unwrap();
        }
        assert_eq!(sink, b"one\ntwo");
    }

    #[test]
    fn an_endless_line_is_cut_between_tokens() {
        let mut sink = Vec::new();
        let mut w = Redacted::new(&mut sink);
        let chunk = format!("{JWS} ");
        let mut written = 0;
        while written <= MAX_PENDING_BYTES {
            w.write_all(chunk.as_bytes()).unwrap();
            written += chunk.len();
        }
        // Only whole chunks went out, each masked.
        assert!(w.pending.len() < chunk.len());
        drop(w);
        let out = String::from_utf8(sink).unwrap();
        assert!(!out.contains("c2lnbmF0dXJl"));
    }

    #[test]
    fn looks_like_token_wants_the_whole_argument() {
        for (text, want) in [
            (JWS.to_owned(), true),
            (format!("Bearer {JWS}"), true),
            ("abcdef.0123456789abcdef".to_owned(), true),
            ("token.jwt".to_owned(), false),
            (format!("{JWS}.txt/x"), false),
            ("/var/run/secrets/token".to_owned(), false),
        ] {
            assert_eq!(looks_like_token(&text), want, "{text}");
        }
    }
}
