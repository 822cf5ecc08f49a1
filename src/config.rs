//! Layered configuration: embedded defaults < user file < project `.agentguard.toml` < env.
//!
//! Each layer is a TOML document. Every layer is checked on its own first, so an error names
//! the file, line and column it comes from; then the layers are merged table by table
//! (`[[detectors]]` entries are concatenated) and read into [`Config`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml_edit::{DocumentMut, Item, Table};

use crate::error::{Error, Result};
use crate::paths;

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
    pub cascade: crate::pipeline::Cascade,
    pub codex: CliBackendConfig,
    pub claude: CliBackendConfig,
    pub openai: HttpBackendConfig,
    pub anthropic: HttpBackendConfig,
    pub command: CommandBackendConfig,
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

impl Config {
    /// The defaults alone (a unit test holds them equal to the TOML layer and valid).
    pub fn defaults() -> Config {
        serde_json::from_str(DEFAULT_CONFIG_JSON).expect("the embedded default config is valid")
    }

    /// Loads every layer that applies from `project_dir` (see the module docs).
    pub fn load(project_dir: Option<&Path>) -> Result<Config> {
        let files = ConfigFiles::discover(project_dir);
        let mut layers = vec![(Source::Defaults, DEFAULT_CONFIG_DATA.to_string())];
        for path in [files.user, files.project].into_iter().flatten() {
            match std::fs::read_to_string(&path) {
                Ok(text) => layers.push((Source::File(path), text)),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(Error::io_at("read config file", &path, err)),
            }
        }
        if let Some(backend) = std::env::var("AGENTGUARD_BACKEND")
            .ok()
            .filter(|v| !v.is_empty())
        {
            let value = toml_edit::Value::from(backend.as_str());
            layers.push((
                Source::Env("AGENTGUARD_BACKEND"),
                format!("[judge]\nbackend = {value}\n"),
            ));
        }
        if layers.len() == 1 {
            return Ok(Self::defaults());
        }
        Self::from_layers(&layers)
    }

    /// Parses, checks and merges `layers` (lowest precedence first).
    pub fn from_layers(layers: &[(Source, String)]) -> Result<Config> {
        let mut merged = Table::new();
        for (source, text) in layers {
            let doc: DocumentMut = text.parse().map_err(|err: toml_edit::TomlError| {
                config_error(source, text, err.span(), err.message())
            })?;
            // Check the layer alone so a wrong key or type is reported against its own file.
            // The embedded defaults need no check on every hook call: a unit test holds them
            // to the schema.
            if *source != Source::Defaults
                && let Err(err) = toml_edit::de::from_str::<Config>(text)
            {
                return Err(config_error(source, text, err.span(), err.message()));
            }
            merge_tables(&mut merged, doc.as_table());
        }
        let config: Config = toml_edit::de::from_document(DocumentMut::from(merged))
            .map_err(|err| Error::config(format!("invalid configuration: {}", err.message())))?;
        config.validate()?;
        Ok(config)
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

    #[test]
    fn get_reads_dotted_keys() {
        let config = Config::defaults();
        assert_eq!(config.get("judge.backend").as_deref(), Some("rules"));
        assert_eq!(config.get("stop.window_bytes").as_deref(), Some("4000"));
        assert_eq!(config.get("judge.nope"), None);
    }
}
