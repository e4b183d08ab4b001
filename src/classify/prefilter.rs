//! Pure: which lines of a log the engine must read. Most of a day's API
//! server log is routine (watches, caches, traces, leases); the engine reads
//! a line only when it holds an anchor: a word every failure the engine
//! reads from one line carries (a status's words and reason phrases, the
//! reasons' `token`, the literal words of every wording in
//! [`crate::diagnosis::wordings`], of the texts that stand for an answer
//! ([`crate::vocabulary::cues::STATUS_TEXTS`]), and of apimachinery's
//! messages and client-go's texts in [`crate::vocabulary::apimachinery`];
//! not the words any error says, as klog's error lines do), found by one
//! case-insensitive Aho-Corasick pass; or when it holds a number that may
//! stand for a status (`401`, `(500):`). tests/it/classify_log.rs reads
//! every corpus line by line with and without this test and requires the
//! same events.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::diagnosis::extract::layers::unescape_once;
use crate::diagnosis::wordings::{self, Wording};
use crate::vocabulary::apimachinery::{GENERIC, HTTP_STATUSES, TEMPLATES};
use crate::vocabulary::cues::{PREFILTER_WORDS, STATUS_TEXTS};
use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// The anchors, as [`shortest`] leaves them.
static ANCHOR_WORDS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let wordings = wordings::all().map(literal);
    // apimachinery's messages and client-go's texts for a bodiless answer, by
    // the longest part each prints whatever its values.
    let templates = TEMPLATES.iter().chain(GENERIC).map(|t| {
        t.text
            .split(['{', '}'])
            .step_by(2)
            .map(str::trim)
            .min_by_key(|part| std::cmp::Reverse(part.len()))
            .unwrap_or("")
    });
    // A failing status's reason phrase, Go's and .NET's (`ApiException: Gone`).
    let phrases = HTTP_STATUSES
        .iter()
        .filter(|s| s.code >= 400)
        .flat_map(|s| [s.phrase, s.dotnet]);
    // The texts that stand for an answer without a Status around them.
    let answers = STATUS_TEXTS.iter().map(|(text, ..)| *text);
    let all = PREFILTER_WORDS
        .iter()
        .copied()
        .chain(answers)
        .chain(wordings)
        .chain(phrases)
        .chain(templates.filter(|part| part.len() >= 6));
    shortest(all)
});

// A DFA: every line that is not httplog's is searched, so a table lookup per
// byte, not an NFA's walk; small, as its anchors are.
static ANCHORS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::DFA))
        .ascii_case_insensitive(true)
        .build(ANCHOR_WORDS.iter())
        .expect("short anchors always build")
});

/// How a log platform's query matches a regular expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Found anywhere in the line, `(?i)` for case: RE2 (Loki, Cloud
    /// Logging) and Java's (CloudWatch Logs Insights).
    Search,
    /// Matching the whole line, the case left to the query: Lucene's
    /// (Elasticsearch and OpenSearch `regexp`).
    Whole,
}

/// The lines the log reader reads, as one regular expression: a superset
/// of the lines [`candidate`] passes (every anchor, a number that may be a
/// status) and of httplog's failed requests (`resp=401`, `"resp":503`), so
/// that a log platform ships only those.
pub fn pattern(dialect: Dialect) -> String {
    // Every ASCII punctuation escaped: a literal in all three syntaxes.
    let escape = |a: &String| {
        a.chars().fold(String::new(), |mut out, c| {
            if c.is_ascii_punctuation() {
                out.push('\\');
            }
            out.push(c);
            out
        })
    };
    let words: Vec<String> = ANCHOR_WORDS.iter().map(escape).collect();
    let (words, status) = (words.join("|"), "[345][0-9]{2}");
    let request = r#"resp"?[:=]"?[45][0-9]{2}"#;
    match dialect {
        Dialect::Search => {
            format!("(?i)({words}|{request})|(^|[^0-9A-Za-z.:]){status}([^0-9A-Za-z]|$)")
        }
        Dialect::Whole => {
            format!(".*({words}|{request}).*|(.*[^0-9A-Za-z.:])?{status}([^0-9A-Za-z].*)?")
        }
    }
}

/// An anchor's bytes kept: a line that holds an anchor holds its start.
const ANCHOR_BYTES: usize = 10;

/// The anchors cut to their longest part without a quote or a backslash
/// (which a line nested in a JSON string carries escaped), then to its first
/// [`ANCHOR_BYTES`], and without those that hold another: the lines they
/// find are a superset of the lines the whole anchors find, and the
/// automaton stays small enough for the CPU's cache.
fn shortest<'a>(anchors: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut cut: Vec<String> = anchors
        .map(|a| {
            // Untrimmed: `http/2 ` is an anchor where `http/2` would pass
            // every trace's `protocol:HTTP/2.0,`.
            let parts = a.split(['"', '\\']);
            parts.max_by_key(|part| part.len()).unwrap_or("")
        })
        .map(|a| a[..a.floor_char_boundary(ANCHOR_BYTES)].to_ascii_lowercase())
        .filter(|a| !a.is_empty())
        .collect();
    cut.sort_by_key(String::len);
    let mut kept: Vec<String> = Vec::new();
    for a in cut {
        if !kept.iter().any(|k| a.contains(k.as_str())) {
            kept.push(a);
        }
    }
    kept
}

