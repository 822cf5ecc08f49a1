//! The dangerous-command gate (SPEC §8): every simple command the analysis finds is read
//! against its program's spec (`hold` rules in `assets/programs/`), plus the few dangers
//! that belong to how commands are combined rather than to one program: code piped from the
//! network into a shell, code only known at run time fed to `eval`/`source`/`sh -c`, input
//! from `xargs` landing where it can choose the subcommand, output redirected onto a disk.

use std::sync::LazyLock;

use regex::Regex;

use super::places::{self, Place};
use super::programs::{self, Hold as HoldRule, Parsed};
use super::rules::{self, Program};
use super::walk::{Analysis, INPUT_WORD, Invocation};

/// Why the gate holds a command: the rule, what it does, the safer route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    /// Stable id (`git.reset-hard`), logged with the hold.
    pub rule: String,
    /// What the command does ("`git reset --hard` discards uncommitted work").
    pub message: String,
    /// The safer route.
    pub safer: String,
}

impl Hold {
    fn from_rule(rule: &HoldRule) -> Hold {
        Hold {
            rule: rule.rule.to_string(),
            message: rule.message.to_string(),
            safer: rule.safer.to_string(),
        }
    }

    fn new(rule: &str, message: impl Into<String>, safer: &str) -> Hold {
        Hold {
            rule: rule.to_string(),
            message: message.into(),
            safer: safer.to_string(),
        }
    }

    /// The message shown with the hold: what, the rule, the safer route.
    pub fn reason(&self) -> String {
        format!(
            "{} (rule {}). Safer: {}.",
            self.message.trim_end_matches('.'),
            self.rule,
            self.safer.trim_end_matches('.')
        )
    }
}

/// How many inline programs deep the gate reads (`python -c 'os.system("bash -c ...")'`).
const MAX_INLINE_DEPTH: usize = 3;

pub fn gate(analysis: &Analysis) -> Option<Hold> {
    gate_at(analysis, 0)
}

pub(super) fn gate_at(analysis: &Analysis, depth: usize) -> Option<Hold> {
    if let Some(what) = analysis.dynamic_code.first() {
        return Some(Hold::new(
            "shell.dynamic-code",
            format!("`{what}` runs shell commands known only at run time"),
            "write the commands out so they can be checked",
        ));
    }
    for redirect in &analysis.redirects {
        if redirect.opens_for_write && is_device(&redirect.target) {
            return Some(Hold::new(
                "dd.device",
                format!("`{}` overwrites a disk device", redirect.render()),
                "write to an image file and check the device with `lsblk` first",
            ));
        }
    }
    analysis
        .invocations
        .iter()
        .find_map(|invocation| invocation_hold(invocation, depth))
}

fn invocation_hold(invocation: &Invocation, depth: usize) -> Option<Hold> {
    let argv = &invocation.argv;
    if invocation.from_input.first().copied().unwrap_or(false) {
        return Some(Hold::new(
            "xargs.input-chooses-command",
            format!("the program `{}` runs is read at run time", argv[0]),
            "name the program; pass only data through `xargs`/`parallel`",
        ));
    }
    if invocation.dynamic.first().copied().unwrap_or(true) {
        // `sh -c '$1' _ "$X"`, `eval "$CMD"`: in shell code run by another command, a
        // program named by a variable is code chosen at run time.
        let parameter = argv
            .first()
            .is_some_and(|word| word.starts_with('$') && !word.starts_with("$("));
        return (invocation.in_script && parameter).then(|| {
            Hold::new(
                "shell.dynamic-code",
                format!(
                    "the shell code runs a program named by a variable (`{}`)",
                    argv[0]
                ),
                "write the command out so it can be checked",
            )
        });
    }
    let name = rules::program_name(&argv[0]);
    if let Some(hold) = combination_hold(name, invocation) {
        return Some(hold);
    }
    let Some(parsed) = invocation.parsed() else {
        return unknown_program_hold(invocation, depth);
    };
    let spec = parsed.path[0];
    if let Some(hold) = input_chooses_command(invocation, parsed)
        .or_else(|| input_chooses_code(name, spec, invocation))
    {
        return Some(hold);
    }
    if name.eq_ignore_ascii_case("git")
        && let Some(hold) = super::git::config_hold(invocation, parsed, depth, &|inner, depth| {
            invocation_hold(inner, depth)
        })
    {
        return Some(hold);
    }
    for command in &parsed.path {
        for rule in command.holds {
            if rule_applies(rule, parsed, invocation, depth) {
                return Some(Hold::from_rule(rule));
            }
        }
    }
    None
}

