//! Turns the data in `assets/` into Rust at build time, so a hook call parses no TOML and
//! analyzes no regex for the built-ins:
//! - `builtin_detectors.rs`: the built-in detectors as `DetectorSpec` values, the literal
//!   gate of every built-in pattern (see `src/gate.rs`), and the built-in triggers' gates as one
//!   ready `GateIndex` (see `src/literals.rs`), and each built-in pattern parsed, whole and
//!   cut to ASCII texts, encoded (see `src/detectors/hir_code.rs`), and the cut form's NFA,
//!   compiled for short ASCII texts, encoded (see `src/detectors/nfa_code.rs`);
//! - `builtin_redaction.rs`: the built-in redaction rule table as a `RulesFile` value;
//! - `evidence-runners.json`, `evidence-claims.json`: `assets/evidence/*.toml` as JSON, every
//!   pattern checked; `evidence-gates.rs`, the literal gate of each of their patterns;
//! - `default-config-data.toml`: the default config without its comments (cheaper to parse),
//!   and `default-config.json`, the same as JSON (cheaper still, for the defaults alone);
//! - `trust-rules.json`: the per-key rules for untrusted project files, as JSON.
//!
//! The schemas are the crate's own (`src/detectors/spec.rs`, `src/redact/spec.rs`), included
//! here, so an asset that the crate would reject fails the build with the file and the reason.

#[path = "src/detectors/cut.rs"]
mod cut;
#[allow(dead_code)]
#[path = "src/detectors/spec.rs"]
mod detector_spec;
#[allow(dead_code)]
#[path = "src/evidence/spec.rs"]
mod evidence_spec;
#[allow(dead_code)]
#[path = "src/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "src/detectors/hir_code.rs"]
mod hir_code;
#[allow(dead_code)]
#[path = "src/detectors/leb128.rs"]
mod leb128;
#[allow(dead_code)]
#[path = "src/literals.rs"]
mod literals;
#[allow(dead_code)]
#[path = "src/detectors/nfa_code.rs"]
mod nfa_code;
#[allow(dead_code)]
#[path = "src/shell/spec.rs"]
mod program_spec;
#[allow(dead_code)]
#[path = "src/redact/spec.rs"]
mod redact_spec;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use detector_spec::{DetectorSpec, Event};
use redact_spec::RulesFile;

/// The built-in detectors, in the order they are reported.
const DETECTORS: &[&str] = &[
    "commit",
    "scope-check",
    "scope-change",
    "shallow-bugfix",
    "bugfix-without-reproduction",
    "unbacked-claim",
    "destructive",
];

fn main() {
    println!("cargo::rerun-if-changed=assets/detectors");
    println!("cargo::rerun-if-changed=assets/redact/rules.toml");
    println!("cargo::rerun-if-changed=assets/evidence/runners.toml");
    println!("cargo::rerun-if-changed=assets/evidence/claims.toml");
    println!("cargo::rerun-if-changed=src/evidence/spec.rs");
    println!("cargo::rerun-if-changed=assets/default-config.toml");
    println!("cargo::rerun-if-changed=assets/trust-rules.toml");
    println!("cargo::rerun-if-changed=src/detectors/spec.rs");
    println!("cargo::rerun-if-changed=src/redact/spec.rs");
    println!("cargo::rerun-if-changed=src/gate.rs");
    println!("cargo::rerun-if-changed=src/literals.rs");
    println!("cargo::rerun-if-changed=src/detectors/cut.rs");
    println!("cargo::rerun-if-changed=src/detectors/hir_code.rs");
    println!("cargo::rerun-if-changed=src/detectors/nfa_code.rs");
    println!("cargo::rerun-if-changed=src/detectors/leb128.rs");
    println!("cargo::rerun-if-changed=assets/programs");
    println!("cargo::rerun-if-changed=src/shell/spec.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    write(&out.join("builtin_detectors.rs"), &detectors());
    write(&out.join("builtin_redaction.rs"), &redaction());
    write(&out.join("builtin_programs.rs"), &programs());
    write(&out.join("evidence-runners.json"), &evidence_runners());
    write(&out.join("evidence-claims.json"), &evidence_claims());
    write(&out.join("evidence-gates.rs"), &evidence_gates());
    let default_config = read("assets/default-config.toml");
    write(
        &out.join("default-config-data.toml"),
        &uncommented(&default_config),
    );
    write(&out.join("default-config.json"), &as_json(&default_config));
    let trust_rules: serde_json::Value = toml_edit::de::from_str(&read("assets/trust-rules.toml"))
        .unwrap_or_else(|err| panic!("assets/trust-rules.toml: {err}"));
    write(&out.join("trust-rules.json"), &trust_rules.to_string());
}

/// The default config as JSON: what a hook deserializes when no config file or override
/// applies (no TOML parse at all).
fn as_json(toml: &str) -> String {
    let value: serde_json::Value = toml_edit::de::from_str(toml)
        .unwrap_or_else(|err| panic!("assets/default-config.toml: {err}"));
    value.to_string()
}

/// The default config without its comment lines: what a hook parses on every call (the
/// commented file is what users read and `config init` writes).
fn uncommented(toml: &str) -> String {
    toml.lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect()
}

fn write(path: &Path, code: &str) {
    std::fs::write(path, code).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("read {path}: {err}"))
}

