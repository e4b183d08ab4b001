//! Time: the token judged on the validating server's clock at the moment of the
//! request, with go-jose's rules ([`crate::window`]: accepted while
//! `nbf - 60 s <= now`, `iat - 60 s <= now` and `now <= exp + 60 s`).
//!
//! A token outside its window on the server's own clock (its `Date` header, its
//! log timestamp, an audit stageTimestamp) is strong circumstantial evidence:
//! `medium`. It becomes `high` only when the server itself says so (a log line
//! or TokenReview reason, `rules::authn`), and `low` when the clock is not the
//! server's (this machine's, `--at`, now) or the measurement straddles the
//! window's edge.

use super::prelude::*;
use crate::diagnosis::facts::{ClockSource, Degradation, OffClock, ServerClock, TokenSent};
use crate::timefmt::{human_seconds, rfc3339};
use crate::token::TokenKind;
use crate::window::check::without_grace;
use crate::window::{self, Judgement, TimeClaims, Verdict, ceil_seconds, floor_seconds};

/// A certificate's dates, not a token's, failed on this clock.
fn a_certificate_s_time(case: &Case<'_>) -> bool {
    case.classification() == C::TlsError
}

pub const CLOCK_SKEW: CauseDef = CauseDef {
    title: "Clock skew",
    summary: "A clock is off: a token (or certificate) made on a clock ahead of the one that judges it is not valid yet there",
    explains: &[C::Unauthorized, C::ReplicaDependent, C::TlsError],
    explanation: "\
kube-apiserver accepts a token only while nbf - 60 s <= now (and iat - 60 s <= now) on its \
own clock. Kubernetes tokens carry nbf = iat = the instant they were minted, on the clock \
of the API server that minted them. When another API server (or the same one after its \
clock stepped back) is more than 60 s behind that clock, it rejects the fresh token with \
\"service account token is not valid yet\" until its own clock catches up: a token minted \
90 s ahead fails for about 30 s, then works. Requests succeed or fail depending on which \
replica answers.

The kubelet does not refresh a token minted in the future early, so a pod can be stuck \
with one until nbf - 60 s. The fix is time synchronisation (chrony/NTP) on the \
control-plane nodes; meanwhile wait, or delete the pod so a new token is minted.

Certificates fail the same way: a client whose clock is behind the one that issued the \
API server's certificate sees it as not yet valid (\"x509: certificate has expired or is \
not yet valid: current time X is before Y\"), as do fresh clusters on machines with a \
wrong time or time zone.",
    confirm: Steps::If(
        a_certificate_s_time,
        &Steps::Run(
            "this machine's clock in UTC, to compare with the certificate's notBefore and notAfter (openssl s_client -connect HOST:PORT | openssl x509 -noout -dates)",
            |_| Command::new("date").word("-u"),
        ),
        &Steps::All(&[
            Steps::Run(
                "compare the API servers' clocks: each identity Lease is renewed on its own server's clock",
                |_| {
                    Command::kubectl()
                        .words(&["get", "leases"])
                        .namespace(Some("kube-system"))
                        .words(&[
                            "-l",
                            "apiserver.kubernetes.io/identity=kube-apiserver",
                            "-o",
                            "custom-columns=NAME:.metadata.name,RENEWED:.spec.renewTime",
                        ])
                },
            ),
            Steps::Run("or judge the token on every clock at once", |_| {
                Command::kubectl()
                    .words(&["get", "leases", "-A", "-o", "json"])
                    .pipe_into(
                        Command::satoken()
                            .words(&["skew", "-f", "TOKEN_FILE", "--leases", "-"])
                            .with_placeholders(),
                    )
            }),
        ]),
    ),
    fix: Steps::If(
        a_certificate_s_time,
        &Steps::Say(
            "fix time sync (chrony/NTP, and the time zone) on this machine and on the node that issued the certificate",
        ),
        &Steps::All(&[
            Steps::Run(
                "fix time sync on the control-plane nodes: the one that answered runs behind the one that minted the token",
                |_| Command::new("chronyc").word("tracking"),
            ),
            Steps::Say(
                "or retry once that server's clock has caught up with the token's nbf (the evidence says when)",
            ),
            Steps::Say(
                "a pod stuck with a future-dated token: delete the pod so the kubelet mints a new one (it does not refresh such a token early)",
            ),
        ]),
    ),
    sources: &[
        "go-jose v2 jwt/validation.go ValidateWithLeeway",
        "k8s.io/kubernetes pkg/serviceaccount/claims.go",
        "kubernetes/kubernetes#123415, #124022, #132993 (kubelet keeps future-dated tokens)",
    ],
};

