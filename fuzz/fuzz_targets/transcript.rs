//! `transcript::current_turn_text` on arbitrary file bytes, then `stop_text`. The first two
//! bytes choose `max_bytes`; the text after the last NUL is the `last_assistant_message`.
#![no_main]

use std::io::Write;

use agentguard::transcript;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let max_bytes = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let body = &data[2..];
    let (file_bytes, last) = match body.iter().rposition(|&b| b == 0) {
        Some(nul) => (
            &body[..nul],
            Some(String::from_utf8_lossy(&body[nul + 1..])),
        ),
        None => (body, None),
    };
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(file_bytes).expect("write temp file");
    let turn = transcript::current_turn_text(file.path(), max_bytes).ok();
    let text = transcript::stop_text(turn, last.as_deref());
    let _ = agentguard::text::tail(&text, max_bytes);
});
