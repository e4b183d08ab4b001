//! The one reader of every file flag and file argument (tokens, key sets,
//! Lease and Node lists, evidence, kubeconfigs, CA bundles, authentication
//! configurations, audit and API server logs, `--merge` documents): a path,
//! or `-` for stdin, opened as text the same way wherever it is named.
//!
//! - gzip (magic `1f 8b`) is decompressed: concatenated members, as `cat a.gz
//!   b.gz` makes them, and trailing zero bytes skipped as gzip itself does
//!   (tape and block devices pad with them);
//! - UTF-16 is transcoded to UTF-8: with a byte order mark, or without one
//!   when the text starts with two ASCII characters (PowerShell's `>` writes
//!   UTF-16LE with a mark);
//! - a NUL byte ends the read: text never holds one, so the input is binary
//!   (`/dev/zero`, `/dev/urandom`, an image) and is refused at the first block
//!   instead of being read to a size bound, or forever.
//!
//! Failures are `io::Error`s of kind `InvalidData` whose message says what is
//! wrong in words, so every caller's context reads the same.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Buffer size of each stage (a large one: audit logs are gigabytes).
const BUFFER: usize = 256 * 1024;

/// Opens `path` (`-`: stdin) as text; see the module documentation.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return text(Box::new(io::stdin()));
    }
    text(Box::new(std::fs::File::open(path)?))
}

/// Reads `reader` as text: gunzipped, transcoded from UTF-16, NUL refused.
pub fn text(reader: Box<dyn Read>) -> io::Result<Box<dyn BufRead>> {
    let mut buffered = BufReader::with_capacity(BUFFER, reader);
    let head = buffered.fill_buf()?;
    let decoded: Box<dyn BufRead> = if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(
            BUFFER,
            Gunzip {
                member: Some(flate2::bufread::GzDecoder::new(buffered)),
            },
        ))
    } else {
        Box::new(buffered)
    };
    Ok(Box::new(NoNul {
        inner: utf8(decoded)?,
        checked: 0,
        offset: 0,
        newlines: 0,
    }))
}

/// The whole of `path` (`-`: stdin) as text, refused past `limit` bytes
/// (after decompression) with "over the LIMIT-byte limit".
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    let mut bytes = Vec::new();
    open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other(format!("over the {limit}-byte limit")));
    }
    utf8_string(bytes)
}

/// Bytes as a `String`, or an error naming the first byte that is not UTF-8.
pub fn utf8_string(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        invalid(format!(
            "not UTF-8 text (byte 0x{:02x} at offset {at}): a binary file, or text in another encoding",
            e.as_bytes()[at]
        ))
    })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// The stream as UTF-8: UTF-16 (by its byte order mark, or by two ASCII
/// characters each followed or preceded by a zero byte) transcoded, anything
/// else as it is (a UTF-8 byte order mark dropped).
fn utf8(mut reader: Box<dyn BufRead>) -> io::Result<Box<dyn BufRead>> {
    let head = reader.fill_buf()?;
    let ascii = |b: u8| b != 0 && b.is_ascii();
    let (encoding, bom) = match head {
        [0xff, 0xfe, ..] => (encoding_rs::UTF_16LE, 2),
        [0xfe, 0xff, ..] => (encoding_rs::UTF_16BE, 2),
        [0xef, 0xbb, 0xbf, ..] => {
            reader.consume(3);
            return Ok(reader);
        }
        [a, 0, b, 0, ..] if ascii(*a) && ascii(*b) => (encoding_rs::UTF_16LE, 0),
        [0, a, 0, b, ..] if ascii(*a) && ascii(*b) => (encoding_rs::UTF_16BE, 0),
        _ => return Ok(reader),
    };
    reader.consume(bom);
    Ok(Box::new(BufReader::with_capacity(
        BUFFER,
        Utf16 {
            inner: reader,
            decoder: encoding.new_decoder_without_bom_handling(),
            pending: Vec::new(),
            done: false,
        },
    )))
}

/// UTF-16 bytes to UTF-8, streamed (encoding_rs keeps a surrogate or an odd
/// byte split across reads).
struct Utf16 {
    inner: Box<dyn BufRead>,
    decoder: encoding_rs::Decoder,
    /// Decoded bytes not yet handed out.
    pending: Vec<u8>,
    done: bool,
}

