//! The peers' own dangerous-command suites (`../shared/peers/dangerous/cases.tsv`, see its
//! README): the gate and the read-only allowlist measured against cc-safety-net, dcg and
//! Dippy, with the acceptance bars of issue #13. The decision is the one `hook pre-tool`
//! makes for a Bash call (`shell::dangerous` in the default role, `shell::classify_read_only`
//! in a read-only role); `hooks.rs` runs a sample of the same commands through the binary.
//!
//! The suites live outside the repository. Under `CI=true` a missing suite fails, and so does a
//! figure below its floor: the level this code has reached, so that no change can lose ground
//! unseen. The bars are the targets; a figure short of them is reported on every run
//! (and the issue stays open until each floor is the bar itself).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentguard::shell;

use crate::support::in_ci;

const CASES: &str = "shared/peers/dangerous/cases.tsv";

/// Default role: agreement with each peer, at least: (peer, target, floor).
const MIN_AGREEMENT: [(&str, f64, f64); 2] = [("cc-safety-net", 97.0, 97.0), ("dcg", 95.0, 97.0)];
/// Default role: extra friction (peer allows, agentguard holds), at most, in % of the peer's
/// allow cases: (peer, target, floor). What cc-safety-net allows and the issue itself requires
/// held sits inside its target: `rm -rf` of a target only known at run time (`"$target"`,
/// `$(printf /)`: static expansion only where certain), `rm -rf $TMPDIR/../x` (dcg holds it),
/// input words of `xargs` that may land where options go, and a function body the analysis
/// cannot rule out being called.
const MAX_FRICTION: [(&str, f64, f64); 3] = [
    ("cc-safety-net", 1.0, 1.0),
    ("dcg", 1.0, 1.0),
    ("dippy", 2.0, 0.1),
];
/// Read-only role: block cases of cc-safety-net and dcg still allowed, at most: (target, floor).
const MAX_READ_ONLY_MISSED: (usize, usize) = (0, 0);
/// Read-only role: Dippy's allow cases that are reads still allowed, at least: (target, floor).
const MIN_READ_ONLY_DIPPY: (f64, f64) = (97.0, 98.0);
/// Dippy's allow cases that are no reads by SPEC §3, whatever our policy says of them: a
/// command starting with one of these words changes files, refs, state or credentials
/// (reason given), unless it carries an option that makes it only show what it would do.
/// Every other Dippy allow case is a read a reviewer needs to run.
const DIPPY_WRITERS: &[(&str, &str)] = &[
    ("git fetch", "updates remote-tracking refs and FETCH_HEAD"),
    ("git format-patch", "writes one patch file per commit"),
    ("git archive -o", "writes the archive to a file"),
    ("git archive --output", "writes the archive to a file"),
    ("cargo update", "rewrites Cargo.lock"),
    ("cargo generate-lockfile", "rewrites Cargo.lock"),
    ("cargo vendor", "writes the vendored sources"),
    ("cargo fmt", "rewrites the sources"),
    ("cargo clippy --fix", "rewrites the sources"),
    ("cargo login", "stores a registry token"),
    ("cargo logout", "removes a registry token"),
    ("terraform fmt", "rewrites the configuration"),
    ("terraform refresh", "writes the state"),
    ("terraform get", "downloads modules into .terraform"),
    ("packer fmt", "rewrites the template"),
    ("uv lock", "rewrites uv.lock"),
    ("uv sync", "installs into the project environment"),
    ("uv venv", "creates a virtual environment"),
    ("uv export -o", "writes the requirements file"),
    ("npm pack", "writes a package tarball"),
    ("script", "records the session into a file"),
];
/// Options that make a rewriting command only show the change.
const SHOW_ONLY: &[&str] = &["-write=false", "--check", "-check", "--dry-run", "--locked"];

