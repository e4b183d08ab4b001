//! `probe` rendering: the JSON wire types (docs/probe.md) and the table view
//! (servers, requests, then the diagnosis with evidence and next steps).

use std::io::{self, Write};

use comfy_table::presets;
use owo_colors::{OwoColorize as _, Style};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use strum::{IntoStaticStr, VariantArray};

use super::TableStyle;
use super::diagnosis::{DiagnosisJson, write_diagnosis};
use super::json::{Time, TokenSummaryJson};
use super::sanitize::{cell, or_dash, sanitize};
use super::table::{key_value_table, table_of, write_table};
use crate::diagnosis::Classification;
use crate::diagnosis::facts::{BindingCheck, BindingState};
use crate::diagnosis::reasons::AuthReason;
use crate::http::Method;
use crate::probe::review::ReviewOutcome;
use crate::probe::{
    KubeconfigInfo, ProbeReport, RequestKind, RequestObservation, ServerReport, TlsStatus, UserInfo,
};
use crate::token::Token;
use crate::wire::string_codes;

/// `probe -o json`: what the API server(s) answered for the token, and the
/// diagnosis.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProbeJson<'a> {
    /// The token probed (identified, never shown); null when none was sent
    /// (`anonymous`).
    pub token: Option<TokenSummaryJson<'a>>,
    /// No token was sent: `--anonymous` with no token, so every request was
    /// anonymous and the answers are what an anonymous request gets.
    pub anonymous: bool,
    /// The kubeconfig used, or null.
    pub kubeconfig: Option<&'a KubeconfigInfo>,
    /// `--all-endpoints`: how the replicas were found, or null.
    pub endpoints: Option<EndpointsJson<'a>>,
    /// Every server probed.
    pub servers: Vec<ServerJson<'a>>,
    /// The token's ServiceAccount/pod/Secret/Node as read from the API.
    pub bindings: &'a [BindingCheck],
    /// The run's diagnosis: the worst answer among the servers.
    pub diagnosis: DiagnosisJson<'a>,
}

/// One server.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerJson<'a> {
    /// The server URL.
    pub url: &'a str,
    /// TLS result; null over plain HTTP (`--allow-plain-http`), where there
    /// was none.
    pub tls: Option<&'a TlsStatus>,
    /// Every request sent, in order.
    pub requests: Vec<RequestJson<'a>>,
    /// What kind of answer this server gave.
    pub classification: Classification,
    /// Who the server says the token is, or null.
    pub user: Option<&'a UserInfo>,
    /// Which SelfSubjectReview version answered (`authentication.k8s.io/v1`…).
    pub review_version: Option<&'a str>,
    /// The latest `Date` header.
    pub server_time: Option<Time>,
    /// Server clock minus this machine's, estimated from `Date` and the RTT.
    pub clock_offset_seconds: Option<f64>,
    /// The true offset is within `clock_offset_seconds ±` this.
    pub clock_offset_uncertainty_seconds: Option<f64>,
    /// The name the certificate was verified against, when not the URL's host.
    pub tls_server_name: Option<&'a str>,
    /// The TokenReview's answer, or null when none was asked.
    pub token_review: Option<TokenReviewJson<'a>>,
    /// `--audience`: the TokenReview asked with those audiences, or null.
    pub audience_review: Option<AudienceReviewJson<'a>>,
    /// Kids of the JWKS this server serves, or null when not read.
    pub jwks_kids: Option<&'a [String]>,
    /// The issuer of its discovery document, or null when not read.
    pub issuer: Option<&'a str>,
    /// This server's own diagnosis.
    pub diagnosis: DiagnosisJson<'a>,
}

/// `--all-endpoints` discovery.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EndpointsJson<'a> {
    /// The server the replicas were listed through.
    pub via: &'a str,
    /// endpointslices | endpoints | null.
    pub source: Option<&'static str>,
    /// Every replica address probed (at most 32).
    pub addresses: Vec<EndpointAddressJson>,
    /// Addresses listed past the cap (32), not probed.
    pub omitted_addresses: usize,
    /// The discovery requests.
    pub requests: Vec<RequestJson<'a>>,
    /// Why discovery failed, or null.
    pub error: Option<&'a str>,
}