fn detectors() -> String {
    let mut specs = String::new();
    let mut events = String::new();
    let mut gates: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let mut triggers: BTreeMap<String, Vec<Vec<literals::Literal>>> = BTreeMap::new();
    let mut detector_triggers: Vec<Vec<String>> = Vec::new();
    let mut detector_cues: Vec<Vec<String>> = Vec::new();
    let mut parsed_patterns: BTreeMap<String, Encoded> = BTreeMap::new();
    let mut shared_classes = hir_code::SharedClasses::default();
    for (index, name) in DETECTORS.iter().enumerate() {
        let path = format!("assets/detectors/{name}.toml");
        let spec: DetectorSpec = toml_edit::de::from_str(&read(&path))
            .unwrap_or_else(|err| panic!("{path}: {}", err.message()));
        assert_eq!(&spec.name, name, "{path}: `name` must match the file name");
        // Every pattern's gate: triggers for Layer 1, skips and rule cues so that a hit
        // compiles only the cues whose literals occur in the text.
        let cues = [&spec.rules, &spec.rules_unsure, &spec.rules_against]
            .into_iter()
            .flatten()
            .flat_map(|map| map.values().flatten());
        let patterns = spec
            .triggers
            .iter()
            .flatten()
            .chain(spec.skips.iter().flatten());
        detector_triggers.push(spec.triggers.clone().unwrap_or_default());
        // The cues in the order `Detector::cues` lists them: skips, then each table's fields
        // in name order.
        detector_cues.push(
            spec.skips
                .iter()
                .flatten()
                .chain(
                    [&spec.rules, &spec.rules_unsure, &spec.rules_against]
                        .into_iter()
                        .flatten()
                        .flat_map(|map| map.values().flatten()),
                )
                .cloned()
                .collect(),
        );
        for pattern in spec.triggers.iter().flatten() {
            let gate = gate::needles(pattern)
                .unwrap_or_else(|err| panic!("{path}: invalid pattern `{pattern}`: {err}"));
            let clauses = gate
                .unwrap_or_default()
                .into_iter()
                .map(|clause| clause.into_iter().map(literals::Literal::from).collect());
            triggers.insert(pattern.clone(), clauses.collect());
        }
        for pattern in patterns.chain(cues) {
            if gates.contains_key(pattern) {
                continue;
            }
            let gate = gate::needles(pattern)
                .unwrap_or_else(|err| panic!("{path}: invalid pattern `{pattern}`: {err}"));
            let (start, end) = gate::word_edges(pattern)
                .unwrap_or_else(|err| panic!("{path}: invalid pattern `{pattern}`: {err}"));
            gates.insert(
                pattern.clone(),
                format!("{}, ({start}, {end})", needles(gate),),
            );
            parsed_patterns.insert(pattern.clone(), parsed(pattern, &mut shared_classes));
        }
        let _ = writeln!(specs, "        {index} => {},", detector(&spec));
        let listed = spec.events.clone().unwrap_or_else(|| vec![Event::Stop]);
        let listed: Vec<&str> = listed.iter().map(event_path).collect();
        let _ = writeln!(events, "    ({}, &[{}]),", string(name), listed.join(", "));
    }
    // Each detector's cue gates as one ready index, with each cue's slot in `BUILTIN_GATES`
    // (sorted by pattern) so that the crate can tell that a detector's cues are the built-in ones.
    let sorted: Vec<&String> = gates.keys().collect();
    let mut cue_indexes = String::new();
    for cues in &detector_cues {
        let gates: Vec<Vec<Vec<literals::Literal>>> = cues
            .iter()
            .map(|pattern| {
                gate::needles(pattern)
                    .expect("every cue's gate was computed above")
                    .unwrap_or_default()
                    .into_iter()
                    .map(|clause| clause.into_iter().map(literals::Literal::from).collect())
                    .collect()
            })
            .collect();
        let slots: Vec<String> = cues
            .iter()
            .map(|cue| {
                let slot = sorted.binary_search(&cue).expect("every cue is in `gates`");
                slot.to_string()
            })
            .collect();
        let _ = writeln!(
            cue_indexes,
            "    (&[{}], {}),",
            slots.join(","),
            gate_index_of(&gates)
        );
    }
    let mut nfa_blob = Vec::new();
    let mut nfa_ends = Vec::new();
    for pattern in gates.keys() {
        nfa_blob.extend_from_slice(&parsed_patterns[pattern].2);
        nfa_ends.push(nfa_blob.len() as u32);
    }
    format!(
        "/// The built-in detectors' names and events (default: Stop), in order (generated by\n\
         /// build.rs).\n\
         static BUILTIN_EVENTS: &[(&str, &[Event])] = &[\n{events}];\n\n\
         /// Built-in detector `index` of `BUILTIN_EVENTS`, from `assets/detectors/` (generated\n\
         /// by build.rs).\n\
         fn builtin_spec(index: usize) -> DetectorSpec {{\n    match index {{\n{specs}        \
         _ => unreachable!(\"BUILTIN_EVENTS has {{}} detectors\", BUILTIN_EVENTS.len()),\n    \
         }}\n}}\n\n\
         /// The literal gate, the word edges (`gate::word_edges`), the slot in\n\
         /// `BUILTIN_TRIGGER_INDEX` (triggers only) and the parsed pattern, whole and cut to ASCII\n\
         /// texts (`hir_code`), of every built-in pattern (triggers, skips, rule cues), sorted\n\
         /// by pattern for a binary search (generated by build.rs).\n\
         static BUILTIN_GATES: &[BuiltinFacts] = &[\n{}];\n\n\
         /// The gates of every built-in trigger, slot by slot, as one index (generated by\n\
         /// build.rs).\n\
         static BUILTIN_TRIGGER_INDEX: GateIndex = {};\n\n\
         /// Each built-in detector's triggers (in `BUILTIN_EVENTS` order) by their slot in\n\
         /// `BUILTIN_TRIGGER_INDEX`; None for a trigger without a gate (generated by build.rs).\n\
         static BUILTIN_TRIGGER_SLOTS: &[&[Option<u32>]] = &[\n{}];\n\n\
         /// How many built-in patterns `BUILTIN_GATES` holds (generated by build.rs).\n\
         const BUILTIN_PATTERNS: usize = {};\n\n\
         /// The NFA of each pattern of `BUILTIN_GATES` cut to ASCII texts, compiled for short\n\
         /// ones and encoded (`nfa_code`), one after the other: pattern `i`'s is\n\
         /// `BUILTIN_NFAS[BUILTIN_NFA_ENDS[i - 1]..BUILTIN_NFA_ENDS[i]]` (from 0 for the first;\n\
         /// empty: it does not compile). One blob and offsets, no pointer per pattern (generated\n\
         /// by build.rs).\n\
         static BUILTIN_NFAS: &[u8] = {};\n\n\
         static BUILTIN_NFA_ENDS: [u32; {}] = [{}];\n\n\
         /// The large classes of the parsed patterns in `BUILTIN_GATES`, each once (generated\n\
         /// by build.rs).\n\
         static BUILTIN_SHARED_CLASSES: &[&[u8]] = &[\n{}];\n\n\
         /// Each built-in detector's skips and rule cues (in `BUILTIN_EVENTS` order, each in the\n\
         /// order `Detector::cues` lists them) by their slot in `BUILTIN_GATES`, and their gates\n\
         /// as one index (generated by build.rs).\n\
         static BUILTIN_CUE_INDEXES: &[(&[u32], GateIndex)] = &[\n{cue_indexes}];\n",
        gates
            .iter()
            .map(|(pattern, gate)| {
                let slot = triggers.keys().position(|trigger| trigger == pattern);
                let (whole, ascii, _) = &parsed_patterns[pattern];
                format!(
                    "    ({}, {gate}, {}, {}, {}),\n",
                    string(pattern),
                    option(slot.map(|slot| slot.to_string())),
                    bytes(whole),
                    bytes(ascii),
                )
            })
            .collect::<String>(),
        gate_index(&triggers),
        detector_triggers
            .iter()
            .map(|patterns| {
                let slots: Vec<String> = patterns
                    .iter()
                    .map(|pattern| {
                        let gated = !triggers[pattern].is_empty();
                        let slot = triggers.keys().position(|trigger| trigger == pattern);
                        option(slot.filter(|_| gated).map(|slot| slot.to_string()))
                    })
                    .collect();
                format!("    &[{}],\n", slots.join(", "))
            })
            .collect::<String>(),
        gates.len(),
        bytes(&nfa_blob),
        gates.len(),
        nfa_ends
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        shared_classes
            .encoded
            .iter()
            .map(|class| format!("    {},\n", bytes(class)))
            .collect::<String>()
    )
}

