//! Pure: recognises failures that happen before any HTTP answer (TLS, DNS,
//! connection refused, timeouts): in the wording of curl, Go (client-go,
//! kubectl), Python (urllib3, requests, ssl), Java (fabric8 over OkHttp /
//! JDK) and Node (OpenSSL's messages and Node's error codes), and in satoken's
//! own typed transport errors.

use std::sync::LazyLock;

use super::needles::Needles;
use crate::http::{TlsReason, TransportError};
use crate::vocabulary::cause::Cause;
use crate::vocabulary::transport::{
    CURL_CODES, CURL_PEER_VERIFICATION_ALSO, NOT_A_FAILURE, PYTHON_CHECKED_HOST, TRANSPORT,
};

/// The table's transport wordings (in its order), and the texts that only
/// look like failures.
static NEEDLES: LazyLock<Needles> =
    LazyLock::new(|| Needles::words(TRANSPORT.iter().map(|w| w.text), true));
static EXCLUDED: LazyLock<Needles> =
    LazyLock::new(|| Needles::words(NOT_A_FAILURE.iter().map(|w| w.text), true));

/// The transport failure a line describes, if any: its words, within the
/// class curl's exit code names when the line carries one.
pub fn detect_line(line: &str) -> Option<Cause> {
    let said = named(line)?;
    Some(match curl_exit(line) {
        Some(code) => within(code, said),
        None => said,
    })
}

/// The failure a line's words name, whatever code stands beside them. In a
/// chain of exceptions on one line (urllib3's `… (Caused by SSLError(…))`,
/// Java's `Caused by: …`) the innermost cause decides: the outer ones only
/// wrap it in a more general name. `Some(Unknown)` for a curl code the
/// table holds and words it does not.
pub fn named(line: &str) -> Option<Cause> {
    // Node prints an error's `code: 'ECONNREFUSED'` property under its
    // message: the same failure again, not a second one.
    if line.trim_start().starts_with("code: '") || EXCLUDED.any(line) {
        return None;
    }
    let Some(outer) = NEEDLES.first(line) else {
        return curl_exit(line).map(|_| Cause::Unknown);
    };
    let lower = line.to_ascii_lowercase();
    let inner = lower
        .rmatch_indices("caused by")
        .find_map(|(i, _)| NEEDLES.first(&line[i..]));
    TRANSPORT[inner.unwrap_or(outer)].cause
}

/// The cause curl's exit code names (`curl: (60) …`, libcurl wrappers'
/// `curl#60`), when the table holds the code.
pub fn curl_exit(line: &str) -> Option<Cause> {
    curl_row(line)?.cause
}

/// Whether curl's exit code says the server answered (`curl -f`'s 22: the
/// status is the answer, read as one).
pub fn curl_answered(line: &str) -> bool {
    curl_row(line).is_some_and(|w| w.cause.is_none())
}

/// The table's row for the exit code in `line`.
fn curl_row(line: &str) -> Option<&'static crate::vocabulary::wordings::Wording> {
    let code = curl_code(line)?;
    CURL_CODES.iter().find(|w| curl_code(w.text) == Some(code))
}

/// The words' cause when they name one of the code's class (a TLS code
/// stays a TLS failure, a connection failure a connection failure); the
/// code's otherwise.
pub fn within(code: Cause, said: Cause) -> Cause {
    if said != Cause::Unknown && (code == Cause::Unknown || said.is_tls() == code.is_tls()) {
        said
    } else {
        code
    }
}

