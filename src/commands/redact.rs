//! `agentguard redact [FILE|-]`: redacted text on stdout, counts per kind on stderr.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::Path;

use crate::cli::RedactArgs;
use crate::error::{Error, ErrorKind, Result, exit};
use crate::redact::{RedactionCounts, Redactor};

const IO_BUFFER: usize = 256 * 1024;

pub fn run(args: RedactArgs) -> Result<u8> {
    let stdout = io::stdout().lock();
    let output = BufWriter::with_capacity(IO_BUFFER, stdout);
    let redactor = Redactor::builtin();
    let counts = match args.file.as_deref().filter(|path| *path != Path::new("-")) {
        Some(path) => {
            let file = File::open(path).map_err(|err| {
                Error::io_at("read", path, err)
                    .with_hint("give an existing file, or `-` to read stdin")
            })?;
            let input = BinaryNotice::new(
                BufReader::with_capacity(IO_BUFFER, file),
                &path.display().to_string(),
            );
            redactor
                .redact_stream(input, output)
                .map_err(|err| stream_error(err, path))?
        }
        None => {
            crate::text::say_when_stdin_is_a_terminal("redact");
            let input = BinaryNotice::new(
                BufReader::with_capacity(IO_BUFFER, io::stdin().lock()),
                "stdin",
            );
            redactor
                .redact_stream(input, output)
                .map_err(|err| stream_error(err, Path::new("stdin")))?
        }
    };
    report(&counts, args.json);
    let found = counts.values().any(|&n| n > 0);
    Ok(if args.check && found {
        exit::FOUND
    } else {
        exit::OK
    })
}

/// Passes the input through, and says once on stderr when its start is binary (a NUL byte
/// or invalid UTF-8 in the first block): the patterns are for text, so secrets inside a
/// compressed or encoded file go unseen, and the output is the input with text spans
/// replaced, not a cleaned binary.
struct BinaryNotice<R> {
    inner: R,
    name: String,
    checked: bool,
}

impl<R> BinaryNotice<R> {
    fn new(inner: R, name: &str) -> Self {
        BinaryNotice {
            inner,
            name: name.to_string(),
            checked: false,
        }
    }
}

impl<R: io::BufRead> io::Read for BinaryNotice<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = io::BufRead::fill_buf(self)?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl<R: io::BufRead> io::BufRead for BinaryNotice<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let available = self.inner.fill_buf()?;
        if !self.checked && !available.is_empty() {
            self.checked = true;
            let head = &available[..available.len().min(8192)];
            if crate::text::binary_offset_in_prefix(head).is_some() {
                eprintln!(
                    "agentguard redact: warning: {} is binary, not text; redaction finds secrets \
                     in text only, so secrets inside binary or compressed data are not replaced",
                    self.name
                );
            }
        }
        Ok(available)
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }
}

/// Reading failures name the input; a closed stdout (`| head`) ends quietly.
fn stream_error(err: io::Error, input: &Path) -> Error {
    match err.kind() {
        io::ErrorKind::BrokenPipe => Error::new(ErrorKind::BrokenPipe, "broken pipe"),
        _ => Error::io(format!("redacting {} failed: {err}", input.display())),
    }
}

fn report(counts: &RedactionCounts, json: bool) {
    let total: u64 = counts.values().sum();
    let mut stderr = io::stderr().lock();
    let line = if json {
        serde_json::json!({ "total": total, "counts": counts }).to_string()
    } else if total == 0 {
        return;
    } else {
        let kinds: Vec<String> = counts
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        format!("redacted {total}: {}", kinds.join(", "))
    };
    // stderr going away is not worth an error exit.
    let _ = writeln!(stderr, "{line}");
}
