//! Pure: CEL expressions of an AuthenticationConfiguration, evaluated with the
//! `cel` crate (cel-rust: the CEL standard library and macros `has`, `all`,
//! `exists`, `exists_one`, `map`, `filter`, plus the strings, lists, math and
//! encoders extensions), over `claims` (the token's payload) or `user`
//! (`username`, `uid`, `groups`, `extra`), as kube-apiserver does
//! (k8s.io/apiserver pkg/authentication/cel).
//!
//! The work is bounded before anything runs: the expression's length, its
//! number of nodes and its comprehension nesting, and its cost estimated the
//! way cel-go estimates it (checker/cost.go), with the sizes of this token's
//! claims: one unit per node and per comprehension iteration, a tenth of a
//! unit per byte a string function reads or writes (cel-go's
//! `StringTraversalCostFactor`), the elements `lists.range` makes, the pairs
//! `distinct` compares, what `replace`, `join` and `+` can build. Over
//! kube-apiserver's per-call limit ([`PER_CALL_LIMIT`]) the expression is
//! refused before it runs ([`over_budget`]): `'a'.replace('a', 'aaaaaaaaaa')`
//! chained ten times, `lists.range(1000000).distinct()`. kube-apiserver
//! counts the same units as it evaluates (base.go `cel.CostLimit`); with the
//! input known, the estimate is that count's bound. Functions of Kubernetes' CEL
//! libraries that cel-rust lacks (`sets.*`, `url`, `ip`, `cidr`, `quantity`,
//! `semver`…) are reported by name rather than guessed, and so is any
//! function without a rule for the size of what it makes ([`GROWTH`]).
//! Behind the estimate, every evaluation runs under a run-time bound in time
//! and memory ([`super::bounded`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, MapExpr, StructExpr};
use cel::objects::Map as CelMap;
use cel::{Context, Env, ExecutionError, Value};
use serde_json::Value as Json;

/// Longest expression evaluated.
pub const MAX_EXPRESSION_BYTES: usize = 4096;
/// Most AST nodes in one expression.
pub const MAX_NODES: usize = 1000;
/// Deepest nesting of comprehensions (`all`, `exists`, `map`, `filter`).
pub const MAX_COMPREHENSION_DEPTH: usize = 2;
/// kube-apiserver's cost limit for one evaluation of one expression
/// (k8s.io/apiserver pkg/apis/cel/config.go `PerCallLimit`, "roughly 0.1
/// second"), set on every program of its base CEL environment
/// (pkg/cel/environment/base.go `cel.CostLimit(celconfig.PerCallLimit)`), the
/// authentication configuration's included (pkg/authentication/cel
/// compile.go). The whole of one object's validation gets ten times that
/// (`RuntimeCELCostBudget`, 10,000,000); authentication has no static limit
/// (a CRD's rule has `StaticEstimatedCostLimit`, 10,000,000).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// The most elements `lists.range` makes (cel-go's and cel-rust's bound).
const MAX_RANGE: u64 = 1_000_000;
/// Deepest JSON nesting turned into CEL values.
const MAX_JSON_DEPTH: usize = 32;

/// CEL standard functions this tool refuses by name: they need a time zone
/// database this binary does not carry (claims' times are numbers: compare
/// `claims.exp` and `claims.iat` as they are).
const NOT_EVALUATED: &[&str] = &["timestamp", "duration"];

/// Functions of Kubernetes' CEL libraries (k8s.io/apiserver pkg/cel/library)
/// that the `cel` crate does not provide.
const KUBERNETES_ONLY: &[&str] = &[
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "url",
    "isURL",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "ip",
    "isIP",
    "cidr",
    "isCIDR",
    "quantity",
    "isQuantity",
    "semver",
    "isSemver",
    "authorizer",
    "format.named",
];

/// What an expression came to (across the pipe from [`super::bounded`]'s
/// child, its value as a `Wire`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Outcome<V = Value> {
    /// It ran: the value.
    Value(V),
    /// It ran and failed (a missing claim, a type error…), as CEL says.
    Error(String),
    /// It was not run: a function this tool does not implement, over a bound
    /// (length, nodes, nesting, cost), or it does not parse.
    NotEvaluated(String),
}

