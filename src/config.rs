//! Layered configuration: embedded defaults < user file < project `.agentguard.toml` < env.
//!
//! Each layer is a TOML document. Every layer is checked on its own first, so an error names
//! the file, line and column it comes from; then the layers are merged table by table
//! (`[[detectors]]` entries are concatenated) and read into [`Config`].
//!
//! A project file the user has not trusted (`crate::trust`) is merged only where it tightens
//! the layers below it. For the hook ([`OnBroken::Fallback`]) a layer that does not load is
//! replaced by its last good copy (`crate::lastgood`) or dropped, so a typo never switches a
//! protection off; what was held back or replaced comes back as [`Note`]s for the user.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml_edit::{DocumentMut, Item, Table};

use crate::error::{Error, Result};
use crate::paths;

pub mod trust_cache;

/// The commented default config, also written by `agentguard config init`.
pub const DEFAULT_CONFIG: &str = include_str!("../assets/default-config.toml");

/// The same without comments (build.rs strips them): the defaults layer under config files.
const DEFAULT_CONFIG_DATA: &str =
    include_str!(concat!(env!("OUT_DIR"), "/default-config-data.toml"));
/// The same as JSON (build.rs): the whole config when no file or override applies.
const DEFAULT_CONFIG_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/default-config.json"));

/// The effective configuration. Every struct is `#[serde(default)]` so a single layer (a user
/// file that sets one key) can be checked on its own against this schema; the values of
/// `Default` are never used, since the embedded defaults are always the first layer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub judge: JudgeConfig,
    pub stop: StopConfig,
    pub pretool: PreToolConfig,
    pub readonly: ReadOnlyConfig,
    pub log: LogConfig,
    /// User detector entries: new detectors, or overrides of built-ins by name.
    pub detectors: Vec<crate::detectors::DetectorSpec>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    pub backend: BackendName,
    pub auto_order: Vec<BackendName>,
    pub deadline_ms: u64,
    /// How the rules judge and an LLM backend combine.
    pub cascade: Cascade,
    pub codex: CliBackendConfig,
    pub claude: CliBackendConfig,
    pub openai: HttpBackendConfig,
    pub anthropic: HttpBackendConfig,
    pub command: CommandBackendConfig,
}

/// How the rules judge and an LLM backend combine (`judge.cascade`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cascade {
    /// The rules judge answers first; only its `unsure` hits go to the LLM.
    #[default]
    RulesFirst,
    /// Every hit goes to the LLM (the rules judge's answer is still logged in the reason).
    LlmOnly,
}

/// A judge backend by its name in `judge.backend`, `judge.auto_order` and `--backend`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BackendName {
    /// The first usable backend of `judge.auto_order`.
    Auto,
    #[default]
    Rules,
    Command,
    Codex,
    Claude,
    OpenAi,
    Anthropic,
}

impl BackendName {
    /// The backends themselves (everything but `auto`), in documentation order.
    pub const BACKENDS: [BackendName; 6] = [
        BackendName::Rules,
        BackendName::Command,
        BackendName::Codex,
        BackendName::Claude,
        BackendName::OpenAi,
        BackendName::Anthropic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BackendName::Auto => "auto",
            BackendName::Rules => "rules",
            BackendName::Command => "command",
            BackendName::Codex => "codex",
            BackendName::Claude => "claude",
            BackendName::OpenAi => "openai",
            BackendName::Anthropic => "anthropic",
        }
    }

    pub fn parse(name: &str) -> Option<BackendName> {
        std::iter::once(BackendName::Auto)
            .chain(BackendName::BACKENDS)
            .find(|b| b.as_str() == name)
    }

    /// The error for a name that is none of these.
    pub fn unknown(name: &str) -> Error {
        let names: Vec<&str> = BackendName::BACKENDS.iter().map(|b| b.as_str()).collect();
        Error::usage(format!("unknown judge backend `{name}`"))
            .with_hint(format!("valid backends: auto, {}", names.join(", ")))
    }
}

