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
use super::walk::Invocation;

/// What an invocation runs in turn.
pub enum Nested {
    None,
    /// The command starting at this word (`sudo -u x CMD ...`, `xargs -0 CMD ...`).
    Argv(usize),
    /// Several commands built from the words (`find -exec A {} ; -exec B {} +`).
    Commands(Vec<Vec<String>>),
    /// Shell source to parse one level deeper (`bash -c '...'`, `eval ...`, `sh <<EOF`).
    Script(String),
}

/// The program's name as the shell resolves it: `/usr/bin/rm` and `rm` are the same.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_shell(name: &str) -> bool {
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

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The shell payload of `bash [-opts] -c PAYLOAD`, or its stdin script, if it runs one.
fn shell_payload(invocation: &Invocation) -> Option<String> {
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
fn shell_reads_pipe(invocation: &Invocation) -> bool {
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

pub fn nested(invocation: &Invocation) -> Nested {
    let argv = &invocation.argv;
    if invocation.dynamic.first().copied().unwrap_or(true) {
        return Nested::None;
    }
    let name = program_name(&argv[0]);
    let operand = |with_value: &[&str]| Nested::Argv(skip_options(argv, 1, with_value));
    match name {
        "env" => {
            let mut index = 1;
            while let Some(arg) = argv.get(index) {
                match arg.as_str() {
                    "-S" | "--split-string" => {
                        return argv.get(index + 1).map_or(Nested::None, |script| {
                            Nested::Script(
                                std::iter::once(script.as_str())
                                    .chain(argv[index + 2..].iter().map(String::as_str))
                                    .collect::<Vec<_>>()
                                    .join(" "),
                            )
                        });
                    }
                    "-u" | "--unset" | "-C" | "--chdir" => index += 2,
                    "--" => {
                        index += 1;
                        break;
                    }
                    _ if arg.starts_with("-S") && arg.len() > 2 => {
                        return Nested::Script(arg[2..].to_string());
                    }
                    _ if arg.starts_with('-') && arg.len() > 1 => index += 1,
                    _ => break,
                }
            }
            Nested::Argv(skip_assignments(argv, index))
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
        "nice" => operand(&["-n", "--adjustment"]),
        "ionice" => operand(&["-c", "-n", "--class", "--classdata"]),
        "stdbuf" => operand(&["-i", "-o", "-e", "--input", "--output", "--error"]),
        "time" => operand(&["-f", "--format", "-o", "--output"]),
        "timeout" => {
            let index = skip_options(argv, 1, &["-s", "--signal", "-k", "--kill-after"]);
            Nested::Argv(index + 1)
        }
        "command" => {
            if argv.iter().skip(1).any(|arg| arg == "-v" || arg == "-V") {
                Nested::None
            } else {
                operand(&[])
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
            let index = skip_options(argv, 1, &["-n", "--interval", "-d", "-q"]);
            match argv.get(index..) {
                Some(rest) if !rest.is_empty() => Nested::Script(rest.join(" ")),
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
        "xargs" => operand(&[
            "-a",
            "--arg-file",
            "-d",
            "--delimiter",
            "-E",
            "-I",
            "-L",
            "--max-lines",
            "-n",
            "--max-args",
            "-P",
            "--max-procs",
            "-s",
            "--max-chars",
            "--process-slot-var",
        ]),
        "find" => Nested::Commands(find_exec_targets(argv)),
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

/// The commands of `find ... -exec CMD {} ;` (also `-execdir`, `-ok`, `-okdir`, `+`).
fn find_exec_targets(argv: &[String]) -> Vec<Vec<String>> {
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
            targets.push(argv[start..end].to_vec());
            index = end + 1;
        } else {
            index += 1;
        }
    }
    targets
}

/// Here-documents fed to programs that execute them (interpreters, database clients) are
/// views of their own: `psql <<EOF DROP TABLE x; EOF` must meet the `DROP TABLE` trigger.
pub fn stdin_consumer_text(invocation: &Invocation) -> Option<String> {
    let text = invocation.stdin_text.as_ref()?;
    let name = program_name(invocation.argv.first()?);
    let executes = is_python(name)
        || matches!(
            name,
            "psql"
                | "mysql"
                | "mariadb"
                | "sqlite3"
                | "duckdb"
                | "clickhouse-client"
                | "clickhouse"
                | "sqlcmd"
                | "mongosh"
                | "mongo"
                | "redis-cli"
                | "cqlsh"
                | "node"
                | "ruby"
                | "perl"
                | "php"
                | "kubectl"
                | "osascript"
        );
    executes.then(|| text.trim().to_string())
}

/// Deny reason for one invocation in a read-only role, if it writes.
pub fn classify(invocation: &Invocation) -> Option<(DenyKind, String)> {
    let argv = &invocation.argv;
    if invocation.dynamic.first().copied().unwrap_or(false) {
        return Some((DenyKind::DynamicCommand, argv[0].clone()));
    }
    // `{rm,-rf,x}` and `/bin/r?` become other commands after brace and glob expansion.
    let expands = |word: &str| {
        word != "["
            && (word.contains(['*', '?', '[']) || (word.contains('{') && word.contains([',', '.'])))
    };
    if expands(&argv[0]) {
        return Some((DenyKind::DynamicCommand, argv[0].clone()));
    }
    let name = program_name(&argv[0]);
    let args = &argv[1..];
    let file_write = |detail: String| Some((DenyKind::FileWrite, detail));
    let has = |flag: &str| args.iter().any(|arg| arg == flag);
    let has_any = |flags: &[&str]| args.iter().any(|arg| flags.contains(&arg.as_str()));
    let sub = args.first().map(String::as_str).unwrap_or("");
    match name {
        "git" => git::classify(invocation),
        "rm" | "rmdir" | "mv" | "cp" | "touch" | "mkdir" | "chmod" | "chown" | "chgrp" | "ln"
        | "link" | "unlink" | "truncate" | "install" | "shred" | "rsync" | "scp" | "mkfifo"
        | "mknod" | "chattr" | "setfacl" | "rename" | "split" | "csplit" | "patch" | "srm"
        | "wipe" | "fallocate" | "mkfs" | "zip" | "vim" | "vi" | "nvim" | "nano" | "emacs"
        | "ed" | "ex" | "pico" | "micro" | "hx" | "kak" | "rimraf" => file_write(name.to_string()),
        _ if name.starts_with("mkfs.") => file_write(name.to_string()),
        "tee" => args
            .iter()
            .filter(|arg| !arg.starts_with('-') || arg.as_str() == "-")
            .find(|arg| !is_harmless_sink(arg))
            .map(|target| (DenyKind::FileWrite, format!("tee {target}"))),
        "dd" => args
            .iter()
            .find(|arg| {
                arg.strip_prefix("of=")
                    .is_some_and(|target| !is_harmless_sink(target))
            })
            .map(|arg| (DenyKind::FileWrite, format!("dd {arg}"))),
        "sed" | "gsed" => sed(args).map(|detail| (DenyKind::FileWrite, detail)),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
            awk(name, args).map(|detail| (DenyKind::FileWrite, detail))
        }
        "perl" | "ruby" => interpreter_with_inplace(name, invocation),
        "node" | "nodejs" | "deno" | "php" | "bun" if one_liner(name, args).is_some() => {
            let code = one_liner(name, args).unwrap_or_default();
            writer_api(&code).map(|api| (DenyKind::FileWrite, format!("{name} one-liner: {api}")))
        }
        _ if is_python(name) => python(name, invocation),
        _ if is_shell(name)
            && shell_payload(invocation).is_none()
            && shell_reads_pipe(invocation) =>
        {
            Some((
                DenyKind::DynamicCommand,
                format!("{name} reading its script from stdin"),
            ))
        }
        "find" => args
            .iter()
            .find(|arg| {
                matches!(
                    arg.as_str(),
                    "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
                )
            })
            .map(|arg| (DenyKind::FileWrite, format!("find {arg}"))),
        "tar" | "bsdtar" => {
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
            let writes_mode = clusters
                .iter()
                .any(|c| c.contains(['c', 'x', 'r', 'u', 'A']))
                || has_any(&[
                    "--create",
                    "--extract",
                    "--get",
                    "--append",
                    "--update",
                    "--delete",
                ]);
            let to_stdout = has_any(&["-", "--to-stdout", "--file=-"])
                || clusters.iter().any(|cluster| cluster.contains('O'));
            (writes_mode && !to_stdout).then(|| (DenyKind::FileWrite, format!("tar {sub}")))
        }
        "unzip" => (!has_any(&["-l", "-t", "-p", "-v", "-Z", "-z"]))
            .then(|| (DenyKind::FileWrite, "unzip".to_string())),
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4"
        | "brotli" => (!has_any(&["--stdout", "--to-stdout", "--list", "--test"])
            && !args.iter().any(|arg| {
                arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['c', 'l', 't'])
            })
            && args.iter().any(|arg| !arg.starts_with('-')))
        .then(|| (DenyKind::FileWrite, name.to_string())),
        "curl" => args
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
        "wget" => {
            let to_stdout = args.windows(2).any(|w| {
                (w[0] == "-O" || w[0] == "--output-document")
                    && (w[1] == "-" || is_harmless_sink(&w[1]))
            }) || has_any(&["-O-", "-qO-", "-qO", "--spider"])
                || args.iter().any(|arg| arg == "--output-document=-");
            (!to_stdout).then(|| (DenyKind::FileWrite, "wget".to_string()))
        }
        "gh" => gh(args).map(|detail| (DenyKind::GitWrite, detail)),
        "sort" => args
            .iter()
            .find(|arg| {
                arg.as_str() == "-o"
                    || arg.starts_with("--output")
                    || (arg.starts_with("-o") && !arg.starts_with("--"))
            })
            .map(|arg| (DenyKind::FileWrite, format!("sort {arg}"))),
        "openssl" => args
            .iter()
            .find(|arg| matches!(arg.as_str(), "-out" | "-keyout"))
            .map(|arg| (DenyKind::FileWrite, format!("openssl {arg}"))),
        "make" | "gmake" => args
            .iter()
            .find(|arg| matches!(arg.as_str(), "install" | "uninstall"))
            .map(|target| (DenyKind::FileWrite, format!("make {target}"))),
        _ => package_or_formatter(name, args).map(|detail| (DenyKind::FileWrite, detail)),
    }
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
        "api" => args.iter().any(|arg| {
            matches!(
                arg.as_str(),
                "-X" | "--method" | "-f" | "-F" | "--field" | "--raw-field" | "--input"
            ) || arg.starts_with("--method=")
                || arg.starts_with("-X")
        }),
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

/// The code of `node -e CODE`, `deno eval CODE`, `php -r CODE`, `bun -e CODE`.
fn one_liner(name: &str, args: &[String]) -> Option<String> {
    let flags: &[&str] = match name {
        "php" => &["-r"],
        "deno" => &["eval"],
        _ => &["-e", "--eval", "-p", "--print"],
    };
    let at = args.iter().position(|arg| flags.contains(&arg.as_str()))?;
    args.get(at + 1).cloned()
}

fn interpreter_with_inplace(name: &str, invocation: &Invocation) -> Option<(DenyKind, String)> {
    let args = &invocation.argv[1..];
    let mut code = Vec::new();
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" || !arg.starts_with('-') {
            break;
        }
        let cluster = &arg[1..];
        for (offset, flag) in cluster.char_indices() {
            match flag {
                'i' => return Some((DenyKind::FileWrite, format!("{name} -i"))),
                'e' | 'E' => {
                    let rest = &cluster[offset + 1..];
                    if rest.is_empty() {
                        index += 1;
                        code.extend(args.get(index).cloned());
                    } else {
                        code.push(rest.to_string());
                    }
                    break;
                }
                // Options whose value is the rest of the cluster.
                'I' | 'M' | 'm' | 'C' | 'x' | 'r' | 'd' | 'D' | 'l' | '0' => break,
                _ => {}
            }
        }
        index += 1;
    }
    if code.is_empty() && index >= args.len() {
        code.extend(invocation.stdin_text.clone());
    }
    if code.iter().any(|code| code.contains('`')) {
        return Some((
            DenyKind::FileWrite,
            format!("{name} one-liner: backticks run a command"),
        ));
    }
    code.iter()
        .find_map(|code| writer_api(code))
        .map(|api| (DenyKind::FileWrite, format!("{name} one-liner: {api}")))
}

fn python(name: &str, invocation: &Invocation) -> Option<(DenyKind, String)> {
    let args = &invocation.argv[1..];
    let code = match args
        .iter()
        .position(|arg| arg == "-c" || (arg.starts_with("-c") && arg.len() > 2))
    {
        Some(at) if args[at] == "-c" => args.get(at + 1).cloned(),
        Some(at) => Some(args[at][2..].to_string()),
        None => {
            let runs_stdin = args.iter().all(|arg| arg.starts_with('-'))
                || args.first().is_some_and(|a| a == "-");
            if runs_stdin
                && !args
                    .iter()
                    .any(|arg| arg == "-m" || arg == "--version" || arg == "-V")
            {
                invocation.stdin_text.clone()
            } else {
                None
            }
        }
    }?;
    writer_api(&code).map(|api| (DenyKind::FileWrite, format!("{name} -c: {api}")))
}

/// Recognizes file-writing and command-running APIs in interpreter one-liners (Python, Node,
/// Ruby, Perl, PHP). Known limit: anything built dynamically (`getattr(os, "re"+"move")`,
/// `eval`, encoded strings) passes.
fn writer_api(code: &str) -> Option<String> {
    static WRITERS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r#"open\s*\([^)]*,\s*["'][rwxabtU+]*[wax+][rwxabtU+]*["']"#,
            r#"|open\s*\(?\s*(?:my\s+)?\$?\w+\s*,\s*["']\s*(?:>|\+<)"#,
            r#"|\bmode\s*=\s*["'][^"']*[wax+]"#,
            r"|\.write_(?:text|bytes)\s*\(",
            r"|\bos\.(?:remove|unlink|rmdir|removedirs|rename|renames|replace|mkdir|makedirs|chmod|chown|link|symlink|truncate|system|popen|exec\w*|spawn\w*|write|utime|mkfifo)\s*\(",
            r"|\bshutil\.(?:rmtree|move|copy\w*|chown|make_archive|unpack_archive)\s*\(",
            r"|\bsubprocess\b|\bpty\.spawn",
            r"|\.(?:unlink|rmdir|mkdir|touch|rename|symlink_to|hardlink_to|chmod)\s*\(",
            r"|\.to_(?:csv|json|parquet|excel|pickle|sql|feather|hdf)\s*\(",
            r"|\b(?:(?:writeFile|appendFile)(?:Sync)?|createWriteStream|rmSync|rm|unlinkSync|rmdirSync|mkdirSync|renameSync|copyFileSync|cpSync|truncateSync|chmodSync|chownSync|symlinkSync|linkSync|writeSync|openSync|mkdtemp|copyFile|cp)\s*\(",
            r"|\bchild_process\b|\bexecSync\b|\bspawnSync\b|\bexecFile\b",
            r"|\bDeno\.(?:writeTextFile|writeFile|remove|mkdir|rename|run|Command)",
            r"|\bBun\.(?:write|spawn)",
            r"|\bFile\.(?:write|delete|unlink|rename|chmod|symlink|truncate)|\bFile\.open\s*\([^)]*['\x22][wa]",
            r"|\bFileUtils\b|\bDir\.(?:mkdir|rmdir|delete|unlink)|\bIO\.write",
            r"|\b(?:unlink|rmdir|mkdir|rename|truncate|chmod|chown|symlink|system|exec)\s*[\s(]",
            r"|\bFile::(?:Path|Copy)|\bqx\s*[\(\{/]|%x[\(\{\[]",
            r"|\b(?:file_put_contents|fwrite|fputs|copy|tempnam|move_uploaded_file|shell_exec|passthru|proc_open|popen)\s*\("
        ))
        .expect("writer API pattern compiles")
    });
    WRITERS
        .find(code)
        .map(|found| found.as_str().trim().to_string())
}

