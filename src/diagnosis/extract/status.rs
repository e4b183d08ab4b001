//! HTTP statuses as programs print them, found anywhere in a line: status
//! lines (`HTTP/1.1 401 Unauthorized`, curl's `< HTTP/2 403`, wget's `server
//! returned error: HTTP/1.1 401`, OkHttp's `<-- HTTP/1.1 401`), clients'
//! renderings (`ApiException: (403)`, `statuscode: 401`, `Request failed with
//! status code 401`, `http error 401`, `reply status code was 400`,
//! `failed (401)`, `Handshake status 403`, `code = Unauthenticated`), bare
//! codes on a line of their own, client-go's texts for answers without a
//! Status body, and the `Date` header in every client's layout.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};

use super::super::facts::HttpAnswer;
use super::needles::Needles;
use crate::vocabulary::apimachinery::{self, FIELD_ERROR_TYPES, Template};
use crate::vocabulary::clients;
use crate::vocabulary::cues::STATUS_TEXTS;

pub use crate::vocabulary::wordings::PROXY_TARGET;

/// A 401 `Unauthorized` answer with `message`, as strong as `weight`.
pub fn unauthorized(message: String, weight: u8) -> HttpAnswer {
    HttpAnswer {
        status: Some(401),
        reason: Some("Unauthorized".to_owned()),
        message: Some(message),
        weight,
        ..HttpAnswer::default()
    }
}

/// `HTTP/1.1 401 Unauthorized`, `HTTP/2 403` at the start of `line` ->
/// (code, reason phrase).
pub fn status_line(line: &str) -> Option<(u16, &str)> {
    let rest = line.trim().strip_prefix("HTTP/")?;
    let (version, rest) = rest.split_once(' ')?;
    if version.is_empty() || !version.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let rest = rest.trim_start();
    let code: u16 = rest.get(..3)?.parse().ok()?;
    let after = rest.get(3..).unwrap_or("");
    // The code alone, or a space and its reason phrase.
    let alone = !after.starts_with(|c: char| c != ' ');
    (alone && (100..=599).contains(&code)).then_some((code, after.trim()))
}

/// The status an aggregated API's backend answered kube-apiserver's
/// availability check: `bad status from URL: CODE`.
pub fn aggregator_check(line: &str) -> Option<u16> {
    let words = crate::vocabulary::wordings::AGGREGATOR_BAD_STATUS.text;
    let rest = &line[line.find(words)? + words.len()..];
    let code = rest.rsplit_once(": ")?.1.trim();
    (code.len() == 3).then(|| code_at(code)).flatten()
}

/// `401`, `401 Unauthorized`, `HTTP 403 Forbidden`, `status code: 404` as a
/// whole line.
pub fn bare_code(line: &str) -> Option<u16> {
    let lower = line.trim().to_ascii_lowercase();
    let rest = ["status code:", "status code", "status:", "status", "http"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower)
        .trim_start();
    let code: u16 = rest.get(..3)?.parse().ok()?;
    // The original line: reason phrases are Capitalised Words ("Not Found").
    let original = line.trim();
    let after = original
        .get(original.len() - rest.len() + 3..)
        .unwrap_or("")
        .trim();
    let words: Vec<&str> = after.split_whitespace().collect();
    let reason_ok = words.len() <= 4
        && words.iter().all(|w| {
            w.starts_with(|c: char| c.is_ascii_uppercase())
                && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        });
    ((100..=599).contains(&code) && reason_ok).then_some(code)
}

/// Three digits at the start of `text` that make an HTTP status, not part of
/// a longer number.
fn code_at(text: &str) -> Option<u16> {
    let digits = text.get(..3)?;
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if text[3..].starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let code: u16 = digits.parse().ok()?;
    (100..=599).contains(&code).then_some(code)
}

/// A status stated in a line: its code, and the reason (or reason phrase)
/// stated beside it, when one agrees with it or is named as the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stated {
    pub code: u16,
    pub reason: Option<&'static str>,
    /// Read from a record's fields (a Status dumped whole: `code: 404`,
    /// `Reason:"NotFound"`), not from the client's own words about it.
    pub field: bool,
}

