//! `probe` rendering: the JSON wire types (docs/probe.md) and the table view
//! (servers, requests, then the diagnosis with evidence and next steps).

use std::io::{self, Write};

use comfy_table::{ContentArrangement, Table, presets};
use owo_colors::OwoColorize as _;
use serde::Serialize;
use serde_json::Value;

use super::TableStyle;
use super::sanitize::sanitize;
use super::table::write_table;
use crate::diagnosis::{Classification, Confidence, Diagnosis};
use crate::probe::review::ReviewOutcome;
use crate::probe::{ProbeReport, RequestObservation, ServerReport};
use crate::timefmt::rfc3339;

/// `probe -o json`.
#[derive(Debug, Serialize)]
pub struct ProbeJson<'a> {
    /// The kubeconfig used, or null.
    pub kubeconfig: Option<KubeconfigJson<'a>>,
    /// `--all-endpoints`: how the replicas were found, or null.
    pub endpoints: Option<EndpointsJson<'a>>,
    pub servers: Vec<ServerJson<'a>>,
    /// The token's ServiceAccount/pod/Secret as read from the API.
    pub bindings: Vec<BindingJson<'a>>,
    /// `{classification, cause, confidence, evidence, next_steps, candidates}`.
    pub diagnosis: &'a Diagnosis,
}

/// One server.
#[derive(Debug, Serialize)]
pub struct ServerJson<'a> {
    pub url: &'a str,
    pub tls: TlsJson<'a>,
    pub requests: Vec<RequestJson<'a>>,
    pub classification: Classification,
    pub user: Option<UserJson<'a>>,
    /// Which SelfSubjectReview version answered (`authentication.k8s.io/v1`…).
    pub review_version: Option<&'a str>,
    /// The latest `Date` header, RFC 3339.
    pub server_time: Option<String>,
    /// Server clock minus this machine's, estimated from `Date` and the RTT.
    pub clock_offset_seconds: Option<f64>,
    pub clock_offset_uncertainty_seconds: Option<f64>,
    /// The name the certificate was verified against, when not the URL's host.
    pub tls_server_name: Option<&'a str>,
    /// The TokenReview's answer, or null when none was asked.
    pub token_review: Option<TokenReviewJson<'a>>,
    /// Kids of the JWKS this server serves, or null when not read.
    pub jwks_kids: Option<&'a [String]>,
    /// The issuer of its discovery document, or null when not read.
    pub issuer: Option<&'a str>,
}

/// The kubeconfig in use (never its credentials).
#[derive(Debug, Serialize)]
pub struct KubeconfigJson<'a> {
    pub files: &'a [String],
    pub context: &'a str,
    pub cluster: &'a str,
    pub user: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// token | token-file | client-certificate when sent; null otherwise.
    pub credentials: Option<&'static str>,
    /// The proxy the connections were tunnelled through (no credentials).
    pub proxy: Option<&'a str>,
}

/// `--all-endpoints` discovery.
#[derive(Debug, Serialize)]
pub struct EndpointsJson<'a> {
    pub via: &'a str,
    /// endpointslices | endpoints | null.
    pub source: Option<&'static str>,
    pub addresses: Vec<EndpointAddressJson>,
    /// Addresses listed past the cap (32), not probed.
    pub omitted_addresses: usize,
    pub requests: Vec<RequestJson<'a>>,
    pub error: Option<&'a str>,
}

/// One replica address.
#[derive(Debug, Serialize)]
pub struct EndpointAddressJson {
    pub address: String,
    pub ready: bool,
}

/// TokenReview's answer.
#[derive(Debug, Serialize)]
pub struct TokenReviewJson<'a> {
    /// authenticated | rejected | not-allowed.
    pub outcome: &'static str,
    pub username: Option<&'a str>,
    /// `status.error` verbatim.
    pub error: Option<&'a str>,
    /// Each message of the error, with the wording that matched.
    pub reasons: Vec<ReasonJson<'a>>,
    /// For not-allowed: the HTTP status and message.
    pub status: Option<u16>,
    pub message: Option<&'a str>,
}

/// One parsed message of `status.error`.
#[derive(Debug, Serialize)]
pub struct ReasonJson<'a> {
    pub kind: &'static str,
    pub cause: crate::diagnosis::Cause,
    /// Which kube-apiserver versions print this wording.
    pub era: &'static str,
    pub message: &'a str,
}

/// One bound object.
#[derive(Debug, Serialize)]
pub struct BindingJson<'a> {
    /// serviceaccount | pod | secret.
    pub kind: &'static str,
    pub namespace: &'a str,
    pub name: &'a str,
    pub claim_uid: Option<&'a str>,
    pub live_uid: Option<&'a str>,
    pub deletion_timestamp: Option<&'a str>,
    pub invalid_since: Option<&'a str>,
    /// matches | missing | uid-differs | deleting | invalid-since | unreadable.
    pub state: &'static str,
    pub status: Option<u16>,
    pub via: &'a str,
}

