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
//! | [`mesh`] | istiod's and Linkerd identity's TokenReview verdicts on sidecar tokens |
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
pub mod mesh;
pub mod needles;
pub mod refusal;
mod segment;
mod server_log;
pub mod shell;
pub mod status;
pub mod transport;
pub mod url;

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::artefact::{Artefact, Kind, Place, Provenance, SourceType};
use super::facts::{
    Answer, BearerSeen, Case, CheckerCall, ClockSource, JwtRejectionSeen, NotFound, RequestInfo,
};
use super::facts::{HttpAnswer, ServerClock, TransportFailure};
use super::forbidden::Forbidden;
use crate::vocabulary::cause::Cause;
use crate::vocabulary::cues::NEAR_MISSES;
use crate::vocabulary::wordings::NodeAudienceRefusal;
use clients::ClientLine;
use segment::{Hit, Origin, Segment};
use server_log::{missing, server_failure, server_note, token_verdict};

/// Longest excerpt kept from a line.
const EXCERPT_CHARS: usize = 240;
/// Lines a pretty-printed JSON value may span before it is read as lines.
const MAX_BLOCK_LINES: usize = 4000;
/// Bytes of a hexdump decoded into one line.
const MAX_HEX_BYTES: usize = 64 * 1024;
/// Bytes of wrapped pane lines joined into one.
const MAX_JOINED: usize = 256 * 1024;

/// Where the artefacts of a shell line, a TokenReview, an audit event, a
/// segment's context, a server's log line and a curl transcript come from.
const SHELL: Origin = (Provenance::Answer, SourceType::Status, "shell");
const TOKEN_REVIEW: Origin = (
    Provenance::Authenticator,
    SourceType::ApiserverLog,
    "token-review",
);
const AUDIT_EVENT: Origin = (Provenance::Answer, SourceType::Audit, "audit-event");
const CONTEXT: Origin = (Provenance::Answer, SourceType::Status, "context");
const CURL: Origin = (Provenance::Answer, SourceType::Curl, "curl -v");

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

/// A pretty-printed JSON value being read over several lines.
#[derive(Debug)]
struct Block {
    stamp: Option<ServerClock>,
    /// The lines as read (the first from its opening brace, never none), for
    /// reading them one by one again if the value turns out not to be one.
    lines: Vec<(usize, String)>,
    bytes: usize,
    balance: json::Balance,
}

/// Reads a text into artefacts, line by line.
pub struct Scanner<'a> {
    lines: layers::Unwrapped<'a>,
    now: DateTime<Utc>,
    queue: VecDeque<Artefact>,
    curl: curl::Curl,
    block: Option<Block>,
    hex: Option<(usize, Option<ServerClock>, Vec<u8>)>,
    joined: Option<(usize, String)>,
    near: Option<NearMiss>,
    /// The indentation of a Python traceback's `File "…", line N` frame line
    /// just read: the more indented line after it is the source it ran.
    frame: Option<usize>,
    /// A service refused a call earlier in the text: a credential source that
    /// failed after it (an exec plugin's exit code) failed because of it.
    refused: bool,
}