/// A program no spec describes may still run one (`tool git reset --hard`, `mise exec --
/// rm -rf ~`, `custom-tool <<EOF ... EOF`): a known program named among its words, or shell
/// source fed on its stdin, is checked as if run.
fn unknown_program_hold(invocation: &Invocation, depth: usize) -> Option<Hold> {
    if depth >= MAX_INLINE_DEPTH {
        return None;
    }
    let argv = &invocation.argv;
    let gate_source = |source: &str| {
        super::walk::analyze(source)
            .ok()
            .and_then(|analysis| gate_at(&analysis, depth + 1))
    };
    for at in 1..argv.len() {
        if invocation.dynamic[at] || programs::lookup(&argv[at]).is_none() {
            continue;
        }
        let source: Vec<String> = argv[at..].iter().map(|word| rules::quoted(word)).collect();
        if let Some(hold) = gate_source(&source.join(" ")) {
            return Some(hold);
        }
    }
    let text = invocation.stdin_text.as_deref()?;
    super::walk::analyze(text)
        .ok()
        .and_then(|analysis| gate_at(&analysis, depth + 1))
}

/// `xargs git`, `xargs -I{} git reset {}`, `xargs find . -name x`: words read from stdin
/// land where they choose what the program does: its name, a subcommand, or an option of a
/// command whose options the gate holds on (a value of an option, or a word after `--`, is
/// only data).
fn input_chooses_command(invocation: &Invocation, parsed: &Parsed) -> Option<Hold> {
    if !invocation.from_input.iter().any(|input| *input) {
        return None;
    }
    let argv = &invocation.argv;
    let hold = || {
        Hold::new(
            "xargs.input-chooses-command",
            format!(
                "words read at run time decide what `{}` does (they land where a program, subcommand or option goes)",
                parsed.display_name(&argv[0])
            ),
            "run the commands one by one, written out, or put the input after `--`",
        )
    };
    if invocation.from_input.first().copied().unwrap_or(false) {
        return Some(hold());
    }
    let leaf = parsed.leaf();
    let option_holds = leaf
        .holds
        .iter()
        .any(|rule| !rule.any.is_empty() || !rule.all.is_empty());
    // Where any unique prefix of a long option is that option (git), an input word that
    // forms an option can become any of them.
    let abbreviates = parsed.path.iter().any(|command| command.long_prefixes);
    let options_matter = leaf.single_dash_long || option_holds;
    let takes_value = |word: &str| {
        parsed
            .path
            .iter()
            .any(|command| command.value_options.contains(&word))
    };
    let dashdash = argv.iter().position(|arg| arg == "--");
    // In `find`, the words of `-exec ... ;` belong to the command run, not the expression.
    let data = if leaf.single_dash_long {
        rules::find_data_positions(argv)
    } else {
        vec![false; argv.len()]
    };
    for at in 1..argv.len() {
        if !invocation.from_input.get(at).copied().unwrap_or(false)
            || dashdash.is_some_and(|dd| at > dd)
            || takes_value(&argv[at - 1])
            || data.get(at).copied().unwrap_or(false)
        {
            continue;
        }
        let word = &argv[at];
        // Only a word that starts with the input (or an option name built from it) can
        // become an option or a subcommand: `./{}` and `--format={}` cannot.
        let forms_option = word.starts_with(INPUT_WORD)
            || (word.starts_with('-')
                && word
                    .split('=')
                    .next()
                    .is_some_and(|name| name.contains(INPUT_WORD)));
        if !forms_option {
            continue;
        }
        let sub_position = !leaf.subs.is_empty()
            && parsed
                .operands
                .first()
                .is_some_and(|operand| operand.text == *word);
        // `--{}`: an option name completed by the input.
        let completes_option = abbreviates && word.starts_with('-');
        if sub_position || options_matter || completes_option {
            return Some(hold());
        }
    }
    None
}

