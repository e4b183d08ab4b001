//! Pure: every server's observations plus the decoded token -> one diagnosis
//! per server and one for the run, through the diagnosis engine.
//!
//! Per server, [`evidence`] builds the case (the decisive answer, the server's
//! clock, TokenReview, keys, the bound objects read once for the run, and the
//! other servers' answers); the engine names the cause. The run's diagnosis is
//! the worst class's servers' findings ranked as one (`Findings::across`), and
//! with `--all-endpoints` replicas that disagree make it `replica-dependent`.

use chrono::{DateTime, TimeDelta, Utc};

use super::bindings::{self, BindingCheck, BindingTarget};
use super::evidence::{self, Extras};
use super::keys;
use super::review;
use super::{
    Answer, EndpointDiscovery, ProbeReport, RequestKind, RequestObservation, ServerObservation,
    ServerReport,
};
use crate::diagnosis::facts::Peer;
use crate::diagnosis::merge::{Findings, Server};
use crate::diagnosis::rules::servers;
use crate::diagnosis::{self, Classification};
use crate::token::Token;

/// What a probe adds to the servers' answers.
#[derive(Debug, Clone, Default)]
pub struct Context<'a> {
    /// The token text, for the signature checks against a server's JWKS.
    pub raw: Option<&'a str>,
    /// The servers are replicas of one API server (`--all-endpoints`).
    pub replicas: bool,
    pub endpoints: Option<EndpointDiscovery>,
    /// The objects the token is bound to (reads are matched by path).
    pub bindings: Vec<BindingTarget>,
    /// `--audience`: the audiences the second TokenReview asked for.
    pub review_audiences: Vec<String>,
}

/// Analyses every server's observations against the token (none: `--anonymous`
/// with no token, the anonymous answers analysed alone).
pub fn analyse(
    observations: Vec<ServerObservation>,
    token: Option<&Token>,
    context: Context<'_>,
    evaluated_at: DateTime<Utc>,
    leeway: TimeDelta,
) -> ProbeReport {
    let bindings = read_bindings(&observations, &context.bindings);
    let facts: Vec<evidence::ServerFacts> = observations.iter().map(evidence::facts).collect();
    let everyone: Vec<Peer> = observations
        .iter()
        .zip(&facts)
        .map(|(o, f)| Peer {
            url: o.url.clone(),
            classification: evidence::classification(o),
            offset: f
                .offset
                .map(|o| (o.estimate_seconds(), o.uncertainty_seconds())),
            kids: None,
        })
        .collect();
    let mut servers = Vec::with_capacity(observations.len());
    let mut cases = Vec::with_capacity(observations.len());
    for (i, (observation, fact)) in observations.into_iter().zip(facts).enumerate() {
        let rejected = everyone[i].classification == Classification::Unauthorized;
        let found = keys::analyse(
            body(&observation, RequestKind::Jwks).as_deref(),
            body(&observation, RequestKind::Discovery).as_deref(),
            context.raw,
            token,
            rejected,
            evaluated_at,
            leeway,
        );
        let extras = Extras {
            bindings: bindings.clone(),
            peers: [&everyone[..i], &everyone[i + 1..]].concat(),
            keys: found.check,
            degraded: Vec::new(),
        };
        let case = evidence::case(&observation, &fact, token, leeway, extras);
        let findings = diagnosis::findings(&case);
        let diagnosis = findings.clone().rank(&case);
        cases.push((case, findings));
        servers.push(ServerReport {
            classification: diagnosis.classification,
            audience_review: fact
                .audience_review
                .clone()
                .map(|outcome| review::AudienceReview {
                    audiences: context.review_audiences.clone(),
                    outcome,
                }),
            facts: fact,
            jwks_kids: found.kids,
            issuer: found.issuer,
            diagnosis,
            observation,
        });
    }
    let replicas = context.replicas.then(|| {
        let views: Vec<Peer> = everyone
            .into_iter()
            .zip(&servers)
            .map(|(peer, s)| Peer {
                classification: s.classification,
                kids: s.jwks_kids.clone(),
                ..peer
            })
            .collect();
        servers::replicas(&views)
    });
    let each = servers
        .iter()
        .zip(&cases)
        .map(|(s, (case, findings))| Server {
            url: &s.observation.url,
            case,
            findings: findings.clone(),
            user: s.facts.user.as_ref().map(|u| u.username.as_str()),
        });
    let diagnosis = Findings::across(each.collect(), replicas.flatten());
    ProbeReport {
        servers,
        endpoints: context.endpoints,
        kubeconfig: None,
        bindings,
        diagnosis,
        evaluated_at,
        leeway_seconds: leeway.num_seconds(),
        token_sent: token.is_some(),
    }
}

