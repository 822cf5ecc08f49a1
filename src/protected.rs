//! The files an agent must not write: agentguard's own configuration, state, trust store and
//! logs, and the hook settings of both hosts (SPEC §7). An agent that could edit them could
//! switch its guard off; reading them stays open.
//!
//! Pure path logic: given where things live ([`Protected::new`]) and a path as the agent wrote
//! it (relative, `~`, `$HOME`, `..`), [`Protected::check`] says whether it names a protected
//! file. Paths are resolved lexically (no file system access): this stops accidents and role
//! drift, it is not a sandbox (a path built at run time, or a symlink made earlier, passes).

use std::path::{Component, Path, PathBuf};

/// A protected file a path names, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The path as resolved.
    pub path: PathBuf,
    pub what: &'static str,
}

const PROJECT_CONFIG: &str = "agentguard's project config";
const USER_CONFIG: &str = "agentguard's configuration";
const STATE: &str = "agentguard's state and trust store";
const LOGS: &str = "agentguard's decision log";
const CLAUDE_SETTINGS: &str = "Claude Code's hook settings";
const CODEX_SETTINGS: &str = "Codex's hook settings";
const HOST_DIR: &str = "the directory holding an agent host's hook settings";
const GUARD_COMMAND: &str = "agentguard's trust, config or hooks";

