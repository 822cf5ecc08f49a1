//! Detectors as data: the built-ins are TOML files in `assets/detectors/`, embedded at build
//! time; users add or override detectors with `[[detectors]]` entries of the same schema.
//!
//! Loading is cheap on purpose (a hook runs it on every stop): the formula is parsed and the
//! fields checked at load, while regexes are compiled on first use. `Detectors::check_patterns`
//! compiles everything, for `judge`, `doctor` and `config show`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet};
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::formula::Formula;

/// The built-in detectors, in the order they are reported.
const BUILTIN: &[(&str, &str)] = &[
    ("commit", include_str!("../assets/detectors/commit.toml")),
    (
        "scope-check",
        include_str!("../assets/detectors/scope-check.toml"),
    ),
    (
        "scope-change",
        include_str!("../assets/detectors/scope-change.toml"),
    ),
    (
        "shallow-bugfix",
        include_str!("../assets/detectors/shallow-bugfix.toml"),
    ),
    (
        "bugfix-without-reproduction",
        include_str!("../assets/detectors/bugfix-without-reproduction.toml"),
    ),
    (
        "destructive",
        include_str!("../assets/detectors/destructive.toml"),
    ),
];

/// The hook event a detector reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    /// Stop and SubagentStop: the agent's final words.
    Stop,
    /// PreToolUse: a shell command about to run.
    PreTool,
}

/// One detector as written in TOML. In a user `[[detectors]]` entry only `name` is required:
/// for a built-in name the given keys override the built-in's, `enabled = false` disables it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorSpec {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
    /// Layer 1: any match is a hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<String>>,
    /// Layer 1: a match allows without the judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skips: Option<Vec<String>>,
    /// The boolean fields the judge returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Formula over `fields`; true blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_when: Option<String>,
    /// What the judge must decide (wrapped by the pipeline with the anti-injection frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// What the agent is told on a block: what was found and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Cue patterns per field, for the offline `rules` judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<BTreeMap<String, Vec<String>>>,
}

impl DetectorSpec {
    fn override_with(&mut self, other: &DetectorSpec) {
        macro_rules! take {
            ($($field:ident),*) => { $( if other.$field.is_some() { self.$field = other.$field.clone(); } )* };
        }
        take!(
            enabled,
            description,
            events,
            triggers,
            skips,
            fields,
            block_when,
            prompt,
            feedback,
            rules
        );
    }
}

#[derive(Debug)]
pub struct Detector {
    pub name: String,
    pub description: String,
    pub events: Vec<Event>,
    pub triggers: Vec<String>,
    pub skips: Vec<String>,
    pub fields: Vec<String>,
    pub block_when: String,
    pub formula: Formula,
    pub prompt: String,
    pub feedback: String,
    pub rules: Vec<(String, Vec<String>)>,
    compiled: OnceLock<std::result::Result<Compiled, String>>,
}

/// The regexes of a detector beyond the Layer 1 trigger set, compiled on first use.
#[derive(Debug)]
pub struct Compiled {
    pub triggers: Vec<Regex>,
    pub skips: Vec<Regex>,
    pub rules: Vec<(String, Vec<Regex>)>,
}

impl Detector {
    fn from_spec(spec: DetectorSpec) -> Result<Detector> {
        let name = spec.name.clone();
        let missing = |key: &str| {
            Error::config(format!("detector `{name}`: missing `{key}`"))
                .with_hint("a new detector needs triggers, fields, block_when, prompt and feedback")
        };
        let fields = spec.fields.ok_or_else(|| missing("fields"))?;
        if fields.is_empty() {
            return Err(missing("fields"));
        }
        let block_when = spec.block_when.ok_or_else(|| missing("block_when"))?;
        let formula = Formula::parse(&block_when, &fields).map_err(|err| {
            Error::config(format!(
                "detector `{name}`: block_when `{block_when}`: {err}"
            ))
        })?;
        let rules: Vec<(String, Vec<String>)> =
            spec.rules.unwrap_or_default().into_iter().collect();
        if let Some((field, _)) = rules.iter().find(|(field, _)| !fields.contains(field)) {
            return Err(Error::config(format!(
                "detector `{name}`: [rules] names unknown field `{field}` (fields: {})",
                fields.join(", ")
            )));
        }
        let triggers = spec.triggers.ok_or_else(|| missing("triggers"))?;
        if triggers.is_empty() {
            return Err(missing("triggers"));
        }
        Ok(Detector {
            description: spec.description.unwrap_or_default(),
            events: spec.events.unwrap_or_else(|| vec![Event::Stop]),
            triggers,
            skips: spec.skips.unwrap_or_default(),
            fields,
            block_when,
            formula,
            prompt: spec.prompt.ok_or_else(|| missing("prompt"))?,
            feedback: reflow(&spec.feedback.ok_or_else(|| missing("feedback"))?),
            rules,
            compiled: OnceLock::new(),
            name,
        })
    }