/// A `GateIndex` of these gates (slot by slot) as a constant expression.
fn gate_index(gates: &BTreeMap<String, Vec<Vec<literals::Literal>>>) -> String {
    gate_index_of(&gates.values().cloned().collect::<Vec<_>>())
}

/// A `GateIndex` of these gates (pattern by pattern, each a list of clauses) as a constant
/// expression.
fn gate_index_of(gates: &[Vec<Vec<literals::Literal>>]) -> String {
    let gates: Vec<Vec<&[literals::Literal]>> = gates
        .iter()
        .map(|clauses| clauses.iter().map(Vec::as_slice).collect())
        .collect();
    let built = literals::GateIndex::new(&gates);
    format!(
        "GateIndex {{\n\
         index: {},\n\
         gated: {},\n\
         clauses: {},\n\
         }}",
        literal_index(&built.index),
        borrowed(built.gated.iter().map(|(p, b)| format!("({p},{b})"))),
        borrowed(built.clauses.iter().map(u8::to_string)),
    )
}

/// A `LiteralIndex` as a constant expression: its tables as they are built at run time.
fn literal_index(index: &literals::LiteralIndex) -> String {
    let words = |set: &literals::BitSet| borrowed(set.0.iter().map(|w| format!("{w:#x}")));
    let needles = index.needles.iter().map(|n| {
        format!(
            "Literal {{ bytes: Cow::Borrowed({}), word_start: {}, word_end: {} }}",
            bytes(&n.bytes),
            n.word_start,
            n.word_end
        )
    });
    let triple_candidates = index.triple_candidates.iter().map(|c| {
        format!(
            "TripleCandidate {{ key: {}, fourth: {}, index: {} }}",
            c.key,
            option(c.fourth.map(|b| b.to_string())),
            c.index
        )
    });
    format!(
        "LiteralIndex {{\n\
         needles: {},\n\
         singles: {},\n\
         has_singles: {},\n\
         has_pairs: {},\n\
         pairs: BitSet({}),\n\
         triples: BitSet({}),\n\
         triple_pairs: BitSet({}),\n\
         candidates: {},\n\
         triple_buckets: {},\n\
         triple_candidates: {},\n\
         }}",
        borrowed(needles),
        borrowed(index.singles.iter().map(bool::to_string)),
        index.has_singles,
        index.has_pairs,
        words(&index.pairs),
        words(&index.triples),
        words(&index.triple_pairs),
        borrowed(index.candidates.iter().map(u64::to_string)),
        borrowed(index.triple_buckets.iter().map(u32::to_string)),
        borrowed(triple_candidates),
    )
}

