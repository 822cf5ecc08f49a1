//! `agentguard config path|show|init|get|set`.

use std::io::Write;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, Value};

use crate::cli::ConfigCommand;
use crate::config::{Config, ConfigFiles, DEFAULT_CONFIG, Source};
use crate::detectors::Detectors;
use crate::error::{Error, Result};
use crate::paths;

pub fn run(command: ConfigCommand) -> Result<u8> {
    let cwd = std::env::current_dir().ok();
    match command {
        ConfigCommand::Path => {
            let files = ConfigFiles::discover(cwd.as_deref());
            let describe = |path: Option<&Path>| match path {
                Some(p) if p.exists() => format!("{} (exists)", p.display()),
                Some(p) => format!("{} (not created)", p.display()),
                None => "(none)".to_string(),
            };
            writeln!(
                std::io::stdout(),
                "user:    {}",
                describe(files.user.as_deref())
            )?;
            let project = files
                .project
                .or_else(|| cwd.map(|d| d.join(paths::PROJECT_CONFIG_FILE)));
            writeln!(
                std::io::stdout(),
                "project: {}",
                describe(project.as_deref())
            )?;
            Ok(0)
        }
        ConfigCommand::Show { json } => {
            let config = Config::load(cwd.as_deref())?;
            Detectors::load(&config.detectors)?.check_patterns()?;
            if json {
                let value =
                    serde_json::to_value(&config).map_err(|e| Error::config(e.to_string()))?;
                writeln!(
                    std::io::stdout(),
                    "{}",
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                )?;
            } else {
                write!(std::io::stdout(), "{}", config.to_toml())?;
            }
            Ok(0)
        }
        ConfigCommand::Init { force } => {
            let path = user_file()?;
            if path.exists() && !force {
                return Err(
                    Error::usage(format!("{} already exists", path.display())).with_hint(
                        "pass --force to overwrite it, or edit it with `agentguard config set`",
                    ),
                );
            }
            write_atomic(&path, DEFAULT_CONFIG)?;
            writeln!(std::io::stdout(), "wrote {}", path.display())?;
            Ok(0)
        }
        ConfigCommand::Get { key } => {
            let config = Config::load(cwd.as_deref())?;
            match config.get(&key) {
                Some(value) => {
                    writeln!(std::io::stdout(), "{value}")?;
                    Ok(0)
                }
                None => Err(Error::usage(format!("no configuration key `{key}`"))
                    .with_hint("`agentguard config show` lists every key")),
            }
        }
        ConfigCommand::Set {
            key,
            value,
            project,
        } => {
            let path = if project {
                cwd.clone()
                    .ok_or_else(|| Error::usage("no current directory"))?
                    .join(paths::PROJECT_CONFIG_FILE)
            } else {
                user_file()?
            };
            set(&path, &key, &value)?;
            writeln!(
                std::io::stdout(),
                "set {key} = {} in {}",
                parse_value(&value),
                path.display()
            )?;
            if key == "judge.backend" {
                warn_if_backend_unusable(cwd.as_deref(), &value);
            }
            Ok(0)
        }
    }
}

/// The setting is kept (the CLI may be installed next), but a backend that cannot run makes
/// every judged stop fail open: say so now, as `doctor` would.
fn warn_if_backend_unusable(cwd: Option<&Path>, backend: &str) {
    let Ok(config) = crate::config::Config::load(cwd) else {
        return;
    };
    let Some(name) = crate::config::BackendName::parse(backend.trim_matches('"')) else {
        return;
    };
    if let Some(reason) = crate::backends::unusable_reason(&config, name) {
        eprintln!(
            "agentguard: warning: judge.backend `{backend}` cannot judge here: {reason}. The \
             setting is kept; until that is fixed, a judgment that needs it fails (a Stop is \
             then allowed, with a notice; `judge` exits 3). Check with `agentguard doctor`."
        );
    }
}

fn user_file() -> Result<PathBuf> {
    paths::user_config_file()
        .ok_or_else(|| Error::config("cannot find a config directory (is HOME set?)"))
}

/// Sets `key` (dotted) to `raw` in the file at `path`, keeping its comments and layout. The
/// result must be a valid configuration, or nothing is written.
fn set(path: &Path, key: &str, raw: &str) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(Error::io_at("read", path, err)),
    };
    let mut doc: DocumentMut = text.parse().map_err(|err: toml_edit::TomlError| {
        let (line, col) = err
            .span()
            .map_or((1, 1), |s| crate::config::line_col(&text, s.start));
        Error::config(format!(
            "{}:{line}:{col}: {}",
            path.display(),
            err.message().trim()
        ))
        .with_hint("fix the file by hand first; it was not changed")
    })?;
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::usage(format!("invalid key `{key}`"))
            .with_hint("use a dotted key like judge.backend"));
    }
    let (last, tables) = parts.split_last().expect("split yields at least one part");
    let mut table: &mut Table = doc.as_table_mut();
    for part in tables {
        let item = table.entry(part).or_insert_with(|| {
            let mut new = Table::new();
            new.set_implicit(true);
            Item::Table(new)
        });
        table = item.as_table_mut().ok_or_else(|| {
            Error::usage(format!(
                "`{part}` in `{key}` is not a table in {}",
                path.display()
            ))
        })?;
    }
    let value = parse_value(raw);
    match table.get_mut(last).and_then(Item::as_value_mut) {
        // Keep the comment and spacing around an existing value.
        Some(existing) => {
            let decor = existing.decor().clone();
            *existing = value;
            *existing.decor_mut() = decor;
        }
        None => {
            table.insert(last, Item::Value(value));
        }
    }
    let new_text = doc.to_string();
    Config::from_layers(&[
        (Source::Defaults, DEFAULT_CONFIG.to_string()),
        (Source::File(path.to_path_buf()), new_text.clone()),
    ])
    .and_then(|config| Detectors::load(&config.detectors).map(|_| ()))
    .map_err(|err| {
        Error::config(format!(
            "`{key} = {raw}` would make the configuration invalid: {}",
            err.message
        ))
        .with_hint("the file was not changed")
    })?;
    write_atomic(path, &new_text)
}

/// A TOML value as typed (`5`, `true`, `["a", "b"]`, `"x"`), or else the raw text as a string.
fn parse_value(raw: &str) -> Value {
    raw.parse::<Value>().unwrap_or_else(|_| Value::from(raw))
}

/// Creates the config directory if needed and replaces the file atomically (permissions and a
/// symlinked config, e.g. from a dotfiles repo, are kept).
fn write_atomic(path: &Path, contents: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|err| Error::io_at("create", dir, err))?;
    }
    crate::fsutil::atomic_write(path, contents.as_bytes())
        .map_err(|err| Error::io_at("write", path, err))
}
