//! Confidence is set in one place, the policy (src/diagnosis/policy.rs): a
//! rule says on what basis it believes a cause, the policy says how sure that
//! makes it. Outside the policy no code assigns a `confidence` field, lowers
//! one, or uses `Confidence::High`/`Medium`/`Low` as a value; comparing with
//! one, or matching on it, is reading. Unit tests (under `#[cfg(test)]`) may
//! build what they check. Read with syn, so every form and subfolder is seen.

use syn::visit::Visit;

use crate::diagnosis::{is_test_only, scan};

#[test]
fn confidence_is_set_only_by_the_policy() {
    let skip = |p: &std::path::Path| p.ends_with("diagnosis/policy.rs") || p.ends_with("tests.rs");
    let found = scan(std::path::Path::new("src"), skip, |file| {
        let mut guard = ConfidenceGuard::default();
        guard.visit_file(file);
        guard.found
    });
    assert!(
        found.is_empty(),
        "confidence set outside src/diagnosis/policy.rs:\n{}",
        found.join("\n")
    );
}

/// The guard's own cases: each way of setting a confidence, and the reads it
/// must let pass.
#[test]
fn the_confidence_guard_sees_every_form() {
    let flags = |code: &str| {
        let mut guard = ConfidenceGuard::default();
        guard.visit_file(&syn::parse_file(code).unwrap());
        guard.found.len()
    };
    for code in [
        "fn f(c: &mut Candidate) { c.confidence = Confidence::Low; }",
        "fn f(c: &mut Candidate, o: Confidence) { c.confidence = c.confidence.max(o); }",
        "fn f(c: Confidence) -> Confidence { c.lowered() }",
        "fn f() -> Candidate { Candidate { confidence: Confidence::High, ..x() } }",
        "fn f() -> Candidate { candidate(Cause::X, Confidence::Medium) }",
        "fn f(c: Confidence) -> Confidence { match c { Confidence::High => Confidence::Medium, o => o } }",
        "mod inner { fn f(c: &mut Candidate) { c.confidence = y(); } }",
        // A rule names no level, not even to ask what others found: what
        // depends on the others' findings is the policy's (`When`).
        "fn f(f: &Findings) -> bool { f.any_at_least(Confidence::High) }",
    ] {
        assert!(flags(code) >= 1, "not seen: {code}");
    }
    for code in [
        "fn f(c: &Candidate) -> bool { c.confidence >= Confidence::Medium }",
        "fn f(c: Confidence) -> &str { match c { Confidence::High => \"sure\", _ => \"\" } }",
        "fn f(c: &Candidate) -> bool { matches!(c.confidence, Confidence::Low) }",
        "fn f(c: &Candidate) -> Json { Json { confidence: c.confidence } }",
        "#[cfg(test)] mod tests { fn f(c: &mut Candidate) { c.confidence = Confidence::Low; } }",
    ] {
        assert_eq!(flags(code), 0, "flagged: {code}");
    }
}

/// Finds a confidence set in non-test code.
#[derive(Default)]
struct ConfidenceGuard {
    found: Vec<String>,
    /// Inside a pattern, a comparison or a query: a level there is read.
    reading: usize,
}

impl ConfidenceGuard {
    fn note(&mut self, what: &str, tokens: &impl quote::ToTokens) {
        let text = tokens.to_token_stream().to_string();
        self.found.push(format!(
            "{what}: {}",
            text.chars().take(120).collect::<String>()
        ));
    }

    fn reading(&mut self, visit: impl FnOnce(&mut Self)) {
        self.reading += 1;
        visit(self);
        self.reading -= 1;
    }
}

impl<'a> Visit<'a> for ConfidenceGuard {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if !is_test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        if let syn::Expr::Field(field) = &*a.left
            && matches!(&field.member, syn::Member::Named(n) if n == "confidence")
        {
            self.note("assigns a confidence", a);
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
        if call.method == "lowered" {
            self.note("lowers a confidence", call);
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
        use syn::BinOp::{Eq, Ge, Gt, Le, Lt, Ne};
        if matches!(b.op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_)) {
            self.reading(|g| syn::visit::visit_expr_binary(g, b));
        } else {
            syn::visit::visit_expr_binary(self, b);
        }
    }

    fn visit_pat(&mut self, p: &'a syn::Pat) {
        self.reading(|g| syn::visit::visit_pat(g, p));
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        // `matches!(x, Confidence::Low)`: a pattern in a macro's tokens.
        if m.path.is_ident("matches") {
            return;
        }
        syn::visit::visit_macro(self, m);
    }

    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        let segments: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let level = matches!(
            segments.as_slice(),
            [.., ty, level] if ty == "Confidence" && matches!(level.as_str(), "High" | "Medium" | "Low")
        );
        if level && self.reading == 0 {
            self.note("uses a confidence level as a value", p);
        }
        syn::visit::visit_expr_path(self, p);
    }
}
