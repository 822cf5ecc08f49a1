//! The read-only refinements of git the spec (`assets/programs/git.toml`) cannot express as
//! an effect per option: subcommands that read in their listing or checking forms only
//! (`branch`/`tag` without a name, `config` getting, `clean -n`, `apply --check`), options
//! whose meaning depends on their value or position (`grep -O`, `archive -o`), and global
//! options that redirect git to other state (`-c`, `--git-dir`, `--work-tree`). And the
//! gate's reading of git's own configuration on the command line (aliases, `sshCommand`).

use super::DenyKind;
use super::dangerous::Hold;
use super::programs::Parsed;
use super::walk::Invocation;

pub fn classify(invocation: &Invocation) -> Option<(DenyKind, String)> {
    let deny = |detail: String| Some((DenyKind::GitWrite, detail));
    let argv = &invocation.argv;
    let mut index = 1;
    while let Some(arg) = argv.get(index) {
        let option = arg
            .split_once('=')
            .map_or(arg.as_str(), |(option, _)| option);
        match option {
            "-c" | "--config-env" | "--git-dir" | "--work-tree" | "--namespace" => {
                return deny(format!("git {option}"));
            }
            "--exec-path" if arg.contains('=') => return deny("git --exec-path".to_string()),
            "-C" | "--super-prefix" | "--list-cmds" => index += 2,
            _ if arg.starts_with('-') => index += 1,
            _ => break,
        }
    }
    let Some(sub) = argv.get(index).map(String::as_str) else {
        return None; // `git`, `git --version`: prints and exits.
    };
    let args = &argv[index + 1..];
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
    let first = positional.first().copied().unwrap_or("");

    for arg in args {
        let option = arg
            .split_once('=')
            .map_or(arg.as_str(), |(option, _)| option);
        if matches!(
            option,
            "--output" | "--ext-diff" | "--textconv" | "--export-marks"
        ) {
            return deny(format!("git {sub} {option}"));
        }
    }
    let read = match sub {
        "grep" => !args
            .iter()
            .any(|arg| arg.starts_with("-O") || arg.starts_with("--open-files-in-pager")),
        "archive" => !args.iter().any(|arg| arg == "-o" || arg.starts_with("-o")),
        "format-patch" => has("--stdout"),
        "hash-object" => !has("-w"),
        "fsck" => !has("--lost-found"),
        "interpret-trailers" => !has("--in-place"),
        "apply" => has_any(&["--check", "--stat", "--numstat", "--summary"]) && !has("--apply"),
        "clean" => args.iter().any(|arg| {
            arg == "--dry-run"
                || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('n'))
        }),
        "config" => config_reads(args),
        "branch" => lists(
            args,
            &[
                "-d",
                "-D",
                "--delete",
                "-m",
                "-M",
                "--move",
                "-c",
                "-C",
                "--copy",
                "-u",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
                "-f",
                "--force",
                "-t",
                "--track",
                "--create-reflog",
            ],
            &[
                // Options that put branch in list mode; `--sort`, `--format`, `-v` do not
                // (`git branch --sort=refname new` creates `new`).
                "-l",
                "--list",
                "-a",
                "--all",
                "-r",
                "--remotes",
                "--show-current",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
            ],
        ),
        "tag" => lists(
            args,
            &[
                "-d",
                "--delete",
                "-a",
                "--annotate",
                "-s",
                "--sign",
                "-u",
                "--local-user",
                "-f",
                "--force",
                "-m",
                "--message",
                "-F",
                "--file",
                "-e",
                "--edit",
            ],
            &[
                "-l",
                "--list",
                "-n",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "-v",
                "--verify",
            ],
        ),
        "stash" => matches!(first, "list" | "show"),
        "remote" => matches!(first, "" | "show" | "get-url"),
        "worktree" => first == "list",
        "notes" => matches!(first, "" | "list" | "show"),
        "reflog" => matches!(first, "" | "show" | "exists"),
        "bisect" => matches!(first, "log" | "view" | "visualize" | "help"),
        "submodule" => matches!(first, "" | "status" | "summary"),
        "sparse-checkout" => first == "list",
        "lfs" => matches!(first, "ls-files" | "status" | "env" | "version" | "logs"),
        "symbolic-ref" => positional.len() < 2 && !has_any(&["-d", "--delete"]),
        "rerere" => matches!(first, "status" | "diff" | "remaining"),
        "replace" => args.is_empty() || has_any(&["-l", "--list"]),
        "bundle" => matches!(first, "verify" | "list-heads"),
        // The spec (assets/programs/git.toml) decided the rest.
        _ => true,
    };
    if read {
        return None;
    }
    let detail = match sub {
        "stash" | "remote" | "worktree" | "notes" | "reflog" | "bisect" | "submodule"
        | "sparse-checkout" | "lfs" | "bundle" | "rerere"
            if !first.is_empty() =>
        {
            format!("git {sub} {first}")
        }
        _ => format!("git {sub}"),
    };
    deny(detail)
}

