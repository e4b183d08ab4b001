//! Pure: reads kube-apiserver's authentication error aggregate, the text after
//! `err=` in `"Unable to authenticate the request" err="[…]"` and in a
//! TokenReview's `status.error`, into typed reasons.
//!
//! The aggregate is `utilerrors.NewAggregate` output (k8s.io/apimachinery
//! pkg/util/errors): one message, or `[a, b, c]`. The messages themselves contain
//! `, ` ("invalid signature, no keys found", the legacy invalid-since text), so the
//! list is never split naively: it is read left to right, matching KNOWN message
//! shapes, and a message ends only where `, ` is followed by another known message.
//! Anything else is kept verbatim as [`ReasonKind::Unrecognised`].
//!
//! Wordings and the versions that print them come from pkg/serviceaccount
//! (jwt.go, claims.go, legacy.go) across 1.10–1.36 and go-jose v2 (see
//! /work/shared/k8s-token-semantics.md section 3 and docs/classify.md). `probe
//! --token-review` reuses [`parse_auth_error`] for `status.error`.
//!
//! The messages and their versions are the rows of
//! [`crate::vocabulary::authenticators::MESSAGES`] (which `explain` lists);
//! this file reads them. Its tests are in `reasons/tests.rs`.

pub use super::facts::{AuthReason, Authenticator, ReasonValues, specific};
pub use crate::vocabulary::authenticators::{OIDC_ERA, ReasonKind};

/// How far a matched message extends.
enum Extent {
    Exact(usize),
    /// Up to the next `, <known message>` or the end.
    ToBoundary,
}

use crate::vocabulary::authenticators::{
    JOSE_OPEN, JOSE_SPELLINGS, LEGACY_CLAIMS, MESSAGES, Matcher, Message, Shape, Value,
    X509_WRAPPER,
};
use ReasonKind as K;

/// Most bytes of an aggregate parsed into reasons; the rest becomes one
/// unrecognised reason. Real aggregates are a few hundred bytes (two or three
/// messages); a multi-megabyte `err=` is not one, and bounding it keeps the
/// work per line constant past this size.
pub const MAX_PARSED_BYTES: usize = 16 * 1024;

/// Most bytes one matcher looks at from where a message may start. The
/// longest known message (the 1.29+ legacy-token text) is under 400 bytes;
/// without this bound a structured matcher whose opening matches scans to
/// the end of the line for its closing, at every `, ` of the line: quadratic.
const MAX_MESSAGE_BYTES: usize = 2 * 1024;

/// The longest prefix of `text` that is at most `limit` bytes, and the rest.
fn split_at_most(text: &str, limit: usize) -> (&str, &str) {
    text.split_at(text.floor_char_boundary(limit))
}

/// Parses an authentication error aggregate (`[a, b]` or a single message).
/// Never fails: unknown text becomes [`ReasonKind::Unrecognised`] reasons.
///
/// Nested aggregates (`[invalid bearer token, [a, b]]`: a union authenticator
/// inside another, webhook authenticators) are flattened. An aggregate cut
/// short (a log line truncated in a paste) still names its last message when
/// what is left is the start of a known one.
///
/// Linear in the text: matching is bounded per position
/// ([`MAX_MESSAGE_BYTES`]) and parsing per aggregate ([`MAX_PARSED_BYTES`]).
pub fn parse_auth_error(text: &str) -> Vec<AuthReason> {
    let mut text = text.trim();
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        text = inner.trim();
    }
    let (text, unparsed) = split_at_most(text, MAX_PARSED_BYTES);
    let mut reasons = Vec::new();
    parse_into(text, &mut reasons, 0);
    if !unparsed.is_empty() {
        reasons.push(AuthReason {
            cut: true,
            ..AuthReason::unrecognised(unparsed)
        });
    }
    reasons
}

