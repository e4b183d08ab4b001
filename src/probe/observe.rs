//! I/O: sends the probe's requests to every server, concurrently (one thread per
//! server, so N servers cost about one round trip), and records what came back.
//! No judgement here: that is [`super::classify`].

use serde_json::{Value, json};
use url::Url;

use super::target::display;
use super::{AccessQuery, Answer, RequestKind, RequestObservation, ServerObservation, StatusBody};
use crate::http::{ClientConfig, ConfigError, Connected, Exchange, HttpClient, Request, RunClock};
use crate::secret::SecretToken;

/// SelfSubjectReview versions, newest first: v1 GA in 1.28, v1beta1 1.27,
/// v1alpha1 1.26 behind a gate (k8s.io/api authentication/*).
pub const REVIEW_VERSIONS: [&str; 3] = ["v1", "v1beta1", "v1alpha1"];

/// What to ask.
#[derive(Debug, Clone)]
pub struct Plan {
    pub servers: Vec<Url>,
    pub client: ClientConfig,
    pub access: Option<AccessQuery>,
    pub path: Option<String>,
    pub anonymous: bool,
}

/// Builds one client per server (each with its own verifier, so a refusal is
/// attributed to the right server); configuration errors end the run (exit 2).
pub fn clients(plan: &Plan, clock: RunClock) -> Result<Vec<HttpClient>, ConfigError> {
    plan.servers
        .iter()
        .map(|url| HttpClient::new(url, &plan.client, clock))
        .collect()
}

/// Probes every server concurrently; results keep the order of `clients`.
pub fn observe(plan: &Plan, clients: &[HttpClient], token: &SecretToken) -> Vec<ServerObservation> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter()
            .map(|client| scope.spawn(move || observe_one(plan, client, token)))
            .collect();
        handles
            .into_iter()
            .zip(clients)
            .map(|(handle, client)| {
                handle.join().unwrap_or_else(|_| ServerObservation {
                    url: display(client.base()),
                    verifies_tls: client.verifies(),
                    requests: Vec::new(),
                    access: plan.access.clone(),
                })
            })
            .collect()
    })
}

fn observe_one(plan: &Plan, client: &HttpClient, token: &SecretToken) -> ServerObservation {
    let mut requests = Vec::new();
    let mut record = |kind,
                      request: &Request,
                      anonymous,
                      api_version: Option<String>,
                      result: Result<Exchange, crate::http::TransportError>| {
        let observation = RequestObservation {
            kind,
            method: request.method.as_str(),
            path: request.path.clone(),
            anonymous,
            api_version,
            result: result.map(answer),
        };
        let ok = observation.result.is_ok();
        requests.push(observation);
        ok
    };
    let version = Request::get("/version");
    let connected = match client.preflight(&version) {
        Ok((connected, exchange)) => {
            record(RequestKind::Version, &version, true, None, Ok(exchange));
            connected
        }
        Err(e) => {
            record(RequestKind::Version, &version, true, None, Err(e));
            return finish(plan, client, requests);
        }
    };
    // With the token, then (with --anonymous) the same without it.
    let passes: &[bool] = if plan.anonymous {
        &[false, true]
    } else {
        &[false]
    };
    for &anonymous in passes {
        let send = |c: &Connected<'_>, request: &Request| {
            if anonymous {
                c.send(request)
            } else {
                c.send_with_token(request, token)
            }
        };
        for version in REVIEW_VERSIONS {
            let request = self_subject_review(version);
            let result = send(&connected, &request);
            let not_found = matches!(&result, Ok(e) if e.status == 404);
            let ok = record(
                RequestKind::SelfSubjectReview,
                &request,
                anonymous,
                Some(format!("authentication.k8s.io/{version}")),
                result,
            );
            if !ok {
                return finish(plan, client, requests);
            }
            if !not_found {
                break;
            }
        }
        if let Some(query) = &plan.access {
            let request = self_subject_access_review(query);
            let result = send(&connected, &request);
            if !record(
                RequestKind::SelfSubjectAccessReview,
                &request,
                anonymous,
                Some("authorization.k8s.io/v1".to_owned()),
                result,
            ) {
                return finish(plan, client, requests);
            }
        }
        if let Some(path) = &plan.path {
            let request = Request::get(path.clone());
            let result = send(&connected, &request);
            if !record(RequestKind::Get, &request, anonymous, None, result) {
                return finish(plan, client, requests);
            }
        }
    }
    finish(plan, client, requests)
}

fn finish(
    plan: &Plan,
    client: &HttpClient,
    requests: Vec<RequestObservation>,
) -> ServerObservation {
    ServerObservation {
        url: display(client.base()),
        verifies_tls: client.verifies(),
        requests,
        access: plan.access.clone(),
    }
}

/// The SelfSubjectReview request for one API version.
pub fn self_subject_review(version: &str) -> Request {
    let body = json!({
        "apiVersion": format!("authentication.k8s.io/{version}"),
        "kind": "SelfSubjectReview",
    });
    Request::post_json(
        format!("/apis/authentication.k8s.io/{version}/selfsubjectreviews"),
        body.to_string().into_bytes(),
    )
}

/// The SelfSubjectAccessReview request for a query.
pub fn self_subject_access_review(query: &AccessQuery) -> Request {
    let mut attributes = json!({
        "verb": query.verb,
        "group": query.group,
        "resource": query.resource,
    });
    for (key, value) in [
        ("namespace", &query.namespace),
        ("subresource", &query.subresource),
        ("name", &query.name),
    ] {
        if let Some(value) = value {
            attributes[key] = Value::String(value.clone());
        }
    }
    let body = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes},
    });
    Request::post_json(
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        body.to_string().into_bytes(),
    )
}

/// Reduces an exchange to an [`Answer`]: parses JSON and `Status` bodies.
pub fn answer(exchange: Exchange) -> Answer {
    let json: Option<Value> = serde_json::from_slice(&exchange.body).ok();
    let status_body = json
        .as_ref()
        .filter(|v| v.get("kind").and_then(Value::as_str) == Some("Status"))
        .map(|v| {
            let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
            StatusBody {
                reason: text("reason"),
                message: text("message"),
                details: v.get("details").cloned(),
            }
        });
    Answer {
        status: exchange.status,
        status_body,
        json,
        date: exchange.date,
        location: exchange.location,
        sent_at: exchange.sent_at,
        received_at: exchange.received_at,
        latency: exchange.latency,
    }
}
