//! Per-program knowledge: which programs run other commands (wrappers, shells, `xargs`,
//! `find -exec`), and which write files.
//!
//! Decisions where the spec is silent:
//! - Build and test tools (`cargo build/test/clippy`, `make`, `npm test`, `pytest`, `go test`)
//!   stay open: they write only build artifacts, and a reviewer must be able to run them.
//!   `make install`/`uninstall` write outside the project and are denied.
//! - Package managers that change manifests, lock files or installed trees (`npm install`,
//!   `pip install`, `cargo add`, `go get`, `apt install`...) are denied; their read commands
//!   (`npm ls`, `pip list`, `cargo tree`) stay open.
//! - Formatters and fixers that rewrite sources (`cargo fmt`, `prettier --write`,
//!   `eslint --fix`, `black`, `ruff format`) are denied; their check modes stay open.
//! - Editors (`vim`, `nano`, `ed`...) are denied: they exist to write files.
//! - `mktemp` stays open (it creates an empty file in the temp dir; writing into it needs a
//!   redirection, which is denied).
//! - Unknown programs are allowed: this is a list of known writers, not a sandbox.

use std::sync::LazyLock;

use regex::Regex;

use super::DenyKind;
use super::git;
use super::walk::{INPUT_WORD, Invocation};

impl Nested {
    fn is_none(&self) -> bool {
        matches!(self, Nested::None)
    }
}

/// The words of a command built from another's (`find -exec`, `parallel ::: inputs`).
pub struct Words {
    pub argv: Vec<String>,
    pub dynamic: Vec<bool>,
    /// Filled in at run time from what the parent reads or finds (`find`'s `{}`).
    pub from_input: Vec<bool>,
}

impl Words {
    fn fixed(argv: Vec<String>) -> Words {
        let len = argv.len();
        Words {
            argv,
            dynamic: vec![false; len],
            from_input: vec![false; len],
        }
    }
}

/// What an invocation runs in turn.
pub enum Nested {
    None,
    /// The command starting at this word (`sudo -u x CMD ...`, `xargs -0 CMD ...`).
    Argv(usize),
    /// Several commands built from the words (`find -exec A {} ; -exec B {} +`).
    Commands(Vec<Words>),
    /// Shell source to parse one level deeper (`bash -c '...'`, `eval ...`, `sh <<EOF`).
    Script(String),
    /// The command starting at `from`, given words read from stdin (`xargs`): appended at
    /// the end, or replacing `replace` (`-I {}`).
    Input {
        from: usize,
        replace: Option<String>,
    },
    /// Shell commands known only at run time (`parallel` reading its commands from stdin).
    Unknown(String),
}

/// The program's name as the shell resolves it: `/usr/bin/rm` and `rm` are the same.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "busybox-sh" | "fish"
    )
}

fn is_python(name: &str) -> bool {
    name.starts_with("python") || name.starts_with("pypy")
}