pub const EXPIRED: CauseDef = CauseDef {
    title: "The token has expired",
    summary: "The client sent a token past its exp (plus 60 s leeway) on the server's clock",
    explains: &[C::Unauthorized],
    explanation: "\
kube-apiserver rejects a token once now > exp + 60 s on its own clock (\"service account \
token has expired\"; up to 1.22 \"Token has expired.\"). Projected tokens are short-lived \
(the kubelet requests 3607 s and refreshes at 80 % of that); the kubelet rewrites the \
file, but a client that read it once at start keeps sending the old token. client-go \
re-reads it every minute; many other clients, and anything that copied the token \
elsewhere, do not.

Tokens from kubectl create token last --duration (one hour by default), unless \
--service-account-max-token-expiration or a managed cluster's cap shortens them; \
kube-apiserver then warns \"requested expiration of N seconds shortened to M seconds\" \
(kubectl create token prints it; kubectl satoken decode on the TokenRequest JSON compares \
the two). Clusters that turn off the extended expiry of kubelet tokens \
(--service-account-extend-token-expiration=false) make a one-hour-old copy of the \
mounted token fail too: the diagnosis says so when the token shows it.",
    confirm: Steps::Run(
        "decode the token the client actually sends and compare its exp",
        |_| super::commands::decode_token(),
    ),
    fix: Steps::If(
        super::by_jwt_authenticator,
        &Steps::Say(
            "the identity provider set this exp, not the cluster: log in again, or let the client refresh the token (kubelogin, an exec plugin or the oidc auth-provider does with its refresh token)",
        ),
        &Steps::All(&[
            Steps::Say(
                "in a pod the kubelet rotates the projected token file: make the client re-read it (client-go does every minute; many clients read it once at start)",
            ),
            Steps::Run(
                "outside a pod, mint a fresh token (a longer --duration if needed)",
                super::commands::create_token,
            ),
        ]),
    ),
    sources: &[
        "go-jose v2 jwt/validation.go ValidateWithLeeway",
        "k8s.io/kubernetes pkg/kubelet/token/token_manager.go",
        "k8s.io/client-go transport/token_source.go",
        "k8s.io/kubernetes pkg/registry/core/serviceaccount/storage/token.go (the cap, its warning, the extension)",
    ],
};

