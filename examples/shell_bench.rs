//! Prints how long the shell analysis behind `hook pre-tool` takes, next to the cost of
//! spawning `/bin/true` (the budget: the whole hook within 2x that). Analysis figures are
//! thread CPU time, which stays meaningful on a loaded machine; wall time is shown beside it.
//!
//! Run: `cargo run --release --example shell_bench`

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentguard::shell::{classify_read_only, command_views};

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

/// The destructive detector's triggers, as its loader will compile them.
fn destructive_triggers() -> Vec<String> {
    let toml = include_str!("../assets/detectors/destructive.toml");
    let document: toml_edit::DocumentMut = toml.parse().expect("destructive.toml parses");
    let triggers = document["triggers"]
        .as_array()
        .expect("triggers is an array");
    triggers
        .iter()
        .filter_map(|value| value.as_str().map(str::to_string))
        .collect()
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
            black_box(classify_read_only(black_box(&command)));
            black_box(command_views(black_box(&command)).ok());
        });
        let label = if command.len() > 58 {
            format!("compound command, {} chars, 30 $(...)", command.len())
        } else {
            command
        };
        println!("{label:<58} cpu {cpu:>9.1?}  wall {wall:>9.1?}  (classify + views)");
    }

    let patterns = destructive_triggers();
    let (compile_cpu, compile_wall) = per_call(20, || {
        let compiled: Vec<regex::Regex> = patterns
            .iter()
            .map(|p| regex::Regex::new(p).expect("trigger compiles"))
            .collect();
        black_box(compiled);
    });
    println!(
        "{:<58} cpu {compile_cpu:>9.1?}  wall {compile_wall:>9.1?}",
        format!(
            "compile {} destructive triggers (Regex each)",
            patterns.len()
        )
    );
    let (set_cpu, set_wall) = per_call(20, || {
        black_box(regex::RegexSet::new(&patterns).expect("triggers compile"));
    });
    println!(
        "{:<58} cpu {set_cpu:>9.1?}  wall {set_wall:>9.1?}",
        "compile them as one RegexSet"
    );
    let set = regex::RegexSet::new(&patterns).expect("triggers compile");
    let views = command_views(&compound).expect("compound parses");
    let (match_cpu, match_wall) = per_call(200, || {
        black_box(views.iter().any(|view| set.is_match(view)));
    });
    println!(
        "{:<58} cpu {match_cpu:>9.1?}  wall {match_wall:>9.1?}",
        format!("RegexSet over the compound's {} views", views.len())
    );
}