fn env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // Kubernetes' base environment has the strings, lists and math
        // extensions and base64 (encoders); registration only fails on a
        // duplicate, which these are not.
        let _ = env.add_extension(cel::extensions::strings);
        let _ = env.add_extension(cel::extensions::lists);
        let _ = env.add_extension(cel::extensions::math);
        let _ = env.add_extension(cel::extensions::encoders);
        Arc::new(env)
    })
    .clone()
}

/// The input of an evaluation: one variable (`claims` or `user`) as JSON.
pub struct Input<'a> {
    pub name: &'static str,
    pub value: &'a Json,
}

/// A parse error in words: where, and what the parser met, without the
/// grammar's list of every token it would have taken (`expecting {'[', '{',
/// …, NUM_FLOAT, NUM_INT, …}`), which names the parser's internals.
fn parse_error(error: &str) -> String {
    let first = error.lines().next().unwrap_or("");
    let first = first.strip_prefix("ERROR: ").unwrap_or(first);
    let first = first
        .split(" expecting ")
        .next()
        .unwrap_or(first)
        .trim_end();
    let first = match first
        .strip_prefix("<input>:")
        .and_then(|r| r.split_once(": "))
    {
        Some((place, what)) => match place.split_once(':') {
            Some((line, column)) => format!("line {line}, column {column}: {what}"),
            None => what.to_owned(),
        },
        None => first.to_owned(),
    };
    format!("it does not parse: {first}")
}

/// Why `source` is not to be run with the variable in `input` bound (the
/// static bounds, before any evaluation), or `None` when it may be.
pub fn refusal(source: &str, input: &Input<'_>) -> Option<String> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Some(format!(
            "the expression is {} bytes, over the {MAX_EXPRESSION_BYTES}-byte bound",
            source.len()
        ));
    }
    let env = env();
    let program = match env.compile(source) {
        Ok(p) => p,
        Err(e) => return Some(parse_error(&e.to_string())),
    };
    let mut shape = Shape::default();
    walk(program.expression(), 0, input.name, &mut shape);
    if let Some(name) = shape.unsupported.first() {
        return Some(if NOT_EVALUATED.contains(&name.as_str()) {
            format!(
                "{name}() needs a time zone database this tool does not carry; compare claims' times as the numbers they are"
            )
        } else {
            kubernetes_only(name)
        });
    }
    if let Some(name) = shape.no_rule.first() {
        return Some(format!(
            "{name}() is not a function this tool evaluates: it has no rule for the size of what it makes, so its cost could not be bounded"
        ));
    }
    if shape.nodes > MAX_NODES {
        return Some(format!(
            "{} nodes, over the {MAX_NODES}-node bound",
            shape.nodes
        ));
    }
    if shape.depth > MAX_COMPREHENSION_DEPTH {
        return Some(format!(
            "comprehensions nested {} deep, over the bound of {MAX_COMPREHENSION_DEPTH}",
            shape.depth
        ));
    }
    budget(program.expression(), input).or_else(|| {
        to_cel(input.value, 0).is_none().then(|| {
            format!(
                "{} is nested more than {MAX_JSON_DEPTH} levels deep",
                input.name
            )
        })
    })
}

/// Runs `source`, which [`refusal`] has checked, here and now: in the child
/// process that [`super::bounded`] starts, or in this one when none is.
pub fn execute(source: &str, input: &Input<'_>) -> Outcome {
    let env = env();
    let Ok(program) = env.compile(source) else {
        return Outcome::NotEvaluated("it does not parse".to_owned());
    };
    let Some(value) = to_cel(input.value, 0) else {
        return Outcome::NotEvaluated(format!("{} is nested too deep", input.name));
    };
    let mut context = Context::with_env(env);
    context.add_variable_from_value(input.name, value);
    // `matches`, with RE2's classes (cel-rust's would use Rust's Unicode ones).
    let _ = context.add_function("matches", super::re2::matches);
    match program.execute(&context) {
        Ok(v) => Outcome::Value(v),
        Err(ExecutionError::UndeclaredReference(name)) if name.as_str() != input.name => {
            Outcome::NotEvaluated(format!(
                "{name} is not a function or variable this tool knows (only {} is bound)",
                input.name
            ))
        }
        Err(ExecutionError::NoSuchOverload(e)) if KUBERNETES_ONLY.contains(&e.function()) => {
            Outcome::NotEvaluated(kubernetes_only(e.function()))
        }
        Err(e) => Outcome::Error(e.to_string()),
    }
}

