//! Running a judge subprocess under a hard deadline.
//!
//! The child gets its own process group, an empty temporary working directory, the
//! recursion-guard variable, and stdin either fed explicitly or closed. On expiry the whole
//! group is killed (a CLI judge spawns helpers of its own); after a normal exit the group is
//! killed too, so nothing the judge started outlives the call.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::BackendError;

/// The variable every judge subprocess gets; `agentguard hook` allows at once when it sees it.
pub const JUDGE_ACTIVE_VAR: &str = "AGENTGUARD_JUDGE_ACTIVE";

#[derive(Debug)]
pub struct ProcessOutput {
    pub stdout: String,
    pub stderr: String,
}

/// Runs `argv` in `workdir`, feeding `stdin` (or none), until it exits or `deadline` passes.
pub fn run(
    argv: &[String],
    stdin: Option<&[u8]>,
    workdir: &Path,
    deadline: Instant,
) -> Result<ProcessOutput, BackendError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| BackendError::Spawn("empty command".into()))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(workdir)
        .env(JUDGE_ACTIVE_VAR, "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command
        .spawn()
        .map_err(|err| BackendError::Spawn(format!("cannot start `{program}`: {err}")))?;
    let group = child.id() as i32;

    let writer = stdin.map(|input| {
        let mut pipe = child.stdin.take().expect("stdin was piped");
        let input = input.to_vec();
        // A judge that exits without reading its stdin closes the pipe: that is not our error.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        })
    });
    let stdout = read_in_background(child.stdout.take().expect("stdout was piped"));
    let stderr = read_in_background(child.stderr.take().expect("stderr was piped"));

    // A waiter thread reaps the child the moment it exits: polling would add its interval to
    // every judge call.
    let (exited, exit) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = exited.send(());
        status
    });
    let finished = exit
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .is_ok();
    // Whether it finished or not, nothing it started may outlive the call.
    kill_group(group);
    let status = match waiter.join() {
        Ok(Ok(status)) => finished.then_some(status),
        Ok(Err(err)) => {
            return Err(BackendError::Spawn(format!(
                "waiting for `{program}`: {err}"
            )));
        }
        Err(_) => {
            return Err(BackendError::Spawn(format!(
                "waiting for `{program}` failed"
            )));
        }
    };
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        None => Err(BackendError::Timeout),
        Some(status) if status.success() => Ok(ProcessOutput { stdout, stderr }),
        Some(status) => Err(BackendError::Exit {
            code: status.code(),
            stderr: last_line(&stderr),
        }),
    }
}

/// Reads a pipe to its end on a thread. The result is collected with a short grace period: a
/// descendant that escaped the process group could hold the pipe open forever, and the hook
/// must not wait for it.
fn read_in_background(mut pipe: impl Read + Send + 'static) -> PipeReader {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    PipeReader(receiver)
}

struct PipeReader(std::sync::mpsc::Receiver<String>);

impl PipeReader {
    fn join(self) -> Option<String> {
        self.0.recv_timeout(Duration::from_millis(500)).ok()
    }
}

fn kill_group(group: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created for the child.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

fn last_line(text: &str) -> String {
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let end = line.floor_char_boundary(300);
    line[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn feeds_stdin_and_sets_the_guard() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(
            &sh("cat; echo \" $AGENTGUARD_JUDGE_ACTIVE $(pwd)\""),
            Some(b"hello"),
            dir.path(),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        let expected = format!("hello 1 {}", dir.path().canonicalize().unwrap().display());
        assert_eq!(out.stdout.trim(), expected);
    }

    #[test]
    fn closed_stdin_reads_eof() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(
            &sh("wc -c"),
            None,
            dir.path(),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.stdout.trim(), "0");
    }

    #[test]
    fn nonzero_exit_reports_the_last_stderr_line() {
        let dir = tempfile::tempdir().unwrap();
        let err = run(
            &sh("echo first >&2; echo boom >&2; exit 3"),
            None,
            dir.path(),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap_err();
        assert_eq!(
            err,
            BackendError::Exit {
                code: Some(3),
                stderr: "boom".into()
            }
        );
    }

    #[test]
    fn deadline_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-pid");
        let script = format!("sleep 30 & echo $! > {}; wait", marker.display());
        let err = run(
            &sh(&script),
            None,
            dir.path(),
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err();
        assert_eq!(err, BackendError::Timeout);
        let pid: i32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SIGKILL is delivered asynchronously: give the kernel a moment, then the grandchild
        // must be gone (or a zombie waiting for init to reap it).
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|stat| !stat.contains(") Z "))
                .unwrap_or(false)
        };
        let gone_by = Instant::now() + Duration::from_secs(5);
        while running() && Instant::now() < gone_by {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(), "grandchild {pid} survived the deadline");
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = run(
            &["/nonexistent/judge".to_string()],
            None,
            dir.path(),
            Instant::now() + Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(matches!(err, BackendError::Spawn(_)));
    }
}