/// `git branch`/`git tag`: listing unless a writing flag is present or a name is given
/// without a listing flag.
fn lists(args: &[String], write_flags: &[&str], list_flags: &[&str]) -> bool {
    let flag_of = |arg: &String| {
        arg.split_once('=')
            .map_or(arg.clone(), |(flag, _)| flag.to_string())
    };
    if args
        .iter()
        .any(|arg| write_flags.contains(&flag_of(arg).as_str()))
    {
        return false;
    }
    let listing = args.iter().any(|arg| {
        list_flags.contains(&flag_of(arg).as_str())
            || (arg.starts_with("-n") && !arg.starts_with("--"))
    });
    listing || !args.iter().any(|arg| !arg.starts_with('-'))
}

/// `git config`: reading forms (`--get`, `--list`, `get`, `list`, a lone key) versus setting.
fn config_reads(args: &[String]) -> bool {
    const WRITE: &[&str] = &[
        "--add",
        "--unset",
        "--unset-all",
        "--replace-all",
        "--rename-section",
        "--remove-section",
        "-e",
        "--edit",
    ];
    const READ: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "-l",
        "--list",
    ];
    const WITH_VALUE: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let option_of = |arg: &String| {
        arg.split_once('=')
            .map_or(arg.clone(), |(o, _)| o.to_string())
    };
    if args
        .iter()
        .any(|arg| WRITE.contains(&option_of(arg).as_str()))
    {
        return false;
    }
    let mut positional = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if WITH_VALUE.contains(&arg.as_str()) {
            index += 2;
            continue;
        }
        if !arg.starts_with('-') {
            positional.push(arg.as_str());
        }
        index += 1;
    }
    match positional.first().copied() {
        Some("get" | "list") => return true,
        Some("set" | "unset" | "rename-section" | "remove-section" | "edit") => return false,
        _ => {}
    }
    if args
        .iter()
        .any(|arg| READ.contains(&option_of(arg).as_str()))
    {
        return true;
    }
    positional.len() < 2
}