fn dippy_writer(command: &str) -> Option<&'static str> {
    let shows_only = command
        .split_whitespace()
        .any(|word| SHOW_ONLY.contains(&word));
    DIPPY_WRITERS
        .iter()
        .find(|(prefix, _)| {
            command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '=']))
        })
        .filter(|_| !shows_only)
        .map(|(_, reason)| *reason)
}

struct Case {
    peer: String,
    block: bool,
    source: String,
    command: String,
}

/// Reports what is short of the targets; a figure below its floor fails under
/// `CI=true` and is reported otherwise.
fn verdict(short_of_target: &[String], below_floor: &[String]) {
    if !short_of_target.is_empty() {
        eprintln!("short of the target: {short_of_target:?}");
    }
    if below_floor.is_empty() {
        return;
    }
    assert!(!in_ci(), "below the floor: {below_floor:?}");
    eprintln!("below the floor (fatal under CI=true): {below_floor:?}");
}

fn suite() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `../shared` from the main checkout; worktrees sit one level deeper.
    let found = root
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(CASES))
        .find(|path| path.is_file());
    if found.is_none() && in_ci() {
        panic!(
            "CI=true but the peers' suite is missing: no {CASES} in any parent of {}; \
             check out the shared material next to the repository",
            root.display()
        );
    }
    found
}

/// `\t`, `\n`, `\r`, `\\` escapes of the TSV.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines
            .next()
            .map(|header| header.split('\t').take(4).collect::<Vec<_>>()),
        Some(vec!["peer", "label", "source", "command"]),
        "{}: unexpected header",
        path.display()
    );
    lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "{}: bad line {line:?}", path.display());
            assert!(
                matches!(fields[1], "block" | "allow"),
                "bad label in {line:?}"
            );
            Case {
                peer: fields[0].to_string(),
                block: fields[1] == "block",
                source: unescape(fields[2]),
                command: unescape(fields[3]),
            }
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    cases: usize,
    agree: usize,
    blocks: usize,
    missed: Vec<String>,
    friction: Vec<String>,
}

impl Tally {
    fn allows(&self) -> usize {
        self.cases - self.blocks
    }
    fn agreement(&self) -> f64 {
        100.0 * self.agree as f64 / self.cases.max(1) as f64
    }
    fn friction_percent(&self) -> f64 {
        100.0 * self.friction.len() as f64 / self.allows().max(1) as f64
    }
}

fn tally(cases: &[Case], holds: impl Fn(&str) -> Option<String>) -> BTreeMap<String, Tally> {
    let mut by_peer: BTreeMap<String, Tally> = BTreeMap::new();
    for case in cases {
        let held = holds(&case.command);
        let tally = by_peer.entry(case.peer.clone()).or_default();
        tally.cases += 1;
        tally.blocks += usize::from(case.block);
        let shown = format!(
            "{:?}  [{}]  <- {}",
            case.command,
            held.as_deref().unwrap_or("allow"),
            case.source
        );
        match (case.block, held.is_some()) {
            (true, true) | (false, false) => tally.agree += 1,
            (true, false) => tally.missed.push(shown),
            (false, true) => tally.friction.push(shown),
        }
    }
    by_peer
}

fn report(title: &str, by_peer: &BTreeMap<String, Tally>) {
    eprintln!("== {title}");
    for (peer, tally) in by_peer {
        eprintln!(
            "{peer:<14} cases {:>5}  agree {:>5.1}%  missed {:>4}  friction {:>4} ({:.1}% of {} allows)",
            tally.cases,
            tally.agreement(),
            tally.missed.len(),
            tally.friction.len(),
            tally.friction_percent(),
            tally.allows()
        );
    }
    if std::env::var("AGENTGUARD_PEERS_SHOW").is_ok_and(|show| show == "1") {
        for (peer, tally) in by_peer {
            for line in &tally.missed {
                eprintln!("  {peer} missed: {line}");
            }
            for line in &tally.friction {
                eprintln!("  {peer} friction: {line}");
            }
        }
    }
}

