//! `curl -v` transcripts: `>` request lines (method, path, `Authorization`),
//! `<` response lines (status, `date:`, `audit-id:`, `warning:`), `*`
//! connection and TLS lines, and `curl: (N) …` failures. The body that follows
//! a response is read like any other text (a Status body there joins the
//! answer).
//!
//! The `*` lines about TLS are context: when the server answered, the
//! handshake succeeded and the answer is what matters. A connection failure
//! on a `*` line is an answer only if no response follows before the next
//! request (curl tries every address; one refused does not mean all were).

use super::super::artefact::Kind;
use super::super::facts::{BearerSeen, HttpAnswer, TransportFailure};
use super::status::status_line;
use super::transport;
use super::url::request_from_url;
use crate::secret::SecretToken;
use crate::vocabulary::cause::Cause;
use crate::vocabulary::clouds::{CredentialEndpoint, credential_endpoint_in};
use crate::vocabulary::cues::{CURL_INFO, CURL_REQUEST_HEADERS};

/// Whether `rest` (after `> `) is a request line or header curl prints.
pub fn is_request_line(rest: &str) -> bool {
    let rest = rest.trim_end();
    if let Some((method, tail)) = rest.split_once(' ')
        && !method.is_empty()
        && method.chars().all(|c| c.is_ascii_uppercase())
        && (tail.ends_with(" HTTP/1.1") || tail.ends_with(" HTTP/2") || tail.ends_with(" HTTP/1.0"))
    {
        return true;
    }
    let Some((name, _)) = rest.split_once(':') else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    name.starts_with("x-") || CURL_REQUEST_HEADERS.contains(&name.as_str())
}

/// The state of a transcript between lines.
#[derive(Debug, Default)]
pub struct Curl {
    /// A `>` request line was read, and the credentials its headers carry.
    requested: bool,
    bearer: Option<BearerSeen>,
    tls: Option<String>,
    /// A response was seen since the last request.
    answered: bool,
    /// A connection failure on a `*` line, kept until it is clear that no
    /// response follows: (line, cause, text).
    failure: Option<(usize, Cause, String)>,
    /// A curl line was seen: `*` lines are curl's from now on.
    seen: bool,
    /// Notes about the connection, for the request that follows it.
    held: Vec<String>,
    /// The command line that starts the transcript passed credentials that
    /// are no `Authorization` header (`--cert`, `-u`): no header line proves
    /// nothing was sent.
    pub other_credentials: bool,
    /// The cloud credential endpoint curl connected to (`Trying
    /// 169.254.169.254...`): what answers there is not kube-apiserver.
    endpoint: Option<&'static CredentialEndpoint>,
}

/// What a curl line gave, each with the line it belongs to.
pub type Out = Vec<(usize, Kind)>;

