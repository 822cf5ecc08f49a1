//! Where a path in a command points, resolved statically: `~`, `$HOME`, `${HOME}`, `$TMPDIR`,
//! the working directory (`$PWD`, `$(pwd)`) and `..` are expanded where that is certain,
//! relative paths are joined to the working directory the analysis tracks through `cd`. What cannot be resolved is `Unknown`, and the
//! gate treats it on the safe side.

/// The directory a path starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The project: the hook's working directory.
    Project,
    /// `/`.
    Root,
    /// The user's home.
    Home,
    /// The temp dir (`$TMPDIR`).
    Temp,
}

/// The working directory of a command, as far as the analysis knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cwd {
    Known(Base, Vec<String>),
    Unknown,
}

impl Default for Cwd {
    fn default() -> Self {
        Cwd::Known(Base::Project, Vec::new())
    }
}

/// What deleting (or recursively changing) a path would touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// Inside the temp dir (`/tmp/x`, `$TMPDIR/x`, `/var/tmp/x`).
    Temp,
    /// Inside the project, below its top (`build`, `./dist`, `target/debug`).
    Project,
    /// Somewhere else: another absolute path, a path in the home, a sibling of the project.
    Outside,
    /// Only known at run time (`$DIR`, `$(cmd)`): treated as outside.
    Unknown,
    /// The root, a home, a top-level system directory, the project itself, its parent or
    /// its `.git`.
    Broad,
}

/// Top-level directories whose loss breaks the machine.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "media",
    "mnt",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "snap",
    "srv",
    "sys",
    "usr",
    "var",
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
    "private",
    "cores",
    "nix",
];

/// Splits a word into its base and components, or None when it is not static.
fn split(word: &str, dynamic: bool, cwd: &Cwd) -> Option<(Base, Vec<String>)> {
    const HOME: &[&str] = &["$HOME", "${HOME}"];
    const TEMP: &[&str] = &[
        "$TMPDIR",
        "${TMPDIR}",
        "${TMPDIR:-/tmp}",
        "${TMPDIR:-/tmp/}",
    ];
    // The shell keeps `PWD` (and `pwd` prints) the directory the `cd`s tracked here lead to.
    const WORKING_DIR: &[&str] = &["$PWD", "${PWD}", "$(pwd)", "`pwd`"];
    let starts_with = |prefix: &&&str| word == **prefix || word.starts_with(&format!("{prefix}/"));
    // A path relative to the working directory, static unless it holds an expansion.
    let in_cwd = |relative: &str| match cwd {
        Cwd::Known(base, parts) => {
            let mut joined = parts.clone();
            joined.extend(parts_of(relative));
            (!dynamic || !has_expansion(relative)).then_some((*base, joined))
        }
        Cwd::Unknown => None,
    };
    let (base, rest) = if word == "~" || word.starts_with("~/") {
        (Base::Home, &word[1..])
    } else if let Some(prefix) = HOME.iter().find(starts_with) {
        (Base::Home, &word[prefix.len()..])
    } else if let Some(prefix) = TEMP.iter().find(starts_with) {
        (Base::Temp, &word[prefix.len()..])
    } else if let Some(prefix) = WORKING_DIR.iter().find(starts_with) {
        return in_cwd(&word[prefix.len()..]);
    } else if let Some(user) = word.strip_prefix('~') {
        // `~user`: someone's home.
        return Some((Base::Root, vec!["home".into(), user.into()]));
    } else if let Some(rest) = word.strip_prefix('/') {
        (Base::Root, rest)
    } else {
        return in_cwd(word);
    };
    if dynamic && has_expansion(rest) {
        return None;
    }
    Some((base, parts_of(rest)))
}

fn has_expansion(text: &str) -> bool {
    text.contains('$') || text.contains('`')
}

fn parts_of(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect()
}

/// Resolves `.` and `..`; a `..` above the base is kept as a leading `..`.
fn normalize(parts: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match part.as_str() {
            "." => {}
            ".." if out.last().is_some_and(|last| last != "..") => {
                out.pop();
            }
            _ => out.push(part),
        }
    }
    out
}

/// Only wildcards (`*`, `**`, `.*`, `?`): the whole directory it sits in.
fn glob_only(part: &str) -> bool {
    !part.is_empty()
        && part.chars().all(|c| matches!(c, '*' | '?' | '.'))
        && part.contains(['*', '?'])
}