/// `xargs python`, `xargs -I{} sh -c {}`, `xargs awk`, `parallel node -e 'x("{}")'`: words
/// read at run time become the code an interpreter, shell or awk runs (its script, its
/// inline program, or options read before the program is fixed).
fn input_chooses_code(
    name: &str,
    spec: &programs::Command,
    invocation: &Invocation,
) -> Option<Hold> {
    if !invocation.from_input.iter().any(|input| *input) {
        return None;
    }
    let runs_code =
        spec.check == Some("interpreter") || rules::is_shell(name) || rules::is_awk(name);
    let syntax_check = rules::is_shell(name) && rules::shell_flags(&invocation.argv).contains('n');
    if !runs_code || syntax_check {
        return None;
    }
    let fixed = rules::code_fixed_at(name, invocation);
    let argv = &invocation.argv;
    // A value of an option that takes one (`node --title {}`, `python -W {}`) is data.
    let value_of_option = |at: usize| at > 1 && rules::interpreter_value_flag(name, &argv[at - 1]);
    let chooses = invocation
        .from_input
        .iter()
        .enumerate()
        .any(|(at, input)| *input && at < fixed && !value_of_option(at));
    chooses.then(|| {
        Hold::new(
            "xargs.input-chooses-code",
            format!("words read at run time become the code `{name}` runs"),
            "write the program out, or pass the input as data after the script (`sh -c '...' _ {}`)",
        )
    })
}

/// Dangers of how commands combine: code from the network or from run time fed to a shell.
fn combination_hold(name: &str, invocation: &Invocation) -> Option<Hold> {
    let shell_like = rules::is_shell(name)
        || matches!(name, "eval" | "source" | "." | "trap" | "su" | "runuser");
    let interpreter = programs::lookup(name).is_some_and(|spec| spec.check == Some("interpreter"));
    if (shell_like || interpreter) && invocation.piped && reads_program_from_stdin(name, invocation)
    {
        return Some(if invocation.pipe_downloads {
            Hold::new(
                "pipe.download-exec",
                format!("a download piped into `{name}` runs code from the network unseen"),
                "download to a file, read it, then run it",
            )
        } else {
            Hold::new(
                "shell.stdin-script",
                format!("`... | {name}` runs a script assembled at run time"),
                "write the commands out, or save the script to a file and run that",
            )
        });
    }
    if shell_like && let Some(source) = dynamic_code_source(name, invocation) {
        return Some(source);
    }
    // `BASH_ENV="$X" bash s.sh`, `bash --init-file "$X"`: a startup file named at run time.
    let startup_env = invocation
        .environment()
        .any(|(name, value)| matches!(name.as_str(), "BASH_ENV" | "ENV") && value.contains('$'));
    let startup_option = invocation
        .argv
        .windows(2)
        .zip(&invocation.dynamic[1..])
        .any(|(pair, dynamic)| matches!(pair[0].as_str(), "--init-file" | "--rcfile") && *dynamic);
    if rules::is_shell(name) && (startup_env || startup_option) {
        return Some(Hold::new(
            "shell.dynamic-code",
            format!("`{name}` reads a startup file named only at run time"),
            "name the file, or leave the startup variables unset",
        ));
    }
    None
}