/// Configuration given on the command line or through the environment (`-c key=value`,
/// `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, `GIT_CONFIG_PARAMETERS`): the gate reads aliases
/// and `core.sshCommand` from it. `Err` names what cannot be read (the safe side holds).
fn command_line_config(
    invocation: &Invocation,
    parsed: &Parsed,
) -> Result<Vec<(String, String)>, String> {
    let mut entries = Vec::new();
    for option in parsed.options.iter().filter(|opt| opt.level == 0) {
        if option
            .value
            .as_deref()
            .is_some_and(|value| value.contains(super::walk::INPUT_WORD))
        {
            return Err(format!("{} set from input read at run time", option.name));
        }
        match option.name.as_str() {
            "-c" => {
                let value = option.value.as_deref().unwrap_or("");
                let (key, value) = value.split_once('=').unwrap_or((value, "true"));
                entries.push((key.to_ascii_lowercase(), value.to_string()));
            }
            "--config-env" => {
                let key = option
                    .value
                    .as_deref()
                    .unwrap_or("")
                    .split('=')
                    .next()
                    .unwrap_or("");
                entries.push((key.to_ascii_lowercase(), "$ENV".to_string()));
            }
            _ => {}
        }
    }
    let environment: Vec<&(String, String)> = invocation.environment().collect();
    let get = |name: &str| {
        environment
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    if let Some(count) = get("GIT_CONFIG_COUNT") {
        let count: usize = count
            .parse()
            .ok()
            .filter(|n| (1..=1024).contains(n) && count.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| format!("GIT_CONFIG_COUNT={count}"))?;
        for at in 0..count {
            let key = get(&format!("GIT_CONFIG_KEY_{at}"))
                .filter(|key| !key.is_empty())
                .ok_or_else(|| format!("GIT_CONFIG_KEY_{at} missing"))?;
            let value = get(&format!("GIT_CONFIG_VALUE_{at}"))
                .ok_or_else(|| format!("GIT_CONFIG_VALUE_{at} missing"))?;
            entries.push((key.to_ascii_lowercase(), value.to_string()));
        }
    }
    if let Some(parameters) = get("GIT_CONFIG_PARAMETERS") {
        // `'key=value' 'key2=value2'`, each entry single-quoted.
        let mut rest = parameters.trim();
        while !rest.is_empty() {
            let inner = rest
                .strip_prefix('\'')
                .and_then(|r| r.split_once('\''))
                .ok_or_else(|| format!("GIT_CONFIG_PARAMETERS={parameters}"))?;
            let (key, value) = inner.0.split_once('=').unwrap_or((inner.0, "true"));
            entries.push((key.to_ascii_lowercase(), value.to_string()));
            rest = inner.1.trim_start();
        }
    }
    Ok(entries)
}

/// Whether git is told to use another ssh program (`GIT_SSH_COMMAND`, `core.sshCommand`):
/// a network subcommand then runs it.
pub fn sets_ssh_program(invocation: &Invocation, parsed: &Parsed) -> bool {
    invocation.environment().any(|(name, value)| {
        matches!(
            name.as_str(),
            "GIT_SSH" | "GIT_SSH_COMMAND" | "GIT_SSH_VARIANT"
        ) && !value.is_empty()
    }) || command_line_config(invocation, parsed)
        .map(|entries| entries.iter().any(|(key, _)| key == "core.sshcommand"))
        .unwrap_or(true)
}

/// The gate's view of git configuration on the command line: an alias is what it stands for
/// (`git -c alias.nuke=reset nuke --hard` is `git reset --hard`; `!cmd` runs a shell),
/// and configuration that cannot be read is held.
pub fn config_hold(
    invocation: &Invocation,
    parsed: &Parsed,
    depth: usize,
    gate: &dyn Fn(&Invocation, usize) -> Option<Hold>,
) -> Option<Hold> {
    let entries = match command_line_config(invocation, parsed) {
        Ok(entries) => entries,
        Err(what) => {
            return Some(Hold {
                rule: "git.config-env".to_string(),
                message: format!(
                    "git is configured through the environment in a way that cannot be read (`{what}`)"
                ),
                safer: "pass settings as `git -c key=value`, one by one, or leave them out"
                    .to_string(),
            });
        }
    };
    if parsed.path.len() != 1 || depth > 4 {
        return None;
    }
    let word = parsed.operands.first()?;
    let alias = entries.iter().rev().find(|(key, _)| {
        key.strip_prefix("alias.") == Some(word.text.to_ascii_lowercase().as_str())
    })?;
    let at = invocation
        .argv
        .iter()
        .skip(1)
        .position(|arg| *arg == word.text)?
        + 1;
    let rest = &invocation.argv[at + 1..];
    if let Some(script) = alias.1.strip_prefix('!') {
        let source = std::iter::once(script.to_string())
            .chain(rest.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        return match super::walk::analyze(&source) {
            Ok(analysis) => super::dangerous::gate_at(&analysis, depth + 1),
            Err(err) => Some(super::unanalysable(&err)),
        };
    }
    let mut argv: Vec<String> = invocation.argv[..at].to_vec();
    argv.extend(alias.1.split_whitespace().map(str::to_string));
    argv.extend(rest.iter().cloned());
    let inner = Invocation {
        dynamic: vec![false; argv.len()],
        from_input: Vec::new(),
        argv,
        ..invocation.clone()
    };
    gate(&inner, depth + 1)
}