/// One replica address.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EndpointAddressJson {
    /// host:port.
    pub address: String,
    /// Whether the endpoint is ready.
    pub ready: bool,
}

/// A TokenReview asked with `spec.audiences`, as a third-party checker asks it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AudienceReviewJson<'a> {
    /// The audiences asked (`spec.audiences`).
    pub audiences: &'a [String],
    /// The answer.
    pub review: TokenReviewJson<'a>,
    /// `status.audiences` of an authenticated answer (the asked audiences the
    /// token carries); empty otherwise.
    pub status_audiences: &'a [String],
    /// What the checker sees, in one sentence.
    pub checker_sees: String,
}

/// TokenReview's answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TokenReviewJson<'a> {
    /// What the review said.
    pub outcome: ReviewAnswer,
    /// The authenticated user name.
    pub username: Option<&'a str>,
    /// `status.error` verbatim.
    pub error: Option<&'a str>,
    /// Each message of the error, with the wording that matched.
    pub reasons: &'a [AuthReason],
    /// For not-allowed: the HTTP status.
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    /// For not-allowed: the Status message.
    pub message: Option<&'a str>,
}

/// What a TokenReview said, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum ReviewAnswer {
    /// The server accepts the token.
    Authenticated,
    /// The server rejects the token (`status.error` says why).
    Rejected,
    /// The operator may not create TokenReviews, or the API answered otherwise.
    NotAllowed,
}

string_codes!(ReviewAnswer);

/// One request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RequestJson<'a> {
    /// What the request asked.
    pub kind: RequestKind,
    /// HTTP method.
    pub method: Method,
    /// Request path.
    pub path: &'a str,
    /// No token was sent (the preflight and the --anonymous contrast).
    pub anonymous: bool,
    /// Sent with the kubeconfig's credentials (the operator), not the token
    /// under test (a TokenReview's body still carries that token).
    pub operator: bool,
    /// `apiVersion` of the answer, or null.
    pub api_version: Option<&'a str>,
    /// HTTP status, or null without an answer.
    #[schemars(range(min = 100, max = 599))]
    pub status: Option<u16>,
    /// Status `reason` (or an access review's `status.reason`).
    pub reason: Option<&'a str>,
    /// Status `message`.
    pub message: Option<&'a str>,
    /// Status `details`, passed through from the server (or null).
    pub details: Option<&'a Value>,
    /// For an access review: `status.allowed`.
    pub allowed: Option<bool>,
    /// `Location` of a redirect (not followed).
    pub location: Option<&'a str>,
    /// The `Date` header.
    pub date: Option<Time>,
    /// Round-trip time in milliseconds.
    pub latency_ms: Option<u64>,
    /// Transport failure (TLS, DNS, refused, timeout).
    pub error: Option<String>,
}

impl<'a> ProbeJson<'a> {
    pub fn new(report: &'a ProbeReport, token: Option<&'a Token>) -> Self {
        ProbeJson {
            token: token.map(TokenSummaryJson::new),
            anonymous: !report.token_sent,
            kubeconfig: report.kubeconfig.as_ref(),
            endpoints: report.endpoints.as_ref().map(|e| EndpointsJson {
                via: &e.via,
                source: e.source,
                addresses: e
                    .replicas
                    .iter()
                    .map(|r| EndpointAddressJson {
                        address: r.addr.to_string(),
                        ready: !r.not_ready,
                    })
                    .collect(),
                omitted_addresses: e.omitted,
                requests: e.requests.iter().map(request_json).collect(),
                error: e.error.as_deref(),
            }),
            servers: report.servers.iter().map(server_json).collect(),
            bindings: &report.bindings,
            diagnosis: DiagnosisJson::new(&report.diagnosis),
        }
    }
}

