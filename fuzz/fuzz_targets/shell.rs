//! The shell-command classifier and the command views on arbitrary text.
#![no_main]

use agentguard::shell;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let _ = shell::classify_read_only(command);
    let _ = shell::command_views(command);
});
