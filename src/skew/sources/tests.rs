//! Unit tests of `crate::skew::sources`.

use super::*;
use crate::skew::tests::{L, now, token};
use crate::timefmt::parse_instant;
use serde_json::json;

fn t(s: &str) -> DateTime<Utc> {
    parse_instant(s).unwrap()
}

fn reading<'a>(obs: &'a Observation, name: &str) -> &'a ClockReading {
    obs.readings
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no clock {name}"))
}

fn node_lease(name: &str, renew: &str, stamp: Option<&str>) -> Value {
    let mut lease = json!({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": "kube-node-lease"},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renew},
    });
    if let Some(stamp) = stamp {
        lease["metadata"]["managedFields"] = json!([{
            "apiVersion": "coordination.k8s.io/v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:renewTime": {}}},
            "manager": "kubelet", "operation": "Update", "time": stamp,
        }]);
    }
    lease
}

fn list(items: Vec<Value>) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

#[test]
fn clock_flags() {
    for (text, want) in [
        ("node-a=-1m30s", ClockValue::Offset(TimeDelta::seconds(-90))),
        (
            "b=2026-01-01T00:01:30Z",
            ClockValue::At(t("2026-01-01T00:01:30Z")),
        ),
        ("c=90s", ClockValue::Offset(TimeDelta::seconds(90))),
    ] {
        assert_eq!(parse_clock_spec(text).unwrap().value, want, "{text}");
    }
    for bad in ["node-a", "=+5s", "a=", "a=soon", "a=2026-13-01T00:00:00Z"] {
        assert!(parse_clock_spec(bad).is_err(), "{bad}");
    }
    let specs = [
        parse_clock_spec("a=+90s").unwrap(),
        parse_clock_spec("b=2025-12-31T23:58:30Z").unwrap(),
    ];
    let r = from_specs(&specs, now()).unwrap();
    assert_eq!(r[0].offset, TimeDelta::seconds(90));
    assert_eq!(r[1].offset, TimeDelta::seconds(-90));
    let twice = [specs[0].clone(), specs[0].clone()];
    assert_eq!(
        from_specs(&twice, now()),
        Err(SourceError::DuplicateClock("a".into()))
    );
    let local = [parse_clock_spec("local=+1s").unwrap()];
    assert!(from_specs(&local, now()).is_err());
    // The flag refuses such an offset; a reading built another way is
    // still range-checked.
    assert!(
        parse_clock_spec("far=+200000000y")
            .unwrap_err()
            .contains("100-year limit")
    );
    let far = [ClockSpec {
        name: "far".into(),
        value: ClockValue::Offset(TimeDelta::days(200_000_000 * 365)),
    }];
    assert_eq!(
        from_specs(&far, now()),
        Err(SourceError::OffsetOutOfRange("far".into()))
    );
}

#[test]
fn lease_offsets_skew_and_staleness() {
    let doc = list(vec![
        node_lease(
            "ok",
            "2025-12-31T23:59:56.300000Z",
            Some("2025-12-31T23:59:56Z"),
        ),
        node_lease(
            "ok-2",
            "2025-12-31T23:59:52.700000Z",
            Some("2025-12-31T23:59:52Z"),
        ),
        // Kubelet 90 s ahead of the API server.
        node_lease(
            "fast",
            "2026-01-01T00:01:27.600000Z",
            Some("2025-12-31T23:59:57Z"),
        ),
        // Down for ten minutes: both stamps are old.
        node_lease(
            "down",
            "2025-12-31T23:50:00.000000Z",
            Some("2025-12-31T23:50:00Z"),
        ),
    ]);
    let obs = from_leases(&doc, "leases", now(), L).unwrap();
    let fast = reading(&obs, "fast");
    let ok = reading(&obs, "ok");
    // kubelet − API server: fast 90.6 − 0.5 = +90.1 s, ok 0.3 − 0.5 = −0.2 s.
    assert_eq!(fast.offset - ok.offset, TimeDelta::milliseconds(90_300));
    assert_eq!(fast.uncertainty, TimeDelta::seconds(7));
    assert!(obs.readings.iter().all(|r| r.name != "down"));
    let codes: Vec<Code> = obs.findings.iter().map(|f| f.code).collect();
    assert!(codes.contains(&Code::NodeDown));
    assert!(codes.contains(&Code::KubeletClockSkew));
    let offsets = obs
        .findings
        .iter()
        .find(|f| f.code == Code::KubeletOffsets)
        .unwrap();
    assert!(
        offsets.message.ends_with(
            "(spec.renewTime vs managedFields time, ±1s): fast +90.1s, ok -0.2s, ok-2 +0.2s"
        ),
        "{}",
        offsets.message
    );
    let apiserver = obs.apiserver.unwrap();
    assert_eq!(apiserver.uncertainty, TimeDelta::milliseconds(6_000));
    // Median stamp 23:59:56 (+5.5 s for the truncated second and half an interval).
    assert_eq!(apiserver.offset, TimeDelta::milliseconds(1_500));
}

