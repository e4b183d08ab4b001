//! Property tests: no input, however hostile, makes the input reader, the parser,
//! the analysis, the renderers, the key, Lease/Node, evidence or kubeconfig readers
//! panic. The entry points are the fuzz targets' (`satoken::fuzzing`).

use base64::Engine as _;
use chrono::{DateTime, TimeDelta};
use proptest::prelude::*;
use satoken::fuzzing;
use satoken::report::{TableStyle, table};
use satoken::{decode, token};

const NOW: i64 = 1_767_225_600;

/// Runs the whole decode pipeline on `bytes` (the `token` fuzz target's body).
fn pipeline(bytes: Vec<u8>) {
    fuzzing::token(&bytes);
}

/// A fixture with one byte replaced and perhaps its tail cut off: close enough to the real
/// format to get past the first checks of each reader.
fn mangled(fixture: &[u8], at: usize, byte: u8, keep: Option<usize>) -> Vec<u8> {
    let mut bytes = fixture.to_vec();
    if !bytes.is_empty() {
        let at = at % bytes.len();
        bytes[at] = byte;
        if let Some(keep) = keep {
            bytes.truncate(keep % (bytes.len() + 1));
        }
    }
    bytes
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Arbitrary JSON values, a few levels deep, with claim-like keys.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(
            |f| serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, Into::into)
        ),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        let key = prop_oneof![
            Just("exp".to_owned()),
            Just("nbf".to_owned()),
            Just("iat".to_owned()),
            Just("iss".to_owned()),
            Just("sub".to_owned()),
            Just("aud".to_owned()),
            Just("kubernetes.io".to_owned()),
            Just("namespace".to_owned()),
            Just("serviceaccount".to_owned()),
            Just("pod".to_owned()),
            Just("node".to_owned()),
            Just("secret".to_owned()),
            Just("warnafter".to_owned()),
            Just("name".to_owned()),
            Just("uid".to_owned()),
            Just("alg".to_owned()),
            Just("kid".to_owned()),
            Just("kubernetes.io/serviceaccount/namespace".to_owned()),
            Just("kubernetes.io/serviceaccount/secret.name".to_owned()),
            ".{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map(key, inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES=100000 for a longer hunt; 512 keeps CI quick.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        pipeline(bytes);
    }

    #[test]
    fn random_text_lines_never_panic(lines in prop::collection::vec("[ -~]{0,80}", 0..6)) {
        pipeline(lines.join("\n").into_bytes());
    }

    #[test]
    fn near_jwts_never_panic(
        header in json_value(),
        payload in json_value(),
        signature in prop::collection::vec(any::<u8>(), 0..64),
        wrapper in 0usize..4,
        mangle in prop::option::of((0usize..400, any::<u8>())),
    ) {
        let mut token = format!(
            "{}.{}.{}",
            b64(header.to_string().as_bytes()),
            b64(payload.to_string().as_bytes()),
            b64(&signature)
        );
        if let Some((at, byte)) = mangle {
            let mut bytes = token.into_bytes();
            let at = at % bytes.len();
            bytes[at] = byte;
            token = String::from_utf8_lossy(&bytes).into_owned();
        }
        let text = match wrapper {
            0 => token,
            1 => format!("Bearer {token}"),
            2 => format!("Authorization: Bearer  {token}\n{token}"),
            _ => format!("{{\"status\":{{\"token\":{}}}}}", serde_json::Value::from(token)),
        };
        pipeline(text.into_bytes());
    }

    #[test]
    fn well_typed_claims_always_parse_and_render(
        exp in proptest::option::of(-62_135_596_800i64..253_402_300_799),
        iat in proptest::option::of(-62_135_596_800i64..253_402_300_799),
        now_offset in -100_000_000i64..100_000_000,
    ) {
        let claims = serde_json::json!({
            "exp": exp, "iat": iat, "nbf": iat, "iss": "i",
            "kubernetes.io": {"namespace": "n", "serviceaccount": {"name": "s", "uid": "u"}},
        });
        let text = format!("{}.{}.c2ln", b64(br#"{"alg":"RS256","kid":"k"}"#), b64(claims.to_string().as_bytes()));
        let secret = satoken::secret::SecretToken::new(text);
        let token = token::parse(&secret).expect("well-typed claims parse");
        let shaped = satoken::input::shape::detect_line(secret.expose());
        let now = DateTime::from_timestamp(NOW + now_offset, 0).unwrap();
        let report = decode::analyse(token, &shaped, now, TimeDelta::seconds(60));
        let mut sink = Vec::new();
        table::write_decode(&mut sink, &report, &TableStyle::plain(80)).unwrap();
    }

    #[test]
    fn kubeconfigs_never_panic(
        text in prop_oneof![
            ".{0,400}",
            // YAML-shaped: the keys the reader looks at, with arbitrary values.
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "apiVersion", "kind", "current-context", "clusters", "contexts",
                        "users", "- name", "  cluster", "  context", "  user", "    server",
                        "    certificate-authority-data", "    token", "    tokenFile",
                        "    insecure-skip-tls-verify", "    namespace", "    tls-server-name",
                    ]),
                    "[ -~]{0,30}",
                ),
                0..16,
            )
            .prop_map(|lines| lines
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join("\n")),
        ],
        context in proptest::option::of("[a-z]{0,5}"),
    ) {
        fuzzing::kubeconfig(text.as_bytes(), context.as_deref());
    }

    #[test]
    fn key_readers_never_panic(
        which in 0usize..3,
        at in any::<usize>(),
        byte in any::<u8>(),
        keep in prop::option::of(any::<usize>()),
        noise in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let base = match which {
            0 => fixture("testdata/jwks.json"),
            1 => fixture("testdata/keys/ec256.pub.pem"),
            _ => noise,
        };
        fuzzing::keys(&mangled(&base, at, byte, keep));
    }

    #[test]
    fn lease_and_node_readers_never_panic(
        which in 0usize..3,
        at in any::<usize>(),
        byte in "[ -~]",
        keep in prop::option::of(any::<usize>()),
    ) {
        let base = fixture(["testdata/skew/node-leases.json", "testdata/skew/nodes.json", "testdata/skew/apiserver-leases.json"][which]);
        fuzzing::skew_sources(&mangled(&base, at, byte.as_bytes()[0], keep));
    }

    #[test]
    fn evidence_reader_never_panics(
        which in 0usize..64,
        at in any::<usize>(),
        byte in any::<u8>(),
        keep in prop::option::of(any::<usize>()),
    ) {
        let mut files: Vec<_> = std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/evidence"))
            .unwrap()
            .map(|e| e.unwrap().path())
            // Files only: testdata/evidence/wild/ is a corpus of its own.
            .filter(|p| {
                let name = p.to_string_lossy();
                p.is_file() && !name.ends_with(".expected.json") && !name.ends_with("README.md")
            })
            .collect();
        files.sort();
        let base = std::fs::read(&files[which % files.len()]).unwrap();
        fuzzing::classify(&mangled(&base, at, byte, keep));
    }
}