/// `Cow::Borrowed` of a static slice of these items.
fn borrowed(items: impl Iterator<Item = String>) -> String {
    format!("Cow::Borrowed(&[{}])", items.collect::<Vec<_>>().join(","))
}

/// The program specs of `assets/programs/*.toml` as static tables: `PROGRAMS` and a sorted
/// name index `PROGRAM_INDEX` (a lookup is a binary search, no TOML at run time).
fn programs() -> String {
    let mut paths: Vec<PathBuf> = std::fs::read_dir("assets/programs")
        .expect("read assets/programs")
        .map(|entry| entry.expect("read assets/programs").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    let mut commands = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut runs_code: Vec<String> = Vec::new();
    let mut generators: Vec<String> = Vec::new();
    for path in &paths {
        let shown = path.display().to_string();
        let file: program_spec::ProgramsFile = toml_edit::de::from_str(&read(&shown))
            .unwrap_or_else(|err| panic!("{shown}: {}", err.message()));
        if let Some(environment) = &file.environment {
            runs_code.extend(environment.runs_code.iter().cloned());
        }
        generators.extend(file.shell_code_generators.iter().cloned());
        for command in &file.commands {
            let inherited = program_spec::Inherited::default();
            let code = command_code(command, &inherited, &shown, true);
            for name in &command.names {
                if let Some(previous) = index.insert(name.clone(), commands.len()) {
                    panic!("{shown}: program `{name}` is described twice (also entry {previous})");
                }
            }
            commands.push(code);
        }
    }
    let entries: Vec<String> = index
        .iter()
        .map(|(name, at)| format!("    ({}, {at}),\n", string(name)))
        .collect();
    format!(
        "/// The program specs, from `assets/programs/` (generated by build.rs).\n\
         pub(crate) static PROGRAMS: &[Command] = &[\n{}];\n\n\
         /// Program name to its entry in `PROGRAMS`, sorted (generated by build.rs).\n\
         pub(crate) static PROGRAM_INDEX: &[(&str, usize)] = &[\n{}];\n\n\
         /// Variables that make programs run code (generated by build.rs).\n\
         pub(crate) static ENV_RUNS_CODE: &[&str] = {};\n\n\
         /// Commands that print shell set-up code (generated by build.rs).\n\
         pub(crate) static SHELL_CODE_GENERATORS: &[&str] = {};\n",
        commands
            .iter()
            .map(|c| format!("    {c},\n"))
            .collect::<String>(),
        entries.concat(),
        static_strs(&runs_code),
        static_strs(&generators)
    )
}

fn command_code(
    spec: &program_spec::CommandSpec,
    inherited: &program_spec::Inherited,
    path: &str,
    top: bool,
) -> String {
    let here = inherited.under(spec);
    let where_ = format!("{path}: `{}`", spec.names.join("|"));
    assert!(!spec.names.is_empty(), "{path}: a command without names");
    if top {
        assert!(
            spec.names.iter().all(|n| !n.contains('*')),
            "{where_}: program names cannot be patterns"
        );
    }
    for option in spec
        .target_directory_options
        .iter()
        .chain(&spec.written_options)
    {
        assert!(
            spec.value_options.contains(option),
            "{where_}: written option `{option}` must be a value option too"
        );
    }
    if let Some(check) = &spec.check {
        assert!(
            program_spec::READ_CHECKS.contains(&check.as_str()),
            "{where_}: unknown check `{check}` (known: {:?})",
            program_spec::READ_CHECKS
        );
    }
    let subs: Vec<String> = spec
        .subs
        .iter()
        .map(|sub| command_code(sub, &here, path, false))
        .collect();
    let options: Vec<String> = spec
        .options
        .iter()
        .map(|option| {
            format!(
                "OptionEffect {{ names: {}, effect: Effect::{:?}, unless_value: {} }}",
                static_strs(&option.names),
                option.effect,
                static_strs(&option.unless_value)
            )
        })
        .collect();
    let holds: Vec<String> = spec
        .hold
        .iter()
        .map(|hold| {
            assert!(
                hold.rule.contains('.') && !hold.rule.contains(' '),
                "{where_}: rule id `{}` must read `program.what`",
                hold.rule
            );
            if let Some(check) = &hold.check {
                assert!(
                    program_spec::HOLD_CHECKS.contains(&check.as_str()),
                    "{where_}: unknown hold check `{check}` (known: {:?})",
                    program_spec::HOLD_CHECKS
                );
            }
            let groups: Vec<String> = hold.all.iter().map(|g| static_strs(g)).collect();
            format!(
                "Hold {{ rule: {}, message: {}, safer: {}, any: {}, all: &[{}], unless: {}, \
                 min_operands: {}, operand_options: {}, operand_any: {}, check: {} }}",
                string(&hold.rule),
                string(&hold.message),
                string(&hold.safer),
                static_strs(&hold.any),
                groups.join(", "),
                static_strs(&hold.unless),
                hold.min_operands,
                static_strs(&hold.operand_options),
                static_strs(&hold.operand_any),
                hold.check
                    .as_deref()
                    .map_or("None".to_string(), |c| format!("Some({})", string(c))),
            )
        })
        .collect();
    let optional: Vec<String> = spec
        .optional_values
        .iter()
        .map(|entry| {
            let (option, values) = entry
                .split_once('=')
                .unwrap_or_else(|| panic!("{where_}: optional value `{entry}` needs `=a|b`"));
            let values: Vec<String> = values.split('|').map(str::to_string).collect();
            format!("({}, {})", string(option), static_strs(&values))
        })
        .collect();
    format!(
        "Command {{ names: {}, effect: {}, bare_effect: {}, long_prefixes: {}, \
         single_dash_long: {}, permute: {}, forwards: {}, value_options: {}, optional_values: &[{}], \
         long_options: {}, options: &[{}], read_verbs: {}, selectors: {}, subs: &[{}], holds: &[{}], \
         check: {}, downloads: {}, prints: {}, written: Written::{:?}, \
         target_directory_options: {}, written_options: {}, all_operands_with: {}, \
         unknown_entries: {} }}",
        static_strs(&spec.names),
        effect(spec.effect.or(inherited.effect)),
        effect(spec.bare_effect),
        here.long_prefixes,
        here.single_dash_long,
        spec.permute.unwrap_or(true),
        spec.forwards,
        static_strs(&spec.value_options),
        optional.join(", "),
        static_strs(&spec.long_options),
        options.join(", "),
        static_strs(&spec.read_verbs),
        static_strs(&spec.selectors),
        subs.join(", "),
        holds.join(", "),
        spec.check
            .as_deref()
            .map_or("None".to_string(), |c| format!("Some({})", string(c))),
        spec.downloads,
        static_strs(&spec.prints),
        spec.written,
        static_strs(&spec.target_directory_options),
        static_strs(&spec.written_options),
        static_strs(&spec.all_operands_with),
        spec.unknown_entries,
    )
}

fn effect(effect: Option<program_spec::Effect>) -> String {
    effect.map_or("None".to_string(), |e| format!("Some(Effect::{e:?})"))
}

fn static_strs(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| string(item)).collect();
    format!("&[{}]", items.join(", "))
}

