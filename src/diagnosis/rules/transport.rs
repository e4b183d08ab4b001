//! No answer at all: the TLS handshake failed, the name did not resolve, nothing
//! listened, or nothing answered in time. The token was never judged (after a
//! TLS failure it was never even sent), so none of these is a token problem.

use super::prelude::*;
use crate::vocabulary::clouds::CredentialEndpoint;

/// `openssl s_client -connect HOST:PORT` piped into `openssl x509 …`.
fn openssl(case: &Case<'_>, x509: &[&str]) -> Command {
    let host_port = case
        .server
        .as_deref()
        .and_then(|s| url::Url::parse(s).ok())
        .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)));
    Command::new("openssl")
        .words(&["s_client", "-connect"])
        .value(host_port.as_deref(), "HOST:PORT")
        .pipe_into(Command::new("openssl").word("x509").words(x509))
}

/// The API server's own call (to an admission webhook, an aggregated API, a
/// kubelet or a proxied Service) failed its TLS check: that call's trust setting is the fix, not the client's.
fn onward_trust(case: &Case<'_>) -> Option<NextStep> {
    for_own_call(
        case,
        "the API server's own call failed the check, not the client's: fix the certificate of what it called. An admission webhook or an APIService: its caBundle must hold the CA that signed its serving certificate, which must name the Service (NAME.NAMESPACE.svc) and be within its dates (cert-manager's cainjector keeps caBundle in step). A kubelet (logs, exec, port-forward): its serving certificate must name the node's address and be signed by the CA of --kubelet-certificate-authority (kubelet serverTLSBootstrap). A Service or pod reached through the API server's proxy (Trying to reach: URL): the certificate that URL serves",
    )
}

/// A checker's own TLS failure, or the API server's own call's: that caller's
/// trust setting is the fix, not its path.
fn checker_trust(case: &Case<'_>) -> Option<NextStep> {
    if let Some(step) = onward_trust(case) {
        return Some(step);
    }
    let Answer::CheckerFailed(failure) = &case.answer else {
        return None;
    };
    let who = failure.checker.unwrap_or("the checker");
    Some(NextStep::say(format!(
        "give {who} the cluster's CA and an address the API server's certificate names: Vault's kubernetes_ca_cert and kubernetes_host (vault read auth/kubernetes/config), a proxy's kubeconfig or its pod's ca.crt; its network path is fine, the handshake happened"
    )))
}

pub const TLS_UNTRUSTED_CA: CauseDef = CauseDef {
    title: "Server certificate not trusted",
    summary: "The caller does not trust the CA that signed the server's certificate",
    explains: &[C::TlsError, C::CheckerFailure],
    explanation: "\
The TLS handshake failed because the API server's certificate does not chain to a CA \
the client trusts: the wrong CA file, the system trust store instead of the cluster's CA, \
a TLS-intercepting proxy, or a cluster whose CA was rotated. Nothing was sent, so the token \
was never judged.

In a pod, the cluster CA is mounted next to the token (ca.crt); from a laptop it is in the \
kubeconfig (certificate-authority-data).",
    confirm: Steps::Run(
        "who issued the certificate the server presents (compare with your CA)",
        |case| openssl(case, &["-noout", "-issuer", "-subject"]),
    ),
    fix: Steps::Or(
        checker_trust,
        &Steps::All(&[
            Steps::Say(
                "trust the cluster's CA: in a pod /var/run/secrets/kubernetes.io/serviceaccount/ca.crt (curl --cacert, kubeconfig certificate-authority, satoken --cacert)",
            ),
            Steps::Run("from a laptop, write the kubeconfig's CA to a file", |_| {
                super::commands::kubeconfig_data(
                    "jsonpath={.clusters[0].cluster.certificate-authority-data}",
                )
                .writing_to("ca.crt")
            }),
        ]),
    ),
    sources: &[
        "rustls / webpki UnknownIssuer",
        "Go crypto/x509 UnknownAuthorityError",
    ],
};