#[test]
fn apiserver_identity_leases_are_named_after_their_host() {
    let lease = |host: &str, renew: &str| {
        json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": format!("apiserver-{host}"), "namespace": "kube-system",
                "labels": {IDENTITY_LABEL: IDENTITY_VALUE, HOSTNAME_LABEL: host}},
            "spec": {"holderIdentity": format!("apiserver-{host}_0000"), "leaseDurationSeconds": 3600, "renewTime": renew},
        })
    };
    let doc = list(vec![
        lease("cp-1", "2025-12-31T23:59:55.000000Z"),
        lease("cp-2", "2025-12-31T23:58:25.000000Z"),
    ]);
    let obs = from_leases(&doc, "leases", now(), L).unwrap();
    let a = reading(&obs, "apiserver/cp-1");
    let b = reading(&obs, "apiserver/cp-2");
    assert_eq!(a.offset, TimeDelta::zero());
    assert_eq!(a.offset - b.offset, TimeDelta::seconds(90));
    assert_eq!(a.uncertainty, TimeDelta::milliseconds(5_500));
    assert_eq!(obs.apiserver, None);
}

#[test]
fn bad_items_are_skipped_bad_documents_are_errors() {
    let mut missing_renew = node_lease("partial", "x", None);
    missing_renew["spec"]
        .as_object_mut()
        .unwrap()
        .remove("renewTime");
    let leader = json!({"kind": "Lease", "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
            "spec": {"renewTime": "2026-01-01T00:00:00.000000Z"}});
    let doc = list(vec![
        json!(42),
        json!({"kind": "Pod", "metadata": {"name": "p"}}),
        missing_renew,
        leader,
        node_lease("nofields", "2025-12-31T23:59:58.000000Z", None),
    ]);
    let obs = from_leases(&doc, "leases", now(), L).unwrap();
    assert_eq!(obs.readings.len(), 1);
    assert_eq!(
        reading(&obs, "nofields").uncertainty,
        TimeDelta::milliseconds(5_500)
    );
    let skipped = obs
        .findings
        .iter()
        .filter(|f| f.code == Code::ItemSkipped)
        .count();
    assert_eq!(skipped, 4, "{:#?}", obs.findings);
    assert!(obs.findings.iter().any(|f| f.code == Code::NoManagedFields));

    for (text, fragment) in [
        ("{", "is not JSON"),
        ("[]", "found an array"),
        (r#"{"kind":"Pod"}"#, "kind \"Pod\""),
        (r#"{"items":{}}"#, "items is an object"),
    ] {
        let err = from_leases(text, "file l.json", now(), L).unwrap_err();
        assert!(err.to_string().contains(fragment), "{text}: {err}");
        assert!(!err.to_string().contains('\n'), "{text}: {err}");
    }
}

#[test]
fn nodes_heartbeat_against_managed_fields() {
    let node = |name: &str, heartbeat: &str, stamp: &str, ready: &str| {
        json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "managedFields": [
                {"manager": "kubelet", "operation": "Update", "subresource": "status",
                 "time": stamp, "fieldsV1": {"f:status": {}}},
                {"manager": "kubelet", "operation": "Update", "time": "2025-01-01T00:00:00Z",
                 "fieldsV1": {"f:metadata": {}}}]},
            "status": {"conditions": [
                {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": heartbeat},
                {"type": "Ready", "status": ready, "lastHeartbeatTime": heartbeat}]},
        })
    };
    let doc = list(vec![
        node("a", "2025-12-31T23:58:00Z", "2025-12-31T23:58:00Z", "True"),
        node("b", "2025-12-31T23:59:30Z", "2025-12-31T23:58:00Z", "True"),
        node(
            "gone",
            "2025-12-31T23:59:00Z",
            "2025-12-31T23:59:00Z",
            "Unknown",
        ),
    ]);
    let obs = from_nodes(&doc, "nodes", now(), L, None).unwrap();
    assert_eq!(reading(&obs, "a").offset, TimeDelta::zero());
    assert_eq!(reading(&obs, "b").offset, TimeDelta::seconds(90));
    assert_eq!(reading(&obs, "b").uncertainty, TimeDelta::seconds(2));
    assert!(obs.readings.iter().all(|r| r.name != "gone"));
    assert!(obs.findings.iter().any(|f| f.code == Code::CoarseClock));
    assert!(obs.findings.iter().any(|f| f.code == Code::NodeDown));
    let base = Estimate {
        offset: TimeDelta::seconds(3),
        uncertainty: TimeDelta::seconds(6),
    };
    let obs = from_nodes(&doc, "nodes", now(), L, Some(base)).unwrap();
    assert_eq!(reading(&obs, "a").offset, TimeDelta::seconds(3));
    assert_eq!(reading(&obs, "a").uncertainty, TimeDelta::seconds(8));
}