fn kubernetes_only(name: &str) -> String {
    format!("{name} is a function of Kubernetes' CEL libraries that this tool does not evaluate")
}

/// What a walk of the AST found.
#[derive(Default)]
struct Shape {
    nodes: usize,
    depth: usize,
    unsupported: Vec<String>,
    /// Functions with no [`Growth`] rule.
    no_rule: Vec<String>,
}

fn walk(e: &IdedExpr, depth: usize, variable: &str, shape: &mut Shape) {
    shape.nodes += 1;
    if shape.nodes > MAX_NODES * 2 {
        return;
    }
    match &e.expr {
        Expr::Call(call) => {
            let qualified = qualified_name(call, variable);
            if KUBERNETES_ONLY.contains(&qualified.as_str())
                || KUBERNETES_ONLY.contains(&call.func_name.as_str())
                || (call.target.is_none() && NOT_EVALUATED.contains(&call.func_name.as_str()))
            {
                shape.unsupported.push(qualified);
            } else if growth(&qualified, &call.func_name).is_none() {
                shape.no_rule.push(qualified);
            }
            if let Some(t) = &call.target {
                walk(t, depth, variable, shape);
            }
            for a in &call.args {
                walk(a, depth, variable, shape);
            }
        }
        Expr::Comprehension(c) => {
            let inner = depth + 1;
            shape.depth = shape.depth.max(inner);
            walk(&c.iter_range, depth, variable, shape);
            walk(&c.accu_init, depth, variable, shape);
            for part in [&c.loop_cond, &c.loop_step, &c.result] {
                walk(part, inner, variable, shape);
            }
        }
        Expr::List(l) => l
            .elements
            .iter()
            .for_each(|x| walk(x, depth, variable, shape)),
        Expr::Map(MapExpr { entries }) | Expr::Struct(StructExpr { entries, .. }) => {
            entries.iter().for_each(|x| match &x.expr {
                EntryExpr::MapEntry(me) => {
                    walk(&me.key, depth, variable, shape);
                    walk(&me.value, depth, variable, shape);
                }
                EntryExpr::StructField(f) => walk(&f.value, depth, variable, shape),
            })
        }
        Expr::Select(s) => walk(&s.operand, depth, variable, shape),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Why `source` is over kube-apiserver's per-call cost limit on `input`, if it
/// is (a parse error is not this function's to tell).
pub fn over_budget(source: &str, input: &Input<'_>) -> Option<String> {
    let program = env().compile(source).ok()?;
    budget(program.expression(), input)
}

fn budget(expr: &IdedExpr, input: &Input<'_>) -> Option<String> {
    let longest = longest_collection(input.value, 0) as u64;
    let cost = estimate(expr, longest).cost;
    (cost > PER_CALL_LIMIT).then(|| {
        format!(
            "its estimated CEL cost {cost} is over kube-apiserver's per-call limit of {PER_CALL_LIMIT}"
        )
    })
}

/// An expression's estimated cost, and the size (bytes of a string, elements
/// of a list or map) of what it may give.
#[derive(Clone, Copy, Default)]
struct Estimate {
    cost: u64,
    size: u64,
}

/// cel-go's string traversal factor: a tenth of a unit per byte.
fn bytes(n: u64) -> u64 {
    n.div_ceil(10)
}

/// The estimate of `e` when every value it can read is at most `bound` in
/// size (the input's longest string or collection, or a range iterated).
fn estimate(e: &IdedExpr, bound: u64) -> Estimate {
    let sum = |items: &mut dyn Iterator<Item = Estimate>| {
        items.fold(Estimate::default(), |a, b| Estimate {
            cost: a.cost.saturating_add(b.cost),
            size: a.size.max(b.size),
        })
    };
    match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Estimate {
            cost: 0,
            size: s.inner().len() as u64,
        },
        Expr::Literal(_) | Expr::Unspecified => Estimate { cost: 0, size: 1 },
        Expr::Ident(_) => Estimate {
            cost: 1,
            size: bound,
        },
        Expr::Select(s) => {
            let operand = estimate(&s.operand, bound);
            Estimate {
                cost: operand.cost.saturating_add(1),
                size: operand.size.max(bound),
            }
        }
        Expr::List(l) => {
            let all = sum(&mut l.elements.iter().map(|x| estimate(x, bound)));
            Estimate {
                cost: all.cost.saturating_add(1),
                size: all.size.max(l.elements.len() as u64),
            }
        }
        // Entries cost what list elements cost: a literal map or message
        // builds every value it holds.
        Expr::Map(MapExpr { entries }) | Expr::Struct(StructExpr { entries, .. }) => {
            let all = sum(&mut entries.iter().flat_map(|x| match &x.expr {
                EntryExpr::MapEntry(me) => {
                    vec![estimate(&me.key, bound), estimate(&me.value, bound)]
                }
                EntryExpr::StructField(f) => vec![estimate(&f.value, bound)],
            }));
            Estimate {
                cost: all.cost.saturating_add(1),
                size: all.size.max(entries.len() as u64).max(bound),
            }
        }
        Expr::Comprehension(c) => {
            let range = estimate(&c.iter_range, bound);
            let inner = bound.max(range.size);
            let step = estimate(&c.loop_step, inner);
            let body = estimate(&c.loop_cond, inner)
                .cost
                .saturating_add(step.cost)
                .saturating_add(1);
            Estimate {
                cost: range
                    .cost
                    .saturating_add(estimate(&c.accu_init, bound).cost)
                    .saturating_add(range.size.saturating_mul(body))
                    .saturating_add(estimate(&c.result, inner).cost),
                size: range.size.max(step.size),
            }
        }
        Expr::Call(call) => call_estimate(call, bound),
    }
}

/// How a function's result grows with its arguments: every function this
/// tool evaluates has a rule; any other is refused by name before it runs.
#[derive(Clone, Copy, PartialEq)]
enum Growth {
    /// A number, a bool, a type or one character.
    Constant,
    /// At most its largest argument (a part, a copy, a conversion).
    Largest,
    /// Its own rule in [`call_estimate`].
    Own,
}

/// Functions and operators of the `cel` crate's standard library and the
/// extensions [`env`] adds, with their growth.
#[rustfmt::skip]
const GROWTH: &[(&str, Growth)] = {
    use Growth::{Constant as C, Largest as L, Own as O};
    &[
        ("_==_", C), ("_!=_", C), ("_<_", C), ("_<=_", C), ("_>_", C), ("_>=_", C),
        ("!_", C), ("-_", C), ("_&&_", C), ("_||_", C), ("@not_strictly_false", C),
        ("_-_", C), ("_*_", C), ("_/_", C), ("_%_", C), ("@in", C), ("size", C),
        ("contains", C), ("startsWith", C), ("endsWith", C), ("bool", C), ("int", C),
        ("uint", C), ("double", C), ("type", C), ("hasValue", C), ("charAt", C),
        ("optional.none", C), ("math.abs", C), ("math.bitAnd", C), ("math.bitNot", C),
        ("math.bitOr", C), ("math.bitShiftLeft", C), ("math.bitShiftRight", C),
        ("math.bitXor", C), ("math.ceil", C), ("math.floor", C), ("math.isFinite", C),
        ("math.isInf", C), ("math.isNaN", C), ("math.round", C), ("math.sign", C),
        ("math.sqrt", C), ("math.trunc", C),
        ("_[_]", L), ("_[?_]", L), ("_?._", L), ("_?_:_", L), ("string", L), ("bytes", L),
        ("dyn", L), ("lowerAscii", L), ("upperAscii", L), ("trim", L), ("reverse", L),
        ("substring", L), ("slice", L), ("split", L), ("value", L), ("or", L),
        ("orValue", L), ("optional.of", L), ("optional.ofNonZeroValue", L),
        ("base64.decode", L),
        ("_+_", O), ("replace", O), ("join", O), ("format", O), ("strings.quote", O),
        ("base64.encode", O), ("lists.range", O), ("distinct", O), ("sort", O),
        ("@sortByAssociatedKeys", O), ("flatten", O), ("indexOf", O),
        ("lastIndexOf", O), ("matches", O),
    ]
};

/// The growth of a call written `qualified` (`strings.quote`, `g.startsWith`)
/// whose function is `bare` (`quote`, `startsWith`).
fn growth(qualified: &str, bare: &str) -> Option<Growth> {
    [qualified, bare]
        .into_iter()
        .find_map(|name| GROWTH.iter().find(|(n, _)| *n == name).map(|(_, g)| *g))
}

/// `ns.f` for a call on an identifier that is not `variable` (a namespace or
/// a comprehension's variable), else `f`.
fn qualified_name(call: &cel::common::ast::CallExpr, variable: &str) -> String {
    match call.target.as_deref().map(|t| &t.expr) {
        Some(Expr::Ident(ns)) if ns != variable => format!("{ns}.{}", call.func_name),
        _ => call.func_name.clone(),
    }
}

fn call_estimate(call: &cel::common::ast::CallExpr, bound: u64) -> Estimate {
    // A call on the bound variable matches no namespaced rule either way.
    let name = qualified_name(call, "");
    // `strings.quote(s)`: `strings` is a namespace, not a value read.
    let namespaced = name.contains('.') && GROWTH.iter().any(|(n, _)| *n == name);
    let parts: Vec<Estimate> = call
        .target
        .iter()
        .filter(|_| !namespaced)
        .map(|t| estimate(t, bound))
        .chain(call.args.iter().map(|a| estimate(a, bound)))
        .collect();
    let size = |i: usize| parts.get(i).map_or(0, |p| p.size);
    let read: u64 = parts.iter().fold(0, |n, p| n.saturating_add(p.size));
    let cost = parts
        .iter()
        .fold(1u64, |n, p| n.saturating_add(p.cost))
        .saturating_add(bytes(read));
    let of = |size: u64, work: u64| Estimate {
        cost: cost.saturating_add(work),
        size,
    };
    let target = size(0);
    let largest = parts.iter().map(|p| p.size).max().unwrap_or(1);
    match growth(&name, &call.func_name) {
        Some(Growth::Constant) => return of(1, 0),
        // A conversion to a string writes a number's 24 characters at most.
        Some(Growth::Largest) | None => return of(largest.max(24), 0),
        Some(Growth::Own) => {}
    }
    match name.rsplit('.').next().unwrap_or("") {
        // Every match of the old string (an empty one matches between
        // every two characters) replaced by the new one.
        "replace" => {
            let made = target.saturating_add(target.saturating_add(1).saturating_mul(size(2)));
            of(made, bytes(made))
        }
        "range" if name == "lists.range" => {
            let n = match call.args.first().map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::Int(n))) => {
                    (*n.inner()).clamp(0, MAX_RANGE as i64) as u64
                }
                _ => MAX_RANGE,
            };
            of(n, n)
        }
        // cel-rust compares each element with every one kept so far.
        "distinct" => of(target, target.saturating_mul(target) / 2),
        "join" => {
            let made = target.saturating_mul(target.saturating_add(size(1)));
            of(made, bytes(made))
        }
        // Each verb writes one argument.
        "format" => {
            let made = target.saturating_mul(size(1).saturating_add(1));
            of(made, bytes(made))
        }
        "_+_" => of(read, bytes(read)),
        // Every character escaped (`\\` for `\`) and two quotes.
        "quote" => {
            let made = target.saturating_mul(2).saturating_add(2);
            of(made, bytes(made))
        }
        "encode" => {
            let made = target.div_ceil(3).saturating_mul(4);
            of(made, bytes(made))
        }
        // cel-rust's indexOf compares the needle at every position; a
        // pattern is matched at every position of the text.
        "indexOf" | "lastIndexOf" | "matches" => {
            of(1, bytes(target.saturating_mul(size(1).max(1))))
        }
        "flatten" => of(
            target.saturating_mul(bound.max(1)),
            target.saturating_mul(bound.max(1)),
        ),
        _ => of(
            largest,
            largest.saturating_mul(64 - largest.leading_zeros() as u64),
        ),
    }
}

