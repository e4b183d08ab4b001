//! `kubectl satoken skew` end to end: the clock-skew incident, the go-jose
//! boundaries at leeway ± 1 s, the Lease and Node fixtures (testdata/skew/,
//! written by scripts/gen_skew_fixtures.py), stdin arbitration and input errors.
//! Every run pins `--now 2026-01-01T00:00:00Z` and gives stdin explicitly.

use assert_cmd::Command;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

/// 2026-01-01T00:00:00Z, the instant every fixture is designed around.
const NOW: i64 = 1_767_225_600;
const NOW_TEXT: &str = "2026-01-01T00:00:00Z";
const NO_SA_DIR: &str = "/nonexistent/satoken-test-sa-dir";

fn cmd() -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .env("KUBECTL_SATOKEN_SA_DIR", NO_SA_DIR)
        .args(["skew", "--now", NOW_TEXT]);
    cmd
}

/// A TokenRequest-style token signed with testdata/keys/rsa.key.pem.
fn sign(iat: i64, nbf: Option<i64>, exp: i64) -> String {
    let jwks: Value =
        serde_json::from_str(&std::fs::read_to_string("testdata/jwks.json").unwrap()).unwrap();
    let kid = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kty"] == "RSA")
        .unwrap()["kid"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut claims = json!({
        "aud": ["https://kubernetes.default.svc.cluster.local"],
        "iss": "https://kubernetes.default.svc.cluster.local",
        "sub": "system:serviceaccount:shop:checkout",
        "iat": iat, "exp": exp,
        "kubernetes.io": {"namespace": "shop",
            "serviceaccount": {"name": "checkout", "uid": "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41"}},
    });
    if let Some(nbf) = nbf {
        claims["nbf"] = json!(nbf);
    }
    let mut header = Header::new(Algorithm::RS256);
    header.typ = None;
    header.kid = Some(kid);
    let pem = std::fs::read("testdata/keys/rsa.key.pem").unwrap();
    encode(&header, &claims, &EncodingKey::from_rsa_pem(&pem).unwrap()).unwrap()
}

/// Runs with `-o json`; returns (exit code, report).
fn run_json(cmd: &mut Command) -> (i32, Value) {
    let output = cmd.args(["-o", "json"]).output().unwrap();
    let code = output.status.code().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}), exit {code}: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (code, report)
}

fn clock<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no clock {name} in {report:#}"))
}

fn clock_from<'a>(report: &'a Value, name: &str, source: &str) -> &'a Value {
    report["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name && c["source"] == source)
        .unwrap_or_else(|| panic!("no {source} clock {name} in {report:#}"))
}