impl Curl {
    /// Reads one line; `None` when it is not a curl line (a body line).
    pub fn feed(&mut self, number: usize, line: &str) -> Option<Out> {
        let line = line.trim_end();
        let mut out: Out = Vec::new();
        if let Some(rest) = line
            .strip_prefix("> ")
            .or_else(|| (line == ">").then_some(""))
        {
            if rest.is_empty() {
                return self.seen.then_some(out);
            }
            if !is_request_line(rest) {
                return None;
            }
            self.seen = true;
            self.request_line(number, rest, &mut out);
            return Some(out);
        }
        if let Some(rest) = line.strip_prefix("< ").or_else(|| line.strip_prefix('<')) {
            if let Some((code, _)) = status_line(rest) {
                self.seen = true;
                self.answered = true;
                self.failure = None;
                if self.requested && self.bearer.is_none() && !self.other_credentials {
                    out.push((number, Kind::Bearer(BearerSeen::Absent)));
                    self.bearer = Some(BearerSeen::Absent);
                }
                if self.other_credentials && self.bearer.is_none() && code == 401 {
                    out.push((
                        number,
                        Kind::Note(
                            "the command passed credentials that are no Authorization header (a client certificate, -u): a 401 then says the server did not accept those"
                                .to_owned(),
                        ),
                    ));
                }
                let answer = match self.endpoint {
                    Some(e) => super::clients::endpoint_answer(code, e, 2),
                    None => HttpAnswer::with_status(code, 2),
                };
                out.push((number, Kind::Http(answer)));
                if let Some(tls) = &self.tls {
                    out.push((
                        number,
                        Kind::Note(format!(
                            "TLS handshake completed ({tls}); the server answered, so the TLS lines are not the failure"
                        )),
                    ));
                }
                return Some(out);
            }
            if !self.seen {
                return None;
            }
            if let Some((name, value)) = rest.split_once(':') {
                let value = value.trim();
                let kind = match name.trim().to_ascii_lowercase().as_str() {
                    "audit-id" => Some(super::audit_id_note(value)),
                    "warning" => Some(Kind::Note(format!("server warning: {value}"))),
                    "date" => super::status::date_header(&format!("Date: {value}")).map(Kind::Date),
                    _ => None,
                };
                out.extend(kind.map(|kind| (number, kind)));
                return Some(out);
            }
            return rest.trim().is_empty().then_some(out);
        }
        if let Some(rest) = line.strip_prefix("* ") {
            let rest = rest.trim();
            if !self.seen && !CURL_INFO.iter().any(|i| rest.starts_with(i)) {
                return None;
            }
            self.seen = true;
            if let Some(using) = rest.strip_prefix("SSL connection using ") {
                self.tls = Some(using.to_owned());
            }
            if rest.starts_with("Trying ") || rest.starts_with("Connected to ") {
                self.endpoint = credential_endpoint_in(rest);
            }
            // curl 8 with HTTP/2 echoes request headers as `* [HTTP/2] [1] [authorization: …]`.
            if let Some(h) = rest
                .strip_prefix("[HTTP/2] [")
                .and_then(|r| r.split_once("] ["))
                .map(|(_, h)| h.trim_end_matches(']'))
                && h.to_ascii_lowercase().starts_with("authorization:")
                && self.bearer.is_none()
            {
                self.bear(number, bearer_of(&h["authorization:".len()..]), &mut out);
            }
            if rest.ends_with("continuing anyway.") {
                // `curl -k`: the verification failed and curl went on.
                self.held.push(format!(
                    "curl was told not to verify the server (-k): \"{rest}\" did not stop the request"
                ));
            } else if !self.answered
                && self.failure.is_none()
                && let Some(cause) = transport::detect_line(rest)
            {
                self.failure = Some((number, cause, rest.to_owned()));
            }
            return Some(out);
        }
        if line.trim_start().starts_with("curl: (") {
            self.seen = true;
            let l = line.trim_start();
            // `curl -f`: an HTTP answer (`The requested URL returned error: 401`).
            if transport::curl_answered(l) {
                self.answered = true;
                self.failure = None;
                return None;
            }
            if !self.answered {
                // curl's own summary names the failure; when its words do not,
                // the `*` line that did is the answer. Its exit code names the
                // class whatever the words.
                let said = transport::named(l).filter(|c| *c != Cause::Unknown);
                let (at, said, detail) = match (said, self.failure.take()) {
                    (Some(cause), _) => (number, cause, l.to_owned()),
                    (None, Some(kept)) => kept,
                    (None, None) => (number, Cause::Unknown, l.to_owned()),
                };
                let (cause, also) = match transport::curl_exit(l) {
                    Some(code) if said == Cause::Unknown => {
                        transport::detect_all(l).unwrap_or((code, Vec::new()))
                    }
                    Some(code) => (transport::within(code, said), Vec::new()),
                    None => (said, Vec::new()),
                };
                let failure = TransportFailure {
                    cause,
                    detail,
                    also,
                    endpoint: self.endpoint,
                };
                out.push((at, Kind::Transport(failure)));
            }
            self.answered = true;
            return Some(out);
        }
        None
    }