/// Skips options starting at `index`; `with_value` lists the options that take the next word.
/// Returns the index of the first operand (after `--` if present).
fn skip_options(argv: &[String], mut index: usize, with_value: &[&str]) -> usize {
    while let Some(arg) = argv.get(index) {
        if arg == "--" {
            return index + 1;
        }
        if !arg.starts_with('-') || arg == "-" {
            return index;
        }
        index += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    index
}

fn skip_assignments(argv: &[String], mut index: usize) -> usize {
    while argv.get(index).is_some_and(|arg| is_assignment(arg)) {
        index += 1;
    }
    index
}

pub fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The single-letter flags given to a shell before its operands (`-exc` gives `exc`).
pub fn shell_flags(argv: &[String]) -> String {
    let mut flags = String::new();
    for arg in argv.iter().skip(1) {
        if arg == "--" || arg == "-" || !(arg.starts_with('-') || arg.starts_with('+')) {
            break;
        }
        if !arg.starts_with("--") && arg.starts_with('-') {
            // `-onotify`, `-Oextglob`: the rest of the cluster names an option. In a word
            // with an expansion (`-$X`, xargs's `-{}`) the letters as written are no flags.
            let cluster = &arg[1..];
            let cluster = &cluster[..cluster.find('$').unwrap_or(cluster.len())];
            let end = cluster.find(['o', 'O']).unwrap_or(cluster.len());
            flags.push_str(&cluster[..end]);
        }
    }
    flags
}

/// The shell payload of `bash [-opts] -c PAYLOAD`, or its stdin script, if it runs one.
pub fn shell_payload(invocation: &Invocation) -> Option<String> {
    let argv = &invocation.argv;
    let mut index = 1;
    let mut command_mode = false;
    while let Some(arg) = argv.get(index) {
        if arg == "--" || arg == "-" {
            index += 1;
            break;
        }
        if matches!(
            arg.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        ) {
            index += 2;
            continue;
        }
        if arg.starts_with("--") {
            index += 1;
            continue;
        }
        if (arg.starts_with('-') || arg.starts_with('+')) && arg.len() > 1 {
            command_mode |= arg[1..].contains('c');
            index += 1;
            continue;
        }
        break;
    }
    if command_mode {
        return argv.get(index).cloned();
    }
    if index >= argv.len() {
        return invocation.stdin_text.clone();
    }
    None
}

/// Whether `bash`/`sh` runs neither a `-c` payload, a script file nor a here-document: it
/// reads its program from a pipe (`curl ... | sh`).
pub fn shell_reads_pipe(invocation: &Invocation) -> bool {
    let argv = &invocation.argv;
    invocation.stdin_text.is_none()
        && !argv
            .iter()
            .skip(1)
            .any(|arg| !arg.starts_with('-') || (!arg.starts_with("--") && arg.contains('c')))
        && !argv
            .iter()
            .skip(1)
            .any(|arg| arg == "--version" || arg == "--help")
}

/// rtk's own commands: they print its statistics, set it up or read a file themselves.
const RTK_OWN_COMMANDS: &[&str] = &[
    "gain",
    "discover",
    "init",
    "config",
    "help",
    "version",
    "read",
    "smart",
    "log",
    "json",
    "deps",
    "env",
    "learn",
    "hook-audit",
    "cc-economics",
    "verify",
];

pub fn nested(invocation: &Invocation) -> Nested {
    let argv = &invocation.argv;
    if invocation.dynamic.first().copied().unwrap_or(true) {
        return Nested::None;
    }
    // `'rm -rf /tmp/x'`, `'git push origin\n+main'`: no program has white space in its name;
    // this is a whole command put in one quoted word. What it spells is read as that
    // command's words (the shell would say "command not found", a model retrying it would
    // not).
    // So is `W='rm -rf ~'; "$W"` at the top of the command line; a script's positional
    // parameter (`sh -c '"$1"' _ 'rm -rf /'`) is data handed to it and stays one word.
    let data_name = invocation.in_script && invocation.expanded.first().copied().unwrap_or(false);
    if !data_name && argv[0].chars().any(char::is_whitespace) {
        let mut words: Vec<String> = argv[0]
            .split(char::is_whitespace)
            .filter(|word| !word.is_empty())
            .map(str::to_string)
            .collect();
        if words.is_empty() {
            return Nested::None;
        }
        let spelled = words.len();
        words.extend(argv[1..].iter().cloned());
        let mut dynamic = vec![false; spelled];
        dynamic.extend(invocation.dynamic[1..].iter().copied());
        let from_input = vec![false; words.len()];
        return Nested::Commands(vec![Words {
            argv: words,
            dynamic,
            from_input,
        }]);
    }
    // `XARGS`, `xargs.exe`: case-insensitive file systems and Windows run the same program.
    let lowered = program_name(&argv[0]).to_ascii_lowercase();
    let name = lowered.strip_suffix(".exe").unwrap_or(&lowered);
    let operand = |with_value: &[&str]| Nested::Argv(skip_options(argv, 1, with_value));
    match name {
        "env" => {
            let mut index = 1;
            while let Some(arg) = argv.get(index) {
                match arg.as_str() {
                    "-S" | "--split-string" => {
                        return argv.get(index + 1).map_or(Nested::None, |script| {
                            Nested::Script(split_string(script, &argv[index + 2..]))
                        });
                    }
                    "-u" | "--unset" | "-C" | "--chdir" | "-P" | "--default-signal" => index += 2,
                    "-" => index += 1,
                    "--" => {
                        index += 1;
                        break;
                    }
                    _ if arg.starts_with("-S") && arg.len() > 2 => {
                        return Nested::Script(split_string(&arg[2..], &argv[index + 1..]));
                    }
                    _ if arg.starts_with("--split-string=") => {
                        let script = &arg["--split-string=".len()..];
                        return Nested::Script(split_string(script, &argv[index + 1..]));
                    }
                    _ if arg.starts_with('-') && arg.len() > 1 => index += 1,
                    _ => break,
                }
            }
            let index = skip_assignments(argv, index);
            Nested::Argv(if argv.get(index).is_some_and(|arg| arg == "--") {
                index + 1
            } else {
                index
            })
        }
        "sudo" => {
            let index = skip_options(
                argv,
                1,
                &[
                    "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R",
                ],
            );
            Nested::Argv(skip_assignments(argv, index))
        }
        "doas" => operand(&["-u", "-C"]),
        "nohup" | "builtin" | "chronic" | "unbuffer" | "setsid" | "catchsegv" => operand(&[]),
        "exec" => operand(&["-a"]),
        "rtk" => match argv.get(1).map(String::as_str) {
            // rtk (a proxy that shortens command output) runs `rtk proxy CMD`, `rtk err CMD`
            // and `rtk test CMD` as given, and `rtk git status`, `rtk ls` as the program they
            // name; its own commands (`gain`, `discover`, `read FILE`...) run nothing else.
            Some("proxy" | "err" | "test" | "summary") => Nested::Argv(2),
            Some(word) if !word.starts_with('-') && !RTK_OWN_COMMANDS.contains(&word) => {
                Nested::Argv(1)
            }
            _ => Nested::None,
        },
        "nice" => operand(&["-n", "--adjustment"]),
        "ionice" => operand(&["-c", "-n", "--class", "--classdata"]),
        "stdbuf" => operand(&["-i", "-o", "-e", "--input", "--output", "--error"]),
        "time" => operand(&["-f", "--format", "-o", "--output"]),
        "timeout" => {
            let index = skip_options(argv, 1, &["-s", "--signal", "-k", "--kill-after"]);
            Nested::Argv(index + 1)
        }
        "command" => {
            // `command -v NAME` only describes NAME: POSIX gives it one operand. More words
            // (`command -V git reset --hard`) are outside what is specified to be inert, so
            // they are read as the command they spell.
            let index = skip_options(argv, 1, &[]);
            let describes = argv[1..index.min(argv.len())]
                .iter()
                .any(|arg| arg.starts_with('-') && arg[1..].contains(['v', 'V']));
            if describes && argv.len() <= index + 1 {
                Nested::None
            } else {
                Nested::Argv(index)
            }
        }
        "npx" | "pnpx" | "bunx" => {
            if let Some(at) = argv.iter().position(|arg| arg == "-c" || arg == "--call") {
                return argv
                    .get(at + 1)
                    .cloned()
                    .map_or(Nested::None, Nested::Script);
            }
            operand(&["-p", "--package"])
        }
        "uvx" => operand(&["--from", "--with", "--python", "-p", "--index-url"]),
        "pnpm" | "yarn" | "npm" | "bun"
            if matches!(argv.get(1).map(String::as_str), Some("exec" | "dlx" | "x")) =>
        {
            Nested::Argv(skip_options(argv, 2, &["-c", "--package", "-p"]))
        }
        "watch" => {
            // `watch CMD ARGS`: runs `sh -c "CMD ARGS"`; with `-x`, execs the words.
            let index = skip_options(argv, 1, &["-n", "--interval", "-d", "-q"]);
            match argv.get(index..) {
                Some(rest) if !rest.is_empty() => {
                    if argv[1..index]
                        .iter()
                        .any(|arg| arg == "-x" || arg == "--exec")
                    {
                        Nested::Argv(index)
                    } else if rest.len() == 1 {
                        Nested::Script(rest[0].clone())
                    } else {
                        Nested::Script(
                            rest.iter()
                                .map(|word| quoted(word))
                                .collect::<Vec<_>>()
                                .join(" "),
                        )
                    }
                }
                _ => Nested::None,
            }
        }
        "ssh" => {
            // The remote command is shell source run by the remote login shell.
            let host = skip_options(
                argv,
                1,
                &[
                    "-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e",
                    "-I", "-m", "-O", "-Q", "-S", "-W", "-w", "-B",
                ],
            );
            match argv.get(host + 1..) {
                Some(remote) if !remote.is_empty() => Nested::Script(remote.join(" ")),
                _ => invocation
                    .stdin_text
                    .clone()
                    .map_or(Nested::None, Nested::Script),
            }
        }
        "su" | "runuser" => argv
            .iter()
            .position(|arg| arg == "-c" || arg == "--command")
            .and_then(|at| argv.get(at + 1).cloned())
            .map_or(Nested::None, Nested::Script),
        "eval" => {
            if argv.len() > 1 {
                Nested::Script(argv[1..].join(" "))
            } else {
                Nested::None
            }
        }
        "xargs" | "gxargs" => xargs(argv),
        // Commands run in a container or pod: `docker exec -it db psql ...`,
        // `kubectl exec pod -- sh -c '...'`.
        "docker" | "podman" | "nerdctl"
            if matches!(argv.get(1).map(String::as_str), Some("exec" | "run")) =>
        {
            let container = skip_options(
                argv,
                2,
                &[
                    "-e",
                    "--env",
                    "-u",
                    "--user",
                    "-w",
                    "--workdir",
                    "--env-file",
                    "-v",
                    "--volume",
                    "--name",
                    "-p",
                    "--publish",
                    "--network",
                    "--entrypoint",
                    "-m",
                    "--memory",
                    "--platform",
                    "--mount",
                    "-l",
                    "--label",
                ],
            );
            Nested::Argv(container + 1)
        }
        "kubectl" | "oc" if argv.iter().any(|arg| arg == "exec") => argv
            .iter()
            .position(|arg| arg == "--")
            .map_or(Nested::None, |at| Nested::Argv(at + 1)),
        "parallel" => parallel(invocation),
        // `script [options] file command...` (BSD): the command runs.
        "script" => {
            let file = skip_options(argv, 1, &["-t", "-T", "-F"]);
            if argv.get(file + 1).is_some() {
                Nested::Argv(file + 1)
            } else {
                Nested::None
            }
        }
        "trap" => match argv.get(1) {
            Some(action) if !action.starts_with('-') => Nested::Script(action.clone()),
            _ => Nested::None,
        },
        "busybox" => Nested::Argv(1),
        "find" | "gfind" | "bfs" => Nested::Commands(find_exec_targets(invocation)),
        // `bash -n`: a syntax check, nothing runs.
        _ if is_shell(name) && shell_flags(argv).contains('n') => Nested::None,
        _ if is_shell(name) => shell_payload(invocation).map_or(Nested::None, Nested::Script),
        _ if is_python(name) => match argv.iter().position(|arg| arg == "-m") {
            Some(at) if at + 1 < argv.len() && !argv[1..at].iter().any(|a| a == "-c") => {
                Nested::Argv(at + 1)
            }
            _ => Nested::None,
        },
        _ => Nested::None,
    }
}

/// The directory `env -C DIR` / `sudo -D DIR` runs its command in, with whether it is only
/// known at run time.
pub fn wrapper_chdir(invocation: &Invocation) -> Option<(String, bool)> {
    let argv = &invocation.argv;
    let name = program_name(argv.first()?);
    let flags: &[&str] = match name {
        "env" => &["-C", "--chdir"],
        "sudo" => &["-D", "--chdir"],
        _ => return None,
    };
    for (at, arg) in argv.iter().enumerate().skip(1) {
        if !arg.starts_with('-') {
            break;
        }
        if flags.contains(&arg.as_str()) {
            return argv
                .get(at + 1)
                .map(|dir| (dir.clone(), invocation.dynamic[at + 1]));
        }
        for flag in flags {
            let attached = if flag.starts_with("--") {
                arg.strip_prefix(&format!("{flag}="))
            } else {
                arg.strip_prefix(flag)
            };
            if let Some(dir) = attached.filter(|dir| !dir.is_empty()) {
                return Some((dir.to_string(), invocation.dynamic[at]));
            }
        }
    }
    None
}

/// Whether the invocation runs its payload as shell code (`sh -c`, `eval`, `trap`, `ssh`,
/// `watch`), as opposed to splitting it into words (`env -S`).
pub fn runs_shell_code(invocation: &Invocation) -> bool {
    let name = program_name(&invocation.argv[0]);
    is_shell(name)
        || matches!(
            name,
            "eval" | "trap" | "su" | "runuser" | "ssh" | "watch" | "npx" | "pnpx" | "bunx"
        )
}

/// Whether the invocation fetches from the network and prints it (`curl`, `wget -O-`).
pub fn downloads(invocation: &Invocation) -> bool {
    !invocation.dynamic.first().copied().unwrap_or(true)
        && super::programs::lookup(&invocation.argv[0]).is_some_and(|spec| spec.downloads)
}

/// The words after a shell's `-c` payload: `$0`, `$1`... inside it.
pub fn shell_arguments(invocation: &Invocation) -> Option<Vec<(String, bool)>> {
    let argv = &invocation.argv;
    if !is_shell(program_name(argv.first()?)) {
        return None;
    }
    let payload = shell_payload(invocation)?;
    let at = argv.iter().position(|arg| *arg == payload)?;
    Some(
        argv.iter()
            .zip(&invocation.dynamic)
            .skip(at + 1)
            .map(|(arg, dynamic)| (arg.clone(), *dynamic))
            .collect(),
    )
}

/// `xargs [options] [command [initial-arguments]]`.
fn xargs(argv: &[String]) -> Nested {
    const WITH_VALUE: &[&str] = &[
        "-a",
        "--arg-file",
        "-d",
        "--delimiter",
        "-E",
        "-e",
        "-L",
        "--max-lines",
        "-l",
        "-n",
        "--max-args",
        "-P",
        "--max-procs",
        "-s",
        "--max-chars",
        "--process-slot-var",
        "-R",
        "-S",
    ];
    let mut index = 1;
    let mut replace = None;
    while let Some(arg) = argv.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        if arg == "-I" || arg == "-J" {
            replace = argv.get(index + 1).cloned();
            index += 2;
            continue;
        }
        if let Some(token) = arg.strip_prefix("--replace") {
            replace = Some(
                token
                    .strip_prefix('=')
                    .filter(|t| !t.is_empty())
                    .unwrap_or("{}")
                    .to_string(),
            );
            index += 1;
            continue;
        }
        if let Some(token) = arg.strip_prefix("-I").or_else(|| arg.strip_prefix("-J")) {
            replace = Some(token.to_string());
        } else if let Some(token) = arg.strip_prefix("-i") {
            replace = Some(if token.is_empty() {
                "{}".to_string()
            } else {
                token.to_string()
            });
        } else if WITH_VALUE.contains(&arg.as_str()) {
            index += 1;
        }
        index += 1;
    }
    Nested::Input {
        from: index,
        replace,
    }
}