fn has_clock(report: &Value, name: &str) -> bool {
    report["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == name)
}

fn findings<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// The true offset lies within the reported interval.
fn assert_offset_near(clock: &Value, truth: f64) {
    let offset = clock["offset_seconds"].as_f64().unwrap();
    let uncertainty = clock["offset_uncertainty_seconds"].as_f64().unwrap();
    assert!(
        (offset - truth).abs() <= uncertainty,
        "{}: {offset} ± {uncertainty} does not contain {truth}",
        clock["name"]
    );
}

#[test]
fn incident_node_a_90s_behind_node_b_rejects_for_30s() {
    // Minted on node B's clock (= the reference here); node A runs 90 s behind.
    let token = sign(NOW, Some(NOW), NOW + 3600);
    let (code, report) = run_json(
        cmd()
            .args(["--clock", "node-a=-90s", "--clock", "node-b=+0s"])
            .write_stdin(token),
    );
    assert_eq!(code, 1);
    let a = clock(&report, "node-a");
    assert_eq!(a["verdict"], "not-yet-valid");
    assert_eq!(a["accepted_in_seconds"], 30);
    assert_eq!(a["remaining_seconds"], Value::Null);
    assert_eq!(a["reason"], "service account token is not valid yet");
    assert_eq!(a["time"], "2025-12-31T23:58:30Z");
    let b = clock(&report, "node-b");
    assert_eq!(b["verdict"], "accept");
    assert_eq!(b["remaining_seconds"], 3660);
    assert_eq!(b["accepted_in_seconds"], Value::Null);
    assert_eq!(report["max_pairwise_skew_seconds"], 90.0);
    let skew = findings(&report, "clock-skew");
    assert_eq!(skew.len(), 1);
    assert!(
        skew[0]["message"].as_str().unwrap().contains("node-a"),
        "{skew:?}"
    );
}

#[test]
fn incident_with_the_fixture_token_minted_90s_ahead_and_rfc3339_clocks() {
    // not-yet-valid.jwt was minted by an API server 90 s ahead of the reference:
    // that server (node-b) accepts, our clock (node A's view) waits 30 s.
    let (code, report) = run_json(
        cmd()
            .args(["-f", "testdata/tokens/not-yet-valid.jwt"])
            .args(["--clock", "node-b=2026-01-01T00:01:30Z"])
            .write_stdin(""),
    );
    assert_eq!(code, 1);
    let local = clock(&report, "local");
    assert_eq!(local["verdict"], "not-yet-valid");
    assert_eq!(local["accepted_in_seconds"], 30);
    assert_eq!(clock(&report, "node-b")["verdict"], "accept");
    assert_eq!(clock(&report, "node-b")["offset_seconds"], 90.0);
}

#[test]
fn boundaries_at_leeway_plus_and_minus_one_second() {
    // (which claim is at the boundary, clock offset, verdict, accepted_in)
    let cases: &[(&str, i64, &str, Option<i64>)] = &[
        ("nbf", -59, "accept", None),
        ("nbf", -60, "accept", None),
        ("nbf", -61, "not-yet-valid", Some(1)),
        ("iat", -59, "accept", None),
        ("iat", -60, "accept", None),
        ("iat", -61, "issued-in-future", Some(1)),
        ("exp", 3600 + 59, "accept", None),
        ("exp", 3600 + 60, "accept", None),
        ("exp", 3600 + 61, "expired", None),
    ];
    for &(claim, offset, verdict, accepted_in) in cases {
        // Without nbf, go-jose's iat check is the one that fires.
        let nbf = (claim != "iat").then_some(NOW);
        let token = sign(NOW, nbf, NOW + 3600);
        let (code, report) = run_json(
            cmd()
                .args(["--clock", &format!("x={offset:+}s")])
                .write_stdin(token),
        );
        let x = clock(&report, "x");
        assert_eq!(x["verdict"], verdict, "{claim} at {offset:+}");
        assert_eq!(
            x["accepted_in_seconds"].as_i64(),
            accepted_in,
            "{claim} at {offset:+}"
        );
        if verdict == "accept" {
            assert_eq!(
                x["remaining_seconds"],
                3660 - offset,
                "{claim} at {offset:+}"
            );
        }
        // Exit 1 on a rejection, or when the clock is more than the leeway away.
        let expect = i32::from(verdict != "accept" || offset.abs() > 60);
        assert_eq!(code, expect, "{claim} at {offset:+}");
    }
}

#[test]
fn node_leases_find_the_skewed_kubelet_flag_the_stale_one_and_skip_the_malformed_one() {
    let token = sign(NOW - 30, Some(NOW - 30), NOW + 3570);
    let (code, report) = run_json(
        cmd()
            .args(["--leases", "testdata/skew/node-leases.json"])
            .write_stdin(token),
    );
    assert_eq!(code, 1);
    // True offsets: the generator put node-b's kubelet 90 s ahead, the rest in step.
    let b = clock(&report, "node-b");
    assert_eq!(b["source"], "node-lease");
    assert_offset_near(b, 90.0);
    assert_offset_near(clock(&report, "node-a"), 0.0);
    assert_offset_near(clock(&report, "node-c"), 0.0);
    assert!(b["offset_uncertainty_seconds"].as_f64().unwrap() <= 7.0);
    // The kubelet-vs-API-server offset is exact to ±1 s, listed largest first.
    let offsets = findings(&report, "kubelet-offsets");
    let text = offsets[0]["message"].as_str().unwrap();
    assert!(text.contains("± 1 s): node-b +90 s, "), "{text}");
    let kubelet = findings(&report, "kubelet-clock-skew");
    assert_eq!(kubelet.len(), 1);
    assert!(kubelet[0]["message"].as_str().unwrap().contains("node-b"));
    let skew = findings(&report, "clock-skew");
    assert_eq!(skew.len(), 1);
    assert!(skew[0]["message"].as_str().unwrap().contains("node-b"));

    // node-d is down: flagged, not a clock, not skewed.
    assert!(!has_clock(&report, "node-d"));
    let down = findings(&report, "node-down");
    assert_eq!(down.len(), 1);
    assert_eq!(down[0]["severity"], "warning");
    assert!(down[0]["message"].as_str().unwrap().contains("node-d"));
    assert!(
        !skew[0]["message"].as_str().unwrap().contains("node-d"),
        "{skew:?}"
    );

    // node-e is malformed: skipped with a warning naming it.
    assert!(!has_clock(&report, "node-e"));
    let skipped = findings(&report, "item-skipped");
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["severity"], "warning");
    assert!(skipped[0]["message"].as_str().unwrap().contains("node-e"));
}