    fn request_line(&mut self, number: usize, rest: &str, out: &mut Out) {
        let rest = rest.trim();
        if let Some((method, tail)) = rest.split_once(' ')
            && method.chars().all(|c| c.is_ascii_uppercase())
            && let Some((path, _)) = tail.rsplit_once(' ')
        {
            // A request is written only over an established connection, after
            // the TLS handshake: a failure curl logged before it did not stop it.
            if !self.answered
                && let Some((_, _, text)) = self.failure.take()
            {
                self.held.push(format!(
                    "\"{text}\" did not stop the request: it was sent, so the connection and the TLS handshake succeeded"
                ));
            }
            self.flush(out);
            let held = std::mem::take(&mut self.held);
            *self = Curl {
                tls: self.tls.take(),
                requested: true,
                seen: true,
                other_credentials: self.other_credentials,
                endpoint: self.endpoint,
                ..Curl::default()
            };
            out.push((number, Kind::Boundary));
            out.extend(held.into_iter().map(|n| (number, Kind::Note(n))));
            let mut info = request_from_url(Some(method), path);
            if info.path.is_some() && info.verb.is_none() {
                info.verb = Some(method.to_owned());
            }
            out.push((number, Kind::Request(info)));
            return;
        }
        if let Some((name, value)) = rest.split_once(':') {
            if name.eq_ignore_ascii_case("authorization") {
                self.bear(number, bearer_of(value), out);
            } else if name.eq_ignore_ascii_case("sec-websocket-protocol")
                && let Some(bearer) = websocket_bearer(value)
            {
                self.bear(number, bearer, out);
            } else if name.eq_ignore_ascii_case("host") {
                out.push((number, Kind::Note(format!("host {}", value.trim()))));
            }
        }
    }

    /// The request's credentials, as its header shows them.
    fn bear(&mut self, number: usize, bearer: BearerSeen, out: &mut Out) {
        self.bearer = Some(bearer.clone());
        out.push((number, Kind::Bearer(bearer)));
    }

    /// A kept connection failure becomes the answer when no response came.
    pub fn flush(&mut self, out: &mut Out) {
        if !self.answered
            && let Some((line, cause, detail)) = self.failure.take()
        {
            let also = Vec::new();
            let failure = TransportFailure {
                cause,
                detail,
                also,
                endpoint: self.endpoint,
            };
            out.push((line, Kind::Transport(failure)));
        }
        self.answered = false;
    }
}

/// The bearer token a websocket client offers as a subprotocol, where
/// browsers cannot set headers: kube-apiserver reads
/// `base64url.bearer.authorization.k8s.io.<base64url token>` as the request's
/// bearer token (k8s.io/apiserver pkg/authentication/request/websocket/protocol.go).
fn websocket_bearer(value: &str) -> Option<BearerSeen> {
    use base64::Engine as _;
    const PREFIX: &str = "base64url.bearer.authorization.k8s.io.";
    let encoded = value
        .split(',')
        .find_map(|p| p.trim().strip_prefix(PREFIX))?;
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default();
    Some(if token.trim().is_empty() {
        BearerSeen::Empty
    } else {
        BearerSeen::Token(SecretToken::new(token.trim()))
    })
}