/// `parallel [options] [command] [::: inputs...]`: each input fills `{}` (or is appended);
/// with no command each input is a command; with no `:::` the inputs come from stdin.
fn parallel(invocation: &Invocation) -> Nested {
    let argv = &invocation.argv;
    const WITH_VALUE: &[&str] = &[
        "-j",
        "--jobs",
        "-P",
        "--results",
        "--joblog",
        "-S",
        "--sshlogin",
        "--delay",
        "--timeout",
        "-n",
        "--max-args",
        "-N",
        "--colsep",
        "-d",
        "--delimiter",
        "-a",
        "--arg-file",
        "--tagstring",
        "--workdir",
        "--wd",
        "-I",
        "--memfree",
        "--load",
        "--retries",
        "--halt",
        "--basefile",
        "--env",
        "--nice",
        "-L",
        "--max-lines",
        "--header",
        "--rpl",
        "--sshloginfile",
        "--slf",
        "--tmpdir",
        "--transfer-file",
    ];
    let mut index = 1;
    let mut dry_run = false;
    while let Some(arg) = argv.get(index) {
        if !arg.starts_with('-') || arg == ":::" || arg == "::::" {
            break;
        }
        match arg.as_str() {
            "--dry-run" | "--dryrun" => dry_run = true,
            // Print and exit only when nothing follows that parallel would run.
            "--help" | "--version" if argv.len() == index + 1 => return Nested::None,
            _ => {}
        }
        index += if WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let marker = argv[index.min(argv.len())..]
        .iter()
        .position(|arg| arg == ":::" || arg == "::::")
        .map(|at| at + index);
    let start = index.min(argv.len());
    let command: Vec<String> = argv[start..marker.unwrap_or(argv.len())].to_vec();
    // A dry run prints the commands, but command lines read from stdin or a file may carry
    // `{= perl =}` replacement strings, evaluated while composing them, dry run or not.
    if dry_run {
        let commands_on_line = !command.is_empty() || marker.is_some_and(|at| argv[at] == ":::");
        return if commands_on_line {
            Nested::None
        } else {
            Nested::Unknown("parallel reading its commands from stdin or a file".to_string())
        };
    }
    let command_dynamic: Vec<bool> = invocation.dynamic[start..start + command.len()].to_vec();
    let Some(marker) = marker else {
        if command.is_empty() {
            return Nested::Unknown("parallel reading its commands from stdin".to_string());
        }
        let placeholder = command.iter().any(|word| has_placeholder(word));
        return Nested::Input {
            from: index,
            replace: placeholder.then(|| "{}".to_string()),
        };
    };
    if argv[marker] == "::::" {
        return if command.is_empty() {
            Nested::Unknown("parallel reading its commands from a file".to_string())
        } else {
            Nested::Input {
                from: index,
                replace: Some("{}".to_string()),
            }
        };
    }
    let inputs: Vec<&String> = argv[marker + 1..]
        .iter()
        .filter(|arg| *arg != ":::")
        .collect();
    if command.is_empty() {
        return match inputs.is_empty() {
            true => Nested::None,
            false => Nested::Script(
                inputs
                    .iter()
                    .map(|input| input.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        };
    }
    let placeholder = command.iter().any(|word| has_placeholder(word));
    // GNU parallel joins the command's words with spaces and runs the line with a shell,
    // each input quoted in (`parallel env FOO='echo {}' sh ::: x` runs `env FOO=echo x sh`);
    // with `-q`, or another `parallel`, the words stay words. Both readings are analysed.
    if !command_dynamic.contains(&true) {
        let quote = |word: &str| {
            shlex::try_quote(word).map_or_else(|_| INPUT_WORD.to_string(), |q| q.into_owned())
        };
        let fill = |line: String, input: &str| {
            if placeholder {
                fill_placeholders(&line, input)
            } else {
                format!("{line} {input}")
            }
        };
        let joined = command.join(" ");
        let as_words: Vec<String> = command.iter().map(|word| quote(word)).collect();
        let as_words = as_words.join(" ");
        // Inputs repeated give the same lines: each is analysed once.
        let mut seen = std::collections::HashSet::new();
        let lines: Vec<String> = inputs
            .iter()
            .filter(|input| seen.insert(input.as_str()))
            .flat_map(|input| {
                let quoted = quote(input);
                let line = fill(joined.clone(), &quoted);
                // One word is the same program either way (a name with spaces runs nothing);
                // a line its shell rejects (`python -c print("ok")`) runs nothing either.
                let mut readings = Vec::new();
                if command.len() == 1 || super::walk::is_shell_syntax(&line) {
                    readings.push(line);
                }
                if command.len() > 1 {
                    readings.push(fill(as_words.clone(), &quoted));
                }
                readings
            })
            .collect();
        return Nested::Script(lines.join("\n"));
    }
    Nested::Commands(
        inputs
            .iter()
            .map(|input| {
                let mut words = Words::fixed(if placeholder {
                    command
                        .iter()
                        .map(|word| fill_placeholders(word, input))
                        .collect()
                } else {
                    let mut filled = command.clone();
                    filled.push((*input).clone());
                    filled
                });
                for (at, dynamic) in command_dynamic.iter().enumerate() {
                    words.dynamic[at] |= *dynamic;
                }
                words
            })
            .collect(),
    )
}

/// `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`...: GNU parallel's replacement
/// strings.
fn has_placeholder(word: &str) -> bool {
    PLACEHOLDERS.is_match(word)
}

static PLACEHOLDERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{(?:|\.|/|//|/\.|#|%|[0-9]+(?:\.|/|//|/\.)?)\}")
        .expect("placeholder pattern compiles")
});

fn fill_placeholders(word: &str, input: &str) -> String {
    PLACEHOLDERS
        .replace_all(word, regex::NoExpand(input))
        .into_owned()
}

/// `find` primaries that take one word (`-name PATTERN`, `-fprint FILE`).
const FIND_ONE_VALUE: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-size",
    "-mtime",
    "-atime",
    "-ctime",
    "-mmin",
    "-amin",
    "-cmin",
    "-newer",
    "-anewer",
    "-cnewer",
    "-samefile",
    "-inum",
    "-links",
    "-lname",
    "-ilname",
    "-maxdepth",
    "-mindepth",
    "-used",
    "-fstype",
    "-context",
    "-fprint",
    "-fprint0",
    "-fls",
    "-printf",
    "-newermt",
    "-newerct",
    "-newerat",
    "-files0-from",
];

/// The commands of `find ... -exec CMD {} ;` (also `-execdir`, `-ok`, `-okdir`, `+`).
/// `{}` stands for each path found: known only at run time.
fn find_exec_targets(invocation: &Invocation) -> Vec<Words> {
    let argv = &invocation.argv;
    let mut targets = Vec::new();
    let mut index = 1;
    while index < argv.len() {
        if matches!(
            argv[index].as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            let start = index + 1;
            let end = argv[start..]
                .iter()
                .position(|arg| arg == ";" || arg == "+")
                .map_or(argv.len(), |offset| start + offset);
            // A found path starts with its root (`./x`): it cannot become an option, so it
            // is a value known at run time, not input that could choose the command.
            let mut words = Words::fixed(Vec::new());
            for (at, word) in argv.iter().enumerate().take(end).skip(start) {
                let found = word.contains("{}");
                words.argv.push(word.replace("{}", INPUT_WORD));
                words.dynamic.push(found || invocation.dynamic[at]);
                // What `xargs` fed into the `find` words stays input.
                words
                    .from_input
                    .push(invocation.from_input.get(at).copied().unwrap_or(false));
            }
            targets.push(words);
            index = end + 1;
        } else if argv[index] == "-fprintf" {
            // `-fprintf FILE FORMAT`: `find . -fprintf -exec {}` runs nothing.
            index += 3;
        } else if FIND_ONE_VALUE.contains(&argv[index].as_str()) {
            index += 2;
        } else {
            index += 1;
        }
    }
    targets
}

/// The primaries of a `find` expression outside `-exec ... ;` (whose words belong to the
/// command run), each with the words it takes: `-delete` in `find . -exec echo -delete ;`
/// is an argument of echo, in `find . -fprintf out -delete` the format.
pub fn find_primaries(argv: &[String]) -> Vec<&str> {
    let mut primaries = Vec::new();
    let mut index = 1;
    while let Some(arg) = argv.get(index) {
        index += 1;
        match arg.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                index += argv[index.min(argv.len())..]
                    .iter()
                    .position(|arg| arg == ";" || arg == "+")
                    .map_or(argv.len(), |offset| offset + 1);
            }
            "-fprintf" => index += 2,
            _ if FIND_ONE_VALUE.contains(&arg.as_str()) => index += 1,
            _ if arg.starts_with('-') => primaries.push(arg.as_str()),
            _ => {}
        }
    }
    primaries
}

