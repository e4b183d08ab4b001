//! The binary works as a kubectl plugin through real kubectl's plugin discovery:
//! `kubectl-satoken` on PATH makes `kubectl satoken …` work.

use std::path::PathBuf;
use std::process::Command;

/// kubectl on PATH, or None (then the test is skipped, except in CI).
fn kubectl() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("kubectl"))
            .find(|p| p.is_file())
    });
    crate::support::tool_available("kubectl", found.is_some());
    found
}

/// A PATH holding only the built plugin, then the directory of kubectl.
fn plugin_path(kubectl: &std::path::Path, bin_dir: &std::path::Path) -> std::ffi::OsString {
    std::env::join_paths([
        bin_dir.to_path_buf(),
        kubectl.parent().unwrap().to_path_buf(),
    ])
    .unwrap()
}

fn kubectl_with_plugin(args: &[&str]) -> Option<std::process::Output> {
    let kubectl = kubectl()?;
    let bin_dir = tempfile::tempdir().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    std::fs::copy(&binary, bin_dir.path().join("kubectl-satoken")).unwrap();
    // kubectl's plugin completion helper: the same binary under another name.
    std::os::unix::fs::symlink(&binary, bin_dir.path().join("kubectl_complete-satoken")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = Command::new(&kubectl)
        .args(args)
        .env("PATH", plugin_path(&kubectl, bin_dir.path()))
        .env("HOME", home.path())
        .env("KUBECONFIG", home.path().join("config"))
        .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    Some(output)
}

#[test]
fn kubectl_discovers_the_plugin() {
    let Some(out) = kubectl_with_plugin(&["plugin", "list"]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("kubectl-satoken"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn kubectl_satoken_help_and_decode() {
    let Some(out) = kubectl_with_plugin(&["satoken", "--help"]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(stdout.contains("Usage: kubectl satoken"), "{stdout}");
    let out = kubectl_with_plugin(&[
        "satoken",
        "decode",
        "-o",
        "json",
        "--now",
        "2026-01-01T00:00:00Z",
        "-f",
        "testdata/tokens/expired.jwt",
    ])
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "exit codes pass through kubectl"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["findings"][0]["code"], "expired");
}

#[test]
fn kubectl_completes_the_plugin() {
    // What `kubectl satoken de<TAB>` asks for, through kubectl's own completion.
    let Some(out) = kubectl_with_plugin(&["__complete", "satoken", "de"]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.starts_with("decode\t")),
        "{stdout}"
    );
    let out = kubectl_with_plugin(&["__complete", "satoken", "decode", "-o", ""]).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().any(|l| l.starts_with("json")), "{stdout}");
}
