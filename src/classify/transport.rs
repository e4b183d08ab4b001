//! Pure: recognises failures that happen before any HTTP answer (TLS, DNS,
//! connection refused, timeouts) in the wording of curl, Go (client-go, kubectl),
//! Python (urllib3, requests, ssl) and Java (fabric8 over OkHttp / JDK).

use crate::diagnosis::Cause;

/// Substrings (lowercase) per cause, checked in this order: a TLS handshake
/// *timeout* is a timeout, a name mismatch is more specific than "verify failed".
const RULES: &[(Cause, &[&str])] = &[
    (
        Cause::Timeout,
        &["tls handshake timeout", "handshake timed out"],
    ),
    (
        Cause::TlsNameMismatch,
        &[
            "no alternative certificate subject name matches",
            "x509: certificate is valid for",
            "certificate is not valid for any names",
            "hostname mismatch",
            "ip address mismatch",
            "no subject alternative names matching",
            "no subject alternative dns name matching",
            "doesn't match any of the subject alternative names",
        ],
    ),
    (
        Cause::TlsCertificateExpired,
        &[
            "certificate has expired",
            "certificate is not yet valid",
            "certificateexpiredexception",
            "certificatenotyetvalidexception",
        ],
    ),
    (
        Cause::TlsUntrustedCa,
        &[
            "certificate signed by unknown authority",
            "unable to get local issuer certificate",
            "self-signed certificate",
            "self signed certificate",
            "pkix path building failed",
            "unable to find valid certification path",
            "certificate_verify_failed",
            "ssl certificate problem",
            "failed to verify certificate",
        ],
    ),
    (
        Cause::TlsOther,
        &[
            "remote error: tls:",
            "tls: ",
            "sslhandshakeexception",
            "sslerror",
            "ssl routines",
            "ssl_connect",
            "wrong version number",
            "curl: (35)",
        ],
    ),
    (
        Cause::DnsFailure,
        &[
            "no such host",
            "could not resolve host",
            "name or service not known",
            "nodename nor servname",
            "temporary failure in name resolution",
            "unknownhostexception",
            "getaddrinfo",
            "failed to resolve",
        ],
    ),
    (
        Cause::ConnectionRefused,
        &[
            "connection refused",
            "connectexception",
            "econnrefused",
            "[errno 111]",
            "was refused - did you specify the right host or port",
        ],
    ),
    (
        Cause::Timeout,
        &[
            "i/o timeout",
            "timed out",
            "deadline exceeded",
            "timeout awaiting",
            "sockettimeoutexception",
            "connecttimeout",
            "curl: (28)",
        ],
    ),
    (
        Cause::Unknown,
        &[
            "no route to host",
            "network is unreachable",
            "connection reset by peer",
        ],
    ),
];

/// The transport failure a line describes, if any.
pub fn detect_line(line: &str) -> Option<Cause> {
    let lower = line.to_ascii_lowercase();
    RULES
        .iter()
        .find(|(_, needles)| needles.iter().any(|n| lower.contains(n)))
        .map(|(cause, _)| *cause)
}

/// The first line of `text` that describes a transport failure: (cause, 0-based
/// line index, the line).
pub fn detect(text: &str) -> Option<(Cause, usize, &str)> {
    text.lines()
        .enumerate()
        .find_map(|(i, line)| detect_line(line).map(|c| (c, i, line)))
}

/// What to do about a transport failure.
pub fn next_steps(cause: Cause) -> Vec<String> {
    let steps: &[&str] = match cause {
        Cause::TlsUntrustedCa => &[
            "the client does not trust the server's CA: in a pod use /var/run/secrets/kubernetes.io/serviceaccount/ca.crt (curl --cacert, kubeconfig certificate-authority)",
            "compare the issuer of the served certificate with the CA you pass: openssl s_client -connect HOST:PORT -showcerts </dev/null",
        ],
        Cause::TlsNameMismatch => &[
            "connect with a name the serving certificate lists (kubernetes.default.svc, the cluster's API endpoint), or add the name/IP to the apiserver's --tls-san / certSANs",
        ],
        Cause::TlsCertificateExpired => &[
            "renew the API server certificate (kubeadm certs check-expiration; kubeadm certs renew apiserver), and check the client's clock",
        ],
        Cause::TlsOther => &[
            "the TLS handshake failed before any token was sent: check the port speaks TLS and any proxy in between",
        ],
        Cause::DnsFailure => &[
            "the host name does not resolve: check the server URL in the kubeconfig or KUBERNETES_SERVICE_HOST, and the pod's DNS (kubectl -n kube-system get pods -l k8s-app=kube-dns)",
        ],
        Cause::ConnectionRefused => &[
            "nothing listens at that address and port: check the server URL (KUBERNETES_SERVICE_HOST/PORT in a pod) and that kube-apiserver is running",
        ],
        Cause::Timeout => &[
            "no answer in time: check network policies, firewalls and proxies between the client and the API server, and the API server's load (/readyz)",
        ],
        _ => &["the connection failed before any HTTP answer: check routing to the API server"],
    };
    steps.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordings_of_each_family() {
        for (line, cause) in [
            (
                "curl: (60) SSL certificate problem: unable to get local issuer certificate",
                Cause::TlsUntrustedCa,
            ),
            (
                "Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority",
                Cause::TlsUntrustedCa,
            ),
            (
                "x509: certificate is valid for 10.96.0.1, not 192.168.1.10",
                Cause::TlsNameMismatch,
            ),
            (
                "curl: (60) SSL: no alternative certificate subject name matches target host name 'k8s.example.com'",
                Cause::TlsNameMismatch,
            ),
            (
                "x509: certificate has expired or is not yet valid: current time 2026-01-01T00:00:00Z is after 2025-12-01T00:00:00Z",
                Cause::TlsCertificateExpired,
            ),
            (
                "dial tcp: lookup k8s.example.internal on 10.96.0.10:53: no such host",
                Cause::DnsFailure,
            ),
            (
                "curl: (6) Could not resolve host: k8s.example.internal",
                Cause::DnsFailure,
            ),
            (
                "dial tcp 10.96.0.1:443: connect: connection refused",
                Cause::ConnectionRefused,
            ),
            (
                "Failed to establish a new connection: [Errno 111] Connection refused",
                Cause::ConnectionRefused,
            ),
            ("net/http: TLS handshake timeout", Cause::Timeout),
            ("dial tcp 10.96.0.1:443: i/o timeout", Cause::Timeout),
            (
                "java.net.UnknownHostException: kubernetes.default.svc",
                Cause::DnsFailure,
            ),
            (
                "javax.net.ssl.SSLHandshakeException: PKIX path building failed",
                Cause::TlsUntrustedCa,
            ),
        ] {
            assert_eq!(detect_line(line), Some(cause), "{line}");
        }
        assert_eq!(
            detect_line("error: You must be logged in to the server (Unauthorized)"),
            None
        );
    }
}
