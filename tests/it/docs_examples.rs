//! The incidents of docs/troubleshooting.md, run against the local test API
//! server (tests/it/support): every scenario is asserted (exit code, verdict,
//! cause), and the ignored `show` prints what the guide quotes:
//! `cargo test --test it docs_examples:: -- --ignored --nocapture`.
//!
//! In-pod runs get what a pod has: a ServiceAccount directory (token, ca.crt,
//! namespace), KUBERNETES_SERVICE_HOST/PORT, and /dev/null on stdin.

use std::path::Path;
use std::process::Stdio;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE};
use crate::support::{BASE, base, sa_dir};

const USER: &str = "system:serviceaccount:debug-lab:reporter";

struct Run {
    code: i32,
    /// stdout then stderr, as a terminal shows them.
    text: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

fn run(cmd: &mut std::process::Command) -> Run {
    let out = cmd
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        text: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn binary() -> std::process::Command {
    crate::support::satoken_std()
}

/// `kubectl satoken <sub> …` as a pod runs it (stdin /dev/null, mounted files).
fn in_pod(sub: &str, sa: &Path, port: u16, extra: &[&str]) -> Run {
    run(binary()
        .stdin(Stdio::null())
        .env("KUBECTL_SATOKEN_SA_DIR", sa)
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", port.to_string())
        .args([sub, "--now", BASE])
        .args(extra))
}

fn doctor(sa: &Path, port: u16, extra: &[&str]) -> Run {
    in_pod("doctor", sa, port, extra)
}

/// The doctor's diagnosis cause, from a second run with `-o json`.
fn doctor_cause(sa: &Path, port: u16, extra: &[&str]) -> (String, String) {
    let mut args = vec!["-o", "json"];
    args.extend_from_slice(extra);
    let json = doctor(sa, port, &args).json();
    (
        json["verdict"].as_str().unwrap_or("?").to_owned(),
        json["diagnosis"]["cause"]
            .as_str()
            .unwrap_or("?")
            .to_owned(),
    )
}

/// A kubelet-mounted token issued at `iat`: extended (`exp` a year out,
/// `warnafter` = iat + 3607), as kube-apiserver signs the default volume's.
fn extended(iat: DateTime<Utc>) -> String {
    let mut claims = tokens::projected(iat, 31_536_000);
    claims["kubernetes.io"]["warnafter"] = json!(iat.timestamp() + 3607);
    tokens::sign(&claims)
}

fn fresh() -> String {
    extended(base() - TimeDelta::minutes(10))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(tokens::testdata(&format!("tokens/{name}"))).unwrap()
}

/// One incident: a title, the command as the guide shows it, and the run.
struct Example {
    title: &'static str,
    shown: String,
    run: Run,
    /// Expected exit code, and (verdict, cause) for doctor runs.
    code: i32,
    expect: Option<(&'static str, &'static str)>,
    cause: Option<(String, String)>,
}

/// A doctor run in a pod, with its verdict and cause from a second, JSON run.
fn doctor_example(
    title: &'static str,
    extra: &[&str],
    sa: &Path,
    port: u16,
    code: i32,
    expect: (&'static str, &'static str),
) -> Example {
    let shown = std::iter::once("kubectl satoken doctor")
        .chain(extra.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    Example {
        title,
        shown,
        run: doctor(sa, port, extra),
        code,
        expect: Some(expect),
        cause: Some(doctor_cause(sa, port, extra)),
    }
}

/// Runs every incident. Servers live until the end of the function.
fn examples() -> Vec<Example> {
    let pki = Pki::new("docs-ca");
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let ca = ca.to_str().unwrap();
    let mut out = Vec::new();

    // 1. Clock skew: the API server answering is 90 s behind the one that minted.
    let mut behind = Config::new(base());
    behind.offset = TimeDelta::seconds(-90);
    let behind = ApiServer::start(behind, &pki);
    let healthy = ApiServer::start(Config::new(base()), &pki);
    let just_minted = extended(base());
    let sa = sa_dir(&pki, &just_minted);
    out.push(doctor_example(
        "clock skew",
        &[],
        sa.path(),
        behind.port(),
        1,
        ("broken", "clock-skew"),
    ));
    let token = dir.path().join("token");
    std::fs::write(&token, &just_minted).unwrap();
    let token = token.to_str().unwrap();
    out.push(Example {
        title: "clock skew: skew --server",
        shown: "kubectl satoken skew -f token --cacert ca.crt -s https://10.0.0.11:6443 -s https://10.0.0.12:6443".to_owned(),
        run: run(binary().args(["skew", "--now", BASE, "-f", token, "--cacert", ca, "-s", &healthy.url(), "-s", &behind.url()])),
        code: 1,
        expect: None,
        cause: None,
    });

    // 2. The ServiceAccount was deleted and recreated: same name, new uid.
    let mut recreated = Config::new(base());
    recreated.recreate_service_account();
    let recreated = ApiServer::start(recreated, &pki);
    let sa = sa_dir(&pki, &fresh());
    out.push(doctor_example(
        "service account recreated",
        &[],
        sa.path(),
        recreated.port(),
        1,
        ("broken", "unknown"),
    ));

    // 3. RBAC: the workload may not list pods.
    out.push(doctor_example(
        "rbac",
        &["--verb", "list", "--resource", "pods"],
        sa.path(),
        healthy.port(),
        1,
        ("broken", "rbac-denied"),
    ));

    // 4. Anonymous: a proxy in front of the API server drops Authorization.
    let mut stripping = Config::new(base());
    stripping.strip_authorization = true;
    let stripping = ApiServer::start(stripping, &pki);
    out.push(doctor_example(
        "anonymous",
        &[],
        sa.path(),
        stripping.port(),
        1,
        ("broken", "token-not-sent"),
    ));
    let empty = sa_dir(&pki, "");
    out.push(Example {
        title: "anonymous: empty token file",
        shown: "kubectl satoken doctor".to_owned(),
        run: doctor(empty.path(), healthy.port(), &[]),
        code: 2,
        expect: None,
        cause: None,
    });

    // 5. 404: the token works, the object does not exist.
    let reader = Config::new(base()).allow(USER, &["get"], &["configmaps"], Some(NAMESPACE));
    let reader = ApiServer::start(reader, &pki);
    out.push(doctor_example(
        "404",
        &["--path", "/api/v1/namespaces/debug-lab/configmaps/settings"],
        sa.path(),
        reader.port(),
        0,
        ("healthy", "object-not-found"),
    ));

    // 6. Expired: a non-extended one-hour token, two hours old.
    let expired = sa_dir(
        &pki,
        &tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600)),
    );
    out.push(doctor_example(
        "expired",
        &[],
        expired.path(),
        healthy.port(),
        1,
        ("broken", "expired"),
    ));
    // … and an extended one past warnafter: accepted, but stale.
    let stale = sa_dir(&pki, &extended(base() - TimeDelta::hours(2)));
    out.push(doctor_example(
        "stale",
        &[],
        stale.path(),
        healthy.port(),
        0,
        ("degraded", "stale-token"),
    ));

    // 8. Rotated keys: signed by a key the cluster no longer publishes. With
    // the default RBAC a rejected token cannot read the keys; with the
    // discovery role bound to system:unauthenticated doctor checks them.
    let rotated = sa_dir(&pki, &fixture("rotated-key.jwt"));
    out.push(doctor_example(
        "rotated key, default RBAC",
        &[],
        rotated.path(),
        healthy.port(),
        1,
        ("broken", "unknown"),
    ));
    let mut open = Config::new(base());
    open.anonymous_discovery = true;
    let open = ApiServer::start(open, &pki);
    out.push(doctor_example(
        "rotated key, keys readable anonymously",
        &[],
        rotated.path(),
        open.port(),
        1,
        ("broken", "key-mismatch"),
    ));

    // 9. The issuer changed: the server no longer accepts the token's `iss`.
    let mut moved = Config::new(base());
    moved.issuers = vec!["https://oidc.example.com/cluster-2".to_owned()];
    let moved = ApiServer::start(moved, &pki);
    out.push(doctor_example(
        "issuer changed",
        &[],
        sa.path(),
        moved.port(),
        1,
        ("broken", "unknown"),
    ));
    out
}

#[test]
fn every_incident_gives_its_documented_exit_code_verdict_and_cause() {
    for e in examples() {
        assert_eq!(e.run.code, e.code, "{}: {}", e.title, e.run.text);
        // What the guide's text relies on.
        let shows: &[&str] = match e.title {
            "anonymous" => &["403 Forbidden as system:anonymous"],
            "service account recreated" => &[
                "Other candidates:",
                "service-account-recreated (low confidence)",
                tokens::SA_UID,
                "$ kubectl get serviceaccount reporter -n debug-lab -o 'jsonpath={.metadata.uid} {.metadata.deletionTimestamp}'",
            ],
            "issuer changed" => &["issuer-mismatch (low confidence)"],
            "clock skew" => &[
                "\n    $ kubectl get leases -n kube-system -l apiserver.kubernetes.io/identity=kube-apiserver -o custom-columns=NAME:.metadata.name,RENEWED:.spec.renewTime\n",
            ],
            _ => &[],
        };
        for text in shows {
            assert!(
                e.run.text.contains(text),
                "{}: {text:?} in {}",
                e.title,
                e.run.text
            );
        }
        if let (Some((verdict, cause)), Some((got_verdict, got_cause))) = (e.expect, &e.cause) {
            assert_eq!(
                (got_verdict.as_str(), got_cause.as_str()),
                (verdict, cause),
                "{}: {}",
                e.title,
                e.run.text
            );
        }
    }
}

/// Prints every incident as the guide quotes it.
#[test]
#[ignore]
fn show() {
    for e in examples() {
        println!("===== {} (exit {})", e.title, e.run.code);
        println!("$ {}", e.shown);
        print!("{}", e.run.text);
        println!("$ echo $?\n{}\n", e.run.code);
    }
}