fn reads_program_from_stdin(name: &str, invocation: &Invocation) -> bool {
    if invocation.stdin_text.is_some() {
        return false;
    }
    if rules::is_shell(name) {
        return rules::shell_payload(invocation).is_none()
            && rules::shell_reads_pipe(invocation)
            && !rules::shell_flags(&invocation.argv).contains('n');
    }
    matches!(
        rules::interpreter_program(name, invocation),
        Program::Interactive
    ) || invocation.argv.get(1).is_some_and(|arg| arg == "-")
}

/// `eval "$X"`, `bash -c "$CMD"`, `source "$FILE"`, `eval "$(curl ...)"`, `bash <(curl ...)`,
/// `trap "$(cmd)" EXIT`: shell code whose text is only known at run time. Only the set-up
/// code of a known generator, in its exact form (`eval "$(brew shellenv)"`, `source
/// <(kubectl completion bash)`), is known for what it is.
fn dynamic_code_source(name: &str, invocation: &Invocation) -> Option<Hold> {
    let argv = &invocation.argv;
    // `bash -n` checks syntax; `bash -s ARGS` reads its code from stdin, the words are data.
    if rules::is_shell(name)
        && rules::shell_payload(invocation).is_none()
        && rules::shell_flags(argv).contains(['n', 's'])
    {
        return None;
    }
    let code_words: Vec<usize> = if matches!(name, "eval") {
        (1..argv.len()).collect()
    } else if matches!(name, "source" | "." | "trap") {
        // `source -p DIRS FILE` (bash 5.3) looks FILE up in DIRS: they choose the code too.
        let search_path = argv
            .iter()
            .position(|arg| arg == "-p")
            .filter(|_| name != "trap")
            .map(|at| at + 1)
            .filter(|at| *at < argv.len());
        first_operand(argv, 1)
            .into_iter()
            .chain(search_path)
            .collect()
    } else if rules::is_shell(name) {
        match rules::shell_payload(invocation) {
            Some(payload) => argv
                .iter()
                .position(|arg| *arg == payload)
                .into_iter()
                .collect(),
            None => first_operand(argv, 1).into_iter().collect(),
        }
    } else {
        Vec::new()
    };
    for at in code_words {
        let (word, dynamic) = (&argv[at], invocation.dynamic[at]);
        if !dynamic || generated_setup_code(name, invocation, at) {
            continue;
        }
        return Some(Hold::new(
            "shell.dynamic-code",
            format!("`{name}` runs shell code that is only known at run time (`{word}`)"),
            "write the commands out so they can be checked, or save the script and read it first",
        ));
    }
    None
}

/// `eval "$(ssh-agent -s)"`, `. <(kubectl completion bash)`: the code is what a known
/// generator prints, and nothing else: the builtin named by the shell itself (no wrapper,
/// assignment or redirection of its own), the substitution its only word, and in it the
/// generator alone, with fixed words (no pipe, list, redirection or nested substitution).
fn generated_setup_code(name: &str, invocation: &Invocation, at: usize) -> bool {
    let argv = &invocation.argv;
    if invocation.wrapped
        || !invocation.assignments.is_empty()
        || invocation.redirected
        || argv.len() != 2
        || at != 1
    {
        return false;
    }
    let opening = match name {
        "eval" => "$(",
        "source" | "." => "<(",
        _ => return false,
    };
    let Some(body) = argv[1]
        .strip_prefix(opening)
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return false;
    };
    let Ok(analysis) = super::walk::analyze(body) else {
        return false;
    };
    analysis.redirects.is_empty()
        && analysis.dynamic_code.is_empty()
        && matches!(analysis.invocations.as_slice(), [only]
            if only.assignments.is_empty()
                && only.dynamic.iter().all(|dynamic| !dynamic)
                && programs::generates_shell_code(&only.argv))
}

