//! Which git invocations only read.
//!
//! An allowlist: a subcommand is read-only when listed here (some only in their listing or
//! checking forms); anything else, including user aliases we cannot see, is denied. Global
//! options that redirect git to other state or run configured programs (`-c`, `--git-dir`,
//! `--work-tree`, `--exec-path=`, `--config-env`) are denied, as are the options that make
//! "read" commands write files or run external programs (`--output`, `--ext-diff`,
//! `--textconv`, `grep -O`, `archive -o`, `fast-export --export-marks`).

use super::DenyKind;
use super::walk::Invocation;

/// Environment assignments that point git at other state or make it run a program.
const DENIED_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_EXTERNAL_DIFF",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
];

/// Pagers that only display.
const DISPLAY_PAGERS: &[&str] = &[
    "", "cat", "less", "more", "head", "tail", "bat", "delta", "most",
];

const READ_SUBCOMMANDS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "annotate",
    "grep",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "show-ref",
    "show-branch",
    "cat-file",
    "for-each-ref",
    "name-rev",
    "merge-base",
    "merge-tree",
    "diff-tree",
    "diff-files",
    "diff-index",
    "range-diff",
    "whatchanged",
    "count-objects",
    "verify-commit",
    "verify-tag",
    "verify-pack",
    "check-ignore",
    "check-attr",
    "check-mailmap",
    "check-ref-format",
    "var",
    "version",
    "help",
    "cherry",
    "get-tar-commit-id",
    "patch-id",
    "stripspace",
    "column",
    "show-index",
    "request-pull",
    "archive",
    "fast-export",
];

pub fn classify(invocation: &Invocation) -> Option<(DenyKind, String)> {
    let deny = |detail: String| Some((DenyKind::GitWrite, detail));
    for (name, value) in &invocation.assignments {
        let pager = matches!(name.as_str(), "GIT_PAGER" | "PAGER")
            && !DISPLAY_PAGERS.contains(&value.split_whitespace().next().unwrap_or(""));
        if DENIED_ENV.contains(&name.as_str()) || name.starts_with("GIT_CONFIG_") || pager {
            return deny(format!("{name}=... git"));
        }
    }
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
                "-l",
                "--list",
                "-a",
                "--all",
                "-r",
                "--remotes",
                "-v",
                "-vv",
                "--verbose",
                "--show-current",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--format",
                "--sort",
                "--column",
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
                "--sort",
                "--format",
                "--column",
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
        _ => READ_SUBCOMMANDS.contains(&sub),
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
