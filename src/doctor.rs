//! Pure: `doctor`'s steps and its one verdict. Each step turns what the edge
//! observed (the decoded token, the probe, the keys, the token file's age) into
//! pass/warn/fail/skip with a one-line summary; [`diagnose`] then hands the
//! server's answer, the keys and the steps' warnings to the diagnosis engine,
//! which names the root cause, its evidence and the fix, as it does for
//! `probe` and `classify`. Nothing here reads the clock, a file or the network.

use chrono::{DateTime, TimeDelta, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use strum::{IntoStaticStr, VariantArray};

use crate::decode::DecodeReport;
use crate::diagnosis::facts::{Degradation, OffClock};
use crate::diagnosis::{self, Cause, Classification, Diagnosis};
use crate::exit::Outcome;
use crate::findings::{Code, Severity};
use crate::probe::evidence::{self, Extras};
use crate::probe::{ProbeReport, ServerReport, keys as probe_keys};
use crate::timefmt::{human_seconds, relative};
use crate::token::{KUBELET_TOKEN_SECONDS, Token, TokenKind};
use crate::verify::{CheckName, MatchedBy, VerifyReport};
use crate::window::check::TimeFinding;
use crate::window::{self, Verdict, at_seconds, ceil_seconds};
use crate::wire::string_codes;

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum StepStatus {
    Pass,
    Skip,
    Warn,
    Fail,
}

string_codes!(StepStatus);

/// Which check a step is, in the order they run. Displayed padded to the
/// width asked (the step column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray, strum::Display)]
#[strum(serialize_all = "kebab-case")]
pub enum StepName {
    /// The token's own times and shape, on this pod's clock.
    Token,
    /// This pod's clock against the token and the node.
    PodClock,
    /// What the API server answered.
    ApiServer,
    /// The API server's clock against the token.
    ServerClock,
    /// The server's published keys against the signature.
    Keys,
    /// How long the token still has.
    Freshness,
}

string_codes!(StepName);

/// One check of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Step {
    /// Which check.
    pub name: StepName,
    /// How it went.
    pub status: StepStatus,
    /// One line.
    pub summary: String,
    /// Further lines worth reading when the step is not a pass.
    pub details: Vec<String>,
    /// For a warning: what it puts at risk, for the diagnosis.
    #[serde(skip)]
    pub risk: Option<Degradation>,
}

impl Step {
    fn new(name: StepName, status: StepStatus, summary: impl Into<String>) -> Step {
        Step {
            name,
            status,
            summary: summary.into(),
            details: Vec::new(),
            risk: None,
        }
    }

    fn at_risk(mut self, risk: Degradation) -> Step {
        self.risk = Some(risk);
        self
    }

    fn with_details(mut self, details: Vec<String>) -> Step {
        self.details = details;
        self
    }
}

/// The one-word answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum DoctorVerdict {
    /// Every step passed.
    Healthy,
    /// The token works, but something will break or is fragile.
    Degraded,
    /// The API server rejects the token (401) or RBAC denies it (403).
    Broken,
    /// The API server could not be reached, or TLS failed.
    Unreachable,
}

string_codes!(DoctorVerdict);

impl DoctorVerdict {
    /// The exit code: 0 healthy or degraded, 1 broken, 3 unreachable.
    pub fn outcome(self) -> Outcome {
        match self {
            DoctorVerdict::Healthy | DoctorVerdict::Degraded => Outcome::Healthy,
            DoctorVerdict::Broken => Outcome::Problem,
            DoctorVerdict::Unreachable => Outcome::Unreachable,
        }
    }
}

/// What the keys step saw.
#[derive(Debug, Clone)]
pub enum KeysObservation {
    /// The server's JWKS was fetched and the token checked against it.
    Verified(Box<VerifyReport>),
    /// Not checked, and why: `--no-jwks`, no answer, or a JWKS that could not
    /// be read (usually 401/403: a rejected token cannot read it).
    Skipped(String),
}

