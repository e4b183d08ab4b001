//! `-o yaml`: the JSON document's fields as YAML (serde-saphyr), with the
//! characters a terminal must not see raw (bidi and zero-width characters, the
//! Arabic letter mark; see [`is_dangerous`]) written as `\uXXXX` escapes, as
//! JSON does. serde-saphyr escapes control characters itself but writes those
//! raw, in whatever scalar style it picked, where no escape exists.
//!
//! So when the plain rendering holds one, the document is rendered again with
//! a U+0001 placed before each such character: a control character makes
//! serde-saphyr pick a double-quoted scalar (where `\u` escapes exist) and
//! write it as `\x01`, and that marker, right before the raw character, is then
//! replaced together with it by the escape. The second rendering goes through
//! the JSON form (same fields, same order) so that the strings can be edited.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::sanitize::is_dangerous;

/// Marks a character to escape; always rendered `\x01` in a double-quoted scalar.
const MARK: char = '\u{1}';

/// Characters serde-saphyr leaves raw that must be escaped: the dangerous ones
/// that are not control characters, nor the three it escapes itself.
fn needs_mark(c: char) -> bool {
    is_dangerous(c) && !c.is_control() && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// Renders `value` as YAML text ending in a newline.
pub fn to_string(value: &impl Serialize) -> std::io::Result<String> {
    let text = render(value)?;
    if text.chars().any(needs_mark) {
        return from_json(&serde_json::to_vec(value)?);
    }
    Ok(text)
}

/// Renders a JSON document as YAML, its keys in the document's order.
pub fn from_json(json: &[u8]) -> std::io::Result<String> {
    let marked: Ordered = serde_json::from_slice(json)?;
    Ok(unmark(&render(&marked)?))
}

/// The YAML text, ending in a newline.
fn render(value: &impl Serialize) -> std::io::Result<String> {
    let mut text = String::new();
    serde_saphyr::to_fmt_writer(&mut text, value).map_err(std::io::Error::other)?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// `\x01` + a raw character -> `\uXXXX`; a raw character without the marker
/// (not expected) is escaped all the same: visible text rather than a raw
/// control.
fn unmark(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    for c in yaml.chars() {
        if needs_mark(c) {
            if out.ends_with("\\x01") {
                out.truncate(out.len() - 4);
            }
            out.push_str(&format!("\\u{:04X}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A JSON value that keeps its keys in document order, with [`MARK`] placed
/// before each character to escape, in keys and strings alike.
enum Ordered {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Seq(Vec<Ordered>),
    Map(Vec<(String, Ordered)>),
}

fn marked(text: &str) -> String {
    let mark = |c| needs_mark(c).then_some(MARK).into_iter().chain([c]);
    text.chars().flat_map(mark).collect()
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ordered::Null => s.serialize_unit(),
            Ordered::Bool(b) => s.serialize_bool(*b),
            Ordered::Number(n) => n.serialize(s),
            Ordered::String(t) => s.serialize_str(t),
            Ordered::Seq(items) => s.collect_seq(items),
            Ordered::Map(entries) => s.collect_map(entries.iter().map(|(k, v)| (k, v))),
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Ordered, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Ordered::Null, Ordered::Number))
    }

    fn visit_str<E: de::Error>(self, t: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(marked(t)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Ordered>()? {
            entries.push((marked(&k), v));
        }
        Ok(Ordered::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_documents_are_unchanged() {
        let value = json!({"b": "plain", "a": ["x", 1, true, null]});
        assert_eq!(
            to_string(&value).unwrap(),
            serde_saphyr::to_string(&value).unwrap()
        );
    }

    #[test]
    fn bidi_and_controls_are_escaped_in_values_and_keys() {
        let value = json!({
            "sub": "admin\u{202e}gnp.exe",
            "k\u{2066}ey": "a\u{61c}b",
            "c1": "x\u{9b}31m",
            "both": "\u{1}\u{202e}",
            "long": format!("{}\u{200b}", "word ".repeat(40)),
        });
        let text = to_string(&value).unwrap();
        assert!(
            !text.chars().any(|c| c != '\n' && is_dangerous(c)),
            "{text}"
        );
        assert!(text.contains("\\u202E"), "{text}");
        let back: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(back, value, "{text}");
    }
}