/// Per word of a `find` command: it is data of the expression, not an expression word (the
/// words of `-exec ... ;`, the values of `-fprintf FILE FORMAT` and other primaries).
pub fn find_data_positions(argv: &[String]) -> Vec<bool> {
    let mut data = vec![false; argv.len()];
    let mut index = 1;
    while index < argv.len() {
        match argv[index].as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                index += 1;
                while index < argv.len() && argv[index] != ";" && argv[index] != "+" {
                    data[index] = true;
                    index += 1;
                }
            }
            "-fprintf" => {
                for offset in 1..=2 {
                    if let Some(slot) = data.get_mut(index + offset) {
                        *slot = true;
                    }
                }
                index += 2;
            }
            _ => {}
        }
        index += 1;
    }
    data
}

/// Whether `flag` takes a value for this interpreter that is data (`-W`, `--title`), not code
/// it loads (`--require`, `--import`, `--loader`, `-r`, `-M`).
pub fn interpreter_value_flag(name: &str, flag: &str) -> bool {
    const LOADS_CODE: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-M",
        "-m",
        "-I",
        "-l",
        "-L",
        "--load",
    ];
    let family = if is_python(name) { "python" } else { name };
    interpreter_flags(family).1.contains(&flag) && !LOADS_CODE.contains(&flag)
}

