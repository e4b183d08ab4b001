//! Where token text comes from, and reading it with size bounds.
//!
//! Source precedence (every subcommand that takes a token): `--token`/positional
//! `TOKEN`, then `-f/--token-file PATH` (`-` = stdin), then stdin if it is a pipe,
//! file or socket, then the in-pod default `<sa-dir>/token`. A pod's stdin is
//! usually `/dev/null`, which is not input (ripgrep's `is_readable_stdin` rule), so
//! it never shadows the mounted token.
//!
//! Reading is streamed: one JSON document (TokenRequest, Secret, CredentialProviderRequest,
//! a CSI token map, which may carry several tokens) or one or more
//! token lines. Two or more non-blank lines make a batch, read line by line with a
//! per-line bound, so memory stays flat however long the input.

pub mod file;
pub mod shape;

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use crate::error::{InputError, TokenError};
use crate::secret::SecretToken;
pub use shape::{InputContext, Shape, ShapedToken};

/// Where Kubernetes mounts a pod's ServiceAccount credentials.
/// Source: plugin/pkg/admission/serviceaccount (`kube-api-access-*` volume).
pub const IN_POD_SA_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Largest single token accepted. Real ServiceAccount tokens are 1–2 KiB; OIDC
/// tokens with many groups reach tens of KiB.
pub const MAX_TOKEN_BYTES: usize = 256 * 1024;

/// Largest JSON document (TokenRequest, Secret) accepted.
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// Where to read token text from, decided once from flags and the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// Given on the command line (`TOKEN` or `--token`).
    Argument(SecretToken),
    File(PathBuf),
    /// `-f -`, or stdin that is a pipe, file or socket.
    Stdin,
    /// `<sa-dir>/token`, the mounted projected token in a pod.
    InPodDefault(PathBuf),
}

impl TokenSource {
    /// Applies the precedence documented at the top of this module.
    pub fn choose(
        argument: Option<SecretToken>,
        file: Option<PathBuf>,
        stdin_readable: bool,
        sa_dir: &Path,
    ) -> Self {
        match (argument, file) {
            // `decode token.jwt`: a path where the token goes, read as the file it names.
            (Some(text), _) if names_a_file(&text) => {
                TokenSource::File(PathBuf::from(text.expose().trim()))
            }
            (Some(text), _) => TokenSource::Argument(text),
            (None, Some(path)) if path.as_os_str() == "-" => TokenSource::Stdin,
            (None, Some(path)) => TokenSource::File(path),
            (None, None) if stdin_readable => TokenSource::Stdin,
            (None, None) => TokenSource::InPodDefault(sa_dir.join("token")),
        }
    }

    /// Human description for messages ("stdin", "file /x").
    pub fn describe(&self) -> String {
        match self {
            TokenSource::Argument(_) => "the command line".to_owned(),
            TokenSource::File(p) => format!("file {}", p.display()),
            TokenSource::Stdin => "stdin".to_owned(),
            TokenSource::InPodDefault(p) => format!("the mounted token {}", p.display()),
        }
    }

    /// Opens the source for reading. `stdin` is only called for [`TokenSource::Stdin`].
    pub fn open(
        &self,
        stdin: impl FnOnce() -> Box<dyn BufRead>,
    ) -> Result<Box<dyn BufRead>, InputError> {
        match self {
            TokenSource::Argument(text) => {
                Ok(Box::new(io::Cursor::new(text.expose().as_bytes().to_vec())))
            }
            TokenSource::Stdin => file::text(Box::new(stdin())).map_err(read_error("stdin")),
            TokenSource::File(path) => open_file(path, false),
            TokenSource::InPodDefault(path) => open_file(path, true),
        }
    }
}

fn read_error(what: &str) -> impl FnOnce(io::Error) -> InputError + '_ {
    move |source| InputError::Read {
        what: what.to_owned(),
        source,
    }
}

/// An argument that is not token-shaped and names an existing file.
fn names_a_file(text: &SecretToken) -> bool {
    let text = text.expose().trim();
    !crate::redact::looks_like_token(text) && Path::new(text).is_file()
}

fn open_file(path: &Path, in_pod_default: bool) -> Result<Box<dyn BufRead>, InputError> {
    file::open(path).map_err(|source| {
        let path = path.to_owned();
        if in_pod_default && source.kind() == io::ErrorKind::NotFound {
            InputError::NoToken { path }
        } else {
            InputError::ReadFile { path, source }
        }
    })
}

