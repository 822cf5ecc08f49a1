//! Doctor's checks of the trust boundary (SPEC §7): the project file's trust and the layers
//! that do not load.

use std::path::Path;

use super::{Check, CheckId};
use crate::config::{Config, ConfigFiles, Note, OnBroken, load_layers};
use crate::trust::{STORE_FILE, TrustStore};

/// Doctor's lines for the trust boundary: `trust.project` for the project file that applies
/// (trusted, only tightening, or which keys wait for `agentguard trust`), and `config.fallback`
/// for each layer that does not load, saying what the hook uses instead.
pub fn doctor_checks(
    files: &ConfigFiles,
    env_backend: Option<&str>,
    state: Option<&Path>,
) -> Vec<Check> {
    let mut checks = Vec::new();
    if let Some(path) = &files.project
        && let Ok(text) = std::fs::read_to_string(path)
    {
        let id = CheckId::TrustProject;
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        let store = state
            .and_then(|dir| TrustStore::load(&dir.join(STORE_FILE)).ok())
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        if store.is_trusted(&key, &crate::text::sha256_hex(&text)) {
            checks.push(Check::ok(
                id,
                format!("project config {}: trusted as it is now", path.display()),
            ));
        } else {
            match Config::held_back(files) {
                Ok(held) if held.is_empty() => checks.push(Check::ok(
                    id,
                    format!(
                        "project config {}: not trusted, but it only tightens, so all of it applies",
                        path.display()
                    ),
                )),
                Ok(held) => {
                    let keys: Vec<&str> = held.iter().map(|i| i.key.as_str()).collect();
                    let changed = store.entry(&key).is_some();
                    checks.push(Check::warn(
                        id,
                        format!(
                            "project config {} is {}: {} setting{} ignored until you trust it: {}",
                            path.display(),
                            if changed { "changed since you trusted it" } else { "not trusted" },
                            held.len(),
                            if held.len() == 1 { "" } else { "s" },
                            keys.join(", ")
                        ),
                        format!(
                            "review the file, then run `agentguard trust {}` (it shows each key first)",
                            dir.display()
                        ),
                    ))
                }
                // A file that does not load is reported by `config.project` and below.
                Err(_) => {}
            }
        }
    }
    let loaded = load_layers(
        files,
        env_backend,
        state,
        OnBroken::Fallback,
        false,
        |config| {
            let detectors = crate::detectors::Detectors::load(&config.detectors)?;
            match detectors.trigger_error() {
                Some(err) => Err(crate::error::Error::config(err)),
                None => Ok(()),
            }
        },
    );
    if let Ok(loaded) = loaded {
        for note in loaded.notes {
            if let Note::Broken { source, .. } = &note {
                // The broken file itself fails `config.user`/`config.project`/`config.env`.
                checks.push(Check::warn(
                    CheckId::ConfigFallback,
                    note.message(),
                    format!("fix {source}; until then the hook keeps the protection it had"),
                ));
            }
        }
    }
    checks
}