/// TLS result.
#[derive(Debug, Serialize)]
pub struct TlsJson<'a> {
    pub verified: bool,
    /// unknown-ca | name-mismatch | expired | other.
    pub reason: Option<&'static str>,
    pub error: Option<&'a str>,
}

/// One request.
#[derive(Debug, Serialize)]
pub struct RequestJson<'a> {
    /// version | self-subject-review | self-subject-access-review | get.
    pub kind: &'static str,
    pub method: &'static str,
    pub path: &'a str,
    /// No token was sent (the preflight and the --anonymous contrast).
    pub anonymous: bool,
    /// Sent with the kubeconfig's credentials (the operator), not the token
    /// under test (a TokenReview's body still carries that token).
    pub operator: bool,
    pub api_version: Option<&'a str>,
    pub status: Option<u16>,
    /// Status `reason` (or an access review's `status.reason`).
    pub reason: Option<&'a str>,
    pub message: Option<&'a str>,
    pub details: Option<&'a Value>,
    /// For an access review: `status.allowed`.
    pub allowed: Option<bool>,
    /// `Location` of a redirect (not followed).
    pub location: Option<&'a str>,
    pub date: Option<String>,
    pub latency_ms: Option<u64>,
    /// Transport failure (TLS, DNS, refused, timeout).
    pub error: Option<String>,
}

/// `status.userInfo` of the SelfSubjectReview.
#[derive(Debug, Serialize)]
pub struct UserJson<'a> {
    pub username: &'a str,
    pub uid: Option<&'a str>,
    pub groups: &'a [String],
    pub extra: Option<&'a Value>,
}

impl<'a> ProbeJson<'a> {
    /// The wire form of a report.
    pub fn new(report: &'a ProbeReport) -> Self {
        ProbeJson {
            kubeconfig: report.kubeconfig.as_ref().map(|k| KubeconfigJson {
                files: &k.files,
                context: &k.context,
                cluster: &k.cluster,
                user: k.user.as_deref(),
                namespace: k.namespace.as_deref(),
                credentials: k.credentials,
                proxy: k.proxy.as_deref(),
            }),
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
            bindings: report
                .bindings
                .iter()
                .map(|b| BindingJson {
                    kind: b.target.kind.as_str(),
                    namespace: &b.target.namespace,
                    name: &b.target.name,
                    claim_uid: b.target.claim_uid.as_deref(),
                    live_uid: b.live_uid.as_deref(),
                    deletion_timestamp: b.deletion_timestamp.as_deref(),
                    invalid_since: b.invalid_since.as_deref(),
                    state: b.state.as_str(),
                    status: b.status,
                    via: &b.via,
                })
                .collect(),
            diagnosis: &report.diagnosis,
        }
    }
}

fn server_json(server: &ServerReport) -> ServerJson<'_> {
    ServerJson {
        url: &server.observation.url,
        tls: TlsJson {
            verified: server.tls.verified,
            reason: server.tls.reason.map(|r| r.as_str()),
            error: server.tls.error.as_deref(),
        },
        requests: server
            .observation
            .requests
            .iter()
            .map(request_json)
            .collect(),
        classification: server.classification,
        user: server.user.as_ref().map(|u| UserJson {
            username: &u.username,
            uid: u.uid.as_deref(),
            groups: &u.groups,
            extra: u.extra.as_ref(),
        }),
        review_version: server.review_version.as_deref(),
        server_time: server.server_time.map(rfc3339),
        clock_offset_seconds: server.offset.map(|o| o.estimate_seconds()),
        clock_offset_uncertainty_seconds: server.offset.map(|o| o.uncertainty_seconds()),
        tls_server_name: server.observation.verify_name.as_deref(),
        token_review: server.token_review.as_ref().map(review_json),
        jwks_kids: server.jwks_kids.as_deref(),
        issuer: server.issuer.as_deref(),
    }
}

fn review_json(outcome: &ReviewOutcome) -> TokenReviewJson<'_> {
    let mut json = TokenReviewJson {
        outcome: "authenticated",
        username: None,
        error: None,
        reasons: Vec::new(),
        status: None,
        message: None,
    };
    match outcome {
        ReviewOutcome::Authenticated { username, .. } => json.username = Some(username),
        ReviewOutcome::Rejected { error, reasons } => {
            json.outcome = "rejected";
            json.error = Some(error);
            json.reasons = reasons
                .iter()
                .map(|r| ReasonJson {
                    kind: r.kind.as_str(),
                    cause: r.cause,
                    era: r.era,
                    message: &r.message,
                })
                .collect();
        }
        ReviewOutcome::NotAllowed { status, message } => {
            json.outcome = "not-allowed";
            json.status = Some(*status);
            json.message = Some(message);
        }
    }
    json
}

