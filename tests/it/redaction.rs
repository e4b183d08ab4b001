//! The redaction property: a token of any shape (a JWS whatever its header,
//! `=`-padded or not; a bootstrap token), whatever stands right before and
//! after it (every printable delimiter, `key=`, `--flag=`, `?query=`, a
//! sentence's full stop), wherever a subcommand may echo it (evidence, audit
//! fields, API server log reasons, shards, flag values, error messages), in
//! every output format, and written through URL and JSON escapes (dots as
//! `%2E` or `\u002e`, nested): no output holds the token, its signature or secret,
//! or any 24-byte piece of them. Nothing here is registered as a secret (no
//! token under test is any of these): the output redactor finds each by shape.

use std::ffi::OsString;
use std::path::Path;

use base64::Engine as _;
use proptest::prelude::*;

/// What may stand right before or after a token: printable ASCII that is not
/// a letter or digit, and the tab (escaped as `\t` in JSON, `\u{9}` in tables).
const DELIMITERS: &str = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t";
/// Words a token follows.
const PREFIXES: [&str; 11] = [
    "token=",
    "--token=",
    "?token=",
    "&access_token=",
    "Bearer ",
    "Authorization: Bearer ",
    "x-",
    "x_",
    "x.",
    "JTI=",
    "\"token\":\"",
];
/// What a token is followed by.
const SUFFIXES: [&str; 8] = [".", ". Retry.", "&watch=1", "=", "-x", "_x", ".x", "\"},"];

/// JWS headers, one beginning `eyJ` (`{"`) and others that do not.
const HEADERS: [&str; 5] = [
    r#"{"alg":"RS256","kid":"k"}"#,
    r#"{ "alg": "RS256", "kid": "k" }"#,
    "{\n  \"alg\": \"ES256\"\n}",
    r#" {"alg":"RS256"}"#,
    "\t{\"typ\":\"JWT\",\"alg\":\"HS256\"}",
];

/// Length of the pieces looked for: any 32 bytes of a secret shown hold one.
const PIECE: usize = 24;

/// A token as planted, and what of it must never be shown.
#[derive(Debug, Clone)]
struct Planted {
    text: String,
    secret: String,
}

fn b64(bytes: &[u8], padded: bool) -> String {
    let s = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let pad = if padded { (4 - s.len() % 4) % 4 } else { 0 };
    format!("{s}{}", "=".repeat(pad))
}

fn jws(header: &str, sub: &str, signature: &[u8], padded: bool) -> Planted {
    let claims =
        serde_json::json!({"iss": "https://issuer.example", "sub": sub, "exp": 1_767_229_200});
    let secret = b64(signature, false);
    Planted {
        text: format!(
            "{}.{}.{}",
            b64(header.as_bytes(), padded),
            b64(claims.to_string().as_bytes(), padded),
            b64(signature, padded)
        ),
        secret,
    }
}

/// A token's dots as a URL, JSON or both write them, nested: each decodes to `.`.
const ENCODED_DOTS: [&str; 8] = [
    "%2E",
    "%2e",
    "\\u002e",
    "\\u002E",
    "%5Cu002e",
    "%252E",
    "\\u00252E",
    "\\\\u002e",
];
/// What an `=` before a bootstrap token may be written as.
const ENCODED_EQUALS: [&str; 4] = ["%3D", "%3d", "%253D", "\\u003d"];

