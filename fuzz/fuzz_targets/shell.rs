//! The shell-command classifier and the command views on arbitrary text.
#![no_main]

use std::sync::Once;

use agentguard::shell;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // brush-parser panics on some inputs (an fd number that overflows, for one); agentguard
    // catches those panics and refuses the command as unparseable. libfuzzer-sys's panic hook
    // would abort on the caught panic too, so it is replaced by a silent one: a panic that
    // escapes `shell::*` still unwinds into libfuzzer-sys, which reports it as a crash.
    static QUIET: Once = Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let _ = shell::classify_read_only(command);
    let _ = shell::dangerous(command);
});
