//! kube-apiserver's authentication error aggregate, wherever it is:
//!
//! - the authenticator's own log line: `"Unable to authenticate the request"
//!   err="[…]"` (1.21+, kube-apiserver; also the kubelet's and
//!   kube-rbac-proxy's authenticators), `Unable to authenticate the request
//!   due to an error: […]` (≤1.20), zap's `{"error": "…"}`;
//! - passed on by a checker: Vault's `lookup failed: […]`, istiod's `the
//!   service account authentication returns an error: […]`, a TokenReview's
//!   `status.error` pasted alone;
//! - one of its messages alone (`Token is invalid: square/go-jose: error in
//!   cryptographic primitive`, `service account token has expired`).
//!
//! The aggregate itself is read by [`crate::diagnosis::reasons`].

use std::sync::LazyLock;

use super::super::reasons::{AuthReason, matching_bracket, parse_auth_error};
use super::needles::Needles;
use crate::vocabulary::authenticators::{LOGGED_FROM, STAND_ALONE};
use crate::vocabulary::checkers::AGGREGATE_RELAYS;

/// kube-apiserver's message before the aggregate.
pub const MESSAGE: &str = "Unable to authenticate the request";

/// An aggregate found in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregate {
    pub reasons: Vec<AuthReason>,
    /// The program that passed it on, when the text names it.
    pub from: Option<&'static str>,
    pub format: &'static str,
    /// The aggregate is only `Unauthorized` (or another HTTP status word):
    /// the authenticator's own call failed (a webhook authenticator), no
    /// token reason at all.
    pub own_call_failed: Option<String>,
}

/// Reads the line the authenticator logged, from its raw (still escaped) text.
pub fn authenticator_line(raw: &str) -> Option<Aggregate> {
    let at = raw.find(MESSAGE)?;
    let rest = &raw[at + MESSAGE.len()..];
    let (err, format) = if let Some(i) = rest.find("err=\"") {
        (read_quoted(&rest[i + 5..], '"'), "structured")
    } else if let Some(i) = rest.find("due to an error: ") {
        let text = rest[i + 17..].trim();
        (text.trim_end_matches('"').to_owned(), "klog")
    } else if let Some(i) = rest
        .find("\"error\": \"")
        .or_else(|| rest.find("\"error\":\""))
    {
        let start = rest[i..].find(": \"").map_or(i + 9, |j| i + j + 3);
        (read_quoted(&rest[start..], '"'), "zap")
    } else if let Some(i) = rest.find("err=") {
        // logfmt's bare value, or a paste that lost its quotes: the rest.
        (rest[i + 4..].trim().to_owned(), "structured")
    } else {
        return None;
    };
    let err = err.trim();
    if err.is_empty() {
        return None;
    }
    Some(found(err, None, format))
}

fn found(err: &str, from: Option<&'static str>, format: &'static str) -> Aggregate {
    let status_word = matches!(err, "Unauthorized" | "Forbidden")
        || err.starts_with("Unauthorized:")
        || err.starts_with("the server has asked for the client to provide credentials");
    Aggregate {
        reasons: if status_word {
            Vec::new()
        } else {
            parse_auth_error(err)
        },
        from,
        format,
        own_call_failed: status_word.then(|| err.to_owned()),
    }
}