/// What an `Authorization` value carries. kube-apiserver splits on single spaces,
/// so `Bearer` followed by nothing or by two spaces is no credential at all
/// (k8s.io/apiserver pkg/authentication/request/bearertoken).
pub fn bearer_of(value: &str) -> BearerSeen {
    let value = value.strip_prefix(' ').unwrap_or(value);
    let Some(token) = value
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("bearer "))
        .map(|_| &value[7..])
    else {
        return if value.trim().eq_ignore_ascii_case("bearer") {
            BearerSeen::Empty
        } else {
            BearerSeen::Absent
        };
    };
    if token.trim().is_empty() || token.starts_with(' ') {
        return BearerSeen::Empty;
    }
    BearerSeen::Token(SecretToken::new(token.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a fresh reader makes of `lines`, numbered from 1; flushed if asked.
    fn read(lines: &[&str], flush: bool) -> Out {
        let mut c = Curl::default();
        let mut all = Out::default();
        for (i, l) in lines.iter().enumerate() {
            all.extend(c.feed(i + 1, l).unwrap());
        }
        if flush {
            c.flush(&mut all);
        }
        all
    }

    #[test]
    fn bearer_values() {
        assert_eq!(bearer_of(" Bearer "), BearerSeen::Empty);
        assert_eq!(bearer_of(" Bearer  eyJ.x.y"), BearerSeen::Empty);
        assert!(matches!(bearer_of(" Bearer eyJ.x.y"), BearerSeen::Token(_)));
        assert_eq!(bearer_of(" Basic abc"), BearerSeen::Absent);
    }

    #[test]
    fn a_tls_complaint_before_a_request_that_was_sent_is_not_the_failure() {
        for verify in [
            "* SSL certificate verify result: unable to get local issuer certificate (20), continuing anyway.",
            "* SSL certificate problem: unable to get local issuer certificate",
        ] {
            let lines = [
                "* ALPN, offering h2",
                verify,
                "> GET /api/v1/namespaces/x/pods/y HTTP/2",
                "> authorization: Bearer abc.def.ghi",
                "< HTTP/2 401",
            ];
            let all = read(&lines, true);
            assert!(
                !all.iter().any(|(_, k)| matches!(k, Kind::Transport(_))),
                "{verify}: {all:?}"
            );
            assert!(all.iter().any(|(_, k)| matches!(k, Kind::Http(_))));
        }
    }

    #[test]
    fn a_refused_address_is_not_the_answer_when_another_answers() {
        let lines = [
            "> GET /api HTTP/1.1",
            "* connect to ::1 port 6443 failed: Connection refused",
            "*   Trying 127.0.0.1:6443...",
            "< HTTP/1.1 401 Unauthorized",
        ];
        let all = read(&lines, true);
        assert!(!all.iter().any(|(_, k)| matches!(k, Kind::Transport(_))));
        let lines = [
            "*   Trying 10.96.0.1:6443...",
            "* connect to 10.96.0.1 port 6443 failed: Connection refused",
            "curl: (7) Failed to connect to 10.96.0.1 port 6443 after 2 ms: Couldn't connect to server",
        ];
        let all = read(&lines, false);
        let (n, kind) = &all[0];
        assert_eq!(*n, 2);
        assert!(matches!(kind, Kind::Transport(t) if t.cause == Cause::ConnectionRefused));
    }

    /// What answers at a cloud's credential endpoint is that endpoint, not
    /// kube-apiserver: its status is its own, and so is a failure to reach it.
    #[test]
    fn a_credential_endpoint_answers_for_itself() {
        let lines = [
            "*   Trying 169.254.169.254...",
            "* Connected to 169.254.169.254 (169.254.169.254) port 80 (#0)",
            "> GET /computeMetadata/v1/instance/service-accounts/default/token HTTP/1.1",
            "< HTTP/1.1 403 Forbidden",
        ];
        let all = read(&lines, true);
        let h = all
            .iter()
            .find_map(|(_, k)| match k {
                Kind::Http(h) => Some(h),
                _ => None,
            })
            .unwrap();
        assert_eq!(h.relay_status, Some(403));
        assert_eq!(
            h.verdict.as_ref().map(|v| v.service),
            Some("the instance metadata service")
        );
        let lines = [
            "*   Trying 169.254.170.23:80...",
            "curl: (28) Connection timed out after 5001 milliseconds",
        ];
        let all = read(&lines, false);
        assert!(
            all.iter()
                .any(|(_, k)| matches!(k, Kind::Transport(t) if t.endpoint.is_some()))
        );
    }
}
