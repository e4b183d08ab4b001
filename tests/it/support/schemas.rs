//! The JSON Schemas of every `-o json` document, generated from the wire types
//! themselves (schemars, draft 2020-12): docs/schema/<subcommand>.schema.json
//! is `all`'s output, and a test fails when the checked-in files differ
//! (`SATOKEN_UPDATE_SCHEMAS=1 cargo nextest run --test it schema::` rewrites
//! them). Descriptions are the wire types' doc comments; string codes are the
//! `enum` of their Rust type's codes (`satoken::wire::string_codes`).
//!
//! Each file stands alone (its own `$defs`, no reference to another file), so
//! a consumer validates with one file and no resolver. The shape of every
//! object is closed (`additionalProperties: false`), and a property is
//! required unless the tool may leave it out (`decode`'s `line`): absent and
//! null are different things.

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use satoken::report::audit::AuditJson;
use satoken::report::classify::ClassifyJson;
use satoken::report::classify_log::{ClassifyLogJson, LogEventJson};
use satoken::report::doctor::DoctorJson;
use satoken::report::explain::{CauseListJson, CodeJson, ExplainJson, WordingListJson};
use satoken::report::json::{DecodeJson, LineErrorJson};
use satoken::report::probe::ProbeJson;
use satoken::report::skew::json::SkewJson;
use satoken::report::verify::VerifyJson;

/// The schema version in every `$id`: it changes when a document changes
/// incompatibly (a field removed or renamed, a code's meaning changed).
pub const VERSION: u32 = 2;

/// Where the `$id`s point (identifiers; nothing is fetched from there).
const BASE: &str = "https://kubectl-satoken.dev/schema";

/// One line of `decode -o json`: a token, or a batch line that is not one.
// Never built: these two enums only name the unions for their schemas.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, clippy::large_enum_variant)]
enum DecodeLine<'a> {
    Token(DecodeJson<'a>),
    Error(LineErrorJson<'a>),
}

/// `explain -o json`: one cause, the list of every cause, another code the
/// tool prints (an answer, a finding, a token kind), or `--wordings`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ExplainDocument {
    Cause(ExplainJson),
    List(CauseListJson),
    Code(CodeJson),
    Wordings(WordingListJson),
}

/// Every schema file: (subcommand, schema), the file being
/// `docs/schema/<subcommand>.schema.json`; `classify` of a log has two, its
/// report (`classify-log`) and each line of `--events` (`classify-events`).
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        document::<DecodeLine>("decode"),
        document::<SkewJson>("skew"),
        document::<VerifyJson>("verify"),
        document::<ProbeJson>("probe"),
        document::<ClassifyJson>("classify"),
        document::<ClassifyLogJson>("classify-log"),
        document::<LogEventJson>("classify-events"),
        document::<AuditJson>("audit"),
        document::<DoctorJson>("doctor"),
        document::<ExplainDocument>("explain"),
    ]
}

/// The file name of a subcommand's schema.
pub fn file_name(subcommand: &str) -> String {
    format!("{subcommand}.schema.json")
}

/// The `$id` of a subcommand's schema.
pub fn id(subcommand: &str) -> String {
    format!("{BASE}/{VERSION}/{}", file_name(subcommand))
}

fn document<T: JsonSchema + ?Sized>(subcommand: &'static str) -> (&'static str, Value) {
    let settings = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(tidy));
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.insert("$id".into(), id(subcommand).into());
    schema.insert(
        "title".into(),
        format!("kubectl satoken {subcommand} -o json").into(),
    );
    let mut value = schema.to_value();
    strip_json_suffix(&mut value);
    (subcommand, value)
}

/// Every object with named properties allows no others (a field the tool
/// starts printing must be added to the schema); a description is one
/// paragraph per line, not the doc comment's line breaks.
fn tidy(schema: &mut Schema) {
    if schema.get("properties").is_some() {
        schema.insert("additionalProperties".into(), false.into());
    }
    if let Some(Value::String(text)) = schema.get_mut("description") {
        *text = text
            .split("\n\n")
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n\n");
    }
}

/// `DiagnosisJson` is a Rust name (the wire twin of `Diagnosis`); in the
/// schema it is the `Diagnosis` definition.
fn strip_json_suffix(value: &mut Value) {
    let rename = |name: &str| name.strip_suffix("Json").unwrap_or(name).to_owned();
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(defs)) = map.get_mut("$defs") {
                let mut renamed = Map::new();
                for (name, def) in std::mem::take(defs) {
                    let name = rename(&name);
                    let clash = renamed.insert(name.clone(), def);
                    assert!(clash.is_none(), "two schema definitions named {name}");
                }
                *defs = renamed;
            }
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(name) = target.strip_prefix("#/$defs/")
            {
                *target = format!("#/$defs/{}", rename(name));
            }
            map.values_mut().for_each(strip_json_suffix);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_json_suffix),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_a_closed_draft_2020_12_schema_with_a_versioned_id() {
        for (name, schema) in all() {
            assert_eq!(
                schema["$schema"],
                "https://json-schema.org/draft/2020-12/schema"
            );
            assert_eq!(schema["$id"], id(name));
            assert!(schema["$id"].as_str().unwrap().contains("/schema/2/"));
        }
    }

    #[test]
    fn rust_names_lose_their_json_suffix() {
        let (_, probe) = all().swap_remove(3);
        let defs = probe["$defs"].as_object().unwrap();
        assert!(defs.contains_key("Diagnosis") && !defs.contains_key("DiagnosisJson"));
        assert!(!probe.to_string().contains("Json\""), "no $ref keeps it");
    }
}
