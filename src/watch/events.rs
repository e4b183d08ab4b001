//! Pure: the states `watch` logs a line for when they change, and the line.
//!
//! Each cycle is reduced to a [`State`]: per subject (a replica, the token, the
//! discovery) and aspect, a value from a short vocabulary. A line is written
//! when a value differs from the cycle before, or, for a subject seen for the
//! first time, when it is not the aspect's healthy value: nothing while all is
//! well. Lines carry fingerprints and numbers, never a token.

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde_json::{Map, Value, json};

use super::cycle::Cycle;
use super::measure::{AnswerClass, TokenStatus};
use crate::window::{self, TimeClaims};

/// One aspect's value and what to say about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub value: &'static str,
    /// Extra fields for the line (numbers, instants, a fingerprint).
    pub fields: Map<String, Value>,
}

/// Subject and aspect -> value.
pub type State = BTreeMap<(String, &'static str), Observed>;

/// The healthy value of each aspect (a first sighting in it says nothing).
fn healthy(aspect: &str) -> &'static str {
    match aspect {
        "clock" => "within-half-leeway",
        "answer" => AnswerClass::Ok.as_str(),
        "token-valid" => "valid",
        "file" => "readable",
        "refresh" => "on-time",
        "warnafter" => "before",
        "discovery" => "ok",
        _ => "",
    }
}

pub fn observed(value: &'static str, fields: Value) -> Observed {
    Observed {
        value,
        fields: match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        },
    }
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The token as read this cycle, for [`state`].
#[derive(Debug, Clone, Copy)]
pub enum TokenRead<'a> {
    Read {
        status: &'a TokenStatus,
        times: TimeClaims,
    },
    /// Why not (sanitised; never the file's content).
    Unreadable(&'a str),
}

/// The state a cycle shows. `leeway` sets the clock threshold (half of it).
pub fn state(cycle: &Cycle, token: TokenRead<'_>, leeway: TimeDelta) -> State {
    let mut s = State::new();
    let discovery = match &cycle.discovery.error {
        Some(e) => observed("failing", json!({"error": e})),
        None => observed("ok", json!({})),
    };
    s.insert(("endpoints".to_owned(), "discovery"), discovery);
    for r in &cycle.replicas {
        let key = |aspect| (r.replica.clone(), aspect);
        let clock = match &r.offset {
            Some(o) => observed(
                if o.estimate().abs() > leeway / 2 {
                    "beyond-half-leeway"
                } else {
                    "within-half-leeway"
                },
                json!({"offset_seconds": o.estimate_seconds(),
                       "uncertainty_seconds": o.uncertainty_seconds()}),
            ),
            None => observed("unknown", json!({})),
        };
        s.insert(key("clock"), clock);
        s.insert(key("answer"), observed(r.answer.as_str(), json!({})));
        if let (Some(valid), Some(o), TokenRead::Read { times, .. }) = (r.valid, &r.offset, token) {
            let replica_time = window::plus(cycle.started_at, o.estimate());
            let (start, end) = window::window(times, leeway);
            let mut fields = json!({"replica_time": rfc3339(replica_time)});
            if let Some(start) = start {
                fields["accepted_from"] = json!(rfc3339(start));
            }
            if let Some(end) = end {
                fields["accepted_until"] = json!(rfc3339(end));
            }
            s.insert(
                key("token-valid"),
                observed(if valid { "valid" } else { "invalid" }, fields),
            );
        }
    }
    token_state(&mut s, token);
    s
}

