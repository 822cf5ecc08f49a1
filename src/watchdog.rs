//! A deadline for the whole process: a hook must answer before its host gives up on it, whatever
//! an input does to the shell parser (on some inputs its backtracking grows exponentially).
//!
//! The work runs on the calling thread; a watchdog thread sleeps until the deadline and, if the
//! work has not finished, runs the caller's answer in the failure direction (which prints and
//! exits the process). While a watchdog is armed the shell analysis runs inline instead of on
//! its own budgeted thread (`shell::walk::analyze`): a thread that only sleeps costs a fraction
//! of one that does the work, which starts cold on the other core, in a fresh malloc arena,
//! and makes a compound command's hook call about 40% slower.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How many watchdogs cover this process now.
static ARMED: AtomicUsize = AtomicUsize::new(0);

/// A running deadline; dropping it ends it.
#[must_use = "a watchdog ends when it is dropped"]
pub struct Watchdog {
    /// Set by whichever side answers first: the work (ending the deadline) or the watchdog
    /// (past it). `None` when no thread could be started.
    answered: Option<Arc<AtomicBool>>,
}

impl Watchdog {
    /// Starts a deadline of `budget`: past it, `on_expiry` runs on the watchdog thread. It is
    /// expected to answer for the process and exit; the work never answers after it started.
    /// Without a thread to spare nothing is armed, and the analysis keeps its own budget.
    pub fn arm(budget: Duration, on_expiry: impl FnOnce() + Send + 'static) -> Watchdog {
        let answered = Arc::new(AtomicBool::new(false));
        let expired = Arc::clone(&answered);
        // The thread only sleeps: ending the deadline does not wake it (waking it, and its
        // exit, would cost the hook more than the sleep), and the process usually ends first.
        let spawned = std::thread::Builder::new().spawn(move || {
            std::thread::sleep(budget);
            if !expired.swap(true, Ordering::SeqCst) {
                on_expiry();
            }
        });
        let answered = spawned.is_ok().then(|| {
            ARMED.fetch_add(1, Ordering::SeqCst);
            answered
        });
        Watchdog { answered }
    }
}

/// Ends the deadline. If the watchdog has already started answering, this never returns: the
/// process ends with the watchdog's answer, and a second answer would contradict it.
impl Drop for Watchdog {
    fn drop(&mut self) {
        let Some(answered) = self.answered.take() else {
            return;
        };
        if answered.swap(true, Ordering::SeqCst) {
            loop {
                std::thread::park();
            }
        }
        ARMED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether a watchdog covers this process, so that long work needs no deadline of its own.
pub fn armed() -> bool {
    ARMED.load(Ordering::SeqCst) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn work_that_finishes_in_time_is_never_answered_for() {
        let (expired, expiries) = mpsc::channel();
        let watchdog = Watchdog::arm(Duration::from_millis(50), move || {
            let _ = expired.send(());
        });
        assert!(armed());
        drop(watchdog);
        // Past the deadline the watchdog thread ends, dropping its answer unused.
        assert_eq!(
            expiries.recv_timeout(Duration::from_secs(10)),
            Err(mpsc::RecvTimeoutError::Disconnected),
            "the watchdog ended without answering"
        );
    }

    #[test]
    fn work_past_its_deadline_is_answered_for_by_the_watchdog() {
        let (expired, expiries) = mpsc::channel();
        let watchdog = Watchdog::arm(Duration::from_millis(20), move || {
            let _ = expired.send("answered");
        });
        assert_eq!(
            expiries.recv_timeout(Duration::from_secs(5)),
            Ok("answered")
        );
        // Ending it now would wait forever, as work that lost the race must.
        std::mem::forget(watchdog);
    }
}