fn event_path(event: &Event) -> &'static str {
    match event {
        Event::Stop => "Event::Stop",
        Event::PreTool => "Event::PreTool",
    }
}

fn detector(spec: &DetectorSpec) -> String {
    let DetectorSpec {
        name,
        enabled,
        description,
        events,
        judge,
        triggers,
        skips,
        fields,
        block_when,
        prompt,
        feedback,
        rules,
        rules_unsure,
        rules_against,
    } = spec;
    format!(
        "DetectorSpec {{ name: {}, enabled: {enabled:?}, description: {}, events: {}, \
         judge: {}, triggers: {}, skips: {}, fields: {}, block_when: {}, prompt: {}, feedback: {}, \
         rules: {}, rules_unsure: {}, rules_against: {} }}",
        owned(name),
        option(description.as_deref().map(owned)),
        option(events.as_ref().map(|events| {
            let events: Vec<&str> = events.iter().map(event_path).collect();
            format!("vec![{}]", events.join(", "))
        })),
        option(judge.map(|judge| format!("JudgeBy::{judge:?}"))),
        option(triggers.as_deref().map(strings)),
        option(skips.as_deref().map(strings)),
        option(fields.as_deref().map(strings)),
        option(block_when.as_deref().map(owned)),
        option(prompt.as_deref().map(owned)),
        option(
            feedback
                .as_deref()
                .map(|text| owned(&detector_spec::reflow(text)))
        ),
        option(rules.as_ref().map(rule_map)),
        option(rules_unsure.as_ref().map(rule_map)),
        option(rules_against.as_ref().map(rule_map)),
    )
}

