//! `agentguard trust [DIR]`, `--list`, `--revoke`: the user's word that a project's
//! `.agentguard.toml` may loosen settings (the core is `crate::trust`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::TrustArgs;
use crate::config::{Config, ConfigFiles};
use crate::error::{Error, Result};
use crate::trust::{STORE_FILE, TrustStore};

pub fn run(args: TrustArgs) -> Result<u8> {
    let state = crate::paths::state_dir()
        .ok_or_else(|| Error::io("cannot find agentguard's state directory (no home directory)"))?;
    let store_path = state.join(STORE_FILE);
    let mut store = TrustStore::load(&store_path).map_err(|err| {
        Error::io(format!("cannot read the trust store: {err}")).with_hint(format!(
            "remove {} and trust your projects again",
            store_path.display()
        ))
    })?;
    if args.list {
        return list(&store, args.json);
    }
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|err| Error::io(format!("no current directory: {err}")))?,
    };
    let Some(file) = project_file(&dir) else {
        if args.revoke
            && let Some(key) = forgotten_file(&store, &dir)
        {
            return revoke(&mut store, &store_path, &key);
        }
        return Err(Error::usage(format!(
            "no {} at or above {}",
            crate::paths::PROJECT_CONFIG_FILE,
            dir.display()
        ))
        .with_hint("pass the project directory that holds the file"));
    };
    let key = std::fs::canonicalize(&file).map_err(|err| Error::io_at("resolve", &file, err))?;
    if args.revoke {
        return revoke(&mut store, &store_path, &key);
    }
    let text = std::fs::read_to_string(&file).map_err(|err| Error::io_at("read", &file, err))?;
    let sha256 = crate::text::sha256_hex(&text);
    if store.is_trusted(&key, &sha256) {
        say(&format!(
            "{} is already trusted as it is now.\n",
            key.display()
        ))?;
        return Ok(0);
    }
    let files = ConfigFiles {
        user: crate::paths::user_config_file(),
        project: Some(file.clone()),
    };
    let held_back = Config::held_back(&files).map_err(|err| {
        let hint = "fix the file first: a file that does not load cannot be trusted";
        Error::config(err.message).with_hint(hint)
    })?;
    let mut review = format!("{} (sha256 {})\n", key.display(), &sha256[..16]);
    if held_back.is_empty() {
        review.push_str(
            "It only makes agentguard stricter: it applies in full without trust. Trusting \
             records this content, so a later change that loosens a setting applies too.\n",
        );
    } else {
        review.push_str("Trusting it lets in:\n");
        for ignored in &held_back {
            review.push_str(&format!(
                "  {} = {}\n      {}\n",
                ignored.key, ignored.value, ignored.why
            ));
        }
    }
    say(&review)?;
    if !confirmed(args.yes, &key)? {
        say("Not trusted.\n")?;
        return Ok(1);
    }
    let now = jiff::Timestamp::now().to_string();
    store.trust(&key, &sha256, &now);
    store
        .save(&store_path)
        .map_err(|err| Error::io_at("write the trust store", &store_path, err))?;
    say(&format!(
        "Trusted {}. Any change to it makes it untrusted again; `agentguard trust --revoke {}` \
         forgets it.\n",
        key.display(),
        dir.display()
    ))?;
    Ok(0)
}

/// The project file that applies in `dir`.
fn project_file(dir: &Path) -> Option<PathBuf> {
    ConfigFiles::discover(Some(dir)).project
}

/// A trusted file that no longer exists, named by its directory.
fn forgotten_file(store: &TrustStore, dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    let key = dir.join(crate::paths::PROJECT_CONFIG_FILE);
    store.entry(&key).map(|entry| entry.path.clone())
}

fn revoke(store: &mut TrustStore, store_path: &Path, key: &Path) -> Result<u8> {
    if !store.revoke(key) {
        say(&format!("{} was not trusted.\n", key.display()))?;
        return Ok(0);
    }
    store
        .save(store_path)
        .map_err(|err| Error::io_at("write the trust store", store_path, err))?;
    say(&format!(
        "{} is no longer trusted: only its stricter settings apply.\n",
        key.display()
    ))?;
    Ok(0)
}

fn list(store: &TrustStore, as_json: bool) -> Result<u8> {
    let rows: Vec<(String, &crate::trust::TrustEntry)> = store
        .files
        .iter()
        .map(|entry| {
            let status = match std::fs::read_to_string(&entry.path) {
                Ok(text) if crate::text::sha256_hex(&text) == entry.sha256 => "trusted",
                Ok(_) => "changed",
                Err(_) => "missing",
            };
            (status.to_string(), entry)
        })
        .collect();
    if as_json {
        let files: Vec<_> = rows
            .iter()
            .map(|(status, entry)| {
                json!({"path": entry.path, "sha256": entry.sha256,
                       "trusted_at": entry.trusted_at, "status": status})
            })
            .collect();
        say(&format!("{}\n", json!({ "files": files })))?;
        return Ok(0);
    }
    if rows.is_empty() {
        say("No project file is trusted.\n")?;
        return Ok(0);
    }
    let mut out = String::new();
    for (status, entry) in &rows {
        let note = match status.as_str() {
            "changed" => " (changed since: untrusted until you trust it again)",
            "missing" => " (the file is gone)",
            _ => "",
        };
        out.push_str(&format!(
            "{status:8} {}  since {}{note}\n",
            entry.path.display(),
            entry.trusted_at
        ));
    }
    say(&out)?;
    Ok(0)
}

fn confirmed(yes: bool, path: &Path) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(Error::usage(format!(
            "not trusting {} without your confirmation: there is no terminal to ask on",
            path.display()
        ))
        .with_hint("review the file, then run `agentguard trust DIR --yes`"));
    }
    dialoguer::Confirm::new()
        .with_prompt(format!("Trust {} as it is now?", path.display()))
        .default(false)
        .interact()
        .map_err(|err| Error::io(format!("cannot read the answer: {err}")))
}

fn say(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
