//! The redactor on arbitrary text: it must not panic, and what it redacted must be gone.
#![no_main]

use agentguard::redact::Redactor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let redactor = Redactor::builtin();
    let redacted = redactor.redact(&text);
    // Redaction is idempotent: a second pass finds nothing new to count.
    let again = redactor.redact(&redacted.text);
    assert_eq!(again.text, redacted.text, "a second pass changed the text");
});
