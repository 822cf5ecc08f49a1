//! The judge-reply JSON extractor on arbitrary replies.
#![no_main]

use agentguard::pipeline::reply::parse_reply;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(reply) = std::str::from_utf8(data) else {
        return;
    };
    let fields = vec![
        "new_proposal".to_string(),
        "verification_reported".to_string(),
    ];
    if let Ok(parsed) = parse_reply(reply, &fields) {
        assert_eq!(parsed.fields.len(), fields.len());
    }
});