#[test]
fn default_role_agrees_with_the_peers() {
    let Some(path) = suite() else {
        eprintln!("skipped: no {CASES} next to the repository");
        return;
    };
    let cases = load(&path);
    let by_peer = tally(&cases, |command| {
        shell::dangerous(command).map(|hold| hold.rule)
    });
    report("default role (the dangerous gate)", &by_peer);
    let (mut short, mut below) = (Vec::new(), Vec::new());
    for (peer, target, floor) in MIN_AGREEMENT {
        let agreement = by_peer[peer].agreement();
        if agreement < target {
            short.push(format!("{peer}: agreement {agreement:.1}% < {target}%"));
        }
        if agreement < floor {
            below.push(format!("{peer}: agreement {agreement:.1}% < {floor}%"));
        }
    }
    for (peer, target, floor) in MAX_FRICTION {
        let friction = by_peer[peer].friction_percent();
        if friction > target {
            short.push(format!("{peer}: extra friction {friction:.1}% > {target}%"));
        }
        if friction > floor {
            below.push(format!("{peer}: extra friction {friction:.1}% > {floor}%"));
        }
    }
    verdict(&short, &below);
}

#[test]
fn read_only_role_allows_no_peer_block_and_keeps_reads_open() {
    let Some(path) = suite() else {
        eprintln!("skipped: no {CASES} next to the repository");
        return;
    };
    let cases = load(&path);
    let by_peer = tally(&cases, |command| match shell::classify_read_only(command) {
        shell::ReadOnlyVerdict::Allow => None,
        shell::ReadOnlyVerdict::Deny { kind, .. } => Some(kind.to_string()),
    });
    report("read-only role (the allowlist)", &by_peer);
    let (mut short, mut below) = (Vec::new(), Vec::new());
    let (missed_target, missed_floor) = MAX_READ_ONLY_MISSED;
    for peer in ["cc-safety-net", "dcg"] {
        let missed = &by_peer[peer].missed;
        let line = format!(
            "{peer}: {} block cases allowed: {:?}",
            missed.len(),
            &missed[..missed.len().min(5)]
        );
        if missed.len() > missed_target {
            short.push(line.clone());
        }
        if missed.len() > missed_floor {
            below.push(line);
        }
    }
    // Dippy approves some writers too (`cargo update`, `terraform fmt`): its allow cases
    // that are reads are all the others (`DIPPY_WRITERS`, decided without our policy).
    let dippy_reads: Vec<&Case> = cases
        .iter()
        .filter(|case| case.peer == "dippy" && !case.block && dippy_writer(&case.command).is_none())
        .collect();
    let denied: Vec<String> = dippy_reads
        .iter()
        .filter_map(|case| match shell::classify_read_only(&case.command) {
            shell::ReadOnlyVerdict::Allow => None,
            shell::ReadOnlyVerdict::Deny { kind, .. } => {
                Some(format!("{:?}  [{kind}]  <- {}", case.command, case.source))
            }
        })
        .collect();
    let reads = dippy_reads.len();
    let allowed = 100.0 * (reads - denied.len()) as f64 / reads.max(1) as f64;
    let dippy = &by_peer["dippy"];
    eprintln!(
        "dippy reads: {} of {reads} allowed ({allowed:.1}%); all allow cases: {:.1}%",
        reads - denied.len(),
        100.0 - dippy.friction_percent()
    );
    for line in &denied {
        eprintln!("  denied read: {line}");
    }
    let (dippy_target, dippy_floor) = MIN_READ_ONLY_DIPPY;
    if allowed < dippy_target {
        short.push(format!(
            "dippy: {allowed:.1}% of its read cases allowed < {dippy_target}%"
        ));
    }
    if allowed < dippy_floor {
        below.push(format!(
            "dippy: {allowed:.1}% of its read cases allowed < {dippy_floor}%"
        ));
    }
    verdict(&short, &below);
}
