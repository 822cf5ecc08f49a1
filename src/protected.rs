//! The files an agent must not write: agentguard's own configuration, state, trust store and
//! logs, and the hook settings of both hosts (SPEC §7). An agent that could edit them could
//! switch its guard off; reading them stays open.
//!
//! Given where things live ([`Protected::new`]) and a path as the agent wrote it (relative,
//! `~`, `$HOME`, `..`), [`Protected::check`] says whether it names a protected file, from the
//! text alone. [`Protected::tool_writes`] then looks at the disk as little as it must: the real
//! path of each written path (a symlink or a `..` after one leading into a protected place),
//! the real paths of the protected places (a `~/.claude` that links to a dotfiles checkout),
//! and which written paths are existing directories (`cp x DIR` writes `DIR/x`).
//!
//! A write into a directory is held when a protected file could land there: an entry named
//! after one of the command's other words (`cp -r agentguard ~/.config/`), or the contents of
//! a directory (`rsync -a dir/ ~/`, `cp -r dir/. ~/`), in a directory that holds protected
//! places. A path only known at run time is held when what is known of it names a protected
//! file (`> "$D/settings.json"`, `$X/agentguard/...`), so `> "$OUT"` stays open.
//!
//! What a shell command writes comes from the program specs (`crate::shell::Write`): the
//! destination of a copier, not its sources; relative paths under the directory a `cd` set. An
//! archive's entries are not known, so an extraction is held where it could overwrite one of
//! the user's protected places (`tar -C ~ -xf a.tar`), not in the project.
//!
//! This stops accidents and role drift, it is not a sandbox: a directory named only at run
//! time (`cp x "$D/"`), a path a script builds, or the project's own `.claude` overwritten by
//! an archive unpacked in the project are not known here.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

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
// A path known only in part, at run time: what it may be.
const RUN_TIME_PROJECT_CONFIG: &str =
    "known only at run time, and named like agentguard's project config";
const RUN_TIME_CLAUDE_SETTINGS: &str =
    "known only at run time, and named like Claude Code's hook settings";
const RUN_TIME_CODEX_SETTINGS: &str =
    "known only at run time, and named like Codex's hook settings";
const RUN_TIME_SETTINGS: &str =
    "known only at run time, and named like agentguard's or Codex's configuration or trust store";
const RUN_TIME_GUARD_DIR: &str =
    "known only at run time, and inside a directory named like agentguard's own";

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
    /// The project's own host settings dirs and config (`.claude`, `.codex`, `.agentguard.toml`
    /// in the cwd): places a directory may hold, like the trees and files.
    project_places: Vec<(PathBuf, &'static str)>,
    /// The same places with their symlinks resolved, looked up on the first written path that
    /// needs them.
    on_disk: OnceLock<Box<Protected>>,
}

