//! The engine: a [`Case`] in, a [`Diagnosis`] out, through every rule in one
//! fixed order, so that `probe`, `classify`, `doctor` and the audit view give
//! the same answer to the same evidence.
//!
//! Order matters only among equals (the merge is stable): the server's own
//! reasons first, then what the API and the keys say, then the token's times,
//! then the other servers, and the guesses last, only when nothing
//! authoritative explains a 401.

use super::case::{Answer, Case};
use super::classification::Classification;
use super::merge::{Confidence, Diagnosis, Findings};
use super::rules;
use super::support::{Support, SupportKind};

/// Diagnoses one request and its answer.
pub fn diagnose(case: &Case<'_>) -> Diagnosis {
    let mut f = Findings::default();
    for note in &case.notes {
        f.note(note.clone());
    }
    rules::transport::rule(case, &mut f);
    // A service that judged the token itself (a cloud's token exchange,
    // Vault's role) answered: its status is its own, and kube-apiserver's
    // authenticators and authorizers never saw the request.
    if matches!(&case.answer, Answer::Http(h) if h.verdict.is_some()) {
        rules::services::rule(case, &mut f);
        rules::time::rule(case, &mut f);
        return f.rank(case);
    }
    rules::checker::rule(case, &mut f);
    rules::server_setup::rule(case, &mut f);
    rules::services::rule(case, &mut f);
    rules::admission::rule(case, &mut f);
    rules::authn::rule(case, &mut f);
    rules::answer::rule(case, &mut f);
    rules::anonymous::rule(case, &mut f);
    rules::rbac::rule(case, &mut f);
    rules::authn_config::rule(case, &mut f);
    rules::image_pull::rule(case, &mut f);
    rules::bindings::rule(case, &mut f);
    rules::keys::rule(case, &mut f);
    rules::time::rule(case, &mut f);
    rules::servers::rule(case, &mut f);
    rules::audit::rule(case, &mut f);
    if case.classification() == Classification::Unauthorized && !f.any_at_least(Confidence::High) {
        rules::bindings::guesses(case, &mut f);
        rules::keys::guesses(case, &mut f);
        rules::answer::bare_unauthorized(case, &mut f);
    }
    for a in &case.anonymous {
        f.note(Support::new(SupportKind::Anonymous, anonymous_words(a)));
    }
    f.rank(case)
}

fn anonymous_words(a: &super::case::AnonymousAnswer) -> String {
    let meaning = match a.status {
        401 => "anonymous authentication is off on this server",
        403 if a.as_anonymous => {
            "as system:anonymous: anonymous authentication is on, and only the token identifies you"
        }
        403 => "forbidden",
        200..=299 => "answered without credentials",
        _ => "",
    };
    format!(
        "without the token, {}: HTTP {} {meaning}",
        a.request, a.status
    )
    .trim_end()
    .to_owned()
}
