//! The setup of a network case: a temporary directory, a CA, the test API
//! servers (tests/it/support/apiserver.rs) and their ports, kept alive for the
//! run and redacted in its output. Built afresh for every run, so each server
//! answers within the first second of its clock.

use base64::Engine as _;

use super::{Invocation, NOW, Redact};
use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens::NAMESPACE;

pub use crate::support::GET_POD_LOG;

/// The static token of the kubeconfig user (system:masters).
pub const ADMIN: &str = "admin-static-token-0123456789";

/// Servers, files and their redactions for one run.
pub struct Lab {
    pub dir: tempfile::TempDir,
    pub pki: Pki,
    pub servers: Vec<ApiServer>,
    redact: Redact,
    /// Anything else that must live as long as the run (a proxy, a second PKI).
    keep: Vec<Box<dyn std::any::Any>>,
}

impl Lab {
    pub fn new() -> Lab {
        let dir = tempfile::tempdir().unwrap();
        let redact = Redact::network().temp(dir.path());
        Lab {
            dir,
            pki: Pki::new("snapshot-ca"),
            servers: Vec::new(),
            redact,
            keep: Vec::new(),
        }
    }

    /// Starts a server with this lab's certificate; its port is shown as `[PORTn]`.
    pub fn start(&mut self, config: Config) -> &ApiServer {
        let server = ApiServer::start(config, &self.pki);
        self.servers.push(server);
        let server = self.servers.last().unwrap();
        self.redact = std::mem::take(&mut self.redact).port(server.port());
        server
    }

    /// Names another port (a closed one, a proxy) as `[PORTn]`.
    pub fn name_port(&mut self, port: u16) {
        self.redact = std::mem::take(&mut self.redact).port(port);
    }

    /// Keeps `thing` alive until the run is over.
    pub fn keep(&mut self, thing: impl std::any::Any) {
        self.keep.push(Box::new(thing));
    }

    /// The CA written to `ca.crt`.
    pub fn ca(&self) -> String {
        self.pki
            .write_ca(self.dir.path(), "ca.crt")
            .display()
            .to_string()
    }

    /// The URL of server `i`.
    pub fn url(&self, i: usize) -> String {
        self.servers[i].url()
    }

    /// A kubeconfig for server `i` with an inline CA and `token` as the user
    /// (the shape tests/it/probe_cluster.rs writes).
    pub fn kubeconfig(&self, i: usize, token: &str) -> String {
        let ca = base64::engine::general_purpose::STANDARD.encode(&self.pki.ca_pem);
        let path = self.dir.path().join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: admin, namespace: {NAMESPACE}}}\nusers:\n- name: admin\n  user:\n    token: {token}\n",
                self.url(i)
            ),
        )
        .unwrap();
        path.display().to_string()
    }

    /// `probe --now NOW -f - --cacert CA -s URL…` for the given servers, the
    /// token on stdin under `label`.
    pub fn probe(self, servers: &[usize], args: &[&str], label: &str, token: &str) -> Invocation {
        let mut invocation =
            Invocation::new(&["probe", "--now", NOW, "-f", "-", "--cacert"]).args(&[self.ca()]);
        for &i in servers {
            invocation = invocation.args(&["-s", &self.url(i)]);
        }
        self.run(invocation.args(args).stdin(label, token))
    }

    /// `probe --now NOW --anonymous --cacert CA -s …` with no token anywhere
    /// (stdin `/dev/null`): what an anonymous request gets.
    pub fn probe_anonymous(self, servers: &[usize], args: &[&str]) -> Invocation {
        let mut invocation =
            Invocation::new(&["probe", "--now", NOW, "--anonymous", "--cacert"]).args(&[self.ca()]);
        for &i in servers {
            invocation = invocation.args(&["-s", &self.url(i)]);
        }
        self.run(invocation.args(args))
    }

    /// `probe --now NOW -f - --kubeconfig KUBECONFIG ARGS` through server 0,
    /// with the admin token as the kubeconfig user.
    pub fn probe_kubeconfig(self, args: &[&str], label: &str, token: &str) -> Invocation {
        let kubeconfig = self.kubeconfig(0, ADMIN);
        self.probe_through(&kubeconfig, args, label, token)
    }

    /// `probe --now NOW -f - --kubeconfig KUBECONFIG ARGS`, the token on stdin.
    pub fn probe_through(
        self,
        kubeconfig: &str,
        args: &[&str],
        label: &str,
        token: &str,
    ) -> Invocation {
        let probe = ["probe", "--now", NOW, "-f", "-", "--kubeconfig", kubeconfig];
        self.run(Invocation::new(&probe).args(args).stdin(label, token))
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then released),
    /// shown as `[PORTn]`.
    pub fn closed_port(&mut self) -> u16 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        self.name_port(port);
        port
    }

    /// `SUB --now NOW ARGS` as a pod runs it: a ServiceAccount directory
    /// holding `token` (and this lab's CA), KUBERNETES_SERVICE_HOST/PORT
    /// pointing at server 0, stdin /dev/null.
    pub fn in_pod(self, sub: &str, token: &str, args: &[&str]) -> Invocation {
        let port = self.servers[0].port();
        let ca = self.pki.ca_pem.clone();
        self.in_pod_at(sub, port, &ca, token, args)
    }

    /// [`Lab::in_pod`] against `port`, with `ca_pem` as the mounted ca.crt.
    pub fn in_pod_at(
        self,
        sub: &str,
        port: u16,
        ca_pem: &str,
        token: &str,
        args: &[&str],
    ) -> Invocation {
        let sa = self.dir.path().join("serviceaccount");
        std::fs::create_dir(&sa).unwrap();
        std::fs::write(sa.join("ca.crt"), ca_pem).unwrap();
        std::fs::write(sa.join("token"), token).unwrap();
        std::fs::write(sa.join("namespace"), NAMESPACE).unwrap();
        let port = port.to_string();
        self.run(
            Invocation::new(&[sub, "--now", NOW])
                .args(args)
                .env("KUBECTL_SATOKEN_SA_DIR", sa.display().to_string())
                .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
                .env("KUBERNETES_SERVICE_PORT", port),
        )
    }

    /// Hands the lab to `invocation`: kept alive for the run, redacted in its
    /// output, on a terminal as wide as [`super::NETWORK_COLUMNS`].
    pub fn run(self, invocation: Invocation) -> Invocation {
        let redact = self.redact.clone();
        invocation
            .redact(redact)
            .columns(super::NETWORK_COLUMNS)
            .keep(self)
    }
}