/// The longest part of a wording that is printed as it stands: the text
/// between its UPPERCASE placeholders and its ` … ` gaps, which every line
/// of the wording holds whatever the values.
fn literal(w: &Wording) -> &'static str {
    let text = w.text;
    let (mut best, mut start, mut at) = ("", 0, 0);
    for word in text.split_inclusive(' ') {
        if placeholder(word) {
            best = longer(best, &text[start..at]);
            start = at + word.len();
        }
        at += word.len();
    }
    best = longer(best, &text[start..]);
    // A wording made only of placeholders: the whole text (never matched, so
    // the generic words must carry it; the unit test says when they do not).
    if best.is_empty() { text } else { best }
}

fn longer<'t>(best: &'t str, part: &'t str) -> &'t str {
    let part = part.trim();
    if part.len() > best.len() { part } else { best }
}

/// `SERVICE_ACCOUNT`, `"AUDIENCE"`, ` … `: where a wording's values go.
fn placeholder(word: &str) -> bool {
    let bare = word
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
    (bare.len() > 1 && bare.bytes().all(|c| c.is_ascii_uppercase() || c == b'_'))
        || word.trim() == "…"
}

/// Whether the engine must read `line` (see the module documentation), as
/// written or with its JSON escapes undone layer by layer, as the engine
/// undoes them (a JSON string per nesting, then the escapes inside).
pub fn candidate(line: &[u8]) -> bool {
    let anchored = |line: &[u8]| ANCHORS.is_match(line) || status_number(line);
    if anchored(line) {
        return true;
    }
    if memchr::memmem::find(line, b"\\u").is_none() {
        return false;
    }
    let text = String::from_utf8_lossy(line).into_owned();
    let layers = std::iter::successors(Some(text), |t| match unescape_once(t) {
        Cow::Owned(next) if next != *t => Some(next),
        _ => None,
    });
    layers.take(16).any(|t| anchored(t.as_bytes()))
}