fn rule_map(rules: &BTreeMap<String, Vec<String>>) -> String {
    let entries: Vec<String> = rules
        .iter()
        .map(|(field, cues)| format!("({}, {})", owned(field), strings(cues)))
        .collect();
    format!("BTreeMap::from([{}])", entries.join(", "))
}

/// A pattern's encodings: parsed (`hir_code`) as written and cut to ASCII texts, and the cut
/// form's NFA (`nfa_code`).
type Encoded = (Vec<u8>, Vec<u8>, Vec<u8>);

/// `pattern` parsed, encoded (`hir_code`): as written, and cut to ASCII texts (`cut::cut_to`);
/// and the NFA of the cut form, compiled as a short ASCII text's search compiles it, encoded
/// (`nfa_code`; empty if it does not compile: the hook then reports the error). A hook decodes
/// these instead of parsing the pattern (no case folding, no Unicode tables) or compiling it.
fn parsed(pattern: &str, shared: &mut hir_code::SharedClasses) -> Encoded {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(pattern)
        .unwrap_or_else(|err| panic!("invalid pattern `{pattern}`: {err}"));
    let (mut whole, mut ascii) = (Vec::new(), Vec::new());
    hir_code::encode(&hir, &mut whole, shared);
    let cut = cut::cut_to(hir, &[]);
    hir_code::encode(&cut, &mut ascii, shared);
    let nfa = regex_automata::nfa::thompson::Compiler::new()
        .configure(nfa_code::short_text_config())
        .build_from_hir(&cut)
        .ok()
        .map(|nfa| {
            nfa_code::encode(&nfa)
                .unwrap_or_else(|| panic!("pattern `{pattern}`: its NFA cannot be encoded"))
        });
    (whole, ascii, nfa.unwrap_or_default())
}

fn needles(gate: Option<Vec<Vec<gate::Needle>>>) -> String {
    option(gate.map(|clauses| {
        let clauses: Vec<String> = clauses
            .iter()
            .map(|clause| {
                let items: Vec<String> = clause
                    .iter()
                    .map(|n| {
                        format!(
                            "Literal {{ bytes: Cow::Borrowed({}), word_start: {}, word_end: {} }}",
                            bytes(&n.bytes),
                            n.word_start,
                            n.word_end
                        )
                    })
                    .collect();
                format!("&[{}]", items.join(", "))
            })
            .collect();
        format!("&[{}]", clauses.join(", "))
    }))
}