fn server_json(server: &ServerReport) -> ServerJson<'_> {
    let (observation, facts) = (&server.observation, &server.facts);
    ServerJson {
        url: &observation.url,
        tls: facts.tls.as_ref(),
        requests: observation.requests.iter().map(request_json).collect(),
        classification: server.classification,
        user: facts.user.as_ref(),
        review_version: facts.review_version.as_deref(),
        server_time: facts.server_time.map(Time::new),
        clock_offset_seconds: facts.offset.map(|o| o.estimate_seconds()),
        clock_offset_uncertainty_seconds: facts.offset.map(|o| o.uncertainty_seconds()),
        tls_server_name: observation.verify_name.as_deref(),
        token_review: facts.token_review.as_ref().map(review_json),
        audience_review: server.audience_review.as_ref().map(|a| AudienceReviewJson {
            audiences: &a.audiences,
            review: review_json(&a.outcome),
            status_audiences: match &a.outcome {
                ReviewOutcome::Authenticated { audiences, .. } => audiences,
                _ => &[],
            },
            checker_sees: a.checker_sees(),
        }),
        jwks_kids: server.jwks_kids.as_deref(),
        issuer: server.issuer.as_deref(),
        diagnosis: DiagnosisJson::new(&server.diagnosis),
    }
}

fn review_json(outcome: &ReviewOutcome) -> TokenReviewJson<'_> {
    let mut json = TokenReviewJson {
        outcome: ReviewAnswer::Authenticated,
        username: None,
        error: None,
        reasons: &[],
        status: None,
        message: None,
    };
    match outcome {
        ReviewOutcome::Authenticated { username, .. } => json.username = Some(username),
        ReviewOutcome::Rejected { error, reasons } => {
            json.outcome = ReviewAnswer::Rejected;
            json.error = Some(error);
            json.reasons = reasons.as_slice();
        }
        ReviewOutcome::NotAllowed { status, message } => {
            json.outcome = ReviewAnswer::NotAllowed;
            json.status = Some(*status);
            json.message = Some(message);
        }
    }
    json
}

fn review_text(outcome: &ReviewOutcome) -> String {
    match outcome {
        ReviewOutcome::Authenticated { username, .. } => format!("authenticated as {username}"),
        ReviewOutcome::Rejected { error, reasons } => {
            let specific = crate::diagnosis::reasons::specific(reasons);
            match specific.first() {
                Some(r) => format!("{error} (wording {}, {})", r.kind.as_str(), r.era),
                None => error.clone(),
            }
        }
        ReviewOutcome::NotAllowed { status, .. } => {
            format!("not allowed for the kubeconfig identity (HTTP {status})")
        }
    }
}

fn request_json(request: &RequestObservation) -> RequestJson<'_> {
    let answer = request.result.as_ref().ok();
    let body = answer.and_then(|a| a.status_body.as_ref());
    let review_status = answer
        .and_then(|a| a.json.as_ref()?.get("status"))
        .filter(|s| s.is_object());
    RequestJson {
        kind: request.kind,
        method: request.method,
        path: &request.path,
        anonymous: request.anonymous,
        operator: request.operator,
        api_version: request.api_version.as_deref(),
        status: answer.map(|a| a.exchange.status),
        reason: body
            .and_then(|b| b.reason.as_deref())
            .or_else(|| review_status?.get("reason")?.as_str()),
        message: body.and_then(|b| b.message.as_deref()),
        details: body.and_then(|b| b.details.as_ref()),
        allowed: review_status.and_then(|s| s.get("allowed")?.as_bool()),
        location: answer.and_then(|a| a.exchange.location.as_deref()),
        date: answer.and_then(|a| a.exchange.date).map(Time::new),
        latency_ms: answer
            .map(|a| u64::try_from(a.exchange.latency.as_millis()).unwrap_or(u64::MAX)),
        error: request.result.as_ref().err().map(ToString::to_string),
    }
}

