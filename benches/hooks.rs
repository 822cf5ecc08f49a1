//! The benchmark suite: one table, every figure measured in the same run as its reference.
//!
//! Run it with `benches/run.sh` (or `cargo bench --bench hooks`). Processes are timed from
//! spawn to exit; each one's peak RSS comes from one more run under GNU time. Process cases
//! of one group run round-robin (one run of each case per round), so a load spike on this
//! shared machine hits the anchor and the subject alike. Figures only: nothing is asserted.
//!
//! `BENCH_QUICK=1` runs fewer rounds (for a smoke check of the bench itself).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentguard::config::Config;
use agentguard::detectors::{Detectors, Event};
use agentguard::pipeline::Pipeline;
use agentguard::redact::Redactor;

/// The `cargo build --release` binary of this bench (dynamically linked on Linux).
const CARGO_BIN: &str = env!("CARGO_BIN_EXE_agentguard");

/// The binary whose hooks are measured: the one users install, built by
/// `scripts/build-release.sh` (benches/run.sh passes it in `AGENTGUARD_BENCH_BIN`), else the
/// bench's own.
fn bin() -> String {
    std::env::var("AGENTGUARD_BENCH_BIN").unwrap_or_else(|_| CARGO_BIN.to_string())
}
const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The innocent last turn of every generated transcript.
const LAST_PROMPT: &str = "Please rename `cfg` to `config` in the parser and update the docs.";
const LAST_ANSWER: &str = "I renamed `cfg` to `config` in src/parser.rs and in the two doc \
    pages that mention it. The change is mechanical; nothing else moved.";
/// A last turn that hits built-in Stop detectors (commit, shallow-bugfix, bugfix-without-
/// reproduction): what the default `rules` judge costs on a Layer 1 hit.
const RULES_HIT_ANSWER: &str = "Fixed the crash in the CSV importer, it should work now. \
    Shall I commit and push?";