/// The runner table as JSON (parsed only when a stop needs the turn's evidence), after checking
/// that it fits the schema and that every pattern parses.
fn evidence_runners() -> String {
    let path = "assets/evidence/runners.toml";
    let table: evidence_spec::RunnerTable =
        toml_edit::de::from_str(&read(path)).unwrap_or_else(|err| panic!("{path}: {err}"));
    let patterns = table
        .runners
        .iter()
        .map(|r| (&r.name, &r.command))
        .chain(table.summaries.iter().map(|s| (&s.name, &s.pattern)));
    for (name, pattern) in patterns {
        regex_syntax::Parser::new()
            .parse(pattern)
            .unwrap_or_else(|err| panic!("{path}: `{name}`: invalid pattern: {err}"));
    }
    for pattern in table.not_run.iter().chain(&table.pending) {
        regex_syntax::Parser::new()
            .parse(pattern)
            .unwrap_or_else(|err| panic!("{path}: invalid pattern `{pattern}`: {err}"));
    }
    serde_json::to_string(&table).expect("the runner table serializes")
}

/// The claim-reading table as JSON, every pattern checked.
fn evidence_claims() -> String {
    let path = "assets/evidence/claims.toml";
    let table: evidence_spec::ClaimsTable =
        toml_edit::de::from_str(&read(path)).unwrap_or_else(|err| panic!("{path}: {err}"));
    for pattern in std::iter::once(&table.clause_break).chain(&table.not_asserted) {
        regex_syntax::Parser::new()
            .parse(pattern)
            .unwrap_or_else(|err| panic!("{path}: invalid pattern `{pattern}`: {err}"));
    }
    serde_json::to_string(&table).expect("the claims table serializes")
}

/// The literal gate of every evidence pattern (see `src/gate.rs`), by pattern: a pattern is
/// compiled only when a literal of each of its clauses occurs in the text.
fn evidence_gates() -> String {
    let runners: evidence_spec::RunnerTable =
        toml_edit::de::from_str(&read("assets/evidence/runners.toml")).expect("checked above");
    let claims: evidence_spec::ClaimsTable =
        toml_edit::de::from_str(&read("assets/evidence/claims.toml")).expect("checked above");
    let patterns = runners
        .runners
        .iter()
        .map(|r| &r.command)
        .chain(runners.summaries.iter().map(|s| &s.pattern))
        .chain(&runners.not_run)
        .chain(&runners.pending)
        .chain(&claims.not_asserted);
    let gates: BTreeMap<&String, Option<String>> = patterns
        .map(|pattern| {
            let gate = gate::needles(pattern)
                .unwrap_or_else(|err| panic!("evidence pattern `{pattern}`: {err}"))
                .map(|clauses| {
                    let clauses: Vec<String> = clauses
                        .into_iter()
                        .map(|clause| {
                            let literals: Vec<String> =
                                clause.iter().map(|n| bytes(&n.bytes)).collect();
                            format!("&[{}]", literals.join(", "))
                        })
                        .collect();
                    format!("&[{}]", clauses.join(", "))
                });
            (pattern, gate)
        })
        .collect();
    format!(
        "/// The literal gate of every evidence pattern, sorted by pattern for a binary search\n\
         /// (generated by build.rs).\n\
         static EVIDENCE_GATES: &[(&str, Option<Gate>)] = &[\n{}];\n",
        gates
            .iter()
            .map(|(pattern, gate)| format!(
                "    ({}, {}),\n",
                string(pattern),
                option(gate.clone())
            ))
            .collect::<String>()
    )
}