impl<'a> Scanner<'a> {
    /// A scanner over `text`; `now` places year-less log stamps.
    pub fn new(text: &'a str, now: DateTime<Utc>) -> Self {
        Scanner {
            lines: layers::Unwrapped::new(text),
            now,
            queue: VecDeque::new(),
            curl: curl::Curl::default(),
            block: None,
            hex: None,
            joined: None,
            near: None,
            frame: None,
            refused: false,
        }
    }

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
                let stamp = stamp.or(inner.stamp);
                self.segment(number, inner.text, stamp, inner.caller, false);
            }
            return;
        }
        if let Some(out) = self.curl.feed(number, s.text) {
            for (n, kind) in out {
                self.push((n, s.text, s.stamp), CURL, kind);
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
            || t.starts_with(|c: char| c.is_ascii_digit() || "\"}]{[,-".contains(c))
            || ["true", "false", "null"].iter().any(|w| t.starts_with(w));
        if !continues || block.lines.len() >= MAX_BLOCK_LINES || block.bytes > json::MAX_DOC {
            let block = self.block.take().expect("a block is open");
            self.replay(block);
            return false;
        }
        let end = block.balance.feed(text);
        let (part, rest) = text.split_at(end.unwrap_or(text.len()));
        block.bytes += part.len() + 1;
        block.lines.push((number, part.to_owned()));
        if end.is_some() {
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
        let lines: Vec<&str> = block.lines.iter().map(|(_, l)| l.as_str()).collect();
        let text = lines.join("\n");
        let mut found = Segment::new(block.lines[0].0, block.stamp);
        if json::interesting(&text)
            && let Some(value) = json::parse(&text)
            && self.documents(&mut found, &value, lines[0], true, false)
        {
            self.emit(found, lines[0]);
            return;
        }
        self.replay(block);
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
        stamp: Option<ServerClock>,
        caller: Option<&str>,
        allow_block: bool,
    ) {
        if text.trim().is_empty() {
            return;
        }
        let mut found = Segment::new(number, stamp);
        // Read from the raw text: the wordings hold no quotes, and a JSON
        // body around them is often cut short.
        self.refused |= refusal_of_a_service(&mut found, text);
        if let Some(cmd) = shell::command(text) {
            found.boundary = true;
            if let Some(u) = url::url_in_command(cmd.line) {
                let post = [" -XPOST", " -X POST", " -d ", " --data"]
                    .iter()
                    .any(|flag| cmd.line.contains(flag));
                let method = if post { "POST" } else { "GET" };
                found.context.push(Kind::Request(url::request_from_url(
                    (cmd.program != "kubectl").then_some(method),
                    u,
                )));
            }
            // curl's transcript that follows: credentials on the command
            // line that no request header shows.
            if cmd.program == "curl" {
                self.curl.other_credentials = shell::other_credentials(&cmd);
            }
            // client-go's debug round-tripper echoes the request as a curl
            // line from outside the exec-plugin and auth-provider wrappers:
            // the header they add is never in it.
            let echoed = kubectl::is_round_tripper(text, caller);
            found.context.extend(
                shell::credentials(&cmd)
                    .map(|b| match b {
                        BearerSeen::Absent if echoed => BearerSeen::NotInTrace,
                        b => b,
                    })
                    .map(Kind::Bearer),
            );
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
            if json::interesting(span)
                && let Some(value) = json::parse(span)
            {
                let whole = text[..a].trim().is_empty() && text[b..].trim().is_empty();
                if self.documents(&mut found, &value, text, whole, false) {
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
        if caller.is_some_and(kubectl::is_request_log) {
            found.request_log();
        }
        self.emit(found, text);
    }

    /// Reads a parsed JSON value's documents into `found`; whether any was
    /// one. A document in one of its strings (a log field that holds an
    /// API's body) is read too, one level deep.
    fn documents(
        &mut self,
        found: &mut Segment,
        value: &serde_json::Value,
        line: &str,
        whole: bool,
        nested: bool,
    ) -> bool {
        // `--logging-format=json`: the authenticator's own line.
        if value.get("msg").and_then(serde_json::Value::as_str) == Some(aggregate::MESSAGE)
            && let Some(err) = value.get("err").and_then(serde_json::Value::as_str)
        {
            let reasons = super::reasons::parse_auth_error(err);
            let origin = (
                Provenance::Authenticator,
                SourceType::ApiserverLog,
                "json-log",
            );
            found.reasons(reasons, None, origin);
            if let Some(ts) = value.get("ts").and_then(serde_json::Value::as_f64) {
                let at = DateTime::from_timestamp_millis((ts * 1000.0).round() as i64);
                found.stamp = at.map(|at| ServerClock::at(at, ClockSource::LogTimestamp));
            }
            let caller = value.get("caller").and_then(serde_json::Value::as_str);
            let era = caller.and_then(aggregate::era_of_caller);
            found.context.extend(era.map(Kind::Note));
            return true;
        }
        let docs = json::documents(value);
        let any = !docs.is_empty();
        for doc in docs {
            match doc {
                json::Doc::Status(facts) => {
                    let refusal = facts.message.as_deref().and_then(refusal::find);
                    if let Some(r) = refusal.filter(|r| r.review_call) {
                        found.checker_failed(
                            checker::name(line),
                            r.message,
                            CheckerCall::Refused,
                            true,
                        );
                    } else {
                        let (source, format) = if whole {
                            (SourceType::Status, "status-json")
                        } else {
                            (SourceType::ClientError, clients::label(line))
                        };
                        found.http(facts, source, format);
                    }
                }
                json::Doc::Review(value, error) => {
                    found.review = Some(Hit {
                        value,
                        origin: TOKEN_REVIEW,
                    });
                    if let Some(error) = error {
                        let reasons = super::reasons::parse_auth_error(&error);
                        found.reasons(reasons, None, TOKEN_REVIEW);
                    }
                }
                json::Doc::Audit(v) => {
                    if let Some((answer, stamp, excerpt)) = audit::answer(&v) {
                        found.audits.push((Box::new(answer), stamp, excerpt));
                    }
                }
                json::Doc::Code(code) => {
                    let facts = HttpAnswer::with_status(code, 2);
                    found.http(facts, SourceType::ClientError, "json-log");
                }
                json::Doc::Text(s) => {
                    for part in s.split('\n').filter(|p| !p.trim().is_empty()) {
                        // A document over several lines (an OAuth error's
                        // error_description) is read as its lines would be.
                        self.refused |= refusal_of_a_service(found, part);
                        if !nested {
                            for &(a, b) in &json::spans(part).objects {
                                let span = &part[a..b];
                                if json::interesting(span)
                                    && let Some(inner) = json::parse(span)
                                {
                                    self.documents(found, &inner, part, false, true);
                                }
                            }
                        }
                        self.loose(found, part, None);
                    }
                }
            }
        }
        any
    }

    /// The extractors that look for their artefact anywhere in a line.
    fn loose(&mut self, found: &mut Segment, raw: &str, caller: Option<&str>) {
        // The authenticator's own line is read from the raw text: its err=
        // field is Go-quoted.
        if found.reasons.is_none()
            && let Some(a) = aggregate::authenticator_line(raw)
        {
            self.aggregate(found, a, caller, raw);
        }
        let had_http = found.http.is_some();
        let unescaped = layers::unescape(raw);
        for logical in unescaped.split('\n').filter(|l| !l.trim().is_empty()) {
            self.logical(found, logical, caller);
        }
        // A status inside an authenticator's reasons is its own onward
        // call's (a webhook authenticator's 404), not the client's answer.
        if !had_http
            && found
                .reasons
                .as_ref()
                .is_some_and(|r| r.origin.0 == Provenance::Authenticator)
        {
            found.http = None;
        }
    }

    fn aggregate(
        &mut self,
        found: &mut Segment,
        a: aggregate::Aggregate,
        caller: Option<&str>,
        line: &str,
    ) {
        if let Some(err) = a.own_call_failed {
            let elsewhere = caller.is_some_and(|c| !c.starts_with("authentication.go"));
            let who =
                checker::name(line).or(elsewhere.then_some("an authenticator (kubelet, proxy)"));
            found.checker_failed(
                who,
                format!("its own TokenReview request failed: {err}"),
                checker::call(&err),
                true,
            );
            return;
        }
        let (provenance, source) = match a.from {
            Some(_) => (Provenance::Forwarded, SourceType::Checker),
            None => (Provenance::Authenticator, SourceType::ApiserverLog),
        };
        let origin = (provenance, source, a.format);
        found.reasons(a.reasons, a.from.map(str::to_owned), origin);
        let era = caller.and_then(aggregate::era_of_caller);
        found.context.extend(era.map(Kind::Note));
    }

    fn logical(&mut self, found: &mut Segment, line: &str, caller: Option<&str>) {
        if found.audits.is_empty()
            && let Some(a) = audit::stale_token_value(line)
        {
            found.audits.push((Box::new(a), None, excerpt(line)));
            return;
        }
        // A credential source that failed after a service's refusal failed
        // because of it: no answer of its own, and no network failure however
        // a client words it (`Unable to connect to the server: getting
        // credentials: …`); its request is still the line's.
        let mut after_refusal = false;
        if let Some(failure) = server_failure(line) {
            if !(self.refused && failure.cause == Cause::CredentialSourceFailed) {
                found.server.get_or_insert(failure);
                return;
            }
            after_refusal = true;
            found.context.push(Kind::Note(format!(
                "the credential source failed after the refusal above: {}",
                excerpt(line.trim())
            )));
        }
        if found.review.is_none() {
            // An authenticator's verdict is its TokenReview's; a client's sign
            // of an accepted token (PodSecurity's warning, kubectl's table), the
            // client's own line.
            if let Some((value, reason)) = token_verdict(line) {
                if let Some(reason) = reason {
                    let reasons = super::reasons::parse_auth_error(&reason);
                    found.reasons(reasons, None, TOKEN_REVIEW);
                }
                found.review = Some(Hit {
                    value,
                    origin: TOKEN_REVIEW,
                });
                return;
            }
            if let Some((value, printer)) = kubectl::admitted(line) {
                let format = printer.unwrap_or_else(|| clients::label(line));
                let origin = (Provenance::Answer, SourceType::ClientError, format);
                found.review = Some(Hit { value, origin });
                return;
            }
        }
        if let Some(note) = server_note(line) {
            found.context.push(Kind::Note(note));
            return;
        }
        if found.reasons.is_none()
            && let Some(a) = aggregate::bracketed(line).or_else(|| aggregate::alone(line))
        {
            self.aggregate(found, a, None, line);
        }
        let reviewed = checked(found, line);
        refused(found, line);
        stated_status(found, line);
        kubectl_or_client(found, line, caller);
        if found.http.is_none()
            && let Some(facts) = json::lenient_status(line)
        {
            found.http(facts, SourceType::ClientError, clients::label(line));
        }
        if let Some(i) = line.find("'Audit-Id': '") {
            let id = line[i + 13..].split('\'').next().unwrap_or("");
            found.context.push(audit_id_note(id));
        }
        found
            .context
            .extend(status::date_header(line).map(Kind::Date));
        if line.contains(crate::vocabulary::transport::SERVER_HANDSHAKE_LOG.text) {
            found.context.push(Kind::Note(format!(
                "a server logged a client's failed TLS handshake (the client's own error is the answer): {}",
                excerpt(line)
            )));
        } else if !reviewed && let Some(failure) = transport::detect_all(line) {
            let (detail, format) = (line.trim().to_owned(), clients::label(line));
            found.transport(failure, detail, SourceType::ClientError, format);
        }
        if after_refusal {
            found.transport = None;
        }
        found
            .context
            .extend(missing(line).map(|(kind, name)| Kind::Missing { kind, name }));
    }

    fn signal(&mut self, number: usize, text: &str) {
        if self.near.is_some() {
            return;
        }
        if let Some(&(word, what)) = NEAR_MISSES.iter().find(|(w, _)| text.contains(w)) {
            let code = word.bytes().all(|b| b.is_ascii_digit());
            self.near = Some(NearMiss {
                line: number,
                what,
                try_type: code.then_some(SourceType::Status),
            });
        }
    }

    /// Turns what a segment gave into artefacts.
    fn emit(&mut self, found: Segment, line: &str) {
        let Segment {
            number,
            stamp,
            boundary,
            http,
            reasons,
            transport,
            checker,
            review,
            server,
            audits,
            context,
        } = found;
        let at = (number, line, stamp);
        if boundary {
            self.push(at, SHELL, Kind::Boundary);
        }
        let answered = http.is_some() || reasons.is_some() || checker.is_some() || review.is_some();
        if let Some(failure) = checker {
            // The checker's name is the format.
            let format = failure.checker.unwrap_or("checker");
            let origin = (Provenance::Answer, SourceType::Checker, format);
            self.push(at, origin, Kind::CheckerFailure(failure));
        } else if let Some(hit) = http {
            self.push(at, hit.origin, Kind::Http(hit.value));
        }
        if let Some(hit) = reasons {
            let (reasons, from) = hit.value;
            self.push(at, hit.origin, Kind::Reasons { reasons, from });
        }
        if let Some(hit) = review {
            self.push(at, hit.origin, Kind::Review(hit.value));
        }
        if !answered && let Some(hit) = transport {
            self.push(at, hit.origin, Kind::Transport(hit.value));
        }
        if let Some(failure) = server {
            let source = match failure.cause {
                Cause::CredentialSourceFailed => SourceType::ClientError,
                _ => SourceType::ApiserverLog,
            };
            let origin = (Provenance::ServerLog, source, failure.component);
            self.push(at, origin, Kind::ServerFailure(failure));
        }
        for (answer, audit_stamp, excerpt_text) in audits {
            let at = (number, excerpt_text.as_str(), audit_stamp);
            self.push(at, AUDIT_EVENT, Kind::Audit(answer));
        }
        // An object logged missing on a line that answers is that answer's own.
        for kind in context
            .into_iter()
            .filter(|k| !(answered && matches!(k, Kind::Missing { .. })))
        {
            self.push(at, CONTEXT, kind);
        }
    }

    /// Queues an artefact found on `line` (its number, text and instant).
    fn push(
        &mut self,
        (line, text, stamp): (usize, &str, Option<ServerClock>),
        (provenance, source, format): Origin,
        kind: Kind,
    ) {
        let at = Place {
            line,
            excerpt: excerpt(text),
            stamp,
            provenance,
            source,
            format,
        };
        self.queue.push_back(Artefact { at, kind });
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
            self.push((n, "", None), CURL, kind);
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
            // Finishing again once the lines are out finds nothing more.
            let Some((number, line)) = self.lines.next() else {
                self.finish();
                return self.queue.pop_front();
            };
            self.feed(number, &line);
        }
    }
}

/// A token checker's or a mesh's verdict in `line`; whether a mesh reviewed
/// a token (its verdict is the answer, whatever transport words it has).
fn checked(found: &mut Segment, line: &str) -> bool {
    let mesh = mesh::find(line);
    let reviewed = mesh.is_some();
    if let Some(c) = checker::find(line).or(mesh) {
        take(found, c, SourceType::Checker);
    }
    reviewed
}

/// A refusal's wording (RBAC, admission, quota) in `line`.
fn refused(found: &mut Segment, line: &str) {
    let Some(r) = refusal::find(line) else {
        return;
    };
    if r.review_call {
        found.checker_failed(checker::name(line), r.message, CheckerCall::Refused, true);
        return;
    }
    let facts = HttpAnswer {
        status: r.code,
        reason: (r.code == Some(403)).then(|| "Forbidden".to_owned()),
        message: Some(r.message),
        forbidden: r.forbidden.map(Box::new),
        weight: 1,
        ..HttpAnswer::default()
    };
    found.http(facts, SourceType::ClientError, clients::label(line));
}

/// A status stated on its own: kube-apiserver's httplog, a status line, a
/// bare code, or an `Audit-Id` header.
fn stated_status(found: &mut Segment, line: &str) {
    let (code, source, format) = if let Some((method, path, code)) = status::httplog(line) {
        let request = url::request_from_url(Some(method), path);
        found.context.push(Kind::Request(request));
        let note = "kube-apiserver's own record of the status it answered";
        found.context.push(Kind::Note(note.to_owned()));
        (code, SourceType::ApiserverLog, "httplog")
    } else if let Some(code) = status::aggregator_check(line) {
        // kube-apiserver's availability check: the backend answered
        // kube-apiserver's front-proxy identity, not a client.
        let relayed = HttpAnswer::relayed("the APIService's backend", Some(code), 2);
        return found.http(relayed, SourceType::ApiserverLog, "kube-aggregator");
    } else if let Some((code, _)) = status::status_line(line) {
        (code, SourceType::Status, "http-response")
    } else if let Some(code) = status::bare_code(line) {
        (code, SourceType::Status, "status-code")
    } else {
        if let Some((name, value)) = line.trim().split_once(':')
            && name.eq_ignore_ascii_case("audit-id")
        {
            found.context.push(audit_id_note(value.trim()));
        }
        return;
    };
    found.http(HttpAnswer::with_status(code, 2), source, format);
}

/// What kubectl or another client printed in `line`.
fn kubectl_or_client(found: &mut Segment, line: &str, caller: Option<&str>) {
    let kubectl = kubectl::find(line, caller);
    // kubectl's `-v` request log states the status of a request whose
    // answer follows; a client's error beside it is not one of its own.
    let request_log = kubectl.as_ref().is_some_and(|k| k.format == "kubectl -v");
    let client = clients::find(line).map(|c| ClientLine {
        http: c.http.filter(|_| !request_log),
        ..c
    });
    if let Some(c) = kubectl {
        take(found, c, SourceType::Kubectl);
    }
    if let Some(c) = client {
        take(found, c, SourceType::ClientError);
    }
}

/// What a client or a checker printed in a line, as `source` evidence.
fn take(found: &mut Segment, c: ClientLine, source: SourceType) {
    // A request of the debug round-tripper starts a new answer.
    found.boundary |= c.format == "kubectl -v" && c.http.is_none() && c.request.is_some();
    if let Some(f) = c.failure {
        found.checker.get_or_insert(f);
    }
    if let Some(h) = c.http {
        found.http(h, source, c.format);
    }
    if !c.reasons.is_empty() {
        // Vault's own check of the token's claims.
        let origin = (Provenance::Forwarded, SourceType::Checker, c.format);
        found.reasons(c.reasons, Some("Vault".to_owned()), origin);
    }
    if let Some(t) = c.transport {
        let failure = transport::detect_all(&t).unwrap_or((Cause::Unknown, Vec::new()));
        found.transport(failure, t, source, c.format);
    }
    found.context.extend(c.bearer.map(Kind::Bearer));
    found.context.extend(c.request.map(Kind::Request));
    found.context.extend(c.note.map(Kind::Note));
}

/// What of a line may be shown: trimmed, tokens redacted, cut to a readable
/// length. Every excerpt and note built from evidence goes through here.
pub fn excerpt(line: &str) -> String {
    let line = crate::redact::redact(line.trim());
    if line.chars().count() <= EXCERPT_CHARS {
        return line.into_owned();
    }
    line.chars().take(EXCERPT_CHARS - 1).chain(['…']).collect()
}

/// Where to look up an `Audit-Id` the paste shows.
fn audit_id_note(id: &str) -> Kind {
    Kind::Note(format!(
        "Audit-Id {id}: grep the audit log for this auditID to see the user and annotations"
    ))
}

/// Reads once what the answer's message and the server's reasons say,
/// into the facts the rules read: a JWT authenticator's rejection (`from`
/// says who reported it), NodeRestriction's refusal of an audience, who
/// refused the request (unless the front end saw that typed) and the user a
/// 403 names, the server's onward call that failed. Returns the request the
/// message names (a 403's, a 404's object).
pub fn read_answer(case: &mut Case<'_>, from: &str) -> Option<RequestInfo> {
    if let Some(rejection) = case.reasons.iter().find_map(|r| r.jwt.clone()) {
        case.jwt_rejection = Some(JwtRejectionSeen {
            issuer: None,
            rejection,
            from: from.to_owned(),
        });
    }
    // client-go's own words for a 403 whose body it did not read (`unknown
    // (get pods)`, 1.5's generic text) are no message of the server's.
    if let Answer::Http(h) = &mut case.answer
        && h.code() == Some(403)
        && h.message
            .as_deref()
            .is_some_and(|m| status::generic_for(403, m))
    {
        h.message = None;
    }
    // A checker's review refused by authorization names the checker.
    if let Answer::CheckerFailed(failure) = &case.answer {
        case.refusal = denial::read(&failure.detail, Forbidden::parse(&failure.detail));
        return None;
    }
    let h = case.answer.http()?;
    let message = h.message.as_deref()?;
    let code = h.code();
    let forbidden = case
        .forbidden()
        .or(h.forbidden.as_deref())
        .cloned()
        .or_else(|| Forbidden::parse(message));
    if code == Some(403) {
        case.node_audience = NodeAudienceRefusal::parse(message);
    }
    if case.refusal.is_none() && !matches!(code, Some(200..=299 | 401 | 404)) {
        case.refusal = denial::read(message, forbidden.clone());
    }
    if !matches!(code, Some(200..=299 | 401 | 403 | 404)) {
        // The server's own call failed; `unknown` when the message names
        // the call but not how it failed (cut short, or in words of its own),
        // or wraps an error of its own (NewInternalError's, often a call's:
        // its reason, InternalError, says so even when its words are cut).
        let named = crate::vocabulary::wordings::ONWARD_CALLS
            .iter()
            .any(|w| message.contains(w.text))
            || status::template_of(message).is_some_and(|t| t.by == "NewInternalError")
            || h.reason.as_deref() == Some("InternalError");
        // Its call found nothing to call (no such Service or port).
        let nothing_there = crate::vocabulary::wordings::ONWARD_NOTHING_THERE
            .iter()
            .find(|w| needles::parts_in_order(message, w.text, false).is_some())
            .and_then(|w| w.cause)
            .map(|cause| (cause, Vec::new()));
        case.onward = nothing_there
            .or_else(|| transport::detect_all(message))
            .or(named.then_some((Cause::Unknown, Vec::new())))
            .map(|(cause, also)| TransportFailure {
                cause,
                detail: message.to_owned(),
                also,
                endpoint: None,
            });
    }
    let mut missing = None;
    if code == Some(404) {
        case.not_found = if status::api_not_served(message) {
            Some(NotFound::Api)
        } else {
            missing = url::not_found_request(message);
            missing.as_ref().map(|_| NotFound::Object)
        };
    }
    let Some(f) = forbidden else {
        return missing;
    };
    case.user.get_or_insert(f.user);
    Some(f.request)
}

/// A service's refusal of the token (a cloud's token exchange, Vault's
/// role) found in `text`, with the status its client's line shows; whether
/// there was one.
fn refusal_of_a_service(found: &mut Segment, text: &str) -> bool {
    let Some(v) = exchange::find(text) else {
        return false;
    };
    // A body: the status, when shown, is on the client's own line.
    let relayed = HttpAnswer::relayed(v.service, status::stated_code(text), 1);
    let facts = HttpAnswer {
        verdict: Some(v),
        ..relayed
    };
    found.http(facts, SourceType::ClientError, clients::label(text));
    true
}

#[cfg(test)]
mod tests;
