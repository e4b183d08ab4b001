//! Pure: a token's time claims judged at one clock reading, as `decode`,
//! `verify` and `doctor` all report them. Each finding is worded here once, so
//! it reads the same in every subcommand.

use chrono::{DateTime, TimeDelta, Utc};

use super::{Judgement, TimeClaims, Verdict, at_seconds, ceil_seconds, floor_seconds, judge};
use crate::findings::{Code, Finding};
use crate::timefmt::{human_seconds, relative, rfc3339};
use crate::token::{Claims, KUBELET_TOKEN_SECONDS, TokenKind};

/// Tokens expiring within this (or 20 % of their lifetime, if shorter) get `expires-soon`.
const EXPIRES_SOON: TimeDelta = TimeDelta::minutes(10);

/// The time check at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeCheck {
    pub claims: TimeClaims,
    pub at: DateTime<Utc>,
    pub leeway: TimeDelta,
    pub judgement: Judgement,
    /// A legacy Secret token: pkg/serviceaccount/legacy.go never looks at
    /// time claims, so nothing of the judgement is reported.
    pub legacy: bool,
}

/// What stands out in a time check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFinding {
    /// kube-apiserver rejects the token at this instant; `code` names why.
    Rejected { code: Code },
    /// `nbf` (`code` not-yet-valid), else `iat`, is `by` ahead of this clock:
    /// accepted only thanks to the leeway.
    Ahead { code: Code, by: TimeDelta },
    /// `exp` passed `ago`; the leeway still accepts it.
    PastExp { ago: TimeDelta },
    /// `exp` is `left` away.
    ExpiresSoon { left: TimeDelta },
}

impl TimeCheck {
    pub fn new(claims: &Claims, kind: TokenKind, at: DateTime<Utc>, leeway: TimeDelta) -> Self {
        let claims = TimeClaims::from(claims);
        TimeCheck {
            claims,
            at,
            leeway,
            judgement: judge(claims, at, leeway),
            legacy: kind == TokenKind::LegacySecret,
        }
    }

    pub fn verdict(&self) -> Option<Verdict> {
        (!self.legacy).then_some(self.judgement.verdict)
    }

    /// The rejection alone, else what only the leeway saves and a near expiry.
    pub fn findings(&self) -> Vec<TimeFinding> {
        if self.legacy {
            return Vec::new();
        }
        if let Some(code) = self.judgement.verdict.code() {
            return vec![TimeFinding::Rejected { code }];
        }
        let c = self.claims;
        let ahead = [Code::NotYetValid, Code::IssuedInFuture]
            .into_iter()
            .filter_map(|code| Some((code, at_seconds(self.claim(code).1?) - self.at)))
            .find(|(_, by)| *by > TimeDelta::zero())
            .map(|(code, by)| TimeFinding::Ahead { code, by });
        let expiry = c.expires_at.and_then(|exp| {
            let left = at_seconds(exp) - self.at;
            let soon = c
                .issued_at
                .map(|iat| exp - iat)
                .filter(|l| *l > 0)
                .map_or(EXPIRES_SOON, |l| {
                    TimeDelta::seconds(l / 5).min(EXPIRES_SOON)
                });
            if left <= TimeDelta::zero() {
                Some(TimeFinding::PastExp { ago: -left })
            } else {
                (left <= soon).then_some(TimeFinding::ExpiresSoon { left })
            }
        });
        ahead.into_iter().chain(expiry).collect()
    }