/// The first word after options (`source -p dir FILE` is a BSD form: skip option values).
fn first_operand(argv: &[String], from: usize) -> Option<usize> {
    let mut index = from;
    while let Some(arg) = argv.get(index) {
        if arg == "--" {
            return (index + 1 < argv.len()).then_some(index + 1);
        }
        if arg.starts_with('-') && arg.len() > 1 {
            index += if matches!(
                arg.as_str(),
                "-p" | "-o" | "-O" | "--rcfile" | "--init-file"
            ) {
                2
            } else {
                1
            };
            continue;
        }
        return Some(index);
    }
    None
}

fn rule_applies(rule: &HoldRule, parsed: &Parsed, invocation: &Invocation, depth: usize) -> bool {
    if !rule.any.is_empty() && !parsed.has_any(rule.any) {
        return false;
    }
    if !rule.all.iter().all(|group| parsed.has_any(group)) {
        return false;
    }
    // `-readonly`, `-safe`: single-dash words the option parser reads as flag clusters.
    let dashdash = invocation.argv.iter().position(|arg| arg == "--");
    let written = invocation.argv[..dashdash.unwrap_or(invocation.argv.len())]
        .iter()
        .any(|word| {
            !word.starts_with("--") && word.len() > 2 && rule.unless.contains(&word.as_str())
        });
    if parsed.has_any(rule.unless) || written {
        return false;
    }
    let operand_count = parsed.operands.len() + usize::from(parsed.has_any(rule.operand_options));
    if operand_count < rule.min_operands {
        return false;
    }
    if !rule.operand_any.is_empty()
        && !parsed.operands.iter().any(|operand| {
            rule.operand_any
                .iter()
                .any(|pattern| programs::pattern_matches(pattern, &operand.text))
        })
    {
        return false;
    }
    match rule.check {
        None => true,
        Some(check) => check_applies(check, parsed, invocation, depth),
    }
}

