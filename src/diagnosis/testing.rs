//! Test support for the rules' table-driven tests: tokens of each kind built
//! from claims (unsigned: the rules never check signatures), and cases.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use super::facts::{Answer, Case, ClockSource, HttpAnswer, ServerClock};
use super::{Cause, Confidence, Diagnosis, diagnose};
use crate::secret::SecretToken;
use crate::token::Token;

/// 2026-01-01T00:00:00Z.
pub const NOW: i64 = 1_767_225_600;

pub fn at(offset_s: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(NOW + offset_s, 0).unwrap()
}

/// An unsigned token with these claims.
pub fn token(claims: Value) -> Token {
    use base64::Engine as _;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let header = json!({"alg": "RS256", "kid": "k1"});
    crate::token::parse(&SecretToken::new(format!(
        "{}.{}.c2ln",
        b64(&header),
        b64(&claims)
    )))
    .unwrap()
}

/// A token bound to the `kind` object `name`, valid from `nbf` for `seconds`
/// (offsets from [`NOW`]).
fn bound(kind: &str, name: &str, nbf: i64, seconds: i64) -> Token {
    let mut claims = json!({
        "aud": ["https://kubernetes.default.svc"], "iss": "https://kubernetes.default.svc",
        "sub": "system:serviceaccount:shop:web", "nbf": NOW + nbf, "iat": NOW + nbf,
        "exp": NOW + nbf + seconds,
        "kubernetes.io": {"namespace": "shop", "serviceaccount": {"name": "web", "uid": "sa-uid"}}
    });
    claims["kubernetes.io"][kind] = json!({"name": name, "uid": format!("{kind}-uid")});
    token(claims)
}

/// A pod-bound token valid from `nbf` for `seconds` (offsets from [`NOW`]).
pub fn pod_bound(nbf: i64, seconds: i64) -> Token {
    bound("pod", "web-0", nbf, seconds)
}

/// A Secret-bound or node-bound TokenRequest token.
pub fn bound_to(kind: &str) -> Token {
    bound(kind, &format!("{kind}-a"), -60, 3660)
}

/// A legacy Secret token (no exp, flat claims).
pub fn legacy() -> Token {
    token(json!({
        "iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:shop:old",
        "kubernetes.io/serviceaccount/namespace": "shop",
        "kubernetes.io/serviceaccount/secret.name": "old-token-x1",
        "kubernetes.io/serviceaccount/service-account.name": "old",
        "kubernetes.io/serviceaccount/service-account.uid": "uid-1"
    }))
}

/// An HTTP answer from kube-apiserver.
pub fn http(status: u16, message: Option<&str>) -> Answer {
    Answer::Http(HttpAnswer {
        status: Some(status),
        message: message.map(str::to_owned),
        origin: super::facts::AnswerOrigin::Kubernetes,
        ..HttpAnswer::default()
    })
}

/// A case with this answer, the leeway, and the server's clock at [`NOW`].
pub fn case<'t>(answer: Answer, token: Option<&'t Token>) -> Case<'t> {
    Case {
        answer,
        token,
        clock: Some(ServerClock::at(at(0), ClockSource::DateHeader)),
        leeway: TimeDelta::seconds(60),
        ..Case::default()
    }
}

/// Cause and confidence of the diagnosis.
pub fn verdict(d: &Diagnosis) -> (Cause, Confidence) {
    (d.cause(), d.confidence())
}

/// Diagnoses and returns (cause, confidence).
pub fn run(case: &Case<'_>) -> (Cause, Confidence) {
    verdict(&diagnosed(case))
}

/// Diagnoses, after reading the answer as every caller of the engine does.
pub fn diagnosed(case: &Case<'_>) -> Diagnosis {
    let mut case = case.clone();
    crate::diagnosis::extract::read_answer(&mut case, "kube-apiserver said");
    diagnose(&case)
}

/// Whether `command` (or a command it pipes into) has `words` as consecutive
/// arguments: a check on the argv, not on the quoted shell line.
pub fn has_words(command: &super::next::Command, words: &[&str]) -> bool {
    std::iter::once(&command.argv)
        .chain(&command.pipe)
        .any(|argv| argv.windows(words.len()).any(|w| w == words))
}
