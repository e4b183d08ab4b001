//! How each real client is run for one request, and whether it is installed.
//! Every runner takes (a scratch dir, the URL, the CA file unless the client
//! must not trust the server, the token unless anonymous) and returns what
//! the client printed, stdout and stderr as a terminal shows them.
//!
//! Clients installed outside the system (the JavaScript and Rust ones) live
//! in the target dir, `<target dir>/clients/<name>`, or where a variable
//! names (`SATOKEN_CLIENT_NODE`, `SATOKEN_CLIENT_KUBE_RS`): a directory named
//! by its variable that has no client fails the test instead of skipping it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::tokens;

pub fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What a terminal shows: stdout and stderr through one pipe, in the order
/// they were written.
pub fn printed(mut cmd: Command) -> String {
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone().expect("a pipe"))
        .stderr(writer);
    let mut child = cmd.spawn().expect("the client runs");
    // The parent's copies of the writing end must close for the read to end.
    drop(cmd);
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut out).expect("the client's output");
    child.wait().expect("the client ends");
    String::from_utf8_lossy(&out).into_owned()
}

/// `https://host:port/path` -> (`https://host:port`, `/path`).
pub fn split(url: &str) -> (&str, &str) {
    let after = url.find("://").map_or(0, |i| i + 3);
    let at = url[after..].find('/').map_or(url.len(), |i| after + i);
    (&url[..at], &url[at..])
}

/// Keeps a client on the loopback server: no proxy from this machine's
/// environment may carry its request elsewhere.
pub fn no_proxies(cmd: &mut Command) {
    for name in ["http_proxy", "https_proxy", "all_proxy", "no_proxy"] {
        cmd.env_remove(name).env_remove(name.to_uppercase());
    }
}

/// What one of the small programs in clients/ (or the Python `kubernetes`
/// one) printed, run without the variables `unset` and given U the server,
/// NS and NAME the pods' namespace and the pod (empty: list them), CA the CA
/// file, T the token.
fn program_output(
    mut cmd: Command,
    unset: &[&str],
    url: &str,
    ca: Option<&Path>,
    token: Option<&str>,
) -> String {
    let (server, path) = split(url);
    let name = path.rsplit_once("/pods/").map_or("", |(_, n)| n);
    for variable in unset {
        cmd.env_remove(variable);
    }
    cmd.env("U", server)
        .env("NS", tokens::NAMESPACE)
        .env("NAME", name);
    ca_and_token(&mut cmd, ca, token);
    no_proxies(&mut cmd);
    printed(cmd)
}

fn ca_and_token(cmd: &mut Command, ca: Option<&Path>, token: Option<&str>) {
    if let Some(ca) = ca {
        cmd.env("CA", ca);
    }
    if let Some(t) = token {
        cmd.env("T", t);
    }
}

pub fn kubectl(dir: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let (server, path) = split(url);
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(&kubeconfig, "").unwrap();
    let mut cmd = Command::new("kubectl");
    cmd.env("KUBECONFIG", &kubeconfig)
        .env("HOME", dir)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .args(["--server", server, "--request-timeout", "10s"]);
    if let Some(ca) = ca {
        cmd.arg("--certificate-authority").arg(ca);
    }
    if let Some(t) = token {
        cmd.args(["--token", t]);
    }
    cmd.args(["get", "--raw", path]);
    printed(cmd)
}

pub fn curl(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let mut cmd = Command::new("curl");
    cmd.args(["-sv", "--max-time", "10"]);
    if let Some(ca) = ca {
        cmd.arg("--cacert").arg(ca);
    }
    if let Some(t) = token {
        cmd.args(["-H", &format!("Authorization: Bearer {t}")]);
    }
    cmd.arg(url);
    printed(cmd)
}

/// Python: `requests` with `raise_for_status()`, as scripts use it.
pub fn requests(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let script = "import os, requests\n\
        h = {'Authorization': 'Bearer ' + os.environ['T']} if os.environ.get('T') else {}\n\
        r = requests.get(os.environ['U'], headers=h, verify=os.environ.get('CA') or True, timeout=10)\n\
        r.raise_for_status()\n";
    let mut cmd = python(script);
    ca_and_token(&mut cmd, ca, token);
    cmd.env("U", url);
    printed(cmd)
}