fn check_applies(check: &str, parsed: &Parsed, invocation: &Invocation, depth: usize) -> bool {
    let operands = || parsed.operands.iter();
    let place_of = |text: &str, dynamic: bool| places::place(text, dynamic, &invocation.cwd);
    match check {
        "paths-outside-project" => {
            operands().any(|operand| place_of(&operand.text, operand.dynamic) >= Place::Outside)
        }
        "broad-delete" | "broad-paths" => {
            operands().any(|operand| place_of(&operand.text, operand.dynamic) == Place::Broad)
        }
        "find-delete" => {
            if !rules::find_primaries(&invocation.argv).contains(&"-delete") {
                return false;
            }
            let roots: Vec<_> = operands()
                .filter(|operand| !matches!(operand.text.as_str(), "(" | ")" | "!" | ","))
                .collect();
            // Only roots strictly inside a temp dir, named without `..` or wildcards, may be
            // emptied.
            roots.is_empty()
                || roots.iter().any(|root| {
                    root.text.split('/').any(|part| part == "..")
                        || root.text.contains(['*', '?', '['])
                        || place_of(&root.text, root.dynamic) != Place::Temp
                        || matches!(
                            root.text.trim_end_matches('/'),
                            "/tmp" | "/var/tmp" | "$TMPDIR" | "${TMPDIR}" | "/private/tmp"
                        )
                })
        }
        "device-target" => {
            operands().any(|operand| {
                is_device(&operand.text) || operand.text.strip_prefix("of=").is_some_and(is_device)
            }) || parsed
                .options
                .iter()
                .any(|opt| opt.value.as_deref().is_some_and(is_device))
        }
        "force-refspec" => operands()
            .skip(1)
            .any(|operand| operand.text.starts_with('+') || operand.text.contains(":+")),
        "delete-refspec" => operands()
            .skip(1)
            .any(|operand| operand.text.starts_with(':') && operand.text.len() > 1),
        "world-writable" => operands().any(|operand| {
            matches!(
                operand.text.as_str(),
                "777" | "0777" | "a+rwx" | "ugo+rwx" | "a=rwx" | "o+w" | "a+w" | "666" | "0666"
            )
        }),
        "restore-worktree" => {
            // The work tree is the default location only when no location is named
            // (`--staged`, `--worktree`, or their `--no-` forms).
            let negated = |name: &str| parsed.negated.iter().any(|n| n == name);
            let named = parsed.has_any(&["-S", "--staged", "-W", "--worktree"])
                || negated("--staged")
                || negated("--worktree");
            let worktree = if named {
                parsed.has_any(&["-W", "--worktree"]) && !negated("--worktree")
            } else {
                true
            };
            let patch = parsed.in_force(&["-p", "--patch"], "--patch");
            let targets =
                !parsed.operands.is_empty() || parsed.has("--pathspec-from-file") || patch;
            worktree && targets
        }
        "checkout-paths" => {
            if parsed.operands.iter().any(|operand| operand.after_dashdash)
                || parsed.has("--pathspec-from-file")
            {
                return true;
            }
            let creates = parsed.has_any(&["-b", "-B", "--orphan"]);
            // `.`, `./x`, `*.rs`, `:/x`: only ever paths, never a branch.
            let path_like = parsed.operands.iter().any(|operand| {
                let text = operand.text.as_str();
                matches!(text, "." | "..")
                    || text.starts_with("./")
                    || text.starts_with("../")
                    || text.starts_with(":/")
                    || text.contains(['*', '?'])
            });
            path_like || parsed.operands.len() >= if creates { 3 } else { 2 }
        }
        "prune-now" => parsed
            .value("--prune")
            .is_some_and(|value| matches!(value, "now" | "all")),
        "http-delete" => parsed
            .value("-X")
            .or_else(|| parsed.value("--method"))
            .is_some_and(|method| method.eq_ignore_ascii_case("delete")),
        "sql-destroys" => {
            let texts = parsed
                .options
                .iter()
                .filter_map(|opt| opt.value.as_deref())
                .chain(parsed.operands.iter().map(|operand| operand.text.as_str()))
                .chain(invocation.stdin_text.as_deref());
            texts.into_iter().any(sql_destroys)
        }
        "inline-code" => inline_code_destroys(invocation, depth),
        "custom-ssh" => super::git::sets_ssh_program(invocation, parsed),
        _ => false,
    }
}

/// `/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`: a disk or partition (not `/dev/null`, a tty).
fn is_device(path: &str) -> bool {
    // Prefixes, not a regex: every redirection is checked, and compiling a pattern for it
    // cost more than the rest of a long command's gate.
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "disk", "rdisk", "mmcblk", "mapper/", "md", "loop", "dm-",
        "sr",
    ];
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    DISKS.iter().any(|disk| name.starts_with(disk))
        || name
            .strip_prefix("fd")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

fn sql_destroys(text: &str) -> bool {
    static DESTROYS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i)\b(?:drop\s+(?:table|database|schema|keyspace|collection|view|index|user)\b",
            r"|truncate\s+(?:table\s+)?[\w.`\x22\[]",
            r"|delete\s+from\s+[\w.`\x22\[\]]+\s*(?:;|$)",
            r"|flushall\b|flushdb\b)",
            r"|\.dropDatabase\s*\(|\.drop\s*\(\s*\)|\.deleteMany\s*\(\s*\{\s*\}\s*\)",
        ))
        .expect("SQL pattern compiles")
    });
    DESTROYS.is_match(text)
}

/// An interpreter's inline program (or awk program) that deletes files or runs a command the
/// gate holds: destructive APIs, and the string literals handed to `system`, `exec`...
fn inline_code_destroys(invocation: &Invocation, depth: usize) -> bool {
    let name = rules::program_name(&invocation.argv[0]);
    let codes: Vec<String> = if rules::is_awk(name) {
        rules::awk_program(&invocation.argv[1..])
            .into_iter()
            .collect()
    } else {
        match rules::interpreter_program(name, invocation) {
            Program::Inline(codes) => codes,
            _ => return false,
        }
    };
    codes.iter().any(|code| code_destroys(code, depth))
}

