//! The vocabulary is the one place a wording lives: no string table is left
//! in detection, and every row that names a cause is on that cause's
//! `explain` page.

use satoken::report::explain::ExplainJson;
use satoken::vocabulary::{authenticators, wordings};

use crate::diagnosis::{non_test_code, scan};
use crate::support::satoken;

/// String tables outside the vocabulary that are not wordings, and why.
const NOT_WORDINGS: &[(&str, &str)] = &[
    (
        "layers.rs: MONTHS",
        "a date's month names (syslog's stamp): a format, not a producer's words",
    ),
    (
        "url.rs: METHODS",
        "HTTP's request methods: the protocol's names, not a producer's words",
    ),
];

/// A `const` or `static` whose type is a slice or array holding `&str` (alone
/// or in a tuple), in non-test code, inside functions too.
#[derive(Default)]
struct TableGuard {
    found: Vec<String>,
}

fn holds_str(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => holds_str(&r.elem),
        syn::Type::Slice(s) => holds_str(&s.elem),
        syn::Type::Array(a) => holds_str(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(holds_str),
        syn::Type::Path(p) => p.path.is_ident("str"),
        _ => false,
    }
}

fn is_table(ty: &syn::Type) -> bool {
    let inner = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    match inner {
        syn::Type::Slice(s) => holds_str(&s.elem),
        syn::Type::Array(a) => holds_str(&a.elem),
        _ => false,
    }
}

impl<'ast> syn::visit::Visit<'ast> for TableGuard {
    non_test_code!();

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if is_table(&item.ty) {
            self.found.push(item.ident.to_string());
        }
        syn::visit::visit_item_const(self, item);
    }

    fn visit_impl_item_const(&mut self, item: &'ast syn::ImplItemConst) {
        if is_table(&item.ty) {
            self.found.push(item.ident.to_string());
        }
        syn::visit::visit_impl_item_const(self, item);
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        if is_table(&item.ty) {
            self.found.push(item.ident.to_string());
        }
        syn::visit::visit_item_static(self, item);
    }
}

fn tables_in(file: &syn::File) -> Vec<String> {
    let mut guard = TableGuard::default();
    syn::visit::visit_file(&mut guard, file);
    guard.found
}

/// Detection and the prefilter keep no string table of their own: a
/// wording they read is a row of `src/vocabulary/`.
#[test]
fn string_tables_live_in_the_vocabulary() {
    let mut found = Vec::new();
    // classify/generated is test code (its `mod` is `#[cfg(test)]`): the
    // values the generated tests fill the vocabulary's templates with.
    let generated = std::path::Path::new("src/classify/generated");
    for dir in ["src/diagnosis", "src/classify"] {
        let tests = |p: &std::path::Path| p.starts_with(generated);
        found.extend(scan(std::path::Path::new(dir), tests, tables_in));
    }
    found.retain(|f| {
        !NOT_WORDINGS
            .iter()
            .any(|(table, _)| f.replace('\\', "/").ends_with(table))
    });
    assert!(
        found.is_empty(),
        "string tables outside src/vocabulary:\n{}",
        found.join("\n")
    );
}

/// The guard's own cases.
#[test]
fn the_table_guard_sees_every_form() {
    let tables = |code: &str| tables_in(&syn::parse_file(code).unwrap()).len();
    for code in [
        r#"const A: &[&str] = &["a"];"#,
        r#"const A: &[(&str, u16, &str)] = &[("a", 1, "b")];"#,
        r#"const A: [(&str, &str); 1] = [("a", "b")];"#,
        r#"static A: &[&'static str] = &["a"];"#,
        r#"fn f() { const A: &[&str] = &["a"]; }"#,
        r#"impl S { const A: &[&str] = &["a"]; }"#,
    ] {
        assert_eq!(tables(code), 1, "not seen: {code}");
    }
    for code in [
        r#"const A: &str = "a";"#,
        r#"const A: &[usize] = &[1];"#,
        r#"#[cfg(test)] mod tests { const A: &[&str] = &["a"]; }"#,
    ] {
        assert_eq!(tables(code), 0, "flagged: {code}");
    }
}

/// Every table of [`wordings::Wording`] rows in `src/vocabulary/`, by name,
/// is in `wordings::TABLES` (which `explain` and the prefilter read), or is a
/// row of a table that is.
#[test]
fn every_wording_table_is_read_by_explain() {
    let dir = std::path::Path::new("src/vocabulary");
    let mut sources = String::new();
    let mut tables = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let decl = line.trim_start().strip_prefix("pub const ");
            if let Some((name, ty)) = decl.and_then(|d| d.split_once(':'))
                && matches!(ty.trim_start(), t if t.starts_with("&[Wording]") || t.starts_with("Wording ="))
            {
                tables.push(name.to_owned());
            }
        }
        sources.push_str(&text);
    }
    assert!(tables.len() > 10, "{tables:?}");
    let wordings = std::fs::read_to_string(dir.join("wordings.rs")).unwrap();
    let all = wordings.split("pub const TABLES").nth(1).unwrap();
    let all = &all[..all.find("\n];\n").unwrap()];
    for name in tables {
        // In TABLES, or a row of another table.
        let read = all.contains(name.as_str()) || sources.contains(&format!("    {name},\n"));
        assert!(read, "{name} is not in wordings::TABLES");
    }
}

/// Every row that names a cause is on that cause's `explain` page, with
/// its words and who prints them.
#[test]
fn every_row_with_a_cause_is_on_its_explain_page() {
    let mut rows = 0;
    for w in wordings::all() {
        let Some(cause) = w.cause else { continue };
        let page = ExplainJson::new(cause);
        assert!(
            page.other_wordings
                .iter()
                .any(|o| o.text == w.text && o.said_by == w.printed_by),
            "{}: \"{}\" is not on explain {}",
            w.printed_by,
            w.text,
            cause.as_str()
        );
        rows += 1;
    }
    for m in authenticators::listed() {
        let page = ExplainJson::new(m.cause);
        assert!(
            page.wordings
                .iter()
                .any(|o| o.text == m.text() && o.versions == m.era),
            "\"{}\" is not on explain {}",
            m.text(),
            m.cause.as_str()
        );
        rows += 1;
    }
    assert!(rows > 200, "{rows} rows");
}

/// `explain --wordings` lists every row of every table, with its cause.
#[test]
fn explain_lists_every_wording() {
    let out = satoken()
        .args(["explain", "--wordings", "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<(String, String)> = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["wordings"].as_array().unwrap())
        .map(|w| {
            let cause = w["cause"].as_str().unwrap_or("").to_owned();
            (w["text"].as_str().unwrap().to_owned(), cause)
        })
        .collect();
    let cause = |c: Option<satoken::diagnosis::Cause>| c.map_or("", |c| c.as_str());
    let rows = wordings::all()
        .map(|w| (w.text, cause(w.cause)))
        .chain(authenticators::listed().map(|m| (m.text(), m.cause.as_str())));
    let mut count = 0;
    for (text, cause) in rows {
        assert!(
            listed.iter().any(|(t, c)| t == text && c == cause),
            "\"{text}\" ({cause}) is not listed"
        );
        count += 1;
    }
    assert_eq!(listed.len(), count);
    let text = satoken().args(["explain", "--wordings"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("the Node authorizer: \"no relationship found between node\""));
}
