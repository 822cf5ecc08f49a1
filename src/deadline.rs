//! A deadline for the PreToolUse decision: a hook must answer before its host gives up on it,
//! whatever an input does to the shell parser (on some inputs its backtracking grows
//! exponentially with the nesting).
//!
//! The decision runs on the calling thread under a real-time timer (`setitimer`). If the timer
//! fires first, its signal handler writes the answer and the log line rendered in advance and
//! ends the process. A handler may only make system calls (no allocation, no lock), hence the
//! rendering ahead of time. While a deadline is armed the shell analysis runs inline instead
//! of on its own budgeted thread (`shell::walk::analyze`): a thread costs more than the timer
//! by far, since it starts cold on the other core, in a fresh malloc arena.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

/// What the signal handler answers; null when no deadline is running.
static EXPIRY: AtomicPtr<Expiry> = AtomicPtr::new(std::ptr::null_mut());

/// The process's answer past the deadline, rendered ahead of time.
pub struct Expiry {
    /// Written to stdout.
    answer: Vec<u8>,
    /// The directories to create, outermost first, then the log file and its line.
    log: Option<(Vec<CString>, CString, Vec<u8>)>,
}

impl Expiry {
    /// `answer` goes to stdout (a newline is added).
    pub fn new(answer: &str) -> Expiry {
        let mut answer = answer.as_bytes().to_vec();
        answer.push(b'\n');
        Expiry { answer, log: None }
    }

    /// And `line` is appended to the log file `file` (0600), in `dir` (created 0700).
    pub fn with_log(mut self, dir: &Path, file: &Path, line: Vec<u8>) -> Expiry {
        let dirs = dir
            .ancestors()
            .collect::<Vec<&Path>>()
            .into_iter()
            .rev()
            .map(c_path)
            .collect::<Option<Vec<CString>>>();
        self.log = dirs
            .zip(c_path(file))
            .map(|(dirs, file)| (dirs, file, line));
        self
    }
}

fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

/// A running deadline; dropping it ends it.
#[must_use = "a deadline ends when it is dropped"]
pub struct Deadline {
    armed: bool,
}

impl Deadline {
    /// Starts a deadline of `budget`: past it the process answers `expiry` and exits 0. When
    /// the timer cannot be set nothing is armed, and the shell analysis keeps its own budget.
    pub fn arm(budget: Duration, expiry: Expiry) -> Deadline {
        let expiry = Box::into_raw(Box::new(expiry));
        // One deadline at a time: a second one would answer for the first.
        let exchanged = EXPIRY.compare_exchange(
            std::ptr::null_mut(),
            expiry,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        if exchanged.is_err() {
            free(expiry);
            return Deadline { armed: false };
        }
        if !install_handler() || !set_timer(budget) {
            free(EXPIRY.swap(std::ptr::null_mut(), Ordering::SeqCst));
            return Deadline { armed: false };
        }
        Deadline { armed: true }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        // Taken before the timer stops: a signal already on its way finds nothing to answer.
        let expiry = EXPIRY.swap(std::ptr::null_mut(), Ordering::SeqCst);
        set_timer(Duration::ZERO);
        free(expiry);
    }
}

/// Whether a deadline covers this process, so that long work needs no budget of its own.
pub fn armed() -> bool {
    !EXPIRY.load(Ordering::SeqCst).is_null()
}

fn free(expiry: *mut Expiry) {
    if !expiry.is_null() {
        // SAFETY: every non-null pointer in EXPIRY comes from Box::into_raw and is swapped
        // out exactly once.
        drop(unsafe { Box::from_raw(expiry) });
    }
}

fn install_handler() -> bool {
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; the handler has the
    // signature sigaction(2) expects for a handler without SA_SIGINFO.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_expiry as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) == 0
    }
}

/// Sets the real-time timer to fire once after `after` (zero stops it).
fn set_timer(after: Duration) -> bool {
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: after.as_secs() as libc::time_t,
            tv_usec: after.subsec_micros() as libc::suseconds_t,
        },
    };
    // SAFETY: plain system call with a valid itimerval.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) == 0 }
}

/// The SIGALRM handler: only async-signal-safe system calls on data rendered in advance.
extern "C" fn on_expiry(_signal: libc::c_int) {
    let expiry = EXPIRY.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if expiry.is_null() {
        return;
    }
    // SAFETY: the pointer came from Box::into_raw and was taken out of EXPIRY by this swap
    // only; it is never freed, since the process ends here.
    let expiry = unsafe { &*expiry };
    unsafe {
        if let Some((dirs, path, line)) = &expiry.log {
            for dir in dirs {
                libc::mkdir(dir.as_ptr(), 0o700);
            }
            let fd = libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            );
            if fd >= 0 {
                libc::flock(fd, libc::LOCK_EX);
                write_all(fd, line);
                libc::close(fd);
            }
        }
        write_all(libc::STDOUT_FILENO, &expiry.answer);
        libc::_exit(0);
    }
}

/// write(2) until all of `bytes` is written or the descriptor fails.
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe a live slice.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written <= 0 {
            return;
        }
        bytes = &bytes[written as usize..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer_left() -> Duration {
        // SAFETY: plain system call filling a valid itimerval.
        let mut timer: libc::itimerval = unsafe { std::mem::zeroed() };
        unsafe { libc::getitimer(libc::ITIMER_REAL, &mut timer) };
        Duration::new(
            timer.it_value.tv_sec as u64,
            timer.it_value.tv_usec as u32 * 1000,
        )
    }

    #[test]
    fn a_deadline_runs_until_it_is_dropped_and_only_one_at_a_time() {
        let deadline = Deadline::arm(Duration::from_secs(600), Expiry::new("{}"));
        assert!(deadline.armed && armed());
        assert!(
            timer_left() > Duration::from_secs(500),
            "{:?}",
            timer_left()
        );
        let second = Deadline::arm(Duration::from_secs(600), Expiry::new("{}"));
        assert!(!second.armed, "a second deadline is refused");
        drop(second);
        assert!(armed(), "refusing the second one leaves the first running");
        drop(deadline);
        assert!(!armed());
        assert_eq!(timer_left(), Duration::ZERO, "the timer is stopped");
    }

    #[test]
    fn the_expiry_is_rendered_for_system_calls_only() {
        let expiry = Expiry::new("{\"ok\":1}").with_log(
            Path::new("/tmp/a/b"),
            Path::new("/tmp/a/b/decisions.jsonl"),
            b"{\"action\":\"ask\"}\n".to_vec(),
        );
        assert_eq!(expiry.answer, b"{\"ok\":1}\n");
        let (dirs, path, line) = expiry.log.unwrap();
        let dirs: Vec<&str> = dirs.iter().map(|d| d.to_str().unwrap()).collect();
        assert_eq!(dirs, ["/", "/tmp", "/tmp/a", "/tmp/a/b"], "outermost first");
        assert_eq!(path.to_str().unwrap(), "/tmp/a/b/decisions.jsonl");
        assert_eq!(line, b"{\"action\":\"ask\"}\n");
    }
}