fn code_destroys(code: &str, depth: usize) -> bool {
    static DELETES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"\bshutil\.rmtree\s*\(|\bos\.(?:remove|unlink|rmdir|removedirs)\s*\(",
            r"|\.rmtree\s*\(|\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry|rmtree)\b",
            r"|\brmSync\s*\([^)]*recursive|\bfs\.rm\s*\([^)]*recursive|\brimraf\b",
            r"|\bFile::Path::(?:rmtree|remove_tree)|\b(?:remove_tree|rmtree)\s*\(",
            r"|\bunlink\s+glob\b|\bDir\.(?:rmdir|delete)\b|\bDeno\.remove\s*\([^)]*recursive",
        ))
        .expect("delete API pattern compiles")
    });
    static EXEC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?:\b(?:system|exec|execSync|execFileSync|spawn|spawnSync|popen|Popen|run|call",
            r"|check_call|check_output|getoutput|getstatusoutput|shell_exec|passthru|proc_open",
            r"|exec_command|qx)\b\s*\(?\s*\[?|`|%x[({\[]|\|\s*getline|\bprint[^|;]*\|)",
        ))
        .expect("exec API pattern compiles")
    });
    if DELETES.is_match(code) {
        return true;
    }
    if depth >= MAX_INLINE_DEPTH {
        return false;
    }
    // `system(cmd)` with no literal in awk: the command is only known at run time.
    static AWK_DYNAMIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bsystem\s*\(\s*[A-Za-z_$]").expect("awk dynamic system pattern")
    });
    if AWK_DYNAMIC.is_match(code) {
        return true;
    }
    // awk's `"cmd" | getline`: the command comes before the pipe.
    static GETLINE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""((?:[^"\\]|\\.)*)"\s*\|\s*getline"#).expect("getline pattern")
    });
    let gated = |command: &str| {
        super::walk::analyze(&decode_escapes(command))
            .map(|analysis| gate_at(&analysis, depth + 1).is_some())
            .unwrap_or(false)
    };
    if GETLINE.captures_iter(code).any(|found| gated(&found[1])) {
        return true;
    }
    // `node -e "rm -rf /"`: the program is a shell command the gate holds, given to the
    // wrong interpreter (or meant for a shell the code starts): held as that command. Code
    // of the language itself seldom parses as shell, and then names no such command.
    if super::walk::is_shell_syntax(code) && gated(code) {
        return true;
    }
    EXEC.find_iter(code).any(|found| {
        let rest = &code[found.end()..];
        let command = if found.as_str() == "`" {
            rest.split('`').next().unwrap_or("").to_string()
        } else {
            leading_literals(rest).join(" ")
        };
        !command.trim().is_empty() && gated(&command)
    })
}

/// The string literals at the start of `text` (a call's arguments): `"rm", "-rf", "/"`.
fn leading_literals(text: &str) -> Vec<String> {
    let mut literals = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '"' | '\'' => {
                let quote = c;
                let mut literal = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, next)) = chars.next() {
                                literal.push('\\');
                                literal.push(next);
                            }
                        }
                        _ if c == quote => break,
                        _ => literal.push(c),
                    }
                }
                literals.push(literal);
            }
            ' ' | ',' | '[' | '(' | '\t' => {}
            _ => break,
        }
    }
    literals
}

/// `\040`, `\x20`, `\n` in a literal, as the interpreter decodes them.
fn decode_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('x') => {
                let hex: String = (0..2)
                    .filter_map(|_| chars.next_if(|c| c.is_ascii_hexdigit()))
                    .collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            Some(d @ '0'..='7') => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    if let Some(next) = chars.next_if(|c| c.is_digit(8)) {
                        value = value * 8 + next.to_digit(8).unwrap_or(0);
                    }
                }
                out.extend(char::from_u32(value));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