pub const TLS_NAME_MISMATCH: CauseDef = CauseDef {
    title: "Certificate does not name the host",
    summary: "The server's certificate does not list the name or IP the caller connected to",
    explains: &[C::TlsError, C::CheckerFailure],
    explanation: "\
The certificate is trusted but issued for other names: the client connected by an IP or \
host name that is not among its subject alternative names (a load balancer's address, a \
node IP, a new DNS name). Nothing was sent.",
    confirm: Steps::Run("the names and IPs the certificate is valid for", |case| {
        openssl(case, &["-noout", "-ext", "subjectAltName"])
    }),
    fix: Steps::Or(
        checker_trust,
        &Steps::Say(
            "connect with a name the certificate lists (kubernetes.default.svc in a pod, the cluster's API endpoint), or add the name to the API server certificate (--tls-san, kubeadm certSANs)",
        ),
    ),
    sources: &[
        "rustls / webpki NotValidForName",
        "Go crypto/x509 HostnameError",
    ],
};

pub const TLS_CERTIFICATE_EXPIRED: CauseDef = CauseDef {
    title: "Server certificate expired",
    summary: "The server's certificate has expired (or the caller's clock is ahead)",
    explains: &[C::TlsError, C::CheckerFailure],
    explanation: "\
The certificate's notAfter is in the past on the client's clock: the API server \
certificate was not renewed (kubeadm certificates last a year), or the client's clock is \
far ahead. Nothing was sent.",
    confirm: EXPIRED_CERT_CONFIRM,
    fix: Steps::Or(
        onward_trust,
        &Steps::Run(
            "on kubeadm clusters, renew the certificates on each control-plane node, then restart kube-apiserver",
            |_| Command::new("kubeadm").words(&["certs", "renew", "all"]),
        ),
    ),
    sources: &["rustls / webpki CertExpired"],
};

const EXPIRED_CERT_CONFIRM: Steps = Steps::Run(
    "the certificate's validity dates (and the clock of the machine that checked it, with date -u: yours, or the API server's for a call of its own)",
    |case| openssl(case, &["-noout", "-dates"]),
);

pub const TLS_CERTIFICATE_NOT_YET_VALID: CauseDef = CauseDef {
    title: "Server certificate not yet valid",
    summary: "The server's certificate is not valid yet on the caller's clock (a clock behind, or a fresh certificate)",
    explains: &[C::TlsError, C::CheckerFailure],
    explanation: "\
The certificate's notBefore is in the future on the client's clock: the client's clock is \
behind, or the certificate was issued on a clock that runs ahead. This is a clock problem \
between the client and the machine that issued the certificate. Nothing was sent.",
    confirm: EXPIRED_CERT_CONFIRM,
    fix: Steps::Or(
        onward_trust,
        &Steps::Run("fix this machine's clock (NTP/chrony), then retry", |_| {
            Command::new("timedatectl").word("status")
        }),
    ),
    sources: &["rustls / webpki CertNotValidYet"],
};

pub const TLS_OTHER: CauseDef = CauseDef {
    title: "TLS handshake failed",
    summary: "The TLS handshake failed for another reason (not TLS on that port, a proxy, protocol versions)",
    explains: &[C::TlsError, C::CheckerFailure],
    explanation: "\
The handshake failed before any request: the port may not speak TLS (plain HTTP, a \
different service), a proxy may be in between, or client and server share no protocol \
version or cipher. Nothing was sent.",
    confirm: Steps::Run("see what the port answers during the handshake", |case| {
        openssl(case, &["-noout", "-subject"])
    }),
    fix: Steps::Say(
        "check that the URL's port is the API server's TLS port and that no proxy terminates or alters TLS in between",
    ),
    sources: &["rustls"],
};

