//! Shared test support: the one way to run the binary ([`satoken`]), the test
//! API server ([`apiserver`]) and the AWS STS it can stand in for ([`sts`]),
//! certificates ([`pki`]), token signing ([`tokens`]) and an HTTP CONNECT
//! proxy ([`proxy`]).
#![allow(dead_code)]

pub mod apiserver;
pub mod diagnosis;
pub mod pki;
pub mod proxy;
pub mod schemas;
pub mod sts;
pub mod tokens;

use chrono::{DateTime, Utc};

/// Whether `var` asks a test to rewrite the checked-in files it compares
/// against. Never in CI: there a rewrite would make the check pass by
/// replacing what it checks (`.ci/run` clears these variables).
pub fn rewrite_requested(var: &str) -> bool {
    let set = std::env::var_os(var).is_some();
    assert!(
        !(set && in_ci()),
        "{var} is set in CI: the check would rewrite its own expectation and pass"
    );
    set
}

/// Whether a tool a test runs is there. In CI, where `.ci/run` installs every
/// one, a missing tool fails the test instead of letting it pass having run
/// nothing; elsewhere the test notes the skip.
pub fn tool_available(what: &str, available: bool) -> bool {
    assert!(
        available || !in_ci(),
        "{what} is not installed, and this is CI (.ci/run installs it)"
    );
    if !available {
        eprintln!("{what} is not installed: skipped (.ci/run installs it)");
    }
    available
}

/// pyspark and a JRE, for scripts/spark_satoken.py (or a skip, but in CI).
pub fn spark_available() -> bool {
    let pyspark = std::process::Command::new("python3")
        .args(["-c", "import pyspark"])
        .status()
        .is_ok_and(|s| s.success());
    let java = std::process::Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    tool_available("pyspark with a JRE", pyspark && java)
}

/// scripts/spark_satoken.py in local mode: `command` over the files of
/// `input`, its shards in `out_dir`, the merge's output (`args` go to both);
/// its exit code must be 1 (something found).
pub fn spark(
    command: &str,
    input: &std::path::Path,
    out_dir: &std::path::Path,
    args: &[&str],
) -> Vec<u8> {
    let out = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/spark_satoken.py"
        ))
        .arg(assert_cmd::cargo::cargo_bin("kubectl-satoken"))
        .args([command])
        .arg(input)
        .arg(out_dir)
        .arg("--")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Running under CI (`.ci/run` is run with `CI=true`), or asked to behave so.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some() || std::env::var_os("SATOKEN_REQUIRE_CLIENTS").is_some()
}

/// The built binary in an environment that says nothing about this machine: no
/// home (so no `~/.kube/config`), no `KUBECONFIG`, no in-pod variables or
/// ServiceAccount directory (never a real mounted token), no colour preference
/// and no terminal width. Tests add back exactly what they exercise.
pub fn satoken() -> assert_cmd::Command {
    assert_cmd::Command::from_std(satoken_std())
}

/// [`satoken`] as a `std::process::Command` (for stdin `/dev/null`, spawning).
pub fn satoken_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-satoken"));
    cmd.env("HOME", "/nonexistent/satoken-test-home")
        .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test-sa")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS");
    cmd
}

/// `--verb get` on a pod's log subresource: RBAC on `pods/log`.
pub const GET_POD_LOG: [&str; 8] = [
    "--verb",
    "get",
    "--resource",
    "pods",
    "--subresource",
    "log",
    "--name",
    crate::support::tokens::POD,
];

/// The instant every test server's clock starts at, and the `--now` the binary gets.
pub const BASE: &str = "2026-01-01T00:00:00Z";

/// [`BASE`] as an instant.
pub fn base() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(BASE)
        .expect("BASE is RFC 3339")
        .with_timezone(&Utc)
}

/// A kubelet-fresh projected token: minted 10 minutes before [`BASE`], valid
/// for 3607 s (the kubelet's default).
pub fn fresh_token() -> String {
    tokens::sign(&tokens::projected(
        base() - chrono::TimeDelta::minutes(10),
        3607,
    ))
}

/// A pod's ServiceAccount directory holding `token`, the CA and the namespace.
pub fn sa_dir(pki: &pki::Pki, token: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    pki.write_ca(dir.path(), "ca.crt");
    std::fs::write(dir.path().join("token"), token).unwrap();
    std::fs::write(dir.path().join("namespace"), tokens::NAMESPACE).unwrap();
    dir
}