#[test]
fn apiserver_identity_leases_compare_ha_api_servers() {
    let (code, report) = run_json(
        cmd()
            .args(["--leases", "testdata/skew/leases-all.json"])
            .write_stdin(sign(NOW - 30, Some(NOW - 30), NOW + 3570)),
    );
    assert_eq!(code, 1);
    let cp1 = clock(&report, "apiserver/cp-1");
    let cp2 = clock(&report, "apiserver/cp-2");
    assert_eq!(cp1["source"], "apiserver-lease");
    assert_offset_near(cp1, 0.0);
    assert_offset_near(cp2, -90.0);
    let gap = cp1["offset_seconds"].as_f64().unwrap() - cp2["offset_seconds"].as_f64().unwrap();
    assert!((gap - 90.0).abs() <= 11.0, "{gap}");
    // cp-2 is 90 s behind: it still accepts a token minted 30 s ago on our clock…
    assert_eq!(cp2["verdict"], "accept");
    // …and leader-election Leases are skipped as information, not warnings.
    let skipped = findings(&report, "item-skipped");
    assert!(
        skipped.iter().any(|f| f["severity"] == "info"
            && f["message"].as_str().unwrap().contains("kube-scheduler"))
    );
}

#[test]
fn a_token_fresh_from_cp1_is_rejected_by_cp2_for_30s() {
    // The HA incident: minted on cp-1 (in step with the reference), validated by
    // cp-2 (90 s behind). cp-2's offset is known to ±5.5 s, so the wait is ~30 s.
    let (code, report) = run_json(
        cmd()
            .args(["--leases", "testdata/skew/apiserver-leases.json"])
            .write_stdin(sign(NOW, Some(NOW), NOW + 3600)),
    );
    assert_eq!(code, 1);
    let cp2 = clock(&report, "apiserver/cp-2");
    assert_eq!(cp2["verdict"], "not-yet-valid");
    let wait = cp2["accepted_in_seconds"].as_i64().unwrap();
    assert!((24..=36).contains(&wait), "{wait}");
    assert_eq!(clock(&report, "apiserver/cp-1")["verdict"], "accept");
}

#[test]
fn nodes_are_coarser_and_say_so() {
    let (code, report) = run_json(
        cmd()
            .args(["--nodes", "testdata/skew/nodes.json"])
            .write_stdin(sign(NOW - 30, Some(NOW - 30), NOW + 3570)),
    );
    assert_eq!(code, 1);
    let b = clock(&report, "node-b");
    assert_eq!(b["source"], "node-status");
    assert_offset_near(b, 90.0);
    assert_offset_near(clock(&report, "node-a"), 0.0);
    assert!(!has_clock(&report, "node-d"));
    assert!(
        findings(&report, "node-down")[0]["message"]
            .as_str()
            .unwrap()
            .contains("node-d")
    );
    assert!(
        findings(&report, "item-skipped")[0]["message"]
            .as_str()
            .unwrap()
            .contains("node-e")
    );
    let offsets = findings(&report, "kubelet-offsets");
    let text = offsets[0]["message"].as_str().unwrap();
    assert!(text.contains("± 2 s): node-b +90 s"), "{text}");
    let coarse = findings(&report, "coarse-clock");
    assert_eq!(coarse.len(), 1);
    assert!(coarse[0]["message"].as_str().unwrap().contains("coarse"));
}

#[test]
fn leases_and_nodes_together_place_nodes_through_the_lease_stamps() {
    let (_, report) = run_json(
        cmd()
            .args(["--leases", "testdata/skew/node-leases.json"])
            .args(["--nodes", "testdata/skew/nodes.json"])
            .write_stdin(sign(NOW - 30, Some(NOW - 30), NOW + 3570)),
    );
    for (name, truth) in [("node-a", 0.0), ("node-b", 90.0), ("node-c", 0.0)] {
        assert_offset_near(clock_from(&report, name, "node-lease"), truth);
        assert_offset_near(clock_from(&report, name, "node-status"), truth);
    }
    // The same node through two sources is one clock: the largest pair is ~90 s.
    let max = report["max_pairwise_skew_seconds"].as_f64().unwrap();
    assert!((max - 90.0).abs() < 3.0, "{max}");
}

#[test]
fn leases_without_managed_fields_fall_back_to_renew_time_age() {
    let (_, report) = run_json(
        cmd()
            .args([
                "--leases",
                "testdata/skew/node-leases-no-managed-fields.json",
            ])
            .write_stdin(sign(NOW - 30, Some(NOW - 30), NOW + 3570)),
    );
    assert_offset_near(clock(&report, "node-b"), 90.0);
    assert_eq!(clock(&report, "node-a")["offset_uncertainty_seconds"], 5.5);
    assert_eq!(findings(&report, "no-managed-fields").len(), 1);
}

