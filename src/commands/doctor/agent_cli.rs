//! The agent CLIs, asked for `--version` and `--help` under a deadline.

use super::*;

pub(super) fn cli_facts(host: Host, binary: &str, help_args: &[&str]) -> CliFacts {
    let name = host.name();
    let path = find_in_path(binary);
    let help_command = format!("{name} {}", help_args.join(" "));
    let (version, help) = match &path {
        None => (Err("not found".to_string()), Err("not found".to_string())),
        Some(path) => (
            run_cli(name, path, &["--version"]).map(|out| {
                out.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("(no output)")
                    .to_string()
            }),
            run_cli(name, path, help_args),
        ),
    };
    CliFacts {
        host,
        binary: binary.to_string(),
        path,
        version,
        help,
        help_command,
    }
}

/// Runs an agent CLI for its version or help text: own process group, deadline, stdin closed,
/// an empty temp dir as cwd (so no project config of the user's is read). Codex unpacks helper
/// binaries into its home on every start: it gets the temp dir as CODEX_HOME, so doctor
/// leaves the user's ~/.codex as it was.
pub(super) fn run_cli(
    name: &str,
    path: &Path,
    args: &[&str],
) -> std::result::Result<String, String> {
    let dir = tempfile::Builder::new()
        .prefix("agentguard-doctor-")
        .tempdir()
        .map_err(|err| format!("cannot create a temp dir: {err}"))?;
    let mut argv = Vec::new();
    if name == "codex" {
        argv.push("/usr/bin/env".to_string());
        argv.push(format!("CODEX_HOME={}", dir.path().display()));
    }
    argv.push(path.display().to_string());
    argv.extend(args.iter().map(|a| a.to_string()));
    backends::process::run(&argv, None, dir.path(), Instant::now() + CLI_DEADLINE)
        .map(|out| out.stdout)
        .map_err(|err| err.to_string())
}
