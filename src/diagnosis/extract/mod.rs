//! Extraction: from what programs print (and from satoken's own typed
//! observations) to typed [`Artefact`]s, each marked with where it came from.
//! One extractor per kind of artefact, each able to find it inside any text:
//!
//! | module | finds |
//! |---|---|
//! | [`layers`] | the text under prefixes, quotes, escapes, panes and hexdumps |
//! | [`json`], [`audit`] | Status bodies, TokenReviews, audit events, JSON log fields |
//! | [`aggregate`] | the authentication error aggregate and its messages alone |
//! | [`refusal`], [`denial`] | 403 texts, admission, quota and authorizer messages |
//! | [`kubectl`], [`clients`], [`status`], [`url`] | clients' renderings of an answer, its status, request and `Date` |
//! | [`curl`], [`shell`] | `curl -v` transcripts, prompts and command lines |
//! | [`checker`] | Vault, webhook authenticators, meshes: relayed answers and their own failures |
//! | [`transport`] | TLS, DNS, connection and timeout failures |
//!
//! [`Scanner`] reads a text line by line (bounded state, linear work per line,
//! however long the line) and yields artefacts; `classify` groups them into
//! answers.

pub mod aggregate;
pub mod audit;
pub mod checker;
pub mod clients;
pub mod curl;
pub mod denial;
pub mod exchange;
pub mod json;
pub mod kubectl;
pub mod layers;
pub mod needles;
pub mod refusal;
pub mod shell;
pub mod status;
pub mod transport;
pub mod url;

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::artefact::{Artefact, HttpFacts, Kind, Provenance, SourceType, Stamp};
use super::case::{BearerSeen, BindingKind, ClockSource};
use super::cause::Cause;
use super::reasons::AuthReason;

/// Longest excerpt kept from a line.
const EXCERPT_CHARS: usize = 240;
/// Lines a pretty-printed JSON value may span before it is read as lines.
const MAX_BLOCK_LINES: usize = 4000;
/// Bytes of a hexdump decoded into one line.
const MAX_HEX_BYTES: usize = 64 * 1024;
/// Bytes of wrapped pane lines joined into one.
const MAX_JOINED: usize = 256 * 1024;