/// Where the protected files live.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    home: Option<PathBuf>,
    cwd: PathBuf,
    /// Directories protected with everything in them.
    trees: Vec<(PathBuf, &'static str)>,
    /// Single protected files.
    files: Vec<(PathBuf, &'static str)>,
    /// The hosts' user dirs (`~/.claude` or `$CLAUDE_CONFIG_DIR`, `~/.codex` or `$CODEX_HOME`).
    claude_dir: Option<PathBuf>,
    codex_dir: Option<PathBuf>,
}

impl Protected {
    /// `cwd` resolves relative paths. `config_file`/`config_dir`: the user config and
    /// agentguard's config dir; `state_dir`, `log_dirs`: its state and logs; `claude_dir`,
    /// `codex_dir`: the hosts' user dirs (`~/.claude`, `~/.codex` or their env overrides).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        home: Option<PathBuf>,
        cwd: PathBuf,
        config_file: Option<PathBuf>,
        config_dir: Option<PathBuf>,
        state_dir: Option<PathBuf>,
        log_dirs: Vec<PathBuf>,
        claude_dir: Option<PathBuf>,
        codex_dir: Option<PathBuf>,
    ) -> Protected {
        let mut trees = Vec::new();
        let mut files = Vec::new();
        let normal = |p: PathBuf| normalize(&p);
        trees.extend(config_dir.map(|d| (normal(d), USER_CONFIG)));
        files.extend(config_file.map(|f| (normal(f), USER_CONFIG)));
        trees.extend(state_dir.map(|d| (normal(d), STATE)));
        trees.extend(log_dirs.into_iter().map(|d| (normal(d), LOGS)));
        let claude_dir = claude_dir.map(normal);
        let codex_dir = codex_dir.map(normal);
        files.extend(claude_dir.iter().map(|d| (d.clone(), HOST_DIR)));
        files.extend(codex_dir.iter().map(|d| (d.clone(), HOST_DIR)));
        Protected {
            home: home.map(normal),
            cwd: normalize(&cwd),
            trees,
            files,
            claude_dir,
            codex_dir,
        }
    }

    /// The protected locations of this machine, for a hook running in `cwd`; `log_dir`: a
    /// `[log] dir` the config sets.
    pub fn locate(cwd: PathBuf, log_dir: Option<PathBuf>) -> Protected {
        let home = crate::paths::home_dir();
        let env_dir = |var: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let under_home = |name: &str| home.as_ref().map(|h| h.join(name));
        // One platform lookup for the config, data and state dirs (this runs on every call).
        let dirs = crate::paths::project_dirs();
        let mut log_dirs: Vec<PathBuf> = dirs.iter().map(|d| d.data_dir().to_path_buf()).collect();
        log_dirs.extend(log_dir);
        Protected::new(
            home.clone(),
            cwd,
            crate::paths::user_config_file(),
            dirs.as_ref().map(|d| d.config_dir().to_path_buf()),
            dirs.as_ref().map(crate::paths::state_dir_of),
            log_dirs,
            env_dir("CLAUDE_CONFIG_DIR").or_else(|| under_home(".claude")),
            env_dir("CODEX_HOME").or_else(|| under_home(".codex")),
        )
    }

    /// Whether `written` (a path as the agent wrote it) names a protected file.
    pub fn check(&self, written: &str) -> Option<Hit> {
        let path = self.resolve(written)?;
        let hit = |what| {
            Some(Hit {
                path: path.clone(),
                what,
            })
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let parent_path = path.parent();
        let parent = parent_path
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let in_claude_dir = parent == ".claude" || parent_path == self.claude_dir.as_deref();
        let in_codex_dir = parent == ".codex" || parent_path == self.codex_dir.as_deref();
        if name == crate::paths::PROJECT_CONFIG_FILE {
            return hit(PROJECT_CONFIG);
        }
        // Any project's (and the user's) `.claude/settings*.json`, `.codex/{hooks.json,config.toml}`.
        if in_claude_dir && name.starts_with("settings") && name.ends_with(".json") {
            return hit(CLAUDE_SETTINGS);
        }
        if in_codex_dir && matches!(name, "hooks.json" | "config.toml") {
            return hit(CODEX_SETTINGS);
        }
        if matches!(name, ".claude" | ".codex") {
            return hit(HOST_DIR);
        }
        if let Some((_, what)) = self.files.iter().find(|(file, _)| *file == path) {
            return hit(what);
        }
        if let Some((_, what)) = self.trees.iter().find(|(tree, _)| path.starts_with(tree)) {
            return hit(what);
        }
        None
    }

    /// The first protected path named anywhere in `text`: the whole text, what follows an `=`
    /// (`of=PATH`, `--output=PATH`), and every path-like token of code (`open('~/.claude/
    /// settings.json', 'w')`).
    pub fn find_in_text(&self, text: &str) -> Option<Hit> {
        let text = text.replace("${HOME}", "$HOME");
        let trimmed = text.trim();
        if let Some(hit) = self.check(trimmed) {
            return Some(hit);
        }
        if let Some(hit) = trimmed
            .rsplit_once('=')
            .and_then(|(_, value)| self.check(value))
        {
            return Some(hit);
        }
        let separators = |c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '\'' | '"'
                        | '`'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | ','
                        | ';'
                        | ':'
                        | '<'
                        | '>'
                        | '|'
                        | '&'
                        | '='
                        | '+'
                        | '!'
                )
        };
        text.split(separators)
            .filter(|token| !token.is_empty() && *token != trimmed)
            .find_map(|token| self.check(token))
    }

    /// `written` as an absolute, normalized path; None for what cannot name a file.
    fn resolve(&self, written: &str) -> Option<PathBuf> {
        let written = written.trim();
        if written.is_empty() || written.starts_with('-') && !written.contains('/') {
            return None;
        }
        let home_rest = ["~", "$HOME"].iter().find_map(|prefix| {
            let rest = written.strip_prefix(prefix)?;
            (rest.is_empty() || rest.starts_with('/')).then_some(rest)
        });
        let path = match (home_rest, &self.home) {
            (Some(rest), Some(home)) => home.join(rest.trim_start_matches('/')),
            (Some(_), None) => return None,
            (None, _) if written.starts_with('/') => PathBuf::from(written),
            (None, _) => self.cwd.join(written),
        };
        Some(normalize(&path))
    }
}