/// The templates whose fixed words alone name an answer (client-go's
/// generic texts first, then kube-apiserver's messages and plain bodies), and their first fixed words
/// for one scan of a line: every line of a log is read for them, and a
/// template is tried only where its first words stand.
static DISTINCTIVE: LazyLock<(Needles, Vec<&'static Template>)> = LazyLock::new(|| {
    let templates: Vec<&Template> = apimachinery::GENERIC
        .iter()
        .chain(apimachinery::TEMPLATES)
        .chain(apimachinery::PLAIN_BODIES)
        .filter(|t| t.distinctive)
        .collect();
    let first = |t: &&Template| t.parts().find(|p| !p.is_empty()).unwrap_or_default();
    (Needles::new(templates.iter().map(first), false), templates)
});

/// The first template of [`DISTINCTIVE`] found in `line`.
fn distinctive_in(line: &str) -> Option<&'static Template> {
    let (needles, templates) = &*DISTINCTIVE;
    let mut at: Vec<usize> = needles.spans(line).map(|(i, ..)| i).collect();
    at.sort_unstable();
    at.dedup();
    at.into_iter()
        .map(|i| templates[i])
        .find(|t| t.found_in(line))
}

/// Every name a status goes by (apimachinery's reasons, the reason phrases,
/// .NET's names) with its code, for one scan of a line.
static NAMES: LazyLock<(Needles, Vec<(&'static str, u16)>)> = LazyLock::new(|| {
    let mut names: Vec<(&'static str, u16)> = apimachinery::REASONS
        .iter()
        .map(|r| (r.name, r.code))
        .collect();
    for s in apimachinery::HTTP_STATUSES.iter().filter(|s| s.code >= 400) {
        names.push((s.phrase, s.code));
        names.push((s.dotnet, s.code));
    }
    let needles = Needles::words(names.iter().map(|(n, _)| *n), false);
    (needles, names)
});

/// The names of statuses in `line`, whole words: (start, name, code).
fn names_in(line: &str) -> Vec<(usize, &'static str, u16)> {
    let (needles, names) = &*NAMES;
    needles
        .spans(line)
        .filter(|&(_, _, end)| !line[end..].starts_with(|c: char| c.is_ascii_alphanumeric()))
        .map(|(i, start, _)| (start, names[i].0, names[i].1))
        .collect()
}

/// A word as a key: its letters and digits, lower case.
fn key(word: &str) -> String {
    word.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a record's field (`http.status_code`, `statusCode`) holds a status.
pub fn names_a_status(field: &str) -> bool {
    names_status(&key(field))
}

/// Whether a key's value is a status code: `status`, `statusCode`,
/// `status_code`, `http_status`, `HTTP-Code`, `responseCode`, `HTTP`,
/// `returned` (never a process's `exit status`).
fn names_status(key: &str) -> bool {
    !key.starts_with("exit")
        && (key.ends_with("status")
            || key.ends_with("statuscode")
            || ["httpcode", "responsecode", "http", "returned"].contains(&key))
}

/// The two words before byte `i` (nearest first, `was`/`is` skipped), when
/// only a key's separators (`: `, `=`, quotes, `(`) stand between the nearest
/// and `i`; and whether a `(` is among them.
fn keys_before(line: &str, i: usize) -> ([String; 2], bool) {
    let b = line.as_bytes();
    let mut out = [String::new(), String::new()];
    let (mut n, mut end, mut paren) = (0, i, false);
    while n < 2 {
        let mut j = end;
        while j > 0 && b" :=\"'(\t>".contains(&b[j - 1]) && end - j < 4 {
            paren |= n == 0 && b[j - 1] == b'(';
            j -= 1;
        }
        let word_end = j;
        while j > 0 && (b[j - 1].is_ascii_alphanumeric() || b"_-".contains(&b[j - 1])) {
            j -= 1;
        }
        if j == word_end {
            break;
        }
        let word = key(&line[j..word_end]);
        end = j;
        if n == 0 && (word == "was" || word == "is") {
            continue;
        }
        out[n] = word;
        n += 1;
    }
    (out, paren)
}

/// Whether a number ends at `end` of `line` as a status would: before a
/// space, punctuation or the end, never a unit (`401ms`) or a decimal.
fn ends_well(line: &str, end: usize) -> bool {
    !line[end..].starts_with(|c: char| {
        c.is_ascii_alphanumeric()
            || c == '.' && line[end + 1..].starts_with(|d: char| d.is_ascii_digit())
    })
}

/// A status stated anywhere in `line`, in any client's rendering: a code
/// after a word that names one (`HTTP status 401`, `statusCode: 403`,
/// `"status": 429`, `returned 401`, `ApiException: (403)`), a code and a
/// reason that agree (`Some(NotFound)…Some(404)`, `403 Forbidden`), a
/// record's `code` beside a reason (`Code:404`, `code=401`, `code: 404`),
/// or a reason named as such (`Reason:"NotFound"`, `status code 'Forbidden'`).
pub fn stated(line: &str) -> Option<Stated> {
    let names = names_in(line);
    let record = !names.is_empty() || bare_field(line);
    let mut best: Option<(u8, Stated)> = None;
    for (i, _) in line.match_indices(|c: char| c.is_ascii_digit()) {
        if i > 0 && line[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || "._-/".contains(c)) {
            continue;
        }
        let Some(code) = code_at(&line[i..]).filter(|&c| apimachinery::http_status(c).is_some())
        else {
            continue;
        };
        if !ends_well(line, i + 3) {
            continue;
        }
        let ([near, far], paren) = keys_before(line, i);
        let agrees = names.iter().find(|n| n.2 == code).map(|n| n.1);
        // A number right after `word:` with no key is a file's line or a port.
        let loose = !line[..i].ends_with([':', '=']) && !line[i + 3..].starts_with(']');
        let exception =
            ["exception", "error"].iter().any(|e| near.ends_with(e)) || near == "failed";
        // `401 Unauthorized`: the code and its name, as a client says it.
        let named = agrees.is_some_and(|n| {
            line[i + 3..]
                .strip_prefix(' ')
                .is_some_and(|r| r.starts_with(n))
        });
        let rank = if paren && exception {
            0
        } else if named
            || names_status(&near)
            // `Error 404: …` (googleapi's, and many programs' own).
            || (near == "error" && line[i + 3..].starts_with(": "))
            || (["code", "error"].contains(&near.as_str())
                && (names_status(&far)
                    || ["error", "response", "unexpected"].contains(&far.as_str())))
        {
            1
        } else if agrees.is_some() && (loose || near == "code" || near == "some") {
            2
        } else if (near == "code" || near == "some") && (record || in_record(line, i)) {
            3
        } else {
            continue;
        };
        if best.is_none_or(|(r, _)| rank < r) {
            let reason = agrees.or_else(|| named_reason(line, &names).map(|(name, _)| name));
            let field = rank >= 2;
            best = Some((
                rank,
                Stated {
                    code,
                    reason,
                    field,
                },
            ));
        }
    }
    best.map(|(_, s)| s).or_else(|| {
        named_reason(line, &names).map(|(name, code)| Stated {
            code,
            reason: Some(name),
            field: true,
        })
    })
}

/// Whether byte `i` of `line` stands inside a record as a program prints
/// one: an open `Name{`, `Name {` or `Name(` (a Java or Kotlin `toString`,
/// Rust's `Debug`, OkHttp's `Response{protocol=h2, code=401, …}`).
fn in_record(line: &str, i: usize) -> bool {
    let b = line.as_bytes();
    let mut depth = 0usize;
    for j in (0..i).rev() {
        match b[j] {
            b'}' | b')' => depth += 1,
            b'{' | b'(' if depth > 0 => depth -= 1,
            b'{' | b'(' => {
                let name = line[..j].trim_end_matches(' ');
                return name.ends_with(|c: char| c.is_ascii_alphanumeric());
            }
            _ => {}
        }
    }
    false
}

/// A line that is one record field: `code: 401`, `"code": 403,`.
fn bare_field(line: &str) -> bool {
    let t = line.trim().trim_end_matches(',');
    t.split_once([':', '=']).is_some_and(|(k, v)| {
        key(k) == "code" && v.trim().len() == 3 && v.trim().bytes().all(|b| b.is_ascii_digit())
    })
}

/// A status name stated as the reason: after `reason`, a status key, or
/// Jackson's `Unrecognized token '…'` (a plain-text body where JSON was due).
fn named_reason(line: &str, names: &[(usize, &'static str, u16)]) -> Option<(&'static str, u16)> {
    names.iter().find_map(|&(at, name, code)| {
        let ([near, _], _) = keys_before(line, at);
        let keyed = near == "reason" || near == "code" || names_status(&near);
        let body = line[..at].ends_with(clients::JACKSON_UNRECOGNIZED);
        (keyed || body).then_some((name, code))
    })
}

/// The status code stated in `line` (not a status line at its start).
pub fn stated_code(line: &str) -> Option<u16> {
    stated_in(line).map(|(code, _)| code)
}

/// [`stated_code`], and whether only a record's fields stated it.
pub fn stated_in(line: &str) -> Option<(u16, bool)> {
    if let Some(s) = stated(line) {
        return Some((s.code, s.field));
    }
    stated_otherwise(line).map(|code| (code, false))
}

/// The renderings [`stated`] does not read: a code alone in parentheses at
/// the end, an exception whose message is a status's name, a status line
/// or an access log's status anywhere.
fn stated_otherwise(line: &str) -> Option<u16> {
    // An error that ends in its status code alone, in parentheses: `… to
    // cache logs ((401)`, `…: (403)`. Only an error status: a count or a
    // size in parentheses is no answer.
    if let Some(inner) = line.trim_end().strip_suffix(')')
        && let Some(cut) = inner.len().checked_sub(3)
        && inner.get(..cut).is_some_and(|before| before.ends_with('('))
        && let Some(code) = inner.get(cut..).and_then(code_at)
        && code >= 400
    {
        return Some(code);
    }
    // A JSON decoder that met a plain-text body where a Status was due.
    if let Some(code) = plain_body(line) {
        return Some(code);
    }
    if let Some(code) = quoted_body(line) {
        return Some(code);
    }
    // An exception named for its status, or whose message is the status's
    // reason: `ApiException: Forbidden`, `HttpError: Unauthorized`.
    if let Some(code) = exception_reason(line) {
        return Some(code);
    }
    // Anywhere in a line: `HTTP/1.1 401` (wget, OkHttp, a pasted response).
    line.match_indices("HTTP/").find_map(|(i, _)| {
        let code = status_line(&line[i..]).map(|(code, _)| code);
        code.or_else(|| access_log_status(&line[i + 5..]))
    })
}

/// The code of an old kube-apiserver's plain-text body, from what a JSON
/// decoder quotes of it: Go's first letter (`invalid character 'U' looking
/// for beginning of value`).
fn plain_body(line: &str) -> Option<u16> {
    let (head, tail) = clients::GO_JSON_PLAIN_BODY.text.split_once("{first}")?;
    let at = line.find(head)? + head.len();
    let first = line[at..].chars().next()?;
    line[at + first.len_utf8()..]
        .starts_with(tail)
        .then_some(())?;
    apimachinery::PLAIN_BODIES
        .iter()
        .find(|b| b.text.starts_with(first))
        .map(|b| b.code)
}

/// The code of a plain-text body a client quotes whole (client-go's failed
/// upgrade): a reason phrase (Go's `http.Error(w, http.StatusText(code),
/// code)`), or a body kube-apiserver or the kubelet writes.
fn quoted_body(line: &str) -> Option<u16> {
    let head = clients::UPGRADE_PLAIN_BODY.text.split_once("{message}")?.0;
    let body = line[line.find(head)? + head.len()..].trim();
    apimachinery::code_of(body).or_else(|| {
        let bodies = apimachinery::PLAIN_BODIES.iter();
        bodies
            .chain(apimachinery::KUBELET_BODIES)
            .find(|b| b.parts().next().is_some_and(|p| body.starts_with(p)) && b.found_in(body))
            .map(|b| b.code)
    })
}

/// An access log's status (the common log format of nginx, Apache, a proxy
/// or an ingress): the number after the quoted request line,
/// `"GET /version HTTP/2.0" 401 62`. `after` follows `HTTP/`.
fn access_log_status(after: &str) -> Option<u16> {
    let version_end = after.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let rest = after[version_end..].strip_prefix('"')?;
    // A CSV export doubles the quotes.
    let rest = rest.strip_prefix('"').unwrap_or(rest).strip_prefix(' ')?;
    let code = code_at(rest)?;
    // The size (or `-`) follows the status.
    rest[3..].starts_with(' ').then_some(code)
}

/// `…Exception: Forbidden`, `…Error: Too Many Requests`: an exception whose
/// whole message is a status's name; and Ruby's own printings of one, whose
/// class stands after the message (`…: Unauthorized (Kubeclient::HttpError)`,
/// an uncaught error) or before it (`Kubeclient::HttpError (Unauthorized):`,
/// Rails' log).
fn exception_reason(line: &str) -> Option<u16> {
    let class = |s: &str| s.ends_with("Exception") || s.ends_with("Error");
    names_in(line).into_iter().find_map(|(i, name, code)| {
        let before = line[..i].trim_end_matches([' ', ':', '(']);
        let after = line[i + name.len()..].trim_end();
        let class_after = after
            .strip_prefix(" (")
            .and_then(|a| a.split_once(')'))
            .is_some_and(|(c, _)| class(c));
        // With the class after it, the name is the whole message (Ruby's
        // ``in `method': MESSAGE (Class)``), not a field error's last word.
        let exception =
            class(before) || (class_after && (before.is_empty() || before.ends_with('\'')));
        // The name is the message, or ends it before punctuation: not the
        // first word of a sentence (`Error: Invalid value`).
        let whole = after.is_empty()
            || after.starts_with([':', ',', '.', '(', ')', '!', ';', '"', '\''])
            || after.starts_with(" (");
        (exception && whole && line[..i].ends_with([' ', ':', '('])).then_some(code)
    })
}

/// Client texts that stand for a status when no Status body was read:
/// apimachinery's and client-go's own messages whose words alone name the
/// answer (the vocabulary's distinctive templates), and other programs'.
/// The message is the template's words, or the line from them on when the
/// template holds values.
pub fn generic_text(line: &str) -> Option<(u16, &str)> {
    if let Some(t) = distinctive_in(line) {
        let from = t.parts().next().and_then(|p| line.find(p)).unwrap_or(0);
        let message = if t.text.contains('{') {
            line[from..].trim_end()
        } else {
            t.text
        };
        return Some((t.code, message));
    }
    if let Some(message) = invalid_object(line) {
        return Some((422, message));
    }
    STATUS_TEXTS
        .iter()
        .find(|(needle, ..)| line.contains(needle))
        .map(|&(_, code, text)| (code, text))
}

/// NewInvalid's message with a field error of any type (`KIND "NAME" is
/// invalid: spec: Required value`), from the name on.
fn invalid_object(line: &str) -> Option<&str> {
    let at = line.find("\" is invalid: ")?;
    let mut errors = line[at..].split(": ").skip(2);
    errors
        .any(|e| FIELD_ERROR_TYPES.iter().any(|t| e.starts_with(t)))
        .then(|| {
            line[..at]
                .rfind('"')
                .map_or(&line[at..], |q| &line[q..])
                .trim_end()
        })
}

/// The apimachinery message a program passed on whole: the first template,
/// with a reason, whose words it holds.
pub fn template_of(message: &str) -> Option<&'static Template> {
    let mut known = apimachinery::TEMPLATES.iter();
    known.find(|t| !t.reason.is_empty() && t.found_in(message))
}

/// Whether `message` is one of client-go's generic texts for `code` (a
/// 404 text of [`apimachinery::GENERIC`]: the API is not served; a 403
/// text: client-go did not read the body, and the words are not the
/// server's).
pub fn generic_for(code: u16, message: &str) -> bool {
    apimachinery::GENERIC
        .iter()
        .any(|t| t.code == code && t.found_in(message))
}

/// Whether a 404's message says the server does not serve the API or type
/// asked for, not that an object is missing.
pub fn api_not_served(message: &str) -> bool {
    generic_for(404, message)
}

/// `Unauthorized` as the last word of an error (`…: Unauthorized`,
/// `msg=Unauthorized`, `Error: Unauthorized`, `"Unauthorized\n"`), alone, or
/// as the whole error wrapped in parentheses at the end (`… cached value.
/// (Unauthorized)`: Go programs' `(%v)` of client-go's error for a 401).
pub fn ends_unauthorized(line: &str) -> bool {
    // klog's structured value ends there: `err="…: Unauthorized" logger=…`.
    if let Some((i, _)) = line.match_indices("Unauthorized\" ").next()
        && line[i + 14..]
            .split_once('=')
            .is_some_and(|(k, _)| !k.contains([' ', '"']))
        && ends_unauthorized(&line[..i + 13])
    {
        return true;
    }
    if line
        .trim_end()
        .trim_end_matches(['"', '\'', '.', ','])
        .ends_with("(Unauthorized)")
    {
        return true;
    }
    let t = line
        .trim()
        .trim_end_matches(['"', '\'', '.', ')', ',', ' ']);
    let Some(before) = t.strip_suffix("Unauthorized") else {
        return false;
    };
    let before = before.trim_end_matches(['"', '\'', '(']);
    before.is_empty()
        || before.ends_with(": ")
        || before.ends_with([':', '='])
        || before.ends_with("error ")
        || before.ends_with("Error ")
}

/// kube-apiserver's own record of an answer (k8s.io/apiserver httplog):
/// `wrap.go:42] POST /apis/…/tokenreviews: (1.35ms) 404 [[UA] IP]` (≤1.17) or
/// `httplog.go:89] "HTTP" verb="POST" URI="/apis/…" … resp=404` (1.18+)
/// -> (method, path, code).
pub fn httplog(line: &str) -> Option<(&str, &str, u16)> {
    const OPEN: &str = "\"HTTP\" verb=\"";
    if let Some(i) = line.find(OPEN) {
        let rest = &line[i + OPEN.len()..];
        let (verb, rest) = rest.split_once('"')?;
        let uri = rest.split_once("URI=\"")?.1.split('"').next()?;
        let code = rest.split_once(" resp=")?.1.get(..3)?.parse().ok()?;
        return Some((verb, uri, code));
    }
    let rest = match line.find("wrap.go:") {
        Some(i) => line[i..].split_once("] ")?.1,
        None => line.trim_start(),
    };
    let (method, rest) = rest.split_once(' ')?;
    if method.is_empty() || !method.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let (path, rest) = rest.split_once(": (")?;
    if !path.starts_with('/') || path.contains(' ') {
        return None;
    }
    let code = rest.split_once(") ")?.1.get(..3)?.parse().ok()?;
    Some((method, path, code))
}

/// The first `Date` header anywhere in a line: `Date: …`, curl's `< date: …`,
/// kubectl -v=8's indented headers, Python's `'Date': '…'`.
pub fn date_header(line: &str) -> Option<DateTime<Utc>> {
    let parse = |v: &str| {
        DateTime::parse_from_rfc2822(v.trim().trim_matches(['\'', '"']))
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    for (open, quote) in [("'Date': '", '\''), ("\"Date\": \"", '"')] {
        if let Some((_, rest)) = line.split_once(open) {
            return rest.split_once(quote).and_then(|(value, _)| parse(value));
        }
    }
    let l = line.trim_start_matches(['<', ' ', '\t']);
    if l.get(..5).is_some_and(|h| h.eq_ignore_ascii_case("date:")) {
        return parse(&l[5..]);
    }
    // kubectl -v=8: `round_trippers.go:580]     Date: …`.
    parse(line.split_once("]     Date: ")?.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aggregator_s_check_states_its_backend_s_status() {
        let url = "https://10.0.1.197:8443/apis/metrics.k8s.io/v1beta1";
        let line = format!(
            "E0905 available_controller.go:524] v1beta1.metrics.k8s.io failed with: failing or missing response from {url}: bad status from {url}: 403"
        );
        assert_eq!(aggregator_check(&line), Some(403));
        // A port or a longer number is no status.
        assert_eq!(
            aggregator_check(&format!("bad status from {url}: 8443")),
            None
        );
        assert_eq!(aggregator_check(&format!("bad status from {url}")), None);
    }

    #[test]
    fn a_template_is_read_where_its_first_words_stand() {
        let said = "Error: the server has asked for the client to provide credentials";
        assert_eq!(generic_text(said).map(|(c, _)| c), Some(401));
        // Every distinctive template, alone on a line, is the one found (or
        // an earlier one that its words also satisfy).
        for t in &DISTINCTIVE.1 {
            let line = t.parts().collect::<Vec<_>>().join("x");
            let found = distinctive_in(&line).unwrap_or_else(|| panic!("{}", t.text));
            assert!(
                found.found_in(&line) && found.code == t.code || found.text == t.text,
                "{}",
                t.text
            );
        }
    }

    /// Every 404 text of the generic table says the API or type is not
    /// served; an object's NotFound does not.
    /// Every text that stands for an answer (gRPC's codes and their own
    /// descriptions, fabric8's, the kubelet's) is read as its status, inside
    /// a line of its own program.
    #[test]
    fn every_status_text_is_read_as_its_status() {
        for &(text, code, _) in STATUS_TEXTS {
            let line = format!("E0101 x.go:1] failed: ({text}): retrying");
            assert_eq!(generic_text(&line).map(|(c, _)| c), Some(code), "{line}");
        }
    }

    #[test]
    fn the_generic_404_texts_are_an_api_not_served() {
        for t in apimachinery::GENERIC.iter().filter(|t| t.code == 404) {
            let message = t.parts().collect::<Vec<_>>().join("x");
            assert!(api_not_served(&message), "{message}");
        }
        assert!(api_not_served(
            "error: unable to recognize \"i.yaml\": no matches for kind \"Ingress\" in version \"extensions/v1beta1\""
        ));
        assert!(!api_not_served("pods \"web-0\" not found"));
    }

    /// NewInvalid's message is a 422 with a field error of any type, its
    /// `Forbidden` a field's; the same words without a field error are not.
    #[test]
    fn an_invalid_object_is_a_422_whatever_its_field_error() {
        for t in FIELD_ERROR_TYPES {
            let line = format!("The Pod \"web\" is invalid: spec.x: {t}: detail");
            assert_eq!(generic_text(&line), Some((422, &line[8..])), "{line}");
        }
        for line in [
            "claim \"iss\" is invalid",
            "token \"x\" is invalid: Forbidden",
            "The Pod \"web\" is invalid: spec.x: must be set",
        ] {
            assert_eq!(invalid_object(line), None, "{line}");
        }
    }

    #[test]
    fn status_lines_and_codes() {
        for (line, want) in [
            ("HTTP/1.1 401 Unauthorized", Some((401, "Unauthorized"))),
            ("HTTP/2 403 ", Some((403, ""))),
            ("HTTP/2 4033", None),
        ] {
            assert_eq!(status_line(line), want, "{line}");
        }
        for (text, want) in [
            ("401", Some(401)),
            ("HTTP 403 Forbidden", Some(403)),
            ("status code: 404", Some(404)),
            ("401 errors in the last hour were caused by", None),
        ] {
            assert_eq!(bare_code(text), want, "{text}");
        }
    }

    /// Any client's serialisation of a Status: the code with its reason, a
    /// code after a word naming it, or a reason named as such.
    #[test]
    fn the_status_reader_reads_any_serialisation() {
        for (line, code, reason) in [
            (
                r#"&errors.StatusError{ErrStatus:v1.Status{Status:"Failure", Message:"pods \"x\" not found", Reason:"NotFound", Details:(*v1.StatusDetails)(0xc0004a2f00), Code:404}}"#,
                404,
                Some("NotFound"),
            ),
            (
                r#"Api(ErrorResponse { status: "Failure", message: "x", reason: "NotFound", code: 404 })"#,
                404,
                Some("NotFound"),
            ),
            (
                "Status(v1,Status,ListMeta(,,None),Some(Failure),Some(x),Some(NotFound),None,Some(404))",
                404,
                Some("NotFound"),
            ),
            // Before `TooManyRequests` a 429 came with the reason `Timeout`.
            (r#"Reason:"Timeout", Code:429}"#, 429, None),
            ("    code: 401", 401, None),
            (
                "Received a response with HTTP status 401 from GET",
                401,
                None,
            ),
            (
                "HTTP status code 403, pods is forbidden for GET /x",
                403,
                None,
            ),
            (
                "time=x level=error status_code=429 msg=throttled",
                429,
                None,
            ),
            ("the call returned 401", 401, None),
            (
                "Operation returned an invalid status code 'TooManyRequests'",
                429,
                Some("TooManyRequests"),
            ),
            ("    reason: Unauthorized", 401, Some("Unauthorized")),
            (
                "JsonParseException: Unrecognized token 'Forbidden': was expecting",
                403,
                Some("Forbidden"),
            ),
        ] {
            let s = stated(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(s.code, code, "{line}");
            if reason.is_some() {
                assert_eq!(s.reason, reason, "{line}");
            }
        }
        assert_eq!(
            stated_code("java.lang.RuntimeException: ApiException: Too Many Requests"),
            Some(429)
        );
        assert_eq!(stated_code("Error: Invalid value for the flag"), None);
    }

    #[test]
    fn codes_stated_in_client_text() {
        for (line, code) in [
            (
                "Startup probe failed: HTTP probe failed with statuscode: 401",
                401,
            ),
            (
                "wget: server returned error: HTTP/1.1 401 Unauthorized",
                401,
            ),
            ("<-- HTTP/1.1 401 Unauthorized (13ms)", 401),
            ("kubernetes.client.exceptions.ApiException: (403)", 403),
            (
                "Error: HTTP 500: Internal Server Error (x: ApiException (403) Reason",
                403,
            ),
            (
                "failed to do version request: http error 401 GET \"x\"",
                401,
            ),
            ("code: 403, statusCode: 403 } pods is forbidden", 403),
            ("reply status code was 401:", 401),
            (
                r#"failed to get successful response: &http.Response{Status:"500 Internal  Server Error", StatusCode:500, Proto:"HTTP/2.0""#,
                500,
            ),
            (
                r#"10.1.2.3 - - [07/Mar/2019:15:41:53 +0000] "GET /k8s/clusters/c-1/version?timeout=32s HTTP/2.0" 401 62 "-" "argocd-server""#,
                401,
            ),
            (r#"log: ""GET /api/v1/pods HTTP/1.1"" 403 312 ""-"""#, 403),
            ("] failed (401) 401 Unauthorized: Unauthorized", 401),
            (
                r#"Unable to get pods for namespace "x" to cache logs ((401)"#,
                401,
            ),
            (
                "WebSocketBadStatusException: Handshake status 403 Forbidden",
                403,
            ),
            (
                r#"javax.ws.rs.WebApplicationException: HTTP 403 "/osapi/v1beta3/namespaces/default/routes" is forbidden"#,
                403,
            ),
        ] {
            assert_eq!(stated_code(line), Some(code), "{line}");
        }
        for line in [
            "took 401ms",
            "Code: 403 things",
            "line 4011 of file",
            "retry after 500 seconds",
            "HTTP 1.1 is older than HTTP 2",
            "retried the call (200)",
            "files copied (1024)",
        ] {
            assert_eq!(stated_code(line), None, "{line}");
        }
        for (line, want) in [
            (
                "I0921 14:11:10.551011 5 wrap.go:42] POST /apis/authentication.k8s.io/v1/tokenreviews: (1.354755ms) 404 [[Go-http-client/1.1] 35.197.223.167:59958]",
                ("POST", "/apis/authentication.k8s.io/v1/tokenreviews", 404),
            ),
            (
                r#"I0101 httplog.go:89] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" resp=403"#,
                ("GET", "/api/v1/pods", 403),
            ),
        ] {
            assert_eq!(httplog(line), Some(want), "{line}");
        }
        assert!(ends_unauthorized(
            "Failed to list *v1.Service: Unauthorized"
        ));
        assert!(ends_unauthorized("level=fatal msg=Unauthorized"));
        assert!(ends_unauthorized("│ Error: Unauthorized"));
        assert!(!ends_unauthorized("MSG_LOGIN_UNAUTHORIZED_ERROR"));
        assert!(!ends_unauthorized("the user is Unauthorized"));
        assert!(ends_unauthorized(
            "memcache.go:138] couldn't get current server API group list; will keep using cached value. (Unauthorized)"
        ));
        assert!(!ends_unauthorized("a note (Unauthorized) in the middle"));
        assert!(ends_unauthorized(
            r#""Failed to watch" err="failed to list *v1.Pod: Unauthorized" logger="UnhandledError""#
        ));
        assert!(!ends_unauthorized(
            r#"msg="the user is Unauthorized" logger="x""#
        ));
        assert!(!ends_unauthorized(r#"err="Unauthorized" and more"#));
    }
}