/// A 401 with the token and the server's clock: is it outside its window there?
/// And for an accepted token, a clock or an expiry that will make it fail.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if matches!(case.classification(), C::Ok | C::NotFound) {
        for d in &case.degraded {
            match d {
                Degradation::ClockOff { clock, by } => f.add_fact(
                    Cause::ClockSkew,
                    Basis::Inferred,
                    SupportKind::TokenTimes,
                    format!(
                        "{} is off by {}, more than the leeway",
                        match clock {
                            OffClock::Pod => "this pod's clock, against the token's times,",
                            OffClock::ApiServer => "the API server's clock, against this pod's,",
                        },
                        human_seconds(by.num_seconds().abs())
                    ),
                ),
                Degradation::ExpiresSoon { left } => f.add_fact(
                    Cause::Expired,
                    Basis::Inferred,
                    SupportKind::TokenTimes,
                    format!(
                        "accepted now, but the token expires in {} and nothing replaces it in time",
                        human_seconds(left.num_seconds().max(0))
                    ),
                ),
                Degradation::Stale { .. } => {}
            }
        }
    }
    if case.classification() != C::Unauthorized {
        return;
    }
    let Some(token) = case.token else { return };
    if case
        .token_kind()
        .is_some_and(|(k, _)| k == TokenKind::LegacySecret)
    {
        f.note(Support::token(
            "legacy Secret tokens are never time-checked (pkg/serviceaccount/legacy.go): time is not the cause",
        ));
        return;
    }
    let Some(clock) = case.clock else { return };
    let claims = TimeClaims::from(&token.claims);
    let leeway = case.leeway;
    let at_low = window::judge(claims, clock.low, leeway);
    let at_high = window::judge(claims, clock.high, leeway);
    let estimate = window::judge(claims, clock.estimate(), leeway);
    let server_says_time = case
        .reasons
        .iter()
        .any(|r| matches!(r.cause, Cause::ClockSkew | Cause::Expired));
    let Some(verdict) = [at_low.verdict, at_high.verdict]
        .into_iter()
        .find(|v| *v != Verdict::Accept)
    else {
        accepted(case, f, &clock, estimate, server_says_time);
        return;
    };
    let cause = if verdict == Verdict::RejectExpired {
        Cause::Expired
    } else {
        Cause::ClockSkew
    };
    let mut support = answer_line(case);
    let certain = at_low.verdict == at_high.verdict;
    let trusted = clock.source.is_server_clock();
    // The token the request carried, outside its window on the answering
    // server's own clock: the protocol leaves no other reading. The same
    // token given apart from the evidence may not be the one that was sent.
    let confidence = match (certain && trusted, case.token_sent) {
        (true, TokenSent::Yes) => Basis::Proven,
        (true, _) => Basis::Inferred,
        (false, _) => Basis::Possible,
    };
    let (start, end) = window::window(claims, leeway);
    let claim = |s: Option<i64>| s.map_or("-".to_owned(), |s| rfc3339(window::at_seconds(s)));
    support.push(Support::new(SupportKind::TokenTimes, clock_words(&clock)));
    support.push(Support::new(
        SupportKind::TokenTimes,
        match verdict {
            Verdict::RejectExpired => format!(
                "the token expired at {} (exp); with the {} s leeway the server rejects it since {}, {} before {}: it logs \"service account token has expired\"",
                claim(claims.expires_at),
                leeway.num_seconds(),
                end.map_or("-".to_owned(), rfc3339),
                human_seconds(estimate.rejected_for.map_or(0, floor_seconds).max(0)),
                rfc3339(trim(clock.estimate()))
            ),
            _ => {
                let what = if verdict == Verdict::RejectIssuedInFuture {
                    format!("issued at {} (iat, no nbf)", claim(claims.issued_at))
                } else {
                    format!("not valid before {} (nbf)", claim(claims.not_before))
                };
                format!(
                    "the token is {what}; with the {} s leeway the server accepts it from {}{}: it logs \"{}\"",
                    leeway.num_seconds(),
                    start.map_or("-".to_owned(), rfc3339),
                    estimate
                        .accepted_in
                        .map(|d| format!(", in about {} s", ceil_seconds(d)))
                        .unwrap_or_default(),
                    verdict.server_message().unwrap_or_default()
                )
            }
        },
    ));
    if cause == Cause::ClockSkew {
        support.push(Support::new(
            SupportKind::TokenTimes,
            "the token was minted on a clock ahead of this server's (another API server, or this one before its clock stepped back)",
        ));
    }
    if cause == Cause::Expired
        && let Some((kind, binding)) = case.token_kind()
        && let Some(lifetime) = token.kubelet_lifetime_without_grace(kind, binding)
    {
        support.push(Support::token(without_grace(lifetime)));
    }
    if !certain {
        support.push(Support::new(
            SupportKind::TokenTimes,
            "borderline: inside the measurement uncertainty only one end of the interval rejects the token",
        ));
    } else if !trusted {
        support.push(Support::new(
            SupportKind::TokenTimes,
            "the server's own clock is not in the evidence: judged on another clock",
        ));
    }
    if server_says_time {
        support.push(Support::new(
            SupportKind::TokenTimes,
            format!("confirmed with your token: {}", verdict.words()),
        ));
    }
    f.add(cause, confidence, support);
}

