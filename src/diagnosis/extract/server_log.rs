//! A server's own log lines (an authorizer's trace, an authenticator that could
//! not start, `KIND "NAME" not found`): clues beside an answer, never answers;
//! a part of a program's own setup that failed (a server's, or a client's
//! credential source) is a result of its own.

use std::sync::LazyLock;

use super::excerpt;
use super::needles::{Needles, parts_in_order};
use crate::diagnosis::case::{BindingKind, ServerFailure};
use crate::vocabulary::wordings::SETUP_FAILURES;

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
    SETUP_FAILURES.iter().find_map(|w| {
        let (at, end) = parts_in_order(line, w.text, true)?;
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
        Some(ServerFailure {
            cause: w.cause?,
            component: w.printed_by,
            detail: excerpt(if detail.is_empty() {
                "(no error text)"
            } else {
                detail
            }),
        })
    })
}

/// `KIND "NAME" not found` in a server's log line: a clue, not an answer.
pub(super) fn missing(line: &str) -> Option<(BindingKind, String)> {
    let at = line.find("\" not found")?;
    let before = &line[..at];
    let open = before.rfind('"')?;
    let name = &before[open + 1..];
    let kind_word = before[..open].trim_end().rsplit([' ', ':', '"']).next()?;
    let kind = match kind_word {
        "secrets" | "secret" => BindingKind::Secret,
        "pods" | "pod" => BindingKind::Pod,
        "serviceaccounts" | "serviceaccount" => BindingKind::ServiceAccount,
        "nodes" | "node" => BindingKind::Node,
        _ => return None,
    };
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
    }
}
