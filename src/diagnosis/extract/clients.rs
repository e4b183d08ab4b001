//! Errors as client libraries and other programs print them, found anywhere
//! in a line: client-go (`…: Unauthorized`, `the server has asked for the
//! client to provide credentials`), the Python `kubernetes` client
//! (`ApiException: (403)`, `Reason: Forbidden`) and `requests` (`401 Client
//! Error: Unauthorized for url: …`), fabric8 (`Unauthorized! Token may have
//! expired!`, `Forbidden!Configured service account doesn't have access`),
//! JavaScript (`ApiException [Error]: HTTP-Code: 401` from 1.0 on,
//! `statusCode: 403` before), C# (`invalid status code 'Forbidden'`),
//! Java (`HTTP response code: 401`), Rust and Erlang clients, gRPC status
//! codes, OkHttp, wget, `curl -f`, the Dashboard, Ray, kubelet probes, and a
//! Go request dump (`request [&{Method:GET URL:… Header:map[]…}]`).

use std::sync::LazyLock;

use super::super::facts::{
    AnswerOrigin, BearerSeen, CheckerFailure, HttpAnswer, RequestInfo, ServiceVerdict,
};
use super::super::reasons::AuthReason;
use super::needles::Needles;
use super::status::{ends_unauthorized, generic_text, stated_in, template_of, unauthorized};
use super::url::{method_and_url, request_from_url};
use crate::vocabulary::apimachinery::code_of;
use crate::vocabulary::cause::Cause;
use crate::vocabulary::clients::{self, STATUS_WRAPPERS};
use crate::vocabulary::clouds::{CredentialEndpoint, credential_endpoint_in};
use crate::vocabulary::cues::CLIENT_LABELS;
use crate::vocabulary::transport::PROXY_TUNNEL_REFUSED;

/// What a client (kubectl among them) or a token checker printed in a line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientLine {
    /// A checker that could not complete its review.
    pub failure: Option<CheckerFailure>,
    /// A checker's own check of the token's claims.
    pub reasons: Vec<AuthReason>,
    pub http: Option<HttpAnswer>,
    pub format: &'static str,
    pub note: Option<String>,
    pub bearer: Option<BearerSeen>,
    pub request: Option<RequestInfo>,
    /// kubectl's `Unable to connect to the server: …`: the text after it.
    pub transport: Option<String>,
}

/// Which client wrote a line (for the output's `format`).
pub fn label(line: &str) -> &'static str {
    static NEEDLES: LazyLock<Needles> =
        LazyLock::new(|| Needles::new(CLIENT_LABELS.iter().map(|(needle, _)| *needle), false));
    NEEDLES
        .first(line)
        .map_or("client-go", |i| CLIENT_LABELS[i].1)
}