/// The token: its decode findings at this pod's clock.
pub fn token_step(decode: &DecodeReport) -> Step {
    let claims = &decode.token.claims;
    let who = match (
        claims.namespace(),
        claims.service_account().and_then(|s| s.name),
    ) {
        (Some(ns), Some(sa)) => format!("{ns}/{sa}"),
        _ => claims.subject.clone().unwrap_or_else(|| "?".to_owned()),
    };
    let summary = format!(
        "{} token for {who} (sha256:{}), {}",
        decode.kind.as_str(),
        decode.token.fingerprint,
        match claims.expires_at {
            Some(exp) => format!("expires {}", relative(at_seconds(exp), decode.time.at)),
            None => "never expires".to_owned(),
        }
    );
    // Time findings belong to the clock steps, a stale token to freshness; the
    // rest is about the token itself.
    let time: Vec<Code> = decode.time.to_findings().map(|f| f.code).collect();
    let own: Vec<_> = decode
        .findings
        .iter()
        .filter(|f| !time.contains(&f.code) && f.code != Code::StaleToken)
        .filter(|f| f.severity > Severity::Info)
        .collect();
    let status = match own.iter().map(|f| f.severity).max() {
        Some(Severity::Error) => StepStatus::Fail,
        Some(Severity::Warning) => StepStatus::Warn,
        _ => StepStatus::Pass,
    };
    Step::new(StepName::Token, status, summary).with_details(
        own.iter()
            .map(|f| format!("{}: {}", f.code.as_str(), f.message))
            .collect(),
    )
}

/// The token's window on this pod's own clock: the first time finding, else
/// the window it is inside.
pub fn pod_clock_step(decode: &DecodeReport) -> Step {
    let time = &decode.time;
    let Some(first) = time.findings().into_iter().next() else {
        return Step::new(StepName::PodClock, StepStatus::Pass, time.summary());
    };
    let (status, risk) = match first {
        TimeFinding::Rejected { .. } => (StepStatus::Fail, None),
        TimeFinding::Ahead { by, .. } | TimeFinding::PastExp { ago: by } => {
            let clock = OffClock::Pod;
            (StepStatus::Warn, Some(Degradation::ClockOff { clock, by }))
        }
        TimeFinding::ExpiresSoon { left } => {
            (StepStatus::Warn, Some(Degradation::ExpiresSoon { left }))
        }
    };
    Step {
        risk,
        ..Step::new(StepName::PodClock, status, time.message(first))
    }
}

/// The API server's answer: who it thinks the token is.
pub fn server_step(server: &ServerReport) -> Step {
    let (cause, facts) = (server.diagnosis.cause(), &server.facts);
    let summary = match server.classification {
        Classification::Ok => format!(
            "authenticated as {}",
            facts.user.as_ref().map_or("?", |u| u.username.as_str())
        ),
        Classification::NotFound => {
            "authenticated and authorised; the object asked for does not exist (404)".to_owned()
        }
        // A token that arrives is either accepted or 401; a 403 as
        // system:anonymous means it never arrived (the probe's diagnosis says so).
        Classification::Forbidden if cause == Cause::TokenNotSent => {
            "403 Forbidden as system:anonymous: the token did not reach the API server".to_owned()
        }
        // Who said no is the engine's finding (RBAC, another authorizer,
        // admission), with its confidence: never assumed from the status.
        Classification::Forbidden => format!(
            "403 Forbidden: the token was accepted; {} ({} confidence)",
            cause.as_str(),
            server.diagnosis.confidence().as_str()
        ),
        Classification::Unauthorized => {
            "401 Unauthorized: the API server rejected the token itself".to_owned()
        }
        // A run-level class (probe --all-endpoints); one server never has it.
        Classification::ReplicaDependent => {
            "the API server replicas disagree about the token".to_owned()
        }
        Classification::OtherStatus => "answered with an unexpected status".to_owned(),
        Classification::NotKubernetes => "something other than kube-apiserver answered".to_owned(),
        // Pasted evidence only (classify; these two): doctor asks the API server itself.
        Classification::CheckerFailure => {
            "a token checker could not complete its review".to_owned()
        }
        Classification::ServerConfig => "a part of the server's own setup failed".to_owned(),
        Classification::TlsError => format!(
            "TLS verification failed ({}); the token was not sent",
            facts
                .tls
                .as_ref()
                .and_then(|t| t.error.as_deref())
                .unwrap_or("handshake failed")
        ),
        Classification::NetworkError => format!("no answer ({})", cause.as_str()),
    };
    let status = match server.classification {
        Classification::Ok | Classification::NotFound => StepStatus::Pass,
        _ => StepStatus::Fail,
    };
    Step::new(
        StepName::ApiServer,
        status,
        format!("{}: {summary}", server.observation.url),
    )
}