/// The number in `curl: (N)` or `curl#N`.
fn curl_code(text: &str) -> Option<u16> {
    let (_, rest) = text
        .split_once("curl: (")
        .or_else(|| text.split_once("curl#"))?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// The transport failure a line describes, and the other causes its words
/// fit as well (most likely first). Go's `x509: certificate has expired or is
/// not yet valid` says which only with `: current time X is after Y` (expired)
/// or `is before` (not yet valid: nearly always a clock off). curl's code 60
/// without words of the backend's that say which is any failed verification.
pub fn detect_all(line: &str) -> Option<(Cause, Vec<Cause>)> {
    let cause = detect_line(line)?;
    if cause == Cause::TlsUntrustedCa
        && named(line) == Some(Cause::Unknown)
        && curl_code(line) == Some(60)
    {
        return Some((cause, CURL_PEER_VERIFICATION_ALSO.to_vec()));
    }
    if cause == Cause::TlsNameMismatch && python_checked_ip(line) {
        return Some((cause, vec![Cause::TlsOther]));
    }
    if cause != Cause::TlsCertificateExpired || !line.contains("has expired or is not yet valid") {
        return Some((cause, Vec::new()));
    }
    Some(if line.contains(" is after ") {
        (Cause::TlsCertificateExpired, Vec::new())
    } else if line.contains(" is before ") {
        (Cause::TlsCertificateNotYetValid, vec![Cause::ClockSkew])
    } else {
        (
            Cause::TlsCertificateExpired,
            vec![Cause::ClockSkew, Cause::TlsCertificateNotYetValid],
        )
    })
}

/// Whether Python's own hostname check was given an IP address.
fn python_checked_ip(line: &str) -> bool {
    PYTHON_CHECKED_HOST.iter().any(|p| {
        line.find(p).is_some_and(|at| {
            let rest = &line[at + p.len()..];
            let host = rest.split(['\'', ' ']).next().unwrap_or("");
            host.trim_end_matches('.')
                .parse::<std::net::IpAddr>()
                .is_ok()
        })
    })
}

/// The cause of one of satoken's own transport errors.
pub fn cause_of_error(error: &TransportError) -> Cause {
    match error {
        TransportError::Tls { reason, .. } => match reason {
            TlsReason::UnknownCa => Cause::TlsUntrustedCa,
            TlsReason::NameMismatch => Cause::TlsNameMismatch,
            TlsReason::Expired => Cause::TlsCertificateExpired,
            TlsReason::NotYetValid => Cause::TlsCertificateNotYetValid,
            TlsReason::Other => Cause::TlsOther,
        },
        TransportError::Dns(_) => Cause::DnsFailure,
        TransportError::Refused(_) => Cause::ConnectionRefused,
        TransportError::Timeout(_) => Cause::Timeout,
        TransportError::BodyTooLarge { .. } | TransportError::Other(_) => Cause::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordings_of_each_family() {
        for (line, want) in [
            (
                "curl: (60) SSL certificate problem: unable to get local issuer certificate",
                Some(Cause::TlsUntrustedCa),
            ),
            (
                "Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority",
                Some(Cause::TlsUntrustedCa),
            ),
            (
                "x509: certificate is valid for 10.96.0.1, not 192.168.1.10",
                Some(Cause::TlsNameMismatch),
            ),
            (
                "curl: (60) SSL: no alternative certificate subject name matches target host name 'k8s.example.com'",
                Some(Cause::TlsNameMismatch),
            ),
            (
                "x509: certificate has expired or is not yet valid: current time 2026-01-01T00:00:00Z is after 2025-12-01T00:00:00Z",
                Some(Cause::TlsCertificateExpired),
            ),
            (
                "dial tcp: lookup k8s.example.internal on 10.96.0.10:53: no such host",
                Some(Cause::DnsFailure),
            ),
            (
                "curl: (6) Could not resolve host: k8s.example.internal",
                Some(Cause::DnsFailure),
            ),
            (
                "System.Threading.Tasks.TaskCanceledException: The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.",
                Some(Cause::Timeout),
            ),
            ("Error: socket hang up", Some(Cause::Unknown)),
            (
                r#"Get "https://10.96.0.1:443/api": http2: client connection lost"#,
                Some(Cause::Unknown),
            ),
            (
                "dial tcp 10.96.0.1:443: connect: connection refused",
                Some(Cause::ConnectionRefused),
            ),
            (
                "Failed to establish a new connection: [Errno 111] Connection refused",
                Some(Cause::ConnectionRefused),
            ),
            ("net/http: TLS handshake timeout", Some(Cause::Timeout)),
            ("dial tcp 10.96.0.1:443: i/o timeout", Some(Cause::Timeout)),
            (
                "java.net.UnknownHostException: kubernetes.default.svc",
                Some(Cause::DnsFailure),
            ),
            (
                "javax.net.ssl.SSLHandshakeException: PKIX path building failed",
                Some(Cause::TlsUntrustedCa),
            ),
            (
                "  [cause]: Error: unable to verify the first certificate",
                Some(Cause::TlsUntrustedCa),
            ),
            (
                "  [cause]: Error: self-signed certificate in certificate chain",
                Some(Cause::TlsUntrustedCa),
            ),
            (
                "  [cause]: Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: IP: 10.0.0.2 is not in the cert's list: 10.0.0.1",
                Some(Cause::TlsNameMismatch),
            ),
            (
                "  [cause]: Error: connect ETIMEDOUT 10.0.0.1:6443",
                Some(Cause::Timeout),
            ),
            // A chain: the innermost cause decides, not the wrapper's wording.
            (
                "KubernetesClientException: failed to verify certificate chain. Caused by: java.net.SocketTimeoutException: Read timed out",
                Some(Cause::Timeout),
            ),
            (
                "requests.exceptions.SSLError: HTTPSConnectionPool(host='10.0.0.1', port=6443): Max retries exceeded with url: /api (Caused by SSLError(SSLCertVerificationError(1, \"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for '10.0.0.1'. (_ssl.c:1006)\")))",
                Some(Cause::TlsNameMismatch),
            ),
            (
                "error: You must be logged in to the server (Unauthorized)",
                None,
            ),
            // Node's code property repeats the message line above it.
            ("    code: 'ECONNREFUSED',", None),
            ("    code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'", None),
            (
                "failed to sync configmap cache: timed out waiting for the condition",
                None,
            ),
            (
                "Get https://kubernetes/api: dial tcp: lookup kubernetes on 100.64.0.10:53: server misbehaving",
                Some(Cause::DnsFailure),
            ),
        ] {
            assert_eq!(detect_line(line), want, "{line}");
        }
        // curl's code names the class; the backend's words the cause within it.
        for (line, want) in [
            (
                "curl: (35) OpenSSL SSL_connect: Connection reset by peer in connection to 10.0.0.1:6443",
                Cause::TlsOther,
            ),
            (
                "curl: (28) Failed to connect to 10.0.0.1 port 6443 after 10001 ms: Timeout was reached",
                Cause::Timeout,
            ),
            (
                "curl: (7) Failed to connect to 10.0.0.1 port 6443 after 0 ms: Couldn't connect to server",
                Cause::ConnectionRefused,
            ),
            (
                "curl: (60) SSL certificate problem: certificate has expired",
                Cause::TlsCertificateExpired,
            ),
            (
                "curl: (56) OpenSSL SSL_read: Connection reset by peer, errno 104",
                Cause::Unknown,
            ),
        ] {
            assert_eq!(detect_line(line), Some(want), "{line}");
        }
        assert_eq!(
            detect_line("curl: (22) The requested URL returned error: 401"),
            None
        );
    }

    /// Words that fit several causes name the others, most likely first.
    #[test]
    fn wordings_that_fit_several_causes() {
        for (line, cause, also) in [
            // Code 60 alone: any failed verification since 7.62.0.
            (
                "curl: (60) Apple SecTrust verification failed: error -67843",
                Cause::TlsUntrustedCa,
                vec![Cause::TlsNameMismatch, Cause::TlsCertificateExpired],
            ),
            (
                "x509: certificate has expired or is not yet valid: current time 2021-04-01T14:43:32+02:00 is before 2021-04-01T15:31:09Z",
                Cause::TlsCertificateNotYetValid,
                vec![Cause::ClockSkew],
            ),
            (
                "Unable to connect to the server: x509: certificate has expired or is not yet valid",
                Cause::TlsCertificateExpired,
                vec![Cause::ClockSkew, Cause::TlsCertificateNotYetValid],
            ),
            // Python's own check given an address: before 3.5 it matches
            // none, so the certificate may list it after all.
            (
                "SSLError: hostname '10.3.240.1' doesn't match either of 'kubernetes', 'kubernetes.default'",
                Cause::TlsNameMismatch,
                vec![Cause::TlsOther],
            ),
            (
                "ERROR Certificate did not match expected hostname: 192.168.99.100. Certificate: {'subjectAltName': (('DNS', 'kubernetes'), ('IP Address', '192.168.99.100'))}",
                Cause::TlsNameMismatch,
                vec![Cause::TlsOther],
            ),
            (
                "SSLError: hostname 'api.example.com' doesn't match either of 'kubernetes', 'kubernetes.default'",
                Cause::TlsNameMismatch,
                vec![],
            ),
        ] {
            assert_eq!(detect_all(line), Some((cause, also)), "{line}");
        }
    }

    /// The connection closed, or a certificate was refused, before any
    /// answer: each stack's own words.
    #[test]
    fn connections_closed_before_an_answer() {
        for (line, want) in [
            (
                r#"Get "https://10.96.0.1:443/api": http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR, debug="""#,
                Some(Cause::Unknown),
            ),
            (
                r#"Get "https://10.96.0.1:443/api": stream error: stream ID 3; INTERNAL_ERROR; received from peer"#,
                Some(Cause::Unknown),
            ),
            (
                r#"Get "https://10.96.0.1:443/api": net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04""#,
                Some(Cause::Unknown),
            ),
            (
                r#"Get "https://10.96.0.1:443/api": http: server closed idle connection"#,
                Some(Cause::Unknown),
            ),
            (
                "read tcp 10.0.0.5:51234->10.96.0.1:443: use of closed network connection",
                Some(Cause::Unknown),
            ),
            (
                "write tcp 10.0.0.5:51234->10.96.0.1:443: write: broken pipe",
                Some(Cause::Unknown),
            ),
            (
                "dial tcp 10.96.0.1:443: socket: too many open files",
                Some(Cause::Unknown),
            ),
            (
                r#"Get "https://10.96.0.1:443/api": tls: failed to verify certificate: x509: certificate is not authorized to sign other certificates"#,
                Some(Cause::TlsOther),
            ),
            (
                "x509: certificate specifies an incompatible key usage",
                Some(Cause::TlsOther),
            ),
            (
                "java.net.SocketException: Connection reset",
                Some(Cause::Unknown),
            ),
            (
                "javax.net.ssl.SSLException: Connection reset",
                Some(Cause::Unknown),
            ),
            (
                "java.io.IOException: unexpected end of stream on https://10.96.0.1/...",
                Some(Cause::Unknown),
            ),
            (
                "okhttp3.internal.http2.StreamResetException: stream was reset: PROTOCOL_ERROR",
                Some(Cause::Unknown),
            ),
            (
                "java.io.EOFException: \\n not found: limit=0 content=…",
                Some(Cause::Unknown),
            ),
            (
                "java.io.InterruptedIOException: timeout",
                Some(Cause::Timeout),
            ),
            (
                "urllib3.exceptions.ProtocolError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))",
                Some(Cause::Unknown),
            ),
            (
                " ---> System.IO.IOException: The response ended prematurely.",
                Some(Cause::Unknown),
            ),
            (
                "System.Net.Http.HttpRequestException: Resource temporarily unavailable (api.example.com:443)",
                Some(Cause::Unknown),
            ),
            (
                "Net::OpenTimeout: Failed to open TCP connection to 10.96.0.1:443 (execution expired)",
                Some(Cause::Timeout),
            ),
            (
                "Net::ReadTimeout: Net::ReadTimeout with #<TCPSocket:(closed)>",
                Some(Cause::Timeout),
            ),
            ("EOFError: end of file reached", Some(Cause::Unknown)),
            // A proxy refused the tunnel: its status, not kube-apiserver's.
            (
                "java.io.IOException: Unexpected response code for CONNECT: 403",
                Some(Cause::Unknown),
            ),
            (
                "* CONNECT tunnel failed, response 403",
                Some(Cause::Unknown),
            ),
            (
                "(Caused by ProxyError('Unable to connect to proxy', OSError('Tunnel connection failed: 403 Forbidden')))",
                Some(Cause::Unknown),
            ),
            (
                "Error: tunneling socket could not be established, statusCode=403",
                Some(Cause::Unknown),
            ),
        ] {
            assert_eq!(detect_line(line), want, "{line}");
        }
    }
}
