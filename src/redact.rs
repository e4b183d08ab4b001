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
//! - **Anything token-shaped**: a JWS compact serialisation (three base64url
//!   segments, `=`-padded or not, the header starting `eyJ`, i.e. `{"`) and a
//!   bootstrap token (`[a-z0-9]{6}.[a-z0-9]{16}`, standing alone).
//!
//! Each is replaced by `[token sha256:1a2b3c4d]`, the fingerprint the reports
//! already show ([`crate::secret::fingerprint`]), so a masked value can still be
//! told apart from another. Both passes are linear: `memchr::memmem` per known
//! secret (a handful at a time), one `regex` scan for the shapes.
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
use regex::bytes::Regex;

use crate::secret::fingerprint;

/// Secrets shorter than this are not registered: masking every occurrence of a
/// five-letter word would garble output and protect little.
pub const MIN_SECRET_BYTES: usize = 8;

/// Tokens remembered besides the pinned credentials. Output about a token is
/// written right after it is read (batches stream), so the last few suffice;
/// anything older that is token-shaped is still masked by shape.
const RECENT_TOKENS: usize = 8;

/// A line longer than this is written in pieces even without a newline, cut
/// where no token can be split (see [`Redacted`]).
const MAX_PENDING_BYTES: usize = 4 * 1024 * 1024;

struct Secret {
    finder: memmem::Finder<'static>,
    mask: String,
    /// Credentials read from a kubeconfig stay for the whole run; tokens rotate.
    pinned: bool,
    /// Registration order, to evict the oldest token.
    seq: u64,
}

#[derive(Default)]
struct Registry {
    /// Longest first, so a token is masked before its own signature.
    secrets: Vec<Secret>,
    seq: u64,
}

impl Registry {
    fn add(&mut self, text: &[u8], mask: String, pinned: bool) {
        if text.len() < MIN_SECRET_BYTES || self.secrets.iter().any(|s| s.finder.needle() == text) {
            return;
        }
        self.seq += 1;
        self.secrets.push(Secret {
            finder: memmem::Finder::new(text).into_owned(),
            mask,
            pinned,
            seq: self.seq,
        });
        while self.secrets.iter().filter(|s| !s.pinned).count() > RECENT_TOKENS {
            let oldest = self
                .secrets
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.pinned)
                .min_by_key(|(_, s)| s.seq)
                .map(|(i, _)| i)
                .expect("an unpinned secret exists");
            self.secrets.remove(oldest);
        }
        self.secrets
            .sort_by_key(|s| std::cmp::Reverse(s.finder.needle().len()));
    }
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(RwLock::default)
}

/// The mask for `text`: `[token sha256:1a2b3c4d]`.
pub fn mask(text: &[u8]) -> String {
    format!("[token sha256:{}]", fingerprint(text))
}

/// Registers a token as it is read: the whole text, and its signature (the
/// base64url run after the last `.`) on its own.
pub fn register_token(text: &str) {
    let text = text.trim();
    let whole = mask(text.as_bytes());
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, signature)) = text.rsplit_once('.') {
        let end = signature
            .bytes()
            .position(|b| !is_token_byte(b))
            .unwrap_or(signature.len());
        let signature = &signature[..end];
        registry.add(
            signature.as_bytes(),
            whole.replace("[token", "[signature of token"),
            false,
        );
    }
    registry.add(text.as_bytes(), whole, false);
}

/// Registers a credential that is not a bearer token (a client key), kept for
/// the whole run. PEM is registered line by line: output is matched per line.
pub fn register_credential(text: &[u8]) {
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    let whole = format!("[credential sha256:{}]", fingerprint(text));
    let is_pem = text.starts_with(b"-----BEGIN");
    if is_pem {
        for line in text.split(|&b| b == b'\n') {
            let line = line.trim_ascii();
            if !line.starts_with(b"-----") {
                registry.add(line, whole.clone(), true);
            }
        }
    } else {
        registry.add(text.trim_ascii(), whole, true);
    }
}

/// Registers a bearer credential read from a kubeconfig (a token or a
/// tokenFile's contents), kept for the whole run.
pub fn register_bearer(text: &str) {
    let text = text.trim();
    let mut registry = registry().write().unwrap_or_else(PoisonError::into_inner);
    registry.add(text.as_bytes(), mask(text.as_bytes()), true);
}

/// base64url plus the JWS separator and padding: the bytes a token is made of.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'=')
}

