//! The layout rules of README's "Development" section, read from the sources: no cycle among
//! `src/`'s top-level modules, no core module using `cli` or `commands`, every command module
//! thin (at most 300 lines per file). Test code (`tests.rs`, `tests/` directories, a trailing
//! `#[cfg(test)] mod tests`) and comments are left out: they may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The Rust files of a top-level module: `src/NAME.rs` and everything under `src/NAME/`.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(SRC).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "main" || name == "lib" {
            continue;
        }
        let files = modules.entry(name).or_default();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    modules
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "tests") {
                files.extend(rust_files(&path));
            }
        } else if path.extension().is_some_and(|ext| ext == "rs")
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            files.push(path);
        }
    }
    files
}

/// The top-level modules `code` names through `crate::`: `crate::config::Config`, and each
/// name of a `use crate::{config, log::Record}` group.
fn crate_references(code: &str) -> BTreeSet<String> {
    let code = code
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    names.insert(identifier(item.trim()));
                }
            } else {
                names.insert(identifier(rest));
            }
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, files)| {
            let mut deps = BTreeSet::new();
            for file in files {
                deps.extend(crate_references(&std::fs::read_to_string(file).unwrap()));
            }
            deps.retain(|dep| dep != name && known.contains(dep));
            (name.clone(), deps)
        })
        .collect()
}

/// A cycle through `start`, as the path of modules, if there is one.
fn cycle_from(start: &str, deps: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in &deps[&module] {
            if next == start {
                return Some([path.clone(), vec![next.clone()]].concat());
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
            }
        }
    }
    None
}

#[test]
fn top_level_modules_form_no_cycle() {
    let deps = dependencies();
    assert!(deps.len() > 20, "the module list was not read: {deps:?}");
    // The reader sees real edges: the Stop guard uses the judge pipeline.
    assert!(deps["guard"].contains("pipeline"), "{:?}", deps["guard"]);
    let cycles: Vec<String> = deps
        .keys()
        .filter_map(|module| cycle_from(module, &deps))
        .map(|cycle| cycle.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_core_module_uses_the_command_line_layer() {
    let deps = dependencies();
    let offenders: Vec<String> = deps
        .iter()
        .filter(|(module, _)| !["cli", "commands"].contains(&module.as_str()))
        .filter(|(_, used)| used.contains("cli") || used.contains("commands"))
        .map(|(module, _)| module.clone())
        .collect();
    assert!(offenders.is_empty(), "{offenders:?}");
}

#[test]
fn command_modules_stay_thin() {
    let files = rust_files(&Path::new(SRC).join("commands"));
    assert!(files.len() > 10, "{files:?}");
    let long: Vec<String> = files
        .iter()
        .map(|file| (file, std::fs::read_to_string(file).unwrap().lines().count()))
        .filter(|(_, lines)| *lines > 300)
        .map(|(file, lines)| format!("{}: {lines} lines", file.display()))
        .collect();
    assert!(long.is_empty(), "{long:?}");
}