/// Replaces anything shaped like a JWT (`eyJ….….…`) with `<token>`: evidence
/// (kubectl -v=9 logs, pasted headers) may carry a token, and output never shows one.
pub fn redact_tokens(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("eyJ") {
        return std::borrow::Cow::Borrowed(text);
    }
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("eyJ") {
        out.push_str(&rest[..i]);
        let candidate = &rest[i..];
        let len = candidate
            .find(|c: char| !(is_b64(c) || c == '.'))
            .unwrap_or(candidate.len());
        let word = &candidate[..len];
        if word.matches('.').count() >= 2 && len >= 20 {
            out.push_str("<token>");
        } else {
            out.push_str(word);
        }
        rest = &candidate[len.max(3)..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A line, trimmed, tokens redacted, and cut to a readable length.
pub fn excerpt(line: &str) -> String {
    let line = redact_tokens(line.trim());
    let line = line.as_ref();
    if line.chars().count() <= EXCERPT_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(EXCERPT_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A signal that did not make an artefact: what an unrecognised input nearly
/// was, for the one line that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NearMiss {
    pub line: usize,
    /// What was seen (`the word "Unauthorized"`, `a status code`).
    pub what: &'static str,
    /// The `--type` that reads it more leniently, if one does.
    pub try_type: Option<SourceType>,
}

/// Words that suggest evidence without making an answer.
const SIGNALS: &[(&str, &str, Option<SourceType>)] = &[
    (
        "Unauthorized",
        "the word \"Unauthorized\" without an answer around it",
        None,
    ),
    (
        "Forbidden",
        "the word \"Forbidden\" without an answer around it",
        None,
    ),
    (
        "forbidden",
        "the word \"forbidden\" without a refusal's wording",
        None,
    ),
    (
        "401",
        "the number 401 without an HTTP status around it",
        Some(SourceType::Status),
    ),
    (
        "403",
        "the number 403 without an HTTP status around it",
        Some(SourceType::Status),
    ),
    ("x509", "an x509 text that is not a TLS failure's", None),
    (
        "TokenReview",
        "a TokenReview that is neither accepted nor rejected",
        None,
    ),
    ("token", "the word \"token\" without a known message", None),
    (
        "denied",
        "the word \"denied\" without a known refusal",
        None,
    ),
];

/// A pretty-printed JSON value being read over several lines.
#[derive(Debug)]
struct Block {
    first: usize,
    stamp: Option<Stamp>,
    /// The lines as read (the first from its opening brace), for reading
    /// them one by one again if the value turns out not to be one.
    lines: Vec<(usize, String)>,
    bytes: usize,
    balance: json::Balance,
}

/// Reads a text into artefacts, line by line.
pub struct Scanner<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    now: DateTime<Utc>,
    queue: VecDeque<Artefact>,
    curl: curl::Curl,
    block: Option<Block>,
    hex: Option<(usize, Option<Stamp>, Vec<u8>)>,
    joined: Option<(usize, String)>,
    near: Option<NearMiss>,
    /// The indentation of a Python traceback's `File "…", line N` frame line
    /// just read: the more indented line after it is the source it ran.
    frame: Option<usize>,
    done: bool,
}

impl<'a> Scanner<'a> {
    /// A scanner over `text`; `now` places year-less log stamps.
    pub fn new(text: &'a str, now: DateTime<Utc>) -> Self {
        Scanner {
            lines: text.lines().enumerate(),
            now,
            queue: VecDeque::new(),
            curl: curl::Curl::default(),
            block: None,
            hex: None,
            joined: None,
            near: None,
            frame: None,
            done: false,
        }
    }

    /// The first signal that made no artefact.
    pub fn near_miss(&self) -> Option<NearMiss> {
        self.near
    }

    fn feed(&mut self, number: usize, raw: &str) {
        let stripped = layers::strip(raw, self.now);
        if let Some(bytes) = layers::hexdump_bytes(stripped.text) {
            let hex = self
                .hex
                .get_or_insert_with(|| (number, stripped.stamp, Vec::new()));
            if hex.2.len() < MAX_HEX_BYTES {
                hex.2.extend_from_slice(&bytes);
            }
            return;
        }
        self.flush_hex();
        // A traceback's source lines are code (`raise SSLError(e, …)`), not
        // what the program printed: they would read as failures of their own.
        let indent = stripped.text.len() - stripped.text.trim_start().len();
        if self.frame.take().is_some_and(|frame| indent > frame) {
            return;
        }
        if layers::traceback_frame(stripped.text) {
            self.frame = Some(indent);
            return;
        }
        // A pane (k9s) wraps long lines at its border: join them back.
        if let Some((inner, wrapped)) = layers::box_wrapped(raw) {
            let (n, mut text) = self
                .joined
                .take()
                .unwrap_or_else(|| (number, String::new()));
            text.push_str(inner);
            if wrapped && text.len() < MAX_JOINED {
                self.joined = Some((n, text));
            } else {
                self.physical(n, layers::strip(&text, self.now));
            }
            return;
        }
        if let Some((n, text)) = self.joined.take() {
            self.physical(n, layers::strip(&text, self.now));
        }
        // Stripped once: the prefixes are peeled here and nowhere else.
        self.physical(number, stripped);
    }

    fn flush_hex(&mut self) {
        if let Some((n, stamp, bytes)) = self.hex.take() {
            let text = layers::bytes_as_text(&bytes);
            self.segment(n, &text, stamp, None, false);
        }
    }

    /// One physical line (or joined pane line), its prefixes peeled.
    fn physical(&mut self, number: usize, s: layers::Stripped<'_>) {
        if self.block.is_some() && self.continue_block(number, s.text) {
            return;
        }
        if let Some((stamp, log)) = layers::docker_json(s.text) {
            for part in log.split('\n').filter(|p| !p.trim().is_empty()) {
                let inner = layers::strip(part, self.now);
                self.segment(
                    number,
                    inner.text,
                    stamp.or(inner.stamp),
                    inner.caller,
                    false,
                );
            }
            return;
        }
        if let Some(out) = self.curl.feed(number, s.text) {
            for (n, kind) in out {
                self.push(
                    n,
                    s.text,
                    s.stamp,
                    Provenance::Answer,
                    SourceType::Curl,
                    "curl -v",
                    kind,
                );
            }
            return;
        }
        self.segment(number, s.text, s.stamp, s.caller, true);
    }

    fn continue_block(&mut self, number: usize, text: &str) -> bool {
        let Some(block) = self.block.as_mut() else {
            return false;
        };
        let t = text.trim_start();
        let continues = t.is_empty()
            || t.starts_with(['"', '}', ']', '{', '[', ',', '-'])
            || t.starts_with(|c: char| c.is_ascii_digit())
            || t.starts_with("true")
            || t.starts_with("false")
            || t.starts_with("null");
        if !continues || block.lines.len() >= MAX_BLOCK_LINES || block.bytes > json::MAX_DOC {
            self.abort_block();
            return false;
        }
        let end = block.balance.feed(text);
        let (part, rest) = match end {
            Some(i) => (&text[..i], Some(&text[i..])),
            None => (text, None),
        };
        block.bytes += part.len() + 1;
        block.lines.push((number, part.to_owned()));
        if let Some(rest) = rest {
            let block = self.block.take().expect("a block is open");
            self.end_block(block);
            if !rest.trim().is_empty() {
                let s = layers::strip(rest, self.now);
                self.segment(number, s.text, s.stamp, s.caller, true);
            }
        }
        true
    }

    /// A JSON value that closed: read it as a document, or line by line.
    fn end_block(&mut self, block: Block) {
        let text: String = block
            .lines
            .iter()
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut found = Found::new(block.first, block.stamp);
        if json::interesting(&text)
            && let Some(value) = json::parse(&text)
        {
            let first_line = block.lines.first().map_or("", |(_, l)| l.as_str());
            if self.documents(&mut found, &value, first_line, true) {
                self.emit(found, first_line);
                return;
            }
        }
        self.replay(block);
    }

    fn abort_block(&mut self) {
        if let Some(block) = self.block.take() {
            self.replay(block);
        }
    }

    fn replay(&mut self, block: Block) {
        for (n, line) in block.lines {
            self.segment(n, &line, block.stamp, None, false);
        }
    }

    /// One logical segment of a line: everything the extractors find in it.
    fn segment(
        &mut self,
        number: usize,
        text: &str,
        stamp: Option<Stamp>,
        caller: Option<&str>,
        allow_block: bool,
    ) {
        if text.trim().is_empty() {
            return;
        }
        let mut found = Found::new(number, stamp);
        // Read from the raw text: the wordings hold no quotes, and a JSON
        // body around them is often cut short.
        if let Some(v) = exchange::find(text) {
            // A body: the status, when shown, is on the client's own line.
            found.http(
                HttpFacts {
                    relay: Some(v.service.to_owned()),
                    verdict: Some(v),
                    weight: 1,
                    ..HttpFacts::default()
                },
                SourceType::ClientError,
                clients::label(text),
            );
        }
        if let Some(cmd) = shell::command(text) {
            found.boundary = true;
            if let Some(u) = url::url_in_command(cmd.line) {
                let post = cmd.line.contains(" -XPOST")
                    || cmd.line.contains(" -X POST")
                    || cmd.line.contains(" -d ")
                    || cmd.line.contains(" --data");
                let method = if post { "POST" } else { "GET" };
                found.context.push(Kind::Request(url::request_from_url(
                    (cmd.program != "kubectl").then_some(method),
                    u,
                )));
            }
            if let Some(b) = shell::credentials(&cmd) {
                found.context.push(Kind::Bearer(b));
            }
            self.emit(found, text);
            return;
        }
        if shell::token_file_missing(text) {
            found.context.push(Kind::Bearer(BearerSeen::Empty));
            found.context.push(Kind::Note(format!(
                "the token file could not be read ({}): the Authorization header carried no token",
                text.trim()
            )));
            self.emit(found, text);
            return;
        }
        // JSON anywhere in the line.
        let spans = json::spans(text);
        let mut consumed = false;
        for &(a, b) in &spans.objects {
            let span = &text[a..b];
            if !json::interesting(span) {
                continue;
            }
            if let Some(value) = json::parse(span) {
                let whole = text[..a].trim().is_empty() && text[b..].trim().is_empty();
                if self.documents(&mut found, &value, text, whole) {
                    consumed |= whole;
                }
            }
        }
        if allow_block
            && let Some(open) = spans.unclosed
            && !text[open..].contains("'kind'")
        {
            let before = &text[..open];
            if !consumed && !before.trim().is_empty() {
                self.loose(&mut found, before, caller);
            }
            let mut balance = json::Balance::default();
            let part = &text[open..];
            let _ = balance.feed(part);
            self.emit(found, text);
            self.block = Some(Block {
                first: number,
                stamp,
                lines: vec![(number, part.to_owned())],
                bytes: part.len(),
                balance,
            });
            return;
        }
        if !consumed {
            self.loose(&mut found, text, caller);
        }
        if found.is_empty() {
            self.signal(number, text);
        }
        self.emit(found, text);
    }

    /// Reads a parsed JSON value's documents into `found`; whether any was one.
    fn documents(
        &mut self,
        found: &mut Found,
        value: &serde_json::Value,
        line: &str,
        whole: bool,
    ) -> bool {
        // `--logging-format=json`: the authenticator's own line.
        if value.get("msg").and_then(serde_json::Value::as_str) == Some(aggregate::MESSAGE)
            && let Some(err) = value.get("err").and_then(serde_json::Value::as_str)
        {
            let reasons = super::reasons::parse_auth_error(err);
            found.reasons(
                reasons,
                None,
                Provenance::Authenticator,
                SourceType::ApiserverLog,
                "json-log",
            );
            if let Some(ts) = value.get("ts").and_then(serde_json::Value::as_f64) {
                found.stamp =
                    DateTime::from_timestamp_millis((ts * 1000.0).round() as i64).map(|at| Stamp {
                        at,
                        source: ClockSource::LogTimestamp,
                    });
            }
            if let Some(era) = value
                .get("caller")
                .and_then(serde_json::Value::as_str)
                .and_then(aggregate::era_of_caller)
            {
                found.context.push(Kind::Note(era));
            }
            return true;
        }
        let mut docs = Vec::new();
        json::documents(value, &mut docs);
        let any = !docs.is_empty();
        for doc in docs {
            match doc {
                json::Doc::Status(facts) => {
                    let refusal = facts.message.as_deref().and_then(refusal::find);
                    if let Some(r) = refusal.filter(|r| r.tokenreviews) {
                        found.checker(
                            Cause::CheckerUnauthorized,
                            checker::name(line),
                            r.message,
                            true,
                        );
                    } else {
                        let format = if whole {
                            "status-json"
                        } else {
                            clients::label(line)
                        };
                        let source = if whole {
                            SourceType::Status
                        } else {
                            SourceType::ClientError
                        };
                        found.http(facts, source, format);
                    }
                }
                json::Doc::Review {
                    authenticated,
                    error,
                    user,
                    audiences,
                } => {
                    found.review = Some((authenticated, user, audiences));
                    if let Some(error) = error {
                        found.reasons(
                            super::reasons::parse_auth_error(&error),
                            None,
                            Provenance::Authenticator,
                            SourceType::ApiserverLog,
                            "token-review",
                        );
                    }
                }
                json::Doc::Audit(v) => {
                    if let Some((answer, stamp, excerpt)) = audit::answer(&v) {
                        found.audits.push((Box::new(answer), stamp, excerpt));
                    }
                }
                json::Doc::Text(s) => {
                    for part in s.split('\n').filter(|p| !p.trim().is_empty()) {
                        self.loose(found, part, None);
                    }
                }
            }
        }
        any
    }

    /// The extractors that look for their artefact anywhere in a line.
    fn loose(&mut self, found: &mut Found, raw: &str, caller: Option<&str>) {
        // The authenticator's own line is read from the raw text: its err=
        // field is Go-quoted.
        if found.reasons.is_none()
            && let Some(a) = aggregate::authenticator_line(raw)
        {
            self.aggregate(found, a, caller, raw);
        }
        let unescaped = layers::unescape(raw);
        for logical in unescaped.split('\n') {
            if logical.trim().is_empty() {
                continue;
            }
            self.logical(found, logical, caller);
        }
    }

    fn aggregate(
        &mut self,
        found: &mut Found,
        a: aggregate::Found,
        caller: Option<&str>,
        line: &str,
    ) {
        if let Some(err) = a.own_call_failed {
            let who = checker::name(line).or(match caller {
                Some(c) if !c.starts_with("authentication.go") => {
                    Some("an authenticator (kubelet, proxy)")
                }
                _ => None,
            });
            found.checker(
                Cause::CheckerUnauthorized,
                who,
                format!("its own TokenReview request failed: {err}"),
                true,
            );
            return;
        }
        let (provenance, source) = match a.from {
            Some(_) => (Provenance::Forwarded, SourceType::Checker),
            None => (Provenance::Authenticator, SourceType::ApiserverLog),
        };
        found.reasons(
            a.reasons,
            a.from.map(str::to_owned),
            provenance,
            source,
            a.format,
        );
        if let Some(era) = caller.and_then(aggregate::era_of_caller) {
            found.context.push(Kind::Note(era));
        }
    }

    /// One unwrapped logical line.
    fn logical(&mut self, found: &mut Found, line: &str, caller: Option<&str>) {
        if let Some(note) = server_note(line) {
            found.context.push(Kind::Note(note));
            return;
        }
        if found.reasons.is_none() {
            if let Some(a) = aggregate::bracketed(line) {
                self.aggregate(found, a, None, line);
            } else if let Some(a) = aggregate::alone(line) {
                self.aggregate(found, a, None, line);
            }
        }
        if let Some(c) = checker::find(line) {
            if let Some(f) = c.failure {
                found.checker(f.cause, f.checker, f.detail, f.certain);
            }
            if let Some(h) = c.http {
                found.http(h, SourceType::Checker, "vault");
            }
            if !c.reasons.is_empty() {
                found.reasons(
                    c.reasons,
                    Some("Vault".to_owned()),
                    Provenance::Forwarded,
                    SourceType::Checker,
                    "vault",
                );
            }
            if let Some((method, u)) = c.url {
                found
                    .context
                    .push(Kind::Request(url::request_from_url(Some(&method), &u)));
            }
            if let Some(note) = c.note {
                found.context.push(Kind::Note(note));
            }
        }
        if let Some(r) = refusal::find(line) {
            if r.tokenreviews {
                found.checker(
                    Cause::CheckerUnauthorized,
                    checker::name(line),
                    r.message,
                    true,
                );
            } else {
                let facts = HttpFacts {
                    code: r.code,
                    reason: (r.code == Some(403)).then(|| "Forbidden".to_owned()),
                    message: Some(r.message),
                    weight: 1,
                    ..HttpFacts::default()
                };
                found.http(facts, SourceType::ClientError, clients::label(line));
            }
        }
        if let Some((method, path, code)) = status::httplog(line) {
            found.http(
                HttpFacts::code(code, 2),
                SourceType::ApiserverLog,
                "httplog",
            );
            found
                .context
                .push(Kind::Request(url::request_from_url(Some(method), path)));
            found.context.push(Kind::Note(
                "kube-apiserver's own record of the status it answered".to_owned(),
            ));
        } else if let Some((code, _)) = status::status_line(line) {
            found.http(
                HttpFacts::code(code, 2),
                SourceType::Status,
                "http-response",
            );
        } else if let Some(code) = status::bare_code(line) {
            found.http(HttpFacts::code(code, 2), SourceType::Status, "status-code");
        } else if let Some((name, value)) = line.trim().split_once(':')
            && name.eq_ignore_ascii_case("audit-id")
        {
            found.context.push(Kind::Note(format!(
                "Audit-Id {}: grep the audit log for this auditID to see the user and annotations",
                value.trim()
            )));
        }
        let mut request_log = false;
        if let Some(k) = kubectl::find(line, caller) {
            request_log = k.verbose;
            let format = if k.verbose { "kubectl -v" } else { "kubectl" };
            if let Some(h) = k.http {
                found.http(h, SourceType::Kubectl, format);
            }
            if let Some(t) = k.transport {
                let (cause, also) =
                    transport::detect_all(&t).unwrap_or((Cause::Unknown, Vec::new()));
                found.transport(cause, also, t, SourceType::Kubectl, "kubectl");
            }
            if let Some(r) = k.request {
                found.context.push(Kind::Request(r));
            }
            if let Some(n) = k.note {
                found.context.push(Kind::Note(n));
            }
        }
        if let Some(c) = clients::find(line) {
            // kubectl's `-v` request log states the status of a request whose
            // answer follows; it is not a client's error of its own.
            if let Some(h) = c.http.filter(|_| !request_log) {
                found.http(h, SourceType::ClientError, c.format);
            }
            if let Some(b) = c.bearer {
                found.context.push(Kind::Bearer(b));
            }
            if let Some(r) = c.request {
                found.context.push(Kind::Request(r));
            }
            if let Some(n) = c.note {
                found.context.push(Kind::Note(n));
            }
        }
        if found.http.is_none()
            && let Some(facts) = json::lenient_status(line)
        {
            found.http(facts, SourceType::ClientError, clients::label(line));
        }
        if let Some(i) = line.find("'Audit-Id': '") {
            let id = line[i + 13..].split('\'').next().unwrap_or("");
            found.context.push(Kind::Note(format!(
                "Audit-Id {id}: grep the audit log for this auditID to see the user and annotations"
            )));
        }
        if let Some(at) = status::date_header(line) {
            found.context.push(Kind::Date(at));
        }
        if line.contains("TLS handshake error from") {
            found.context.push(Kind::Note(format!(
                "a server logged a client's failed TLS handshake (the client's own error is the answer): {}",
                excerpt(line)
            )));
        } else if let Some((cause, also)) = transport::detect_all(line) {
            found.transport(
                cause,
                also,
                line.trim().to_owned(),
                SourceType::ClientError,
                clients::label(line),
            );
        }
        if let Some((kind, name)) = missing(line) {
            found.missing.push((kind, name));
        }
    }

    fn signal(&mut self, number: usize, text: &str) {
        if self.near.is_some() {
            return;
        }
        if let Some((_, what, try_type)) = SIGNALS.iter().find(|(w, ..)| text.contains(w)) {
            self.near = Some(NearMiss {
                line: number,
                what,
                try_type: *try_type,
            });
        }
    }

    /// Turns what a segment gave into artefacts.
    fn emit(&mut self, found: Found, line: &str) {
        let Found {
            number,
            stamp,
            boundary,
            http,
            reasons,
            transport,
            checker,
            review,
            audits,
            context,
            missing,
        } = found;
        if boundary {
            self.push(
                number,
                line,
                stamp,
                Provenance::Answer,
                SourceType::Status,
                "shell",
                Kind::Boundary,
            );
        }
        let answered = http.is_some() || reasons.is_some() || checker.is_some() || review.is_some();
        if let Some((cause, checker, detail, certain)) = checker {
            self.push(
                number,
                line,
                stamp,
                Provenance::Answer,
                SourceType::Checker,
                checker.unwrap_or("checker"),
                Kind::CheckerFailure {
                    cause,
                    checker: checker.map(str::to_owned),
                    detail,
                    certain,
                },
            );
        } else if let Some(hit) = http {
            self.push(
                number,
                line,
                stamp,
                hit.provenance,
                hit.source,
                hit.format,
                Kind::Http(hit.value),
            );
        }
        if let Some(hit) = reasons {
            let (reasons, from) = hit.value;
            self.push(
                number,
                line,
                stamp,
                hit.provenance,
                hit.source,
                hit.format,
                Kind::Reasons { reasons, from },
            );
        }
        if let Some((authenticated, user, audiences)) = review {
            self.push(
                number,
                line,
                stamp,
                Provenance::Authenticator,
                SourceType::ApiserverLog,
                "token-review",
                Kind::Review {
                    authenticated,
                    user,
                    audiences,
                },
            );
        }
        if !answered && let Some(hit) = transport {
            let (cause, also, detail) = hit.value;
            self.push(
                number,
                line,
                stamp,
                hit.provenance,
                hit.source,
                hit.format,
                Kind::Transport {
                    cause,
                    also,
                    detail,
                },
            );
        }
        for (answer, audit_stamp, excerpt_text) in audits {
            self.push(
                number,
                &excerpt_text,
                audit_stamp,
                Provenance::Answer,
                SourceType::Audit,
                "audit-event",
                Kind::Audit(answer),
            );
        }
        for kind in context {
            self.push(
                number,
                line,
                stamp,
                Provenance::Answer,
                SourceType::Status,
                "context",
                kind,
            );
        }
        if !answered {
            for (kind, name) in missing {
                self.push(
                    number,
                    line,
                    stamp,
                    Provenance::ServerLog,
                    SourceType::ApiserverLog,
                    "log",
                    Kind::Missing { kind, name },
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        line: usize,
        text: &str,
        stamp: Option<Stamp>,
        provenance: Provenance,
        source: SourceType,
        format: &'static str,
        kind: Kind,
    ) {
        self.queue.push_back(Artefact {
            line,
            excerpt: excerpt(text),
            stamp,
            provenance,
            source,
            format,
            kind,
        });
    }

    fn finish(&mut self) {
        self.flush_hex();
        if let Some((n, text)) = self.joined.take() {
            self.physical(n, layers::strip(&text, self.now));
        }
        if let Some(block) = self.block.take() {
            self.end_block(block);
        }
        let mut out = Vec::new();
        self.curl.flush(&mut out);
        for (n, kind) in out {
            self.push(
                n,
                "",
                None,
                Provenance::Answer,
                SourceType::Curl,
                "curl -v",
                kind,
            );
        }
    }
}

impl Iterator for Scanner<'_> {
    type Item = Artefact;

    fn next(&mut self) -> Option<Artefact> {
        loop {
            if let Some(a) = self.queue.pop_front() {
                return Some(a);
            }
            if self.done {
                return None;
            }
            match self.lines.next() {
                Some((i, line)) => self.feed(i + 1, line),
                None => {
                    self.finish();
                    self.done = true;
                }
            }
        }
    }
}

/// A found value and where it came from.
#[derive(Debug)]
struct Hit<T> {
    value: T,
    provenance: Provenance,
    source: SourceType,
    format: &'static str,
    weight: u8,
}

/// What one segment gave, before it becomes artefacts.
#[derive(Debug)]
struct Found {
    number: usize,
    stamp: Option<Stamp>,
    boundary: bool,
    http: Option<Hit<HttpFacts>>,
    reasons: Option<Hit<(Vec<AuthReason>, Option<String>)>>,
    transport: Option<Hit<(Cause, Vec<Cause>, String)>>,
    checker: Option<(Cause, Option<&'static str>, String, bool)>,
    review: Option<(bool, Option<String>, Vec<String>)>,
    audits: Vec<(Box<super::artefact::AuditAnswer>, Option<Stamp>, String)>,
    context: Vec<Kind>,
    missing: Vec<(BindingKind, String)>,
}

impl Found {
    fn new(number: usize, stamp: Option<Stamp>) -> Self {
        Found {
            number,
            stamp,
            boundary: false,
            http: None,
            reasons: None,
            transport: None,
            checker: None,
            review: None,
            audits: Vec::new(),
            context: Vec::new(),
            missing: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.http.is_none()
            && self.reasons.is_none()
            && self.transport.is_none()
            && self.checker.is_none()
            && self.review.is_none()
            && self.audits.is_empty()
            && self.context.is_empty()
    }

    /// Another view of the segment's HTTP answer: merged, the strongest
    /// artefact naming the format.
    fn http(&mut self, facts: HttpFacts, source: SourceType, format: &'static str) {
        let weight = facts.weight;
        match &mut self.http {
            Some(hit) => {
                if weight > hit.weight {
                    hit.source = source;
                    hit.format = format;
                    hit.weight = weight;
                }
                hit.value.absorb(facts);
            }
            None => {
                self.http = Some(Hit {
                    value: facts,
                    provenance: Provenance::Answer,
                    source,
                    format,
                    weight,
                });
            }
        }
    }

    fn reasons(
        &mut self,
        reasons: Vec<AuthReason>,
        from: Option<String>,
        provenance: Provenance,
        source: SourceType,
        format: &'static str,
    ) {
        if self.reasons.is_none() && !reasons.is_empty() {
            self.reasons = Some(Hit {
                value: (reasons, from),
                provenance,
                source,
                format,
                weight: 0,
            });
        }
    }

    fn transport(
        &mut self,
        cause: Cause,
        also: Vec<Cause>,
        detail: String,
        source: SourceType,
        format: &'static str,
    ) {
        if self.transport.is_none() {
            self.transport = Some(Hit {
                value: (cause, also, detail),
                provenance: Provenance::Answer,
                source,
                format,
                weight: 0,
            });
        }
    }

    fn checker(
        &mut self,
        cause: Cause,
        checker: Option<&'static str>,
        detail: String,
        certain: bool,
    ) {
        if self.checker.is_none() {
            self.checker = Some((cause, checker, detail, certain));
        }
    }
}

/// A server's log line about its own work (an authorizer's trace, an
/// authenticator that could not start): context, never an answer.
fn server_note(line: &str) -> Option<String> {
    if let Some(i) = line.find("RBAC DENY: ") {
        return Some(format!(
            "the RBAC authorizer logged a denial (another authorizer may still allow the request): {}",
            excerpt(&line[i + 11..])
        ));
    }
    if let Some(i) = line.find("Failed calling webhook, failing ") {
        return Some(format!(
            "kube-apiserver logged a failed call to an admission webhook (its own call, not a client's answer): {}",
            excerpt(&line[i..])
        ));
    }
    if let Some(i) = line.find("oidc authenticator: ") {
        return Some(format!(
            "kube-apiserver's OIDC authenticator could not start ({}): tokens of that issuer are rejected until it does",
            excerpt(&line[i + 20..])
        ));
    }
    None
}

/// `KIND "NAME" not found` in a server's log line: a clue, not an answer.
fn missing(line: &str) -> Option<(BindingKind, String)> {
    let at = line.find("\" not found")?;
    let before = &line[..at];
    let open = before.rfind('"')?;
    let name = &before[open + 1..];
    let kind_word = before[..open].trim_end().rsplit([' ', ':', '"']).next()?;
    let kind = match kind_word {
        "secrets" | "secret" => BindingKind::Secret,
        "pods" | "pod" => BindingKind::Pod,
        "serviceaccounts" | "serviceaccount" => BindingKind::ServiceAccount,
        "nodes" | "node" => BindingKind::Node,
        _ => return None,
    };
    (!name.is_empty()).then(|| (kind, name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap()
    }

    fn kinds(text: &str) -> Vec<(usize, Kind)> {
        Scanner::new(text, now())
            .map(|a| (a.line, a.kind))
            .collect()
    }

    #[test]
    fn a_traceback_s_source_lines_are_not_output() {
        let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/requests/adapters.py\", line 727, in send\n    raise SSLError(e, request=request)\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nrequests.exceptions.SSLError: HTTPSConnectionPool(host='127.0.0.1', port=6443): Max retries exceeded with url: /api (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))\n";
        let causes: Vec<(usize, Cause)> = kinds(text)
            .into_iter()
            .filter_map(|(n, k)| match k {
                Kind::Transport { cause, .. } => Some((n, cause)),
                _ => None,
            })
            .collect();
        assert_eq!(causes, [(5, Cause::TlsUntrustedCa)]);
    }

    #[test]
    fn a_pretty_status_after_a_prompt() {
        let text = "$ curl -k https://h/api/v1/namespaces/default/services\n{\n  \"kind\": \"Status\",\n  \"metadata\": {\n    \n  },\n  \"message\": \"services is forbidden: User \\\"system:anonymous\\\" cannot list\",\n  \"reason\": \"Forbidden\",\n  \"code\": 403\n}root@pod:/# curl https://h/x\n";
        let k = kinds(text);
        assert!(matches!(k[0].1, Kind::Boundary));
        let http: Vec<&(usize, Kind)> = k
            .iter()
            .filter(|(_, k)| matches!(k, Kind::Http(_)))
            .collect();
        assert_eq!(http.len(), 1);
        assert_eq!(http[0].0, 2);
        let Kind::Http(h) = &http[0].1 else {
            unreachable!()
        };
        assert_eq!(h.code, Some(403));
        // The command glued after the closing brace starts the next request.
        assert!(
            k.iter()
                .filter(|(_, k)| matches!(k, Kind::Boundary))
                .count()
                == 2
        );
    }

    #[test]
    fn escaped_and_wrapped_and_dumped() {
        let k = kinds(
            r#"time="2019-11-25T16:30:34Z" level=error msg="namespaces is forbidden: User \"system:serviceaccount:kube-system:pdb\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope""#,
        );
        let Some((_, Kind::Http(h))) = k.first() else {
            panic!("{k:?}")
        };
        assert_eq!(h.code, Some(403));
        assert!(
            h.message
                .as_deref()
                .unwrap()
                .ends_with("at the cluster scope")
        );
        let text = "│ x I0204 20:02:58.118029 1 request.go:1154] Response Body: {\"kind\":\"Status\",\"message\":\"tokenreviews.authentication.k8s.io is forbidden: User \\\"sys │\n│ tem:serviceaccount:r:o\\\" cannot create resource \\\"tokenreviews\\\" in API group \\\"authentication.k8s.io\\\" at the cluster scope\",\"code\":403}           │\n";
        let k = kinds(text);
        assert!(
            k.iter().any(|(_, k)| matches!(
                k,
                Kind::CheckerFailure {
                    cause: Cause::CheckerUnauthorized,
                    ..
                }
            )),
            "{k:?}"
        );
        let text = "Oct 10 10:11:38 n kubelet[1]: 00000460  48 5b 69 6e 76 61 6c 69  64 20 62 65 61 72 65 72  |H[invalid bearer|\nOct 10 10:11:38 n kubelet[1]: 00000470  20 74 6f 6b 65 6e 2c 20  73 71 75 61 72 65 2f 67  | token, square/g|\nOct 10 10:11:38 n kubelet[1]: 00000480  6f 2d 6a 6f 73 65 3a 20  65 72 72 6f 72 20 69 6e  |o-jose: error in|\nOct 10 10:11:38 n kubelet[1]: 00000490  20 63 72 79 70 74 6f 67  72 61 70 68 69 63 20 70  | cryptographic p|\nOct 10 10:11:38 n kubelet[1]: 000004a0  72 69 6d 69 74 69 76 65  5d 1a 00 22 00           |rimitive]..\".|\n";
        let k = kinds(text);
        assert!(
            k.iter()
                .any(|(_, k)| matches!(k, Kind::Reasons { reasons, .. } if reasons.len() == 2)),
            "{k:?}"
        );
    }

    #[test]
    fn server_logs_are_clues() {
        let k = kinds(
            r#"E0101 00:00:00.000000 1 tokens_controller.go:1] secrets "default-token-x" not found"#,
        );
        assert!(
            matches!(&k[0].1, Kind::Missing { kind: BindingKind::Secret, name } if name == "default-token-x"),
            "{k:?}"
        );
        let k = kinds(
            "Mar 26 16:23:32 h microk8s.daemon-apiserver[1]: I0326 16:23:32.570409 1 log.go:172] http: TLS handshake error from 1.2.3.4:34010: remote error: tls: bad certificate",
        );
        assert!(matches!(&k[0].1, Kind::Note(_)), "{k:?}");
    }

    #[test]
    fn near_misses_say_what_was_seen() {
        let mut s = Scanner::new("the deploy failed with 401 somewhere\n", now());
        assert!(s.next().is_none());
        assert_eq!(s.near_miss().unwrap().try_type, Some(SourceType::Status));
    }
}