/// A word as shell source that reads back as that one word.
pub fn quoted(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// `env -S 'STRING' args`: the string split into words (as shell source), then the args.
fn split_string(string: &str, rest: &[String]) -> String {
    std::iter::once(string.to_string())
        .chain(rest.iter().map(|word| quoted(word)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The named read-only check of a program spec (`check = "..."` in `assets/programs/`): the
/// refinements an effect per option cannot express (a sed script's `w` command, tar's mode
/// letters, an interpreter's inline code). `None`: nothing found.
pub fn check(check: &str, invocation: &Invocation) -> Option<(DenyKind, String)> {
    let argv = &invocation.argv;
    let name = program_name(&argv[0]);
    let args = &argv[1..];
    let has = |flag: &str| args.iter().any(|arg| arg == flag);
    let has_any = |flags: &[&str]| args.iter().any(|arg| flags.contains(&arg.as_str()));
    let sub = args.first().map(String::as_str).unwrap_or("");
    match check {
        "git-rules" => git::classify(invocation),
        "tee-targets" => args
            .iter()
            .filter(|arg| !arg.starts_with('-') || arg.as_str() == "-")
            .find(|arg| !is_harmless_sink(arg))
            .map(|target| (DenyKind::FileWrite, format!("tee {target}"))),
        "dd-output" => args
            .iter()
            .find(|arg| {
                arg.strip_prefix("of=")
                    .is_some_and(|target| !is_harmless_sink(target))
            })
            .map(|arg| (DenyKind::FileWrite, format!("dd {arg}"))),
        "sed-script" => sed(args).map(|detail| (DenyKind::FileWrite, detail)),
        "awk-program" => awk(name, args).map(|detail| (DenyKind::FileWrite, detail)),
        "interpreter" => interpreter(name, invocation),
        "shell-code" => {
            match name {
                "eval" => {
                    return invocation.dynamic.iter().skip(1).any(|d| *d).then(|| {
                        (
                            DenyKind::DynamicCommand,
                            "eval of code known only at run time".to_string(),
                        )
                    });
                }
                "source" | "." => {
                    return Some((
                        DenyKind::RunsCode,
                        format!("{name} running a script (its code is not read)"),
                    ));
                }
                "su" | "runuser" | "ssh" if nested(invocation).is_none() => {
                    return (argv.len() > 1 || name != "ssh").then(|| {
                        (
                            DenyKind::RunsCode,
                            format!("{name} opening an interactive shell"),
                        )
                    });
                }
                _ => {}
            }
            if !is_shell(name) || shell_flags(argv).contains('n') {
                return None;
            }
            if shell_payload(invocation).is_some() {
                return None;
            }
            if shell_reads_pipe(invocation) {
                return Some((
                    DenyKind::DynamicCommand,
                    format!("{name} reading its script from stdin"),
                ));
            }
            // `bash build.sh`: what the script does is not read.
            let reads_stdin = shell_flags(argv).contains('s');
            (!reads_stdin && code_fixed_at(name, invocation) <= argv.len()).then(|| {
                (
                    DenyKind::RunsCode,
                    format!("{name} running a script (its code is not read)"),
                )
            })
        }
        "find-actions" => args
            .iter()
            .find(|arg| {
                matches!(
                    arg.as_str(),
                    "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
                )
            })
            .map(|arg| (DenyKind::FileWrite, format!("find {arg}"))),
        "tar-mode" => {
            // Mode letters sit in the first word (`tar xzf`) or in any short-option cluster.
            let clusters: Vec<&str> = args
                .iter()
                .enumerate()
                .filter(|(at, arg)| {
                    (*at == 0 && !arg.starts_with('-'))
                        || (arg.starts_with('-') && !arg.starts_with("--"))
                })
                .map(|(_, arg)| arg.trim_start_matches('-'))
                .collect();
            let mode = |letters: &[char], long: &[&str]| {
                clusters.iter().any(|c| c.contains(letters)) || has_any(long)
            };
            // Extracting writes files unless they go to stdout (`-O`); creating or updating
            // writes the archive unless it is stdout (`-f -`).
            let extracts = mode(&['x'], &["--extract", "--get"]);
            let archives = mode(
                &['c', 'r', 'u', 'A'],
                &[
                    "--create",
                    "--append",
                    "--update",
                    "--delete",
                    "--concatenate",
                ],
            );
            let to_stdout =
                has("--to-stdout") || clusters.iter().any(|cluster| cluster.contains('O'));
            let archive_is_stdout = has_any(&["-", "--file=-"]);
            ((extracts && !to_stdout) || (archives && !archive_is_stdout))
                .then(|| (DenyKind::FileWrite, format!("tar {sub}")))
        }
        "compressor" => (!has_any(&["--stdout", "--to-stdout", "--list", "--test"])
            && !args.iter().any(|arg| {
                arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['c', 'l', 't'])
            })
            && args.iter().any(|arg| !arg.starts_with('-')))
        .then(|| (DenyKind::FileWrite, name.to_string())),
        "curl-output" => args
            .iter()
            .find(|arg| {
                matches!(
                    arg.as_str(),
                    "-o" | "-O"
                        | "--output"
                        | "--remote-name"
                        | "--remote-name-all"
                        | "-J"
                        | "-D"
                        | "--dump-header"
                        | "-c"
                        | "--cookie-jar"
                        | "--output-dir"
                ) || arg.starts_with("--output=")
                    || (arg.starts_with('-')
                        && !arg.starts_with("--")
                        && arg.len() > 2
                        && arg[1..].contains(['o', 'O']))
            })
            .filter(|_| {
                !has("-o-")
                    && !args
                        .windows(2)
                        .any(|w| w[0] == "-o" && is_harmless_sink(&w[1]))
            })
            .map(|arg| (DenyKind::FileWrite, format!("curl {arg}"))),
        "wget-output" => {
            let to_stdout = args.windows(2).any(|w| {
                (w[0] == "-O" || w[0] == "--output-document")
                    && (w[1] == "-" || is_harmless_sink(&w[1]))
            }) || has_any(&["-O-", "-qO-", "-qO", "--spider"])
                || args.iter().any(|arg| arg == "--output-document=-");
            (!to_stdout).then(|| (DenyKind::FileWrite, "wget".to_string()))
        }
        "gh-rules" => gh(args).map(|detail| (DenyKind::GitWrite, detail)),
        "uniq-output" => {
            // `uniq [INPUT [OUTPUT]]`: a second operand is a file it writes.
            let operands: Vec<&String> = args
                .iter()
                .filter(|arg| !arg.starts_with('-') || arg.as_str() == "-")
                .collect();
            operands
                .get(1)
                .filter(|output| !is_harmless_sink(output))
                .map(|output| (DenyKind::FileWrite, format!("uniq {output}")))
        }
        "make-targets" => args
            .iter()
            .find(|arg| matches!(arg.as_str(), "install" | "uninstall"))
            .map(|target| (DenyKind::FileWrite, format!("make {target}"))),
        "script-log" => {
            // `script [-a] [-q] [file [command ...]]`: the typescript is a file it writes,
            // unless it only plays one back (`-p`).
            let playback = args
                .iter()
                .any(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('p'));
            args.iter()
                .find(|arg| !arg.starts_with('-'))
                .filter(|file| !playback && !is_harmless_sink(file))
                .map(|file| (DenyKind::FileWrite, format!("script {file}")))
        }
        "sql-reads" => sql_reads(name, invocation),
        "parallel-perl" => args
            .iter()
            .find(|arg| arg.contains("{=") && arg.contains("=}"))
            .map(|arg| (DenyKind::RunsCode, format!("parallel {arg} (Perl code)"))),
        _ => None,
    }
}

/// A database client reads when every statement it is given reads (`SELECT`, `SHOW`,
/// `DESCRIBE`, `EXPLAIN` without `ANALYZE`, `WITH ... SELECT`, `\d`), or it is in a mode
/// that refuses writes (`-readonly`); with no statement it is an interactive session.
fn sql_reads(name: &str, invocation: &Invocation) -> Option<(DenyKind, String)> {
    let args = &invocation.argv[1..];
    if args.iter().any(|arg| {
        matches!(
            arg.as_str(),
            "-readonly"
                | "-safe"
                | "--read-only"
                | "--readonly"
                | "--help"
                | "-help"
                | "--version"
                | "-version"
                | "-h"
                | "-V"
                | "-?"
                | "-l"
                | "--list"
        )
    }) {
        return None;
    }
    let statements: Vec<&str> = args
        .iter()
        .map(|arg| match arg.split_once('=') {
            Some((option, value)) if option.starts_with("--") => value,
            _ => arg.as_str(),
        })
        .filter(|arg| looks_like_sql(arg))
        .chain(invocation.stdin_text.as_deref())
        .collect();
    if statements.is_empty() {
        return Some((
            DenyKind::RunsCode,
            format!("{name} as an interactive session"),
        ));
    }
    statements
        .iter()
        .flat_map(|text| text.split(';'))
        .find(|statement| !statement.trim().is_empty() && !reads_sql(statement))
        .map(|statement| {
            (
                DenyKind::StateChange,
                format!("{name}: {}", statement.trim()),
            )
        })
}

fn looks_like_sql(word: &str) -> bool {
    static KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(?:select|show|describe|desc|explain|with|pragma|values|insert|update|delete|drop|create|alter|truncate|merge|replace|grant|revoke|attach|detach|vacuum|copy|call|exec|set|use|begin|commit|\\[a-z])\b")
            .expect("SQL keyword pattern compiles")
    });
    KEYWORD.is_match(word)
}

fn reads_sql(statement: &str) -> bool {
    static READS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(?:select|show|describe|desc|explain|values|pragma\s+[\w.]+\s*$|\\[dl]\w*|with\b)")
            .expect("SQL read pattern compiles")
    });
    static WRITES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:insert|update|delete|drop|create|alter|truncate|merge|replace|grant|revoke|attach|copy|into)\b|explain\s+analyze")
            .expect("SQL write pattern compiles")
    });
    READS.is_match(statement) && !WRITES.is_match(statement)
}