/// The file names that are protected wherever they are, or in the places that hold them: what a
/// path known only in part must not end in.
const PROTECTED_NAMES: &[&str] = &[
    crate::paths::PROJECT_CONFIG_FILE,
    "hooks.json",
    "config.toml",
    crate::trust::STORE_FILE,
];

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
        let cwd = normalize(&cwd);
        let project_places = [
            (".claude", HOST_DIR),
            (".codex", HOST_DIR),
            (crate::paths::PROJECT_CONFIG_FILE, PROJECT_CONFIG),
        ]
        .map(|(name, what)| (cwd.join(name), what))
        .to_vec();
        Protected {
            home: home.map(normal),
            cwd,
            trees,
            files,
            claude_dir,
            codex_dir,
            project_places,
            on_disk: OnceLock::new(),
        }
    }

    /// These places, each also by its real path (symlinks resolved), for real paths to match.
    fn on_disk(&self) -> &Protected {
        self.on_disk.get_or_init(|| {
            // The places share parents (`~`, `~/.local`, the cwd): each is resolved once.
            let mut resolved = Resolved::default();
            let mut both = |places: &[(PathBuf, &'static str)]| {
                let mut out = places.to_vec();
                for (path, what) in places {
                    let real = resolved.real_path(path);
                    if real != *path {
                        out.push((real, *what));
                    }
                }
                out
            };
            let trees = both(&self.trees);
            let files = both(&self.files);
            let project_places = both(&self.project_places);
            let mut real = |dir: &Option<PathBuf>| dir.as_deref().map(|d| resolved.real_path(d));
            Box::new(Protected {
                home: self.home.clone(),
                cwd: self.cwd.clone(),
                trees,
                files,
                claude_dir: real(&self.claude_dir),
                codex_dir: real(&self.codex_dir),
                project_places,
                on_disk: OnceLock::new(),
            })
        })
    }

    /// Every protected place, for telling whether a directory holds one: the trees, the single
    /// files, and the project's own host settings and config.
    fn places(&self) -> impl Iterator<Item = &(PathBuf, &'static str)> {
        self.trees
            .iter()
            .chain(&self.files)
            .chain(&self.project_places)
    }

    /// The first protected place inside the directory `dir` (not `dir` itself).
    fn place_inside(&self, dir: &Path) -> Option<Hit> {
        self.places()
            .find(|(place, _)| place != dir && place.starts_with(dir))
            .map(|(path, what)| Hit {
                path: path.clone(),
                what,
            })
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
        self.check_path(&self.resolve(written)?)
    }

    /// Whether `written` names a protected file on this disk: as written, or by its real path
    /// (through symlinks, and `..` after one), against the protected places' real paths too.
    pub fn check_on_disk(&self, written: &str) -> Option<Hit> {
        let path = self.absolute(written)?;
        self.check_path(&normalize(&path))
            .or_else(|| self.on_disk().check_path(&real_path(&path)))
    }

    /// Whether `written`, a path only known at run time (`$D/settings.json`), could name a
    /// protected file: its last part is a protected file's name, or a part before it is the
    /// name of a protected directory (`$X/agentguard/...`). The parts after the last run-time
    /// part are what is known; a path that ends in one (`"$OUT"`) names nothing known.
    pub fn check_dynamic(&self, written: &str) -> Option<Hit> {
        let written = written.trim();
        if !is_dynamic(written) {
            return None;
        }
        let known: Vec<&str> = written
            .rsplit('/')
            .take_while(|part| !is_dynamic(part))
            .collect();
        let (name, dirs) = known.split_first()?;
        let tree_names = || {
            self.trees
                .iter()
                .filter_map(|(tree, _)| tree.file_name()?.to_str())
        };
        let what = if PROTECTED_NAMES.contains(name) || is_claude_settings_name(name) {
            Some(match *name {
                crate::paths::PROJECT_CONFIG_FILE => RUN_TIME_PROJECT_CONFIG,
                "hooks.json" => RUN_TIME_CODEX_SETTINGS,
                _ if is_claude_settings_name(name) => RUN_TIME_CLAUDE_SETTINGS,
                _ => RUN_TIME_SETTINGS,
            })
        } else {
            let in_tree = |dir: &&str| tree_names().any(|tree| tree == *dir);
            dirs.iter().any(in_tree).then_some(RUN_TIME_GUARD_DIR)
        };
        what.map(|what| Hit {
            path: PathBuf::from(written),
            what,
        })
    }

    /// Whether `path` (absolute, normalized) is a protected file.
    fn check_path(&self, path: &Path) -> Option<Hit> {
        let path = path.to_path_buf();
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
        if in_claude_dir && is_claude_settings_name(name) {
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
        text.split(is_text_separator)
            .filter(|token| !token.is_empty() && *token != trimmed)
            .find_map(|token| self.check(token))
    }

    /// The first protected path named by a relative path-like token of `text` (code run in
    /// the directory `dir`, a prefix ending in `/`) once joined to `dir`.
    fn find_in_text_under(&self, dir: &str, text: &str) -> Option<Hit> {
        text.split(is_text_separator)
            .filter(|token| !token.is_empty() && !token.starts_with(['/', '~', '$', '-']))
            .find_map(|token| self.check(&format!("{dir}{token}")))
    }

    /// A protected file a command could put into a directory it writes: for each word of
    /// `words` (one command's arguments) that is a directory holding protected places (it ends
    /// in `/` or is one on disk), an entry named after another word (`cp -r agentguard
    /// ~/.config/` writes `~/.config/agentguard`), or any entry when another word stands for a
    /// directory's contents (`rsync -a dir/ ~/`, `cp -r dir/. ~/`).
    pub fn lands_in(&self, words: &[&str]) -> Option<Hit> {
        // Option values count as words: `--target-directory=DIR`, `-t DIR` (a word of its own).
        let operands: Vec<&str> = words
            .iter()
            .filter_map(|word| match word.strip_prefix('-') {
                Some(option) => option.split_once('=').map(|(_, value)| value),
                None => Some(*word),
            })
            .filter(|word| !word.is_empty() && !is_dynamic(word))
            .collect();
        operands.iter().enumerate().find_map(|(index, dir)| {
            let others: Vec<&str> = operands
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .map(|(_, word)| *word)
                .collect();
            self.lands_in_dir(dir, false, &others, false)
        })
    }

    /// A protected file a command could put into `dir` (a directory if `is_dir`, ends in `/`,
    /// or is one on disk) that holds protected places: an entry named after one of `sources`,
    /// or any entry when a source stands for a directory's contents (`dir/`, `dir/.`). With
    /// `unknown_entries` (an archive's), any entry at all when `dir` is a protected place, or
    /// inside one, or holds one of the user's (agentguard's dirs, `~/.claude`, `~/.codex`):
    /// not the project's own `.claude`, so that unpacking an archive in the project stays open.
    pub fn lands_in_dir(
        &self,
        dir: &str,
        is_dir: bool,
        sources: &[&str],
        unknown_entries: bool,
    ) -> Option<Hit> {
        if dir.is_empty() || is_dynamic(dir) {
            return None;
        }
        let absolute = self.absolute(dir)?;
        // One stat for most words (files); the real path only for a directory.
        let is_dir = is_dir || dir.ends_with('/') || dir.ends_with("/.") || absolute.is_dir();
        if !is_dir {
            return None;
        }
        let places = self.on_disk();
        let path = normalize(&absolute);
        let real = real_path(&absolute);
        if unknown_entries {
            let user_place = |dir: &Path| {
                places
                    .trees
                    .iter()
                    .chain(&places.files)
                    .find(|(place, _)| place.starts_with(dir))
                    .map(|(place, what)| Hit {
                        path: place.clone(),
                        what,
                    })
            };
            return places
                .check_path(&path)
                .or_else(|| places.check_path(&real))
                .or_else(|| user_place(&path))
                .or_else(|| user_place(&real));
        }
        let inside = places
            .place_inside(&path)
            .or_else(|| places.place_inside(&real))?;
        for source in sources.iter().filter(|s| !s.is_empty() && !is_dynamic(s)) {
            if source.ends_with('/') || source.ends_with("/.") {
                return Some(inside);
            }
            let Some(name) = Path::new(source).file_name() else {
                continue;
            };
            for dir in [&path, &real] {
                let landing = dir.join(name);
                let hit = places
                    .check_path(&landing)
                    .or_else(|| places.place_inside(&landing));
                if hit.is_some() {
                    return hit;
                }
            }
        }
        None
    }

    /// `written` as an absolute, normalized path; None for what cannot name a file.
    fn resolve(&self, written: &str) -> Option<PathBuf> {
        self.absolute(written).map(|path| normalize(&path))
    }

    /// `written` as an absolute path, its `..` kept (after a symlink, the kernel takes `..`
    /// from where the link leads, not lexically).
    fn absolute(&self, written: &str) -> Option<PathBuf> {
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
        Some(path)
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
                    .find_map(|path| self.check_on_disk(path))
            }
            "apply_patch" => ["command", "input", "patch"]
                .iter()
                .filter_map(|name| field(name))
                .flat_map(patch_files)
                .find_map(|path| self.check_on_disk(path)),
            _ => match analysis {
                Some(Ok(analysis)) => analysis
                    .argvs()
                    .find_map(guard_command)
                    .or_else(|| self.shell_writes(analysis)),
                _ => command.and_then(|command| self.find_in_text(command)),
            },
        }
    }

    /// The protected file a parsed shell command would write: a path or text naming one (in
    /// its text, on disk, or as far as a run-time path is known), or a command putting one into
    /// a directory (see [`Protected::lands_in_dir`]).
    fn shell_writes(&self, analysis: &crate::shell::CommandAnalysis) -> Option<Hit> {
        use crate::shell::Write;
        let writes = analysis.writes();
        let named = writes.iter().find_map(|write| match write {
            Write::Path(text) | Write::Text(text) => self
                .find_in_text(text)
                .or_else(|| self.check_dynamic(text))
                .or_else(|| is_path_word(text).then(|| self.check_on_disk(text))?),
            Write::TextIn { text, dir } => self.find_in_text_under(dir, text),
            _ => None,
        });
        if named.is_some() {
            return named;
        }
        writes.iter().find_map(|write| match write {
            Write::Into {
                dir,
                is_dir,
                sources,
                unknown_entries,
            } => {
                let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
                self.lands_in_dir(dir, *is_dir, &sources, *unknown_entries)
            }
            Write::Arguments(words) => {
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                self.lands_in(&words)
            }
            _ => None,
        })
    }
}