impl std::fmt::Display for BackendName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for BackendName {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for BackendName {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        BackendName::parse(&name).ok_or_else(|| {
            let err = BackendName::unknown(&name);
            serde::de::Error::custom(format!("{}; {}", err.message, err.hint.unwrap_or_default()))
        })
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CliBackendConfig {
    pub binary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpBackendConfig {
    pub base_url: String,
    pub model: String,
    pub api_key_env: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommandBackendConfig {
    pub argv: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StopConfig {
    pub window_bytes: usize,
    pub scan_bytes: usize,
    pub max_blocks_per_turn: u32,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PreToolConfig {
    pub destructive: bool,
    pub judge: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadOnlyConfig {
    pub agent_types: Vec<String>,
    pub project: bool,
    /// MCP tools (glob patterns over tool names, `mcp__docs__*`) a read-only role may call.
    pub mcp_readers: Vec<String>,
}

impl ReadOnlyConfig {
    /// Whether a read-only role may call the MCP tool `tool` (`mcp_readers` lists it).
    pub fn is_mcp_reader(&self, tool: &str) -> bool {
        self.mcp_readers
            .iter()
            .any(|pattern| crate::text::glob_match(pattern, tool))
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub enabled: bool,
    pub retention_days: u32,
    pub store_text: bool,
    /// Overrides the platform data directory for the decision log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
}

/// Where a layer came from, for error messages and `config path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Defaults,
    File(PathBuf),
    Env(&'static str),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Defaults => write!(f, "built-in defaults"),
            Source::File(path) => write!(f, "{}", path.display()),
            Source::Env(var) => write!(f, "${var}"),
        }
    }
}

/// The config files that apply from `project_dir`.
#[derive(Debug, Clone)]
pub struct ConfigFiles {
    pub user: Option<PathBuf>,
    pub project: Option<PathBuf>,
}

impl ConfigFiles {
    /// The user file, and the nearest `.agentguard.toml` at or above `project_dir`.
    pub fn discover(project_dir: Option<&Path>) -> ConfigFiles {
        let project = project_dir.and_then(find_project_config);
        ConfigFiles {
            user: paths::user_config_file(),
            project,
        }
    }
}

fn find_project_config(start: &Path) -> Option<PathBuf> {
    let home = paths::home_dir();
    for dir in start.ancestors() {
        let candidate = dir.join(paths::PROJECT_CONFIG_FILE);
        if candidate.is_file() {
            return Some(candidate);
        }
        // The user's home is not a project: stop before wandering into system directories.
        if Some(dir) == home.as_deref() {
            break;
        }
    }
    None
}

/// How the loader treats a config file (or override) that does not load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBroken {
    /// Fail with the error (commands the user runs: the error names file, line and column).
    Fail,
    /// Use the file's last good copy, or the layers below it, and say so in a [`Note`] (the
    /// hook: a broken file must never switch a protection off nor make every call ask).
    Fallback,
}

/// Something the user should hear about a layer, besides the config itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// An untrusted project file: these of its keys were not applied.
    Untrusted {
        path: PathBuf,
        ignored: Vec<crate::trust::Ignored>,
    },
    /// A layer that does not load, and what was used instead.
    Broken {
        source: Source,
        error: String,
        fallback: Fallback,
    },
}

/// What stands in for a broken layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// The file's last copy that loaded, kept in agentguard's state.
    LastGood(PathBuf),
    /// Nothing: the layers below it apply.
    Below,
}

impl Note {
    /// One paragraph for the user (a hook's `systemMessage`, doctor).
    pub fn message(&self) -> String {
        match self {
            Note::Untrusted { path, ignored } => {
                let dir = path.parent().unwrap_or(Path::new("."));
                // Keys with the same reason share it: `judge.backend`, `judge.command.argv` (...).
                let mut groups: Vec<(Vec<String>, &str)> = Vec::new();
                for item in ignored {
                    match groups.iter_mut().find(|(_, why)| *why == item.why) {
                        Some((keys, _)) => keys.push(format!("`{}`", item.key)),
                        None => groups.push((vec![format!("`{}`", item.key)], &item.why)),
                    }
                }
                let keys = groups
                    .iter()
                    .map(|(keys, why)| format!("{} ({why})", keys.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ");
                format!(
                    "agentguard ignores {} setting{} of the untrusted {}: {keys}. Its stricter \
                     settings apply. If you wrote or reviewed this file, run `agentguard trust {}`.",
                    ignored.len(),
                    if ignored.len() == 1 { "" } else { "s" },
                    path.display(),
                    dir.display()
                )
            }
            Note::Broken {
                source,
                error,
                fallback,
            } => {
                let instead = match fallback {
                    Fallback::LastGood(copy) => {
                        format!("its last good copy ({}) is used instead", copy.display())
                    }
                    Fallback::Below if matches!(source, Source::Env(_)) => {
                        "the override is ignored".to_string()
                    }
                    Fallback::Below => {
                        "it is skipped (the settings below it and the built-in defaults apply)"
                            .to_string()
                    }
                };
                format!(
                    "agentguard: {source} does not load ({error}); {instead}. Fix it (`agentguard \
                     doctor` shows where)."
                )
            }
        }
    }
}

/// A loaded configuration, what `build` made of it, and the notes for the user.
#[derive(Debug)]
pub struct Loaded<T> {
    pub config: Config,
    pub built: T,
    pub notes: Vec<Note>,
    /// agentguard's state dir as the load looked it up (a platform lookup costs as much as a
    /// cached load: the hook reuses it for the session notices).
    pub state: Option<PathBuf>,
}

/// Whether a layer's keys apply as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Trust {
    /// The defaults, the user's own file, the environment.
    Own,
    /// A project file the user trusted as it is now.
    Trusted,
    /// A project file whose keys apply only where they tighten (`crate::trust`).
    Untrusted(PathBuf),
}

#[derive(Debug, Clone)]
struct Layer {
    source: Source,
    text: String,
    doc: DocumentMut,
    trust: Trust,
    /// Where the last good copy is kept, keyed by (None: the layer has none, e.g. the env).
    key: Option<PathBuf>,
    /// The layer is a last good copy, not the file as it is now.
    from_copy: bool,
}

impl Config {
    /// The defaults alone (a unit test holds them equal to the TOML layer and valid).
    pub fn defaults() -> Config {
        serde_json::from_str(DEFAULT_CONFIG_JSON).expect("the embedded default config is valid")
    }

    /// Loads every layer that applies from `project_dir` (see the module docs), an untrusted
    /// project file restricted to what tightens; a broken layer is an error.
    pub fn load(project_dir: Option<&Path>) -> Result<Config> {
        Ok(Self::load_with(project_dir, OnBroken::Fail, |_| Ok(()))?.config)
    }

    /// Like [`Config::load`], with the notes, and `build` (detectors, say) run on the result:
    /// with [`OnBroken::Fallback`] a layer that breaks the parse, the checks or `build` is
    /// replaced by its last good copy or dropped, and never fails the load.
    pub fn load_with<T>(
        project_dir: Option<&Path>,
        on_broken: OnBroken,
        build: impl Fn(&Config) -> Result<T>,
    ) -> Result<Loaded<T>> {
        let files = ConfigFiles::discover(project_dir);
        let env_backend = std::env::var("AGENTGUARD_BACKEND")
            .ok()
            .filter(|v| !v.is_empty());
        // The hook keeps last good copies; commands the user runs only read them.
        let keep = on_broken == OnBroken::Fallback;
        load_layers(
            &files,
            env_backend.as_deref(),
            crate::paths::state_dir().as_deref(),
            on_broken,
            keep,
            build,
        )
    }

    /// The keys of `files.project` that apply only once the user trusts it, as the layers
    /// below it stand (for `agentguard trust` and `doctor`); empty when it only tightens.
    pub fn held_back(files: &ConfigFiles) -> Result<Vec<crate::trust::Ignored>> {
        let loaded = load_layers(files, None, None, OnBroken::Fail, false, |_| Ok(()))?;
        Ok(loaded
            .notes
            .into_iter()
            .flat_map(|note| match note {
                Note::Untrusted { ignored, .. } => ignored,
                Note::Broken { .. } => Vec::new(),
            })
            .collect())
    }

    /// Parses, checks and merges `layers` (lowest precedence first), every layer as written.
    pub fn from_layers(layers: &[(Source, String)]) -> Result<Config> {
        let layers = layers
            .iter()
            .map(|(source, text)| {
                Ok(Layer {
                    source: source.clone(),
                    doc: parse_layer(source, text)?,
                    text: text.clone(),
                    trust: Trust::Own,
                    key: None,
                    from_copy: false,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(stack(&layers)?.0)
    }

    fn validate(&self) -> Result<()> {
        // Unknown names are refused when each layer is read, with their file, line and column.
        if self.judge.auto_order.contains(&BackendName::Auto) {
            let hint = BackendName::unknown("auto").hint.unwrap_or_default();
            return Err(Error::config("unknown backend `auto` in judge.auto_order").with_hint(hint));
        }
        if self.judge.deadline_ms == 0 {
            return Err(Error::config("judge.deadline_ms must be greater than 0"));
        }
        if self.stop.window_bytes < 64 {
            return Err(Error::config("stop.window_bytes must be at least 64"));
        }
        Ok(())
    }

    /// The effective config as TOML (for `config show`).
    pub fn to_toml(&self) -> String {
        toml_edit::ser::to_string_pretty(self).unwrap_or_default()
    }

    /// One value by dotted key (`judge.backend`): strings as they are, anything else as JSON
    /// (which is also valid TOML for numbers, booleans and arrays).
    pub fn get(&self, key: &str) -> Option<String> {
        let mut value = serde_json::to_value(self).ok()?;
        for part in key.split('.') {
            value = value.get(part)?.clone();
        }
        Some(match value {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        })
    }
}

fn config_error(
    source: &Source,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    message: &str,
) -> Error {
    let location = match span {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            format!("{source}:{line}:{col}")
        }
        None => source.to_string(),
    };
    Error::config(format!("{location}: {}", message.trim()))
        .with_hint("fix the file, or see `agentguard config init` for every key and its default")
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Merges `overlay` into `base`: tables merge key by key, arrays of tables (`[[detectors]]`)
/// are appended, everything else is replaced.
fn merge_tables(base: &mut Table, overlay: &Table) {
    for (key, item) in overlay.iter() {
        match (base.get_mut(key), item) {
            (Some(Item::Table(base_table)), Item::Table(overlay_table)) => {
                merge_tables(base_table, overlay_table)
            }
            (Some(Item::ArrayOfTables(base_array)), Item::ArrayOfTables(overlay_array)) => {
                for table in overlay_array.iter() {
                    base_array.push(table.clone());
                }
            }
            _ => {
                base.insert(key, item.clone());
            }
        }
    }
}

/// Parses one layer and checks it alone against the schema, so a wrong key or type is reported
/// against its own file, line and column. The embedded defaults need no check on every hook
/// call: a unit test holds them to the schema.
fn parse_layer(source: &Source, text: &str) -> Result<DocumentMut> {
    let doc: DocumentMut = text.parse().map_err(|err: toml_edit::TomlError| {
        config_error(source, text, err.span(), err.message())
    })?;
    if *source != Source::Defaults
        && let Err(err) = toml_edit::de::from_str::<Config>(text)
    {
        return Err(config_error(source, text, err.span(), err.message()));
    }
    Ok(doc)
}

/// Merges `layers` into one config, restricting untrusted ones to what tightens the layers
/// below them; returns the notes on what was held back.
fn stack(layers: &[Layer]) -> Result<(Config, Vec<Note>)> {
    let mut merged = Table::new();
    let mut notes = Vec::new();
    for layer in layers {
        match &layer.trust {
            Trust::Own | Trust::Trusted => merge_tables(&mut merged, layer.doc.as_table()),
            Trust::Untrusted(path) => {
                let below = config_of(&merged)?;
                let below_json = serde_json::to_value(&below).map_err(|err| {
                    Error::config(format!(
                        "cannot read the configuration below {path:?}: {err}"
                    ))
                })?;
                let overlay: serde_json::Value = toml_edit::de::from_document(layer.doc.clone())
                    .map_err(|err| {
                        config_error(&layer.source, &layer.text, err.span(), err.message())
                    })?;
                // The detectors below are built (a fifth of a hook's work) only for a file
                // that has `[[detectors]]` entries to compare with them.
                let below_detectors: Vec<serde_json::Value> = if overlay.get("detectors").is_some()
                {
                    crate::detectors::effective_specs(&below.detectors)
                        .into_iter()
                        .filter_map(|spec| serde_json::to_value(spec).ok())
                        .collect()
                } else {
                    Vec::new()
                };
                let empty = serde_json::Map::new();
                let restricted = crate::trust::restrict(
                    &below_json,
                    &below_detectors,
                    overlay.as_object().unwrap_or(&empty),
                );
                let safe = toml_edit::ser::to_document(&serde_json::Value::Object(restricted.safe))
                    .map_err(|err| {
                        Error::config(format!(
                            "cannot apply the safe part of {}: {err}",
                            path.display()
                        ))
                    })?;
                merge_tables(&mut merged, &as_standard_tables(safe.as_table().clone()));
                if !restricted.ignored.is_empty() {
                    notes.push(Note::Untrusted {
                        path: path.clone(),
                        ignored: restricted.ignored,
                    });
                }
            }
        }
    }
    let config = config_of(&merged)?;
    config.validate()?;
    Ok((config, notes))
}

fn config_of(merged: &Table) -> Result<Config> {
    toml_edit::de::from_document(DocumentMut::from(merged.clone()))
        .map_err(|err| Error::config(format!("invalid configuration: {}", err.message())))
}

/// `table` with inline tables as `[tables]` and arrays of inline tables as `[[arrays]]`, the
/// shapes a file written by hand has, so `merge_tables` merges them instead of replacing (the
/// serializer writes inline shapes).
fn as_standard_tables(table: Table) -> Table {
    let mut out = Table::new();
    for (key, item) in table.into_iter() {
        out.insert(&key, as_standard_item(item));
    }
    out
}

fn as_standard_item(item: Item) -> Item {
    match item {
        Item::Table(table) => Item::Table(as_standard_tables(table)),
        Item::Value(toml_edit::Value::InlineTable(inline)) => {
            Item::Table(as_standard_tables(inline.into_table()))
        }
        Item::Value(toml_edit::Value::Array(array))
            if !array.is_empty() && array.iter().all(|v| v.is_inline_table()) =>
        {
            let mut tables = toml_edit::ArrayOfTables::new();
            for value in array {
                if let toml_edit::Value::InlineTable(inline) = value {
                    tables.push(as_standard_tables(inline.into_table()));
                }
            }
            Item::ArrayOfTables(tables)
        }
        other => other,
    }
}

/// `stack` and `build` over `layers`.
fn build_all<T>(
    layers: &[Layer],
    build: &impl Fn(&Config) -> Result<T>,
) -> Result<(Config, T, Vec<Note>)> {
    let (config, notes) = stack(layers)?;
    let built = build(&config)?;
    Ok((config, built, notes))
}

/// The layers of `files` (and the backend override), checked, trusted or restricted, merged
/// and built; see [`Config::load_with`]. `state` is agentguard's state dir (trust store, last
/// good copies); without one nothing is trusted and nothing is kept. `keep`: files that load
/// become their last good copy.
pub fn load_layers<T>(
    files: &ConfigFiles,
    env_backend: Option<&str>,
    state: Option<&Path>,
    on_broken: OnBroken,
    keep: bool,
    build: impl Fn(&Config) -> Result<T>,
) -> Result<Loaded<T>> {
    let mut notes = Vec::new();
    // The file and override layers; the defaults go under them once there is one.
    let mut layers = Vec::new();
    // The trust store is read only when there is a project file to look up.
    let store = match (&files.project, state) {
        (Some(_), Some(state)) => {
            crate::trust::TrustStore::load(&state.join(crate::trust::STORE_FILE))
                .unwrap_or_default()
        }
        _ => crate::trust::TrustStore::default(),
    };
    let user = files
        .user
        .as_ref()
        .map(|path| (path.clone(), path.clone(), false));
    // Trust and last good copies of a project file are keyed by its real path.
    let project = files.project.as_ref().map(|path| {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        (path.clone(), key, true)
    });
    let mut files_read = Vec::new();
    for (path, key, is_project) in [user, project].into_iter().flatten() {
        if let Some(text) = read_layer(&path)? {
            files_read.push((path, key, is_project, text));
        }
    }
    // An untrusted project file comes to the same on every call: from the cache when it holds
    // exactly these files (the hook only; `keep` says it is the hook).
    let cached = cache_slot(&files_read, &store, state.filter(|_| keep), env_backend);
    if let Some(slot) = &cached
        && let Some((config, ignored)) = trust_cache::load(slot.state, &slot.key, &slot.entry)
        && let Ok(built) = build(&config)
    {
        let notes = (!ignored.is_empty())
            .then(|| Note::Untrusted {
                path: slot.path.clone(),
                ignored,
            })
            .into_iter()
            .collect();
        return Ok(Loaded {
            config,
            built,
            notes,
            state: state.map(Path::to_path_buf),
        });
    }
    for (path, key, is_project, text) in files_read {
        let source = Source::File(path.clone());
        let trust = layer_trust(&store, &key, is_project.then_some(path.as_path()), &text);
        match parse_layer(&source, &text) {
            Ok(doc) => layers.push(Layer {
                source,
                text,
                doc,
                trust,
                key: Some(key),
                from_copy: false,
            }),
            Err(err) if on_broken == OnBroken::Fail => return Err(err),
            Err(err) => {
                let copy = last_good_copy(state, &store, &source, &key, is_project, None);
                notes.push(broken_note(state, source, err, copy.as_ref()));
                layers.extend(copy);
            }
        }
    }
    if let Some(backend) = env_backend {
        let value = toml_edit::Value::from(backend);
        let source = Source::Env("AGENTGUARD_BACKEND");
        let text = format!("[judge]\nbackend = {value}\n");
        match parse_layer(&source, &text) {
            Ok(doc) => layers.push(Layer {
                doc,
                source,
                text,
                trust: Trust::Own,
                key: None,
                from_copy: false,
            }),
            Err(err) if on_broken == OnBroken::Fail => return Err(err),
            Err(err) => notes.push(broken_note(state, source, err, None)),
        }
    }
    if layers.is_empty() && notes.is_empty() {
        // No file, no override: the defaults, read from JSON (cheaper than parsing TOML).
        let config = Config::defaults();
        let built = build(&config)?;
        return Ok(Loaded {
            config,
            built,
            notes,
            state: state.map(Path::to_path_buf),
        });
    }
    layers.insert(
        0,
        Layer {
            source: Source::Defaults,
            text: String::new(),
            doc: DEFAULT_CONFIG_DATA
                .parse()
                .expect("the embedded default config parses (unit test)"),
            trust: Trust::Own,
            key: None,
            from_copy: false,
        },
    );
    let (config, built, stack_notes) = match build_all(&layers, &build) {
        Ok(done) => done,
        Err(err) if on_broken == OnBroken::Fail => return Err(err),
        Err(_) => {
            // Find the first layer that breaks the stack; put its last good copy in its place,
            // or drop it; go on until the stack builds (the defaults alone always do).
            let mut index = 1;
            while index < layers.len() {
                let Err(err) = build_all(&layers[..=index], &build) else {
                    index += 1;
                    continue;
                };
                let layer = layers.remove(index);
                let copy = match (&layer.key, layer.from_copy) {
                    (Some(key), false) => last_good_copy(
                        state,
                        &store,
                        &layer.source,
                        key,
                        layer.trust != Trust::Own,
                        Some(&layer.text),
                    ),
                    _ => None,
                };
                notes.push(broken_note(state, layer.source, err, copy.as_ref()));
                if let Some(copy) = copy {
                    layers.insert(index, copy);
                }
            }
            build_all(&layers, &build)?
        }
    };
    // What an untrusted file that loaded as it is came to, for the next call (a broken layer
    // or a fallback is worked out again each time, so it is never cached).
    if let Some(slot) = &cached
        && notes.is_empty()
        && layers.iter().all(|layer| !layer.from_copy)
    {
        let ignored: Vec<crate::trust::Ignored> = stack_notes
            .iter()
            .flat_map(|note| match note {
                Note::Untrusted { ignored, .. } => ignored.clone(),
                Note::Broken { .. } => Vec::new(),
            })
            .collect();
        let _ = trust_cache::save(slot.state, &slot.key, &slot.entry, &config, &ignored);
    }
    notes.extend(stack_notes);
    // Every file that loaded as it is now becomes its last good copy (a stat when unchanged).
    if let Some(state) = state.filter(|_| keep) {
        for layer in layers.iter().filter(|l| !l.from_copy) {
            if let Some(key) = &layer.key {
                let _ = crate::lastgood::save(state, key, &layer.text);
            }
        }
    }
    Ok(Loaded {
        config,
        built,
        notes,
        state: state.map(Path::to_path_buf),
    })
}

/// Where the result of an untrusted project file is cached, and under which key.
struct CacheSlot<'a> {
    state: &'a Path,
    /// The project file as found (for the note) and its real path (the entry's location).
    path: PathBuf,
    key: PathBuf,
    entry: trust_cache::Key,
}

/// The cache slot of `files` (the user and project files read, as (path, key, is_project,
/// text)): only for an untrusted project file, with a state dir, without an override (which
/// applies on top and is cheap anyway).
fn cache_slot<'a>(
    files: &[(PathBuf, PathBuf, bool, String)],
    store: &crate::trust::TrustStore,
    state: Option<&'a Path>,
    env_backend: Option<&str>,
) -> Option<CacheSlot<'a>> {
    let state = state.filter(|_| env_backend.is_none())?;
    let (path, key, _, text) = files.iter().find(|(_, _, is_project, _)| *is_project)?;
    let project_sha256 = crate::text::sha256_hex(text);
    if store.is_trusted(key, &project_sha256) {
        return None;
    }
    let user_sha256 = files
        .iter()
        .find(|(_, _, is_project, _)| !is_project)
        .map(|(_, _, _, text)| crate::text::sha256_hex(text));
    Some(CacheSlot {
        state,
        path: path.clone(),
        key: key.clone(),
        entry: trust_cache::Key {
            project_sha256,
            user_sha256,
            binary: trust_cache::binary_id()?,
        },
    })
}

/// The user's own file is theirs; a project file (`project`: its path as found) applies as
/// written only when the user trusted exactly this content at its real path `key`.
fn layer_trust(
    store: &crate::trust::TrustStore,
    key: &Path,
    project: Option<&Path>,
    text: &str,
) -> Trust {
    match project {
        None => Trust::Own,
        Some(_) if store.is_trusted(key, &crate::text::sha256_hex(text)) => Trust::Trusted,
        Some(path) => Trust::Untrusted(path.to_path_buf()),
    }
}

/// The last good copy of the file at `key` as a layer, if there is one that still parses and
/// is not `current` (the text that just failed).
fn last_good_copy(
    state: Option<&Path>,
    store: &crate::trust::TrustStore,
    source: &Source,
    key: &Path,
    is_project: bool,
    current: Option<&str>,
) -> Option<Layer> {
    let (_, text) = crate::lastgood::find(state?, key)?;
    if current == Some(text.as_str()) {
        return None;
    }
    let path = match source {
        Source::File(path) => path.as_path(),
        _ => key,
    };
    Some(Layer {
        doc: parse_layer(source, &text).ok()?,
        trust: layer_trust(store, key, is_project.then_some(path), &text),
        source: source.clone(),
        text,
        key: Some(key.to_path_buf()),
        from_copy: true,
    })
}

fn broken_note(state: Option<&Path>, source: Source, error: Error, copy: Option<&Layer>) -> Note {
    let fallback = match (state, copy) {
        (
            Some(state),
            Some(Layer {
                key: Some(key),
                text,
                ..
            }),
        ) => Fallback::LastGood(crate::lastgood::copy_path(state, key, text)),
        _ => Fallback::Below,
    };
    Note::Broken {
        source,
        error: error.message,
        fallback,
    }
}

fn read_layer(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io_at("read config file", path, err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(user: &str) -> Result<Config> {
        Config::from_layers(&[
            (Source::Defaults, DEFAULT_CONFIG.to_string()),
            (
                Source::File(PathBuf::from("/u/config.toml")),
                user.to_string(),
            ),
        ])
    }

    #[test]
    fn embedded_defaults_fit_the_schema_on_their_own() {
        // `from_layers` skips this check for the defaults layer; this test is why it may.
        toml_edit::de::from_str::<Config>(DEFAULT_CONFIG).unwrap();
    }

    #[test]
    fn uncommented_and_json_defaults_are_the_defaults() {
        let commented =
            Config::from_layers(&[(Source::Defaults, DEFAULT_CONFIG.to_string())]).unwrap();
        let uncommented =
            Config::from_layers(&[(Source::Defaults, DEFAULT_CONFIG_DATA.to_string())]).unwrap();
        assert_eq!(Config::defaults().to_toml(), commented.to_toml());
        assert_eq!(uncommented.to_toml(), commented.to_toml());
        Config::defaults().validate().unwrap();
        assert!(DEFAULT_CONFIG_DATA.len() < DEFAULT_CONFIG.len() / 2);
    }

    #[test]
    fn defaults_load() {
        let config = Config::defaults();
        assert_eq!(config.judge.backend, BackendName::Rules);
        assert_eq!(config.stop.window_bytes, 4000);
        assert_eq!(config.stop.max_blocks_per_turn, 2);
        assert!(config.detectors.is_empty());
    }

    #[test]
    fn user_layer_overrides_one_key_and_keeps_the_rest() {
        let config = layers("[judge]\nbackend = \"rules\"\n[stop]\nwindow_bytes = 100\n").unwrap();
        assert_eq!(config.judge.backend, BackendName::Rules);
        assert_eq!(config.judge.deadline_ms, 25000);
        assert_eq!(config.stop.window_bytes, 100);
        assert_eq!(config.stop.max_blocks_per_turn, 2);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let err = layers("[judge]\nbackend = 5\n").unwrap_err();
        assert!(
            err.message.starts_with("/u/config.toml:2:11:"),
            "{}",
            err.message
        );
        let err = layers("[stop]\nwindow = 5\n").unwrap_err();
        assert!(
            err.message.starts_with("/u/config.toml:2:1:"),
            "{}",
            err.message
        );
        assert!(err.message.contains("window"), "{}", err.message);
        let err = layers("[judge\n").unwrap_err();
        assert!(
            err.message.starts_with("/u/config.toml:1:"),
            "{}",
            err.message
        );
        let err = layers("[judge]\nbackend = \"gpt\"\n").unwrap_err();
        assert!(
            err.message.contains("unknown judge backend `gpt`"),
            "{}",
            err.message
        );
        // The unknown name is pointed at in its file, and the valid ones are listed.
        assert!(
            err.message.starts_with("/u/config.toml:2:11:"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("valid backends: auto, rules"),
            "{}",
            err.message
        );
        let err = layers("[judge]\nauto_order = [\"rules\", \"gtp\"]\n").unwrap_err();
        assert!(
            err.message.starts_with("/u/config.toml:2:"),
            "{}",
            err.message
        );
    }

    #[test]
    fn detector_entries_from_layers_are_appended() {
        let config = Config::from_layers(&[
            (Source::Defaults, DEFAULT_CONFIG.to_string()),
            (
                Source::File("a".into()),
                "[[detectors]]\nname = \"commit\"\nenabled = false\n".into(),
            ),
            (
                Source::File("b".into()),
                "[[detectors]]\nname = \"scope-change\"\nenabled = false\n".into(),
            ),
        ])
        .unwrap();
        let names: Vec<_> = config.detectors.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["commit", "scope-change"]);
    }

    fn file_layer(path: &str, text: &str, trust: Trust) -> Layer {
        let source = Source::File(path.into());
        Layer {
            doc: parse_layer(&source, text).unwrap(),
            source,
            text: text.into(),
            trust,
            key: None,
            from_copy: false,
        }
    }

    #[test]
    fn an_untrusted_layer_merges_its_safe_part_key_by_key() {
        let defaults = Layer {
            source: Source::Defaults,
            text: String::new(),
            doc: DEFAULT_CONFIG_DATA.parse().unwrap(),
            trust: Trust::Own,
            key: None,
            from_copy: false,
        };
        let user = file_layer(
            "/u.toml",
            "[stop]\nwindow_bytes = 1000\n[[detectors]]\nname = \"scope-change\"\nenabled = false\n",
            Trust::Own,
        );
        let project_text = "[stop]\nmax_blocks_per_turn = 1\nwindow_bytes = 99999\n\
                            [[detectors]]\nname = \"commit\"\nenabled = false\n\
                            [[detectors]]\nname = \"shallow-bugfix\"\ntriggers = [\"x\"]\n";
        let project = file_layer(
            "/p/.agentguard.toml",
            project_text,
            Trust::Untrusted("/p/.agentguard.toml".into()),
        );
        let (config, notes) = stack(&[defaults.clone(), user.clone(), project]).unwrap();
        assert_eq!(config.stop.window_bytes, 1000);
        assert_eq!(config.stop.max_blocks_per_turn, 1);
        assert_eq!(config.stop.scan_bytes, 262144);
        let names: Vec<_> = config.detectors.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["scope-change", "shallow-bugfix"]);
        let [Note::Untrusted { ignored, .. }] = notes.as_slice() else {
            panic!("{notes:?}");
        };
        let keys: Vec<_> = ignored.iter().map(|i| i.key.as_str()).collect();
        // `triggers = ["x"]` would replace the built-in triggers: the addition applies, the
        // removal is left out (and said).
        assert_eq!(
            keys,
            [
                "stop.window_bytes",
                "detectors[commit].enabled",
                "detectors[shallow-bugfix].triggers"
            ]
        );
        let shallow = config
            .detectors
            .iter()
            .find(|d| d.name == "shallow-bugfix")
            .unwrap();
        assert!(shallow.triggers.as_ref().unwrap().len() > 1);
        // Trusted, the same file applies as written.
        let trusted = file_layer("/p/.agentguard.toml", project_text, Trust::Trusted);
        let (config, notes) = stack(&[defaults, user, trusted]).unwrap();
        assert_eq!(config.stop.window_bytes, 99999);
        assert!(notes.is_empty());
    }

    fn load_in(
        dir: &Path,
        user: &str,
        env_backend: Option<&str>,
        on_broken: OnBroken,
    ) -> Result<Loaded<()>> {
        let user_path = dir.join("config.toml");
        std::fs::write(&user_path, user).unwrap();
        let files = ConfigFiles {
            user: Some(user_path),
            project: None,
        };
        load_layers(
            &files,
            env_backend,
            Some(&dir.join("state")),
            on_broken,
            true,
            |_| Ok(()),
        )
    }

    #[test]
    fn a_broken_layer_falls_back_to_its_last_good_copy_then_to_the_layers_below() {
        let dir = tempfile::tempdir().unwrap();
        let good = "[readonly]\nagent_types = [\"reviewer\"]\n";
        let loaded = load_in(dir.path(), good, None, OnBroken::Fallback).unwrap();
        assert!(loaded.notes.is_empty());
        // Broken: the last good copy stands in, and the note says so with file:line:col.
        let loaded = load_in(dir.path(), "[readonly\n", None, OnBroken::Fallback).unwrap();
        assert_eq!(loaded.config.readonly.agent_types, ["reviewer"]);
        let [
            Note::Broken {
                error, fallback, ..
            },
        ] = loaded.notes.as_slice()
        else {
            panic!("{:?}", loaded.notes);
        };
        assert!(error.contains("config.toml:1:"), "{error}");
        assert!(matches!(fallback, Fallback::LastGood(_)), "{fallback:?}");
        // A command the user runs stops at the error.
        assert!(load_in(dir.path(), "[readonly\n", None, OnBroken::Fail).is_err());
        // A value the schema takes but the checks refuse is broken too.
        let loaded = load_in(
            dir.path(),
            "[judge]\ndeadline_ms = 0\n",
            None,
            OnBroken::Fallback,
        )
        .unwrap();
        assert_eq!(loaded.config.readonly.agent_types, ["reviewer"]);
        assert_eq!(loaded.config.judge.deadline_ms, 25000);
        assert!(
            matches!(loaded.notes.as_slice(), [Note::Broken { error, .. }] if error.contains("deadline_ms")),
            "{:?}",
            loaded.notes
        );
        // Without a copy, the layers below apply.
        let fresh = tempfile::tempdir().unwrap();
        let loaded = load_in(fresh.path(), "[readonly\n", None, OnBroken::Fallback).unwrap();
        assert!(loaded.config.readonly.agent_types.is_empty());
        assert!(matches!(
            loaded.notes.as_slice(),
            [Note::Broken {
                fallback: Fallback::Below,
                ..
            }]
        ));
    }

    #[test]
    fn a_bad_backend_override_is_dropped_in_the_hook_and_an_error_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = load_in(dir.path(), "", Some("gpt"), OnBroken::Fallback).unwrap();
        assert_eq!(loaded.config.judge.backend, BackendName::Rules);
        let [note @ Note::Broken { source, .. }] = loaded.notes.as_slice() else {
            panic!("{:?}", loaded.notes);
        };
        assert_eq!(*source, Source::Env("AGENTGUARD_BACKEND"));
        assert!(
            note.message().contains("the override is ignored"),
            "{}",
            note.message()
        );
        assert!(load_in(dir.path(), "", Some("gpt"), OnBroken::Fail).is_err());
        let loaded = load_in(dir.path(), "", Some("claude"), OnBroken::Fallback).unwrap();
        assert_eq!(loaded.config.judge.backend, BackendName::Claude);
    }

    #[test]
    fn get_reads_dotted_keys() {
        let config = Config::defaults();
        assert_eq!(config.get("judge.backend").as_deref(), Some("rules"));
        assert_eq!(config.get("stop.window_bytes").as_deref(), Some("4000"));
        assert_eq!(config.get("judge.nope"), None);
    }
}
