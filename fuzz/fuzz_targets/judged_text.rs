//! The judged-text window on arbitrary UTF-8, with window sizes and a hit range at character
//! boundaries chosen by the first bytes.
#![no_main]

use agentguard::pipeline::{Window, judged_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let Ok(text) = std::str::from_utf8(&data[6..]) else {
        return;
    };
    let number = |i: usize| usize::from(u16::from_le_bytes([data[i], data[i + 1]]));
    let window = Window {
        bytes: number(0) % (text.len() + 64),
        excerpt_bytes: number(2) % 2048,
    };
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let a = boundaries[number(4) % boundaries.len()];
    let b = boundaries[usize::from(data[5]) * 7 % boundaries.len()];
    let (start, end) = (a.min(b), a.max(b));
    let judged = judged_text(text, window, start, end);
    if start >= text.len().saturating_sub(window.bytes) {
        assert!(judged.len() <= window.bytes.max(text.len() - start));
    }
});
