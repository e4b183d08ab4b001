//! Unit tests of `crate::skew::sources`.

use super::*;
use crate::skew::tests::{L, now};
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

fn node_lease(name: &str, renew: &str) -> Value {
    json!({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": "kube-node-lease"},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renew},
    })
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
    let mut missing_renew = node_lease("partial", "x");
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
        node_lease("nofields", "2025-12-31T23:59:58.000000Z"),
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