pub enum TokenInput {
    /// One token (a line or a JSON document).
    Single(ShapedToken),
    /// Several lines: tokens to handle one by one.
    Batch(BatchReader),
    /// One document that carries several tokens (a CSI map: one per audience).
    Many(Vec<ShapedToken>),
}

/// One line of a batch, numbered from 1 as in an editor.
pub struct BatchItem {
    pub line: usize,
    pub result: Result<ShapedToken, InputError>,
}

/// Reads the input far enough to tell one token from a batch.
pub fn read_tokens(mut reader: Box<dyn BufRead>, what: &str) -> Result<TokenInput, InputError> {
    let mut lines = LineReader::new();
    // The first line stops at the document bound: a 1 GB line with no newline (or
    // `/dev/zero`) is refused after 1 MiB instead of being read to its end.
    let Some(first) = lines.next_nonblank_within(&mut reader, what, MAX_DOCUMENT_BYTES, true)?
    else {
        return Err(TokenError::Empty.into());
    };
    // A first line that cannot be a token starts a document (JSON, YAML, PEM)
    // or is not token input: read whole and named once, not line by line.
    if let RawLine::Text(_, text) = &first
        && !shape::is_token_line(text)
    {
        let json = text.trim_start().starts_with('{');
        let mut doc = text.clone();
        doc.push('\n');
        match read_rest_bounded(&mut reader, &mut doc, what) {
            Err(InputError::DocumentTooLarge { .. }) if !json => return Err(shape::not_tokens()),
            read => read?,
        }
        // One line of words is a token pasted badly: the token reader names how.
        if json || doc.trim().contains('\n') {
            let mut all = shape::detect_document(&doc)?;
            return Ok(if all.len() == 1 {
                TokenInput::Single(all.remove(0))
            } else {
                TokenInput::Many(all)
            });
        }
    }
    let first = match first {
        // One binary line is a broken token; more are a binary file.
        RawLine::NotText(line, TokenError::Binary { byte, offset }) => {
            return Err(match lines.next_nonblank(&mut reader, what)? {
                None => TokenError::Binary { byte, offset }.into(),
                Some(_) => InputError::Binary { line, byte, offset },
            });
        }
        RawLine::TooLong(_, true) => {
            return Err(InputError::DocumentTooLarge {
                limit: MAX_DOCUMENT_BYTES,
            });
        }
        RawLine::TooLong(_, false) => {
            return Err(InputError::LineTooLarge {
                limit: MAX_TOKEN_BYTES,
            });
        }
        // Not JSON: hold the first line to the bound for one token.
        RawLine::Text(n, text) if text.len() > MAX_TOKEN_BYTES => RawLine::TooLong(n, false),
        other => other,
    };
    match lines.next_nonblank(&mut reader, what)? {
        None => Ok(TokenInput::Single(first.into_shaped()?)),
        Some(second) => Ok(TokenInput::Batch(BatchReader {
            reader,
            lines,
            pending: vec![second, first],
            what: what.to_owned(),
        })),
    }
}

