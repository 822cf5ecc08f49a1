//! Redaction throughput and streaming memory: `cargo bench --bench redact`.
//!
//! Prints one table; no assertions (the machine is shared, timings only inform). Throughput is
//! given per second of this thread's CPU time, which a loaded machine distorts far less than
//! wall-clock time; the wall-clock figure is printed next to it.

use std::hint::black_box;
use std::io::{self, BufReader, Read};
use std::time::Instant;

use agentguard::redact::Redactor;

/// Sizes under `cargo bench`; `cargo test --all-targets` runs this file without `--bench`, as a
/// quick smoke test of the same code paths with small inputs.
const CORPUS_BYTES: usize = 64 * 1024 * 1024;
const STREAMED_BYTES: u64 = 1024 * 1024 * 1024;
const SMOKE_DIVISOR: usize = 256;

/// Deterministic pseudo-random source (xorshift64*).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn string(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Lines an agent transcript about code is made of: prose, code, logs, hashes, ids, URLs. Five
/// in twelve mention tokens, keys, paths or URLs, so the prefilter fires often and rules run.
fn ordinary_line(random: &mut Random) -> String {
    match random.below(12) {
        0 => "I ran the test suite and all 214 tests passed; the flaky one was a timing issue."
            .into(),
        1 => format!(
            "commit {} Fix off-by-one in the line scanner",
            random.string(HEX, 40)
        ),
        2 => format!(
            "2026-11-30T00:12:{:02}Z INFO request {} served in 12ms",
            random.below(60),
            uuid(random)
        ),
        3 => "    let config = Config::load(&path).context(\"reading the config\")?;".into(),
        4 => "    fn next_token(&mut self) -> Option<Token> { self.tokens.pop_front() }".into(),
        5 => "See https://docs.rs/regex/latest/regex/ for the syntax of patterns.".into(),
        6 => "The user asked to keep the public API stable, so the change stays internal.".into(),
        7 => "  \"max_tokens\": 4096, \"temperature\": 0.2, \"model\": \"claude-sonnet\",".into(),
        8 => "error[E0382]: borrow of moved value: `output` at src/redact/mod.rs:120:9".into(),
        9 => {
            "Les données sont validées avant l'écriture — 日本語のテキストも問題ありません。".into()
        }
        10 => "api_key = os.environ[\"API_KEY\"]  # read from the environment, never hard-coded"
            .into(),
        _ => "- [x] update the changelog and the README before tagging the release".into(),
    }
}

fn uuid(random: &mut Random) -> String {
    [8, 4, 4, 4, 12]
        .iter()
        .map(|&n| random.string(HEX, n))
        .collect::<Vec<_>>()
        .join("-")
}

/// A line carrying one secret of a common kind.
fn secret_line(random: &mut Random) -> String {
    match random.below(10) {
        0 => format!("export GITHUB_TOKEN=ghp_{}", random.string(ALNUM, 36)),
        1 => format!(
            "aws_access_key_id = AKIA{}",
            random.string(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
        ),
        2 => format!("OPENAI_API_KEY=sk-proj-{}", random.string(ALNUM, 120)),
        3 => format!(
            "curl -H 'Authorization: Bearer {}' https://api.example.org",
            random.string(ALNUM, 40)
        ),
        4 => format!(
            "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
            random.string(ALNUM, 20)
        ),
        5 => format!(
            "token: xoxb-{}-{}-{}",
            random.string(b"0123456789", 12),
            random.string(b"0123456789", 13),
            random.string(ALNUM, 24)
        ),
        6 => format!(
            "eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}",
            random.string(ALNUM, 60),
            random.string(ALNUM, 43)
        ),
        7 => format!("password = \"{}\"", random.string(ALNUM, 18)),
        8 => format!("STRIPE_KEY=sk_live_{}", random.string(ALNUM, 99)),
        _ => format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----",
            random.string(BASE64, 64)
        ),
    }
}

/// Lines no rule keyword occurs in: prose, logs, commit hashes, UUIDs, non-ASCII text.
fn prose_line(random: &mut Random) -> String {
    match random.below(6) {
        0 => "I ran the test suite and all 214 tests passed; the flaky one was a timing issue."
            .into(),
        1 => format!(
            "commit {} Fix off-by-one in the line scanner",
            random.string(HEX, 40)
        ),
        2 => format!(
            "2026-11-30T00:12:{:02}Z INFO request {} served in 12ms",
            random.below(60),
            uuid(random)
        ),
        3 => "The user asked to keep the public API stable, so the change stays internal.".into(),
        4 => {
            "Les données sont validées avant l'écriture — 日本語のテキストも問題ありません。".into()
        }
        _ => "- [x] update the changelog and the README before tagging the release".into(),
    }
}