fn planted() -> impl Strategy<Value = [Planted; 5]> {
    (
        1..HEADERS.len(),
        "[ -~]{0,12}",
        prop::collection::vec(any::<u8>(), 32..96),
        prop::collection::vec(any::<u8>(), 32..96),
        any::<bool>(),
        "[a-z0-9]{6}",
        "[a-z0-9]{16}",
        prop::collection::vec(any::<u8>(), 32..96),
        0..ENCODED_DOTS.len(),
        0..ENCODED_EQUALS.len(),
        ("[a-z0-9]{6}", "[a-z0-9]{16}"),
    )
        .prop_map(
            |(
                header,
                sub,
                sig_a,
                sig_b,
                padded,
                id,
                secret,
                sig_c,
                dot,
                equals,
                (id_e, secret_e),
            )| {
                let encoded = jws(HEADERS[0], &sub, &sig_c, padded);
                [
                    jws(HEADERS[0], &sub, &sig_a, padded),
                    jws(HEADERS[header], &sub, &sig_b, !padded),
                    Planted {
                        text: format!("{id}.{secret}"),
                        secret,
                    },
                    // Joined by an escaped dot, as a URL or JSON would write it.
                    Planted {
                        text: encoded.text.replace('.', ENCODED_DOTS[dot]),
                        secret: encoded.secret,
                    },
                    Planted {
                        text: format!(
                            "token{}{id_e}{}{secret_e}",
                            ENCODED_EQUALS[equals], ENCODED_DOTS[dot]
                        ),
                        secret: secret_e,
                    },
                ]
            },
        )
}

/// (before, after) pairs: every delimiter and prefix before, every delimiter
/// and suffix after, paired differently for each `rotation`.
fn contexts(rotation: usize) -> Vec<(String, String)> {
    // Each delimiter alone, the words, and nothing.
    let with_delimiters = |words: &[&str]| -> Vec<String> {
        DELIMITERS
            .chars()
            .map(String::from)
            .chain(words.iter().map(|s| s.to_string()))
            .chain([String::new()])
            .collect()
    };
    let (before, after) = (with_delimiters(&PREFIXES), with_delimiters(&SUFFIXES));
    (0..before.len().max(after.len()))
        .map(|i| {
            (
                before[i % before.len()].clone(),
                after[(i + rotation) % after.len()].clone(),
            )
        })
        .collect()
}

/// Go's quoting of a string inside `err="…"`.
fn go_quoted(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\t', "\\t")
}

/// Evidence for classify: each context in a bare line, an API server's
/// reason, a kubectl -v=9 request and a client's error.
fn evidence(texts: &[String]) -> String {
    let mut out = String::new();
    for (i, t) in texts.iter().enumerate() {
        let (m, s) = (i / 60 % 60, i % 60);
        out.push_str(&match i % 5 {
            0 => format!("{t}\n"),
            1 => format!(
                "E0101 00:{m:02}:{s:02}.000000       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token, {}]\"\n",
                go_quoted(t)
            ),
            2 => format!(
                "I0101 00:{m:02}:{s:02}.000000   12345 round_trippers.go:466] curl -v -XGET  -H \"Authorization: Bearer {t}\" 'https://10.96.0.1:443/api/v1/namespaces/default/pods'\n"
            ),
            3 => format!("Error from server (Unauthorized): {t}\n"),
            // A suggested Role is named after what was refused.
            _ => format!(
                "Error from server (Forbidden): configmaps \"{}\" is forbidden: User \"system:serviceaccount:app:{}\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"{}\"\n",
                go_quoted(t), go_quoted(t), go_quoted(t)
            ),
        });
    }
    out
}

/// An instant `i` steps of 10 s into the day (the audit events' and API
/// server lines' clock).
fn at(i: usize) -> (String, String) {
    let (h, m, s) = (i * 10 / 3600, i * 10 / 60 % 60, i * 10 % 60);
    (
        format!("2026-01-01T{h:02}:{m:02}:{s:02}.000000Z"),
        format!("0101 {h:02}:{m:02}:{s:02}.000000"),
    )
}