/// What separates path-like tokens in code and option text.
fn is_text_separator(c: char) -> bool {
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
}

/// Claude Code's settings files: `settings.json`, `settings.local.json`, ...
fn is_claude_settings_name(name: &str) -> bool {
    name.starts_with("settings") && name.ends_with(".json")
}

/// A word whose value is only known at run time: a parameter or command substitution left in
/// the text by the shell analysis (`$HOME` and `${HOME}` at the start are resolved, not run-time).
fn is_dynamic(word: &str) -> bool {
    let rest = ["$HOME", "${HOME}"]
        .iter()
        .find_map(|home| word.strip_prefix(home))
        .unwrap_or(word);
    rest.contains('$') || rest.contains('`')
}

/// A word that may be a path to look up on disk: not an option, not code or a message.
fn is_path_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word.len() <= 4096
        && !word.contains(['\n', '\0'])
        && !is_dynamic(word)
}

/// `path` (absolute) with every symlink of its longest existing part resolved (and a `..`
/// after a symlink taken from where the link leads); the part that does not exist yet is kept
/// as written. The path, normalized, where nothing of it can be resolved.
fn real_path(path: &Path) -> PathBuf {
    Resolved::default().real_path(path)
}

/// What the file system said about paths already looked at, for resolving several paths that
/// share parents (one `lstat` per component, not a `realpath` per attempt).
#[derive(Default)]
struct Resolved(Vec<(PathBuf, Entry)>);