/// Where `word` (an argument as the program receives it) points.
pub fn place(word: &str, dynamic: bool, cwd: &Cwd) -> Place {
    let Some((base, parts)) = split(word, dynamic, cwd) else {
        return Place::Unknown;
    };
    let parts = normalize(parts);
    let escapes = parts.first().is_some_and(|p| p == "..");
    // A trailing wildcard-only part stands for everything in its directory.
    let mut meaningful = parts.clone();
    let whole_dir = meaningful.last().is_some_and(|p| glob_only(p));
    if whole_dir {
        meaningful.pop();
    }
    match base {
        Base::Temp if !escapes => Place::Temp,
        Base::Temp => Place::Outside,
        Base::Home if meaningful.is_empty() => Place::Broad,
        Base::Home => Place::Outside,
        Base::Project if escapes => {
            if parts.iter().all(|p| p == ".." || glob_only(p)) {
                Place::Broad
            } else {
                Place::Outside
            }
        }
        Base::Project if meaningful.is_empty() => Place::Broad,
        Base::Project if meaningful.first().is_some_and(|p| p == ".git") => Place::Broad,
        Base::Project => Place::Project,
        Base::Root => root_place(&meaningful),
    }
}

fn root_place(parts: &[String]) -> Place {
    let first = parts.first().map(String::as_str);
    let second = parts.get(1).map(String::as_str);
    match (first, second) {
        (None, _) => Place::Broad,
        (Some(first), _) if glob_only(first) => Place::Broad,
        (Some("tmp"), _) | (Some("var" | "private"), Some("tmp")) | (Some("dev"), Some("shm")) => {
            Place::Temp
        }
        (Some("private"), Some("var")) if parts.get(2).is_some_and(|p| p == "folders") => {
            Place::Temp
        }
        (Some("var"), Some("folders")) => Place::Temp,
        (Some(dir), None) if SYSTEM_DIRS.contains(&dir) => Place::Broad,
        (Some("home" | "Users"), Some(_)) if parts.len() == 2 => Place::Broad,
        (Some(dir), Some(second)) if SYSTEM_DIRS.contains(&dir) && glob_only(second) => {
            Place::Broad
        }
        _ => Place::Outside,
    }
}

/// The working directory after `cd word` from `cwd`.
pub fn change_dir(word: Option<&str>, dynamic: bool, cwd: &Cwd) -> Cwd {
    let Some(word) = word else {
        return Cwd::Known(Base::Home, Vec::new());
    };
    if word == "-" {
        return Cwd::Unknown;
    }
    match split(word, dynamic, cwd) {
        Some((base, parts)) => {
            let parts = normalize(parts);
            if parts.first().is_some_and(|p| p == "..") {
                // Above the project (or the home): a directory we cannot name.
                Cwd::Unknown
            } else {
                Cwd::Known(base, parts)
            }
        }
        None => Cwd::Unknown,
    }
}

/// `word`, a path as a program receives it, as written from the hook's own working directory:
/// a relative path joined to the directory the `cd`s before it changed to (`cd ~/.claude;
/// echo x > settings.json` writes `~/.claude/settings.json`). In a directory known only at
/// run time it comes back under `$PWD/`: only its own, known part can then name a file.
/// Anything else (absolute, `~`, `$VAR/...`, an option, text with spaces) is returned as is.
pub fn from_hook_dir<'a>(word: &'a str, cwd: &Cwd) -> std::borrow::Cow<'a, str> {
    let as_is = word.is_empty()
        || word.starts_with(['/', '~', '$', '-', '`'])
        || word.contains(char::is_whitespace)
        || *cwd == Cwd::default();
    if as_is {
        return word.into();
    }
    let mut path = match dir_prefix(cwd) {
        Some(prefix) => prefix,
        None => String::from("$PWD/"),
    };
    path.push_str(word);
    path.into()
}

/// The working directory `cwd` as a prefix for relative paths (`~/.claude/`, `/etc/`, `sub/`),
/// when it is known; empty for the hook's own.
pub fn dir_prefix(cwd: &Cwd) -> Option<String> {
    let (root, parts) = match cwd {
        Cwd::Known(Base::Project, parts) => ("", parts),
        Cwd::Known(Base::Home, parts) => ("~/", parts),
        Cwd::Known(Base::Root, parts) => ("/", parts),
        Cwd::Known(Base::Temp, parts) => ("$TMPDIR/", parts),
        Cwd::Unknown => return None,
    };
    let mut prefix = String::from(root);
    for part in parts {
        prefix.push_str(part);
        prefix.push('/');
    }
    Some(prefix)
}