/// A number that may be an HTTP status the engine reads without a word
/// beside it (`401`, `(500):`, `) 403 [[`): three digits from 300 to 599
/// standing apart, not part of a decimal, an address, a `file.go:NNN` or a
/// longer number.
fn status_number(line: &[u8]) -> bool {
    memchr::memchr3_iter(b'3', b'4', b'5', line).any(|i| {
        let before = i.checked_sub(1).map(|b| line[b]);
        let apart = |c: Option<&u8>| c.is_none_or(|c| !c.is_ascii_alphanumeric());
        before.is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'.' && b != b':')
            && line.get(i + 1..i + 3).is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            && apart(line.get(i + 3))
            // `401.5ms` is a duration; `401.` ends a sentence.
            && !(line.get(i + 3) == Some(&b'.') && line.get(i + 4).is_some_and(u8::is_ascii_digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Failing answers as one line each, in the forms logs carry them.
    const LINES: &[&str] = &[
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"system:serviceaccount:shop:app\" cannot list resource \"pods\" in API group \"\" in the namespace \"shop\"","reason":"Forbidden","details":{"kind":"pods"},"code":403}"#,
        "error: You must be logged in to the server (Unauthorized)",
        r#"Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:shop:app" cannot list resource "pods" in API group "" in the namespace "shop""#,
        r#"E0101 10:00:00.000000       1 authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#,
        r#"{"ts":1767225585.442,"caller":"filters/authentication.go:73","msg":"Unable to authenticate the request","err":"[invalid bearer token, service account token has expired]"}"#,
        "< HTTP/1.1 401 Unauthorized",
        "kubernetes.client.exceptions.ApiException: (401)",
        "curl: (60) SSL certificate problem: unable to get local issuer certificate",
    ];

    /// One way a line may reach a log changed: a character as a JSON `\u`
    /// escape, its case flipped, or the whole line quoted inside a JSON
    /// object (as a log shipper nests it).
    #[derive(Debug, Clone)]
    enum Mutation {
        Escape(usize),
        Case(usize),
        Nest,
    }

    fn mutate(line: &str, m: &Mutation) -> String {
        let chars: Vec<char> = line.chars().collect();
        let n = chars.len().max(1);
        let at = |i: usize| i % n;
        match *m {
            Mutation::Escape(i) if chars[at(i)].is_ascii_alphanumeric() => {
                let mut out: String = chars[..at(i)].iter().collect();
                out.push_str(&format!("\\u{:04x}", chars[at(i)] as u32));
                out.extend(&chars[at(i) + 1..]);
                out
            }
            Mutation::Case(i) => {
                let mut chars = chars;
                let c = chars[at(i)];
                chars[at(i)] = if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                chars.into_iter().collect()
            }
            Mutation::Nest => serde_json::json!({ "log": line }).to_string(),
            Mutation::Escape(_) => line.to_owned(),
        }
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            4 => any::<usize>().prop_map(Mutation::Escape),
            2 => any::<usize>().prop_map(Mutation::Case),
            1 => Just(Mutation::Nest),
        ]
    }

    proptest! {
        /// The prefilter is a superset of what the engine reads: a mutated
        /// line the engine reads as a failing event always passes it.
        #[test]
        fn every_line_the_engine_reads_as_an_event_passes(
            seed in 0..LINES.len() + wordings::all().count(),
            mutations in proptest::collection::vec(mutation(), 0..6),
        ) {
            let line = LINES.get(seed).map_or_else(
                || wordings::all().nth(seed - LINES.len()).map_or("", |w| w.text).to_owned(),
                |l| (*l).to_owned(),
            );
            let line = mutations.iter().fold(line, |l, m| mutate(&l, m));
            let now = crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap();
            let failing = crate::classify::start(&line, None, now).is_ok_and(|s| {
                s.events.into_iter().any(|e| {
                    e.facts.answer.classification() != crate::diagnosis::Classification::Ok
                })
            });
            prop_assert!(!failing || candidate(line.as_bytes()), "{line}");
        }
    }

    /// A Status reason alone, as each renderer prints its field (a Go
    /// struct's line, JSON, `%+v`, logfmt): a line the engine reads as a
    /// failing answer is a candidate.
    #[test]
    fn every_status_reason_the_engine_reads_is_a_candidate() {
        let now = crate::timefmt::parse_instant("2026-01-02T00:00:00Z").unwrap();
        for r in crate::vocabulary::apimachinery::REASONS {
            let n = r.name;
            for line in [
                format!("            Reason: \"{n}\","),
                format!("{{\"reason\":\"{n}\"}}"),
                format!("Reason:{n}"),
                format!("reason={n}"),
                format!("reason='{n}'"),
            ] {
                let failing = crate::classify::start(&line, None, now).is_ok_and(|s| {
                    s.events.into_iter().any(|e| {
                        e.facts.answer.classification() != crate::diagnosis::Classification::Ok
                    })
                });
                assert!(!failing || candidate(line.as_bytes()), "{line}");
            }
        }
    }

    #[test]
    fn every_wording_of_a_failure_is_a_candidate() {
        for w in wordings::all() {
            // As written, and quoted in a JSON string (its quotes escaped).
            let nested = mutate(w.text, &Mutation::Nest);
            assert!(
                w.cause.is_none() || candidate(w.text.as_bytes()) && candidate(nested.as_bytes()),
                "{}",
                w.text
            );
            // A wording's line with other values in its placeholders.
            let filled: String = w
                .text
                .split_inclusive(' ')
                .map(|word| if placeholder(word) { "x " } else { word })
                .collect();
            assert!(
                w.cause.is_none() || !w.text.contains(' ') || candidate(filled.as_bytes()),
                "{filled}"
            );
        }
        for line in [
            "401",
            "E0101 00:00:00.000000 1 x.go:1] 403 Forbidden",
            "HTTP 503",
            "Dashboard reported (500):",
            "GET /api: (484.044µs) 401 [[kubectl/v1.10.2] 10.0.0.1:52998]",
            "curl: (52) Empty reply from server",
            // A Status whose every anchor is `\u`-escaped: a paste reads a 401.
            r#"{"kind":"\u0053tatus","\u0073tatus":"F\u0061ilure","message":"\u0055nauthorized","\u0063ode":401}"#,
        ] {
            assert!(candidate(line.as_bytes()), "{line}");
        }
        for routine in [
            r#"I0101 00:00:00.000000       1 get.go:262] "Starting watch" path="/api/v1/pods" timeout="7m40s""#,
            "Trace[454033495]: [474.219ms] [774.255ms] END",
            "I0101 00:00:00.000000       1 controller.go:401] Lease renewed in 4.401s",
            "I0101 00:00:00.000000       1 cacher.go:847] cacher (pods): 6 objects queued in incoming channel.",
            "E1127 08:00:00.000000       1 watcher.go:342] watch chan error: etcdserver: mvcc: required revision has been compacted",
            "W1127 03:23:39.026739       1 reflector.go:547] storage/cacher.go:/events: watch of *core.Event ended with: very short watch: storage/cacher.go:/events: Unexpected watch close - watch lasted less than a second and no items received",
            r#"I1127 07:40:40.611316       1 trace.go:236] Trace[624488420]: "List" accept:application/json, */*,audit-id:8e81973e,client:10.0.0.175,api-group:,api-version:v1,name:,subresource:,namespace:ml,protocol:HTTP/2.0,resource:pods,scope:namespace,url:/api/v1/namespaces/ml/pods,user-agent:kubelet/v1.31.0,verb:LIST (27-Nov-2026 07:40:40.000) (total time: 512ms):"#,
        ] {
            assert!(!candidate(routine.as_bytes()), "{routine}");
        }
    }
}