/// A last turn that hits one bench detector (for the judge cases).
const HIT_ANSWER: &str = "I looked at the zebra crossing module and left it as it was.";

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let rounds = if quick { 5 } else { 31 };
    let data = Path::new(MANIFEST_DIR).join("target/bench-data");
    std::fs::create_dir_all(&data).expect("create target/bench-data");
    let env = BenchEnv::new(&data);

    let tiny = transcript(&data, "tiny", 0, LAST_ANSWER);
    let mb10 = transcript(&data, "10mb", 10 << 20, LAST_ANSWER);
    let mb100 = transcript(&data, "100mb", 100 << 20, LAST_ANSWER);
    let hit = transcript(&data, "hit", 0, HIT_ANSWER);

    let mut rows: Vec<Row> = Vec::new();

    // --- The hot paths against /bin/true -------------------------------------------------
    let stop_tiny = env.hook("stop", &env.stop_payload(&tiny, LAST_ANSWER), None);
    let stop_10 = env.hook("stop", &env.stop_payload(&mb10, LAST_ANSWER), None);
    let stop_100 = env.hook("stop", &env.stop_payload(&mb100, LAST_ANSWER), None);
    let typical = "cargo test --all";
    let compound = compound_command(2000);
    let pre_typical = env.hook("pre-tool", &env.pre_tool_payload(typical), None);
    let pre_compound = env.hook("pre-tool", &env.pre_tool_payload(&compound), None);
    let stop_tiny_cargo = env.hook_with(
        CARGO_BIN,
        "stop",
        &env.stop_payload(&tiny, LAST_ANSWER),
        None,
    );
    let truth = Case::new("/bin/true", &[], None);
    let fast = measure(
        &[
            &truth,
            &stop_tiny,
            &stop_10,
            &stop_100,
            &pre_typical,
            &pre_compound,
            &stop_tiny_cargo,
        ],
        rounds,
    );
    let t_true = fast[0].median();
    rows.push(Row::process("spawn /bin/true (anchor)", &fast[0], None));
    for (label, samples) in [
        ("hook stop, no hit, tiny transcript", &fast[1]),
        ("hook stop, no hit, 10 MB transcript", &fast[2]),
        ("hook stop, no hit, 100 MB transcript", &fast[3]),
        ("hook pre-tool, `cargo test --all`", &fast[4]),
        ("hook pre-tool, 2,000-char compound command", &fast[5]),
    ] {
        rows.push(Row::process(label, samples, Some(("/bin/true", t_true))));
    }
    if bin() != CARGO_BIN {
        rows.push(Row::process(
            "  hook stop, tiny, plain `cargo build --release` binary",
            &fast[6],
            Some(("/bin/true", t_true)),
        ));
    }

    // --- The seed's bash + jq + grep Layer 1 ----------------------------------------------
    let seed_script = Path::new(MANIFEST_DIR).join("benches/seed-layer1.sh");
    let seed = |path: &Path| {
        let payload = env.stop_payload(path, LAST_ANSWER);
        Case::new("bash", &[seed_script.to_str().unwrap()], Some(payload))
    };
    let seed_rounds = if quick { 2 } else { 5 };
    let (seed_tiny, seed_10) = (seed(&tiny), seed(&mb10));
    let slow = measure(&[&stop_10, &seed_tiny, &seed_10], seed_rounds);
    let ours_10 = slow[0].median();
    rows.push(Row::process(
        "seed-style bash+jq+grep, tiny transcript",
        &slow[1],
        Some(("/bin/true", t_true)),
    ));
    rows.push(Row::process(
        "seed-style bash+jq+grep, 10 MB transcript",
        &slow[2],
        Some(("/bin/true", t_true)),
    ));
    rows.push(Row::ratio(
        "seed-style / hook stop, 10 MB (speed-up)",
        slow[2].median(),
        ours_10,
    ));
    let seed_100 = seed(&mb100);
    let slowest = measure(&[&seed_100], if quick { 1 } else { 2 });
    rows.push(Row::process(
        "seed-style bash+jq+grep, 100 MB transcript",
        &slowest[0],
        Some(("/bin/true", t_true)),
    ));

    // --- Judge pipeline overhead and parallel detectors ------------------------------------
    let reply = data.join("reply.json");
    std::fs::write(&reply, "{\"a\": false, \"reason\": \"bench\"}\n").unwrap();
    let instant = vec!["/bin/cat".to_string(), reply.display().to_string()];
    let sleepy = vec![
        "/bin/sh".to_string(),
        "-c".to_string(),
        format!("sleep 0.2; cat {}", reply.display()),
    ];
    let one_instant = env.config("judge-1-instant", 1, &instant);
    let one_sleepy = env.config("judge-1-sleepy", 1, &sleepy);
    let five_sleepy = env.config("judge-5-sleepy", 5, &sleepy);
    let hit_payload = env.stop_payload(&hit, HIT_ANSWER);
    let no_hit_payload = env.stop_payload(&tiny, LAST_ANSWER);
    let judged = env.hook("stop", &hit_payload, Some(&one_instant));
    let unjudged = env.hook("stop", &no_hit_payload, Some(&one_instant));
    // The backend alone, fed a prompt of the size the pipeline sends it.
    let prompt = data.join("prompt.txt");
    std::fs::write(&prompt, "p".repeat(4500)).unwrap();
    let backend_alone = Case::new(&instant[0], &[instant[1].as_str()], Some(prompt.clone()));
    let judge = measure(&[&unjudged, &judged, &backend_alone], rounds);
    let (t_nohit, t_hit, t_backend) = (judge[0].median(), judge[1].median(), judge[2].median());
    rows.push(Row::process(
        "hook stop, 1 hit, instant `command` judge",
        &judge[1],
        Some(("/bin/true", t_true)),
    ));
    rows.push(Row::process(
        "  the instant judge spawned alone",
        &judge[2],
        None,
    ));
    rows.push(Row::process(
        "  the same hook call without a hit",
        &judge[0],
        None,
    ));
    rows.push(Row::figure(
        "judge overhead: hit - backend alone - no-hit hook",
        t_hit.saturating_sub(t_backend).saturating_sub(t_nohit),
    ));
    let para_rounds = if quick { 2 } else { 9 };
    let one = env.hook("stop", &hit_payload, Some(&one_sleepy));
    let five = env.hook("stop", &hit_payload, Some(&five_sleepy));
    let parallel = measure(&[&one, &five], para_rounds);
    rows.push(Row::process(
        "hook stop, 1 hit, judge sleeping 200 ms",
        &parallel[0],
        None,
    ));
    rows.push(Row::process(
        "hook stop, 5 hits in parallel, judge sleeping 200 ms",
        &parallel[1],
        Some(("1 hit", parallel[0].median())),
    ));

    // --- A Layer 1 hit judged by the built-in rules judge (the default backend) ------------
    let rules_hit = transcript(&data, "rules-hit", 0, RULES_HIT_ANSWER);
    let rules_case = env.hook(
        "stop",
        &env.stop_payload(&rules_hit, RULES_HIT_ANSWER),
        None,
    );
    let no_hit_case = env.hook("stop", &env.stop_payload(&tiny, LAST_ANSWER), None);
    let rules = measure(&[&no_hit_case, &rules_case], rounds);
    rows.push(Row::process(
        "hook stop, Layer 1 hits, built-in `rules` judge",
        &rules[1],
        Some(("no hit", rules[0].median())),
    ));
    rows.push(Row::figure(
        "rules judge on a hit: hit - no-hit hook",
        rules[1].median().saturating_sub(rules[0].median()),
    ));

    // --- Library throughput ----------------------------------------------------------------
    let config = Config::defaults();
    let detectors = Detectors::load(&config.detectors).expect("built-in detectors");
    let mut all = detectors.select(Event::Stop, &[]).unwrap();
    all.extend(detectors.select(Event::PreTool, &[]).unwrap());
    let count = all.len();
    let pipeline = Pipeline::new(all).expect("pipeline");
    // ASCII text keeps Unicode `\b` in the lazy DFA; one non-ASCII character sends the whole
    // search to the (much slower) PikeVM, so both are measured.
    let ascii = prose(8 << 20).replace("パーサーのテストはすべて通りました。", "");
    let mixed = prose(1 << 20);
    for (label, text) in [
        ("Layer 1, all {count} detectors, 8 MB ASCII prose", &ascii),
        (
            "Layer 1, all {count} detectors, 1 MB prose with Japanese",
            &mixed,
        ),
    ] {
        let elapsed = time_median(if quick { 1 } else { 3 }, || {
            std::hint::black_box(pipeline.layer1(text).unwrap());
        });
        let label = label.replace("{count}", &count.to_string());
        rows.push(Row::throughput(&label, text.len(), elapsed));
    }
    let prose = prose(32 << 20);
    let redactor = Redactor::builtin();
    let clean = time_median(if quick { 2 } else { 5 }, || {
        std::hint::black_box(redactor.redact(&prose));
    });
    rows.push(Row::throughput(
        "redact, 32 MB without secrets",
        prose.len(),
        clean,
    ));
    let secrets = secret_text(8 << 20);
    let dense = time_median(if quick { 2 } else { 5 }, || {
        std::hint::black_box(redactor.redact(&secrets));
    });
    rows.push(Row::throughput(
        "redact, 8 MB dense with secrets",
        secrets.len(),
        dense,
    ));
    rows.push(redact_stream_row(&env, 1 << 30));

    print_table(&rows);
}

