//! `Formula::parse` on arbitrary text, then `eval` on every truth assignment of a few fields.
#![no_main]

use std::collections::BTreeMap;

use agentguard::formula::Formula;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let known: Vec<String> = ["a", "b", "c", "new_proposal", "retraction_or_quote"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let Ok(formula) = Formula::parse(text, &known) else {
        return;
    };
    for bits in 0u32..(1 << known.len()) {
        let fields: BTreeMap<String, bool> = known
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), bits & (1 << i) != 0))
            .collect();
        let value = formula.eval(&fields);
        // Parsing is deterministic: the same text evaluates the same way.
        let again = Formula::parse(text, &known).expect("parsed once, parses again");
        assert_eq!(value, again.eval(&fields));
    }
});