/// Audit events carrying each text in every field the audit view shows: a
/// 403 (user, user agent, object, URI, message, credential id) and a 401
/// (user agent), and the API server's log lines giving the 401s their
/// reason (the text) at the same instant.
fn audit_log(texts: &[String]) -> (String, String) {
    let (mut events, mut apiserver) = (String::new(), String::new());
    for (i, t) in texts.iter().enumerate() {
        let (forbidden, _) = at(2 * i);
        let (failed, klog) = at(2 * i + 1);
        let event = serde_json::json!({
            "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": format!("00000000-0000-4000-8000-{i:012}"), "stage": "ResponseComplete",
            "requestURI": format!("/api/v1/namespaces/app/pods/{t}?{t}"), "verb": "get",
            "user": {"username": format!("system:serviceaccount:app:{t}"),
                     "groups": ["system:serviceaccounts"],
                     "extra": {"authentication.kubernetes.io/credential-id": [format!("JTI={t}")]}},
            "sourceIPs": [format!("10.0.{}.{}", i / 200, i % 200)], "userAgent": t,
            "objectRef": {"resource": "pods", "namespace": "app", "name": t, "apiVersion": "v1"},
            "responseStatus": {"metadata": {}, "status": "Failure", "reason": "Forbidden", "code": 403,
                "message": format!("pods \"{t}\" is forbidden: User \"{t}\" cannot get resource \"pods\" in API group \"\" in the namespace \"app\"")},
            "requestReceivedTimestamp": forbidden, "stageTimestamp": forbidden,
            "annotations": {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": t},
        });
        events.push_str(&format!("{event}\n"));
        let event = serde_json::json!({
            "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": format!("10000000-0000-4000-8000-{i:012}"), "stage": "ResponseStarted",
            "requestURI": "/api/v1/namespaces/app/secrets", "verb": "list", "user": {},
            "sourceIPs": [format!("10.1.{}.{}", i / 200, i % 200)], "userAgent": t,
            "responseStatus": {"metadata": {}, "status": "Failure", "code": 401,
                "message": "Authentication failed, attempted: bearer", "reason": ""},
            "requestReceivedTimestamp": failed, "stageTimestamp": failed,
        });
        events.push_str(&format!("{event}\n"));
        apiserver.push_str(&format!(
            "E{klog}       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token, {}]\"\n",
            go_quoted(t)
        ));
    }
    (events, apiserver)
}

/// A marker standing for text `i` in a shard, replaced after the shard is written.
fn marker(i: usize) -> String {
    format!("plantmark{i:05}x")
}

/// An `audit -o json` shard whose strings hold the texts: written from a log
/// of markers, the markers then replaced (JSON-escaped).
fn shard(dir: &Path, texts: &[String]) -> std::path::PathBuf {
    let markers: Vec<String> = (0..texts.len()).map(marker).collect();
    let log = dir.join("markers.log");
    std::fs::write(&log, audit_log(&markers).0).unwrap();
    let out = satoken(&["audit".into(), "-o".into(), "json".into(), log.into()]);
    let mut json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains(&marker(0)), "no marker in the shard: {json}");
    for (i, t) in texts.iter().enumerate().rev() {
        let quoted = serde_json::to_string(t).unwrap();
        json = json.replace(&marker(i), &quoted[1..quoted.len() - 1]);
    }
    let path = dir.join("shard.json");
    std::fs::write(&path, json).unwrap();
    path
}

