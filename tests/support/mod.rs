//! Shared test support: `mod support;` in an integration test brings in the test
//! API server ([`apiserver`]), certificates ([`pki`]), token signing ([`tokens`]) and an
//! HTTP CONNECT proxy ([`proxy`]).
#![allow(dead_code)]

pub mod apiserver;
pub mod pki;
pub mod proxy;
pub mod tokens;

use chrono::{DateTime, Utc};

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