/// The token is inside its window at the evidence's instant.
fn accepted(
    case: &Case<'_>,
    f: &mut Findings,
    clock: &ServerClock,
    estimate: Judgement,
    server_says_time: bool,
) {
    let Some(token) = case.token else { return };
    let claims = TimeClaims::from(&token.claims);
    let (start, end) = window::window(claims, case.leeway);
    let left = estimate
        .remaining
        .map(|r| format!(", {} left", human_seconds(floor_seconds(r))))
        .unwrap_or_default();
    let fine = format!(
        "time is not the cause: {}, inside the token's window [{}, {}] (leeway {} s{left})",
        clock_words(clock),
        start.map_or("-".to_owned(), rfc3339),
        end.map_or("never".to_owned(), rfc3339),
        case.leeway.num_seconds()
    );
    if server_says_time {
        // On the server's own clock, the token the request carried was inside
        // its window: the server's word was about another request or token, and
        // this paste speaks against it. On any other clock the two agree if
        // that clock differs from the server's.
        let against = clock.source.is_server_clock() && case.token_sent == TokenSent::Yes;
        let why = if against {
            format!(
                "{fine}, for the token this request carried: the server's words were about another request or token (an older copy the client still holds?)"
            )
        } else {
            format!(
                "{fine}; so the server was judging another token (an older copy the client still holds?) or its clock differs"
            )
        };
        for cause in [Cause::ClockSkew, Cause::Expired] {
            let support = Support::new(SupportKind::TokenTimes, why.clone());
            if against {
                f.contradict(cause, support);
            } else {
                f.support(cause, support);
            }
        }
    } else {
        let fine = Support::new(SupportKind::TokenTimes, fine);
        f.when(When::SomethingStandsOut, |f| f.note(fine.clone()));
        let mut support = answer_line(case);
        support.push(fine);
        f.when(When::NothingStandsOut, |f| {
            f.add(Cause::Unknown, Basis::Possible, support);
        });
    }
}

/// The answer itself, first: `POST selfsubjectreviews (…): 401 Unauthorized`.
fn answer_line(case: &Case<'_>) -> Vec<Support> {
    match &case.answer {
        crate::diagnosis::facts::Answer::Http(_) => {
            vec![Support::answer(super::answer::shown(case))]
        }
        _ => Vec::new(),
    }
}

/// Whose clock, and what it read.
pub fn clock_words(clock: &ServerClock) -> String {
    // A measured estimate's fraction is noise; a log timestamp's is what it says.
    let at = match clock.source {
        ClockSource::Measured | ClockSource::LocalClock | ClockSource::LocalClockBadDate => {
            rfc3339(trim(clock.estimate()))
        }
        _ => rfc3339(clock.estimate()),
    };
    match (clock.source, clock.offset) {
        (ClockSource::Measured, Some((estimate, uncertainty))) => format!(
            "the server's clock read about {at} when it answered ({} from this machine, from its Date headers)",
            crate::timefmt::offset_pm(estimate, uncertainty)
        ),
        (ClockSource::LocalClock, _) => {
            format!("the server sent no Date header; judged on this machine's clock ({at})")
        }
        (ClockSource::LocalClockBadDate, _) => format!(
            "the server's Date header is not an HTTP date; judged on this machine's clock ({at})"
        ),
        (source, _) => format!(
            "at {at} ({})",
            match source {
                ClockSource::Measured | ClockSource::DateHeader => "the server's Date header",
                ClockSource::LogTimestamp => "the log timestamp",
                ClockSource::LogTimestampYearInferred => "the klog timestamp, year inferred",
                ClockSource::AuditTimestamp => "the audit stageTimestamp",
                ClockSource::AtFlag => "--at",
                ClockSource::Now | ClockSource::LocalClock | ClockSource::LocalClockBadDate => {
                    "now: the evidence carries no timestamp"
                }
            }
        ),
    }
}

