//! A server's own log lines (an authorizer's trace, an authenticator that could
//! not start, `KIND "NAME" not found`): clues beside an answer, never answers;
//! a part of a program's own setup that failed (a server's, or a client's
//! credential source) is a result of its own.

use std::sync::LazyLock;

use super::excerpt;
use super::needles::{Needles, parts_in_order};
use crate::diagnosis::artefact::{REVIEWED, Review};
use crate::diagnosis::facts::{BindingKind, ServerFailure};
use crate::vocabulary::cause::Cause;
use crate::vocabulary::wordings::{
    CHAIN_MEMBER_DOUBT, CHAIN_MEMBERS, PLUGIN_EXIT_DOUBT, PLUGIN_EXITED, SECRET_NAME_DOUBT,
    SECRET_NAME_WARNING, SETUP_FAILURES, TOKEN_VERDICTS,
};

/// A server's log line about its own work (an authorizer's trace, an
/// authenticator that could not start): context, never an answer.
pub(super) fn server_note(line: &str) -> Option<String> {
    if let Some(i) = line.find("RBAC DENY: ") {
        return Some(format!(
            "the RBAC authorizer logged a denial (another authorizer may still allow the request): {}",
            excerpt(&line[i + 11..])
        ));
    }
    if let Some(i) = line.find("Failed calling webhook, failing ") {
        return Some(format!(
            "kube-apiserver logged a failed call to an admission webhook (its own call, not a client's answer): {}",
            excerpt(&line[i..])
        ));
    }
    None
}

/// A program's line saying a part of its own setup failed (a server's part
/// that cannot start, a client's credential source): the cause, who logged
/// it and what it said, from [`SETUP_FAILURES`].
pub(super) fn server_failure(line: &str) -> Option<ServerFailure> {
    static ANY: LazyLock<Needles> = LazyLock::new(|| {
        let first = |text: &'static str| text.split(" …").next().unwrap_or(text);
        Needles::new(SETUP_FAILURES.iter().map(|w| first(w.text)), true)
    });
    if !ANY.any(line) {
        return None;
    }
    // A credential source that quotes the refusal it got (an exec plugin's
    // stderr holding a cloud's error) failed because of it: the refusal is
    // the answer, read by the exchange reader.
    let refused = || super::exchange::find(line).is_some();
    SETUP_FAILURES.iter().find_map(|w| {
        let (at, end) = parts_in_order(line, w.text, true)?;
        if w.cause == Some(Cause::CredentialSourceFailed) && refused() {
            return None;
        }
        let detail = if w.text.ends_with(" …") {
            // klog's structured `"…" err="…"`, or a wrapper's `…: <error>`.
            let rest = line[end..].trim_start_matches(['"', ':', ' ']);
            rest.strip_prefix("err=")
                .unwrap_or(rest)
                .trim()
                .trim_matches('"')
        } else {
            line[at..].trim()
        };
        // A lookup of the token Secret that got an answer (a 403 on the
        // ServiceAccount), or none at all, failed for that reason, not for
        // want of the Secret: the answer's or the transport's readers read it.
        let answered = || {
            let rest = &line[at..];
            super::status::template_of(rest).is_some()
                || super::status::generic_text(rest).is_some()
                || super::transport::detect_all(rest).is_some()
        };
        if w.cause == Some(Cause::LegacyTokenNotGenerated) && answered() {
            return None;
        }
        // A credential source whose words say which part failed, not why: a
        // plugin's exit (its reason printed before), its own call that got no
        // answer; or one member of a chain that goes on to the next.
        let unanswered = super::transport::detect_all(detail).is_some_and(|(c, _)| !c.is_tls());
        let source_doubt = if PLUGIN_EXITED.contains(w) || unanswered {
            Some(PLUGIN_EXIT_DOUBT)
        } else {
            CHAIN_MEMBERS.contains(w).then_some(CHAIN_MEMBER_DOUBT)
        };
        let doubt = source_doubt
            .filter(|_| w.cause == Some(Cause::CredentialSourceFailed))
            .or((*w == SECRET_NAME_WARNING).then_some(SECRET_NAME_DOUBT));
        Some(ServerFailure {
            cause: w.cause?,
            component: w.printed_by,
            detail: excerpt(if detail.is_empty() {
                "(no error text)"
            } else {
                detail
            }),
            doubt,
        })
    })
}

/// A webhook token authenticator's log line about a token it judged
/// ([`TOKEN_VERDICTS`]): its TokenReview answer, the user it named, and for
/// a denial its reason.
pub(super) fn token_verdict(line: &str) -> Option<(Review, Option<String>)> {
    // The field's value first (cheap), then the field, with or without its
    // quotes.
    let unquoted = |s: &str| s.replace('"', "");
    let row = TOKEN_VERDICTS.iter().find(|w| {
        let value = w.text.rsplit(['=', ':']).next().unwrap_or(w.text);
        line.contains(value.trim_matches('"')) && unquoted(line).contains(&unquoted(w.text))
    })?;
    // logfmt's `KEY=VALUE` or `KEY="VALUE"`, JSON's `"KEY":"VALUE"`.
    let field = |key: &str| {
        [format!(" {key}="), format!("\"{key}\":")]
            .iter()
            .find_map(|k| {
                let (_, rest) = line.split_once(k.as_str())?;
                let value = match rest.strip_prefix('"') {
                    Some(quoted) => quoted.split('"').next()?,
                    None => rest.split([',', ' ', '}']).next()?,
                };
                (!value.is_empty()).then(|| excerpt(value))
            })
    };
    let authenticated = row.cause == Some(Cause::None);
    let reason = (!authenticated).then(|| field("error").unwrap_or_else(|| excerpt(line.trim())));
    let review = Review {
        authenticated,
        user: field("username"),
        audiences: Vec::new(),
        shown_by: REVIEWED,
    };
    Some((review, reason))
}