impl Protected {
    /// The protected file a tool call would write, if any: the path of an edit tool, the files
    /// of an `apply_patch` patch, the write targets of a shell command (`analysis`, or the raw
    /// `command` when it did not parse).
    pub fn tool_writes(
        &self,
        tool: &str,
        tool_input: Option<&serde_json::Value>,
        command: Option<&str>,
        analysis: Option<&Result<crate::shell::CommandAnalysis, crate::shell::ParseError>>,
    ) -> Option<Hit> {
        let field = |name: &str| tool_input?.get(name)?.as_str();
        match tool {
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                ["file_path", "notebook_path", "path"]
                    .iter()
                    .filter_map(|name| field(name))
                    .find_map(|path| self.check(path))
            }
            "apply_patch" => ["command", "input", "patch"]
                .iter()
                .filter_map(|name| field(name))
                .flat_map(patch_files)
                .find_map(|path| self.check(path)),
            _ => match analysis {
                Some(Ok(analysis)) => analysis.argvs().find_map(guard_command).or_else(|| {
                    analysis
                        .write_targets()
                        .into_iter()
                        .find_map(|target| self.find_in_text(target))
                }),
                _ => command.and_then(|command| self.find_in_text(command)),
            },
        }
    }
}

/// agentguard's own commands that change its guard: trusting a project file, editing the
/// config, (un)installing the hooks, replacing the binary. `trust --list` only reads.
fn guard_command(argv: &[String]) -> Option<Hit> {
    let program = argv.first()?;
    if program.rsplit('/').next() != Some("agentguard") {
        return None;
    }
    let words: Vec<&str> = argv[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let changes = match words.as_slice() {
        ["trust", ..] => !argv.iter().any(|w| w == "--list"),
        ["config", "set" | "init", ..] => true,
        ["install" | "uninstall" | "self-update", ..] => true,
        _ => false,
    };
    changes.then(|| Hit {
        path: PathBuf::from(argv.join(" ")),
        what: GUARD_COMMAND,
    })
}

/// What the agent (and the user, on an ask) is told when a write to a protected file is held.
pub fn hold_reason(hit: &Hit) -> String {
    let action = if hit.what == GUARD_COMMAND {
        format!("run `{}`, which changes {}", hit.path.display(), hit.what)
    } else {
        format!("write {} ({})", hit.path.display(), hit.what)
    };
    format!(
        "agentguard held this call: it would {action}. An agent does not edit its own guard: \
         agentguard's configuration, trust store, state and logs, and the agent hosts' hook \
         settings are the user's to change. Reading them is fine. If a change is needed, say \
         what should change and why, and leave it to the user."
    )
}

/// `.` and `..` resolved without touching the file system; a trailing `/` dropped.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The files an `apply_patch` patch (Codex) adds, updates, deletes or moves to.
pub fn patch_files(patch: &str) -> Vec<&str> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|line| {
            HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
                .map(str::trim)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected() -> Protected {
        Protected::new(
            Some("/home/u".into()),
            "/home/u/proj/sub".into(),
            Some("/home/u/.config/agentguard/config.toml".into()),
            Some("/home/u/.config/agentguard".into()),
            Some("/home/u/.local/state/agentguard".into()),
            vec![
                "/home/u/.local/share/agentguard".into(),
                "/var/log/ag".into(),
            ],
            Some("/home/u/.claude".into()),
            Some("/home/u/.codex".into()),
        )
    }

    #[test]
    fn every_protected_file_in_every_spelling() {
        let p = protected();
        for written in [
            "~/.config/agentguard/config.toml",
            "$HOME/.config/agentguard/config.toml",
            "/home/u/.config/agentguard/backup.toml",
            "../.agentguard.toml",
            ".agentguard.toml",
            "/tmp/elsewhere/.agentguard.toml",
            "~/.local/state/agentguard/trust.json",
            "/home/u/proj/sub/../../.local/state/agentguard/last-good/x.toml",
            "~/.local/share/agentguard/logs/2026-01-01.jsonl",
            "/var/log/ag/today.jsonl",
            "~/.claude/settings.json",
            "~/.claude/settings.local.json",
            "../.claude/settings.json",
            ".claude/settings.local.json",
            "~/.codex/hooks.json",
            "~/.codex/config.toml",
            "./.codex/config.toml",
            "~/.claude",
            "~/.codex/",
            "/home/u/.config/agentguard",
        ] {
            assert!(p.check(written).is_some(), "{written}");
        }
    }

    #[test]
    fn other_files_are_not_protected() {
        let p = protected();
        for written in [
            "src/main.rs",
            "~/.claude/agents/reviewer.md",
            "~/.claude/CLAUDE.md",
            "~/.codex/sessions/x.jsonl",
            "settings.json",
            "~/.config/other/config.toml",
            "agentguard.toml",
            "-rf",
            "",
            "/home/u/.local/share/other",
        ] {
            assert_eq!(p.check(written), None, "{written}");
        }
    }

    #[test]
    fn host_dirs_moved_by_their_env_vars_are_protected() {
        let p = Protected::new(
            Some("/home/u".into()),
            "/work".into(),
            None,
            None,
            None,
            Vec::new(),
            Some("/cfg/claude-home".into()),
            Some("/cfg/codex-home".into()),
        );
        assert_eq!(
            p.check("/cfg/claude-home/settings.json").unwrap().what,
            CLAUDE_SETTINGS
        );
        assert_eq!(
            p.check("/cfg/codex-home/hooks.json").unwrap().what,
            CODEX_SETTINGS
        );
        assert_eq!(p.check("/cfg/claude-home").unwrap().what, HOST_DIR);
        assert_eq!(p.check("/cfg/claude-home/agents/x.md"), None);
    }

    #[test]
    fn relative_paths_resolve_against_the_cwd() {
        let p = protected();
        assert_eq!(
            p.check("../../.codex/hooks.json").unwrap().path,
            PathBuf::from("/home/u/.codex/hooks.json")
        );
        let hit = p.check("../../.config/agentguard/config.toml").unwrap();
        assert_eq!(hit.what, USER_CONFIG);
    }

    #[test]
    fn paths_inside_code_and_options_are_found() {
        let p = protected();
        let code = "import json; open('/home/u/.claude/settings.json', 'w').write('{}')";
        assert_eq!(p.find_in_text(code).unwrap().what, CLAUDE_SETTINGS);
        assert!(p.find_in_text("of=${HOME}/.codex/config.toml").is_some());
        assert!(p.find_in_text("--output=.agentguard.toml").is_some());
        assert!(
            p.find_in_text("fs.writeFileSync(\"$HOME/.local/state/agentguard/trust.json\",x)")
                .is_some()
        );
        assert_eq!(p.find_in_text("print('hello world')"), None);
        assert_eq!(p.find_in_text("echo settings.json"), None);
    }

    #[test]
    fn agentguard_commands_that_change_the_guard_are_found() {
        let argv = |line: &str| line.split(' ').map(String::from).collect::<Vec<_>>();
        for line in [
            "agentguard trust --yes",
            "/usr/local/bin/agentguard trust /x",
            "agentguard config set judge.backend command",
            "agentguard uninstall --yes",
            "agentguard install --scope project",
        ] {
            assert_eq!(
                guard_command(&argv(line)).map(|h| h.what),
                Some(GUARD_COMMAND),
                "{line}"
            );
        }
        for line in [
            "agentguard trust --list",
            "agentguard config show",
            "agentguard doctor",
            "agentguard judge --json",
            "notagentguard trust",
        ] {
            assert_eq!(guard_command(&argv(line)), None, "{line}");
        }
    }

    #[test]
    fn patch_headers_are_read() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: .agentguard.toml\n\
                     @@\n-a\n+b\n*** Update File: old.rs\n*** Move to: .claude/settings.json\n\
                     *** Delete File: gone.txt\n*** End Patch\n";
        assert_eq!(
            patch_files(patch),
            [
                "a.txt",
                ".agentguard.toml",
                "old.rs",
                ".claude/settings.json",
                "gone.txt"
            ]
        );
    }
}