/// The API server's clock against this pod's, and the token on the server's clock.
pub fn server_clock_step(decode: &DecodeReport, server: &ServerReport) -> Step {
    let step = |status, summary: String| Step::new(StepName::ServerClock, status, summary);
    let Some(offset) = server.facts.offset else {
        return step(
            StepStatus::Skip,
            "no Date header to measure the API server's clock".into(),
        );
    };
    let leeway = decode.time.leeway;
    let estimate = offset.estimate();
    // Inside the uncertainty the direction is unknown: say so, not a guess.
    let direction = if offset.low > TimeDelta::zero() {
        "ahead of"
    } else if offset.high < TimeDelta::zero() {
        "behind"
    } else {
        "within measurement of"
    };
    let measured = format!(
        "the API server's clock is {direction} this pod's ({})",
        crate::timefmt::offset_pm(offset.estimate_seconds(), offset.uncertainty_seconds())
    );
    if decode.time.legacy {
        return step(StepStatus::Pass, measured);
    }
    let j = window::judge(decode.time.claims, decode.time.at + estimate, leeway);
    let (status, text) = match j.verdict {
        Verdict::Accept if estimate.abs() > leeway => {
            let text = format!("{measured}: more than the {}s leeway", leeway.num_seconds());
            return step(StepStatus::Warn, text)
                .at_risk(Degradation::ClockOff {
                    clock: OffClock::ApiServer,
                    by: estimate,
                })
                .with_details(vec![
                    "tokens minted by this API server look not-yet-valid to a clock this far behind it, and the kubelet refreshes tokens by its own clock: fix NTP/chrony on the nodes".to_owned(),
                ]);
        }
        Verdict::Accept => (
            StepStatus::Pass,
            "the token is within its window there".to_owned(),
        ),
        // The token is rejected on both clocks alike: this clock is not the
        // one at fault (pod-clock says what is).
        Verdict::RejectExpired if estimate.abs() <= leeway => (
            StepStatus::Pass,
            "the clocks agree; the token has expired on both".to_owned(),
        ),
        _ if estimate.abs() <= leeway => (
            StepStatus::Pass,
            "the clocks agree; the token is not valid yet on either: the clock that minted it is ahead of both".to_owned(),
        ),
        Verdict::RejectExpired => (
            StepStatus::Fail,
            "on its clock the token has expired".to_owned(),
        ),
        _ => (
            StepStatus::Fail,
            format!(
                "on its clock the token is not valid yet, for {}s more",
                j.accepted_in.map(ceil_seconds).unwrap_or_default()
            ),
        ),
    };
    step(status, format!("{measured}: {text}"))
}

/// The token against the keys this API server publishes.
pub fn keys_step(keys: &KeysObservation) -> Step {
    let step = |status, summary: String| Step::new(StepName::Keys, status, summary);
    match keys {
        KeysObservation::Skipped(why) => step(StepStatus::Skip, why.clone()),
        KeysObservation::Verified(report) => {
            let signature = report.check(CheckName::Signature);
            let key = report.check(CheckName::Key);
            let kid = report.token_kid.as_deref().unwrap_or("(none)");
            match (signature.ok, report.matched_by) {
                (Some(true), Some(MatchedBy::Kid)) => step(
                    StepStatus::Pass,
                    format!("the signature verifies with the server's key {kid}"),
                ),
                (Some(true), _) => step(
                    StepStatus::Warn,
                    format!("the signature verifies, but not with the key its kid {kid} names"),
                )
                .with_details(vec![key.detail.clone()]),
                _ => step(
                    StepStatus::Fail,
                    format!("no key the server publishes verifies the token (kid {kid})"),
                )
                .with_details(vec![signature.detail.clone(), key.detail.clone()]),
            }
        }
    }
}