    /// The compiled triggers, skips and rule cues; an invalid pattern names the detector.
    pub fn compiled(&self) -> std::result::Result<&Compiled, String> {
        self.compiled
            .get_or_init(|| {
                let compile = |kind: &str, patterns: &[String]| {
                    patterns
                        .iter()
                        .map(|p| {
                            Regex::new(p).map_err(|err| {
                                format!(
                                    "detector `{}`: invalid {kind} pattern `{p}`: {err}",
                                    self.name
                                )
                            })
                        })
                        .collect::<std::result::Result<Vec<_>, _>>()
                };
                Ok(Compiled {
                    triggers: compile("trigger", &self.triggers)?,
                    skips: compile("skip", &self.skips)?,
                    rules: self
                        .rules
                        .iter()
                        .map(|(field, cues)| Ok((field.clone(), compile("rules", cues)?)))
                        .collect::<std::result::Result<_, String>>()?,
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The JSON schema of the judge's reply: every field a boolean, plus a short reason.
    pub fn reply_schema(&self) -> serde_json::Value {
        let mut properties = serde_json::Map::new();
        for field in &self.fields {
            properties.insert(field.clone(), serde_json::json!({"type": "boolean"}));
        }
        properties.insert("reason".into(), serde_json::json!({"type": "string"}));
        let mut required: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        required.push("reason");
        serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// Joins the lines of each paragraph: feedback is wrapped for reading in TOML, but the agent
/// and the user should get whole sentences.
fn reflow(text: &str) -> String {
    text.trim()
        .split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The enabled detectors, built-ins first, then user detectors in config order.
#[derive(Debug)]
pub struct Detectors {
    pub list: Vec<Detector>,
}

impl Detectors {
    pub fn load(config: &Config) -> Result<Detectors> {
        let mut specs: Vec<DetectorSpec> = BUILTIN
            .iter()
            .map(|(name, text)| {
                toml_edit::de::from_str::<DetectorSpec>(text).map_err(|err| {
                    Error::config(format!("built-in detector `{name}`: {}", err.message()))
                })
            })
            .collect::<Result<_>>()?;
        for entry in &config.detectors {
            match specs.iter_mut().find(|s| s.name == entry.name) {
                Some(existing) => existing.override_with(entry),
                None => specs.push(entry.clone()),
            }
        }
        let list = specs
            .into_iter()
            .filter(|spec| spec.enabled != Some(false))
            .map(Detector::from_spec)
            .collect::<Result<Vec<_>>>()?;
        Ok(Detectors { list })
    }

    pub fn get(&self, name: &str) -> Option<&Detector> {
        self.list.iter().find(|d| d.name == name)
    }

    /// The enabled detectors for `event`, optionally only those named in `only`.
    pub fn select(&self, event: Event, only: &[String]) -> Result<Vec<&Detector>> {
        self.named(only)?;
        Ok(self
            .list
            .iter()
            .filter(|d| d.events.contains(&event))
            .filter(|d| only.is_empty() || only.contains(&d.name))
            .collect())
    }

    /// The detectors named in `names`, in that order, whatever their event.
    pub fn named(&self, names: &[String]) -> Result<Vec<&Detector>> {
        names
            .iter()
            .map(|name| {
                self.get(name).ok_or_else(|| {
                    let known: Vec<&str> = self.list.iter().map(|d| d.name.as_str()).collect();
                    Error::usage(format!("no enabled detector named `{name}`"))
                        .with_hint(format!("enabled detectors: {}", known.join(", ")))
                })
            })
            .collect()
    }

    /// Compiles every pattern of every detector, reporting the first error.
    pub fn check_patterns(&self) -> Result<()> {
        for detector in &self.list {
            detector.compiled().map_err(Error::config)?;
        }
        Ok(())
    }
}

/// Every trigger of several detectors in one automaton: one pass over the text tells which
/// detectors hit (the common no-hit stop ends here).
///
/// A hook builds this on every call, and building costs far more than running it over a stop's
/// text. It is `regex::RegexSet` (same engine, same matches) minus the parts a set built for one
/// short text does not pay back: the literal prefilter (extracting case-folded prefix literals
/// from every trigger cost more than all else a no-hit stop does) and the capture engines.
pub struct TriggerSet {
    set: meta::Regex,
    /// For each pattern of `set`, the index of its detector in the slice given to `new`.
    owner: Vec<usize>,
}

impl TriggerSet {
    pub fn new(detectors: &[&Detector]) -> Result<TriggerSet> {
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        for (index, detector) in detectors.iter().enumerate() {
            for pattern in &detector.triggers {
                patterns.push(pattern.as_str());
                owner.push(index);
            }
        }
        // `regex::RegexSet`'s own configuration, then the costly optional parts switched off.
        let config = meta::Config::new()
            .nfa_size_limit(Some(10 << 20))
            .hybrid_cache_capacity(2 << 20)
            .match_kind(MatchKind::All)
            .utf8_empty(true)
            .which_captures(WhichCaptures::None)
            .auto_prefilter(false)
            .onepass(false)
            .backtrack(false);
        let set = meta::Builder::new()
            .configure(config)
            .syntax(syntax::Config::new().utf8(true))
            .build_many(&patterns)
            .map_err(|err| {
                // Name the detector whose pattern is wrong.
                let culprit = detectors.iter().find_map(|d| d.compiled().err());
                Error::config(culprit.unwrap_or_else(|| format!("invalid trigger pattern: {err}")))
            })?;
        Ok(TriggerSet { set, owner })
    }

    /// Indexes (into the slice given to `new`) of the detectors with at least one trigger match.
    pub fn hits(&self, text: &str) -> Vec<usize> {
        let mut matched = PatternSet::new(self.set.pattern_len());
        self.set
            .which_overlapping_matches(&Input::new(text), &mut matched);
        let mut hit: Vec<usize> = matched.iter().map(|p| self.owner[p.as_usize()]).collect();
        hit.dedup();
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::RegexSet;

    fn config_with(detectors_toml: &str) -> Result<Config> {
        Config::from_layers(&[
            (
                crate::config::Source::Defaults,
                crate::config::DEFAULT_CONFIG.to_string(),
            ),
            (
                crate::config::Source::File("user.toml".into()),
                detectors_toml.to_string(),
            ),
        ])
    }

    #[test]
    fn builtins_load_and_compile() {
        let detectors = Detectors::load(&Config::defaults()).unwrap();
        let names: Vec<_> = detectors.list.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "commit",
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction",
                "destructive"
            ]
        );
        detectors.check_patterns().unwrap();
        let stop = detectors.select(Event::Stop, &[]).unwrap();
        assert_eq!(stop.len(), 5);
        TriggerSet::new(&stop).unwrap();
    }

    #[test]
    fn builtin_triggers_use_only_ascii_word_boundaries() {
        // A Unicode `\b` makes the whole trigger set fall back to a slow engine as soon as a
        // text holds one non-ASCII character (hundreds of times slower on Japanese text).
        let detectors = Detectors::load(&Config::defaults()).unwrap();
        for detector in &detectors.list {
            for trigger in &detector.triggers {
                let bare = trigger.replace("(?-u:\\b)", "");
                assert!(
                    !bare.contains("\\b"),
                    "{}: Unicode \\b in {trigger}",
                    detector.name
                );
            }
        }
    }

    #[test]
    fn builtins_can_be_disabled_and_overridden() {
        let config = config_with(
            "[[detectors]]\nname = \"scope-check\"\nenabled = false\n\n\
             [[detectors]]\nname = \"commit\"\ntriggers = ['ship it']\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config).unwrap();
        assert!(detectors.get("scope-check").is_none());
        let commit = detectors.get("commit").unwrap();
        assert_eq!(commit.triggers, ["ship it"]);
        assert!(commit.formula.fields().contains(&"verification_reported"));
    }

    #[test]
    fn user_detector_with_unknown_formula_field_is_a_load_error() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['TODO']\nfields = ['a']\n\
             block_when = 'a && b'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let err = Detectors::load(&config).unwrap_err();
        assert!(err.message.contains("detector `todo`"), "{}", err.message);
        assert!(err.message.contains("unknown field `b`"), "{}", err.message);
    }

    #[test]
    fn user_detector_missing_keys_is_a_load_error() {
        let config = config_with("[[detectors]]\nname = \"todo\"\ntriggers = ['TODO']\n").unwrap();
        let err = Detectors::load(&config).unwrap_err();
        assert!(
            err.message.contains("detector `todo`: missing `fields`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn invalid_pattern_names_the_detector() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['(unclosed']\nfields = ['a']\n\
             block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config).unwrap();
        let err = detectors.check_patterns().unwrap_err();
        assert!(
            err.message
                .contains("detector `todo`: invalid trigger pattern"),
            "{}",
            err.message
        );
        let stop = detectors.select(Event::Stop, &[]).unwrap();
        assert!(TriggerSet::new(&stop).is_err());
    }

    /// The trigger set is a trimmed `RegexSet`: on every message of the evaluation corpus (and
    /// a few texts in other scripts and case foldings) it hits exactly the detectors a
    /// `regex::RegexSet` of every trigger hits.
    #[test]
    fn trigger_set_hits_what_regex_set_hits() {
        let detectors = Detectors::load(&Config::defaults()).unwrap();
        let mut all = detectors.select(Event::Stop, &[]).unwrap();
        all.extend(detectors.select(Event::PreTool, &[]).unwrap());
        let set = TriggerSet::new(&all).unwrap();
        let patterns: Vec<&str> = all
            .iter()
            .flat_map(|d| d.triggers.iter().map(String::as_str))
            .collect();
        let owner: Vec<usize> = all
            .iter()
            .enumerate()
            .flat_map(|(i, d)| d.triggers.iter().map(move |_| i))
            .collect();
        let full = RegexSet::new(&patterns).unwrap();
        let corpus = include_str!("../tests/corpus/messages.jsonl");
        let mut texts: Vec<String> = corpus
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter_map(|v| v["text"].as_str().map(str::to_string))
            .collect();
        assert!(texts.len() > 200, "the corpus was not read");
        texts.extend(
            [
                "COMMIT now?",
                "ſhall I puſh",
                "KELVIN \u{212A}",
                "コミットしますか？",
                "git push -f origin main",
                "rm -rf /",
                "Değişiklikleri yayınlayalım mı?",
                "",
            ]
            .map(String::from),
        );
        let mut hits = 0;
        for text in &texts {
            let mut expected: Vec<usize> = full.matches(text).iter().map(|i| owner[i]).collect();
            expected.dedup();
            hits += usize::from(!expected.is_empty());
            assert_eq!(set.hits(text), expected, "{text}");
        }
        assert!(
            hits > 100,
            "too few hits ({hits}) for the comparison to mean much"
        );
    }

    #[test]
    fn trigger_set_reports_detectors_once() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['TODO', 'FIXME']\nfields = ['a']\n\
             block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config).unwrap();
        let only = detectors
            .select(Event::Stop, &["todo".to_string()])
            .unwrap();
        let set = TriggerSet::new(&only).unwrap();
        assert_eq!(set.hits("TODO and FIXME"), [0]);
        assert!(set.hits("nothing").is_empty());
    }
}