/// A quoted string read after its opening quote (`a \"b\""`): the text up to
/// the first `quote` not escaped by a backslash, with `\n`, `\t` and other
/// escapes undone; all of it when the line was cut short.
pub(super) fn read_quoted(rest: &str, quote: char) -> String {
    let mut out = String::new();
    let mut escaped = false;
    for c in rest.chars() {
        if escaped {
            out.push(match c {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return out;
        } else {
            out.push(c);
        }
    }
    out
}

/// Who passes an aggregate on, from the words before it.
fn relayed_by(before: &str) -> Option<&'static str> {
    AGGREGATE_RELAYS
        .iter()
        .find_map(|&(needle, who)| before.contains(needle).then_some(who))
}

/// An aggregate (`[invalid bearer token, …]`) anywhere in an unwrapped line.
pub fn bracketed(line: &str) -> Option<Aggregate> {
    let at = line.find("[invalid bearer token")?;
    let rest = &line[at..];
    let end = matching_bracket(rest).map_or(rest.len(), |e| e + 1);
    Some(found(&rest[..end], relayed_by(&line[..at]), "aggregate"))
}

/// One of the aggregate's messages alone in a line.
pub fn alone(line: &str) -> Option<Aggregate> {
    // Go's TLS errors quote crypto/rsa too ("possibly because of …"); an
    // x509 text is an authenticator's only where it opens a message of its own.
    if line.contains("x509:")
        && !STAND_ALONE
            .iter()
            .any(|m| m.starts_with("x509:") && line.contains(m))
    {
        return None;
    }
    static ANY: LazyLock<Needles> =
        LazyLock::new(|| Needles::new(STAND_ALONE.iter().copied(), false));
    if !ANY.any(line) {
        return None;
    }
    let at = STAND_ALONE.iter().filter_map(|m| line.find(m)).min()?;
    let text = line[at..].trim_end_matches(['"', '\'', '}', ')', ' ', '.']);
    // Keep a literal's own final period ("Token has expired.").
    let end = at + text.len() + usize::from(line[at + text.len()..].starts_with('.'));
    let reasons = parse_auth_error(&line[at..end]);
    let known = reasons
        .first()
        .is_some_and(|r| r.kind != super::super::reasons::ReasonKind::Unrecognised);
    if !known {
        return None;
    }
    Some(Aggregate {
        reasons,
        from: relayed_by(&line[..at]),
        format: "reason",
        own_call_failed: None,
    })
}

/// `authentication.go:75` -> the kube-apiserver versions that log from there.
pub fn era_of_caller(caller: &str) -> Option<String> {
    let n: u32 = caller
        .split_once("authentication.go:")?
        .1
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    let (_, versions) = LOGGED_FROM.iter().find(|(line, _)| *line == n)?;
    Some(format!(
        "logged from authentication.go:{n}: kube-apiserver {versions}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::reasons::ReasonKind;

    #[test]
    fn the_authenticators_own_lines() {
        let f = authenticator_line(
            r#""Unable to authenticate the request" err="[invalid bearer token, serviceaccounts \"reporter\" not found]""#,
        )
        .unwrap();
        assert_eq!(f.format, "structured");
        assert_eq!(f.reasons[1].values.name.as_deref(), Some("reporter"));
        let f = authenticator_line(
            "Unable to authenticate the request due to an error: [invalid bearer token, Token has expired.]",
        )
        .unwrap();
        assert_eq!((f.format, f.reasons[1].kind), ("klog", ReasonKind::Expired));
        // logfmt's bare value, or a paste that lost its quotes.
        let f = authenticator_line(
            "Unable to authenticate the request err=[invalid bearer token, service account token has expired]",
        )
        .unwrap();
        assert_eq!(
            (f.format, f.reasons[1].kind),
            ("structured", ReasonKind::Expired)
        );
        // Cut short in the paste.
        let f = authenticator_line(
            r#""Unable to authenticate the request due to an error" err="[invalid bearer token, square/go-jose: error in cryptographi"#,
        )
        .unwrap();
        assert_eq!(f.reasons[1].kind, ReasonKind::CryptographicPrimitive);
        let f = authenticator_line(
            r#"Unable to authenticate the request      {"component": "vcluster", "error": "invalid bearer token"}"#,
        )
        .unwrap();
        assert_eq!((f.format, f.reasons.len()), ("zap", 1));
        let f =
            authenticator_line("Unable to authenticate the request due to an error: Unauthorized")
                .unwrap();
        assert_eq!(f.own_call_failed.as_deref(), Some("Unauthorized"));
    }

    #[test]
    fn passed_on_or_alone() {
        let f = bracketed("login unauthorized due to: lookup failed: [invalid bearer token, Token has been invalidated]").unwrap();
        assert_eq!(f.from, Some("Vault"));
        assert_eq!(f.reasons[1].kind, ReasonKind::TokenInvalidatedOldWording);
        let f = alone("    Token is invalid: square/go-jose: error in cryptographic primitive")
            .unwrap();
        assert_eq!(f.reasons[0].kind, ReasonKind::CryptographicPrimitive);
        let f = alone("[2021] the token: Token has expired. Retrying").unwrap();
        assert_eq!(f.reasons[0].kind, ReasonKind::Expired);
        assert!(alone("x509: certificate signed by unknown authority (possibly because of \"crypto/rsa: verification error\")").is_none());
        assert!(alone("all good").is_none());
        // The request-header authenticator's own x509 words.
        let f = alone("W0319 17:06:39.048609       1 x509.go:168] x509: subject with cn=kube-apiserver is not in the allowed list: [aggregator]").unwrap();
        assert_eq!(f.reasons[0].kind, ReasonKind::RequestHeaderNotAllowed);
    }
}