fn redaction() -> String {
    let path = "assets/redact/rules.toml";
    let file: RulesFile =
        toml_edit::de::from_str(&read(path)).unwrap_or_else(|err| panic!("{path}: {err}"));
    let rules: Vec<String> = file
        .rule
        .iter()
        .map(|rule| {
            format!(
                "        RuleSpec {{ id: {}, description: String::new(), keywords: {}, regex: {}, \
                 recognizer: {}, entropy: {:?}, allow: {}, reject_secret: {}, reject_match: {}, \
                 block_begin: {}, block_end: {}, block_line: {}, marker: {}, shape: {}, judged_as: {}, \
                 prefilter: {} }},\n",
                owned(&rule.id),
                strings(&rule.keywords),
                owned(&rule.regex),
                option(rule.recognizer.as_deref().map(owned)),
                rule.entropy,
                strings(&rule.allow),
                strings(&rule.reject_secret),
                strings(&rule.reject_match),
                option(rule.block_begin.as_deref().map(owned)),
                option(rule.block_end.as_deref().map(owned)),
                option(rule.block_line.as_deref().map(owned)),
                option(rule.marker.as_deref().map(owned)),
                option(rule.shape.as_deref().map(owned)),
                option(rule.judged_as.as_deref().map(owned)),
                option(rule.prefilter.as_deref().map(owned)),
            )
        })
        .collect();
    let keywords = redact_spec::keyword_table(file.rule.iter().map(|r| r.keywords.as_slice()));
    let shape_rules = redact_spec::shape_rules(file.rule.iter().map(|r| r.prefilter.as_deref()));
    // The index `Redactor::builtin` searches, built here as it would be at run time.
    let index = literals::LiteralIndex::new(
        keywords
            .iter()
            .map(|(keyword, _)| literals::Literal {
                bytes: std::borrow::Cow::Owned(keyword.as_bytes().to_vec()),
                word_start: false,
                word_end: false,
            })
            .collect(),
    );
    let keywords: Vec<String> = keywords
        .iter()
        .map(|(keyword, rules)| format!("    ({}, &{rules:?}),\n", string(keyword)))
        .collect();
    format!(
        "/// The keyword prefilter of the built-in rules (generated by build.rs).\n\
         pub(crate) static BUILTIN_KEYWORDS: &[(&str, &[u16])] = &[\n{}];\n\n\
         /// The literal index of `BUILTIN_KEYWORDS`' keywords, in order (generated by build.rs).\n\
         pub(crate) static BUILTIN_KEYWORD_INDEX: LiteralIndex = {};\n\n\
         /// The built-in rules that run at a shape prefilter (generated by build.rs).\n\
         pub(crate) static BUILTIN_SHAPE_RULES: &[u16] = &{:?};\n\n\
         pub(crate) const BUILTIN_RULE_COUNT: usize = {};\n\n\
         /// The built-in redaction rules, from `assets/redact/rules.toml` (generated by build.rs).\n\
         fn builtin_rules_file() -> RulesFile {{\n    RulesFile {{\n        \
         default_entropy: {:?},\n        allow: AllowSection {{ placeholders: {} }},\n        \
         assignment: {},\n        rule: vec![\n{}        ],\n    }}\n}}\n",
        keywords.concat(),
        literal_index(&index),
        shape_rules,
        file.rule.len(),
        file.default_entropy,
        strings(&file.allow.placeholders),
        option(file.assignment.as_ref().map(assignment_spec)),
        rules.concat(),
    )
}

/// The `[assignment]` section of the redaction rules as a Rust expression.
fn assignment_spec(spec: &redact_spec::AssignmentSpec) -> String {
    format!(
        "AssignmentSpec {{ password_words: {}, secret_words: {}, secret_keys: {}, key_qualifiers: {}, \
         non_secret_tails: {}, non_secret_words: {}, non_secret_qualifiers: {}, phrase_heads: {}, stop_values: {}, placeholder_words: {}, \
         min_password_length: {}, min_secret_length: {}, min_entropy: {:?}, prose_connectors: {}, prose_copulas: {}, sentence_words: {} }}",
        strings(&spec.password_words),
        strings(&spec.secret_words),
        strings(&spec.secret_keys),
        strings(&spec.key_qualifiers),
        strings(&spec.non_secret_tails),
        strings(&spec.non_secret_words),
        strings(&spec.non_secret_qualifiers),
        strings(&spec.phrase_heads),
        strings(&spec.stop_values),
        strings(&spec.placeholder_words),
        spec.min_password_length,
        spec.min_secret_length,
        spec.min_entropy,
        strings(&spec.prose_connectors),
        strings(&spec.prose_copulas),
        strings(&spec.sentence_words),
    )
}

/// A Rust string literal (`Debug` of a `str` is one).
fn string(text: &str) -> String {
    format!("{text:?}")
}

fn owned(text: &str) -> String {
    format!("String::from({text:?})")
}

fn strings(texts: &[String]) -> String {
    let items: Vec<String> = texts.iter().map(|t| owned(t)).collect();
    format!("vec![{}]", items.join(", "))
}

fn option(value: Option<String>) -> String {
    value.map_or_else(|| "None".to_string(), |v| format!("Some({v})"))
}

/// A Rust byte string literal.
fn bytes(bytes: &[u8]) -> String {
    let mut literal = String::from("b\"");
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            literal.push(char::from(b));
        } else {
            let _ = write!(literal, "\\x{b:02x}");
        }
    }
    literal.push('"');
    literal
}
