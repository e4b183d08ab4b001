//! `-o yaml` carries exactly the JSON document's data, for every subcommand that
//! runs offline (probe and doctor share the same writer).

use serde_json::Value;

const NOW: &str = "2026-01-01T00:00:00Z";

fn run(args: &[&str], format: &str) -> Vec<u8> {
    crate::support::satoken()
        .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test")
        .args(args)
        .args(["-o", format, "--now", NOW])
        .output()
        .unwrap()
        .stdout
}

#[test]
fn yaml_equals_json() {
    let cases: [&[&str]; 5] = [
        &["decode", "-f", "testdata/tokens/projected.jwt"],
        &["decode", "-f", "testdata/tokens/legacy-secret.json"],
        &[
            "verify",
            "-f",
            "testdata/tokens/rotated-key.jwt",
            "--jwks",
            "testdata/jwks.json",
        ],
        &[
            "skew",
            "-f",
            "testdata/tokens/not-yet-valid.jwt",
            "--clock",
            "node-a=-90s",
        ],
        &["classify", "testdata/evidence/kubectl-401-credentials.txt"],
    ];
    for args in cases {
        let (json_text, yaml_text) = (run(args, "json"), run(args, "yaml"));
        let json: Value = serde_json::from_slice(&json_text).unwrap();
        let yaml: Value = serde_saphyr::from_slice(&yaml_text)
            .unwrap_or_else(|e| panic!("{args:?}: YAML does not parse: {e}"));
        assert_eq!(yaml, json, "{args:?}");
        // Value compares maps unordered: the order is checked on the text.
        let json_keys: Vec<_> = String::from_utf8(json_text)
            .unwrap()
            .lines()
            .filter_map(|l| Some(l.strip_prefix("  \"")?.split_once('"')?.0.to_owned()))
            .collect();
        let yaml_keys: Vec<_> = String::from_utf8(yaml_text)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with([' ', '-']))
            .filter_map(|l| Some(l.split_once(':')?.0.to_owned()))
            .collect();
        assert_eq!(yaml_keys, json_keys, "{args:?}: keys in the JSON's order");
    }
}

#[test]
fn yaml_batches_are_one_document_per_line() {
    let out =
        String::from_utf8(run(&["decode", "-f", "testdata/tokens/batch.txt"], "yaml")).unwrap();
    assert_eq!(out.matches("---\n").count(), 5, "{out}");
}