fn parse_into(text: &str, reasons: &mut Vec<AuthReason>, depth: usize) {
    let mut text = text.trim();
    // `[…]`, or `[…` cut short.
    let mut cut = false;
    if let Some(inner) = text.strip_prefix('[') {
        match matching_bracket(text) {
            Some(end) if end == text.len() - 1 => text = inner[..end - 1].trim(),
            Some(_) => {}
            None => {
                text = inner.trim();
                cut = true;
            }
        }
    }
    let mut rest = text;
    while !rest.is_empty() && reasons.len() < 64 {
        if rest.starts_with('[') && depth < 8 {
            let end = matching_bracket(rest).map_or(rest.len(), |e| e + 1);
            parse_into(&rest[..end], reasons, depth + 1);
            rest = rest[end..].trim_start_matches(',').trim_start();
            continue;
        }
        // The last message of an aggregate cut short: the known message it begins.
        if cut
            && next_boundary(rest) == rest.len()
            && let Some(pattern) = truncated_literal(rest)
        {
            let values = ReasonValues {
                detail: Some("cut short in the evidence".to_owned()),
                ..ReasonValues::default()
            };
            reasons.push(reason_of(pattern, rest, values, true));
            break;
        }
        if let Some(inner) = x509_unwrapped(rest) {
            rest = inner;
        }
        let (reason, used) = match match_at(rest) {
            Some((pattern, extent, mut values)) => {
                let len = match extent {
                    // A known whole message must end at a separator or the end;
                    // otherwise it was only the start of something longer.
                    Extent::Exact(len)
                        if rest[len..].starts_with(", ") || rest[len..].trim().is_empty() =>
                    {
                        len
                    }
                    _ => next_boundary(rest),
                };
                if let Matcher::Prefix(open) = pattern.matcher {
                    let detail = rest[open.len().min(len)..len].trim_start_matches([':', ' ']);
                    values.detail = (!detail.is_empty()).then(|| detail.to_owned());
                }
                // The last message of an aggregate cut short, read only by
                // its opening words: what it went on to say is lost.
                let cut =
                    cut && len == rest.len() && !matches!(pattern.matcher, Matcher::Literal(_));
                (reason_of(pattern, &rest[..len], values, cut), len)
            }
            None => {
                let len = next_boundary(rest);
                (AuthReason::unrecognised(&rest[..len]), len)
            }
        };
        reasons.push(reason);
        rest = rest[used..].trim_start_matches(',').trim_start();
    }
}

/// A message of `pattern`; one `cut` short is not read as a JWT authenticator's.
fn reason_of(pattern: &Message, message: &str, values: ReasonValues, cut: bool) -> AuthReason {
    AuthReason {
        kind: pattern.kind,
        cause: pattern.cause,
        era: pattern.era,
        message: message.to_owned(),
        values,
        authenticator: authenticator_of(pattern),
        jwt: (pattern.era == OIDC_ERA && !cut)
            .then(|| super::wordings::JwtRejection::parse(message))
            .flatten(),
        cut,
    }
}

/// The authenticator whose answer a known message is: the OIDC wordings are
/// the JWT authenticator's (oidc.go, go-oidc), the x509 ones the client
/// certificate authenticator's, Vault's its own; the union's generic answer is
/// nobody's in particular; the rest are the ServiceAccount authenticator's
/// (pkg/serviceaccount) or go-jose's inside it.
fn authenticator_of(pattern: &Message) -> Authenticator {
    match pattern.kind {
        _ if pattern.era == OIDC_ERA => Authenticator::Jwt,
        K::InvalidBearerToken => Authenticator::Any,
        K::CheckerClaimInvalid => Authenticator::Checker,
        K::ClientCertificateInvalid
        | K::ClientCertificateExpired
        | K::ClientCertificateNotYetValid
        | K::ClientCertificateUntrusted
        | K::RequestHeaderNotAllowed => Authenticator::ClientCertificate,
        _ => Authenticator::ServiceAccount,
    }
}

