//! Several servers, one token: servers that disagree (one rejects, another
//! accepts) are the strongest sign of clock skew between API servers, or of
//! replicas with different keys; with `--all-endpoints` the disagreement is the
//! diagnosis itself (`replica-dependent`).

use super::prelude::*;
use crate::diagnosis::facts::Peer;

fn offset_words(offset: Option<(f64, f64)>) -> String {
    match offset {
        Some((estimate, uncertainty)) => {
            format!("clock {}", crate::timefmt::offset_pm(estimate, uncertainty))
        }
        None => "clock unknown".to_owned(),
    }
}

/// A 401 next to servers that accepted the same token.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if case.classification() != C::Unauthorized {
        return;
    }
    let accepted: Vec<String> = case
        .peers
        .iter()
        .filter(|p| p.classification.authenticated())
        .map(|p| format!("{} accepted the token ({})", p.url, offset_words(p.offset)))
        .collect();
    if accepted.is_empty() {
        return;
    }
    let own = case.clock.and_then(|c| c.offset);
    let line = Support::new(
        SupportKind::Servers,
        format!(
            "the servers disagree: {}, {} rejected it ({}): the strongest sign of clock skew between API servers",
            accepted.join(", "),
            case.server.as_deref().unwrap_or("this server"),
            offset_words(own)
        ),
    );
    f.support(Cause::ClockSkew, line.clone());
    f.when(When::NotFound(Cause::ClockSkew), |f| {
        f.add(
            Cause::ClockSkew,
            Basis::Possible,
            vec![
                line,
                Support::new(
                    SupportKind::Servers,
                    "yet the measured offsets keep the token inside its window on the rejecting server: a replica with other signing keys or issuers fits as well",
                ),
            ],
        );
    });
}

/// `--all-endpoints`: replicas that disagree make the answer depend on which
/// replica a request reaches; the facts that say so, if they do.
pub fn replicas(servers: &[Peer]) -> Option<Vec<Support>> {
    let accepted = servers.iter().any(|s| s.classification.authenticated());
    let rejected = servers
        .iter()
        .filter(|s| s.classification == C::Unauthorized)
        .count();
    if !(accepted && rejected > 0) {
        return None;
    }
    let mut lines = vec![Support::new(
        SupportKind::Servers,
        format!(
            "the replicas disagree: {rejected} of {} reject the token, so a request succeeds or fails depending on the replica the Service sends it to",
            servers.len()
        ),
    )];
    for s in servers {
        lines.push(
            Support::new(
                SupportKind::Servers,
                format!("{} ({})", s.classification.as_str(), offset_words(s.offset)),
            )
            .about(&s.url),
        );
    }
    let mut kid_sets: Vec<Vec<&str>> = servers
        .iter()
        .filter_map(|s| Some(s.kids.as_ref()?.iter().map(String::as_str).collect()))
        .collect();
    for set in &mut kid_sets {
        set.sort_unstable();
    }
    if kid_sets.windows(2).any(|w| w[0] != w[1]) {
        for s in servers {
            if let Some(kids) = &s.kids {
                lines.push(
                    Support::new(
                        SupportKind::Servers,
                        format!("serves kids [{}]", kids.join(", ")),
                    )
                    .about(&s.url),
                );
            }
        }
        lines.push(Support::new(
            SupportKind::Servers,
            "the replicas publish different keys: a key rotation that reached only some of them",
        ));
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::{case, diagnosed, http, pod_bound};

    #[test]
    fn a_peer_that_accepts_the_token_makes_skew_a_candidate() {
        let token = pod_bound(-60, 3600);
        let mut c = case(http(401, None), Some(&token));
        c.peers = vec![Peer {
            url: "https://b".into(),
            classification: C::Ok,
            offset: Some((0.0, 0.5)),
            kids: None,
        }];
        let d = diagnosed(&c);
        assert_eq!(d.cause(), Cause::Unknown);
        let skew = d
            .candidates
            .iter()
            .find(|c| c.cause == Cause::ClockSkew)
            .unwrap();
        assert!(skew.support[0].text.contains("servers disagree"));
    }
}