#[derive(Clone)]
enum Entry {
    Missing,
    Link(PathBuf),
    Other,
}

/// Symlinks followed for one path before it is taken as written (the kernel's limit).
const MAX_LINKS: usize = 40;

impl Resolved {
    fn entry(&mut self, path: &Path) -> Entry {
        // Byte equality: the walk builds every path the same way (Path's `==` compares
        // component by component, many times slower).
        let bytes = path.as_os_str().as_encoded_bytes();
        if let Some((_, known)) = self
            .0
            .iter()
            .find(|(seen, _)| seen.as_os_str().as_encoded_bytes() == bytes)
        {
            return known.clone();
        }
        let entry = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(path) {
                Ok(target) => Entry::Link(target),
                Err(_) => Entry::Missing,
            },
            Ok(_) => Entry::Other,
            Err(_) => Entry::Missing,
        };
        self.0.push((path.to_path_buf(), entry.clone()));
        entry
    }

    /// See [`real_path`]: component by component, following each symlink, `..` taken from
    /// where the walk is; past a missing component the rest is lexical.
    fn real_path(&mut self, path: &Path) -> PathBuf {
        let mut out = PathBuf::from("/");
        let mut queue: std::collections::VecDeque<PathBuf> = path
            .components()
            .map(|c| PathBuf::from(c.as_os_str()))
            .collect();
        let (mut links, mut missing) = (0, false);
        while let Some(part) = queue.pop_front() {
            match part.components().next() {
                Some(Component::RootDir) => out = PathBuf::from("/"),
                Some(Component::ParentDir) => {
                    out.pop();
                }
                Some(Component::Normal(name)) => {
                    out.push(name);
                    if missing {
                        continue;
                    }
                    match self.entry(&out) {
                        Entry::Missing => missing = true,
                        Entry::Other => {}
                        Entry::Link(target) => {
                            links += 1;
                            if links > MAX_LINKS {
                                return normalize(path);
                            }
                            out.pop();
                            for part in target.components().rev() {
                                queue.push_front(PathBuf::from(part.as_os_str()));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        out
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
    fn a_path_known_only_at_run_time_is_held_when_what_is_known_names_a_protected_file() {
        let p = protected();
        for written in [
            "$D/settings.json",
            "${CLAUDE_DIR}/settings.local.json",
            "$(dirname $0)/.agentguard.toml",
            "`pwd`/hooks.json",
            "${XDG_CONFIG_HOME:-$HOME/.config}/agentguard/config.toml",
            "$XDG_DATA_HOME/agentguard/logs/today.jsonl",
            "$S/trust.json",
        ] {
            assert!(p.check_dynamic(written).is_some(), "{written}");
        }
        for written in [
            "$OUT",
            "\"$OUT\"",
            "$D/report.json",
            "$D/",
            "$HOME/notes.txt",
            "settings.json",
            "$D/agentguard",
            "out-$N.log",
        ] {
            assert_eq!(p.check_dynamic(written), None, "{written}");
        }
    }

    /// A temporary tree: `home/` with `.claude/agents/`, `.config/`, a dotfiles checkout, and
    /// `home/proj` as the cwd, with links into the protected places.
    fn on_disk() -> (tempfile::TempDir, Protected) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        for sub in [
            ".claude/agents",
            ".config",
            "dotfiles/codex",
            "proj/src",
            "evil",
        ] {
            std::fs::create_dir_all(home.join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(home.join(".claude"), home.join("proj/claude-link")).unwrap();
        std::os::unix::fs::symlink(home.join(".claude/agents"), home.join("proj/agents")).unwrap();
        std::os::unix::fs::symlink(home.join("dotfiles/codex"), home.join(".codex")).unwrap();
        // Relative, and a link to a link.
        std::os::unix::fs::symlink("../.claude", home.join("proj/rel-link")).unwrap();
        std::os::unix::fs::symlink("rel-link", home.join("proj/link-to-link")).unwrap();
        let p = Protected::new(
            Some(home.clone()),
            home.join("proj"),
            Some(home.join(".config/agentguard/config.toml")),
            Some(home.join(".config/agentguard")),
            Some(home.join(".local/state/agentguard")),
            vec![home.join(".local/share/agentguard")],
            Some(home.join(".claude")),
            Some(home.join(".codex")),
        );
        (dir, p)
    }

    #[test]
    fn symlinks_into_protected_places_and_protected_places_that_are_links_are_followed() {
        let (dir, p) = on_disk();
        let home = dir.path().join("home");
        for written in [
            "claude-link/settings.json",
            "agents/../settings.local.json",
            "./claude-link",
            "rel-link/settings.json",
            "link-to-link/settings.local.json",
        ] {
            assert_eq!(p.check(written), None, "lexically {written} is elsewhere");
            assert!(p.check_on_disk(written).is_some(), "{written}");
        }
        // `~/.codex` links to a dotfiles checkout: its real path is protected too.
        let real = home.join("dotfiles/codex/hooks.json");
        assert_eq!(
            p.check_on_disk(real.to_str().unwrap()).unwrap().what,
            CODEX_SETTINGS
        );
        for written in ["agents/reviewer.md", "src/main.rs", "new/dir/file.txt"] {
            assert_eq!(p.check_on_disk(written), None, "{written}");
        }
    }

    #[test]
    fn what_a_command_puts_into_a_directory_holding_protected_places_is_checked() {
        let (dir, p) = on_disk();
        let home = dir.path().join("home");
        let home = home.to_str().unwrap();
        let held = |words: &[&str]| p.lands_in(words);
        let config = format!("{home}/.config");
        let config_slash = format!("{home}/.config/");
        let home_slash = format!("{home}/");
        for words in [
            vec!["-r", "agentguard", config_slash.as_str()],
            vec!["-r", "x/agentguard", config.as_str()],
            vec!["-t", config.as_str(), "agentguard"],
            vec!["--target-directory=~/.config", "agentguard"],
            vec!["-a", "evil/", home_slash.as_str()],
            vec!["-r", "evil/.", "~"],
            vec!["-r", "stuff/.local", "~/"],
            vec!["new-settings/.claude", "."],
        ] {
            assert!(held(&words).is_some(), "{words:?}");
        }
        for words in [
            vec!["x", "./"],
            vec!["../a", "."],
            vec!["a.txt", "b.txt"],
            vec!["notes.md", "~/"],
            vec!["-p", config.as_str()],
            vec!["-r", "src/", "build/"],
            vec!["x", "$D/"],
        ] {
            assert_eq!(held(&words), None, "{words:?}");
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