pub fn find(line: &str) -> Option<ClientLine> {
    let t = line.trim();
    let mut found = ClientLine {
        format: label(t),
        ..ClientLine::default()
    };
    // The Dashboard prints the status it got (or its own), the message on
    // the next line.
    if let Some(i) = t.find("Dashboard reported ")
        && let Some(open) = t[i..].rfind('(')
        && let Some(code) = t[i + open + 1..].get(..3).and_then(|c| c.parse().ok())
    {
        found.http = Some(HttpAnswer::relayed(
            "the Kubernetes Dashboard",
            Some(code),
            3,
        ));
        return Some(found);
    }
    // Python's `Reason: Forbidden` line under an ApiException, or a Go
    // struct's `Reason: "Timeout",` field, names the reason of the status
    // around it: no answer of its own, unless it states one or names a
    // transport failure (under `(0)`, a stream's). A reason no status goes
    // by is a condition's (kubectl describe's `Reason: Ready`).
    if let Some(reason) = t.strip_prefix("Reason: ")
        && stated_in(reason).is_none()
        && super::transport::named(reason).is_none()
        && let field = reason.trim_end_matches(',').trim_matches('"')
        && crate::vocabulary::apimachinery::code_of(field.trim()).is_some()
    {
        found.format = if field.len() < reason.len() {
            "client-go"
        } else {
            "python-kubernetes"
        };
        found.http = Some(HttpAnswer {
            reason: Some(field.trim().to_owned()),
            weight: 1,
            ..HttpAnswer::default()
        });
        return Some(found);
    }
    let mut facts = HttpAnswer::default();
    if let Some(code) = fabric8_status(t) {
        facts.status = Some(code);
        facts.weight = 3;
    }
    if t.contains("Service account may have been revoked") || t.contains("Token may have expired!")
    {
        found.note = Some(
            "fabric8 adds \"Service account may have been revoked\" / \"Token may have expired!\" to every 401 and 403: its stock text, not a diagnosis"
                .to_owned(),
        );
    }
    // An HTML error page (`<title>401 Authorization Required</title>`, as
    // nginx, Apache and most proxies write one): kube-apiserver never
    // answers HTML.
    if let Some((_, title)) = t.split_once("<title>")
        && let Some(code) = title.get(..3).and_then(|c| c.parse::<u16>().ok())
        && (400..600).contains(&code)
        && title[3..].starts_with(' ')
    {
        facts.status = Some(code);
        facts.weight = 2;
        facts.origin = AnswerOrigin::Other(
            "an HTML error page answered (a web server, proxy or ingress), not kube-apiserver"
                .to_owned(),
        );
    }
    // `401 Client Error: Unauthorized for url: …` (requests).
    for kind in [" Client Error: ", " Server Error: "] {
        if let Some(at) = t.find(kind)
            && let Some(code) = t[..at]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|c| c.parse::<u16>().ok())
        {
            let rest = &t[at + kind.len()..];
            let (reason, url) = rest.split_once(" for url: ").unwrap_or((rest, ""));
            facts.status = Some(code);
            facts.reason = Some(reason.trim().to_owned());
            facts.weight = 3;
            if !url.is_empty() {
                found.request = Some(request_from_url(Some("GET"), url.trim()));
                found.note = Some(
                    "requests does not show the method; GET assumed for the request".to_owned(),
                );
            }
        }
    }
    if facts.status.is_none()
        && let Some((code, field)) = stated_in(t)
    {
        facts.status = Some(code);
        // A Status dumped whole is a body's view of the answer.
        facts.weight = if field {
            1
        } else if t.contains("Exception") || t.contains("Error: (") {
            3
        } else {
            2
        };
    }
    if let Some((code, text)) = generic_text(t) {
        facts.status = facts.status.or(Some(code));
        facts.message = (!text.is_empty()).then(|| text.to_owned());
        // The kubelet's refusal names who and what: its message is the answer's.
        if let Some(i) = t.find("Forbidden (user=") {
            let end = t[i..].find(')').map_or(t.len(), |e| i + e + 1);
            facts.message = Some(t[i..end].to_owned());
        }
        // The proxy's body is the whole line, from its `Error: '…'`.
        if t.contains(super::status::PROXY_TARGET) {
            facts.message = Some(t[t.find("Error: '").unwrap_or(0)..].to_owned());
        }
        facts.weight = facts.weight.max(2);
    } else if facts.status.is_none() && ends_unauthorized(t) {
        facts = unauthorized("Unauthorized".to_owned(), 2);
    } else if facts.status.is_none()
        && let Some((message, t)) = STATUS_WRAPPERS.iter().find_map(|(w, _)| {
            let message = t[t.find(w)? + w.len()..].trim();
            Some((message, template_of(message)?))
        })
    {
        facts.status = Some(t.code);
        facts.reason = Some(t.reason.to_owned());
        facts.message = Some(message.to_owned());
        facts.weight = 2;
    }
    found.bearer = bearer_in(t, &mut found.note);
    // A URL after kube-apiserver's words about a call of its own is that call's
    // (the webhook's, the kubelet's), not the client's request.
    let own_call = super::super::wordings::ONWARD_CALLS
        .iter()
        .filter_map(|w| t.find(w.text))
        .min()
        .unwrap_or(t.len());
    if found.request.is_none()
        && let Some((method, url)) = method_and_url(&t[..own_call])
    {
        found.request = Some(request_from_url(method, url));
    }
    // A status in a proxy's refusal of the tunnel (CONNECT) is the proxy's.
    if facts.status.is_some()
        && let Some(w) = PROXY_TUNNEL_REFUSED.iter().find(|w| t.contains(w.text))
    {
        facts.origin = refused_tunnel(w.printed_by);
    }
    // A status a line gives with a cloud credential endpoint's address is
    // that endpoint's answer (google-auth's `Failed to retrieve http://
    // metadata.google.internal/…  Status: 404`).
    if let Some(code) = facts.status
        && let Some(e) = credential_endpoint_in(t)
    {
        facts = endpoint_answer(code, e, facts.weight);
    }
    found.http = (facts != HttpAnswer::default()).then_some(facts);
    (found.http.is_some()
        || found.bearer.is_some()
        || found.request.is_some()
        || found.note.is_some())
    .then_some(found)
}