/// The token's aspects of the state (all a cycle shows when the token is
/// unreadable, the replicas then not measured).
pub fn token_state(s: &mut State, token: TokenRead<'_>) {
    let subject = || "token".to_owned();
    match token {
        TokenRead::Read { status, .. } => {
            let print = json!({"fingerprint": status.fingerprint});
            s.insert((subject(), "file"), observed("readable", print.clone()));
            let refresh = if status.refresh_overdue {
                "overdue"
            } else {
                "on-time"
            };
            s.insert((subject(), "refresh"), observed(refresh, print.clone()));
            let warn = if status.past_warn_after {
                "past"
            } else {
                "before"
            };
            s.insert((subject(), "warnafter"), observed(warn, print));
        }
        TokenRead::Unreadable(why) => {
            s.insert(
                (subject(), "file"),
                observed("unreadable", json!({"error": why})),
            );
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub subject: String,
    pub aspect: &'static str,
    pub from: Option<&'static str>,
    pub to: Observed,
}

/// What changed from `before` to `after` (see the module docs).
pub fn changes(before: &State, after: &State) -> Vec<Change> {
    after
        .iter()
        .filter_map(|((subject, aspect), to)| {
            let from = before.get(&(subject.clone(), *aspect)).map(|o| o.value);
            let changed = match from {
                Some(from) => from != to.value,
                None => to.value != healthy(aspect),
            };
            changed.then(|| Change {
                subject: subject.clone(),
                aspect,
                from,
                to: to.clone(),
            })
        })
        .collect()
}

/// The line: JSON, or text for a terminal.
pub fn line(change: &Change, at: DateTime<Utc>, text: bool) -> String {
    if text {
        let fields: Vec<String> = change
            .to
            .fields
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect();
        return format!(
            "{} {}: {} {} -> {}{}",
            rfc3339(at),
            change.subject,
            change.aspect,
            change.from.unwrap_or("(new)"),
            change.to.value,
            if fields.is_empty() {
                String::new()
            } else {
                format!(" ({})", fields.join(", "))
            }
        );
    }
    let mut object = json!({"time": rfc3339(at), "subject": change.subject,
        "aspect": change.aspect, "from": change.from, "to": change.to.value});
    if let Some(o) = object.as_object_mut() {
        o.extend(change.to.fields.clone());
    }
    object.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::offset::OffsetInterval;
    use crate::watch::cycle::Discovery;
    use crate::watch::measure::ReplicaMeasurement;

    fn cycle(offset_s: i64, answer: AnswerClass) -> Cycle {
        Cycle {
            started_at: window::at_seconds(1_767_225_600),
            discovery: Discovery::default(),
            replicas: vec![ReplicaMeasurement {
                replica: "https://10.0.0.2:6443".into(),
                offset: Some(OffsetInterval {
                    low: TimeDelta::seconds(offset_s),
                    high: TimeDelta::seconds(offset_s),
                }),
                round_trip: None,
                answer,
                valid: Some(true),
            }],
        }
    }

    #[test]
    fn quiet_while_well_then_one_line_per_change() {
        let status = TokenStatus {
            fingerprint: "1a2b3c4d".into(),
            seconds_to_expiry: Some(100.0),
            past_warn_after: false,
            refresh_overdue: false,
            changed: false,
        };
        let token = TokenRead::Read {
            status: &status,
            times: TimeClaims::default(),
        };
        let leeway = TimeDelta::seconds(60);
        let well = state(&cycle(1, AnswerClass::Ok), token, leeway);
        assert_eq!(changes(&State::new(), &well), []);
        assert_eq!(changes(&well, &well), []);
        let bad = state(&cycle(31, AnswerClass::Unauthorized), token, leeway);
        let got = changes(&well, &bad);
        let aspects: Vec<_> = got.iter().map(|c| (c.aspect, c.to.value)).collect();
        assert_eq!(
            aspects,
            [("answer", "401"), ("clock", "beyond-half-leeway")]
        );
        let text = line(&got[1], window::at_seconds(0), false);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["from"], "within-half-leeway");
        assert_eq!(v["offset_seconds"], 31.0);
        let text = line(&got[0], window::at_seconds(0), true);
        assert!(
            text.ends_with("https://10.0.0.2:6443: answer ok -> 401"),
            "{text}"
        );
        // A token that cannot be read is news even on the first cycle.
        let first = state(
            &cycle(0, AnswerClass::Ok),
            TokenRead::Unreadable("gone"),
            leeway,
        );
        let got = changes(&State::new(), &first);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].to.value, "unreadable");
    }
}