/// Package managers that change dependencies, formatters and fixers that rewrite sources.
fn package_or_formatter(name: &str, args: &[String]) -> Option<String> {
    let has = |flag: &str| {
        args.iter()
            .any(|arg| arg == flag || arg.starts_with(&format!("{flag}=")))
    };
    let has_any = |flags: &[&str]| flags.iter().any(|flag| has(flag));
    let positional: Vec<&str> = args
        .iter()
        .filter(|arg| !arg.starts_with('-'))
        .map(String::as_str)
        .collect();
    let sub = positional.first().copied().unwrap_or("");
    let sub2 = positional.get(1).copied().unwrap_or("");
    let detail = |what: &str| Some(format!("{name} {what}").trim_end().to_string());
    match name {
        "npm" | "pnpm" | "yarn" | "bun" | "cnpm" => {
            let writes = matches!(
                sub,
                "install"
                    | "i"
                    | "ci"
                    | "add"
                    | "uninstall"
                    | "remove"
                    | "rm"
                    | "r"
                    | "un"
                    | "unlink"
                    | "update"
                    | "up"
                    | "upgrade"
                    | "link"
                    | "ln"
                    | "publish"
                    | "unpublish"
                    | "dedupe"
                    | "ddp"
                    | "prune"
                    | "init"
                    | "create"
                    | "import"
                    | "patch"
                    | "patch-commit"
                    | "set-script"
                    | "deprecate"
                    | "dist-tag"
                    | "owner"
                    | "access"
                    | "login"
                    | "logout"
                    | "adduser"
                    | "shrinkwrap"
            ) || (sub == "version" && !sub2.is_empty())
                || (sub == "pkg" && matches!(sub2, "set" | "delete" | "fix"))
                || (sub == "audit" && sub2 == "fix")
                || (name == "yarn" && sub.is_empty() && args.is_empty())
                || (name == "bun" && sub == "pm" && sub2 != "ls");
            if writes { detail(sub) } else { None }
        }
        "pip" | "pip3" | "pipx" => matches!(
            sub,
            "install"
                | "uninstall"
                | "download"
                | "wheel"
                | "inject"
                | "upgrade"
                | "upgrade-all"
                | "reinstall"
                | "ensurepath"
        )
        .then(|| format!("{name} {sub}")),
        "uv" => {
            let writes = matches!(
                sub,
                "add" | "remove" | "sync" | "lock" | "init" | "venv" | "publish" | "version"
            ) || (sub == "pip"
                && matches!(sub2, "install" | "uninstall" | "sync" | "compile"))
                || (matches!(sub, "tool" | "python")
                    && matches!(sub2, "install" | "uninstall" | "upgrade"));
            writes.then(|| format!("uv {sub}"))
        }
        "poetry" | "pipenv" | "pdm" | "hatch" | "rye" => matches!(
            sub,
            "add"
                | "remove"
                | "install"
                | "update"
                | "lock"
                | "init"
                | "new"
                | "sync"
                | "uninstall"
                | "upgrade"
                | "publish"
                | "self"
        )
        .then(|| format!("{name} {sub}")),
        "conda" | "mamba" | "micromamba" => matches!(
            sub,
            "install" | "remove" | "uninstall" | "create" | "update" | "upgrade"
        )
        .then(|| format!("{name} {sub}")),
        "cargo" => {
            let writes = matches!(
                sub,
                "add"
                    | "remove"
                    | "rm"
                    | "update"
                    | "install"
                    | "uninstall"
                    | "publish"
                    | "yank"
                    | "owner"
                    | "login"
                    | "logout"
                    | "new"
                    | "init"
                    | "fix"
                    | "generate-lockfile"
                    | "vendor"
                    | "upgrade"
                    | "set-version"
                    | "bump"
            ) || (sub == "fmt" && !has("--check"))
                || (sub == "clippy" && has("--fix"));
            writes.then(|| format!("cargo {sub}"))
        }
        "go" => {
            let writes = matches!(sub, "get" | "install" | "generate" | "fmt" | "fix")
                || (sub == "mod" && matches!(sub2, "tidy" | "vendor" | "init" | "edit"))
                || (sub == "work" && matches!(sub2, "init" | "use" | "edit" | "sync" | "vendor"));
            writes.then(|| {
                format!(
                    "go {sub} {}",
                    if matches!(sub, "mod" | "work") {
                        sub2
                    } else {
                        ""
                    }
                )
                .trim_end()
                .to_string()
            })
        }
        "gem" => matches!(
            sub,
            "install" | "uninstall" | "update" | "push" | "yank" | "cleanup"
        )
        .then(|| format!("gem {sub}")),
        "bundle" | "bundler" => matches!(
            sub,
            "" | "install" | "update" | "add" | "remove" | "lock" | "init" | "clean" | "binstubs"
        )
        .then(|| format!("bundle {sub}").trim_end().to_string()),
        "composer" => matches!(
            sub,
            "install" | "update" | "require" | "remove" | "init" | "create-project" | "upgrade"
        )
        .then(|| format!("composer {sub}")),
        "brew" | "apt" | "apt-get" | "dnf" | "yum" | "zypper" | "apk" | "snap" | "flatpak"
        | "port" | "choco" | "winget" | "scoop" => matches!(
            sub,
            "install"
                | "reinstall"
                | "uninstall"
                | "remove"
                | "rm"
                | "purge"
                | "upgrade"
                | "update"
                | "autoremove"
                | "add"
                | "del"
                | "tap"
                | "untap"
                | "link"
                | "unlink"
                | "cleanup"
                | "dist-upgrade"
                | "full-upgrade"
                | "erase"
                | "refresh"
                | "pin"
        )
        .then(|| format!("{name} {sub}")),
        "pacman" => args
            .iter()
            .find(|arg| arg.starts_with("-S") || arg.starts_with("-R") || arg.starts_with("-U"))
            .map(|arg| format!("pacman {arg}")),
        "rustup" => {
            let writes = matches!(
                sub,
                "install" | "uninstall" | "update" | "default" | "override" | "self"
            ) || (matches!(sub, "toolchain" | "component" | "target")
                && matches!(sub2, "install" | "add" | "remove" | "uninstall" | "link"));
            writes.then(|| format!("rustup {sub}"))
        }
        "dotnet" => matches!(
            sub,
            "add" | "remove" | "new" | "format" | "tool" | "restore" | "workload"
        )
        .then(|| format!("dotnet {sub}")),
        "terraform" | "tofu" => {
            let writes = matches!(
                sub,
                "apply"
                    | "destroy"
                    | "import"
                    | "taint"
                    | "untaint"
                    | "state"
                    | "workspace"
                    | "init"
                    | "get"
                    | "login"
                    | "logout"
                    | "force-unlock"
                    | "refresh"
            ) || (sub == "fmt" && !has_any(&["-check", "--check"]));
            writes.then(|| format!("{name} {sub}"))
        }
        "prettier" => has_any(&["--write", "-w"]).then(|| "prettier --write".to_string()),
        "eslint" | "standard" | "xo" | "stylelint" | "markdownlint" | "markdownlint-cli2"
        | "oxlint" => has("--fix").then(|| format!("{name} --fix")),
        "biome" => has_any(&["--write", "--apply", "--apply-unsafe", "--fix"])
            .then(|| format!("biome {sub} --write")),
        "ruff" => {
            let writes = has("--fix") && !has("--diff")
                || (sub == "format" && !has_any(&["--check", "--diff"]));
            writes.then(|| format!("ruff {sub}"))
        }
        "black" | "blue" => {
            (!has_any(&["--check", "--diff", "--version"])).then(|| name.to_string())
        }
        "isort" => (!has_any(&["--check", "--check-only", "-c", "--diff", "--version"]))
            .then(|| "isort".to_string()),
        "autopep8" | "autoflake" | "yapf" | "clang-format" | "pyupgrade" | "docformatter" => {
            has_any(&["-i", "--in-place"]).then(|| format!("{name} -i"))
        }
        "rustfmt" => (!has_any(&["--check", "--version", "-V", "--help", "--emit=stdout"])
            && !positional.is_empty())
        .then(|| "rustfmt".to_string()),
        "gofmt" | "goimports" | "shfmt" | "golines" => {
            has_any(&["-w", "--write"]).then(|| format!("{name} -w"))
        }
        "stylua" | "swiftformat" => (!has_any(&["--check", "--lint", "--version"])
            && !positional.is_empty())
        .then(|| name.to_string()),
        "rubocop" | "standardrb" => has_any(&[
            "-a",
            "-A",
            "--autocorrect",
            "--autocorrect-all",
            "--fix",
            "-x",
            "--fix-layout",
        ])
        .then(|| format!("{name} --autocorrect")),
        "ktlint" => has_any(&["-F", "--format"]).then(|| "ktlint --format".to_string()),
        "dprint" => (sub == "fmt").then(|| "dprint fmt".to_string()),
        "deno" => (matches!(
            sub,
            "fmt" | "add" | "remove" | "install" | "uninstall" | "publish"
        ) && !has("--check"))
        .then(|| format!("deno {sub}")),
        "pre-commit" => matches!(
            sub,
            "run"
                | "install"
                | "uninstall"
                | "autoupdate"
                | "clean"
                | "gc"
                | "try-repo"
                | "install-hooks"
        )
        .then(|| format!("pre-commit {sub}")),
        _ => None,
    }
}