// ---------------------------------------------------------------------------------------------
// Processes

/// One process to run: program, arguments, environment and stdin file.
struct Case {
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stdin: Option<PathBuf>,
}

impl Case {
    fn new(program: &str, args: &[&str], stdin: Option<PathBuf>) -> Case {
        Case {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
            stdin,
        }
    }

    /// Peak RSS (KiB) of one run, read by GNU time. The child's own `ru_maxrss` cannot be
    /// used: Linux carries the RSS high-water mark of the process that execs into the new
    /// program, and that is this bench with its generated inputs.
    fn peak_rss_kib(&self) -> Option<u64> {
        let out = tempfile::NamedTempFile::new().ok()?;
        let mut timed = Case::new(
            "/usr/bin/time",
            &["-f", "%M", "-o", out.path().to_str()?, &self.program],
            self.stdin.clone(),
        );
        timed.args.extend(self.args.iter().cloned());
        timed.env = self.env.clone();
        timed.run();
        std::fs::read_to_string(out.path())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Runs once; the wall time from spawn to reap.
    fn run(&self) -> Sample {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("PATH", "/usr/bin:/bin")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .stdin(match &self.stdin {
                Some(path) => Stdio::from(File::open(path).expect("stdin file")),
                None => Stdio::null(),
            });
        let started = Instant::now();
        let status = command.spawn().expect("spawn").wait().expect("wait");
        let elapsed = started.elapsed();
        assert!(status.success(), "`{}` exited with {status}", self.program);
        Sample { elapsed }
    }
}

#[derive(Clone, Copy)]
struct Sample {
    elapsed: Duration,
}

/// The timed runs of one case, and its peak RSS from one more run.
struct Samples(Vec<Sample>, Option<u64>);

impl Samples {
    fn median(&self) -> Duration {
        let mut times: Vec<Duration> = self.0.iter().map(|s| s.elapsed).collect();
        times.sort();
        times[times.len() / 2]
    }

