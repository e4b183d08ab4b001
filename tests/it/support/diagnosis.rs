//! Reading a diagnosis from `-o json` (probe, classify, doctor share its shape).

use serde_json::Value;

/// The cause, then every alternative's.
pub fn causes(d: &Value) -> Vec<String> {
    candidates(d)
        .iter()
        .map(|c| c["cause"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The top candidate (its fields at the top level) and the alternatives.
pub fn candidates(d: &Value) -> Vec<Value> {
    let mut out = vec![serde_json::json!({
        "cause": d["cause"],
        "confidence": d["confidence"],
        "support": d["support"],
        "next": d["next"],
    })];
    out.extend(d["alternatives"].as_array().cloned().unwrap_or_default());
    out
}

/// One candidate by cause.
pub fn candidate(d: &Value, cause: &str) -> Option<Value> {
    candidates(d).into_iter().find(|c| c["cause"] == cause)
}

/// Every support and note text, one per line.
pub fn evidence(d: &Value) -> String {
    let texts = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|s| match s["server"].as_str() {
                        Some(server) => format!("{server}: {}", s["text"].as_str().unwrap_or("")),
                        None => s["text"].as_str().unwrap_or("").to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut lines = texts(&d["support"]);
    lines.extend(texts(&d["notes"]));
    lines.join("\n")
}

/// The shell line of every next step that has a command.
pub fn commands(candidate: &Value) -> Vec<String> {
    candidate["next"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n["command"]["shell"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