/// Whether the kubelet keeps the mounted token fresh, and how to tell whether the
/// client sends the mounted token or an older copy.
pub fn freshness_step(decode: &DecodeReport, file_written: Option<DateTime<Utc>>) -> Step {
    let step = |status, summary: String| Step::new(StepName::Freshness, status, summary);
    let claims = &decode.token.claims;
    let now = decode.time.at;
    let fingerprint = &decode.token.fingerprint;
    let jti =
        (claims.jwt_id.as_ref()).map(|j| format!(", or audit events its credential id JTI={j}"));
    let compare = format!(
        "compare with what the client sends: `kubectl satoken decode` on its token must show sha256:{fingerprint}{}",
        jti.unwrap_or_default()
    );
    if decode.kind != TokenKind::Projected {
        return step(
            StepStatus::Pass,
            format!("not a kubelet-refreshed token ({})", decode.kind.as_str()),
        )
        .with_details(vec![compare]);
    }
    // A token from the future here says nothing of how fresh it is: the
    // kubelet's schedule runs from an issue time this clock has not reached.
    if let Some(iat) = claims.issued_at.filter(|&iat| at_seconds(iat) > now) {
        return step(
            StepStatus::Skip,
            format!(
                "cannot be judged: the mounted token was issued {} on this pod's clock (minted on a clock ahead of it)",
                relative(at_seconds(iat), now)
            ),
        )
        .with_details(vec![compare]);
    }
    let stale = decode.findings.iter().find(|f| f.code == Code::StaleToken);
    // The kubelet refreshes at 80 % of the lifetime it asked for (3607 s for the
    // default volume: ~48 min), within 10 s of jitter. Source: pkg/kubelet/token.
    let asked = claims
        .kubernetes
        .as_ref()
        .and_then(|k| k.warn_after)
        .zip(claims.issued_at)
        .map(|(w, i)| w - i)
        .or(decode.lifetime_seconds)
        .unwrap_or(KUBELET_TOKEN_SECONDS);
    let refresh_after = TimeDelta::seconds((asked * 4 / 5).min(24 * 3600) + 10);
    // The kubelet looks at the volume about once a minute: allow two more.
    let overdue = claims
        .issued_at
        .map(|iat| at_seconds(iat) + refresh_after + TimeDelta::minutes(2))
        .filter(|due| now > *due);
    let written = file_written
        .map(|t| format!("; the file was written {}", relative(t, now)))
        .unwrap_or_default();
    if let Some(due) = overdue {
        return step(
            StepStatus::Warn,
            format!(
                "the mounted token is {} old: the kubelet should have replaced it {}{written}",
                human_seconds((now - at_seconds(claims.issued_at.unwrap_or_default())).num_seconds()),
                relative(due, now)
            ),
        )
        .at_risk(Degradation::Stale { overdue: now - due })
        .with_details(vec![
            "the kubelet cannot refresh it (TokenRequest failing): look for \"Couldn't update token\" in the kubelet's log on this node".to_owned(),
            compare,
        ]);
    }
    if let Some(f) = stale {
        let warn_after = claims.kubernetes.as_ref().and_then(|k| k.warn_after);
        let overdue = warn_after.map_or(TimeDelta::zero(), |w| now - at_seconds(w));
        return step(StepStatus::Warn, f.message.clone())
            .at_risk(Degradation::Stale { overdue })
            .with_details(vec![compare]);
    }
    // Without the one-year grace the file's token dies an hour after issue: a
    // client that read it once at start stops working then. The kubelet still
    // replaces the file in time, so the pod is fine; the client may not be.
    let no_extended = decode
        .findings
        .iter()
        .find(|f| f.code == Code::NoExtendedExpiry);
    let details = no_extended.map(|f| f.message.clone()).into_iter();
    step(
        StepStatus::Pass,
        format!(
            "the mounted token was issued {}; the kubelet replaces it about {} after issue{written}",
            claims
                .issued_at
                .map(|i| relative(at_seconds(i), now))
                .unwrap_or_else(|| "at an unknown time".to_owned()),
            human_seconds(refresh_after.num_seconds())
        ),
    )
    .with_details(details.chain([compare]).collect())
}

