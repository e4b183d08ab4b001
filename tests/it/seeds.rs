//! The seed incidents' evidence (testdata/seeds, copied byte for byte from the
//! documents the project was created from; its README says what each must
//! give), through the built binary.

use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::{BASE, base};

const SEEDS: &str = "testdata/seeds";
/// The `date:` of the seed's 401: the answering API server's clock.
const ANSWERED_AT: &str = "2022-11-27T08:12:15Z";

fn run(args: &[&str]) -> (i32, Value, String) {
    let out = crate::support::satoken()
        .args(args)
        .write_stdin("")
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap(), json, text)
}

fn classify(file: &str, extra: &[&str]) -> (i32, Value) {
    let path = format!("{SEEDS}/{file}");
    let mut args = vec!["classify", "--now", BASE, "-o", "json", &path];
    args.extend_from_slice(extra);
    let (code, json, text) = run(&args);
    assert!(json.is_object(), "{file}: {text}");
    (code, json)
}

fn results(doc: &Value) -> &Vec<Value> {
    doc["results"].as_array().expect("results")
}

fn candidates(diagnosis: &Value) -> Vec<&str> {
    std::iter::once(&diagnosis["cause"])
        .chain(
            diagnosis["alternatives"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| &a["cause"]),
        )
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn the_curl_vik_transcript_is_one_401_of_clock_skew_and_no_tls_failure() {
    let (code, doc) = classify("001-curl-vik-401.txt", &[]);
    assert_eq!(code, 1);
    let results = results(&doc);
    assert_eq!(results.len(), 1, "one request, one answer: {doc:#}");
    let r = &results[0];
    let d = &r["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "clock-skew");
    // The token is the one the request carried and the Date is the answering
    // server's own clock: its rejection is certain.
    assert_eq!(d["confidence"], "high");
    assert_eq!(r["token_check"]["verdict"], "not-yet-valid");
    assert_eq!(r["token_check"]["accepted_in_seconds"], 46);
    let (_, _, table) = run(&[
        "classify",
        "--now",
        BASE,
        &format!("{SEEDS}/001-curl-vik-401.txt"),
    ]);
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("accepted in 46 s"), "{table}");
    assert!(words.contains("continuing anyway"), "{table}");
    for tls in ["tls-error", "tls-untrusted-ca"] {
        assert!(!table.contains(tls), "{tls} in:\n{table}");
    }
}

#[test]
fn the_api_server_log_says_not_valid_yet_in_its_1_22_words() {
    let (code, doc) = classify("001-apiserver.log", &[]);
    assert_eq!(code, 1);
    let d = &results(&doc).last().unwrap()["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "clock-skew");
    assert_eq!(d["confidence"], "high");
}

#[test]
fn fabric8_s_stock_401_claims_no_cause_and_names_clock_skew_among_the_candidates() {
    let (code, doc) = classify("001-fabric8-401.txt", &[]);
    assert_eq!(code, 1);
    let results = results(&doc);
    assert_eq!(results.len(), 1, "{doc:#}");
    let d = &results[0]["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "unknown");
    assert_eq!(d["confidence"], "low");
    let candidates = candidates(d);
    assert!(candidates.contains(&"clock-skew"), "{candidates:?}");
}

#[test]
fn the_seed_token_is_not_valid_on_the_answering_clock_for_46_s_and_fine_on_the_other() {
    let token = format!("{SEEDS}/001-token.jwt");
    let (code, doc, text) = run(&["decode", "--now", ANSWERED_AT, "-o", "json", "-f", &token]);
    assert_eq!(code, 1, "{text}");
    let findings = doc["findings"].to_string();
    assert!(findings.contains("not-yet-valid"), "{findings}");
    assert!(findings.contains("for 46s more"), "{findings}");
    // node2's clock runs about 90 s ahead of node1's: it accepts the token.
    let (code, _, text) = run(&[
        "skew",
        "--now",
        ANSWERED_AT,
        "-f",
        &token,
        "--clock",
        "node1=+0s",
        "--clock",
        "node2=+90s",
    ]);
    assert_eq!(code, 1, "{text}");
    let node = |name: &str| {
        text.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} in:\n{text}"))
            .to_owned()
    };
    let node1 = node("node1");
    assert!(
        node1.contains("REJECT nbf") && node1.contains("in 46s"),
        "{text}"
    );
    assert!(node("node2").contains("accept"), "{text}");
}

#[test]
fn the_ray_job_s_401_from_kube_rbac_proxy_claims_nothing_it_cannot_know() {
    let (code, doc) = classify("003-ray-job-submit-401.txt", &[]);
    assert_eq!(code, 1);
    let results = results(&doc);
    assert_eq!(results.len(), 1, "{doc:#}");
    let d = &results[0]["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["confidence"], "low");
}

/// Seed 000's experiment, replayed: no token is 403 as system:anonymous, and
/// `TOKEN=WRONG_TOKEN` is 401.
#[test]
fn no_token_is_403_as_anonymous_and_a_wrong_token_is_401() {
    let dir = tempfile::tempdir().unwrap();
    let pki = crate::support::pki::Pki::new("satoken-test-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let server = ApiServer::start(Config::new(base()), &pki);
    let probe = |token: Option<&str>| {
        let mut cmd = crate::probe::command(dir.path());
        cmd.args(["probe", "-o", "json", "--now", BASE, "--cacert"])
            .arg(&ca)
            .args(["-s", &server.url()]);
        match token {
            Some(t) => cmd.args(["-f", "-"]).write_stdin(t),
            None => cmd.arg("--anonymous").write_stdin(""),
        };
        let out = cmd.output().unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
    };
    let anonymous = probe(None);
    assert_eq!(anonymous["diagnosis"]["classification"], "403-forbidden");
    assert!(
        anonymous["diagnosis"]
            .to_string()
            .contains("system:anonymous"),
        "{anonymous:#}"
    );
    let wrong = probe(Some("WRONG_TOKEN"));
    assert_eq!(wrong["diagnosis"]["classification"], "401-invalid-token");
}
