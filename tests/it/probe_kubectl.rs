//! Realism check of the test API server with the real kubectl: for a rejected
//! token and for an RBAC denial it must print what it prints against a real
//! cluster. Skipped (with a note) when kubectl is not installed.

use std::path::Path;
use std::process::{Command, Stdio};

use chrono::{DateTime, TimeDelta, Utc};

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens;

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `kubectl --server … --certificate-authority … --token … ARGS` with an empty
/// kubeconfig and a throwaway HOME (no discovery cache, no real credentials).
fn kubectl(dir: &Path, server: &ApiServer, ca: &Path, token: &str, args: &[&str]) -> (i32, String) {
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(&kubeconfig, "").unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let output = Command::new("kubectl")
        .env("KUBECONFIG", &kubeconfig)
        .env("HOME", &home)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .arg("--server")
        .arg(server.url())
        .arg("--certificate-authority")
        .arg(ca)
        .arg("--token")
        .arg(token)
        .args(["--request-timeout", "10s"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A test server on the real clock (kubectl cannot be given `--now`), its CA
/// in `dir`, and two tokens: one it accepts (without RBAC) and an expired one.
struct Lab {
    dir: tempfile::TempDir,
    ca: std::path::PathBuf,
    server: ApiServer,
    token: String,
    expired: String,
}

impl Lab {
    /// kubectl ARGS with `token`, against the lab's server.
    fn run(&self, token: &str, args: &[&str]) -> (i32, String) {
        kubectl(self.dir.path(), &self.server, &self.ca, token, args)
    }
}

/// The [`Lab`], or `None` (skipped) without kubectl outside CI.
fn lab() -> Option<Lab> {
    if !crate::support::tool_available("kubectl", kubectl_available()) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-test-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    #[expect(clippy::disallowed_methods, reason = "kubectl cannot be given --now")]
    let now: DateTime<Utc> = Utc::now();
    Some(Lab {
        server: ApiServer::start(Config::new(now), &pki),
        token: tokens::sign(&tokens::projected(now - TimeDelta::minutes(5), 3607)),
        expired: tokens::sign(&tokens::projected(now - TimeDelta::hours(3), 3600)),
        dir,
        ca,
    })
}

#[test]
fn kubectl_sees_a_real_api_server() {
    let Some(lab) = lab() else {
        return;
    };
    // Rejected token (expired): 401. A plain request decodes the Status body.
    let raw = ["get", "--raw", "/api/v1/namespaces/default/pods"];
    let (code, stderr) = lab.run(&lab.expired, &raw);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("error: You must be logged in to the server (Unauthorized)"),
        "{stderr}"
    );
    // `get pods` fails in discovery first; kubectl 1.26+ then prints client-go's
    // substitute text, exactly as it does against a real cluster (the discovery
    // client cannot decode a Status).
    let (code, stderr) = lab.run(&lab.expired, &["get", "pods"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("error: You must be logged in to the server (")
            && stderr.contains("couldn't get current server API group list"),
        "{stderr}"
    );

    // Accepted token, no RBAC: 403, after discovery succeeded.
    let (code, stderr) = lab.run(&lab.token, &["get", "pods"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains(
            "Error from server (Forbidden): pods is forbidden: User \"system:serviceaccount:debug-lab:reporter\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
        ),
        "{stderr}"
    );
    assert!(
        lab.server.seen().iter().any(|s| s.path == "/api/v1"),
        "discovery was not used"
    );
}

/// kubectl's own trace at any verbosity, with API discovery that partly
/// fails (the test server lists groups it does not serve, as a cluster with
/// an aggregated API down does), is one answer: kubectl's verdict, with the
/// user and the request it names, and the logged requests counted in a note.
#[test]
fn a_kubectl_trace_of_any_verbosity_is_one_answer() {
    let Some(lab) = lab() else {
        return;
    };
    for (token, class) in [
        (&lab.token, "403-forbidden"),
        (&lab.expired, "401-invalid-token"),
    ] {
        for verbosity in ["-v=6", "-v=8", "-v=9"] {
            let (_, trace) = lab.run(token, &["get", "pods", verbosity]);
            let out = crate::support::satoken()
                .args(["classify", "-o", "json"])
                .write_stdin(trace.clone())
                .output()
                .unwrap();
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let results = doc["results"].as_array().unwrap();
            assert_eq!(results.len(), 1, "{verbosity}: {trace}\n{doc:#}");
            let r = &results[0];
            assert_eq!(
                r["diagnosis"]["classification"], class,
                "{verbosity}: {doc:#}"
            );
            if class == "403-forbidden" {
                assert_eq!(r["user"], "system:serviceaccount:debug-lab:reporter");
                assert_eq!(r["request"]["verb"], "list");
                assert_eq!(r["request"]["resource"], "pods");
                assert!(
                    r.to_string().contains("kubectl logged"),
                    "{verbosity}: {r:#}"
                );
            }
        }
    }
}