fn trim(at: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(at.timestamp(), 0).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::Answer;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::reasons;
    use crate::diagnosis::testing::{at, case, diagnosed, http, legacy, pod_bound, run, verdict};
    use crate::token::Token;

    #[test]
    fn the_token_on_the_servers_clock() {
        use ClockSource as S;
        use Confidence::{Low, Medium};
        // (nbf, the clock, what it shows): the token valid for an hour from nbf.
        let table = [
            // nbf 90 s ahead of the Date header: not valid yet, in 30 s.
            (90, S::DateHeader, Cause::ClockSkew, Medium),
            (-7200, S::AuditTimestamp, Cause::Expired, Medium),
            // Inside the window: time is ruled out, nothing else is known.
            (-60, S::DateHeader, Cause::Unknown, Low),
            // Not the server's clock: only a guess.
            (90, S::AtFlag, Cause::Unknown, Low),
            (90, S::Now, Cause::Unknown, Low),
        ];
        for (nbf, source, cause, confidence) in table {
            let token = pod_bound(nbf, 3600);
            let mut c = case(http(401, None), Some(&token));
            c.clock = Some(ServerClock::at(at(0), source));
            assert_eq!(run(&c), (cause, confidence), "{source:?}");
        }
    }

    #[test]
    fn a_measurement_that_straddles_the_edge_is_a_guess() {
        let token = pod_bound(61, 3600);
        let mut c = case(http(401, None), Some(&token));
        c.clock = Some(ServerClock {
            low: at(-1),
            high: at(1),
            source: ClockSource::Measured,
            offset: Some((0.0, 1.0)),
        });
        assert_eq!(run(&c).0, Cause::Unknown);
    }

    #[test]
    fn the_servers_word_and_the_token_agree() {
        let token = pod_bound(-7200, 3600);
        let mut c = case(Answer::Rejected, Some(&token));
        c.reasons =
            reasons::parse_auth_error("[invalid bearer token, service account token has expired]");
        assert_eq!(run(&c), (Cause::Expired, Confidence::High));
        // Legacy tokens are never time-checked.
        let old = legacy();
        let c = case(http(401, None), Some(&old));
        let d = diagnosed(&c);
        assert!(
            d.notes
                .iter()
                .any(|n| n.text.contains("never time-checked"))
        );
        assert!(!d.candidates.iter().any(|c| c.cause == Cause::ClockSkew));
    }

    #[test]
    fn the_servers_word_against_the_sent_token_on_its_own_clock_is_not_certain() {
        let token = pod_bound(-60, 3600);
        let mut c = case(http(401, None), Some(&token));
        c.reasons =
            reasons::parse_auth_error("[invalid bearer token, service account token has expired]");
        c.clock = Some(ServerClock::at(at(0), ClockSource::DateHeader));
        c.token_sent = TokenSent::Yes;
        assert_eq!(run(&c), (Cause::Expired, Confidence::Medium));
        // A token only given to compare may not be the one the server judged.
        c.token_sent = TokenSent::Assumed;
        assert_eq!(run(&c), (Cause::Expired, Confidence::High));
        // Nor does a clock that is not the server's speak against its word.
        c.token_sent = TokenSent::Yes;
        c.clock = Some(ServerClock::at(at(0), ClockSource::Now));
        assert_eq!(run(&c), (Cause::Expired, Confidence::High));
    }

    #[test]
    fn an_expired_kubelet_token_without_its_grace_says_so() {
        let says = |token: &Token| {
            let mut c = case(http(401, None), Some(token));
            c.clock = Some(ServerClock::at(at(0), ClockSource::AuditTimestamp));
            let d = diagnosed(&c);
            assert_eq!(verdict(&d), (Cause::Expired, Confidence::Medium));
            d.candidates[0]
                .support
                .iter()
                .any(|s| s.text.contains("no one-year grace"))
        };
        assert!(says(&pod_bound(-7200, 3607)));
        // Another audience: a projected volume's own token, not the kubelet's.
        let mut other = pod_bound(-7200, 3607);
        other.claims.audiences = vec!["vault".into()];
        assert!(!says(&other));
    }
}
