//! Prints how long the shell analysis behind `hook pre-tool` takes (one parse, then the
//! read-only allowlist and the dangerous gate over the program specs), next to the cost of
//! spawning `/bin/true` (the budget: the whole hook within 2x that). Analysis figures are
//! thread CPU time, which stays meaningful on a loaded machine; wall time is shown beside it.
//!
//! Run: `cargo run --release --example shell_bench`

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentguard::shell::{self, classify_read_only};

fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; the clock id is a constant libc knows.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// (CPU time, wall time) per call.
fn per_call(iterations: u32, mut run: impl FnMut()) -> (Duration, Duration) {
    run();
    let (cpu, wall) = (thread_cpu_time(), Instant::now());
    for _ in 0..iterations {
        run();
    }
    (
        (thread_cpu_time() - cpu) / iterations,
        wall.elapsed() / iterations,
    )
}

fn main() {
    let typical = [
        "git status",
        "cargo test --lib shell::",
        "rg -n 'fn main' src | head -20",
        "git diff --stat HEAD~3 2>/dev/null",
        "cd src && grep -rn TODO . | wc -l",
        "find . -name '*.rs' -exec wc -l {} + | sort -n | tail",
        "bash -c \"sh -c 'git log -1 | cat'\"",
    ];
    let mut compound = String::new();
    let mut index = 0;
    while compound.len() < 2000 {
        let piece = typical[index % typical.len()];
        compound.push_str(&format!("{piece} && echo \"step {index}: $(date +%s)\"; "));
        index += 1;
    }
    compound.push_str("for f in src/*.rs; do wc -l \"$f\"; done");
    assert!(
        classify_read_only(&compound).is_allow(),
        "the compound sample must parse and pass"
    );

    let (_, spawn) = per_call(100, || {
        black_box(std::process::Command::new("/bin/true").status().ok());
    });
    println!("{:<58} wall {spawn:>9.1?}", "spawn /bin/true");
    let samples = typical
        .iter()
        .map(|c| (c.to_string(), 2000))
        .chain([(compound.clone(), 200)]);
    for (command, iterations) in samples {
        let (cpu, wall) = per_call(iterations, || {
            let analysis = shell::analyze(black_box(&command)).expect("sample parses");
            black_box(analysis.read_only());
            black_box(analysis.dangerous());
        });
        let label = if command.len() > 58 {
            format!("compound command, {} chars, 30 $(...)", command.len())
        } else {
            command
        };
        println!("{label:<58} cpu {cpu:>9.1?}  wall {wall:>9.1?}  (one analysis, both policies)");
    }
}