/// The index of the `]` that closes the `[` at the start of `text`.
pub(crate) fn matching_bracket(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The known whole message `text` is the beginning of (at least 16 bytes of
/// it), for an aggregate cut short.
fn truncated_literal(text: &str) -> Option<&'static Message> {
    if text.len() < 16 {
        return None;
    }
    MESSAGES.iter().find(|p| match p.matcher {
        Matcher::Literal(lit) => lit.len() > text.len() && lit.starts_with(text),
        _ => false,
    })
}

/// Go's verify error inside the x509 authenticator's wrapper at the start
/// of `text` ([`X509_WRAPPER`]; the certificate's serial is no reason).
fn x509_unwrapped(text: &str) -> Option<&str> {
    let (open, close) = X509_WRAPPER;
    let (_, inner) = text.strip_prefix(open)?.split_once(close)?;
    inner.starts_with("x509: ").then_some(inner)
}

fn match_at(text: &str) -> Option<(&'static Message, Extent, ReasonValues)> {
    let (text, _) = split_at_most(text, MAX_MESSAGE_BYTES);
    MESSAGES.iter().find_map(|pattern| {
        let (extent, values) = match pattern.matcher {
            Matcher::Literal(lit) => text
                .starts_with(lit)
                .then(|| (Extent::Exact(lit.len()), ReasonValues::default()))?,
            Matcher::Prefix(open) => text
                .starts_with(open)
                .then(|| (Extent::ToBoundary, ReasonValues::default()))?,
            Matcher::Uid(shape) => uid_mismatch(text, shape)?,
            Matcher::Shaped(shape, words) => match shape {
                Shape::JoseTime => jose_time(text, words),
                Shape::Value(value) => one_value(text, words, value),
                Shape::AudienceInvalid => audience_invalid(text, words),
                Shape::JwtRule => jwt_authenticator_rule(text),
                Shape::NamespacedName => namespaced_name(text, words),
                Shape::LegacyMarkedInvalid => legacy_marked_invalid(text),
                Shape::LegacyClaim => legacy_claim(text),
                Shape::CertificateWindow => cert_window(text, words),
            }?,
        };
        Some((pattern, extent, values))
    })
}

/// Length up to the next `, ` followed by a known message, or the whole text.
fn next_boundary(text: &str) -> usize {
    boundary(text, |next| match_at(next).is_some())
}

/// [`next_boundary`] by the fixed openings only (literals and prefixes): what
/// a structured matcher uses, so that finding one message's end never
/// structures the next one (which would recurse along a long aggregate).
fn fixed_boundary(text: &str) -> usize {
    boundary(text, |next| {
        MESSAGES.iter().any(|p| match p.matcher {
            Matcher::Literal(open) | Matcher::Prefix(open) => next.starts_with(open),
            Matcher::Uid(_) | Matcher::Shaped(..) => false,
        })
    })
}

/// Length up to the next `, ` followed by a nested aggregate or a message
/// `known` accepts, or the whole text.
fn boundary(text: &str, known: impl Fn(&str) -> bool) -> usize {
    text.match_indices(", ")
        .map(|(at, _)| at)
        .find(|&at| text[at + 2..].starts_with('[') || known(&text[at + 2..]))
        .unwrap_or(text.len())
}

/// `<open>A<mid>B<close>`, as in `service account UID (A) does not match claim (B)`.
fn two_values(text: &str, open: &str, mid: &str, close: &str) -> Option<(usize, String, String)> {
    let rest = text.strip_prefix(open)?;
    let (a, rest) = rest.split_once(mid)?;
    let (b, _) = rest.split_once(close)?;
    if a.contains(", ") || b.contains(", ") {
        return None;
    }
    let len = open.len() + a.len() + mid.len() + b.len() + close.len();
    Some((len, a.to_owned(), b.to_owned()))
}

/// A matched message of this extent, with the values `fill` sets.
fn found(extent: Extent, fill: impl FnOnce(&mut ReasonValues)) -> Option<(Extent, ReasonValues)> {
    let mut values = ReasonValues::default();
    fill(&mut values);
    Some((extent, values))
}

/// `<open>LIVE<mid>CLAIM<close>`, with `shape` the message in that form.
fn uid_mismatch(text: &str, shape: &str) -> Option<(Extent, ReasonValues)> {
    let (open, rest) = shape.split_once("LIVE")?;
    let (mid, close) = rest.split_once("CLAIM")?;
    let (len, live, claim) = two_values(text, open, mid, close)?;
    found(Extent::Exact(len), |v| {
        v.live_uid = Some(live);
        v.claim_uid = Some(claim);
    })
}

/// `x509: certificate has expired or is not yet valid: current time NOW is
/// after NOT_AFTER` (or `is before`) as `words` has it.
fn cert_window(text: &str, words: &str) -> Option<(Extent, ReasonValues)> {
    let (open, which) = words.split_once("NOW")?;
    let which = which.trim_end_matches(|c: char| c.is_ascii_uppercase() || c == '_');
    let times = text.strip_prefix(open)?;
    let times = &times[..times.find(", ").unwrap_or(times.len())];
    if !times.contains(which) {
        return None;
    }
    found(Extent::ToBoundary, |v| v.detail = Some(times.to_owned()))
}

/// `words` with its value's placeholder filled (`token issuer "ISS" is
/// invalid`, `serviceaccounts "NAME" not found`).
fn one_value(text: &str, words: &str, value: Value) -> Option<(Extent, ReasonValues)> {
    let (open, close) = words.split_once(value.placeholder())?;
    let (len, found_value, _) = two_values(text, open, close, "")?;
    found(Extent::Exact(len), |v| match value {
        Value::Issuer => v.issuer = Some(found_value),
        Value::Name => v.name = Some(found_value),
    })
}

/// `words` with its `NAMESPACE/NAME` filled (`service account NS/NAME has
/// been deleted`).
fn namespaced_name(text: &str, words: &str) -> Option<(Extent, ReasonValues)> {
    let (open, close) = words.split_once("NAMESPACE/NAME")?;
    let rest = text.strip_prefix(open)?;
    let (who, _) = rest.split_once(close)?;
    let (ns, name) = who.split_once('/')?;
    if who.contains(' ') {
        return None;
    }
    let len = open.len() + who.len() + close.len();
    found(Extent::Exact(len), |v| {
        v.namespace = Some(ns.to_owned());
        v.name = Some(name.to_owned());
    })
}

/// go-jose's `<module>/jwt: validation f…, <claim's words>` as `words` has
/// them, whichever module path (`square/go-jose`, `go-jose/go-jose`) and
/// either spelling of "validation failed" printed it.
fn jose_time(text: &str, words: &str) -> Option<(Extent, ReasonValues)> {
    let after = |s| JOSE_SPELLINGS.iter().find_map(|f| str::strip_prefix(s, f));
    let claim = after(words.split_once(JOSE_OPEN)?.1)?;
    let (module, rest) = text.split_once(JOSE_OPEN)?;
    let rest = after(rest)?;
    if !module.ends_with("go-jose") || module.contains([' ', ',']) || !rest.starts_with(claim) {
        return None;
    }
    found(Extent::Exact(text.len() - rest.len() + claim.len()), |_| {})
}

/// A JWT authenticator's own rule (`oidc: required claim …`, `oidc: error
/// evaluating claim validation expression: …`, `oidc: email not verified`).
fn jwt_authenticator_rule(text: &str) -> Option<(Extent, ReasonValues)> {
    if !text.starts_with("oidc: ") {
        return None;
    }
    let message = &text[..fixed_boundary(text)];
    let detail = crate::diagnosis::wordings::JwtRejection::parse(message)?.describe();
    found(Extent::ToBoundary, |v| v.detail = Some(detail))
}

/// `token audiences ["a" "b"] is invalid for the target audiences ["c"]` as
/// `words` has it; the lists are Go's `%q` of a string slice
/// (space-separated quoted strings).
fn audience_invalid(text: &str, words: &str) -> Option<(Extent, ReasonValues)> {
    let (open, rest) = words.split_once("[\"AUD\"]")?;
    let (mid, _) = rest.split_once("[\"API_AUD\"]")?;
    let rest = text.strip_prefix(open)?;
    let (token, used_a) = go_string_list(rest)?;
    let rest = rest[used_a..].strip_prefix(mid)?;
    let (target, used_b) = go_string_list(rest)?;
    let len = open.len() + used_a + mid.len() + used_b;
    found(Extent::Exact(len), |v| {
        v.token_audiences = token;
        v.target_audiences = target;
    })
}

/// `["a" "b"]` -> (["a", "b"], bytes used).
fn go_string_list(text: &str) -> Option<(Vec<String>, usize)> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '[' {
        return None;
    }
    let mut items = Vec::new();
    let mut current: Option<String> = None;
    let mut escaped = false;
    for (i, c) in chars {
        match (&mut current, c) {
            (Some(s), _) if escaped => {
                s.push(c);
                escaped = false;
            }
            (Some(_), '\\') => escaped = true,
            (Some(_), '"') => items.push(current.take()?),
            (Some(s), _) => s.push(c),
            (None, '"') => current = Some(String::new()),
            (None, ' ') => {}
            (None, ']') => return Some((items, i + 1)),
            (None, _) => return None,
        }
    }
    None
}