/// The body of the first 2xx answer to a side request of this kind.
fn body(observation: &ServerObservation, kind: RequestKind) -> Option<Vec<u8>> {
    observation
        .requests
        .iter()
        .filter(|r| r.kind == kind)
        .filter_map(|r| r.result.as_ref().ok())
        .find(|a| (200..300).contains(&a.exchange.status))
        .and_then(|a: &Answer| a.json.as_ref().map(|j| j.to_string().into_bytes()))
}

/// The first read of each bound object that says something (any server).
fn read_bindings(
    observations: &[ServerObservation],
    targets: &[BindingTarget],
) -> Vec<BindingCheck> {
    targets
        .iter()
        .filter_map(|t| {
            let path = t.path();
            let reads: Vec<(&ServerObservation, &RequestObservation)> = observations
                .iter()
                .flat_map(|o| o.requests.iter().map(move |r| (o, r)))
                .filter(|(_, r)| r.kind == RequestKind::ReadObject && r.path == path)
                .collect();
            let (o, r) = reads
                .iter()
                .find(|(_, r)| {
                    matches!(&r.result, Ok(a) if a.exchange.status == 404 || (200..300).contains(&a.exchange.status))
                })
                .or(reads.first())?;
            let who = if r.operator {
                "the kubeconfig credentials"
            } else {
                "the token"
            };
            let via = format!("{} with {who}", o.url);
            let (status, body) = match &r.result {
                Ok(a) => (Some(a.exchange.status), a.json.as_ref()),
                Err(_) => (None, None),
            };
            Some(bindings::check(t, status, body, &via))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::{NOW, legacy, token};
    use crate::diagnosis::{Cause, Confidence, Diagnosis};
    use crate::http::{Exchange, Method};
    use crate::probe::bindings::BindingState;
    use serde_json::Value;
    use std::time::Duration;

    fn at(offset_ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(NOW, 0).unwrap() + TimeDelta::milliseconds(offset_ms)
    }

    fn bound(nbf: i64, exp: i64) -> Token {
        token(serde_json::json!({
            "aud": ["https://kubernetes.default.svc"], "iss": "https://kubernetes.default.svc",
            "sub": "system:serviceaccount:shop:checkout", "nbf": nbf, "iat": nbf, "exp": exp,
            "kubernetes.io": {"namespace": "shop",
                "serviceaccount": {"name": "checkout", "uid": "uid-old"},
                "pod": {"name": "web-0", "uid": "pod-uid"}}
        }))
    }

    fn answer(status: u16, date_offset_s: i64, body: Value) -> Answer {
        crate::probe::observe::answer(Exchange {
            status,
            date: Some(DateTime::from_timestamp(NOW + date_offset_s, 0).unwrap()),
            content_type: Some("application/json".to_owned()),
            body: body.to_string().into_bytes(),
            sent_at: at(0),
            received_at: at(100),
            latency: Duration::from_millis(100),
            ..Exchange::default()
        })
    }

    fn request(kind: RequestKind, answer: Answer) -> RequestObservation {
        RequestObservation {
            kind,
            method: Method::Post,
            path: "/x".to_owned(),
            anonymous: false,
            operator: false,
            api_version: None,
            result: Ok(answer),
        }
    }

    fn server(url: &str, requests: Vec<RequestObservation>) -> ServerObservation {
        ServerObservation {
            url: url.to_owned(),
            verifies_tls: true,
            requests,
            access: None,
            verify_name: None,
            token_sent: true,
        }
    }

    fn unauthorized() -> Value {
        serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
    }

    /// The token's SelfSubjectReview, answered `status` (a 401, or the token's
    /// user) by a clock `offset_s` off.
    fn ssr(status: u16, offset_s: i64) -> RequestObservation {
        let body = if status == 401 {
            unauthorized()
        } else {
            review()
        };
        request(
            RequestKind::SelfSubjectReview,
            answer(status, offset_s, body),
        )
    }

    fn causes(d: &Diagnosis) -> Vec<Cause> {
        d.candidates.iter().map(|c| c.cause).collect()
    }

    fn review() -> Value {
        serde_json::json!({"status": {"userInfo": {"username": "system:serviceaccount:shop:checkout",
            "uid": "uid-old", "groups": ["system:authenticated"]}}})
    }

    fn probe(servers: Vec<ServerObservation>, token: &Token) -> ProbeReport {
        probe_of_servers(servers, token, false)
    }

    fn text(d: &Diagnosis) -> String {
        d.top()
            .support
            .iter()
            .chain(&d.notes)
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn legacy_tokens_are_never_judged_on_time() {
        // Legacy Secret tokens carry no exp; pkg/serviceaccount/legacy.go never checks time.
        let token = legacy();
        let s = server("https://a", vec![ssr(401, 0)]);
        let report = probe(vec![s], &token);
        let d = &report.diagnosis;
        assert_eq!(d.cause(), Cause::Unknown);
        assert!(text(d).contains("never time-checked"), "{}", text(d));
        let causes = causes(d);
        assert!(causes.contains(&Cause::SecretDeleted), "{causes:?}");
        assert!(
            causes.contains(&Cause::LegacyTokenInvalidated),
            "{causes:?}"
        );
        assert!(!causes.contains(&Cause::ClockSkew));
        assert_eq!(
            crate::probe::outcome(&report),
            crate::exit::Outcome::Problem
        );
    }

    fn side(kind: RequestKind, path: &str, answer: Answer) -> RequestObservation {
        RequestObservation {
            method: Method::Get,
            path: path.to_owned(),
            operator: true,
            ..request(kind, answer)
        }
    }

    fn probe_of_servers(
        servers: Vec<ServerObservation>,
        token: &Token,
        replicas: bool,
    ) -> ProbeReport {
        let context = Context {
            replicas,
            bindings: bindings::targets(token),
            ..Context::default()
        };
        analyse(servers, Some(token), context, at(0), TimeDelta::seconds(60))
    }

    #[test]
    fn token_review_and_reads_outrank_guesses_without_repeating_causes() {
        let token = bound(NOW - 60, NOW + 3600);
        let sa_path = "/api/v1/namespaces/shop/serviceaccounts/checkout";
        let sa_read = || {
            side(
                RequestKind::ReadObject,
                sa_path,
                answer(
                    200,
                    0,
                    serde_json::json!({"metadata": {"name": "checkout", "uid": "uid-new"}}),
                ),
            )
        };
        let review = side(
            RequestKind::TokenReview,
            "/apis/authentication.k8s.io/v1/tokenreviews",
            answer(
                201,
                0,
                serde_json::json!({"status": {"user": {}, "error":
                    "[invalid bearer token, ServiceAccount UID (uid-new) does not match claim (uid-old)]"}}),
            ),
        );
        let confidence = |r: &ProbeReport| {
            r.diagnosis
                .candidates
                .iter()
                .find(|c| c.cause == Cause::ServiceAccountRecreated)
                .map(|c| c.confidence)
        };
        let probed = |requests| probe(vec![server("https://a", requests)], &token);
        let guess = probed(vec![ssr(401, 0)]);
        let read = probed(vec![ssr(401, 0), sa_read()]);
        let reviewed = probed(vec![ssr(401, 0), review, sa_read()]);
        assert_eq!(confidence(&guess), Some(Confidence::Low));
        assert_eq!(confidence(&read), Some(Confidence::High));
        assert_eq!(confidence(&reviewed), Some(Confidence::High));
        let d = &reviewed.diagnosis;
        assert_eq!(d.cause(), Cause::ServiceAccountRecreated);
        let shown = text(d);
        let first = &d.top().support[0].text;
        assert!(first.starts_with("TokenReview on https://a"), "{shown}");
        assert!(
            shown.contains("≤1.22, and every version for legacy tokens"),
            "{shown}"
        );
        let mut causes = causes(d);
        causes.sort();
        let n = causes.len();
        causes.dedup();
        assert_eq!(causes.len(), n, "{:?}", d.candidates);
        // The read showed the ServiceAccount exists: "deleted" is ruled out.
        assert!(!causes.contains(&Cause::ServiceAccountDeleted));
        assert_eq!(reviewed.bindings[0].state, BindingState::UidDiffers);
    }

    #[test]
    fn replicas_that_disagree_are_replica_dependent() {
        let token = bound(NOW, NOW + 3600);
        let ok = server("https://10.0.0.1:6443", vec![ssr(201, 0)]);
        let behind = server("https://10.0.0.2:6443", vec![ssr(401, -90)]);
        let report = probe_of_servers(vec![ok.clone(), behind.clone()], &token, true);
        assert_eq!(
            report.diagnosis.classification,
            Classification::ReplicaDependent
        );
        assert_eq!(report.diagnosis.cause(), Cause::ClockSkew);
        assert!(
            report.diagnosis.top().support[0]
                .text
                .contains("1 of 2 reject")
        );
        assert_eq!(
            crate::probe::outcome(&report),
            crate::exit::Outcome::Problem
        );
        // Servers the user named are not assumed to be replicas.
        let report = probe(vec![ok, behind], &token);
        assert_eq!(
            report.diagnosis.classification,
            Classification::Unauthorized
        );
    }
}