/// One line for the table: what the TokenReview said.
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
    let mut json = RequestJson {
        kind: request.kind.as_str(),
        method: request.method,
        path: &request.path,
        anonymous: request.anonymous,
        operator: request.operator,
        api_version: request.api_version.as_deref(),
        status: None,
        reason: None,
        message: None,
        details: None,
        allowed: None,
        location: None,
        date: None,
        latency_ms: None,
        error: None,
    };
    match &request.result {
        Ok(answer) => {
            json.status = Some(answer.status);
            if let Some(body) = &answer.status_body {
                json.reason = body.reason.as_deref();
                json.message = body.message.as_deref();
                json.details = body.details.as_ref();
            }
            let review_status = answer.json.as_ref().and_then(|j| j.get("status"));
            if let Some(status) = review_status.filter(|s| s.is_object()) {
                json.allowed = status.get("allowed").and_then(Value::as_bool);
                if json.reason.is_none() {
                    json.reason = status.get("reason").and_then(Value::as_str);
                }
            }
            json.location = answer.location.as_deref();
            json.date = answer.date.map(rfc3339);
            json.latency_ms = Some(u64::try_from(answer.latency.as_millis()).unwrap_or(u64::MAX));
        }
        Err(error) => json.error = Some(error.to_string()),
    }
    json
}

/// The table view: one block per server, the requests, then the diagnosis.
pub fn write_probe(
    out: &mut dyn Write,
    report: &ProbeReport,
    style: &TableStyle,
) -> io::Result<()> {
    let s = &style.styles;
    let several = report.servers.len() > 1;
    if let Some(k) = &report.kubeconfig {
        writeln!(
            out,
            "Kubeconfig: context {} (cluster {}{}) from {}",
            sanitize(&k.context),
            sanitize(&k.cluster),
            k.credentials
                .map(|c| format!(
                    ", user {} by {c}",
                    sanitize(k.user.as_deref().unwrap_or("-"))
                ))
                .unwrap_or_default(),
            sanitize(&k.files.join(":"))
        )?;
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
                (crate::probe::bindings::BindingState::Unreadable, Some(status)) => {
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
    for (i, server) in report.servers.iter().enumerate() {
        let mut table = super::table::key_value_table(style);
        let mut row = |key: &str, value: String| {
            table.add_row([format!("{key}:").style(s.bold).to_string(), value]);
        };
        let title = if several {
            format!("Server {}", i + 1)
        } else {
            "Server".to_owned()
        };
        row(&title, sanitize(&server.observation.url).into_owned());
        let tls = if server.tls.verified {
            "verified".to_owned()
        } else if let Some(reason) = server.tls.reason {
            format!("failed: {}", reason.as_str())
                .style(s.error)
                .to_string()
        } else if !server.observation.verifies_tls
            && server
                .observation
                .requests
                .first()
                .is_some_and(|r| r.result.is_ok())
        {
            "NOT verified (--insecure-skip-tls-verify)"
                .style(s.warning)
                .to_string()
        } else {
            "-".to_owned()
        };
        row("TLS", tls);
        let class = server.classification;
        let class_style = match class {
            Classification::Ok | Classification::NotFound => s.ok,
            Classification::Unauthorized | Classification::Forbidden => s.error,
            _ => s.warning,
        };
        row("Result", class.as_str().style(class_style).to_string());
        if let Some(user) = &server.user {
            let version = server
                .review_version
                .as_deref()
                .and_then(|v| v.rsplit('/').next())
                .map(|v| format!(" (SelfSubjectReview {v})"))
                .unwrap_or_default();
            row("User", format!("{}{version}", sanitize(&user.username)));
        }
        if let Some(review) = &server.token_review {
            row("TokenReview", sanitize(&review_text(review)).into_owned());
        }
        if let Some(kids) = &server.jwks_kids {
            row("Keys", sanitize(&kids.join(", ")).into_owned());
        }
        if let Some(offset) = server.offset {
            let date = server
                .server_time
                .map(|t| format!(", Date {}", style.time(t)))
                .unwrap_or_default();
            row(
                "Clock",
                format!(
                    "{:+.1} s ± {:.1} s from this machine{date}",
                    offset.estimate_seconds(),
                    offset.uncertainty_seconds()
                ),
            );
        }
        write_table(out, &table)?;
    }
    writeln!(out)?;

    let mut requests = plain_table(style);
    let mut header = vec!["REQUEST", "TOKEN", "STATUS", "ANSWER", "TIME"];
    if several {
        header.insert(0, "#");
    }
    requests.set_header(header.into_iter().map(|h| h.style(s.bold).to_string()));
    for (i, server) in report.servers.iter().enumerate() {
        for request in &server.observation.requests {
            let what = match request
                .api_version
                .as_deref()
                .and_then(|v| v.rsplit('/').next())
            {
                Some(v) => format!("{} {} {v}", request.method, short_path(&request.path)),
                None => format!("{} {}", request.method, short_path(&request.path)),
            };
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
                    if let Some(location) = &a.location {
                        text = format!("redirect to {location} (not followed)");
                    }
                    (
                        a.status.to_string(),
                        sanitize(&text).into_owned(),
                        format!("{}ms", a.latency.as_millis()),
                    )
                }
                Err(e) => (
                    "-".to_owned(),
                    sanitize(&e.to_string()).into_owned(),
                    "-".to_owned(),
                ),
            };
            let mut row = vec![
                sanitize(&what).into_owned(),
                if request.operator {
                    "kubeconfig"
                } else if request.anonymous {
                    "no"
                } else {
                    "yes"
                }
                .to_owned(),
                status,
                answer,
                time,
            ];
            if several {
                row.insert(0, (i + 1).to_string());
            }
            requests.add_row(row);
        }
    }
    write_table(out, &requests)?;
    writeln!(out)?;
    write_diagnosis(out, &report.diagnosis, style)
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

fn plain_table(style: &TableStyle) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(style.width);
    table
}