    fn max_rss_kib(&self) -> Option<u64> {
        self.1
    }
}

/// Runs the cases round-robin, `rounds` times after one warm-up round, each round in its own
/// shuffled order.
fn measure(cases: &[&Case], rounds: usize) -> Vec<Samples> {
    for case in cases {
        case.run();
    }
    let mut samples: Vec<Vec<Sample>> = cases.iter().map(|_| Vec::new()).collect();
    let mut order: Vec<usize> = (0..cases.len()).collect();
    let mut random = SplitMix64(0x5eed);
    for _ in 0..rounds {
        // A fresh order each round: a case pays for what ran just before it (the first run of
        // a binary after another program is 15-25% slower than the next one with the same
        // work), and a fixed cyclic order, even rotated, always gives it the same predecessor.
        random.shuffle(&mut order);
        for &at in &order {
            samples[at].push(cases[at].run());
        }
    }
    samples
        .into_iter()
        .zip(cases)
        .map(|(runs, case)| Samples(runs, case.peak_rss_kib()))
        .collect()
}

/// A small seeded generator for the round orders (reproducible from run to run).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fisher-Yates.
    fn shuffle(&mut self, items: &mut [usize]) {
        for last in (1..items.len()).rev() {
            let pick = (self.next() % (last as u64 + 1)) as usize;
            items.swap(last, pick);
        }
    }
}

fn time_median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// A temporary HOME with a project directory, as the hooks would see it.
struct BenchEnv {
    home: tempfile::TempDir,
    dir: PathBuf,
}

impl BenchEnv {
    fn new(data: &Path) -> BenchEnv {
        let home = tempfile::Builder::new()
            .prefix("agentguard-bench-")
            .tempdir()
            .expect("temp HOME");
        std::fs::create_dir_all(home.path().join("project")).unwrap();
        BenchEnv {
            home,
            dir: data.to_path_buf(),
        }
    }

    fn project(&self) -> PathBuf {
        self.home.path().join("project")
    }

    /// An `agentguard hook EVENT` call with `payload` on stdin and an optional config file.
    fn hook(&self, event: &str, payload: &Path, config: Option<&Path>) -> Case {
        self.hook_with(&bin(), event, payload, config)
    }

