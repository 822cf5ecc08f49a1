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
            let input = BufReader::with_capacity(IO_BUFFER, file);
            redactor
                .redact_stream(input, output)
                .map_err(|err| stream_error(err, path))?
        }
        None => {
            let input = BufReader::with_capacity(IO_BUFFER, io::stdin().lock());
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