fn longest_collection(v: &Json, depth: usize) -> usize {
    if depth > MAX_JSON_DEPTH {
        return 0;
    }
    let longest = |items: &mut dyn ExactSizeIterator<Item = &Json>| {
        let len = items.len();
        items
            .map(|x| longest_collection(x, depth + 1))
            .fold(len, usize::max)
    };
    match v {
        Json::Array(a) => longest(&mut a.iter()),
        Json::Object(o) => longest(&mut o.values()),
        Json::String(s) => s.len(),
        _ => 0,
    }
}

/// JSON as Kubernetes' unstructured form gives it to CEL: whole numbers are
/// `int`, others `double`.
fn to_cel(v: &Json, depth: usize) -> Option<Value> {
    if depth > MAX_JSON_DEPTH {
        return None;
    }
    Some(match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(a) => Value::List(Arc::new(
            a.iter()
                .map(|x| to_cel(x, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        )),
        Json::Object(o) => {
            let mut map = HashMap::with_capacity(o.len());
            for (k, x) in o {
                map.insert(k.clone(), to_cel(x, depth + 1)?);
            }
            Value::Map(CelMap::from(map))
        }
    })
}

/// A CEL value as JSON-ish text for messages (strings quoted, lists in brackets).
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{:?}", s.as_str()),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Null => "null".to_owned(),
        Value::List(l) => format!(
            "[{}]",
            l.iter().take(20).map(show).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(_) => "a map".to_owned(),
        other => format!("{other:?}"),
    }
}

