//! The krew manifest follows krew's conventions and matches this build.

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    api_version: String,
    kind: String,
    metadata: Metadata,
    spec: Spec,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    version: String,
    homepage: String,
    short_description: String,
    description: String,
    platforms: Vec<Platform>,
}

#[derive(Debug, Deserialize)]
struct Platform {
    selector: Selector,
    uri: String,
    sha256: String,
    files: Vec<FileOp>,
    bin: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Selector {
    match_labels: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct FileOp {
    from: String,
    to: String,
}

#[test]
fn manifest_follows_krew_conventions() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/plugins/satoken.yaml"))
            .unwrap();
    let m: Manifest = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        m.api_version,
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(m.kind, "Plugin");
    assert_eq!(
        m.metadata.name, "satoken",
        "krew name = the kubectl subcommand"
    );
    assert_eq!(m.spec.version, format!("v{}", env!("CARGO_PKG_VERSION")));
    assert!(m.spec.homepage.starts_with("https://"));
    // krew's linter: a short description, no "kubectl" in it, under ~50 characters.
    assert!(
        m.spec.short_description.len() <= 50,
        "{}",
        m.spec.short_description
    );
    assert!(!m.spec.short_description.to_lowercase().contains("kubectl"));
    assert!(m.spec.description.len() > m.spec.short_description.len());
    assert!(!m.spec.platforms.is_empty());
    for p in &m.spec.platforms {
        assert_eq!(p.bin, "kubectl-satoken");
        assert!(p.selector.match_labels.contains_key("os"));
        assert!(p.selector.match_labels.contains_key("arch"));
        assert!(p.uri.starts_with("https://") && p.uri.ends_with(".tar.gz"));
        assert!(
            p.uri.contains(&m.spec.version),
            "the archive is the version's"
        );
        assert_eq!(p.sha256.len(), 64);
        assert!(p.sha256.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(
            p.files
                .iter()
                .any(|f| f.from == "kubectl-satoken" && f.to == ".")
        );
        assert!(
            p.files.iter().any(|f| f.from == "LICENSE"),
            "krew wants the licence shipped"
        );
    }
}