    /// The same with another binary.
    fn hook_with(&self, binary: &str, event: &str, payload: &Path, config: Option<&Path>) -> Case {
        let mut case = Case::new(binary, &["hook", event], Some(payload.to_path_buf()));
        case.env
            .push(("HOME".into(), self.home.path().display().to_string()));
        if let Some(config) = config {
            case.env
                .push(("AGENTGUARD_CONFIG".into(), config.display().to_string()));
        }
        case
    }

    fn stop_payload(&self, transcript: &Path, last: &str) -> PathBuf {
        let name = format!(
            "stop-{}.json",
            transcript.file_stem().unwrap().to_string_lossy()
        );
        let payload = serde_json::json!({
            "session_id": "bench-session",
            "transcript_path": transcript,
            "cwd": self.project(),
            "prompt_id": "bench-prompt",
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": false,
            "last_assistant_message": last,
        });
        self.write(&name, &payload.to_string())
    }

    fn pre_tool_payload(&self, command: &str) -> PathBuf {
        let payload = serde_json::json!({
            "session_id": "bench-session",
            "transcript_path": self.dir.join("tiny.jsonl"),
            "cwd": self.project(),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_use_id": "toolu_bench",
        });
        self.write(
            &format!("pre-tool-{}.json", command.len()),
            &payload.to_string(),
        )
    }

    /// A config with the built-in Stop detectors off and `count` detectors that hit on
    /// "zebra", judged by the `command` backend `argv`.
    fn config(&self, name: &str, count: usize, argv: &[String]) -> PathBuf {
        let mut toml = String::from("[judge]\nbackend = \"command\"\n[judge.command]\nargv = [");
        let quoted: Vec<String> = argv
            .iter()
            .map(|a| toml_edit::Value::from(a.as_str()).to_string())
            .collect();
        toml.push_str(&quoted.join(", "));
        toml.push_str("]\n");
        for builtin in [
            "commit",
            "scope-check",
            "scope-change",
            "shallow-bugfix",
            "bugfix-without-reproduction",
        ] {
            toml.push_str(&format!(
                "[[detectors]]\nname = \"{builtin}\"\nenabled = false\n"
            ));
        }
        for index in 1..=count {
            toml.push_str(&format!(
                "[[detectors]]\nname = \"bench-{index}\"\ntriggers = ['zebra']\nfields = ['a']\n\
                 block_when = 'a'\nprompt = 'Is there a problem?'\nfeedback = 'bench'\n"
            ));
        }
        self.write(&format!("{name}.toml"), &toml)
    }

    fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.home.path().join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

// ---------------------------------------------------------------------------------------------
// Generated inputs

/// A Claude Code transcript of at least `size` bytes: copies of a real recorded session, then
/// an innocent last turn whose final answer is `last`. Kept in target/bench-data between runs.
fn transcript(data: &Path, name: &str, size: u64, last: &str) -> PathBuf {
    let path = data.join(format!("{name}.jsonl"));
    let tail = last_turn(last);
    let fresh = std::fs::metadata(&path).is_ok_and(|m| m.len() >= size)
        && std::fs::read(&path).is_ok_and(|bytes| bytes.ends_with(tail.as_bytes()));
    if fresh {
        return path;
    }
    let session =
        std::fs::read(Path::new(MANIFEST_DIR).join("tests/fixtures/2.1.332.transcript_rich.jsonl"))
            .expect("the recorded transcript fixture");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    let mut written = 0u64;
    while written < size {
        out.write_all(&session).unwrap();
        written += session.len() as u64;
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
    path
}

fn last_turn(answer: &str) -> String {
    let lines = [
        serde_json::json!({"type":"user","isSidechain":false,"promptId":"bench-prompt",
            "message":{"role":"user","content":LAST_PROMPT},"uuid":"u-last",
            "timestamp":"2026-11-29T23:30:00.000Z","cwd":"/home/dev/proj","sessionId":"bench"}),
        serde_json::json!({"type":"assistant","isSidechain":false,"message":{"id":"msg_b1",
            "type":"message","role":"assistant","model":"claude-opus-5-5","content":[
            {"type":"text","text":"I'll rename it with a search and replace."},
            {"type":"tool_use","id":"toolu_b1","name":"Bash",
             "input":{"command":"grep -rn cfg src/ docs/","description":"find uses"}}]},
            "uuid":"a-1","sessionId":"bench"}),
        serde_json::json!({"type":"user","isSidechain":false,"message":{"role":"user",
            "content":[{"tool_use_id":"toolu_b1","type":"tool_result",
            "content":"src/parser.rs:12: let cfg = load();\ndocs/parser.md:3: `cfg`"}]},
            "uuid":"u-2","sessionId":"bench"}),
        serde_json::json!({"type":"assistant","isSidechain":false,"message":{"id":"msg_b2",
            "type":"message","role":"assistant","model":"claude-opus-5-5",
            "content":[{"type":"text","text":answer}]},"uuid":"a-2","sessionId":"bench"}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A compound shell command of about `len` characters, of the kind agents chain.
fn compound_command(len: usize) -> String {
    let parts = [
        "cd /home/dev/proj",
        "cargo fmt --all -- --check",
        "cargo clippy --all-targets -- -D warnings 2>&1 | tee clippy.log",
        "for f in src/*.rs; do grep -n 'TODO' \"$f\" || true; done",
        "git diff --stat HEAD~1 | tail -n 5",
        "RUST_LOG=debug cargo test --all -- --nocapture > test.log 2>&1 || (tail -n 50 test.log; exit 1)",
        "find . -name '*.orig' -print | xargs -r ls -l",
        "echo \"done: $(date +%s)\"",
    ];
    let mut out = String::new();
    for part in parts.iter().cycle() {
        if out.len() + part.len() + 4 > len {
            break;
        }
        if !out.is_empty() {
            out.push_str(" && ");
        }
        out.push_str(part);
    }
    out
}

/// About `size` bytes of agent-like prose (English, some Japanese, code), no secrets.
fn prose(size: usize) -> String {
    let paragraph = "I read the parser and the tokenizer. The failing case comes from an \
        off-by-one in `next_token`, which skips the last byte of a quoted string when it ends \
        the input. I added a test that reproduces it (`tokenizer::quoted_at_eof`), then fixed the \
        bound; 214 tests pass. パーサーのテストはすべて通りました。\n\
        ```rust\nfn next_token(&mut self) -> Option<Token> { self.pos += 1; None }\n```\n";
    paragraph.repeat(size / paragraph.len() + 1)
}

/// About `size` bytes where every line carries a secret of a common kind.
fn secret_text(size: usize) -> String {
    let block = "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n\
        token: ghp_R8xWq2LmZ0vKc7YtB3nH9sJd4FgP1aEu6oTiQ2w9\n\
        OPENAI_API_KEY=sk-proj-qm3Zr8TkWc1Lx7VbNf0Hs5Jd2Gp9Ay4Ue6Io3Ka8Rt1Ye5Wn\n\
        Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n\
        password = \"hunter2-correct-horse\"\n\
        slack: xoxb-123456789012-1234567890123-qZ7mW2rX9kT4vB1nL8sD3fH6\n";
    block.repeat(size / block.len() + 1)
}

/// Peak RSS of `agentguard redact` streaming `bytes` of text from stdin to /dev/null.
fn redact_stream_row(env: &BenchEnv, bytes: u64) -> Row {
    let label = format!("`agentguard redact`, {} GB streamed: peak RSS", bytes >> 30);
    // GNU time reports the peak RSS (see `Case::peak_rss_kib` for why not `wait4`).
    let rss_file = tempfile::NamedTempFile::new().expect("temp file");
    let mut child = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(rss_file.path())
        .args([bin().as_str(), "redact"])
        .env_clear()
        .env("HOME", env.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn agentguard redact");
    let mut stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let chunk = {
        let mut text = prose(1 << 20);
        text.push_str(&secret_text(64 << 10));
        text
    };
    let writer = std::thread::spawn(move || {
        let mut sent = 0u64;
        while sent < bytes {
            if stdin.write_all(chunk.as_bytes()).is_err() {
                return sent;
            }
            sent += chunk.len() as u64;
        }
        sent
    });
    let status = child.wait().expect("wait for agentguard redact");
    let sent = writer.join().unwrap_or(0);
    let rss_kib = std::fs::read_to_string(rss_file.path())
        .ok()
        .and_then(|text| text.lines().last()?.trim().parse::<u64>().ok());
    let elapsed = started.elapsed();
    if !status.success() || sent < bytes {
        return Row::note(
            &label,
            &format!("n/a: `agentguard redact` failed ({status}): not in this build?"),
        );
    }
    Row {
        label,
        median: Some(elapsed),
        reference: None,
        extra: Some(format!(
            "{:.0} MB/s",
            sent as f64 / 1e6 / elapsed.as_secs_f64()
        )),
        rss_kib,
    }
}

// ---------------------------------------------------------------------------------------------
// The table

struct Row {
    label: String,
    median: Option<Duration>,
    /// Name and time of the reference this row is compared to.
    reference: Option<(String, Duration)>,
    /// A throughput, a ratio or a note instead of (or beside) the comparison.
    extra: Option<String>,
    rss_kib: Option<u64>,
}

impl Row {
    fn process(label: &str, samples: &Samples, reference: Option<(&str, Duration)>) -> Row {
        Row {
            label: label.into(),
            median: Some(samples.median()),
            reference: reference.map(|(name, t)| (name.to_string(), t)),
            extra: None,
            rss_kib: samples.max_rss_kib(),
        }
    }

    fn figure(label: &str, value: Duration) -> Row {
        Row {
            label: label.into(),
            median: Some(value),
            reference: None,
            extra: None,
            rss_kib: None,
        }
    }

    fn ratio(label: &str, numerator: Duration, denominator: Duration) -> Row {
        Row {
            label: label.into(),
            median: None,
            reference: None,
            extra: Some(format!(
                "{:.1}×",
                numerator.as_secs_f64() / denominator.as_secs_f64()
            )),
            rss_kib: None,
        }
    }

    fn throughput(label: &str, bytes: usize, elapsed: Duration) -> Row {
        Row {
            label: label.into(),
            median: Some(elapsed),
            reference: None,
            extra: Some(match bytes as f64 / 1e6 / elapsed.as_secs_f64() {
                rate if rate < 10.0 => format!("{rate:.2} MB/s"),
                rate => format!("{rate:.0} MB/s"),
            }),
            rss_kib: None,
        }
    }

    fn note(label: &str, note: &str) -> Row {
        Row {
            label: label.into(),
            median: None,
            reference: None,
            extra: Some(note.into()),
            rss_kib: None,
        }
    }
}

fn format_duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.1} µs", ms * 1000.0)
    }
}

fn print_table(rows: &[Row]) {
    println!("| measure | median | vs reference | other | peak RSS |");
    println!("|---|---:|---:|---:|---:|");
    for row in rows {
        let median = row.median.map(format_duration).unwrap_or_default();
        let versus = match (&row.reference, row.median) {
            (Some((name, reference)), Some(median)) => format!(
                "{:.2}× {name}",
                median.as_secs_f64() / reference.as_secs_f64()
            ),
            _ => String::new(),
        };
        let rss = row
            .rss_kib
            .map(|kib| format!("{:.1} MB", kib as f64 / 1024.0))
            .unwrap_or_default();
        let extra = row.extra.clone().unwrap_or_default();
        println!("| {} | {median} | {versus} | {extra} | {rss} |", row.label);
    }
}
