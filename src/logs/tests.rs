use super::*;
use crate::diagnosis::reasons::parse_auth_error;

/// What settled, as `name` alone or `reason+request join`.
fn words(lanes: &mut Lanes<&str>) -> Vec<String> {
    let word = |s: Settled<&str>| match s {
        Settled::Alone(x) => x.to_owned(),
        Settled::Joined {
            reason,
            request,
            join,
        } => format!("{reason}+{request} {}", join.as_str()),
    };
    lanes.settled.drain(..).map(word).collect()
}

/// Settles `lines` of one lane, `(reason?, at in ms, audit ID, name)`.
fn run(lines: &[(bool, i64, Option<&str>, &'static str)]) -> Vec<String> {
    let mut lanes = Lanes::default();
    let lane = lane(0, None);
    for &(reason, ms, id, name) in lines {
        if reason {
            lanes.reason(&lane, ms * 1000, id, name);
        } else {
            lanes.request(&lane, ms * 1000, id, name);
        }
    }
    lanes.finish();
    words(&mut lanes)
}

#[test]
fn a_401_takes_the_oldest_reason_in_reach_as_a_guess_and_its_own_exactly() {
    let got = run(&[
        (true, 0, None, "r1"),
        (true, 100, None, "r2"),
        (false, 150, Some("a"), "q1"),
        (false, 200, Some("b"), "q2"),
        // No reason waits: alone.
        (false, 300, Some("c"), "q3"),
        // Past its window: alone, and the next 401 takes none.
        (true, 400, None, "r3"),
        (false, 2_500, None, "q4"),
        // Named: only its own request takes it.
        (true, 3_000, Some("x"), "r4"),
        (false, 3_100, Some("y"), "q5"),
        (false, 3_200, Some("x"), "q6"),
    ]);
    assert_eq!(
        got,
        [
            "r1+q1 guess",
            "r2+q2 guess",
            "q3",
            "r3",
            "q4",
            "q5",
            "r4+q6 exact",
        ]
    );
}

#[test]
fn one_instant_for_every_line_stays_linear_and_joins_each_once() {
    // Every line at one time: each 401 takes the reason before it.
    let lines: Vec<_> = (0..3 * MAX_PENDING)
        .flat_map(|_| [(true, 0, None, "r"), (false, 0, None, "q")])
        .collect();
    let got = run(&lines);
    assert_eq!(got.len(), 3 * MAX_PENDING);
    assert!(got.iter().all(|g| g == "r+q guess"));
}

#[test]
fn lanes_are_apart_and_waiting_lines_are_bounded() {
    let mut lanes = Lanes::default();
    let (a, b) = (lane(0, Some(b"pod/a/c")), lane(1, None));
    lanes.reason(&a, 100_000_000, None, "r1");
    // b's clock is its own: a's later time settles nothing of b's.
    lanes.reason(&b, 0, None, "r2");
    lanes.request(&b, 10, None, "q2");
    lanes.request(&a, 100_000_010, None, "q1");
    assert_eq!(words(&mut lanes), ["r2+q2 guess", "r1+q1 guess"]);
    for _ in 0..MAX_PENDING + 10 {
        lanes.reason(&a, 100_000_100, None, "r");
    }
    // Past MAX_PENDING waiting, those waiting settle alone.
    assert_eq!(lanes.crowded, MAX_PENDING as u64);
    assert_eq!(words(&mut lanes).len(), MAX_PENDING);
}

#[test]
fn the_index_hashes_its_sets_and_joins_by_audit_id_then_by_time() {
    let at = |s: &str| crate::timefmt::parse_instant(s).unwrap().timestamp_micros();
    let mut index = ReasonIndex::default();
    let expired = "[invalid bearer token, service account token has expired]";
    index.add(
        Some(at("2026-01-01T10:00:00.1Z")),
        None,
        parse_auth_error(expired),
    );
    index.add(
        Some(at("2026-01-01T10:00:05Z")),
        Some("a-1"),
        parse_auth_error(expired),
    );
    let gone = r#"[invalid bearer token, serviceaccounts "x" not found]"#;
    index.add(
        Some(at("2026-01-01T10:00:05.5Z")),
        None,
        parse_auth_error(gone),
    );
    index.add(None, None, parse_auth_error(expired));
    index.finish();
    assert_eq!((index.failures, index.undated, index.sets.len()), (4, 1, 2));
    let join = |t: &str, id| index.join(at(t), id);
    assert_eq!(join("2026-01-01T10:00:00.5Z", None), (Join::Guess, Some(0)));
    assert_eq!(join("2026-01-01T10:00:05.2Z", None), (Join::Guess, None));
    assert_eq!(
        join("2026-01-01T10:00:05.2Z", Some("a-1")),
        (Join::Exact, Some(0))
    );
    assert_eq!(join("2026-01-01T11:00:00Z", None), (Join::None, None));
    // Past MAX_SETS distinct sets, further ones are dropped, not compared.
    for i in 0..MAX_SETS + 5 {
        let reasons = format!(r#"[invalid bearer token, serviceaccounts "sa-{i}" not found]"#);
        index.add(Some(0), None, parse_auth_error(&reasons));
    }
    assert_eq!(index.sets.len(), MAX_SETS);
    assert_eq!(index.dropped, 7);
}