/// JWS compact (header `eyJ…`, each segment optionally `=`-padded; the
/// signature may be empty) or a bootstrap token (boundaries checked by hand:
/// the regex crate has no look-around).
fn shapes() -> &'static Regex {
    static SHAPES: OnceLock<Regex> = OnceLock::new();
    SHAPES.get_or_init(|| {
        Regex::new(
            r"eyJ[A-Za-z0-9_-]*=*\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]*=*|[a-z0-9]{6}\.[a-z0-9]{16}",
        )
        .expect("the token shapes are a valid regex")
    })
}

/// Whether a shape match stands as a token: a JWS anywhere; a bootstrap token
/// only when not part of a longer word, host name or version.
fn stands_alone(text: &[u8], start: usize, end: usize) -> bool {
    if text[start..].starts_with(b"eyJ") {
        return true;
    }
    let before = start.checked_sub(1).map(|i| text[i]);
    let after = text.get(end).copied();
    !before.is_some_and(is_token_byte) && !after.is_some_and(is_token_byte)
}

/// Whether `text` as a whole is a token (JWS or bootstrap), optionally after
/// `Bearer `: for "this looks like a token, not a path" hints.
pub fn looks_like_token(text: &str) -> bool {
    let text = text.trim();
    let text = text
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("bearer "))
        .map_or(text, |_| text[7..].trim_start());
    shapes()
        .find(text.as_bytes())
        .is_some_and(|m| m.start() == 0 && m.end() == text.len())
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

/// [`redact`] over bytes.
pub fn redact_bytes(text: &[u8]) -> Cow<'_, [u8]> {
    let mut current = Cow::Borrowed(text);
    {
        let registry = registry().read().unwrap_or_else(PoisonError::into_inner);
        for secret in &registry.secrets {
            if secret.finder.find(&current).is_some() {
                current = Cow::Owned(replace_all(&current, secret));
            }
        }
    }
    // Both shapes contain a '.'; most text without one skips the regex.
    if memchr::memchr(b'.', &current).is_none() {
        return current;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    for m in shapes().find_iter(&current) {
        if !stands_alone(&current, m.start(), m.end()) {
            continue;
        }
        let buf = out.get_or_insert_with(|| Vec::with_capacity(current.len()));
        buf.extend_from_slice(&current[copied..m.start()]);
        buf.extend_from_slice(mask(m.as_bytes()).as_bytes());
        copied = m.end();
    }
    match out {
        None => current,
        Some(mut buf) => {
            buf.extend_from_slice(&current[copied..]);
            Cow::Owned(buf)
        }
    }
}

fn replace_all(text: &[u8], secret: &Secret) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    for start in secret.finder.find_iter(text) {
        // Overlapping occurrences: the earlier one was already masked whole.
        if start < copied {
            continue;
        }
        out.extend_from_slice(&text[copied..start]);
        out.extend_from_slice(secret.mask.as_bytes());
        copied = start + secret.finder.needle().len();
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
    /// Wraps `inner`.
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
        let head: Vec<u8> = self.pending.drain(..cut).collect();
        self.inner.write_all(&redact_bytes(&head))
    }
}

impl<W: Write> Write for Redacted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
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
    fn bootstrap_tokens_are_masked() {
        let out = redact("join with abcdef.0123456789abcdef now");
        assert!(!out.contains("0123456789abcdef"), "{out}");
        let out = redact("token=\"07401b.f395accd246ae52d\"");
        assert!(!out.contains("f395accd246ae52d"), "{out}");
    }

    #[test]
    fn near_misses_stay() {
        for text in [
            "v1.34.1",
            "kube-apiserver v1.34.1+k3s1",
            "kid mbTcd_bTq-VEyLxWg1fU5YSdvr3TZTXIJULVYeBr_HU",
            "uid 8f7c4c44-7f2e-4f3a-9a59-0b7d1f2b8a11",
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0",
            "node-abcdef.0123456789abcdef.example.com",
            "abcdef.0123456789abcdefg",
            "ABCDEF.0123456789ABCDEF",
            "system:serviceaccount:default:builder",
            "https://kubernetes.default.svc.cluster.local",
        ] {
            assert_eq!(redact(text), text);
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
        assert!(out.contains("[signature of token sha256:"), "{out}");
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
        assert!(looks_like_token(JWS));
        assert!(looks_like_token(&format!("Bearer {JWS}")));
        assert!(looks_like_token("abcdef.0123456789abcdef"));
        assert!(!looks_like_token("token.jwt"));
        assert!(!looks_like_token(&format!("{JWS}.txt/x")));
        assert!(!looks_like_token("/var/run/secrets/token"));
    }
}