/// The table view: one block per server, the requests, then the diagnosis.
pub fn write_probe(
    out: &mut dyn Write,
    report: &ProbeReport,
    style: &TableStyle,
) -> io::Result<()> {
    let several = report.servers.len() > 1;
    let mut header = vec!["REQUEST", "TOKEN", "STATUS", "ANSWER", "TIME"];
    if several {
        header.insert(0, "#");
    }
    let mut requests = table_of(style, presets::NOTHING, &header);
    write_context(out, report)?;
    for (i, server) in report.servers.iter().enumerate() {
        write_server(out, server, several.then_some(i + 1), style)?;
        for request in &server.observation.requests {
            let mut row = request_row(request);
            if several {
                row.insert(0, (i + 1).to_string());
            }
            requests.add_row(row);
        }
    }
    writeln!(out)?;
    write_table(out, &requests)?;
    writeln!(out)?;
    write_diagnosis(out, &report.diagnosis, style)
}

/// One server's block (numbered when there are several): its TLS, its answer,
/// who it says the token is, the reviews, its keys and its clock.
fn write_server(
    out: &mut dyn Write,
    server: &ServerReport,
    number: Option<usize>,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let facts = &server.facts;
    let title = number.map_or("Server".to_owned(), |n| format!("Server {n}"));
    let requests = &server.observation.requests;
    let first_answered = requests.first().is_some_and(|r| r.result.is_ok());
    let (tls, look) = match &facts.tls {
        None => (
            "none: plain HTTP (--allow-plain-http)".to_owned(),
            s.warning,
        ),
        Some(t) if t.verified => ("verified".to_owned(), Style::new()),
        Some(t) => match t.reason {
            Some(reason) => (format!("failed: {}", reason.as_str()), s.error),
            None if !server.observation.verifies_tls && first_answered => (
                "NOT verified (--insecure-skip-tls-verify)".to_owned(),
                s.warning,
            ),
            None => ("-".to_owned(), Style::new()),
        },
    };
    let class = server.classification;
    let class_style = match class {
        Classification::Ok | Classification::NotFound => s.ok,
        Classification::Unauthorized | Classification::Forbidden => s.error,
        _ => s.warning,
    };
    let user = facts.user.as_ref().map(|user| {
        let version = facts
            .review_version
            .as_deref()
            .and_then(|v| v.rsplit('/').next())
            .map(|v| format!(" (SelfSubjectReview {v})"))
            .unwrap_or_default();
        format!("{}{version}", sanitize(&user.username))
    });
    let clock = facts.offset.map(|offset| {
        let date = facts
            .server_time
            .map(|t| format!(", Date {}", style.time(t)))
            .unwrap_or_default();
        format!(
            "{} from this machine{date}",
            crate::timefmt::offset_pm(offset.estimate_seconds(), offset.uncertainty_seconds())
        )
    });
    let result = class.as_str().style(class_style).to_string();
    let review = facts.token_review.as_ref().map(review_text);
    let checker = server.audience_review.as_ref();
    let kids = server.jwks_kids.as_ref().map(|k| k.join(", "));
    let rows = [
        (title.as_str(), Some(cell(&server.observation.url))),
        ("TLS", Some(tls.style(look).to_string())),
        ("Result", Some(result)),
        ("User", user),
        ("TokenReview", review.as_deref().map(cell)),
        ("Checker view", checker.map(|a| cell(&a.checker_sees()))),
        ("Keys", kids.as_deref().map(cell)),
        ("Clock", clock),
    ];
    write_table(out, &key_value_table(style, rows))
}