/// GitHub CLI calls that change the local checkout, refs or the remote repository's code.
/// Reading and discussing (`pr view/diff/checks`, `pr comment`, `pr review`, issues) stay open:
/// reporting findings is a reviewer's job.
fn gh(args: &[String]) -> Option<String> {
    let positional: Vec<&str> = args
        .iter()
        .filter(|arg| !arg.starts_with('-'))
        .map(String::as_str)
        .collect();
    let (group, action) = (
        positional.first().copied()?,
        positional.get(1).copied().unwrap_or(""),
    );
    let writes = match group {
        "pr" => matches!(
            action,
            "merge"
                | "checkout"
                | "co"
                | "create"
                | "close"
                | "reopen"
                | "ready"
                | "edit"
                | "revert"
                | "update-branch"
        ),
        "repo" => matches!(
            action,
            "delete"
                | "clone"
                | "create"
                | "fork"
                | "rename"
                | "archive"
                | "sync"
                | "edit"
                | "set-default"
        ),
        "release" => matches!(
            action,
            "create" | "delete" | "upload" | "edit" | "delete-asset"
        ),
        "workflow" => matches!(action, "run" | "enable" | "disable"),
        "run" => matches!(action, "rerun" | "cancel" | "delete"),
        "api" => {
            // GET unless a method is given; fields or an input body make it a POST; a
            // GraphQL call writes when it is a mutation.
            let method = args
                .iter()
                .enumerate()
                .find_map(|(at, arg)| match arg.as_str() {
                    "-X" | "--method" => args.get(at + 1).cloned(),
                    _ => arg
                        .strip_prefix("--method=")
                        .or_else(|| arg.strip_prefix("-X").filter(|m| !m.is_empty()))
                        .map(str::to_string),
                });
            let body = args.iter().any(|arg| {
                matches!(
                    arg.as_str(),
                    "-f" | "-F" | "--field" | "--raw-field" | "--input"
                ) || arg.starts_with("--field=")
                    || arg.starts_with("--raw-field=")
            });
            let graphql = positional
                .get(1)
                .is_some_and(|endpoint| *endpoint == "graphql");
            match method {
                Some(method) => !method.eq_ignore_ascii_case("get"),
                None if graphql => args.iter().any(|arg| arg.contains("mutation")),
                None => body,
            }
        }
        "secret" | "variable" | "label" | "ruleset" | "cache" => {
            matches!(action, "set" | "delete" | "create" | "edit" | "clone")
        }
        _ => false,
    };
    writes.then(|| format!("gh {group} {action}").trim_end().to_string())
}

fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "-"
    ) || target.starts_with(">(")
}

/// `sed -i` / `--in-place` (alone or in a cluster like `-ni`), and scripts that write
/// (`w file`, `s/x/y/w file`) or execute (`e`, `s///e`).
fn sed(args: &[String]) -> Option<String> {
    let mut scripts = Vec::new();
    let mut index = 0;
    let mut sandboxed = false;
    let mut script_from_option = false;
    let mut operand_script = None;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--sandbox" {
            sandboxed = true;
        } else if arg.starts_with("--in-place") {
            return Some(format!("sed {arg}"));
        } else if let Some(script) = arg.strip_prefix("--expression=") {
            scripts.push(script.to_string());
            script_from_option = true;
        } else if arg == "--expression" || arg == "--file" {
            if arg == "--expression" {
                scripts.extend(args.get(index + 1).cloned());
            }
            script_from_option = true;
            index += 1;
        } else if arg.starts_with("--") {
        } else if arg.starts_with('-') && arg.len() > 1 {
            for (offset, flag) in arg[1..].char_indices() {
                match flag {
                    'i' => return Some("sed -i".to_string()),
                    'e' | 'f' => {
                        let rest = &arg[1 + offset + 1..];
                        let value = if rest.is_empty() {
                            index += 1;
                            args.get(index).cloned().unwrap_or_default()
                        } else {
                            rest.to_string()
                        };
                        if flag == 'e' {
                            scripts.push(value);
                        }
                        script_from_option = true;
                        break;
                    }
                    'l' => break,
                    _ => {}
                }
            }
        } else if !script_from_option && operand_script.is_none() {
            operand_script = Some(arg.clone());
        }
        index += 1;
    }
    scripts.extend(operand_script);
    if sandboxed {
        return None;
    }
    scripts
        .iter()
        .find(|script| sed_script_writes(script))
        .map(|_| "sed w/e command".to_string())
}

fn sed_script_writes(script: &str) -> bool {
    static STANDALONE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:^|[;{}\n])\s*(?:[0-9$]+(?:,[0-9$]+)?|/(?:[^/\\]|\\.)*/)?\s*!?\s*[wWe](?:\s|$)",
        )
        .expect("sed write-command pattern compiles")
    });
    if STANDALONE.is_match(script) {
        return true;
    }
    // `s<d>pattern<d>replacement<d>flags`: look for `w` or `e` among the flags.
    let chars: Vec<char> = script.chars().collect();
    let mut index = 0;
    while index + 1 < chars.len() {
        let at_command = index == 0
            || matches!(chars[index - 1], ';' | '{' | '}' | '\n' | ' ' | '/' | '$')
            || chars[index - 1].is_ascii_digit();
        let delimiter = chars[index + 1];
        if chars[index] == 's'
            && at_command
            && !delimiter.is_alphanumeric()
            && !delimiter.is_whitespace()
            && delimiter != '\\'
        {
            let mut cursor = index + 2;
            let mut sections = 0;
            while cursor < chars.len() && sections < 2 {
                if chars[cursor] == '\\' {
                    cursor += 1;
                } else if chars[cursor] == delimiter {
                    sections += 1;
                }
                cursor += 1;
            }
            if sections == 2 {
                let flags: String = chars[cursor..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if flags.contains(['w', 'e']) {
                    return true;
                }
                index = cursor;
                continue;
            }
        }
        index += 1;
    }
    false
}

pub fn is_awk(name: &str) -> bool {
    matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk")
}

/// The program text of `awk [options] 'PROGRAM' files` (`-e`/`--source` too); None when it
/// comes from a file (`-f`).
pub fn awk_program(args: &[String]) -> Option<String> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "-e" | "--source" => return args.get(index + 1).cloned(),
            "-f" | "--file" => return None,
            "-F" | "-v" | "--assign" | "--field-separator" | "-i" | "--include" => {
                index += 2;
                continue;
            }
            "--" => return args.get(index + 1).cloned(),
            _ => {}
        }
        if arg.starts_with("-f") || arg.starts_with("--file=") {
            return None;
        }
        if let Some(program) = arg.strip_prefix("--source=") {
            return Some(program.to_string());
        }
        if arg.starts_with('-') && arg.len() > 1 {
            index += 1;
            continue;
        }
        return Some(arg.clone());
    }
    None
}

/// `awk -i inplace`, and programs that redirect `print` into files or run commands.
fn awk(name: &str, args: &[String]) -> Option<String> {
    let mut index = 0;
    let mut program = None;
    while index < args.len() {
        let arg = &args[index];
        match arg.as_str() {
            "-i" | "--include" => {
                if args
                    .get(index + 1)
                    .is_some_and(|lib| lib.starts_with("inplace"))
                {
                    return Some(format!("{name} -i inplace"));
                }
                index += 2;
                continue;
            }
            "-F" | "-v" | "-f" | "--file" | "--assign" | "--field-separator" => {
                index += 2;
                continue;
            }
            "-e" | "--source" => {
                program = args.get(index + 1).cloned();
                index += 2;
                continue;
            }
            "--" => {
                index += 1;
                if program.is_none() {
                    program = args.get(index).cloned();
                }
                break;
            }
            _ => {}
        }
        if arg.starts_with("-iinplace") || arg.starts_with("--include=inplace") {
            return Some(format!("{name} -i inplace"));
        }
        if arg.starts_with('-') && arg.len() > 1 {
            index += 1;
            continue;
        }
        if program.is_none() {
            program = Some(arg.clone());
        }
        break;
    }
    static WRITES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bprintf?\b[^;}]*?(?:>|\|)|\|\s*getline|\bsystem\s*\(|\|&"#)
            .expect("awk writer pattern compiles")
    });
    let program = program?;
    WRITES
        .is_match(&program)
        .then(|| format!("{name} program writing files or running commands"))
}

/// What an interpreter invocation runs: its inline programs (`python -c`, `node -e`,
/// `perl -e`, `ruby -e`, `php -r`, `deno eval`), the script it reads from stdin (`python3 -`,
/// a here-document), or nothing (a script file, a module, `--version`).
pub enum Program {
    /// Code in the command line or fed on stdin.
    Inline(Vec<String>),
    /// No code and no script: an interactive session (`python3`, `node`).
    Interactive,
    /// A script file, known only by its name (`python tool.py`, `bash build.sh`).
    Script,
    /// A module (`-m pytest`, judged as the program it names) or an informational flag
    /// (`--version`, `-h`).
    Named,
}

/// An interpreter family's flags whose value is inline code, flags that take another value,
/// and short flags that end a cluster with inline code (`perl -ne CODE`).
type InterpreterFlags = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [char],
);