/// 1.29+ legacy cleaner text: `the token in secret NS/SECRET for service account
/// NS/SA has been marked invalid. Use tokens from the TokenRequest API or manually
/// created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since'
/// label from the secret to temporarily allow use of this token`.
fn legacy_marked_invalid(text: &str) -> Option<(Extent, ReasonValues)> {
    const OPEN: &str = "the token in secret ";
    const END: &str = "to temporarily allow use of this token";
    let rest = text.strip_prefix(OPEN)?;
    let (secret, rest) = rest.split_once(" for service account ")?;
    let (sa, _) = rest.split_once(" has been marked invalid")?;
    let (ns, secret) = secret.split_once('/')?;
    let name = sa.split_once('/').map_or(sa, |(_, n)| n);
    let extent = match text.find(END) {
        Some(i) => Extent::Exact(i + END.len()),
        None => Extent::ToBoundary,
    };
    found(extent, |v| {
        v.namespace = Some(ns.to_owned());
        v.name = Some(name.to_owned());
        v.secret = Some(secret.to_owned());
    })
}

/// legacy.go claim checks: `<claim> claim is missing`, `sub claim is invalid`.
fn legacy_claim(text: &str) -> Option<(Extent, ReasonValues)> {
    let whole = LEGACY_CLAIMS
        .iter()
        .flat_map(|claim| [" claim is missing", " claim is invalid"].map(|t| format!("{claim}{t}")))
        .find(|whole| text.starts_with(whole))?;
    found(Extent::Exact(whole.len()), |v| v.detail = Some(whole))
}

#[cfg(test)]
mod tests;
