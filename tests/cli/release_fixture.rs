//! A fake release channel on loopback: a tiny HTTP/1.1 server, release archives holding a stand-in
//! `agentguard` shell script, and their `SHA256SUMS`. Used by the self-update and install.sh tests.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

/// Serves fixed bodies by path (query strings ignored) and records every requested path.
pub struct ReleaseServer {
    pub base_url: String,
    routes: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl ReleaseServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let routes: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let (thread_routes, thread_requests) = (routes.clone(), requests.clone());
        // The thread lives until the test process exits; each test has its own port.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                respond(stream, &thread_routes, &thread_requests);
            }
        });
        ReleaseServer {
            base_url,
            routes,
            requests,
        }
    }

    pub fn serve(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.routes
            .lock()
            .unwrap()
            .insert(path.to_string(), body.into());
    }

    /// Every path requested so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn respond(
    mut stream: TcpStream,
    routes: &Mutex<HashMap<String, Vec<u8>>>,
    requests: &Mutex<Vec<String>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split('?').next().unwrap_or(target).to_string();
    requests.lock().unwrap().push(path.clone());
    let body = routes.lock().unwrap().get(&path).cloned();
    let (status, body) = match body {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"{\"message\":\"Not Found\"}".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

/// A stand-in `agentguard` for release archives: prints its version, records `install` calls in
/// `$HOME/fake-agentguard-calls`.
pub fn fake_binary(version: &str) -> String {
    format!(
        "#!/bin/sh\n\
         case \"$1\" in\n\
         --version) echo \"agentguard {version}\" ;;\n\
         install) echo \"$*\" >> \"$HOME/fake-agentguard-calls\"; echo \"hooks installed\" ;;\n\
         *) echo \"agentguard {version} (fake): $*\" ;;\n\
         esac\n"
    )
}

/// A release archive as published: `agentguard-<v>-<target>.tar.gz` holding
/// `agentguard-<v>-<target>/agentguard`. Built with the system `tar`.
pub struct Archive {
    pub name: String,
    pub bytes: Vec<u8>,
}

pub fn archive(version: &str, target: &str, binary: &str) -> Archive {
    use std::os::unix::fs::PermissionsExt;
    let stem = format!("agentguard-{version}-{target}");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join(&stem);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("agentguard");
    std::fs::write(&exe, binary).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let name = format!("{stem}.tar.gz");
    let status = std::process::Command::new("tar")
        .arg("-czf")
        .arg(work.path().join(&name))
        .arg("-C")
        .arg(work.path())
        .arg(&stem)
        .status()
        .unwrap();
    assert!(status.success(), "tar failed");
    let bytes = std::fs::read(work.path().join(&name)).unwrap();
    Archive { name, bytes }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A `SHA256SUMS` line for each (name, bytes), coreutils format.
pub fn sums(entries: &[(&str, &[u8])]) -> String {
    entries
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", sha256_hex(bytes)))
        .collect()
}

/// The target triple this build of agentguard looks for in releases.
pub fn host_target() -> &'static str {
    self_update::get_target()
}

/// Copies the freshly built agentguard into `dir` (so self-update replaces the copy, not the
/// build output) and returns its path.
pub fn copy_of_agentguard(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let copy = dir.join("agentguard");
    std::fs::copy(assert_cmd::cargo::cargo_bin("agentguard"), &copy).unwrap();
    copy
}