fn read_rest_bounded(
    reader: &mut Box<dyn BufRead>,
    doc: &mut String,
    what: &str,
) -> Result<(), InputError> {
    use std::io::Read as _;
    let mut rest = Vec::new();
    let budget = MAX_DOCUMENT_BYTES.saturating_sub(doc.len()) as u64 + 1;
    reader
        .take(budget)
        .read_to_end(&mut rest)
        .map_err(read_error(what))?;
    if doc.len() + rest.len() > MAX_DOCUMENT_BYTES {
        return Err(InputError::DocumentTooLarge {
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    doc.push_str(text_or_binary(&rest)?);
    Ok(())
}

pub struct BatchReader {
    reader: Box<dyn BufRead>,
    lines: LineReader,
    /// Lines already read while detecting the batch, in reverse order.
    pending: Vec<RawLine>,
    what: String,
}

/// A batch yields `Err` (and should be dropped) for a line it cannot read or
/// that is binary data: the input is not a list of tokens.
impl Iterator for BatchReader {
    type Item = Result<BatchItem, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let raw = match self.pending.pop() {
            Some(raw) => raw,
            None => match self.lines.next_nonblank(&mut self.reader, &self.what) {
                Ok(raw) => raw?,
                Err(e) => return Some(Err(e)),
            },
        };
        Some(match raw {
            RawLine::NotText(line, TokenError::Binary { byte, offset }) => {
                Err(InputError::Binary { line, byte, offset })
            }
            RawLine::Text(line, _) | RawLine::TooLong(line, _) | RawLine::NotText(line, _) => {
                Ok(BatchItem {
                    line,
                    result: raw.into_shaped(),
                })
            }
        })
    }
}

/// A line as read: text, or a marker that it was too long or not UTF-8.
enum RawLine {
    Text(usize, String),
    /// Over the bound; `true` if it started like a JSON document.
    TooLong(usize, bool),
    NotText(usize, TokenError),
}

impl RawLine {
    fn into_shaped(self) -> Result<ShapedToken, InputError> {
        match self {
            RawLine::Text(_, text) => Ok(shape::detect_line(&text)),
            RawLine::TooLong(..) => Err(InputError::LineTooLarge {
                limit: MAX_TOKEN_BYTES,
            }),
            RawLine::NotText(_, e) => Err(e.into()),
        }
    }
}

struct LineReader {
    number: usize,
    buf: Vec<u8>,
}

impl LineReader {
    fn new() -> Self {
        Self {
            number: 0,
            buf: Vec::with_capacity(4096),
        }
    }

    fn next_nonblank(
        &mut self,
        reader: &mut Box<dyn BufRead>,
        what: &str,
    ) -> Result<Option<RawLine>, InputError> {
        self.next_nonblank_within(reader, what, MAX_TOKEN_BYTES, false)
    }

    /// Next line that is too long or not blank (see [`read_bounded_line`]);
    /// `None` at end of input.
    fn next_nonblank_within(
        &mut self,
        reader: &mut Box<dyn BufRead>,
        what: &str,
        limit: usize,
        stop_when_too_long: bool,
    ) -> Result<Option<RawLine>, InputError> {
        loop {
            let too_long = read_bounded_line(reader, &mut self.buf, limit, stop_when_too_long)
                .map_err(read_error(what))?;
            let Some(too_long) = too_long else {
                return Ok(None);
            };
            self.number += 1;
            if too_long {
                let starts_json = self.buf.first() == Some(&b'{');
                return Ok(Some(RawLine::TooLong(self.number, starts_json)));
            }
            if !self.buf.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(match text_or_binary(&self.buf) {
                    Ok(text) => RawLine::Text(self.number, text.to_owned()),
                    Err(e) => RawLine::NotText(self.number, e),
                }));
            }
        }
    }
}

/// Reads one line (without its `\n`) into `buf`, keeping at most `limit` bytes.
/// Returns `None` at end of input, `Some(true)` if the line was longer than
/// `limit` (its bytes are consumed but not kept, so memory stays bounded; with
/// `stop_when_too_long` the rest of the line is left unread instead).
fn read_bounded_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
    stop_when_too_long: bool,
) -> io::Result<Option<bool>> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read_any.then_some(too_long));
        }
        read_any = true;
        let (chunk, used, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if buf.len() + chunk.len() > limit {
                too_long = true;
                // Keep only the first non-blank byte: enough to tell JSON from a token.
                let first = buf
                    .iter()
                    .chain(chunk)
                    .copied()
                    .find(|b| !b.is_ascii_whitespace());
                buf.clear();
                buf.shrink_to(4096);
                buf.extend(first);
                if stop_when_too_long {
                    return Ok(Some(true));
                }
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        reader.consume(used);
        if done {
            return Ok(Some(too_long));
        }
    }
}