#[test]
fn iat_estimate_only_for_a_fresh_token() {
    let (r, _) = from_token_iat(&token(90, true), now(), L);
    assert_eq!(r.unwrap().offset, TimeDelta::milliseconds(90_500));
    let (r, _) = from_token_iat(&token(-2, true), now(), L);
    assert_eq!(r.unwrap().offset, TimeDelta::milliseconds(-1_500));
    let (r, f) = from_token_iat(&token(-600, true), now(), L);
    assert!(r.is_none());
    assert!(f.message.contains("too old"), "{}", f.message);
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// JSON built from the keys and values these parsers look at, so that
    /// the random items get deep enough to matter.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop_oneof![
                Just("Lease"),
                Just("Node"),
                Just("kube-node-lease"),
                Just("kube-system"),
                Just("kube-apiserver"),
                Just("kubelet"),
                Just("Update"),
                Just("status"),
                Just("Unknown"),
                Just("Ready"),
                Just("2026-01-01T00:00:00.5Z"),
                Just("0001-01-01T00:00:00Z"),
                Just("9999-12-31T23:59:59Z"),
                Just("yesterday"),
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            let keys = prop_oneof![
                Just("kind"),
                Just("metadata"),
                Just("name"),
                Just("namespace"),
                Just("labels"),
                Just(IDENTITY_LABEL),
                Just("managedFields"),
                Just("manager"),
                Just("operation"),
                Just("subresource"),
                Just("time"),
                Just("spec"),
                Just("renewTime"),
                Just("holderIdentity"),
                Just("leaseDurationSeconds"),
                Just("status"),
                Just("conditions"),
                Just("type"),
                Just("lastHeartbeatTime"),
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(keys, inner, 0..6).prop_map(|m| {
                    Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn random_items_are_skipped_never_a_crash(items in prop::collection::vec(value(), 0..8)) {
            let doc = json!({"kind": "List", "items": items}).to_string();
            let leases = from_leases(&doc, "l", now(), L).unwrap();
            let nodes = from_nodes(&doc, "n", now(), L, leases.apiserver).unwrap();
            let readings: Vec<_> = leases.readings.into_iter().chain(nodes.readings).collect();
            let report = crate::skew::analyse(None, readings, vec![], now(), L);
            prop_assert!(!report.clocks.is_empty());
        }
    }
}

#[test]
fn a_clock_value_holding_a_token_is_quoted_by_no_part() {
    let signature = "OEOqyNbpbtyR8itQ9hZgHNjwG0ugEfIRP0coTaHmGDkWAGsqtPP3f85A-VU4JCAp4mQ=";
    let value = format!(
        "/eyAiYWxnIjogIlJTMjU2IiwgImtpZCI6ICJrIiB9.eyJleHAiOjE3NjcyMjkyMDAsImlzcyI6Imh0dHBzOi8vaXNzdWVyLmV4YW1wbGUiLCJzdWIiOiIifQ==.{signature}|"
    );
    let e = parse_clock_spec(&value).unwrap_err();
    assert!(!e.contains("OEOqyNbp"), "{e}");
    assert!(e.contains("looks like a token"), "{e}");
    // An ordinary mistake is still quoted.
    assert!(
        parse_clock_spec("node-a=yesterday")
            .unwrap_err()
            .contains("yesterday")
    );
}
