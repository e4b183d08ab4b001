//! What the fixture generators (`gen_fixtures`, `gen_features`) share: the
//! instant and the identities every fixture is built around, Kubernetes' key
//! id and the JSON file layout.

// Each generator uses part of this module.
#![allow(dead_code)]

use std::fs;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rcgen::{KeyPair, PublicKeyData as _};
use serde_json::Value;

/// 2026-01-01T00:00:00Z: the instant every fixture is designed around.
pub const NOW: i64 = 1_767_225_600;
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
pub const NAMESPACE: &str = "shop";
pub const SA: &str = "checkout";
pub const SA_UID: &str = "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41";
pub const POD: &str = "checkout-7d9f8b6c5-x2x4q";
pub const POD_UID: &str = "a6d0f5c2-3b1e-4f7a-9c8d-2e4b6a1f0c37";
pub const NODE: &str = "node-a";
pub const NODE_UID: &str = "5b2e9d14-7c3a-4e6f-8a1b-0d9c2f4e6a85";

/// Kubernetes' key id: base64url(SHA-256(DER SubjectPublicKeyInfo)), no padding.
pub fn kubernetes_kid(pair: &KeyPair) -> String {
    let digest =
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &pair.subject_public_key_info());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// Pretty JSON with a final newline.
pub fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_string_pretty(value).unwrap() + "\n").unwrap();
}
