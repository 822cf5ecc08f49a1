//! The config loader with a fuzzed user layer over the embedded defaults, then the detectors
//! built from it, their patterns compiled and their Layer 1 run on a short text.
#![no_main]

use agentguard::config::{Config, DEFAULT_CONFIG, Source};
use agentguard::detectors::{Detectors, Event};
use agentguard::pipeline::Pipeline;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(user) = std::str::from_utf8(data) else {
        return;
    };
    let layers = [
        (Source::Defaults, DEFAULT_CONFIG.to_string()),
        (Source::File("/fuzz/config.toml".into()), user.to_string()),
    ];
    let Ok(config) = Config::from_layers(&layers) else {
        return;
    };
    let _ = config.to_toml();
    let _ = config.get("judge.backend");
    let Ok(detectors) = Detectors::load(&config.detectors) else {
        return;
    };
    let _ = detectors.check_patterns();
    for event in [Event::Stop, Event::PreTool] {
        let Ok(selected) = detectors.select(event, &[]) else {
            continue;
        };
        if let Ok(pipeline) = Pipeline::new(selected) {
            let _ = pipeline.layer1("Tests pass. Shall I commit and push? rm -rf / コミット");
        }
    }
});