/// Flag values as people (and fuzzers) type them: instants, durations with
/// and without units, huge and negative numbers, clock specs, URLs.
fn flag_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| format!("{n}s")),
        (any::<u32>(), "(ns|us|ms|s|m|h|d|w|y|months)").prop_map(|(n, u)| format!("{n}{u}")),
        (0i32..=99_999, 1u32..=12, 1u32..=31)
            .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}T00:00:00Z")),
        (".{0,6}", "[+-]?[0-9]{0,16}[smhd]?").prop_map(|(n, o)| format!("{n}={o}")),
        "(https?://)?[a-z0-9.:\\[\\]@/-]{0,24}",
        "[ -~]{0,24}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The `flags` fuzz target's body: flag parsers and the time arithmetic
    /// their values feed never panic.
    #[test]
    fn flag_values_never_panic(
        now in flag_value(),
        leeway in flag_value(),
        timeout in flag_value(),
        other in flag_value(),
    ) {
        fuzzing::flags(format!("{now}\n{leeway}\n{timeout}\n{other}").as_bytes());
    }
}

/// A signed-looking token with random claims and a random signature.
fn random_token() -> impl Strategy<Value = String> {
    (
        prop::collection::btree_map("[a-z]{1,6}", "[ -~]{0,16}", 0..4),
        prop::collection::vec(any::<u8>(), 32..96),
        any::<bool>(),
    )
        .prop_map(|(claims, signature, padded)| {
            let pad = |s: String| {
                if padded {
                    let n = (4 - s.len() % 4) % 4;
                    format!("{s}{}", "=".repeat(n))
                } else {
                    s
                }
            };
            let claims: serde_json::Map<String, serde_json::Value> =
                claims.into_iter().map(|(k, v)| (k, v.into())).collect();
            format!(
                "{}.{}.{}",
                pad(b64(br#"{"alg":"RS256","kid":"k"}"#)),
                pad(b64(serde_json::Value::Object(claims)
                    .to_string()
                    .as_bytes())),
                pad(b64(&signature))
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        // Each case runs the binary 24 times.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse::<u32>().ok()).map_or(12, |n| n.min(64)),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Whatever surrounds a token, wherever it is given (argument, stdin,
    /// file, evidence, a path it does not belong in), in every format: no
    /// output of any subcommand holds the token or its signature.
    #[test]
    fn no_output_ever_holds_a_token(
        token in random_token(),
        before in "[ -~]{0,24}",
        after in "[ -~]{0,24}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("input");
        std::fs::write(&file, format!("{before}{token}{after}\n")).unwrap();
        let jwks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/jwks.json");
        let signature = token.rsplit('.').next().unwrap().trim_end_matches('=').to_owned();
        let runs: Vec<Vec<std::ffi::OsString>> = vec![
            vec!["decode".into(), "-f".into(), file.clone().into()],
            vec!["decode".into(), token.clone().into()],
            vec!["decode".into(), "-f".into(), token.clone().into()],
            vec!["verify".into(), "--jwks".into(), jwks.into(), "-f".into(), file.clone().into()],
            vec!["skew".into(), "--clock".into(), "a=+90s".into(), "-f".into(), file.clone().into()],
            vec!["classify".into(), file.clone().into()],
            vec!["classify".into(), "--token".into(), token.clone().into(), file.clone().into()],
            vec![token.clone().into()],
        ];
        for args in runs {
            for format in ["table", "json", "yaml"] {
                let out = satoken_cmd()
                    .args(&args)
                    .args(["--now", "2026-01-01T00:00:00Z", "-o", format])
                    .output()
                    .unwrap();
                prop_assert!(out.status.code().is_some(), "killed: {args:?}");
                for stream in [&out.stdout, &out.stderr] {
                    let text = String::from_utf8_lossy(stream);
                    prop_assert!(!text.contains(&token), "{args:?} -o {format}: {text}");
                    prop_assert!(!text.contains(&signature), "{args:?} -o {format}: {text}");
                }
            }
        }
    }
}

fn satoken_cmd() -> std::process::Command {
    let mut cmd = crate::support::satoken_std();
    cmd.stdin(std::process::Stdio::null());
    cmd
}