#[test]
fn leases_on_stdin_without_a_token_measure_clocks_only() {
    let leases = std::fs::read_to_string("testdata/skew/node-leases.json").unwrap();
    let (code, report) = run_json(cmd().args(["--leases", "-"]).write_stdin(leases));
    assert_eq!(code, 1, "node-b is 90 s from the others");
    assert!(
        report["clocks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["verdict"].is_null() && c["accepted_in_seconds"].is_null())
    );
    assert_eq!(findings(&report, "no-token").len(), 1);
}

#[test]
fn only_one_input_may_read_stdin() {
    for args in [
        &["--leases", "-", "--nodes", "-"][..],
        &["-f", "-", "--leases", "-"][..],
        &["-f", "-", "--nodes", "-"][..],
    ] {
        let output = cmd().args(args).write_stdin("{}").output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("stdin can feed only one input"), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn malformed_inputs_are_one_line_errors_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let cases = [
        (
            vec!["--leases".to_owned(), write("trunc.json", "{\"items\": [")],
            "is not JSON",
        ),
        (
            vec![
                "--leases".to_owned(),
                write("pod.json", r#"{"kind":"Pod"}"#),
            ],
            "kubectl get leases",
        ),
        (
            vec!["--nodes".to_owned(), write("arr.json", "[1, 2]")],
            "kubectl get nodes",
        ),
        (
            vec!["--nodes".to_owned(), "/nonexistent/nodes.json".to_owned()],
            "cannot read file",
        ),
        (vec!["--clock".to_owned(), "node-a".to_owned()], "NAME=TIME"),
        (
            vec![
                "--clock".to_owned(),
                "a=+1s".to_owned(),
                "--clock".to_owned(),
                "a=+2s".to_owned(),
            ],
            "given twice",
        ),
    ];
    for (args, fragment) in cases {
        let output = cmd()
            .args(&args)
            .write_stdin(sign(NOW, Some(NOW), NOW + 3600))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
        if !fragment.contains("NAME") {
            // clap's own usage errors span lines; ours are one line.
            assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        }
    }
}

#[test]
fn with_no_source_a_fresh_tokens_iat_places_the_issuer() {
    // Issued "now" by a server 90 s ahead of us.
    let (code, report) = run_json(cmd().write_stdin(sign(NOW + 90, Some(NOW + 90), NOW + 3690)));
    assert_eq!(code, 1);
    let issuer = clock(&report, "token issuer");
    assert_eq!(issuer["source"], "token-iat");
    assert_offset_near(issuer, 90.0);
    assert_eq!(issuer["verdict"], "accept");
    assert_eq!(clock(&report, "local")["verdict"], "not-yet-valid");
    let note = findings(&report, "iat-estimate");
    assert!(note[0]["message"].as_str().unwrap().contains("seconds ago"));

    // An hour-old token says nothing about clocks.
    let (code, report) = run_json(cmd().write_stdin(sign(NOW - 3600, Some(NOW - 3600), NOW + 60)));
    assert_eq!(code, 0);
    assert!(!has_clock(&report, "token issuer"));
    assert!(
        findings(&report, "iat-estimate")[0]["message"]
            .as_str()
            .unwrap()
            .contains("too old")
    );
}

#[test]
fn table_fits_80_columns_and_draws_the_timeline() {
    let token = sign(NOW, Some(NOW), NOW + 3600);
    let output = cmd()
        .args(["--clock", "user-a=-90s", "--clock", "user-b=+0s"])
        .args(["--leases", "testdata/skew/leases-all.json"])
        .write_stdin(token)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    assert!(!text.contains('\u{1b}'), "no colour when not a terminal");
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("Timeline:"))
        .find(|l| l.starts_with("user-a "))
        .unwrap();
    // user-a's "now" is left of the window: an X among the dots before '['.
    let (x, open) = (row.find('X').unwrap(), row.find('[').unwrap());
    assert!(x < open, "{row}");
    assert!(text.contains("REJECT nbf"), "{text}");
    assert!(text.contains("REJECT nbf  in 30s"), "{text}");
}

#[test]
fn a_snapshot_older_than_the_reference_says_so() {
    // The same file judged an hour later: every Lease is stale.
    let output = crate::support::satoken()
        .env("KUBECTL_SATOKEN_SA_DIR", NO_SA_DIR)
        .args(["skew", "--now", "2026-01-01T01:00:00Z", "-o", "json"])
        .args(["--leases", "testdata/skew/node-leases.json"])
        .write_stdin("")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(findings(&report, "snapshot-old").len(), 1);
    assert_eq!(findings(&report, "node-down").len(), 4);
    assert_eq!(report["clocks"].as_array().unwrap().len(), 1);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn healthy_clocks_exit_0() {
    let (code, report) = run_json(
        cmd()
            .args(["--clock", "a=+5s", "--clock", "b=-5s"])
            .write_stdin(sign(NOW - 30, Some(NOW - 30), NOW + 3570)),
    );
    assert_eq!(code, 0);
    assert_eq!(report["max_pairwise_skew_seconds"], 10.0);
    assert_eq!(report["leeway_seconds"], 60);
    assert_eq!(report["evaluated_at"], NOW_TEXT);
}