/// A CEL value as strings, the way kube-apiserver's
/// `convertCELValueToStringList` reads a groups or extra mapping: a string, a
/// list of strings (empty ones dropped), or null.
pub fn string_list(v: &Value) -> Result<Vec<String>, &'static str> {
    const WANT: &str = "expression must return a string or a list of strings";
    match v {
        Value::String(s) if s.is_empty() => Ok(Vec::new()),
        Value::String(s) => Ok(vec![s.as_str().to_owned()]),
        Value::Null => Ok(Vec::new()),
        Value::List(items) => items
            .iter()
            .filter_map(|x| match x {
                Value::String(s) if s.is_empty() => None,
                Value::String(s) => Some(Ok(s.as_str().to_owned())),
                _ => Some(Err(WANT)),
            })
            .collect(),
        _ => Err(WANT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authconfig::bounded::evaluate;
    use serde_json::json;

    #[test]
    fn a_parse_error_says_where_without_the_grammars_tokens() {
        let input = Input {
            name: "claims",
            value: &json!({"sub": "a"}),
        };
        let Some(why) = refusal("claims.sub +", &input) else {
            panic!("refused");
        };
        assert_eq!(
            why,
            "it does not parse: line 1, column 13: Syntax error: mismatched input '<EOF>'"
        );
    }

    fn eval(expr: &str) -> Outcome {
        let claims = json!({
            "sub": "alice", "email": "alice@example.com", "email_verified": true,
            "hd": "example.com", "groups": ["dev", "ops"], "exp": 1_767_229_200_i64,
            "nbf": 1_767_225_600_i64, "roles": "admin,viewer"
        });
        evaluate(
            expr,
            &Input {
                name: "claims",
                value: &claims,
            },
        )
    }

    #[test]
    fn kubernetes_examples_are_evaluated_not_matched() {
        for (expr, want) in [
            ("claims.email_verified", Value::Bool(true)),
            (
                "has(claims.hd) && claims.hd == 'example.com'",
                Value::Bool(true),
            ),
            ("has(claims.nope)", Value::Bool(false)),
            ("claims.email.endsWith('@example.com')", Value::Bool(true)),
            ("!claims.sub.startsWith('system:')", Value::Bool(true)),
            ("claims.exp - claims.nbf <= 86400", Value::Bool(true)),
            (
                "claims.groups.all(g, !g.startsWith('system:'))",
                Value::Bool(true),
            ),
            ("claims.groups.exists(g, g == 'root')", Value::Bool(false)),
            ("'oidc:' + claims.sub", Value::from("oidc:alice")),
            ("claims.roles.split(',').size()", Value::Int(2)),
            (
                "claims.email.lowerAscii()",
                Value::from("alice@example.com"),
            ),
        ] {
            assert_eq!(eval(expr), Outcome::Value(want), "{expr}");
        }
    }

    #[test]
    fn errors_unsupported_and_bounds_are_told_apart() {
        // A missing claim is an error, as in kube-apiserver.
        assert!(matches!(eval("claims.nope == 'x'"), Outcome::Error(_)));
        assert!(matches!(
            eval("sets.equivalent(claims.groups, ['dev'])"),
            Outcome::NotEvaluated(m) if m.contains("sets.equivalent")
        ));
        assert!(matches!(eval("claims.("), Outcome::NotEvaluated(m) if m.contains("parse")));
        let long = format!("claims.sub == '{}'", "x".repeat(MAX_EXPRESSION_BYTES));
        assert!(matches!(eval(&long), Outcome::NotEvaluated(m) if m.contains("bytes")));
        let deep = "claims.groups.all(a, claims.groups.all(b, claims.groups.all(c, a == b)))";
        assert!(matches!(eval(deep), Outcome::NotEvaluated(m) if m.contains("nested")));
        // A big list makes a nested comprehension too costly to start.
        let many: Vec<String> = (0..5000).map(|i| format!("g{i}")).collect();
        let claims = json!({"groups": many});
        let pairs = "claims.groups.all(a, claims.groups.exists(b, a == b))";
        assert!(matches!(
            evaluate(pairs, &Input { name: "claims", value: &claims }),
            Outcome::NotEvaluated(m) if m.contains("cost")
        ));
        assert!(matches!(
            eval("timestamp('2026-01-01T00:00:00Z') < timestamp(claims.exp)"),
            Outcome::NotEvaluated(m) if m.starts_with("timestamp()")
        ));
        // Each replace makes ten of one character: ten of them, 10^10 bytes.
        let chain = format!("'a'{}.size()", ".replace('a', 'aaaaaaaaaa')".repeat(10));
        assert!(matches!(eval(&chain), Outcome::NotEvaluated(m) if m.contains("per-call limit")));
        let three = format!("'a'{}.size()", ".replace('a', 'aaaaaaaaaa')".repeat(3));
        assert_eq!(eval(&three), Outcome::Value(Value::Int(1000)));
    }

    #[test]
    fn regex_classes_are_re2s_ascii_ones() {
        for (expr, want) in [
            ("'٣'.matches('^\\\\d$')", false),
            ("'3'.matches('^\\\\d$')", true),
            ("matches('é', '^\\\\w$')", false),
            ("'\\u00a0'.matches('\\\\s')", false),
            ("'a1_'.matches('^[\\\\w]+$')", true),
            ("'éa'.matches('\\\\ba')", true),
            ("'x]'.matches('^[]x]+$')", true),
            ("'[a'.matches('^[[a]+$')", true),
            ("'٣'.matches('^\\\\D$')", true),
        ] {
            assert_eq!(eval(expr), Outcome::Value(Value::Bool(want)), "{expr}");
        }
        assert!(
            matches!(eval("'a'.matches('(')"), Outcome::Error(m) if m.contains("not a valid regex"))
        );
    }

    #[test]
    fn literal_maps_and_every_function_are_costed() {
        let bomb = format!("'a'{}", ".replace('a', 'aaaaaaaaaa')".repeat(10));
        for wrapped in [
            format!("{{'k': {bomb}}}.k.size() > 0"),
            format!("{{{bomb}: 1}}.size() > 0"),
            format!("[{{'k': {bomb}}}].size() > 0"),
        ] {
            assert!(
                matches!(eval(&wrapped), Outcome::NotEvaluated(m) if m.contains("per-call limit")),
                "{wrapped}"
            );
        }
        // Each quote doubles a string of backslashes: 2^30 times its size.
        let quoted = format!(
            "{}'\\\\'{}.size() > 0",
            "strings.quote(".repeat(30),
            ")".repeat(30)
        );
        assert!(matches!(eval(&quoted), Outcome::NotEvaluated(m) if m.contains("per-call limit")));
        let two = format!("{}claims.sub{}", "strings.quote(".repeat(2), ")".repeat(2));
        assert_eq!(eval(&two), Outcome::Value(Value::from(r#""\"alice\"""#)));
        // A function with no rule for its size is refused by name.
        assert!(matches!(
            eval("claims.sub.nosuch()"),
            Outcome::NotEvaluated(m) if m.starts_with("claims.sub.nosuch()") || m.starts_with("nosuch()")
        ));
        // Every function and operator the `cel` crate registers (its
        // standard library, strings, lists, math, encoders) has a rule.
        for name in [
            "base64.decode",
            "base64.encode",
            "bool",
            "bytes",
            "charAt",
            "contains",
            "distinct",
            "double",
            "dyn",
            "endsWith",
            "flatten",
            "format",
            "hasValue",
            "indexOf",
            "int",
            "join",
            "lastIndexOf",
            "lists.range",
            "lowerAscii",
            "matches",
            "math.abs",
            "math.bitAnd",
            "math.bitNot",
            "math.bitOr",
            "math.bitShiftLeft",
            "math.bitShiftRight",
            "math.bitXor",
            "math.ceil",
            "math.floor",
            "math.isFinite",
            "math.isInf",
            "math.isNaN",
            "math.round",
            "math.sign",
            "math.sqrt",
            "math.trunc",
            "optional.none",
            "optional.of",
            "optional.ofNonZeroValue",
            "or",
            "orValue",
            "replace",
            "reverse",
            "size",
            "slice",
            "sort",
            "split",
            "startsWith",
            "string",
            "strings.quote",
            "substring",
            "trim",
            "type",
            "uint",
            "upperAscii",
            "value",
            "@sortByAssociatedKeys",
            "@in",
            "@not_strictly_false",
            "_[_]",
            "_+_",
            "_?_:_",
        ] {
            assert!(growth(name, name).is_some(), "{name}");
        }
    }

    #[test]
    fn patterns_follow_go_re2s_grammar() {
        for (expr, want) in [
            // \Q…\E quotes; \012 is octal; \< is a literal <.
            ("'a.*b'.matches('^\\\\Qa.*\\\\E')", true),
            ("'axxb'.matches('^\\\\Qa.*\\\\E')", false),
            ("'\\n'.matches('^\\\\012$')", true),
            ("'<a>'.matches('^\\\\<a\\\\>$')", true),
            // && and ~~ in a class are characters, not set operations.
            ("'~'.matches('^[a~~b]$')", true),
            ("'&'.matches('^[a&&b]$')", true),
            ("','.matches('^[+--]$')", true),
            // A { that is no repetition is a literal.
            ("'a{x}'.matches('^a{x}$')", true),
            ("'aaa'.matches('^a{2,3}$')", true),
        ] {
            assert_eq!(eval(expr), Outcome::Value(Value::Bool(want)), "{expr}");
        }
        for (pattern, go_says) in [
            ("(?x)a b", "invalid or unsupported Perl syntax"),
            ("\\\\u0041", "invalid escape sequence"),
            ("\\\\1", "invalid escape sequence"),
            ("a{1001}", "invalid repeat count"),
            ("[z-a]", "invalid character class range"),
        ] {
            let expr = format!("'a'.matches('{pattern}')");
            assert!(
                matches!(eval(&expr), Outcome::Error(ref m) if m.contains(go_says)),
                "{expr}: {:?}",
                eval(&expr)
            );
        }
    }

    #[test]
    fn a_pattern_is_compiled_once() {
        let many: Vec<String> = (0..500).map(|i| format!("g{i}")).collect();
        let claims = json!({"groups": many});
        let expr = "claims.groups.all(g, g.matches('^g[0-9]+$'))";
        let before = super::super::re2::COMPILATIONS.with(std::cell::Cell::get);
        let outcome = evaluate(
            expr,
            &Input {
                name: "claims",
                value: &claims,
            },
        );
        assert_eq!(outcome, Outcome::Value(Value::Bool(true)));
        assert_eq!(
            super::super::re2::COMPILATIONS.with(std::cell::Cell::get) - before,
            1
        );
    }

    #[test]
    fn mappings_read_strings_as_kube_apiserver_does() {
        assert_eq!(string_list(&Value::from("a")), Ok(vec!["a".to_owned()]));
        assert_eq!(
            string_list(&Value::from(vec![Value::from("a"), Value::from("")])),
            Ok(vec!["a".to_owned()])
        );
        assert!(string_list(&Value::Int(1)).is_err());
    }
}