fn interpreter_flags(family: &str) -> InterpreterFlags {
    match family {
        "python" => (&["-c"], &["-W", "-X", "-Q"], &['c']),
        "node" | "nodejs" | "bun" => (
            &["-e", "--eval", "-p", "--print", "-pe"],
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--title",
                "-C",
                "--conditions",
                "--inspect-port",
                "--env-file",
                "--input-type",
            ],
            &[],
        ),
        "deno" => (&["eval"], &["--config", "-c", "--import-map"], &[]),
        "perl" => (
            &["-e", "-E"],
            &["-I", "-M", "-m", "-x", "-C", "-d", "-D", "-l", "-0"],
            &['e', 'E'],
        ),
        "ruby" => (&["-e"], &["-r", "-I", "-C", "-E", "-x"], &['e']),
        "php" => (
            &["-r", "-R", "-B", "-E"],
            &["-c", "-d", "-f", "-t", "-z"],
            &[],
        ),
        "lua" | "luajit" => (&["-e"], &["-l"], &[]),
        "Rscript" => (&["-e"], &[], &[]),
        "julia" => (
            &["-e", "--eval", "-E", "--print"],
            &[
                "-L",
                "--load",
                "-p",
                "--procs",
                "-t",
                "--threads",
                "--project",
            ],
            &[],
        ),
        "osascript" => (&["-e"], &["-l"], &[]),
        "pwsh" | "powershell" => (
            &["-c", "-command", "-Command", "-EncodedCommand", "-e", "-ec"],
            &["-File", "-f"],
            &[],
        ),
        _ => (&["-e", "-c", "--eval"], &[], &[]),
    }
}

pub fn interpreter_program(name: &str, invocation: &Invocation) -> Program {
    let args = &invocation.argv[1..];
    let family = if is_python(name) { "python" } else { name };
    let (code_flags, value_flags, code_clusters) = interpreter_flags(family);
    let mut code = Vec::new();
    let mut index = 0;
    let mut named = false;
    let mut script = false;
    while let Some(arg) = args.get(index) {
        index += 1;
        if let Some((flag, value)) = arg.split_once('=')
            && code_flags.contains(&flag)
            && flag.starts_with("--")
        {
            code.push(value.to_string());
            continue;
        }
        if code_flags.contains(&arg.as_str()) {
            code.extend(args.get(index).cloned());
            index += 1;
            continue;
        }
        if value_flags.contains(&arg.as_str()) {
            index += 1;
            continue;
        }
        if arg == "-" {
            break;
        }
        if arg == "--" {
            script = args.get(index).is_some();
            break;
        }
        if !arg.starts_with('-') {
            script = true;
            break;
        }
        if family == "python" && (arg == "-m" || arg.starts_with("-m")) {
            named = true;
            break;
        }
        let informational = matches!(
            arg.as_str(),
            "--version" | "--help" | "-h" | "-v" | "--check" | "-C" | "--syntax-check"
        ) || (arg.len() > 1 && arg[1..].chars().all(|c| c == 'V'));
        if informational && code.is_empty() {
            named = true;
            continue;
        }
        // A cluster ending in a code flag: `-pe CODE`, `-ne CODE`, `-c'CODE'`, `-lane CODE`.
        if !arg.starts_with("--") {
            let cluster = &arg[1..];
            if let Some(at) = cluster.find(|c| code_clusters.contains(&c)) {
                let rest = &cluster[at + 1..];
                if rest.is_empty() {
                    code.extend(args.get(index).cloned());
                    index += 1;
                } else {
                    code.push(rest.to_string());
                }
                continue;
            }
            if family == "python" && cluster.contains('c') {
                code.push(cluster[cluster.find('c').unwrap_or(0) + 1..].to_string());
                continue;
            }
        }
    }
    if !code.is_empty() {
        return Program::Inline(code);
    }
    if script {
        return Program::Script;
    }
    if named {
        return Program::Named;
    }
    match &invocation.stdin_text {
        Some(text) => Program::Inline(vec![text.clone()]),
        None => Program::Interactive,
    }
}

/// The index in argv from which words are data for a program that runs code (a shell, awk,
/// an interpreter): before it, a word can still become the program's code, its script or
/// an option that changes them. `argv.len() + 1` when the code is never fixed.
pub fn code_fixed_at(name: &str, invocation: &Invocation) -> usize {
    let argv = &invocation.argv;
    let never = argv.len() + 1;
    let mut index = 1;
    if is_shell(name) {
        let command_mode = shell_flags(argv).contains('c');
        let reads_stdin = shell_flags(argv).contains('s');
        while let Some(arg) = argv.get(index) {
            if arg == "--" || arg == "-" {
                index += 1;
                break;
            }
            if matches!(
                arg.as_str(),
                "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
            ) {
                index += 2;
                continue;
            }
            if arg.starts_with('-') || arg.starts_with('+') {
                index += 1;
                continue;
            }
            break;
        }
        return match index < argv.len() {
            _ if reads_stdin && !command_mode => index,
            true => index + 1,
            false => never,
        };
    }
    if is_awk(name) {
        let mut has_program = false;
        while let Some(arg) = argv.get(index) {
            match arg.as_str() {
                "-f" | "--file" | "-e" | "--source" => {
                    has_program = true;
                    index += 2;
                }
                "-F" | "-v" | "--assign" | "--field-separator" | "-i" | "--include" => index += 2,
                "--" => return if has_program { index + 1 } else { index + 2 },
                _ if arg.starts_with("-f")
                    || arg.starts_with("-e")
                    || arg.starts_with("--file=") =>
                {
                    has_program = true;
                    index += 1;
                }
                _ if arg.starts_with('-') && arg.len() > 1 => index += 1,
                // With `-f FILE`, the first operand still sits where an option may go.
                _ => return index + 1,
            }
        }
        return never;
    }
    let python = is_python(name);
    let (code_flags, value_flags, _) = interpreter_flags(if python { "python" } else { name });
    while let Some(arg) = argv.get(index) {
        if python && (code_flags.contains(&arg.as_str()) || arg == "-m") {
            return index + 2;
        }
        if python && (arg.starts_with("-c") || arg.starts_with("-m")) && arg.len() > 2 {
            return index + 1;
        }
        if code_flags.contains(&arg.as_str()) || value_flags.contains(&arg.as_str()) {
            index += 2;
            continue;
        }
        if arg == "--" || arg == "-" || !arg.starts_with('-') {
            return index + 1;
        }
        index += 1;
    }
    never
}

/// Read-only: inline code and interactive sessions are not readers.
fn interpreter(name: &str, invocation: &Invocation) -> Option<(DenyKind, String)> {
    match interpreter_program(name, invocation) {
        Program::Named => None,
        Program::Script => Some((
            DenyKind::RunsCode,
            format!("{name} running a script (its code is not read)"),
        )),
        Program::Inline(_) => Some((DenyKind::RunsCode, format!("{name} with inline code"))),
        Program::Interactive => Some((
            DenyKind::RunsCode,
            format!("{name} as an interactive session"),
        )),
    }
}