/// UTF-8 text without NUL (git's and grep's test for binary), or the first
/// byte that makes it binary (not UTF-8, or NUL).
fn text_or_binary(bytes: &[u8]) -> Result<&str, TokenError> {
    let (text, valid) = match std::str::from_utf8(bytes) {
        Ok(text) => (Some(text), bytes.len()),
        Err(e) => (None, e.valid_up_to()),
    };
    if let Some(offset) = memchr::memchr(0, &bytes[..valid]) {
        return Err(TokenError::Binary { byte: 0, offset });
    }
    text.ok_or_else(|| TokenError::Binary {
        byte: bytes[valid],
        offset: valid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";

    fn tokens(bytes: &[u8]) -> Result<TokenInput, InputError> {
        read_tokens(Box::new(io::Cursor::new(bytes.to_vec())), "t")
    }

    /// Every subcommand that takes TOKEN reads a path given there as its file.
    #[test]
    fn a_path_given_as_the_token_is_read_as_a_file() {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tokens/projected.jwt");
        let dir = Path::new("/sa");
        let got = TokenSource::choose(Some(SecretToken::new(file)), None, false, dir);
        assert_eq!(got, TokenSource::File(PathBuf::from(file)));
        let absent = "/nonexistent/token.jwt";
        let got = TokenSource::choose(Some(SecretToken::new(absent)), None, false, dir);
        assert!(matches!(got, TokenSource::Argument(_)));
    }

    #[test]
    fn documents_that_are_not_token_lists_are_named_once() {
        let pem = b"-----BEGIN PUBLIC KEY-----\nMIIB\nIjAN\n-----END PUBLIC KEY-----\n";
        let err = tokens(pem).err().unwrap().to_string();
        assert!(
            err.contains("PEM PUBLIC KEY") && err.contains("verify"),
            "{err}"
        );
        let err = tokens(b"# notes\nsome words here\nmore words\n")
            .err()
            .unwrap();
        assert!(err.to_string().contains("classify"), "{err}");
        let yaml = format!(
            "apiVersion: v1\nkind: Secret\ndata:\n  token: {}\n",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, JWT)
        );
        let Ok(TokenInput::Single(got)) = tokens(yaml.as_bytes()) else {
            panic!("a YAML Secret is one token");
        };
        assert_eq!((got.token.expose(), got.shape), (JWT, Shape::Secret));
    }

    #[test]
    fn source_precedence() {
        let dir = Path::new("/sa");
        let choose = |a: Option<&str>, f: Option<&str>, stdin| {
            TokenSource::choose(a.map(SecretToken::new), f.map(PathBuf::from), stdin, dir)
        };
        assert_eq!(
            choose(Some("t"), Some("f"), true),
            TokenSource::Argument(SecretToken::new("t"))
        );
        assert_eq!(choose(None, Some("-"), false), TokenSource::Stdin);
        assert_eq!(choose(None, Some("f"), true), TokenSource::File("f".into()));
        assert_eq!(choose(None, None, true), TokenSource::Stdin);
        assert_eq!(
            choose(None, None, false),
            TokenSource::InPodDefault("/sa/token".into())
        );
    }

    #[test]
    fn one_line_is_single_two_are_a_batch() {
        assert!(matches!(
            tokens(b"\n  a.b.c  \n\n").unwrap(),
            TokenInput::Single(_)
        ));
        let TokenInput::Batch(batch) = tokens(b"a.b.c\n\nd.e.f\ng.h.i").unwrap() else {
            panic!("expected a batch");
        };
        let lines: Vec<usize> = batch.map(|i| i.unwrap().line).collect();
        assert_eq!(lines, [1, 3, 4]);
    }

    #[test]
    fn empty_input_is_an_error() {
        let err = tokens(b" \n\t\n").err().unwrap();
        assert!(matches!(err, InputError::Token(TokenError::Empty)));
    }

    #[test]
    fn overlong_line_is_consumed_not_kept() {
        let mut input = vec![b'a'; MAX_TOKEN_BYTES + 10];
        input.extend_from_slice(b"\nx.y.z\n");
        let TokenInput::Batch(mut batch) = tokens(&input).unwrap() else {
            panic!("expected a batch");
        };
        let first = batch.next().unwrap().unwrap();
        assert!(matches!(first.result, Err(InputError::LineTooLarge { .. })));
        assert_eq!(batch.next().unwrap().unwrap().line, 2);
    }

    #[test]
    fn json_document_over_the_bound_is_refused() {
        let mut doc = b"{\"status\":{\"token\":\"".to_vec();
        doc.extend(std::iter::repeat_n(b'a', MAX_DOCUMENT_BYTES));
        doc.extend_from_slice(b"\"}}");
        let err = tokens(&doc).err().unwrap();
        assert!(matches!(err, InputError::DocumentTooLarge { .. }), "{err}");
    }

    #[test]
    fn binary_line_names_the_byte() {
        let err = tokens(b"ab\xffcd").err().unwrap();
        assert!(err.to_string().contains("0xff at offset 2"), "{err}");
    }

    #[test]
    fn binary_input_is_refused_not_batched() {
        let err = tokens(b"\x8f\x01\n\xfe\n\x00\n").err().unwrap();
        assert!(matches!(err, InputError::Binary { line: 1, .. }), "{err}");
        let TokenInput::Batch(mut batch) = tokens(b"a.b.c\nd.e.f\nx\x00y\ng.h.i\n").unwrap() else {
            panic!("expected a batch");
        };
        assert!(batch.next().unwrap().is_ok());
        assert!(batch.next().unwrap().is_ok());
        let err = batch.next().unwrap().err().unwrap();
        assert!(
            matches!(
                err,
                InputError::Binary {
                    line: 3,
                    byte: 0,
                    offset: 1
                }
            ),
            "{err}"
        );
    }
}