/// What a line shows of the credentials a request carried, when it shows
/// any: a client that sends none (a kubelet's HTTP probe, unless its
/// httpHeaders set one; kubectl prompting for a username, which it does only
/// for a kubeconfig user with no credential), or Go's request dump whose
/// `Header:map[…]` holds no Authorization. The prompt's why goes in `note`.
fn bearer_in(t: &str, note: &mut Option<String>) -> Option<BearerSeen> {
    if t.contains("probe failed with statuscode: ") {
        return Some(BearerSeen::NoneExpected(
            "a kubelet's HTTP probe sends no Authorization header (unless its httpHeaders set one)"
                .to_owned(),
        ));
    }
    if t.contains(clients::KUBECTL_CREDENTIAL_PROMPT) {
        *note = Some(
            "kubectl asked for a username: it does so only when the kubeconfig's user holds no credential, so no token was sent".to_owned(),
        );
        return Some(BearerSeen::Absent);
    }
    let (_, rest) = t.split_once("Header:map[")?;
    let headers = rest.split(']').next().unwrap_or("");
    (!headers.contains("Authorization")).then_some(BearerSeen::NotInTrace)
}

/// A cloud credential endpoint's answer: its status is its own, shown as
/// a relay's, never kube-apiserver's.
pub(super) fn endpoint_answer(code: u16, e: &'static CredentialEndpoint, weight: u8) -> HttpAnswer {
    HttpAnswer {
        relay: Some(e.name.to_owned()),
        relay_status: Some(code),
        verdict: Some(ServiceVerdict {
            cause: Cause::Unknown,
            service: e.name,
            cloud: None,
            alternatives: &[],
            detail: format!("HTTP {code} from {} ({})", e.name, e.address),
        }),
        ..HttpAnswer::with_status(code, weight)
    }
}

/// An HTTP proxy's refusal of the tunnel (CONNECT), as `by` reports it:
/// the status is the proxy's, and no request reached kube-apiserver.
pub(super) fn refused_tunnel(by: &str) -> AnswerOrigin {
    AnswerOrigin::Other(format!(
        "{by} says an HTTP proxy refused the tunnel (CONNECT): its status, not kube-apiserver's"
    ))
}