/// Python: the `kubernetes` client's `CoreV1Api`, its exceptions uncaught.
pub fn python_kubernetes(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let script = "import os, kubernetes\n\
        c = kubernetes.client.Configuration()\n\
        c.host = os.environ['U']\n\
        c.ssl_ca_cert = os.environ.get('CA') or None\n\
        c.retries = 0\n\
        if os.environ.get('T'): c.api_key = {'authorization': 'Bearer ' + os.environ['T']}\n\
        api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(c))\n\
        ns, name = os.environ['NS'], os.environ['NAME']\n\
        api.read_namespaced_pod(name, ns, _request_timeout=10) if name else api.list_namespaced_pod(ns, _request_timeout=10)\n";
    program_output(python(script), &[], url, ca, token)
}

/// `python3 -c script` with no CA bundle or proxy from this machine's
/// environment.
pub fn python(script: &str) -> Command {
    let mut cmd = Command::new("python3");
    cmd.args(["-c", script])
        .env_remove("REQUESTS_CA_BUNDLE")
        .env_remove("CURL_CA_BUNDLE");
    no_proxies(&mut cmd);
    cmd
}

/// JavaScript: `@kubernetes/client-node`'s `CoreV1Api` in a small program
/// (clients/client-node.mjs), run by the pinned Node beside the library.
pub fn client_node(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let dir = installed_dir("SATOKEN_CLIENT_NODE", "node");
    // Node finds the library from the program's own directory.
    let program = dir.join("client-node.mjs");
    std::fs::write(&program, include_str!("client-node.mjs")).unwrap();
    let mut cmd = Command::new(dir.join("node_modules/.bin/node"));
    cmd.arg(&program);
    let unset = ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"];
    program_output(cmd, &unset, url, ca, token)
}

/// Whether the JavaScript client is there to run.
pub fn client_node_installed() -> bool {
    let dir = installed_dir("SATOKEN_CLIENT_NODE", "node");
    let node = dir.join("node_modules/.bin/node");
    present(
        "SATOKEN_CLIENT_NODE",
        &dir,
        dir.join("node_modules/@kubernetes/client-node/package.json")
            .is_file()
            && succeeds(node.to_str().unwrap(), &["--version"]),
        "no @kubernetes/client-node and Node (npm ci there)",
    )
}

/// The Rust client's program (clients/kube-rs), built in its target dir.
fn kube_rs_program() -> PathBuf {
    installed_dir("SATOKEN_CLIENT_KUBE_RS", "kube-rs").join("debug/satoken-kube-rs-client")
}

/// Rust: kube-rs's `Api<Pod>` in a small program (clients/kube-rs), its
/// error returned from `main`.
pub fn kube_rs(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    // What users see by default: no backtrace under the error.
    let unset = ["RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "KUBECONFIG"];
    program_output(Command::new(kube_rs_program()), &unset, url, ca, token)
}

/// Whether the Rust client is built.
pub fn kube_rs_installed() -> bool {
    let dir = installed_dir("SATOKEN_CLIENT_KUBE_RS", "kube-rs");
    present(
        "SATOKEN_CLIENT_KUBE_RS",
        &dir,
        kube_rs_program().is_file(),
        "no debug/satoken-kube-rs-client (cargo build --manifest-path tests/it/clients/kube-rs/Cargo.toml --target-dir there)",
    )
}

/// Ruby: kubeclient's `get_pods`/`get_pod` in a small program
/// (clients/kubeclient.rb), its exception uncaught.
pub fn kubeclient(_: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/clients/kubeclient.rb");
    let mut cmd = Command::new("ruby");
    cmd.arg(program);
    program_output(cmd, &["RUBYOPT"], url, ca, token)
}

/// `<target dir>/clients/<name>`, or the directory `variable` names.
fn installed_dir(variable: &str, name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(variable) {
        return dir.into();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_kubectl-satoken"));
    // <target dir>/<profile>/kubectl-satoken
    let target = bin
        .ancestors()
        .nth(2)
        .expect("the binary is in a target dir");
    target.join("clients").join(name)
}

/// `ok`, asserted when `variable` names the directory (as CI names it).
fn present(variable: &str, dir: &Path, ok: bool, missing: &str) -> bool {
    assert!(
        ok || std::env::var_os(variable).is_none(),
        "{variable}={} has {missing}",
        dir.display()
    );
    ok
}
