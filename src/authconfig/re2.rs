//! CEL's `matches` as kube-apiserver evaluates it: Go's RE2 grammar (cel-go
//! compiles patterns with `regexp`) translated to the regex crate's, so a
//! pattern is refused exactly where Go refuses it and means what it means
//! there; each pattern compiled once.

use std::collections::HashMap;
use std::sync::Arc;

use cel::ExecutionError;
use cel::extractors::This;

/// `s.matches(re)` and `matches(s, re)` as kube-apiserver's CEL (Go's RE2)
/// does: a pattern is compiled once, however many times it is matched.
pub(super) fn matches(
    This(text): This<Arc<String>>,
    pattern: Arc<String>,
) -> Result<bool, ExecutionError> {
    type Compiled = Result<regex::Regex, String>;
    thread_local! {
        static COMPILED: std::cell::RefCell<HashMap<Arc<String>, Compiled>> =
            std::cell::RefCell::default();
    }
    let compile = || {
        counted();
        let translated = re2(&pattern)?;
        regex::RegexBuilder::new(&translated)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| e.to_string().lines().last().unwrap_or("").trim().to_owned())
    };
    COMPILED
        .with_borrow_mut(|cache| {
            // Patterns built at run time could each be new: keep a few.
            if cache.len() > 64 {
                cache.clear();
            }
            let compiled = cache.entry(pattern.clone()).or_insert_with(compile);
            compiled
                .as_ref()
                .map(|re| re.is_match(&text))
                .map_err(Clone::clone)
        })
        .map_err(|e| {
            ExecutionError::function_error(
                "matches",
                format!("{:?} is not a valid regex: {e}", pattern.as_str()),
            )
        })
}

/// Go's RE2 pattern (regexp/syntax, Perl flags, as cel-go compiles it) in
/// the regex crate's syntax, or Go's reason for refusing it (parse.go). Every
/// literal is written `\x{…}`, so nothing means more than it does in Go: a
/// `\<` is a `<` there and a word start here; `&&`, `--` and `~~` in a class
/// are characters there and set operations here. `\d`, `\w`, `\s` and `\b`
/// are ASCII in RE2 and Unicode here, where `\d` also matches `٣`. Go's
/// `\Q…\E` and octal `\012` have no counterpart here and become literals;
/// flags other than `imsU` (`(?x)`) are Go errors.
fn re2(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\\' => rest = escape_outside(rest, &mut out)?,
            '[' => rest = class(rest, &mut out)?,
            '(' if rest.starts_with('?') => rest = group(rest, &mut out)?,
            '{' => match repeat(rest)? {
                Some(len) => {
                    out.push('{');
                    out.push_str(&rest[..len]);
                    rest = &rest[len..];
                }
                None => literal(&mut out, '{'),
            },
            c => out.push(c),
        }
    }
    Ok(out)
}

const RE2_DIGIT: &str = "0-9";
const RE2_WORD: &str = "0-9A-Za-z_";
const RE2_SPACE: &str = "\\t\\n\\x0C\\r ";

fn literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
    }
}

fn perl_class(e: char) -> Option<(&'static str, bool)> {
    let set = match e.to_ascii_lowercase() {
        'd' => RE2_DIGIT,
        'w' => RE2_WORD,
        's' => RE2_SPACE,
        _ => return None,
    };
    Some((set, e.is_ascii_uppercase()))
}

/// After a `\` outside a class: what it means, written to `out`.
fn escape_outside<'a>(rest: &'a str, out: &mut String) -> Result<&'a str, String> {
    let Some(e) = rest.chars().next() else {
        return Err("trailing backslash at end of expression".to_owned());
    };
    let after = &rest[e.len_utf8()..];
    match e {
        'A' | 'z' => out.push_str(&format!("\\{e}")),
        'b' | 'B' => out.push_str(&format!("(?-u:\\{e})")),
        'Q' => {
            let (quoted, tail) = after.split_once("\\E").unwrap_or((after, ""));
            quoted.chars().for_each(|c| literal(out, c));
            return Ok(tail);
        }
        'p' | 'P' => {
            let len = if after.starts_with('{') {
                after
                    .find('}')
                    .map(|i| i + 1)
                    .ok_or_else(|| format!("invalid character class range: `\\{e}{after}`"))?
            } else {
                after.chars().next().map_or(0, char::len_utf8)
            };
            out.push_str(&format!("\\{e}{}", &after[..len]));
            return Ok(&after[len..]);
        }
        e if perl_class(e).is_some() => {
            let (set, negated) = perl_class(e).unwrap_or(("", false));
            out.push_str(&format!("[{}{set}]", if negated { "^" } else { "" }));
        }
        _ => {
            let (c, tail) = escaped_char(rest)?;
            literal(out, c);
            return Ok(tail);
        }
    }
    Ok(after)
}

