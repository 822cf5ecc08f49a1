//! An isolated environment for running the real binary: a temporary HOME and TMPDIR, a
//! cleared environment, and helpers to write files into it. Every process a test starts
//! through [`Env`] writes only there (the agent CLIs too: Claude Code puts its
//! `claude-<uid>/` session files under TMPDIR), and the whole directory goes when the test
//! ends.

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
        let dir = tempfile::Builder::new()
            .prefix("agentguard-test-")
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        Env {
            dir,
            path_prefix: Vec::new(),
            vars: Vec::new(),
        }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// The TMPDIR of every process the test starts.
    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
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
        self.vars
            .push((key.to_string(), value.as_ref().to_string()));
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
        let mut parts: Vec<String> = self
            .path_prefix
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        parts.push(self.bin().display().to_string());
        parts.push("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_string());
        parts.join(":")
    }

    /// The real binary with a cleared environment, HOME in the temp dir, cwd the project.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::cargo_bin("agentguard").unwrap();
        cmd.env_clear()
            .env("HOME", self.home())
            .env("TMPDIR", self.tmp())
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

/// Process output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Path of a file under `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The suite runs as CI runs it (`CI=true`): missing outside material fails instead of being
/// skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|ci| ci == "true")
}

/// The directory holding a pinned agent CLI installed by `scripts/install-clis.sh`, found
/// through `var` (set by `scripts/test.sh`). Under `CI=true` a missing CLI fails the test
/// loudly; elsewhere the test is skipped with a message on stderr (returns None).
pub fn cli_bin_dir(var: &str, cli: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from);
    if let Some(dir) = dir.filter(|d| d.join(cli).exists()) {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "`{cli}` not found through ${var}: run the suite with scripts/test.sh, which installs it"
        );
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

/// One HTTP request as a loopback stub received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What a stub answers.
pub struct Reply {
    pub status: u16,
    pub body: String,
    /// Wait this long before answering (a slow server).
    pub delay: std::time::Duration,
}

impl Reply {
    pub fn json(body: serde_json::Value) -> Reply {
        Reply {
            status: 200,
            body: body.to_string(),
            delay: std::time::Duration::ZERO,
        }
    }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers every request with `handler` and records
/// the requests. It stops when dropped.
pub struct HttpStub {
    pub url: String,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<Request>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl HttpStub {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> HttpStub {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let handler = std::sync::Arc::new(handler);
        let (recorded, stopping) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                let stream = match listener.accept() {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        continue;
                    }
                };
                let (handler, recorded) = (handler.clone(), recorded.clone());
                std::thread::spawn(move || {
                    stream.set_nonblocking(false).unwrap();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut parts = line.split_whitespace();
                    let method = parts.next().unwrap_or("").to_string();
                    let path = parts.next().unwrap_or("").to_string();
                    let mut headers = Vec::new();
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        if let Some((k, v)) = header.split_once(':') {
                            headers.push((k.trim().to_string(), v.trim().to_string()));
                        }
                    }
                    let length = headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                        .and_then(|(_, v)| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let request = Request {
                        method,
                        path,
                        headers,
                        body: String::from_utf8_lossy(&body).into(),
                    };
                    recorded.lock().unwrap().push(request.clone());
                    let reply = handler(&request);
                    std::thread::sleep(reply.delay);
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                        reply.status,
                        reply.body.len(),
                        reply.body
                    );
                });
            }
        });
        HttpStub {
            url,
            requests,
            stop,
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for HttpStub {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Parses the command's stdout as one JSON value.
pub fn stdout_json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// How long a real agent CLI may run in a test: generous, because the machine is shared; a
/// guard against a hung client, not a speed check.
pub const CLIENT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// What a bounded run printed, and how it ended.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn output(&self) -> String {
        format!("stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr)
    }
}

impl Env {
    /// `program` with the same isolation as [`Env::cmd`] (cleared environment, temp HOME, PATH
    /// with the stand-ins first, cwd the project), stdin closed, in its own process group.
    pub fn isolated(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        args: &[&str],
    ) -> std::process::Command {
        use std::os::unix::process::CommandExt;
        use std::process::Stdio;
        let mut cmd = std::process::Command::new(program);
        cmd.args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("TMPDIR", self.tmp())
            .env("PATH", self.path_var())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .current_dir(self.project())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for (key, value) in &self.vars {
            cmd.env(key, value);
        }
        cmd
    }

    /// The agentguard binary under test, isolated as [`Env::isolated`].
    pub fn agentguard(&self, args: &[&str]) -> std::process::Command {
        self.isolated(env!("CARGO_BIN_EXE_agentguard"), args)
    }
}

/// Runs `cmd` (made by [`Env::isolated`]) to its end, feeding `stdin` if given; past
/// [`CLIENT_DEADLINE`] its whole process group is killed and the test fails with what it
/// printed so far. The group is killed after a normal exit too, so nothing it left running
/// holds the pipes open.
pub fn run_bounded(mut cmd: std::process::Command, stdin: Option<&str>) -> Outcome {
    use std::io::Read;
    if stdin.is_some() {
        cmd.stdin(std::process::Stdio::piped());
    }
    let mut child = cmd.spawn().expect("spawn");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut pipe, text.as_bytes()).unwrap();
    }
    let pipes = [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()) as Box<dyn Read + Send>,
    ];
    let readers: Vec<_> = pipes
        .into_iter()
        .map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                let _ = pipe.read_to_end(&mut text);
                String::from_utf8_lossy(&text).into_owned()
            })
        })
        .collect();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > CLIENT_DEADLINE {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // SAFETY: signals only the process group this test started.
    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait();
    let mut texts = readers.into_iter().map(|r| r.join().unwrap());
    let outcome = Outcome {
        code: status.and_then(|s| s.code()),
        stdout: texts.next().unwrap(),
        stderr: texts.next().unwrap(),
    };
    assert!(
        status.is_some(),
        "killed after {CLIENT_DEADLINE:?}:\n{}",
        outcome.output()
    );
    outcome
}

/// Spawns `cmd` (from [`Env::isolated`]) with a pseudo-terminal as its stdin, stderr piped.
/// Returns the child and the terminal's master side, which must stay open while it runs.
pub fn spawn_on_pty(mut cmd: std::process::Command) -> (std::process::Child, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors; the name, termios and winsize are optional.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    cmd.stdin(slave).stderr(std::process::Stdio::piped());
    (cmd.spawn().expect("spawn"), master)
}

/// Reads `pipe` until `needle` appears or `limit` passes; returns what was read.
pub fn read_until(
    mut pipe: impl std::io::Read + Send + 'static,
    needle: &str,
    limit: std::time::Duration,
) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let started = std::time::Instant::now();
    let mut text = Vec::new();
    while started.elapsed() < limit {
        match rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(chunk) => text.extend(chunk),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if String::from_utf8_lossy(&text).contains(needle) {
            break;
        }
    }
    String::from_utf8_lossy(&text).into_owned()
}
