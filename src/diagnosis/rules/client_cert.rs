//! The other authenticator a 401 can come from: x509 client certificates. The
//! API server logs Go's crypto/x509 verify error (`Unable to authenticate the
//! request due to an error: x509: certificate has expired or is not yet
//! valid`) and answers 401; no token is involved. The rule lives in
//! `authn` (the reasons table maps the wordings); here are the definitions.

use super::prelude::*;

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
    title: "Client certificate from another CA",
    summary: "The client certificate is not signed by a CA the API server trusts (--client-ca-file); no token is involved",
    explains: &[C::Unauthorized],
    explanation: "\
The API server verifies a client certificate against --client-ca-file. \"x509: \
certificate signed by unknown authority\" in its authentication log means the \
certificate comes from another CA: a kubeconfig of an earlier cluster, a CA rotated \
without reissuing client certificates, or a certificate meant for another cluster.",
    confirm: Steps::Run(
        "who issued the kubeconfig's client certificate (compare with the cluster's CA)",
        |_| kubeconfig_cert(&["-noout", "-issuer", "-subject"]),
    ),
    fix: Steps::Say(
        "use a kubeconfig issued by this cluster's CA (on kubeadm: /etc/kubernetes/admin.conf, or kubeadm kubeconfig user)",
    ),
    sources: &["k8s.io/apiserver pkg/authentication/request/x509/x509.go"],
};