fn corpus(
    bytes: usize,
    secret_every: usize,
    seed: u64,
    ordinary_line: fn(&mut Random) -> String,
) -> String {
    let mut random = Random(seed);
    let mut text = String::with_capacity(bytes + 256);
    let mut line_number = 0usize;
    while text.len() < bytes {
        line_number += 1;
        let line = if secret_every > 0 && line_number.is_multiple_of(secret_every) {
            secret_line(&mut random)
        } else {
            ordinary_line(&mut random)
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// An endless source of transcript-like lines, so the streamed input never exists in memory.
struct Generated {
    random: Random,
    remaining: u64,
    line: Vec<u8>,
    offset: usize,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.remaining == 0 {
            return Ok(0);
        }
        if self.offset == self.line.len() {
            self.line.clear();
            let line = if self.random.below(50) == 0 {
                secret_line(&mut self.random)
            } else {
                ordinary_line(&mut self.random)
            };
            self.line.extend_from_slice(line.as_bytes());
            self.line.push(b'\n');
            self.offset = 0;
        }
        let n = buf
            .len()
            .min(self.line.len() - self.offset)
            .min(self.remaining as usize);
        buf[..n].copy_from_slice(&self.line[self.offset..self.offset + n]);
        self.offset += n;
        self.remaining -= n as u64;
        Ok(n)
    }
}

/// CPU time consumed by the calling thread, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the struct we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    now.tv_sec as f64 + now.tv_nsec as f64 / 1e9
}

/// Runs `work`, returning its result with (CPU seconds, wall seconds).
fn timed<T>(work: impl FnOnce() -> T) -> (T, f64, f64) {
    let (cpu, wall) = (thread_cpu_seconds(), Instant::now());
    let result = work();
    (
        result,
        thread_cpu_seconds() - cpu,
        wall.elapsed().as_secs_f64(),
    )
}

/// The process's peak resident set size (VmHWM). Not `getrusage`: on Linux its maximum carries
/// over across `exec` from the parent (`cargo bench`).
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn row(name: &str, bytes: usize, cpu: f64, wall: f64, redactions: u64) {
    let mb = bytes as f64 / 1e6;
    println!(
        "| {name:<50} | {mb:>7.1} MB | {:>9.0} MB/s | {:>9.0} MB/s | {redactions:>10} |",
        mb / cpu,
        mb / wall
    );
}

/// Best of three runs after a warm-up, of `redact` (whole string) or `redact_stream` from
/// memory into a sink.
fn measure(name: &str, text: &str, redactor: &Redactor, streaming: bool) {
    let run = || -> u64 {
        if streaming {
            let counts = redactor
                .redact_stream(text.as_bytes(), io::sink())
                .expect("sink");
            counts.values().sum()
        } else {
            black_box(redactor.redact(text)).counts.values().sum()
        }
    };
    run();
    let (mut best_cpu, mut best_wall, mut total) = (f64::INFINITY, f64::INFINITY, 0);
    for _ in 0..3 {
        let (redactions, cpu, wall) = timed(run);
        best_cpu = best_cpu.min(cpu);
        best_wall = best_wall.min(wall);
        total = redactions;
    }
    row(name, text.len(), best_cpu, best_wall, total);
}

/// The reference row, measured in the same run so a loaded machine shows: one pass that
/// copies the text and counts its lines (what any redactor must at least do).
fn reference(text: &str) {
    let run = || -> u64 {
        let copy = black_box(text.as_bytes().to_vec());
        memchr::memchr_iter(b'\n', &copy).count() as u64
    };
    run();
    let (mut best_cpu, mut best_wall) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        let (_, cpu, wall) = timed(run);
        best_cpu = best_cpu.min(cpu);
        best_wall = best_wall.min(wall);
    }
    row(
        "reference: copy the prose, count its lines",
        text.len(),
        best_cpu,
        best_wall,
        0,
    );
}

fn main() {
    let divisor = if std::env::args().any(|arg| arg == "--bench") {
        1
    } else {
        SMOKE_DIVISOR
    };
    let corpus_bytes = CORPUS_BYTES / divisor;
    let streamed_bytes = STREAMED_BYTES / divisor as u64;
    let streamed_mib = streamed_bytes >> 20;
    let (redactor, cpu, _) = timed(Redactor::builtin);
    println!(
        "rules: {} kinds, compiled in {:.1} ms CPU\n",
        redactor.kinds().count(),
        cpu * 1e3
    );

    // Streaming first, so the peak RSS is not the corpora below.
    let baseline = peak_rss_mib();
    let input = Generated {
        random: Random(42),
        remaining: streamed_bytes,
        line: Vec::new(),
        offset: 0,
    };
    let (counts, stream_cpu, stream_wall) = timed(|| {
        redactor
            .redact_stream(BufReader::with_capacity(256 * 1024, input), io::sink())
            .expect("streaming into a sink")
    });
    let peak = peak_rss_mib();

    println!(
        "| {:<50} | {:>10} | {:>14} | {:>14} | redactions |",
        "text", "size", "per CPU-second", "wall clock"
    );
    println!(
        "|{:-<52}|{:-<12}|{:-<16}|{:-<16}|{:-<12}|",
        "", "", "", "", ""
    );
    let prose = corpus(corpus_bytes, 0, 1, prose_line);
    reference(&prose);
    measure(
        "secret-free prose, logs, hashes: redact()",
        &prose,
        redactor,
        false,
    );
    let code = corpus(corpus_bytes, 0, 1, ordinary_line);
    measure(
        "secret-free code transcript: redact()",
        &code,
        redactor,
        false,
    );
    measure(
        "secret-free code transcript: redact_stream()",
        &code,
        redactor,
        true,
    );
    drop((prose, code));
    let dense = corpus(corpus_bytes, 4, 2, ordinary_line);
    measure(
        "secret-dense (a secret every 4th line): redact()",
        &dense,
        redactor,
        false,
    );
    drop(dense);
    let densest = corpus(corpus_bytes / 4, 1, 3, ordinary_line);
    measure(
        "secret-dense (a secret on every line): redact()",
        &densest,
        redactor,
        false,
    );
    row(
        &format!("generated {streamed_mib} MiB, 1 line in 50 a secret: redact_stream()"),
        streamed_bytes as usize,
        stream_cpu,
        stream_wall,
        counts.values().sum::<u64>(),
    );
    println!(
        "\npeak resident memory while streaming {streamed_mib} MiB: {peak:.1} MiB (before streaming: {baseline:.1} MiB)"
    );
}