impl Read for Utf16 {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pending.is_empty() && !self.done {
            let src = self.inner.fill_buf()?;
            let last = src.is_empty();
            let room = self
                .decoder
                .max_utf8_buffer_length_without_replacement(src.len())
                .unwrap_or(src.len() * 2 + 8);
            let mut out = vec![0u8; room];
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(src, &mut out, last);
            if let encoding_rs::DecoderResult::Malformed(..) = result {
                return Err(invalid(
                    "not UTF-16 text: an unpaired surrogate (a binary file?)".to_owned(),
                ));
            }
            self.inner.consume(read);
            out.truncate(written);
            self.pending = out;
            self.done = last;
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// Fails at the first NUL byte (text has none), naming its line. It reads
/// through its source's buffer: a buffer of its own would copy every byte of a
/// gigabyte log once more, and zero 256 KiB before a one-line token is read.
struct NoNul {
    inner: Box<dyn BufRead>,
    /// Bytes at the start of `inner`'s buffer already found free of NUL.
    checked: usize,
    offset: u64,
    /// Newlines in every byte checked so far.
    newlines: u64,
}

impl BufRead for NoNul {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let buf = self.inner.fill_buf()?;
        let fresh = &buf[self.checked..];
        if let Some(i) = memchr::memchr(0, fresh) {
            let newlines = memchr::memchr_iter(b'\n', &fresh[..i]).count() as u64;
            return Err(invalid(format!(
                "line {} is binary data (a NUL byte at offset {}), not text",
                self.newlines + newlines + 1,
                self.offset + (self.checked + i) as u64
            )));
        }
        self.newlines += memchr::memchr_iter(b'\n', fresh).count() as u64;
        self.checked = buf.len();
        Ok(buf)
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.offset += n as u64;
        self.checked = self.checked.saturating_sub(n);
    }
}

impl Read for NoNul {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// gzip members one after another, then nothing or zero bytes.
struct Gunzip<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = &mut self.member else {
                return Ok(0);
            };
            let n = member.read(buf).map_err(gzip_error)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(mut rest) = self
                .member
                .take()
                .map(flate2::bufread::GzDecoder::into_inner)
            else {
                return Ok(0);
            };
            match rest.fill_buf()?.first() {
                None => return Ok(0),
                Some(0) => return skip_zeros(&mut rest).map(|()| 0),
                Some(_) => self.member = Some(flate2::bufread::GzDecoder::new(rest)),
            }
        }
    }
}

/// The zero bytes after the last member, to the end; anything else there is
/// not gzip.
fn skip_zeros(reader: &mut impl BufRead) -> io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        if chunk.iter().any(|&b| b != 0) {
            return Err(invalid(
                "not a valid gzip stream (data after the zero padding at its end)".to_owned(),
            ));
        }
        let n = chunk.len();
        reader.consume(n);
    }
}

fn gzip_error(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => invalid("the gzip stream is truncated".to_owned()),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
            invalid(format!("not a valid gzip stream ({e})"))
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn read(bytes: Vec<u8>) -> io::Result<String> {
        let mut text = String::new();
        super::text(Box::new(io::Cursor::new(bytes)))?.read_to_string(&mut text)?;
        Ok(text)
    }

    fn gzip(text: &str) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        gz.finish().unwrap()
    }

    fn utf16le(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn gzip_members_and_zero_padding_read_as_gzip_does() {
        let mut data = gzip("one\n");
        data.extend(gzip("two\n"));
        data.extend([0u8; 512]);
        assert_eq!(read(data).unwrap(), "one\ntwo\n");
        let mut garbage = gzip("one\n");
        garbage.extend([0, 0, 7]);
        assert!(read(garbage).unwrap_err().to_string().contains("gzip"));
        let mut cut = gzip(&"x".repeat(10_000));
        cut.truncate(cut.len() - 4);
        assert!(read(cut).unwrap_err().to_string().contains("truncated"));
    }

    #[test]
    fn utf16_with_or_without_a_mark_reads_as_utf8() {
        let text = "apiVersion: v1 — é 😀\n";
        let mut marked = vec![0xff, 0xfe];
        marked.extend(utf16le(text));
        assert_eq!(read(marked).unwrap(), text);
        assert_eq!(read(utf16le(text)).unwrap(), text);
        let big_endian: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(read(big_endian).unwrap(), text);
        let mut bom = vec![0xef, 0xbb, 0xbf];
        bom.extend(text.as_bytes());
        assert_eq!(read(bom).unwrap(), text);
    }

    #[test]
    fn a_nul_byte_is_binary_data() {
        let err = read(vec![0; 100]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("binary data"), "{err}");
        let err = read(b"text\nmore\0".to_vec()).unwrap_err();
        assert!(err.to_string().contains("line 2 is binary data"), "{err}");
        assert!(err.to_string().contains("offset 9"), "{err}");
        // Past the first buffer, read line by line: the line and offset still count
        // every byte before the NUL.
        let mut bytes = b"ab\n".repeat(100_000);
        bytes.extend_from_slice(b"c\0");
        let lines = super::text(Box::new(io::Cursor::new(bytes)))
            .unwrap()
            .lines()
            .collect::<io::Result<Vec<_>>>();
        let err = lines.unwrap_err().to_string();
        assert!(err.contains("line 100001 is binary data"), "{err}");
        assert!(err.contains("offset 300001"), "{err}");
        assert!(
            utf8_string(vec![b'a', 0xe9])
                .unwrap_err()
                .to_string()
                .contains("byte 0xe9 at offset 1")
        );
    }
}