    /// Every finding, as decode and verify list them.
    pub fn to_findings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.findings().into_iter().map(|f| match f {
            TimeFinding::Rejected { code } => Finding::error(code, self.message(f)),
            TimeFinding::Ahead { code, .. } => Finding::warning(code, self.message(f)),
            TimeFinding::PastExp { .. } => Finding::warning(Code::Expired, self.message(f)),
            TimeFinding::ExpiresSoon { .. } => Finding::warning(Code::ExpiresSoon, self.message(f)),
        })
    }

    /// The one line: the rejection, or the window the token is inside.
    pub fn summary(&self) -> String {
        if self.legacy {
            return "a legacy Secret token: never time-checked".to_owned();
        }
        if let Some(code) = self.judgement.verdict.code() {
            return self.message(TimeFinding::Rejected { code });
        }
        match (self.claims.expires_at, self.judgement.remaining) {
            (Some(exp), Some(left)) => format!(
                "inside the window at {}: exp {}; accepted for {} more, with the {}s leeway",
                rfc3339(self.at),
                self.when(exp),
                human_seconds(floor_seconds(left)),
                self.leeway.num_seconds()
            ),
            _ => format!("inside the window at {}: no exp", rfc3339(self.at)),
        }
    }

    pub fn message(&self, finding: TimeFinding) -> String {
        let leeway = self.leeway.num_seconds();
        let j = self.judgement;
        let (what, server) = (j.verdict.words(), j.verdict.server_message());
        let server = server.unwrap_or_default();
        match finding {
            TimeFinding::Rejected {
                code: Code::Expired,
            } => format!(
                "{what}: exp was {}, beyond the {leeway}s leeway by {}; kube-apiserver rejects it (\"{server}\")",
                self.when(self.claims.expires_at.unwrap_or_default()),
                human_seconds(j.rejected_for.map(ceil_seconds).unwrap_or_default())
            ),
            TimeFinding::Rejected { code } => {
                let (name, at) = self.claim(code);
                let wait = j
                    .accepted_in
                    .map(|d| format!(" for {}s more", ceil_seconds(d)));
                format!(
                    "{what}: {name} is {}, more than the {leeway}s leeway ahead of this clock; kube-apiserver rejects it (\"{server}\"){}. The clock that issued it is ahead of this one",
                    self.when(at.unwrap_or_default()),
                    wait.unwrap_or_default()
                )
            }
            TimeFinding::Ahead { code, by } => format!(
                "{} is {}s ahead of this clock: accepted only thanks to the {leeway}s leeway; the issuing clock runs ahead",
                self.claim(code).0,
                ceil_seconds(by)
            ),
            TimeFinding::PastExp { ago } => format!(
                "exp passed {}s ago: still accepted for {}s thanks to the {leeway}s leeway",
                ceil_seconds(ago),
                j.remaining.map(floor_seconds).unwrap_or_default()
            ),
            TimeFinding::ExpiresSoon { left } => format!(
                "expires {}: a client that does not refresh its token gets 401 after that",
                relative(self.at + left, self.at)
            ),
        }
    }

    /// The claim a not-yet-valid (else issued-in-future) finding is about.
    fn claim(&self, code: Code) -> (&'static str, Option<i64>) {
        match code {
            Code::NotYetValid => ("nbf", self.claims.not_before),
            _ => ("iat", self.claims.issued_at),
        }
    }

    /// `2026-01-01T00:00:00Z (in 47m)`.
    fn when(&self, seconds: i64) -> String {
        let at = at_seconds(seconds);
        format!("{} ({})", rfc3339(at), relative(at, self.at))
    }
}

/// A kubelet token of `lifetime` seconds that kube-apiserver did not extend to a
/// year (no `warnafter`), as decode notes it and the expired cause explains it.
pub fn without_grace(lifetime: i64) -> String {
    format!(
        "a kubelet token of {lifetime}s with no one-year grace (no warnafter): kube-apiserver runs with --service-account-extend-token-expiration=false (managed OIDC-issuer clusters do){}. The kubelet replaces the file after ~48m, so a client that reads the token once at start gets 401 about an hour later; client-go re-reads the file every minute",
        if lifetime < KUBELET_TOKEN_SECONDS {
            ", or its lifetime cap is below 3607 s, which also ends the grace"
        } else {
            ""
        }
    )
}
