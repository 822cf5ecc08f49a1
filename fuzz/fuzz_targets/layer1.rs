//! Layer 1 on arbitrary UTF-8: the gated trigger search (literal gates, then only the triggers
//! whose gates occur) must hit exactly what running every trigger of every built-in detector
//! in order hits, with the same first trigger and match. A gate that misses a match shows here.
#![no_main]

use std::sync::OnceLock;

use agentguard::config::Config;
use agentguard::detectors::{Detector, Detectors, TriggerHit, TriggerSet};
use libfuzzer_sys::fuzz_target;
use regex::{Regex, RegexSet};

struct Fixture {
    set: TriggerSet<'static>,
    every_trigger: RegexSet,
    /// For each pattern of `every_trigger`: its detector, its index there, the regex.
    owners: Vec<(usize, usize, Regex)>,
}

fn fixture() -> &'static Fixture {
    static DETECTORS: OnceLock<Detectors> = OnceLock::new();
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let detectors = DETECTORS
            .get_or_init(|| Detectors::load(&Config::defaults().detectors).expect("built-in detectors"));
        let all: Vec<&'static Detector> = detectors.list.iter().collect();
        let mut owners = Vec::new();
        for (d, detector) in all.iter().enumerate() {
            for (t, pattern) in detector.triggers.iter().enumerate() {
                owners.push((d, t, Regex::new(pattern).expect("built-in trigger")));
            }
        }
        let every_trigger = RegexSet::new(owners.iter().map(|(_, _, re)| re.as_str()))
            .expect("built-in triggers");
        Fixture {
            set: TriggerSet::new(&all).expect("trigger set"),
            every_trigger,
            owners,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fixture = fixture();
    let matched = fixture.every_trigger.matches(text);
    let mut expected: Vec<TriggerHit> = Vec::new();
    for index in matched.iter() {
        let (detector, trigger, regex) = &fixture.owners[index];
        if expected.last().is_some_and(|hit| hit.detector == *detector) {
            continue;
        }
        let found = regex.find(text).expect("the set said it matches");
        expected.push(TriggerHit {
            detector: *detector,
            trigger: *trigger,
            start: found.start(),
            end: found.end(),
        });
    }
    assert_eq!(fixture.set.hits(text).expect("hits"), expected, "{text:?}");
});
