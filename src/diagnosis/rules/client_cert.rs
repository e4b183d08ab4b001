//! The other authenticator a 401 can come from: x509 client certificates. The
//! API server logs Go's crypto/x509 verify error (`Unable to authenticate the
//! request due to an error: x509: certificate has expired or is not yet
//! valid`) and answers 401; no token is involved. The rule lives in
//! `authn` (the reasons table maps the wordings); here are the definitions.

use super::prelude::*;
use crate::diagnosis::reasons::ReasonKind;

/// `kubectl config view` piped into `base64 -d | openssl x509 …`: the
/// kubeconfig's client certificate, read.
fn kubeconfig_cert(x509: &[&str]) -> Command {
    super::commands::kubeconfig_data("jsonpath={.users[0].user.client-certificate-data}")
        .pipe_into(Command::new("openssl").word("x509").words(x509))
}

pub const CLIENT_CERTIFICATE_EXPIRED: CauseDef = CauseDef {
    title: "Client certificate outside its validity",
    summary: "The client certificate the request presented is expired (or not yet valid) on the API server's clock; no token is involved",
    explains: &[C::Unauthorized],
    explanation: "\
kube-apiserver authenticates a client certificate signed by --client-ca-file before any \
token. Go's verification checks its validity window against the server's clock: \
\"x509: certificate has expired or is not yet valid\" (\": current time X is after Y\" \
when expired, \"is before\" when not yet valid) is logged and the request gets 401. \
kubeadm's client certificates (admin.conf, the kubelet's, the controller-manager's) \
last a year; a node whose clock is far off sees fresh certificates as not yet valid.",
    confirm: Steps::Run(
        "the validity of the kubeconfig's client certificate (compare with the server's date)",
        |_| kubeconfig_cert(&["-noout", "-dates", "-subject"]),
    ),
    fix: Steps::All(&[
        Steps::Run(
            "on a kubeadm control plane, see which certificates expire and renew them",
            |_| Command::new("kubeadm").words(&["certs", "check-expiration"]),
        ),
        Steps::Say(
            "then use a kubeconfig with the renewed certificate; if the certificate is valid, the server's clock is off: fix time sync",
        ),
    ]),
    sources: &[
        "k8s.io/apiserver pkg/authentication/request/x509/x509.go",
        "Go crypto/x509 CertificateInvalidError (Expired)",
    ],
};

pub const CLIENT_CERTIFICATE_UNTRUSTED: CauseDef = CauseDef {
    title: "Client certificate not trusted",
    summary: "The client certificate is not one the server trusts: signed by a CA other than --client-ca-file, or a front proxy's whose name it does not allow; no token is involved",
    explains: &[C::Unauthorized],
    explanation: "\
The API server verifies a client certificate against --client-ca-file. \"x509: \
certificate signed by unknown authority\" in its authentication log means the \
certificate comes from another CA: a kubeconfig of an earlier cluster, a CA rotated \
without reissuing client certificates, or a certificate meant for another cluster.

An aggregated API server (metrics-server, an extension) checks the front proxy's \
certificate kube-apiserver forwards requests with: \"x509: subject with cn=NAME is not \
in the allowed list\" means its CN is not among --requestheader-allowed-names, so the \
user kube-apiserver forwards is not taken.",
    confirm: Steps::Or(
        front_proxy_names,
        &Steps::Run(
            "who issued the kubeconfig's client certificate (compare with the cluster's CA)",
            |_| kubeconfig_cert(&["-noout", "-issuer", "-subject"]),
        ),
    ),
    fix: Steps::Or(
        front_proxy_fix,
        &Steps::Say(
            "use a kubeconfig issued by this cluster's CA (on kubeadm: /etc/kubernetes/admin.conf, or kubeadm kubeconfig user)",
        ),
    ),
    sources: &["k8s.io/apiserver pkg/authentication/request/x509/x509.go"],
};

/// The request-header authenticator (an aggregated API server's, or
/// kube-apiserver's behind a front proxy) refused the proxy's certificate.
fn by_request_header(case: &Case<'_>) -> bool {
    case.reasons
        .iter()
        .any(|r| r.kind == ReasonKind::RequestHeaderNotAllowed)
}

fn front_proxy_names(case: &Case<'_>) -> Option<NextStep> {
    by_request_header(case).then(|| {
        NextStep::run(
            "the names and CA the request-header authenticator accepts a front proxy's certificate with (kube-apiserver publishes them for aggregated servers)",
            Command::kubectl().words(&[
                "get",
                "configmap",
                "-n",
                "kube-system",
                "extension-apiserver-authentication",
                "-o",
                "yaml",
            ]),
        )
    })
}

fn front_proxy_fix(case: &Case<'_>) -> Option<NextStep> {
    by_request_header(case).then(|| {
        NextStep::say(
            "the CN of kube-apiserver's --proxy-client-cert-file (kubeadm: front-proxy-client) must be in --requestheader-allowed-names: kube-apiserver's, which it publishes to aggregated servers, or the aggregated server's own flag; or leave the list empty to accept any certificate the request-header CA signed",
        )
    })
}