/// Go's `parseEscape`: the character a `\` escape stands for (after the `\`).
fn escaped_char(rest: &str) -> Result<(char, &str), String> {
    let invalid = |len: usize| format!("invalid escape sequence: `\\{}`", &rest[..len]);
    let Some(e) = rest.chars().next() else {
        return Err("trailing backslash at end of expression".to_owned());
    };
    let after = &rest[e.len_utf8()..];
    let octal = |s: &str| s.bytes().take_while(|b| (b'0'..=b'7').contains(b)).count();
    let c = match e {
        // A single non-zero digit would be a back reference: not in RE2.
        '1'..='7' if octal(after) == 0 => return Err(invalid(1)),
        '0'..='7' => {
            let len = 1 + octal(after).min(2);
            let n = u32::from_str_radix(&rest[..len], 8).map_err(|_| invalid(len))?;
            return Ok((char::from_u32(n).unwrap_or('\0'), &rest[len..]));
        }
        'x' => {
            let (digits, len) = match after.strip_prefix('{') {
                Some(inner) => {
                    let end = inner.find('}').ok_or_else(|| invalid(rest.len()))?;
                    (&inner[..end], end + 3)
                }
                None => (after.get(..2).ok_or_else(|| invalid(rest.len()))?, 3),
            };
            let c = u32::from_str_radix(digits, 16)
                .ok()
                .filter(|_| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(char::from_u32)
                .ok_or_else(|| invalid(len.min(rest.len())))?;
            return Ok((c, &rest[len..]));
        }
        'a' => '\x07',
        'f' => '\x0C',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\x0B',
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => c,
        _ => return Err(invalid(e.len_utf8())),
    };
    Ok((c, after))
}

/// After `(`, at `?`: a named group or flags, which Go limits to `imsU`.
fn group<'a>(rest: &'a str, out: &mut String) -> Result<&'a str, String> {
    if rest.starts_with("?P<") || (rest.starts_with("?<") && !rest.starts_with("?<=")) {
        out.push('(');
        return Ok(rest);
    }
    let end = rest
        .find([')', ':'])
        .ok_or_else(|| format!("missing closing ): `({rest}`"))?;
    let flags = &rest[1..end];
    if flags.is_empty() && rest[end..].starts_with(')')
        || !flags.chars().all(|c| "imsU-".contains(c))
        || flags.matches('-').count() > 1
        || flags.ends_with('-')
    {
        return Err(format!(
            "invalid or unsupported Perl syntax: `({}`",
            &rest[..=end.min(rest.len() - 1)]
        ));
    }
    out.push('(');
    Ok(rest)
}

/// After `{`: the length up to and with the `}` of a repetition Go takes
/// (`{n}`, `{n,}`, `{n,m}`, counts to 1000), or `None` for a literal `{`.
fn repeat(rest: &str) -> Result<Option<usize>, String> {
    let Some(end) = rest.find('}') else {
        return Ok(None);
    };
    let inner = &rest[..end];
    let (min, max) = inner.split_once(',').unwrap_or((inner, inner));
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !number(min) || !(max.is_empty() || number(max)) {
        return Ok(None);
    }
    let count = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    if count(min) > 1000 || (!max.is_empty() && (count(max) > 1000 || count(max) < count(min))) {
        return Err(format!("invalid repeat count: `{{{inner}}}`"));
    }
    Ok(Some(end + 1))
}

/// After `[`: a class as Go's `parseClass` reads it, each member written out.
fn class<'a>(mut rest: &'a str, out: &mut String) -> Result<&'a str, String> {
    let whole = rest;
    let missing = || format!("missing closing ]: `[{whole}`");
    out.push('[');
    if let Some(tail) = rest.strip_prefix('^') {
        out.push('^');
        rest = tail;
    }
    let mut first = true;
    loop {
        let c = rest.chars().next().ok_or_else(missing)?;
        if c == ']' && !first {
            out.push(']');
            return Ok(&rest[1..]);
        }
        first = false;
        if rest.starts_with("[:")
            && let Some(end) = rest.find(":]")
        {
            out.push_str(&rest[..end + 2]);
            rest = &rest[end + 2..];
            continue;
        }
        if let Some(e) = rest.strip_prefix('\\') {
            let e0 = e.chars().next().ok_or_else(missing)?;
            if let Some((set, negated)) = perl_class(e0) {
                out.push_str(&if negated {
                    format!("[^{set}]")
                } else {
                    set.to_owned()
                });
                rest = &e[1..];
                continue;
            }
            if e0 == 'p' || e0 == 'P' {
                let mut inner = String::new();
                let tail = escape_outside(e, &mut inner)?;
                out.push_str(&inner);
                rest = tail;
                continue;
            }
        }
        let (lo, tail) = class_char(rest).ok_or_else(missing)??;
        rest = tail;
        literal(out, lo);
        if let Some(range) = rest
            .strip_prefix('-')
            .filter(|r| !r.starts_with(']') && !r.is_empty())
        {
            let (hi, tail) = class_char(range).ok_or_else(missing)??;
            if hi < lo {
                return Err(format!("invalid character class range: `{lo}-{hi}`"));
            }
            out.push('-');
            literal(out, hi);
            rest = tail;
        }
    }
}

fn class_char(rest: &str) -> Option<Result<(char, &str), String>> {
    let c = rest.chars().next()?;
    Some(match c {
        '\\' => escaped_char(&rest[1..]),
        c => Ok((c, &rest[c.len_utf8()..])),
    })
}

/// A pattern compiled: counted under test, where cel's tests check that
/// each pattern compiles once.
#[cfg(not(test))]
fn counted() {}

#[cfg(test)]
thread_local! {
    pub(super) static COMPILATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn counted() {
    COMPILATIONS.with(|n| n.set(n.get() + 1));
}