fn satoken(args: &[OsString]) -> std::process::Output {
    crate::support::satoken_std()
        .args(args)
        .args(["--now", "2026-01-01T23:59:59Z"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// What of `planted` `text` shows, if any.
fn leak(text: &str, planted: &Planted) -> Option<String> {
    if text.contains(&planted.text) {
        return Some(planted.text.clone());
    }
    let secret = planted.secret.as_bytes();
    if secret.len() <= PIECE {
        return text
            .contains(&planted.secret)
            .then(|| planted.secret.clone());
    }
    secret
        .windows(PIECE)
        .step_by(8)
        .map(|piece| String::from_utf8_lossy(piece).into_owned())
        .find(|piece| text.contains(piece.as_str()))
}

proptest! {
    #![proptest_config(ProptestConfig {
        // Each case runs the binary about 40 times.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse::<u32>().ok()).map_or(4, |n| n.min(64)),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_token_survives_in_any_context_subcommand_or_format(
        tokens in planted(),
        rotation in 0usize..64,
        pick in any::<prop::sample::Index>(),
    ) {
        let contexts = contexts(rotation);
        let texts: Vec<String> = tokens
            .iter()
            .flat_map(|t| contexts.iter().map(move |(b, a)| format!("{b}{}{a}", t.text)))
            .collect();
        // Where a subcommand takes one value: one of the texts.
        let one: OsString = pick.get(&texts).into();
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            OsString::from(path)
        };
        let lines = write("lines.txt", &(texts.join("\n") + "\n"));
        let evidence = write("evidence.log", &evidence(&texts));
        let (events, apiserver) = audit_log(&texts);
        let log = write("audit.log", &events);
        let apiserver = write("apiserver.log", &apiserver);
        let shard = OsString::from(shard(dir.path(), &texts));
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let token = OsString::from(root.join("testdata/tokens/projected.jwt"));
        let jwks = OsString::from(root.join("testdata/jwks.json"));
        let mut with_clock = OsString::from("x=");
        with_clock.push(&one);
        let mut url = OsString::from("https://127.0.0.1:1/");
        url.push(&one);
        let mut jti = OsString::from("JTI=");
        jti.push(&one);
        let runs: Vec<Vec<OsString>> = vec![
            vec!["classify".into(), evidence.clone()],
            vec!["audit".into(), log.clone()],
            vec!["audit".into(), log.clone(), "--apiserver-log".into(), apiserver],
            vec!["audit".into(), "--merge".into(), shard.clone(), shard],
            vec!["audit".into(), "--jti".into(), jti, log.clone()],
            vec!["audit".into(), "--jti".into(), one.clone(), log],
            vec!["decode".into(), "-f".into(), lines],
            vec!["decode".into(), "-f".into(), token.clone(), "--leeway".into(), one.clone()],
            vec!["skew".into(), "-f".into(), token.clone(), "--clock".into(), with_clock],
            vec!["skew".into(), "-f".into(), token.clone(), "--clock".into(), one.clone()],
            vec!["verify".into(), "-f".into(), token.clone(), "--jwks".into(), jwks,
                 "--issuer".into(), one.clone(), "--audience".into(), one.clone()],
            vec!["probe".into(), "-f".into(), token.clone(), "-s".into(), url],
            vec!["probe".into(), "-f".into(), token.clone(), "-s".into(), "https://127.0.0.1:1".into(),
                 "--cacert".into(), one.clone()],
            vec!["doctor".into(), "--sa-dir".into(), one.clone()],
            vec!["explain".into(), one.clone()],
            vec!["classify".into(), "--at".into(), one.clone(), evidence.clone()],
            vec!["classify".into(), "--type".into(), one.clone(), evidence.clone()],
            vec!["audit".into(), "--jobs".into(), one.clone(), evidence.clone()],
            vec!["probe".into(), "--kubeconfig".into(), one.clone(), "--context".into(), one.clone()],
            vec!["probe".into(), "-f".into(), token.clone(), "-s".into(), "https://127.0.0.1:1".into(),
                 "--timeout".into(), one.clone(), "--resource".into(), one.clone()],
            vec!["verify".into(), "-f".into(), token.clone(), "--authentication-config".into(), one.clone()],
        ];
        for args in &runs {
            for format in ["table", "json", "yaml"] {
                let mut args = args.clone();
                args.extend(["-o".into(), format.into()]);
                let out = satoken(&args);
                prop_assert!(out.status.code().is_some(), "killed: {args:?}");
                for stream in [&out.stdout, &out.stderr] {
                    let text = String::from_utf8_lossy(stream);
                    for planted in &tokens {
                        if let Some(shown) = leak(&text, planted) {
                            let line = text.lines().find(|l| l.contains(&shown)).unwrap_or("");
                            prop_assert!(false, "{args:?} shows {shown} of {planted:?}:\n{line}");
                        }
                    }
                }
            }
        }
    }
}