pub const DNS_FAILURE: CauseDef = CauseDef {
    title: "Name does not resolve",
    summary: "The server's host name does not resolve",
    explains: &[C::NetworkError, C::OtherStatus],
    explanation: "\
The client could not look up the server's name: a typo in the kubeconfig, a cluster DNS \
that is down (inside a pod), or a name only resolvable on another network.

The same words in an answer from the server (\"Error from server: dial tcp: lookup …\", \
\"failed calling webhook …: i/o timeout\") are the API server's own call failing: to a \
kubelet (exec, logs, port-forward) or to an admission webhook. The address to check is \
that one; the token was accepted.",
    confirm: Steps::If(
        at_credential_endpoint,
        &Steps::None,
        &Steps::Run("inside a pod, check the cluster DNS is running", |_| {
            Command::kubectl().words(&[
                "-n",
                "kube-system",
                "get",
                "pods",
                "-l",
                "k8s-app=kube-dns",
            ])
        }),
    ),
    fix: Steps::Or(
        onward_step,
        &Steps::Say(
            "check the host name in the kubeconfig's server URL; inside a pod use $KUBERNETES_SERVICE_HOST or kubernetes.default.svc",
        ),
    ),
    sources: &["Go net: no such host"],
};

/// The address the client connects to, unless it was a cloud credential
/// endpoint's (whose steps are the fix's).
const SERVER_URL: Steps = Steps::If(
    at_credential_endpoint,
    &Steps::None,
    &Steps::Run("the server URL the client uses", |_| {
        super::commands::kubeconfig_view(super::commands::KUBECONFIG_SERVER)
    }),
);

pub const CONNECTION_REFUSED: CauseDef = CauseDef {
    title: "Connection refused",
    summary: "Nothing listens at that address and port",
    explains: &[C::NetworkError, C::OtherStatus],
    explanation: "\
The host answered but nothing listens on the port: the wrong port (kube-apiserver listens \
on 6443 by default; the kubernetes Service on 443), an API server that is down or \
restarting, or a kubeconfig that points at localhost.

The same words in an answer from the server (\"Error from server: dial tcp: lookup …\", \
\"failed calling webhook …: i/o timeout\") are the API server's own call failing: to a \
kubelet (exec, logs, port-forward) or to an admission webhook. The address to check is \
that one; the token was accepted.",
    confirm: SERVER_URL,
    fix: Steps::Or(
        onward_step,
        &Steps::Say(
            "check the port and that kube-apiserver is running (crictl ps / the static pod on the control-plane node)",
        ),
    ),
    sources: &["Go net: connection refused"],
};

pub const NETWORK_UNREACHABLE: CauseDef = CauseDef {
    title: "No route to the address",
    summary: "The network does not route to that address (no route to host, network unreachable)",
    explains: &[C::NetworkError, C::OtherStatus],
    explanation: "\
The caller's network has no way to the address: a router or firewall answered that the \
host or its network cannot be reached (EHOSTUNREACH, ENETUNREACH). A VPN, peering or \
private endpoint that is down, a security group or firewall rejecting rather than dropping, \
an address from another cluster or network (a private endpoint used from outside it), or a \
host with no default route.

The same words in an answer from the server (\"failed calling webhook …: connect: no route \
to host\") are the API server's own call failing, to an admission webhook or a kubelet: the \
address to check is that one, from the control plane; the token was accepted.",
    confirm: SERVER_URL,
    fix: Steps::Or(
        onward_step,
        &Steps::Say(
            "from where the client runs, check the route to that address (ip route get ADDRESS) and what is in between: the VPN, peering or private endpoint, firewall and security-group rules",
        ),
    ),
    sources: &["Go net: no route to host, network is unreachable (EHOSTUNREACH, ENETUNREACH)"],
};

pub const TIMEOUT: CauseDef = CauseDef {
    title: "No answer in time",
    summary: "No answer within the timeout",
    explains: &[C::NetworkError, C::OtherStatus],
    explanation: "\
The connection, the handshake or the answer did not complete in time: a network policy \
or firewall dropping packets, a proxy that hangs, or an overloaded API server.

The same words in an answer from the server (\"Error from server: dial tcp: lookup …\", \
\"failed calling webhook …: i/o timeout\") are the API server's own call failing: to a \
kubelet (exec, logs, port-forward) or to an admission webhook. The address to check is \
that one; the token was accepted.",
    confirm: Steps::If(
        at_credential_endpoint,
        &Steps::None,
        &Steps::Run(
            "ask the API server whether it is ready (from somewhere that reaches it)",
            |_| Command::kubectl().words(&["get", "--raw", "/readyz?verbose"]),
        ),
    ),
    fix: Steps::Or(
        onward_step,
        &Steps::Say(
            "check network policies, firewalls and proxies between the client and the API server, or raise the client's timeout",
        ),
    ),
    sources: &["Go net: i/o timeout", "net/http: TLS handshake timeout"],
};

/// For a server's own onward call, or a cloud SDK's call to its credential
/// endpoint: where to look instead of the client's path to the API server.
fn onward_step(case: &Case<'_>) -> Option<NextStep> {
    if let Some(e) = credential_endpoint(case) {
        return Some(NextStep::say(format!(
            "the call to {} ({}) failed from the pod: {}; then what drops the pod's link-local traffic: a host firewall rule (iptables, nftables) without an exception for that address, or a NetworkPolicy without egress to it",
            e.name, e.address, e.check
        )));
    }
    for_own_call(
        case,
        "the API server's own call failed: make the kubelet's node name resolvable from the control plane (exec, logs), or the admission webhook's Service reachable and ready (or set its failurePolicy to Ignore while it is down)",
    )
}

/// The cloud credential endpoint a failed connection was to, if its address showed.
fn credential_endpoint(case: &Case<'_>) -> Option<&'static CredentialEndpoint> {
    match &case.answer {
        Answer::Transport(t) => t.endpoint,
        _ => None,
    }
}

fn at_credential_endpoint(case: &Case<'_>) -> bool {
    credential_endpoint(case).is_some()
}

/// `step`, when the failure is the API server's own call (its answer is an
/// error status about that call), not the client's connection.
fn for_own_call(case: &Case<'_>, step: &'static str) -> Option<NextStep> {
    (case.classification() == C::OtherStatus).then(|| NextStep::say(step))
}

/// A failure before any HTTP answer.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Answer::Transport(failure) = &case.answer else {
        return;
    };
    // A client's pasted words about its own connection are a client's
    // words; probe's own handshake is an observation.
    let confidence = if failure.cause == Cause::Unknown {
        case.witness.basis().min(Basis::Inferred)
    } else {
        case.witness.basis()
    };
    let mut support = vec![Support::new(SupportKind::Transport, failure.detail.clone())];
    support.push(Support::new(
        SupportKind::Transport,
        if failure.cause.is_tls() {
            "the TLS handshake failed before any request: the token was not sent"
        } else {
            "no HTTP answer: the token was never judged"
        },
    ));
    if let Some(e) = failure.endpoint {
        support.push(Support::new(
            SupportKind::Transport,
            format!(
                "the connection was to {} ({}), a cloud credential endpoint: the cloud SDK got no credentials, and no request reached the API server",
                e.name, e.address
            ),
        ));
    }
    if failure.also.is_empty() {
        f.add(failure.cause, confidence, support);
    } else {
        several(case, failure, support, f);
    }
}

/// A failure whose wording fits several causes: none is certain, each is
/// named, with the command that tells them apart.
pub fn several(
    case: &Case<'_>,
    failure: &TransportFailure,
    support: Vec<Support>,
    f: &mut Findings,
) {
    // A certificate
    // not yet valid is nearly always a clock off (certificates are issued
    // valid from the moment they are made).
    let mut causes = [&[failure.cause], failure.also.as_slice()].concat();
    if failure.cause == Cause::TlsCertificateNotYetValid
        && let Some(i) = causes.iter().position(|c| *c == Cause::ClockSkew)
    {
        causes.swap(0, i);
    }
    for (i, cause) in causes.iter().enumerate() {
        let s = if i == 0 {
            support.clone()
        } else {
            vec![Support::new(
                SupportKind::Transport,
                format!(
                    "the same words fit {}: the message does not say which",
                    cause.as_str()
                ),
            )]
        };
        let confidence = if i < 2 {
            Basis::Inferred
        } else {
            Basis::Possible
        };
        f.add(*cause, confidence, s);
    }
    // Dates tell a clock from an expiry; the names, a certificate without
    // the address from a client's check that cannot match it.
    let dated = causes.iter().any(|c| {
        matches!(
            c,
            Cause::TlsCertificateExpired | Cause::TlsCertificateNotYetValid | Cause::ClockSkew
        )
    });
    let step = if dated {
        NextStep::run(
            "the certificate's validity against the clock of the machine that checked it (date -u: yours, or the API server's for a call of its own): notBefore in the future means a clock is off, notAfter in the past an expired certificate",
            openssl(case, &["-noout", "-dates"]),
        )
    } else {
        NextStep::run(
            "the names and IP addresses the certificate is valid for: an address it lists that the client refused is the client's check (Python before 3.5 matches an IP address against DNS names only; upgrade it, or connect by a listed name)",
            openssl(case, &["-noout", "-ext", "subjectAltName"]),
        )
    };
    f.tell_apart(&causes, step);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::{TransportFailure, Witness};
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, http, run};

    /// A cloud SDK's call to its credential endpoint is not the client's
    /// path to the API server: the steps are about that endpoint.
    #[test]
    fn a_credential_endpoint_s_failure_points_at_the_endpoint() {
        let agent = &crate::vocabulary::clouds::CREDENTIAL_ENDPOINTS[0];
        for cause in [Cause::Timeout, Cause::ConnectionRefused, Cause::DnsFailure] {
            let failure = |endpoint| {
                Answer::Transport(TransportFailure {
                    cause,
                    detail: "x".into(),
                    also: Vec::new(),
                    endpoint,
                })
            };
            let steps = |endpoint| {
                let d = diagnosed(&case(failure(endpoint), None));
                assert_eq!(d.cause(), cause);
                let next = &d.top().next;
                (
                    next.iter().any(|s| s.why.contains(agent.address)),
                    next.iter().any(|s| s.command.is_some()),
                )
            };
            assert_eq!(steps(Some(agent)), (true, false), "{cause:?}");
            assert_eq!(steps(None), (false, true), "{cause:?}");
        }
    }

    #[test]
    fn no_answer_is_never_a_token_cause() {
        for (cause, confidence, class) in [
            (Cause::TlsUntrustedCa, Confidence::High, C::TlsError),
            (
                Cause::TlsCertificateNotYetValid,
                Confidence::High,
                C::TlsError,
            ),
            (Cause::DnsFailure, Confidence::High, C::NetworkError),
            (Cause::Timeout, Confidence::High, C::NetworkError),
            (Cause::Unknown, Confidence::Medium, C::NetworkError),
        ] {
            let mut c = case(
                Answer::Transport(TransportFailure {
                    cause,
                    detail: "x".into(),
                    also: Vec::new(),
                    endpoint: None,
                }),
                None,
            );
            assert_eq!(c.classification(), class, "{cause:?}");
            // Probe's own connection: observed.
            c.witness = Witness::Probe;
            assert_eq!(run(&c), (cause, confidence), "{cause:?} seen by probe");
            // A client's pasted words about its connection: medium at most.
            c.witness = Witness::Client;
            let medium_at_most = confidence.min(Confidence::Medium);
            assert_eq!(
                run(&c),
                (cause, medium_at_most),
                "{cause:?} told by a client"
            );
        }
    }

    /// The API server's own call failed on Go's x509 words, which without
    /// the times fit an expired certificate and a clock off alike: as
    /// uncertain as the same words on the client's own connection.
    #[test]
    fn an_onward_call_s_ambiguous_certificate_window_is_not_certain() {
        let webhook = "Internal error occurred: failed calling webhook \"v.example.com\": Post \"https://v.ns.svc:443/validate\": x509: certificate has expired or is not yet valid";
        let d = diagnosed(&case(http(500, Some(webhook)), None));
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::TlsCertificateExpired, Confidence::Medium)
        );
        assert!(d.candidates.iter().any(|c| c.cause == Cause::ClockSkew));
        let timed =
            format!("{webhook}: current time 2026-01-01T00:00:00Z is after 2025-12-01T00:00:00Z");
        let d = diagnosed(&case(http(500, Some(&timed)), None));
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::TlsCertificateExpired, Confidence::High)
        );
    }
}
