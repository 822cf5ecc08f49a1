//! An isolated environment for running the real binary: a temporary HOME, a cleared
//! environment, and helpers to write files into it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub struct Env {
    pub dir: tempfile::TempDir,
    /// Extra entries prepended to PATH (stand-in executables).
    pub path_prefix: Vec<PathBuf>,
    pub vars: Vec<(String, String)>,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new().prefix("agentguard-test-").tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        Env { dir, path_prefix: Vec::new(), vars: Vec::new() }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// A directory on PATH for stand-in executables.
    pub fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    pub fn config_file(&self) -> PathBuf {
        self.home().join(".config/agentguard/config.toml")
    }

    pub fn log_dir(&self) -> PathBuf {
        self.home().join(".local/share/agentguard/logs")
    }

    pub fn set(&mut self, key: &str, value: impl AsRef<str>) -> &mut Self {
        self.vars.push((key.to_string(), value.as_ref().to_string()));
        self
    }

    /// Writes `contents` to `path` (relative to the temp root, or absolute), creating parents.
    pub fn write(&self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// Writes the user config file.
    pub fn write_config(&self, toml: &str) -> PathBuf {
        let path = self.config_file();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, toml).unwrap();
        path
    }

    /// Writes an executable script into the stand-in bin directory.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.bin().join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The PATH the binary sees: stand-ins first, then the system's basic directories only,
    /// so no locally installed `claude` or `codex` leaks into a test.
    pub fn path_var(&self) -> String {
        let mut parts: Vec<String> =
            self.path_prefix.iter().map(|p| p.display().to_string()).collect();
        parts.push(self.bin().display().to_string());
        parts.push("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_string());
        parts.join(":")
    }

    /// The real binary with a cleared environment, HOME in the temp dir, cwd the project.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::cargo_bin("agentguard").unwrap();
        cmd.env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path_var())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .current_dir(self.project());
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        cmd
    }
}

/// Path of a file under `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The directory holding a pinned agent CLI installed by `scripts/install-clis.sh`, found
/// through `var` (set by `scripts/test.sh`). Under `CI=true` a missing CLI fails the test
/// loudly; elsewhere the test is skipped with a message on stderr (returns None).
pub fn cli_bin_dir(var: &str, cli: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from);
    if let Some(dir) = dir.filter(|d| d.join(cli).exists()) {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("`{cli}` not found through ${var}: run the suite with scripts/test.sh, which installs it");
    }
    eprintln!(
        "SKIPPED: `{cli}` not found through ${var}; run scripts/test.sh to install the pinned CLIs"
    );
    None
}

/// The bin directory of the pinned claude, codex, opencode, gemini and xAI grok CLIs.
pub fn agent_cli_dir(cli: &str) -> Option<PathBuf> {
    cli_bin_dir("AGENTGUARD_TEST_CLI_BIN", cli)
}