fn confidence(c: Confidence) -> &'static str {
    match c {
        Confidence::High => "high",
        Confidence::Medium => "medium",
        Confidence::Low => "low",
    }
}

fn write_diagnosis(out: &mut dyn Write, d: &Diagnosis, style: &TableStyle) -> io::Result<()> {
    let s = &style.styles;
    let width = usize::from(style.width);
    writeln!(
        out,
        "{} {}: {} ({} confidence)",
        "Diagnosis:".style(s.bold),
        d.classification.as_str(),
        d.cause.as_str().style(s.bold),
        confidence(d.confidence)
    )?;
    let section = |out: &mut dyn Write, title: &str, items: &[String]| -> io::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        writeln!(out, "{}", title.style(s.bold))?;
        for item in items {
            let item = sanitize(item);
            let lines: Vec<String> = command_split(&item)
                .into_iter()
                .flat_map(|part| wrap(part, width.saturating_sub(4).max(20)))
                .collect();
            for (i, line) in lines.iter().enumerate() {
                writeln!(out, "{}{line}", if i == 0 { "  - " } else { "    " })?;
            }
        }
        Ok(())
    };
    section(out, "Evidence:", &d.evidence)?;
    section(out, "Next steps:", &d.next_steps)?;
    let others: Vec<String> = d
        .candidates
        .iter()
        .skip(1)
        .map(|c| {
            let mut text = format!("{} ({})", c.cause.as_str(), confidence(c.confidence));
            if let Some(e) = c.evidence.first() {
                text.push_str(": ");
                text.push_str(e);
            }
            for step in &c.next_steps {
                text.push_str("\n$ ");
                text.push_str(step);
            }
            text
        })
        .collect();
    if !others.is_empty() {
        writeln!(out, "{}", "Other candidates:".style(s.bold))?;
        for item in others {
            for (i, line) in item
                .lines()
                .flat_map(|l| wrap(&sanitize(l), width.saturating_sub(4).max(20)))
                .enumerate()
            {
                writeln!(out, "{}{line}", if i == 0 { "  - " } else { "    " })?;
            }
        }
    }
    Ok(())
}

/// "prose: kubectl …" -> the prose, and the command on a line of its own.
fn command_split(text: &str) -> Vec<&str> {
    match text.find(": kubectl ") {
        Some(at) => vec![&text[..=at], &text[at + 2..]],
        None => vec![text],
    }
}

/// Greedy word wrap; words longer than the width stay whole, and shell
/// commands are never wrapped (they must stay copyable as one line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    if text.starts_with("kubectl ") || text.starts_with("$ ") {
        return vec![text.to_owned()];
    }
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_whole() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("a-very-long-word x", 4), ["a-very-long-word", "x"]);
        assert!(wrap("", 10).is_empty());
        assert_eq!(wrap("kubectl get pods -n x", 5), ["kubectl get pods -n x"]);
        assert_eq!(
            command_split("see: kubectl get x"),
            ["see:", "kubectl get x"]
        );
    }
}