/// One row of the requests table: what was asked, with which credential, and
/// what came back.
fn request_row(request: &RequestObservation) -> Vec<String> {
    let mut what = format!("{} {}", request.method, short_path(&request.path));
    if let Some(v) = request
        .api_version
        .as_deref()
        .and_then(|v| v.rsplit('/').next())
    {
        what.push_str(&format!(" {v}"));
    }
    let (status, answer, time) = match &request.result {
        Ok(a) => {
            let mut text = a
                .status_body
                .as_ref()
                .and_then(|b| b.reason.clone())
                .unwrap_or_default();
            if let Some(allowed) = a
                .json
                .as_ref()
                .and_then(|j| j.get("status")?.get("allowed")?.as_bool())
            {
                text = if allowed { "allowed" } else { "denied" }.to_owned();
            }
            if let Some(location) = &a.exchange.location {
                text = format!("redirect to {location} (not followed)");
            }
            (
                a.exchange.status.to_string(),
                cell(&text),
                format!("{}ms", a.exchange.latency.as_millis()),
            )
        }
        Err(e) => ("-".to_owned(), cell(&e.to_string()), "-".to_owned()),
    };
    vec![
        cell(&what),
        match (request.operator, request.anonymous) {
            (true, _) => "kubeconfig",
            (false, true) => "no",
            (false, false) => "yes",
        }
        .to_owned(),
        status,
        answer,
        time,
    ]
}

/// The lines above the servers: the token not sent, the kubeconfig, the
/// replicas found and the bound objects read.
fn write_context(out: &mut dyn Write, report: &ProbeReport) -> io::Result<()> {
    if !report.token_sent {
        writeln!(
            out,
            "Token:      none sent (--anonymous with no token): every request below is anonymous"
        )?;
    }
    if let Some(k) = &report.kubeconfig {
        writeln!(
            out,
            "Kubeconfig: context {} (cluster {}{}) from {}",
            sanitize(&k.context),
            sanitize(&k.cluster),
            k.credentials
                .map(|c| format!(", user {} by {c}", or_dash(k.user.as_deref())))
                .unwrap_or_default(),
            sanitize(&k.files.join(":"))
        )?;
        if k.own_token {
            writeln!(
                out,
                "Token:      user {}'s own, from the kubeconfig (no token given, none mounted)",
                or_dash(k.user.as_deref())
            )?;
        }
        if let Some(proxy) = &k.proxy {
            writeln!(
                out,
                "Proxy:      {} (kubeconfig proxy-url)",
                sanitize(proxy)
            )?;
        }
    }
    if let Some(e) = &report.endpoints {
        match &e.error {
            Some(error) => writeln!(out, "Endpoints: {}", sanitize(error))?,
            None => writeln!(
                out,
                "Endpoints: {} replicas from the kubernetes Service's {} (via {}){}",
                e.replicas.len(),
                e.source.unwrap_or("-"),
                sanitize(&e.via),
                if e.omitted > 0 {
                    format!(
                        "; {} more listed, not probed (at most {} are)",
                        e.omitted,
                        crate::probe::endpoints::MAX_REPLICAS
                    )
                } else {
                    String::new()
                }
            )?,
        }
    }
    for b in &report.bindings {
        writeln!(
            out,
            "Binding: {} {}/{}: {}{}{}",
            b.target.kind.as_str(),
            sanitize(&b.target.namespace),
            sanitize(&b.target.name),
            b.state.as_str(),
            match (&b.state, b.status) {
                (BindingState::Unreadable, Some(status)) => {
                    format!(" (HTTP {status} via {})", sanitize(&b.via))
                }
                _ => String::new(),
            },
            match (&b.target.claim_uid, &b.live_uid) {
                (Some(c), Some(l)) if c != l =>
                    format!("\n  token uid {}\n  live uid  {}", sanitize(c), sanitize(l)),
                _ => String::new(),
            }
        )?;
    }
    Ok(())
}

/// Review paths are long; the resource name says enough.
fn short_path(path: &str) -> &str {
    if path.starts_with("/apis/authentication.k8s.io/")
        || path.starts_with("/apis/authorization.k8s.io/")
    {
        path.rsplit('/').next().unwrap_or(path)
    } else {
        path
    }
}
