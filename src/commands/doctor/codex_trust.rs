//! `codex.trust`: our Codex hooks (user and project files) against the trust entries in the
//! user's config.toml; the verdict is `doctor::check_codex_trust`.

use std::path::Path;

use crate::codex_trust;
use crate::doctor::{self, Check};
use crate::fsutil;
use crate::hosts::{Format, Host, locations};
use crate::paths;

pub(super) fn codex_trust_check(cwd: Option<&Path>) -> Option<Check> {
    let codex_user = locations::user_dir(Host::Codex, paths::home_dir().as_deref())?;
    let config = codex_user.join("config.toml");
    let mut files = vec![
        (codex_user.join("hooks.json"), Format::Json),
        (config.clone(), Format::Toml),
    ];
    if let Some(project) = cwd.map(|d| d.join(".codex"))
        && super::settings::same_file_key(&project) != super::settings::same_file_key(&codex_user)
    {
        files.push((project.join("hooks.json"), Format::Json));
        files.push((project.join("config.toml"), Format::Toml));
    }
    let read = |path: &Path| {
        fsutil::resolve_symlinks(path)
            .and_then(|resolved| fsutil::read_optional(&resolved))
            .ok()
            .flatten()
    };
    let hooks: Vec<_> = files
        .iter()
        .filter_map(|(path, format)| {
            let text = read(path)?;
            codex_trust::our_hooks(&path.display().to_string(), *format, &text).ok()
        })
        .flatten()
        .collect();
    let statuses = codex_trust::check(&read(&config).unwrap_or_default(), &hooks);
    doctor::check_codex_trust(&statuses, &config)
}