/// Everything `doctor` concluded.
#[derive(Debug, Clone)]
pub struct DoctorReport {
    pub verdict: DoctorVerdict,
    pub steps: Vec<Step>,
    pub diagnosis: Diagnosis,
}

/// Names the root cause: the server's answer, the keys it publishes and the
/// steps' warnings go through the diagnosis engine; the verdict follows from
/// the answer's class and the worst step.
pub fn diagnose(
    steps: Vec<Step>,
    probe: &ProbeReport,
    keys: &KeysObservation,
    token: &Token,
    leeway: TimeDelta,
) -> DoctorReport {
    let diagnosis = match probe.servers.first() {
        Some(server) => {
            let extras = Extras {
                bindings: probe.bindings.clone(),
                peers: Vec::new(),
                keys: match keys {
                    KeysObservation::Verified(report) => Some(probe_keys::key_check(
                        report,
                        report
                            .keys
                            .iter()
                            .filter_map(|(k, _)| k.published_kid.clone())
                            .collect(),
                        None,
                    )),
                    _ => None,
                },
                degraded: steps
                    .iter()
                    .filter(|s| s.status == StepStatus::Warn)
                    .filter_map(|s| s.risk.clone())
                    .collect(),
            };
            diagnosis::diagnose(&evidence::case(
                &server.observation,
                &server.facts,
                Some(token),
                leeway,
                extras,
            ))
        }
        None => probe.diagnosis.clone(),
    };
    let worst = steps
        .iter()
        .map(|s| s.status)
        .max()
        .unwrap_or(StepStatus::Pass);
    let verdict = match diagnosis.classification {
        c if c.is_unanswered() => DoctorVerdict::Unreachable,
        c if c.is_problem() => DoctorVerdict::Broken,
        _ if worst >= StepStatus::Warn => DoctorVerdict::Degraded,
        _ => DoctorVerdict::Healthy,
    };
    DoctorReport {
        verdict,
        steps,
        diagnosis,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::NOW;
    use serde_json::{Value, json};

    fn decoded(claims: Value) -> DecodeReport {
        let header = json!({"alg": "RS256", "kid": "k"});
        crate::decode::tests::report_with(&header, &claims, |_| {})
    }

    /// A kubelet token issued `age` seconds before NOW (extended, warnafter iat+3607).
    fn projected(age: i64) -> Value {
        let iat = NOW - age;
        json!({
            "aud": ["a"], "iat": iat, "nbf": iat, "exp": iat + 31_536_000, "iss": "i", "jti": "j",
            "kubernetes.io": {"namespace": "ns", "pod": {"name": "p", "uid": "pu"},
                "serviceaccount": {"name": "sa", "uid": "su"}, "warnafter": iat + 3607},
            "sub": "system:serviceaccount:ns:sa"
        })
    }

    #[test]
    fn freshness_notes_a_token_without_the_extended_expiry() {
        // 3607 s and no warnafter: --service-account-extend-token-expiration=false.
        let iat = NOW - 600;
        let plain = json!({
            "aud": ["i"], "iat": iat, "nbf": iat, "exp": iat + 3607, "iss": "i",
            "kubernetes.io": {"namespace": "ns", "pod": {"name": "p", "uid": "pu"},
                "serviceaccount": {"name": "sa", "uid": "su"}},
            "sub": "system:serviceaccount:ns:sa"
        });
        let step = freshness_step(&decoded(plain), None);
        // The kubelet replaces the file in time: the pod is fine, its client may not be.
        assert_eq!(step.status, StepStatus::Pass, "{step:?}");
        assert!(step.risk.is_none(), "{step:?}");
        assert!(
            step.details
                .iter()
                .any(|d| d.contains("an hour") && d.contains("re-reads")),
            "{:?}",
            step.details
        );
    }

    #[test]
    fn freshness_is_not_judged_for_a_token_from_the_future() {
        let step = freshness_step(&decoded(projected(-90)), None);
        assert_eq!(step.status, StepStatus::Skip, "{step:?}");
        assert!(step.summary.contains("in 1m 30s"), "{step:?}");
    }

    #[test]
    fn freshness_flags_a_token_the_kubelet_should_have_replaced() {
        // The kubelet replaces a 3607 s token after 80 % (2885 s) + jitter.
        let fresh = freshness_step(&decoded(projected(600)), None);
        assert_eq!(fresh.status, StepStatus::Pass, "{fresh:?}");
        let due = 3607 * 4 / 5 + 10 + 120;
        assert_eq!(
            freshness_step(&decoded(projected(due - 1)), None).status,
            StepStatus::Pass
        );
        let late = freshness_step(&decoded(projected(due + 1)), None);
        assert_eq!(late.status, StepStatus::Warn, "{late:?}");
        assert!(
            late.details.iter().any(|d| d.contains("sha256:")),
            "{late:?}"
        );
    }

    #[test]
    fn pod_clock_fails_when_the_token_is_from_the_future_here() {
        let step = pod_clock_step(&decoded(projected(-90)));
        assert_eq!(step.status, StepStatus::Fail);
        assert!(step.summary.contains("for 30s more"), "{}", step.summary);
        assert_eq!(
            pod_clock_step(&decoded(projected(600))).status,
            StepStatus::Pass
        );
    }

    #[test]
    fn pod_clock_warns_as_decode_does_when_only_the_leeway_saves_the_token() {
        // No nbf: the iat 30 s ahead is what decode warns about.
        let mut claims = projected(-30);
        claims.as_object_mut().unwrap().remove("nbf");
        let decoded = decoded(claims);
        let step = pod_clock_step(&decoded);
        assert_eq!(step.status, StepStatus::Warn, "{step:?}");
        let warning = decoded
            .findings
            .iter()
            .find(|f| f.code == Code::IssuedInFuture);
        assert_eq!(Some(&step.summary), warning.map(|f| &f.message));
        let by = TimeDelta::seconds(30);
        let clock = OffClock::Pod;
        assert_eq!(step.risk, Some(Degradation::ClockOff { clock, by }));
    }

    #[test]
    fn token_step_ignores_time_findings_and_reports_the_rest() {
        let mut claims = projected(600);
        claims["sub"] = json!("system:serviceaccount:ns:other");
        let step = token_step(&decoded(claims));
        assert_eq!(step.status, StepStatus::Warn, "{step:?}");
        assert!(step.details[0].starts_with("subject-mismatch"));
        // Expired is the clock steps' business, not the token step's.
        assert_eq!(
            token_step(&decoded(projected(40_000_000))).status,
            StepStatus::Pass
        );
    }

    #[test]
    fn verdicts_map_to_exit_codes() {
        assert_eq!(DoctorVerdict::Healthy.outcome(), Outcome::Healthy);
        assert_eq!(DoctorVerdict::Degraded.outcome(), Outcome::Healthy);
        assert_eq!(DoctorVerdict::Broken.outcome(), Outcome::Problem);
        assert_eq!(DoctorVerdict::Unreachable.outcome(), Outcome::Unreachable);
        let skipped = keys_step(&KeysObservation::Skipped("x".into()));
        assert_eq!(skipped.status, StepStatus::Skip);
    }
}