/// `KIND "NAME" not found` in a server's log line: a clue, not an answer.
pub(super) fn missing(line: &str) -> Option<(BindingKind, String)> {
    let at = line.find("\" not found")?;
    let before = &line[..at];
    let open = before.rfind('"')?;
    let name = &before[open + 1..];
    let kind_word = before[..open].trim_end().rsplit([' ', ':', '"']).next()?;
    // Each kind's resource is its name and `s`.
    let singular = kind_word.strip_suffix('s').unwrap_or(kind_word);
    let kind = *BindingKind::ALL.iter().find(|k| k.as_str() == singular)?;
    (!name.is_empty()).then(|| (kind, name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setup_failure_row_is_read_with_its_cause_in_a_line_of_its_own() {
        for w in SETUP_FAILURES {
            // The row with values in its gaps, as a program logs it, after a
            // prefix of its own and in another case.
            let filled = w.text.replace(" … ", " 'x' ").replace(" …", " boom");
            for line in [format!("E0101 main.go:1] {filled}"), filled.to_lowercase()] {
                let f = server_failure(&line).unwrap_or_else(|| panic!("{line}"));
                assert_eq!(
                    (Some(f.cause), f.component),
                    (w.cause, w.printed_by),
                    "{line}"
                );
                let detail = if w.text.ends_with(" …") {
                    "boom"
                } else {
                    "environment"
                };
                assert!(
                    f.detail.to_lowercase().contains(detail) || !filled.contains(detail),
                    "{line}: {}",
                    f.detail
                );
            }
        }
        assert!(server_failure("exec plugin is configured").is_none());
        assert!(server_failure("credential provider registered").is_none());
        // The plugin's own refusal is the answer.
        let quoted = r#"Error: auth error: auth exec command '"aws" "eks" "get-token"' failed with status exit status: 254: Output { stderr: "An error occurred (AccessDenied) when calling the AssumeRole operation: User: arn:aws:iam::1:user/u is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::1:role/r\n" }"#;
        assert!(server_failure(quoted).is_none());
        // A lookup of the token Secret that was refused: the 403 is the answer.
        let refused = r#"FATA[0032] Failed to wait for service account secret: serviceaccounts "argocd-manager" is forbidden: User "system:serviceaccount:a:b" cannot get resource "serviceaccounts" in API group "" in the namespace "kube-system""#;
        assert!(server_failure(refused).is_none());
        let unanswered = r#"FATA[0032] Failed to wait for service account secret: Get "https://10.0.0.1:6443/api/v1/namespaces/kube-system/serviceaccounts/argocd-manager": dial tcp 10.0.0.1:6443: i/o timeout"#;
        assert!(server_failure(unanswered).is_none());
    }

    #[test]
    fn a_webhook_authenticator_s_verdict_is_its_token_review() {
        for line in [
            r#"time="2022-05-26T18:55:30Z" level=info msg="access granted" arn="arn:aws:iam::1:user/u" groups="[system:masters]" uid="aws-iam-authenticator:1:A" username=kubernetes-admin"#,
            r#"{"arn":"arn:aws:iam::1:user/u","level":"info","msg":"access granted","username":"kubernetes-admin"}"#,
            "level=info msg=access granted arn=arn:aws:iam::1:user/u username=kubernetes-admin",
        ] {
            let (r, reason) = token_verdict(line).unwrap_or_else(|| panic!("{line}"));
            assert!(r.authenticated && reason.is_none(), "{line}");
            assert_eq!(r.user.as_deref(), Some("kubernetes-admin"), "{line}");
        }
        for (line, why) in [
            (
                r#"time="2021-10-18T21:17:08Z" level=warning msg="access denied" arn="arn:aws:iam::1:role/R" client="127.0.0.1:40378" error="ARN is not mapped" method=POST path=/authenticate"#,
                "ARN is not mapped",
            ),
            (
                r#"{"level":"warning","msg":"access denied","error":"input token was not properly formatted: X-Amz-Date parameter is expired (15 minute expiration)"}"#,
                "input token was not properly formatted: X-Amz-Date parameter is expired (15 minute expiration)",
            ),
            (
                r#"level=warning msg="access denied because role is not mapped" role="arn:aws:iam::1:role/R""#,
                r#"level=warning msg="access denied because role is not mapped" role="arn:aws:iam::1:role/R""#,
            ),
        ] {
            let (r, reason) = token_verdict(line).unwrap_or_else(|| panic!("{line}"));
            assert!(!r.authenticated, "{line}");
            assert_eq!(reason.as_deref(), Some(why), "{line}");
        }
        assert!(token_verdict("access granted to the bucket").is_none());
        assert!(token_verdict("access denied for user").is_none());
    }
}