/// fabric8's status: its stock texts for a 401 and a 403 or, for an answer
/// without a Status body, its message that is the reason phrase
/// (`Failure executing: GET at: URL. Message: Not Found.`).
fn fabric8_status(t: &str) -> Option<u16> {
    if t.contains("Unauthorized!") {
        return Some(401);
    }
    if t.contains("Forbidden!Configured service account") || t.contains("Forbidden! ") {
        return Some(403);
    }
    if !t.contains("Failure executing: ") {
        return None;
    }
    let (_, message) = t.split_once(". Message: ")?;
    code_of(message.split('.').next()?.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An HTML error page is a web server's or a proxy's, never
    /// kube-apiserver's; a title that is no status is not read.
    #[test]
    fn an_html_error_page_is_another_server_s_answer() {
        let page = "<html><head><title>401 Authorization Required</title></head><body><center><h1>401 Authorization Required</h1></center><hr><center>nginx</center></body></html>";
        let h = find(page).unwrap().http.unwrap();
        assert_eq!(h.status, Some(401));
        assert!(!h.from_kubernetes());
        for page in ["<title>2024 report</title>", "<title>200 OK</title>"] {
            assert!(find(page).and_then(|f| f.http).is_none(), "{page}");
        }
    }

    /// A proxy that refused the tunnel (CONNECT) answered with its own
    /// status: the request never reached kube-apiserver.
    #[test]
    fn a_proxy_s_refused_tunnel_is_another_server_s_answer() {
        for (line, code) in [
            (
                "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='10.0.0.1', port=6443): Max retries exceeded with url: /api/v1/pods (Caused by ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 403 Forbidden')))",
                Some(403),
            ),
            (
                "Error: tunneling socket could not be established, statusCode=403",
                Some(403),
            ),
        ] {
            let h = find(line).unwrap().http.unwrap();
            assert_eq!(h.status, code, "{line}");
            assert!(!h.from_kubernetes(), "{line}");
        }
    }

    #[test]
    fn clients_of_every_kind() {
        for (line, code, format) in [
            (
                "kubernetes.client.exceptions.ApiException: (401)",
                401,
                "python-kubernetes",
            ),
            // The kubelet passes its TokenRequest's answer on whole.
            (
                r#"MountVolume.SetUp failed for volume "kube-api-access-x" : failed to fetch token: serviceaccounts "web" not found"#,
                404,
                "kubelet",
            ),
            (
                "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://k:443/apis/apps/v1/x",
                403,
                "python-requests",
            ),
            (
                "io.fabric8.kubernetes.client.KubernetesClientException: Unauthorized",
                401,
                "fabric8",
            ),
            (
                "code: 403, statusCode: 403 } pods is forbidden",
                403,
                "kubernetes-client-javascript",
            ),
            (
                "ApiException [Error]: HTTP-Code: 401",
                401,
                "kubernetes-client-javascript",
            ),
            (
                "Operation returned an invalid status code 'Forbidden'",
                403,
                "kubernetes-client-csharp",
            ),
            (
                "E0101 reflector.go:1] Failed to list *v1.Service: Unauthorized",
                401,
                "client-go",
            ),
            (
                "rpc error: code = Unauthenticated desc = request authenticate failure",
                401,
                "grpc",
            ),
            (
                "wget: server returned error: HTTP/1.1 401 Unauthorized",
                401,
                "wget",
            ),
            (
                "curl: (22) The requested URL returned error: 403",
                403,
                "curl",
            ),
            (
                "Startup probe failed: HTTP probe failed with statuscode: 401",
                401,
                "kubelet-probe",
            ),
        ] {
            let f = find(line).unwrap();
            assert_eq!(
                (f.http.unwrap().code(), f.format),
                (Some(code), format),
                "{line}"
            );
        }
        let f = find("Dashboard reported Internal Server Error (500):").unwrap();
        assert_eq!(f.http.unwrap().relay_status, Some(500));
        let f = find("Unable to load services: request [&{Method:GET URL:https://master:6443/api/v1beta1/services?namespace= Proto:HTTP/1.1 Header:map[] Body:<nil>}] failed (401) 401 Unauthorized: Unauthorized").unwrap();
        assert_eq!(f.bearer, Some(BearerSeen::NotInTrace));
        // A cloud credential endpoint's status is its own answer.
        let f = find("google.auth.exceptions.TransportError: Failed to retrieve http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/?recursive=true from the Google Compute Engine metadata service. Status: 404 Response:").unwrap();
        let h = f.http.unwrap();
        assert_eq!(
            (h.relay_status, h.relay.as_deref()),
            (Some(404), Some("the metadata server"))
        );
        // kubectl prompts only for a kubeconfig user with no credential.
        let f = find("Please enter Username: root").unwrap();
        assert_eq!(f.bearer, Some(BearerSeen::Absent));
        assert!(find("all pods are ready").is_none());
        assert_eq!(
            label("  [cause]: Error: unable to verify the first certificate"),
            "nodejs"
        );
    }
}
