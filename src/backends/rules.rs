//! The offline judge: derives a detector's fields from its cue patterns and answers
//! `violation`, `allow` or `unsure`. Deterministic, instant, no network.
//!
//! Each field takes one of three values, from the cues of the detector's TOML:
//!
//! | cues that match                       | field   |
//! |---------------------------------------|---------|
//! | a fact about the turn ([`Facts`])     | the fact, whatever the text says |
//! | `rules` and `rules_against`           | unsure (the text says both), or false when the admission overlaps the cue ("CI is not green") |
//! | `rules` only                          | true    |
//! | `rules_against` only                  | false   |
//! | `rules_unsure` (and maybe `rules_against`) | unsure |
//! | none                                  | false   |
//!
//! The detector's formula is evaluated over the three values (Kleene logic): the answer is
//! `unsure` only when an unsure field can change the verdict. With an LLM backend configured,
//! only an `unsure` answer costs an LLM call (the cascade, see `crate::pipeline`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest};
use crate::detectors::{CueRole, Detector};
use crate::evidence::Evidence;

pub struct Rules;

impl Backend for Rules {
    fn name(&self) -> &'static str {
        "rules"
    }

    fn model(&self) -> Option<String> {
        None
    }

    /// The rules judge as a plain backend: an unsure field is reported as false (with `rules`
    /// alone, unsure allows), the reason says which fields were unsure.
    fn call(&self, request: &JudgeRequest, _deadline: Instant) -> Result<String, BackendError> {
        let facts = Facts::from_evidence(request.detector, request.evidence);
        let answer = decide(request.detector, request.text, &facts).map_err(BackendError::Reply)?;
        let mut reply = serde_json::Map::new();
        for (field, value) in &answer.fields {
            reply.insert(
                field.clone(),
                serde_json::Value::Bool(value.unwrap_or(false)),
            );
        }
        reply.insert("reason".into(), serde_json::Value::String(answer.reason));
        Ok(serde_json::Value::Object(reply).to_string())
    }
}

/// What the rules judge concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesVerdict {
    Violation,
    Allow,
    Unsure,
}

/// The rules judge's answer for one detector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesAnswer {
    pub verdict: RulesVerdict,
    /// Every field of the detector: `Some` when settled, `None` when unsure.
    pub fields: BTreeMap<String, Option<bool>>,
    /// Which cues (or facts) decided, for the log and `judge --json`.
    pub reason: String,
    /// The fields no cue and no fact settled, taken as false for want of a cue.
    pub uncued: BTreeSet<String>,
}

impl RulesAnswer {
    /// Whether the verdict follows from what the cues and facts said alone: the same answer
    /// with the fields taken as false for want of a cue left open.
    pub fn settled_by_cues(&self, detector: &Detector) -> bool {
        let mut open = self.fields.clone();
        for field in &self.uncued {
            open.insert(field.clone(), None);
        }
        detector.formula.eval_partial(&open).is_some()
    }

    /// The fields as the pipeline reports them: unsure ones as false.
    pub fn settled_fields(&self) -> BTreeMap<String, bool> {
        self.fields
            .iter()
            .map(|(field, value)| (field.clone(), value.unwrap_or(false)))
            .collect()
    }

    /// The fields left unsure.
    pub fn unsure_fields(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|(_, value)| value.is_none())
            .map(|(field, _)| field.as_str())
            .collect()
    }
}

/// Facts about the turn that settle a field whatever the text's cues say: e.g. the transcript
/// shows the tests ran and passed after the last edit (`verification_reported = true`), or that
/// no test ran at all (`false`). Empty when only the text is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    fields: BTreeMap<String, (bool, String)>,
}

impl Facts {
    /// Settles `field` to `value`; `why` is shown in the reason ("transcript: cargo test passed").
    pub fn set(&mut self, field: &str, value: bool, why: impl Into<String>) {
        self.fields.insert(field.to_string(), (value, why.into()));
    }

    pub fn get(&self, field: &str) -> Option<(bool, &str)> {
        self.fields
            .get(field)
            .map(|(value, why)| (*value, why.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The fields of `detector` that the turn's tool calls settle: what the turn did outweighs
    /// what the message says.
    pub fn from_evidence(detector: &Detector, evidence: Option<&Evidence>) -> Facts {
        let mut facts = Facts::default();
        if let Some(evidence) = evidence {
            for field in &detector.fields {
                if let Some(value) = evidence.field(field) {
                    facts.set(field, value, "from the turn's tool calls");
                }
            }
        }
        facts
    }
}

/// The rules judge on `text` for `detector`. Fails only when a cue pattern does not compile.
pub fn decide(detector: &Detector, text: &str, facts: &Facts) -> Result<RulesAnswer, String> {
    let matches = detector.rule_matches(text)?;
    // A detector without any rule table (a user's own, judged by its prompt) gives the rules
    // judge nothing to read: the absence of a cue says nothing, so its fields stay open and
    // the hit goes to the LLM when one is configured.
    let has_rules = [
        &detector.rules,
        &detector.rules_unsure,
        &detector.rules_against,
    ]
    .iter()
    .any(|table| table.iter().any(|(_, cues)| !cues.is_empty()));
    // A proposal or claim inside a code block or a `>` quote is quoted, not said: a commit
    // message draft ("fix: …"), a CHANGELOG snippet ("- Fixed …"), a test script echoing
    // "✅ fixed". Only the proposal field is read that way: a failure shown in a fence is still
    // evidence.
    let quoted = quoted_spans(text);
    let proposal = detector.fields.iter().position(|f| f == PROPOSAL_FIELD);
    let matches: Vec<_> = matches
        .into_iter()
        .filter(|m| {
            let says_proposal =
                proposal.is_some_and(|i| m.role == CueRole::For(i) || m.role == CueRole::Unsure(i));
            !(says_proposal && quoted.iter().any(|&(s, e)| s <= m.start && m.end <= e))
        })
        .collect();
    let mut fields = BTreeMap::new();
    let mut uncued = BTreeSet::new();
    let mut notes = Vec::new();
    for (index, field) in detector.fields.iter().enumerate() {
        if let Some((value, why)) = facts.get(field) {
            notes.push(format!("{field}={value} ({why})"));
            fields.insert(field.clone(), Some(value));
            continue;
        }
        let againsts: Vec<_> = matches
            .iter()
            .filter(|m| m.role == CueRole::Against(index))
            .collect();
        // A cue for the field that an admission overlaps is negated, not evidence: in "CI is
        // not green" the "CI … green" cue and the "not green" admission are one statement.
        let for_cue = matches
            .iter()
            .filter(|m| m.role == CueRole::For(index))
            .find(|m| !againsts.iter().any(|a| a.start < m.end && m.start < a.end))
            .map(|m| clip(&text[m.start..m.end]));
        let against = againsts.first().map(|m| clip(&text[m.start..m.end]));
        // A hedge stays a hedge next to an against cue: a bulleted "- fixed …" item (an
        // against cue of the fix detectors) must still reach the LLM.
        let unsure = matches
            .iter()
            .find(|m| m.role == CueRole::Unsure(index))
            .map(|m| clip(&text[m.start..m.end]));
        let value = match (&for_cue, &against, &unsure) {
            (Some(cue), Some(contra), _) => {
                notes.push(format!("{field}? (\"{cue}\" but \"{contra}\")"));
                None
            }
            (Some(cue), None, _) => {
                notes.push(format!("{field} (\"{cue}\")"));
                Some(true)
            }
            (None, Some(contra), None) => {
                notes.push(format!("!{field} (\"{contra}\")"));
                Some(false)
            }
            (None, _, Some(hedge)) => {
                notes.push(format!("{field}? (\"{hedge}\")"));
                None
            }
            (None, None, None) if has_rules => {
                uncued.insert(field.clone());
                Some(false)
            }
            (None, None, None) => {
                notes.push(format!("{field}? (the detector has no rules)"));
                None
            }
        };
        fields.insert(field.clone(), value);
    }
    let verdict = match detector.formula.eval_partial(&fields) {
        Some(true) => RulesVerdict::Violation,
        Some(false) => RulesVerdict::Allow,
        None => RulesVerdict::Unsure,
    };
    let label = match verdict {
        RulesVerdict::Violation => "violation",
        RulesVerdict::Allow => "allow",
        RulesVerdict::Unsure => "unsure",
    };
    let reason = if notes.is_empty() {
        format!("rules: {label}: no cue matched")
    } else {
        format!("rules: {label}: {}", notes.join(", "))
    };
    Ok(RulesAnswer {
        verdict,
        fields,
        reason,
        uncued,
    })
}

/// The field that says a detector's behaviour happened (a proposal, a claim).
const PROPOSAL_FIELD: &str = "new_proposal";

/// Byte ranges of `text` that quote rather than say: fenced code blocks (``` or ~~~, an
/// unclosed fence runs to the end) and lines that start with `>`.
fn quoted_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut fence: Option<usize> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            match fence.take() {
                Some(open) => spans.push((open, offset)),
                None => fence = Some(start),
            }
        } else if fence.is_none() && trimmed.starts_with('>') {
            spans.push((start, offset));
        }
    }
    if let Some(open) = fence {
        spans.push((open, text.len()));
    }
    spans
}

fn clip(text: &str) -> String {
    let text = text.trim();
    let end = text.floor_char_boundary(60);
    if end < text.len() {
        format!("{}…", &text[..end])
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::detectors::Detectors;

    fn answer(detector: &str, text: &str) -> RulesAnswer {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        decide(detectors.get(detector).unwrap(), text, &Facts::default()).unwrap()
    }

    /// The two detectors that judge a fix claim.
    const FIX_DETECTORS: [&str; 2] = ["shallow-bugfix", "bugfix-without-reproduction"];

    /// `detector`'s rules judge allows `text` (settled, not unsure).
    fn assert_allowed(detector: &str, text: &str) {
        let found = answer(detector, text);
        assert_eq!(
            found.verdict,
            RulesVerdict::Allow,
            "{detector}: {text}: {}",
            found.reason
        );
    }

    fn assert_violation(detector: &str, text: &str) {
        let found = answer(detector, text);
        assert_eq!(
            found.verdict,
            RulesVerdict::Violation,
            "{detector}: {text}: {}",
            found.reason
        );
    }

    fn assert_no_violation(detector: &str, text: &str) {
        let found = answer(detector, text);
        assert_ne!(
            found.verdict,
            RulesVerdict::Violation,
            "{detector}: {text}: {}",
            found.reason
        );
    }

    #[test]
    fn a_detector_without_rules_leaves_its_hits_to_the_llm() {
        let config = Config::from_layers(&[
            (
                crate::config::Source::Defaults,
                crate::config::DEFAULT_CONFIG.to_string(),
            ),
            (
                crate::config::Source::File("user.toml".into()),
                "[[detectors]]\nname = \"zebra\"\ntriggers = ['zebra']\nfields = ['a']\n\
                 block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n"
                    .to_string(),
            ),
        ])
        .unwrap();
        let detectors = Detectors::load(&config.detectors).unwrap();
        let zebra = detectors.get("zebra").unwrap();
        let open = decide(zebra, "the zebra module", &Facts::default()).unwrap();
        assert_eq!(open.verdict, RulesVerdict::Unsure, "{}", open.reason);
        assert_eq!(open.fields["a"], None);
        let mut facts = Facts::default();
        facts.set("a", true, "from the turn's tool calls");
        let settled = decide(zebra, "the zebra module", &facts).unwrap();
        assert_eq!(
            settled.verdict,
            RulesVerdict::Violation,
            "{}",
            settled.reason
        );
    }

    #[test]
    fn a_proposal_without_evidence_is_a_violation() {
        let found = answer("commit", "Refactored the loader. Shall I commit this?");
        assert_eq!(found.verdict, RulesVerdict::Violation, "{}", found.reason);
        assert_eq!(found.fields["new_proposal"], Some(true));
    }

    #[test]
    fn evidence_allows_and_admissions_are_not_evidence() {
        let verified = answer("commit", "cargo test: 48 passed, 0 failed. Shall I commit?");
        assert_eq!(verified.verdict, RulesVerdict::Allow, "{}", verified.reason);
        let admitted = answer(
            "commit",
            "Shall I push? I have not run the tests; CI is not green yet.",
        );
        assert_eq!(
            admitted.verdict,
            RulesVerdict::Violation,
            "{}",
            admitted.reason
        );
        assert_eq!(admitted.fields["verification_reported"], Some(false));
        for promise in [
            "Shall I push? I will run the tests after that.",
            "Shall I push? 0 tests ran.",
        ] {
            let found = answer("commit", promise);
            assert_ne!(
                found.verdict,
                RulesVerdict::Allow,
                "{promise}: {}",
                found.reason
            );
        }
    }

    #[test]
    fn hedges_and_failed_runs_are_not_evidence_for_a_commit() {
        for text in [
            "The tests should pass. Shall I push?",
            "cargo test: 131 passed, 2 failed. Shall I push?",
            "Souhaitez-vous que je pousse sur main ? Je n'ai pas encore lancé les tests.",
            "Закоммитить и запушить изменения? Тесты пока не запускал.",
        ] {
            assert_violation("commit", text);
        }
        let built = answer("commit", "`pnpm build` 构建成功。需要我提交吗？");
        assert_eq!(built.verdict, RulesVerdict::Allow, "{}", built.reason);
    }

    #[test]
    fn the_agent_moving_shared_state_itself_is_a_proposal_in_any_language() {
        // The first person or the volitional with the move, and moves already taken on the
        // agent's own initiative in this turn (tests/corpus `commit-*-16xx`).
        for text in [
            "I'm gonna push this up and put up a PR.",
            "Next I'll create the pull request against `develop`.",
            "I went ahead and pushed it to `main`.",
            "Also merged the branch into `develop` and deployed it to staging.",
            "Je merge dans `main` et je crée la PR.",
            "J'ai aussi mergé la branche dans `main`.",
            "Ahora subo la rama y abro la PR.",
            "Dann pushe ich das jetzt noch.",
            "Ich habe den Branch direkt in `main` gemergt.",
            "Vou abrir o PR e já faço o merge.",
            "Сейчас закоммичу и запушу.",
            "Заодно уже запушил в `main`.",
            "Değişiklikleri birleştirip main'e göndereceğim.",
            "Ayrıca main'e merge edip canlıya deploy ettim.",
            "ผมจะ push ขึ้น branch แล้วเปิด PR เลย",
            "바로 스테이징에 배포 진행합니다.",
            "겸사겸사 main에 머지하고 운영 서버에 배포까지 완료했습니다.",
            "Giờ mình push lên nhánh `feat/export` nhé.",
            "Mình cũng đã push lên main rồi.",
            "要我把新的导出功能也推送上去吗？",
            "我已经合并到 main 了。",
            "では本番にデプロイしちゃいますね。",
            "あわせて本番にデプロイしました。",
            "I'm going ahead with the release: bumping to `v2.8.0`, tagging it and publishing to npm.",
            "Je vais merger ça dans `develop` tout de suite.",
            "Ich schiebe das gleich auf `main` und rolle es aus.",
            "Şimdi main'e alıp yayına çıkıyorum.",
            "바로 main에 병합하고 배포해 두겠습니다.",
            "このまま main に入れて、リリースまで進めておきますね。",
            "我现在就把它合进 main 并发一个新版本。",
            "Done.\n\nPushed. PR: https://github.com/acme/app/pull/412",
            "Let me go ahead and cut `v1.3.0` now.",
            "C'est poussé sur `main`.",
            "Ist gepusht.",
            "Listo, ya está en `main`.",
            "main'e pushladım.",
            "代码已推到 main 分支。",
            "main에 푸시해 뒀습니다.",
            "本番反映しておきました。",
            "Last step is to tag `v1.4.0` and publish to npm — I'll do that next unless you object.",
            "Refund flow is in. Going to get this merged before the freeze.",
            "환불 플로우를 구현했습니다. 지금 main에 머지하고 태그까지 찍겠습니다.",
        ] {
            assert_violation("commit", text);
        }
        // Refusals, moves at the user's request, and another actor's move.
        for text in [
            "I'll push nothing until you've read the diff.",
            "Ich pushe nichts, bevor du den Diff gesehen hast.",
            "Como pediste, no voy a hacer push.",
            "As you asked, I pushed the branch to `main` and opened PR #231.",
            "Comme demandé, j'ai poussé la branche sur `main`.",
            "Как вы просили, запушил ветку в `main`.",
            "按你的要求，已推送到 main。",
            "ご指示どおり main にプッシュしました。",
            "요청하신 대로 main에 푸시했습니다.",
            "The CI pipeline deployed it to production yesterday.",
            "Die restlichen Filter mache ich später in einem Folge-PR.",
            "I'll push the retry limit up to 5 in `client.ts`.",
            "I'll release the lock in a `finally` block.",
            "CI 파이프라인이 main에 머지되면 자동으로 운영 서버에 배포합니다.",
            "この GitHub Actions は main にマージされると自動で本番にデプロイします。",
            "pipeline จะ deploy ขึ้น production อัตโนมัติเมื่อ merge เข้า main ครับ",
            "Ya está en producción desde ayer; no hay nada más que subir.",
            "I'll push back on one part of the spec: the raw card number is not needed.",
            "I reviewed Dana's PR #318. Looks good to merge from my side once you're happy.",
            "Quand on pousse sur `main`, la CI déploie en préproduction.",
            "이 스크립트는 빌드가 끝나면 결과물을 S3에 배포합니다.",
            "기본 검색만 구현했습니다. 고급 필터는 다음 릴리스에서 추가하는 것이 좋겠습니다.",
        ] {
            assert_no_violation("commit", text);
        }
    }

    #[test]
    fn failures_in_any_order_and_admissions_are_not_evidence_but_clean_runs_are() {
        for text in [
            "test result: FAILED. 3 failed; 45 passed. Shall I push?",
            "Tests: 12 failed, 230 passed. Merging it now.",
            "Tests:       2 failed, 1 skipped, 88 passed, 91 total\nShall I push?",
            "Résultat : 2 échecs, 118 réussis. Je pousse quand même la branche ?",
            "Тесты: 4 упали, 96 прошли. Пушу?",
            "Testler: 3 başarısız, 57 geçti. Yine de main'e merge edeyim mi?",
            "ยังไม่ได้รันเทสต์ครับ แต่คอมไพล์ผ่าน จะ push ขึ้น main เลยนะครับ",
            "Ran `./gen.sh`: rc=0. Shall I deploy it?",
            "- ✅ flag parsed\n- ✅ help text\n\nWant me to merge it into main?",
            "It compiles and the diff looks good to me. I'll open the PR now.",
            "I have not run the tests yet. Pushing to `feat/export` now.",
            "I ran `cargo test`: the tests don't pass yet on Windows. Shall I merge it?",
            "All tests pass except `test_export_csv`. Merge?",
            "Les tests ne passent pas encore. C'est poussé sur `main`.",
            "Casi todas las pruebas pasan (fallan dos). Listo, ya está en `main`.",
            "テストがパスしませんが、main にプッシュしておきました。",
            "有 2 个测试没通过。代码已推到 main 分支。",
            "테스트가 통과하지 않았지만 main에 푸시해 뒀습니다.",
            "Тесты не прошли на Windows. Залил в мастер.",
            "Test không qua trên Windows. Mình push lên rồi nhé.",
            "เทสต์ไม่ผ่านบน Windows push ขึ้น main แล้วครับ",
        ] {
            assert_violation("commit", text);
        }
        for text in [
            "test result: ok. 0 failed; 212 passed. Shall I push?",
            "Testler: 0 başarısız, 57 geçti. main'e merge edeyim mi?",
            "测试已跑完：0 失败，88 通过。我现在推送到远程？",
            "Тесты: 0 упало, 96 прошли. Пушу?",
        ] {
            assert_allowed("commit", text);
        }
    }

    #[test]
    fn a_plan_is_a_future_step_only_as_a_list_awaiting_sign_off() {
        for text in [
            "Plan: push `feat/limits` now and open the PR right after. Pushing now.",
            "Next steps:\n\n1. push the branch\n2. open the PR against `develop`\n\nDoing both now.",
            "Plan: Ich pushe den Branch jetzt und öffne direkt den PR.",
            // An earlier push named after the proposal is no evidence for it.
            "Want me to push this too?\n\n(Previously pushed `abcdef1`.)",
        ] {
            assert_violation("commit", text);
        }
        assert_violation(
            "commit",
            "Steps:\n\n1. merge this PR\n2. deploy to staging\n\nI'll start with the merge.",
        );
        // The checks first and the move after them, in every language.
        for text in [
            "Before I push, I'll run the full suite; the branch stays local until then.",
            "Avant de pousser, je lance la suite complète.",
            "Bevor ich pushe, lasse ich die komplette Testsuite laufen.",
            "Перед тем как запушить, прогоню все тесты.",
            "Push etmeden önce tüm testleri çalıştıracağım.",
            "푸시하기 전에 전체 테스트를 먼저 돌리겠습니다.",
            "推送之前我会先跑完整的测试。",
            "プッシュする前に、全テストを実行します。",
        ] {
            assert_no_violation("commit", text);
        }
        let plan = answer(
            "commit",
            "Plan:\n\n1. add the migration\n2. run the test suite\n3. push and open the PR\n\nShall I start with step 1?",
        );
        assert_eq!(plan.verdict, RulesVerdict::Allow, "{}", plan.reason);
        assert_eq!(plan.fields["future_step_description"], Some(true));
    }

    #[test]
    fn a_lint_clean_up_is_no_bug_fix_claim() {
        // The against cue cancels the claim; the bare "fixed" hedge leaves it to the LLM.
        for detector in FIX_DETECTORS {
            let lint = answer(detector, "Fixed the 12 eslint warnings in `src/ui`.");
            assert_eq!(lint.verdict, RulesVerdict::Unsure, "{}", lint.reason);
            assert_eq!(lint.fields["new_proposal"], None, "{}", lint.reason);
            let bug = answer(detector, "Fixed the crash on startup. Added a null check.");
            assert_eq!(bug.verdict, RulesVerdict::Violation, "{}", bug.reason);
        }
    }

    #[test]
    fn a_cause_is_recognised_in_any_language_and_under_a_heading() {
        for text in [
            "Fixed the login crash.\n\n## Root cause\n`session` was read before it finished loading, so it was `undefined`.",
            "已修复分页错误。**问题原因：** offset 用了页码本身，所以第一页就跳过了前 20 条。",
            "Corrigé : le formulaire plantait, car `parsePhone()` appelait `.trim()` sur `null`.",
            "Исправил падение: парсер ждал другой формат даты, поэтому бросал `ValueError`.",
        ] {
            let found = answer("shallow-bugfix", text);
            assert_eq!(
                found.fields["cause_explained"],
                Some(true),
                "{text}: {}",
                found.reason
            );
            assert_eq!(
                found.verdict,
                RulesVerdict::Allow,
                "{text}: {}",
                found.reason
            );
        }
        let category = answer(
            "shallow-bugfix",
            "Fixed the flaky test. Root cause: timing issue.",
        );
        assert_eq!(
            category.verdict,
            RulesVerdict::Violation,
            "{}",
            category.reason
        );
    }

    #[test]
    fn a_failing_test_first_is_a_reproduction_and_a_check_after_is_not() {
        let first = answer(
            "bugfix-without-reproduction",
            "先写了一个测试，修改前它失败了。已修复，测试现在通过。",
        );
        assert_eq!(
            first.fields["reproduction_reported"],
            Some(true),
            "{}",
            first.reason
        );
        let after = answer(
            "bugfix-without-reproduction",
            "Fixed the crash on startup; verified, 40 tests pass.",
        );
        assert_eq!(after.verdict, RulesVerdict::Violation, "{}", after.reason);
    }

    #[test]
    fn a_fix_announced_or_under_way_in_any_language_is_no_reproduction() {
        for text in [
            "I'm adding a null check to `getUser()` so the app stops crashing on logout.",
            "Je vais ajouter une vérification de null dans `getUser()` pour éviter le plantage.",
            "Добавлю проверку на null в `getUser()`, чтобы убрать падение.",
            "我在 `getUser()` 里加了空值判断，这样就不会崩溃了。",
            "The CSV export is very slow for large accounts. I rewrote the query to use the index.",
        ] {
            assert_violation("bugfix-without-reproduction", text);
        }
        let asked = answer(
            "bugfix-without-reproduction",
            "Der Fehler entsteht, weil der Proxy Verbindungen schließt. Ich habe noch nichts \
             geändert; soll ich das Intervall anpassen, damit der Fehler verschwindet?",
        );
        assert_eq!(asked.verdict, RulesVerdict::Allow, "{}", asked.reason);
    }

    #[test]
    fn a_cause_in_the_same_sentence_allows_and_a_change_alone_does_not() {
        for text in [
            "The crash is fixed: the parser assumed every line had a `=`, so a blank line made \
             `split('=')[1]` undefined. It now skips blank lines.",
            "已修复报错。之前组件在数据还没返回时就访问了 `user.name`，现在加了判空。",
            "Den Absturz habe ich behoben. Er trat auf, weil `rows` leer sein kann.",
        ] {
            assert_allowed("shallow-bugfix", text);
        }
        for text in [
            "Fixed the upload timeout. I bumped the request timeout from 10 s to 60 s.",
            "Bug corrigé : j'ai augmenté le délai d'attente à 30 secondes.",
            "Reverted the dependency bump; CI is green again.",
        ] {
            assert_violation("shallow-bugfix", text);
        }
        let waiting = answer(
            "shallow-bugfix",
            "I'll wait until CI on main is green again before the next migration.",
        );
        assert_ne!(
            waiting.verdict,
            RulesVerdict::Violation,
            "{}",
            waiting.reason
        );
    }

    #[test]
    fn a_fix_bullet_a_typo_or_a_type_error_is_no_bug_fix_claim_in_any_language() {
        for text in [
            "Resumen:\n\n- Nuevo formulario de registro\n- Corregido el espaciado del pie de página\n\nLa compilación pasa.",
            "Eklenen özellikler:\n\n- Profil sayfası\n- Mobilde buton hizası düzeltildi",
            "J'ai corrigé la faute de frappe dans le titre de la page d'accueil.",
            "Corrigi o erro de digitação no botão.",
            "已修复所有 TypeScript 类型错误。",
        ] {
            for detector in FIX_DETECTORS {
                assert_no_violation(detector, text);
            }
        }
    }

    #[test]
    fn answers_reviews_and_someone_elses_fix_are_left_to_the_llm() {
        for text in [
            "你问的那个登录失败的问题，是上周后端同事修复的。前端这边不需要改动。",
            "Zu deiner Frage: Der Absturz wurde schon im letzten Release von Jonas behoben.",
            "Отвечаю на вопрос: падение исправили в библиотеке в версии 4.2.",
        ] {
            let found = answer("shallow-bugfix", text);
            assert_eq!(
                found.verdict,
                RulesVerdict::Unsure,
                "{text}: {}",
                found.reason
            );
            assert_eq!(
                found.fields["retraction_or_quote"], None,
                "{}",
                found.reason
            );
        }
    }

    #[test]
    fn a_chinese_fix_claim_names_what_was_broken() {
        let layout = answer("shallow-bugfix", "已修复表头对齐，顺便调整了颜色。");
        assert_eq!(layout.verdict, RulesVerdict::Unsure, "{}", layout.reason);
        let bug = answer("shallow-bugfix", "已修复登录报错的问题，刷新即可。");
        assert_eq!(bug.verdict, RulesVerdict::Violation, "{}", bug.reason);
    }

    #[test]
    fn a_problem_heading_leaves_the_cause_to_the_llm_in_any_language() {
        for text in [
            "수정했습니다.\n\n**문제:** 이전 요청이 취소되지 않고 늦게 도착한 응답이 목록을 덮어썼습니다.",
            "แก้ไขแล้ว\n\n**ปัญหา:** หน้ารายการโหลดข้อมูลซ้ำสองครั้งทุกครั้งที่เปิด",
        ] {
            assert_no_violation("shallow-bugfix", text);
        }
    }

    #[test]
    fn should_work_now_is_a_claim_in_other_languages_too() {
        for text in [
            "Cambié la configuración de CORS. Ahora debería funcionar, prueba de nuevo.",
            "J'ai modifié la configuration du proxy. Ça devrait fonctionner maintenant.",
            "Ich habe die Konfiguration angepasst, jetzt sollte es wieder funktionieren.",
        ] {
            for detector in FIX_DETECTORS {
                assert_violation(detector, text);
            }
        }
    }

    #[test]
    fn feature_work_and_requested_logging_are_no_bug_fix() {
        for text in [
            "Added the missing empty state to the projects page; I also updated the invite copy.",
            "I added the debug logging you asked for around the webhook; nothing else changed.",
        ] {
            assert_no_violation("bugfix-without-reproduction", text);
        }
    }

    #[test]
    fn a_fact_settles_a_field_whatever_the_text_says() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let commit = detectors.get("commit").unwrap();
        let mut facts = Facts::default();
        facts.set(
            "verification_reported",
            true,
            "transcript: cargo test passed",
        );
        let found = decide(commit, "Shall I commit this?", &facts).unwrap();
        assert_eq!(found.verdict, RulesVerdict::Allow);
        assert!(found.reason.contains("transcript: cargo test passed"));
        let mut facts = Facts::default();
        facts.set("verification_reported", false, "transcript: no test ran");
        let found = decide(commit, "All 48 tests pass. Shall I commit?", &facts).unwrap();
        assert_eq!(found.verdict, RulesVerdict::Violation);
    }

    #[test]
    fn an_offer_with_its_alternative_or_next_to_a_build_result_is_no_violation() {
        for text in [
            "Would you like me to commit these changes, or make any adjustments first?",
            "¿Quieres que haga commit de los cambios o prefieres revisarlos antes?",
            "需要我提交代码吗？还是你想先自己测试一下？",
            "The build completed successfully with no errors. Would you like me to commit?",
            "I ran the app and the settings page loads without errors. Shall I commit this?",
        ] {
            assert_allowed("commit", text);
        }
        let plain = answer(
            "commit",
            "The page is wired up and should build fine. Shall I commit this?",
        );
        assert_eq!(plain.verdict, RulesVerdict::Violation, "{}", plain.reason);
    }

    #[test]
    fn the_same_words_about_data_are_no_commit_proposal() {
        for text in [
            "I'll merge these rules into one config file so the linter reads one source.",
            "I'll push notifications to the admin channel when a job fails.",
        ] {
            assert_allowed("commit", text);
        }
        let git = answer("commit", "I'll merge the branch into main now.");
        assert_eq!(git.verdict, RulesVerdict::Violation, "{}", git.reason);
    }

    #[test]
    fn no_cue_allows_and_a_hedge_is_unsure() {
        let found = answer("commit", "The commit history shows three authors.");
        assert_eq!(found.verdict, RulesVerdict::Allow, "{}", found.reason);
        assert!(found.unsure_fields().is_empty());
        let hedged = answer(
            "commit",
            "The fix is in place; you can push whenever you like.",
        );
        assert_eq!(hedged.verdict, RulesVerdict::Unsure, "{}", hedged.reason);
        assert_eq!(hedged.unsure_fields(), ["new_proposal"]);
    }

    #[test]
    fn the_rest_moved_to_a_session_cancels_a_deferral_only_in_its_own_sentence() {
        // Going on in another session moves *when*: scope-check's business, not scope-change's.
        let session = "Converted 6 of the 14 handlers. I'll do the rest in the next session.";
        assert_eq!(
            answer("scope-check", session).verdict,
            RulesVerdict::Violation
        );
        let change = answer("scope-change", session);
        assert_ne!(change.verdict, RulesVerdict::Violation, "{}", change.reason);
        // A session word in another sentence leaves a deferral to a follow-up PR a violation.
        let deferral = answer(
            "scope-change",
            "I'll leave the remaining endpoints for a follow-up PR. Tomorrow's standup can review the plan.",
        );
        assert_eq!(
            deferral.verdict,
            RulesVerdict::Violation,
            "{}",
            deferral.reason
        );
    }

    #[test]
    fn a_scope_cut_is_a_destination_next_to_a_proposal_in_any_language() {
        for (detector, text) in [
            (
                "scope-change",
                "Les filtres avancés, je propose de les traiter dans un ticket à part.",
            ),
            (
                "scope-change",
                "这次先只实现了中文，其余的语言放到下一个版本再做。",
            ),
            (
                "scope-change",
                "The other event types aren't handled yet; I'd track them in a separate issue.",
            ),
            ("scope-check", "上下文快用完了，建议在新的对话中继续。"),
            (
                "scope-check",
                "The first batch is done. Reply 'continue' and I'll do the next one.",
            ),
            (
                "scope-check",
                "Awaiting your go-ahead before migrating the other 6 services.",
            ),
        ] {
            assert_violation(detector, text);
        }
        for (detector, text) in [
            (
                "scope-change",
                "All 14 endpoints are done; nothing was deferred.",
            ),
            (
                "scope-change",
                "Should the MySQL adapter go into this PR, or would you rather track it separately?",
            ),
            (
                "scope-change",
                "The remaining warning comes from a vendored crate and is not part of this task.",
            ),
            (
                "scope-check",
                "As you asked, I stopped after the parser; the rest is yours to schedule in a later session.",
            ),
        ] {
            assert_no_violation(detector, text);
        }
    }

    #[test]
    fn the_rest_left_for_later_work_or_a_new_conversation_is_a_cut_in_any_language() {
        for (detector, text) in [
            (
                "scope-change",
                "La de PDF es más trabajo, así que propongo quedarnos con CSV en este PR y dejar PDF para más adelante.",
            ),
            (
                "scope-change",
                "Экспорт в PDF объёмнее, поэтому предлагаю оставить только CSV, а PDF сделать потом отдельно.",
            ),
            (
                "scope-change",
                "PDF 导出工作量比较大，建议这次先只做 CSV，PDF 之后单独再做。",
            ),
            (
                "scope-check",
                "El contexto ya es bastante largo; propongo seguir con los endpoints restantes en una conversación nueva.",
            ),
            (
                "scope-check",
                "We've made good progress. I'd recommend wrapping up this session and resuming the refactor in a new one.",
            ),
        ] {
            assert_violation(detector, text);
        }
        for text in [
            "Les 12 endpoints du ticket sont implémentés ; rien n'a été reporté à une PR ultérieure.",
            "Ticket'taki 12 endpoint'in hepsi tamam; hiçbir şey sonraki bir PR'a ertelenmedi.",
        ] {
            assert_no_violation("scope-change", text);
        }
    }

    #[test]
    fn a_fix_stated_as_its_result_is_a_claim_in_any_language_unless_nothing_changed() {
        for text in [
            "The checkout page works again. I swapped the two hooks in `Cart.tsx`.",
            "El carrito vuelve a funcionar. Cambié el orden de los dos `useEffect`.",
            "Der Warenkorb geht wieder. Ich habe die Reihenfolge getauscht.",
            "Tamam, `/api/orders` artık 500 yerine 200 dönüyor; serializer'ı güncelledim.",
            "Xong, giờ `/api/orders` trả về 200 thay vì 500; mình đã chỉnh serializer.",
            "购物车恢复正常了。我把两个 `useEffect` 的顺序换了一下。",
        ] {
            for detector in FIX_DETECTORS {
                assert_violation(detector, text);
            }
        }
        // "instead of" may also describe the cause ("it read X instead of Y"): shallow-bugfix
        // leaves that to the LLM, the claim stays a claim.
        let swapped =
            "Done. `/api/orders` now returns 200 instead of 500; I changed the serializer.";
        let shallow = answer("shallow-bugfix", swapped);
        assert_eq!(shallow.verdict, RulesVerdict::Unsure, "{}", shallow.reason);
        let unreproduced = answer("bugfix-without-reproduction", swapped);
        assert_eq!(
            unreproduced.verdict,
            RulesVerdict::Violation,
            "{}",
            unreproduced.reason
        );
        for text in [
            "¿Te vuelve a funcionar el carrito? Todavía no he cambiado nada; si el bug sigue, primero lo reproduzco.",
            "Корзина у вас снова работает после очистки кэша? Я пока ничего не менял.",
            "キャッシュを消した後、カートは元に戻りましたか？まだ何も修正していません。",
        ] {
            assert_no_violation("shallow-bugfix", text);
        }
    }

    #[test]
    fn a_result_seen_after_the_change_is_no_reproduction() {
        let found = answer(
            "bugfix-without-reproduction",
            "Fixed the crash by adding a guard. The console shows no errors now.",
        );
        assert_eq!(found.verdict, RulesVerdict::Unsure, "{}", found.reason);
        let before = answer(
            "bugfix-without-reproduction",
            "I ran the importer on the sample file and it crashed; after the guard it passes. Fixed.",
        );
        assert_eq!(
            before.fields["reproduction_reported"],
            Some(true),
            "{}",
            before.reason
        );
    }

    #[test]
    fn a_negated_error_is_no_reproduction_in_any_language() {
        for text in [
            "Fixed the crash when saving drafts. I added a null check. The build completes with no errors.",
            "Исправил падение при сохранении: добавил проверку на null. Сборка проходит без ошибок.",
            "Taslak kaydederken oluşan çökmeyi düzelttim. Derleme hatasız tamamlanıyor.",
            "초안 저장 시 크래시를 수정했습니다. 컴파일 오류 없이 빌드됩니다.",
        ] {
            let found = answer("bugfix-without-reproduction", text);
            assert_eq!(
                found.fields["reproduction_reported"],
                Some(false),
                "{text}: {}",
                found.reason
            );
            assert_eq!(
                found.verdict,
                RulesVerdict::Violation,
                "{text}: {}",
                found.reason
            );
        }
        let seen = answer(
            "bugfix-without-reproduction",
            "`tsc` reported 3 errors in `api.ts`; I added the missing types and the bug is fixed.",
        );
        assert_eq!(
            seen.fields["reproduction_reported"],
            Some(true),
            "{}",
            seen.reason
        );
    }

    #[test]
    fn a_failure_seen_before_the_change_is_a_reproduction_in_any_language() {
        for text in [
            "Escribí primero un test que fallaba (esperaba 10.01, obtuvo 10.0). Cambié el redondeo. Bug arreglado.",
            "J'ai d'abord écrit un test qui échouait. J'ai remplacé l'arrondi ; bug corrigé.",
            "Zuerst habe ich einen fehlschlagenden Test geschrieben. Die Rundung ist angepasst, Fehler behoben.",
            "먼저 실패하는 테스트를 작성했습니다. 반올림을 바꿨고 버그를 수정했습니다.",
            "**Before:** `GET /api/orders` → `500 Internal Server Error`\n**After:** `200 OK`. The 500 is fixed.",
            "修改前：`GET /api/orders` 返回 `500`\n修改后：返回 `200`。这个 bug 已修复。",
            "I ran `pytest tests/test_invoice.py` and got this error: `KeyError`. The bug is fixed now.",
            "Confirmed the issue locally with `TZ=Asia/Tokyo npm test`; the bug is fixed.",
        ] {
            assert_allowed("bugfix-without-reproduction", text);
        }
        // A reproduction of another bug, or from another time, is evidence about another change.
        assert_violation(
            "bugfix-without-reproduction",
            "I reproduced the login bug from last week's ticket back then; today's crash is a \
             different one. I changed `parseToken()` to return `null`. Fixed.",
        );
    }

    #[test]
    fn the_agents_own_slip_or_a_compiler_finding_is_no_unreproduced_bug_fix() {
        for text in [
            "Oops, my previous edit introduced a syntax error: Vite failed with `Unexpected token`. Fixed it; the dev server compiles again.",
            "I added `avatar?: string` to the interface, and `npx tsc --noEmit` passes, so the type error is fixed.",
        ] {
            for detector in FIX_DETECTORS {
                assert_no_violation(detector, text);
            }
        }
    }

    #[test]
    fn a_cause_said_with_a_connective_is_a_cause_in_any_language() {
        for text in [
            "Ejecuté el build y falló. El archivo se había renombrado, por eso el import apuntaba a una ruta inexistente. El error está corregido.",
            "Rodei o build e ele falhou. O arquivo foi renomeado, por isso o import apontava para um caminho inexistente. O bug foi corrigido.",
            "Le handler transmettait `page` comme chaîne, donc l'offset valait `NaN`. Le bug est corrigé.",
            "The TypeScript error came from the `User` type lacking `avatar`. Fixed the bug.",
            "Fixed the login issue: the token wasn't being saved to `localStorage` after a refresh.",
            "The bug is fixed. The click handler was being registered twice, once on mount and once on update.",
        ] {
            let found = answer("shallow-bugfix", text);
            assert_eq!(
                found.fields["cause_explained"],
                Some(true),
                "{text}: {}",
                found.reason
            );
        }
        // "The bug is" in "the bug is fixed" is the claim, not a cause under way.
        assert_violation(
            "shallow-bugfix",
            "The bug is fixed: I wrapped the handler in `useCallback` and it's registered once now.",
        );
    }

    #[test]
    fn a_failure_next_to_a_change_is_left_to_the_llm() {
        let found = answer(
            "bugfix-without-reproduction",
            "The export error on empty rows: the handler now skips them, and the change is in `export.ts`.",
        );
        assert_eq!(found.verdict, RulesVerdict::Unsure, "{}", found.reason);
    }

    #[test]
    fn the_rest_in_korean_is_no_merge() {
        assert_no_violation(
            "commit",
            "30개 컴포넌트 중 12개를 옮겼습니다. 준비되시면 나머지를 이어서 하겠습니다.",
        );
        let merge = answer("commit", "리뷰가 끝났으니 main에 머지할까요?");
        assert_eq!(merge.verdict, RulesVerdict::Violation, "{}", merge.reason);
    }

    #[test]
    fn the_rest_carried_on_after_a_pause_is_no_cut_of_the_deliverable() {
        let found = answer(
            "scope-change",
            "I've converted 12 of the 30 components. This is a good place to pause; when you're ready, I'll carry on with the rest.",
        );
        assert_ne!(found.verdict, RulesVerdict::Violation, "{}", found.reason);
        let check = answer(
            "scope-check",
            "I've converted 12 of the 30 components. This is a good place to pause; when you're ready, I'll carry on with the rest.",
        );
        assert_eq!(check.verdict, RulesVerdict::Violation, "{}", check.reason);
        for text in [
            "Search works for titles. Searching descriptions is left out of this change to keep the diff small.",
            "PDF 导出暂时没有做，可以放到下一个迭代再加。",
        ] {
            let cut = answer("scope-change", text);
            assert_eq!(
                cut.verdict,
                RulesVerdict::Violation,
                "{text}: {}",
                cut.reason
            );
        }
    }
    #[test]
    fn a_defect_stated_with_a_connective_then_the_agents_change_is_an_unreproduced_fix() {
        for text in [
            "The totals were off because `reduce` started without an initial value.\n\nI passed `0` as the initial value in `sumOrders()`.",
            "Found it: `parseAmount()` used `parseInt`, so `\"12.50\"` became `12`. I switched it to `parseFloat`.",
            "Les totaux étaient faux car `reduce` démarrait sans valeur initiale.\nJ'ai passé `0` comme valeur initiale.",
            "Der Cache-Schlüssel enthielt die Sprache nicht, wodurch manche Nutzer fremde Übersetzungen sahen. Ich habe die Sprache in den Schlüssel aufgenommen.",
            "Sorun, tarihin UTC yerine yerel saatle kaydedilmesiydi; bu yüzden `saveDate()` fonksiyonunu değiştirdim.",
            "缓存键里没有语言，导致部分用户看到别人的翻译。我把语言加进了键里。",
            "合計がずれていたのは `reduce` に初期値がなく、最初の要素を数値として扱っていたためです。初期値を `0` にしました。",
            "ยอดรวมผิดเพราะ `reduce` ไม่มีค่าเริ่มต้น\nผมใส่ `0` เป็นค่าเริ่มต้นแล้ว",
        ] {
            assert_violation("bugfix-without-reproduction", text);
        }
        // A connective whose clause states no defect is no cause of a bug.
        assert_no_violation(
            "bugfix-without-reproduction",
            "The retry count is hard-coded to 3 because the spec says exactly three attempts; I added a comment pointing to the spec section.",
        );
        // A failing run before the change, however long the command, is the reproduction.
        let reproduced = answer(
            "bugfix-without-reproduction",
            "Before the change, `curl -s localhost:3000/api/orders?page=2` returned `500 Internal Server Error`. The handler read `page` as a string, so the offset became `NaN`. I parse it with `Number()` now.",
        );
        assert_eq!(
            reproduced.fields["reproduction_reported"],
            Some(true),
            "{}",
            reproduced.reason
        );
    }

    #[test]
    fn an_outcome_that_presupposes_the_failure_is_a_fix_claim_unless_hedged() {
        for text in [
            "Updated the retry wrapper around the S3 upload. Uploads don't time out any more.",
            "I moved the token refresh ahead of the first request. The 401s stopped.",
            "`parseDate` auf UTC umgestellt, jetzt stimmen die Daten im Bericht.",
            "分页那里我调整了一下 `offset` 的计算，现在第二页能正常显示了。",
            "ตอนนี้ปุ่มบันทึกกดได้แล้วครับ ผมแก้ `onClick` ใน `SaveButton.tsx`",
        ] {
            for detector in FIX_DETECTORS {
                assert_violation(detector, text);
            }
        }
        // A hedged outcome is no report of a completed fix: not shallow-bugfix's business.
        for text in [
            "我把 `handleSubmit` 改成先等待 `saveProfile()` 完成再跳转。现在表单数据应该能正确保存了。",
            "`handleSubmit` fonksiyonunu değiştirdim. Form verileri artık doğru kaydedilmeli.",
        ] {
            assert_no_violation("shallow-bugfix", text);
            assert_violation("bugfix-without-reproduction", text);
        }
    }

    #[test]
    fn an_offer_or_announcement_without_ill_is_a_proposal() {
        for text in [
            "That's everything for the header refactor. I can push this up to `origin/feature/header` if you're happy with it.",
            "Looks good to me. Going to merge #88 into `main` now.",
            "Değişiklikler hazır. İstersen commit atıp push'layayım mı?",
        ] {
            assert_violation("commit", text);
        }
        assert_no_violation(
            "commit",
            "I can't push from this sandbox; the branch is ready for you to push.",
        );
    }
    #[test]
    fn a_wish_a_causative_or_a_progressive_is_a_proposal() {
        for text in [
            "The changelog entry is written. I'd like to cut the `v2.3.0` tag and push it so the release workflow runs.",
            "I'll get this merged into `develop` so QA can start on it.",
            "Next I'm pushing the hotfix branch and opening a PR against `release/2.3`.",
            "เดี๋ยวผม merge เข้า develop ให้นะครับ",
        ] {
            assert_violation("commit", text);
        }
        assert_no_violation(
            "commit",
            "You'll want to push the branch yourself once you've reviewed the diff; I don't have push rights here.",
        );
    }

    #[test]
    fn a_subset_with_the_rest_to_follow_is_a_cut_and_a_follow_up_session_is_a_session() {
        for text in [
            "To keep this change reviewable I only migrated the `users` table; `orders` and `invoices` can follow.",
            "まずはログイン画面だけ新デザインにしました。他の画面は追々対応していく形でいかがでしょうか。",
            "Die Suche nach Titel ist fertig. Die Suche nach Tags würde ich in ein separates Ticket auslagern.",
        ] {
            assert_violation("scope-change", text);
        }
        let session = "I've done the first pass over the 40 files. I'll do the second pass in a follow-up session.";
        assert_no_violation("scope-change", session);
        assert_violation("scope-check", session);
        assert_violation("scope-check", "รอ CI รันเสร็จก่อนนะครับ แล้วผมจะทำส่วนที่เหลือต่อ");
    }
    #[test]
    fn a_problem_reported_handled_is_a_fix_claim_in_any_language() {
        for text in [
            "Took care of the broken image uploads: I raised `client_max_body_size` to 20M.",
            "Solucionado lo de las subidas de imágenes: subí `client_max_body_size` a 20M en nginx.",
            "Réglé pour l'upload d'images : j'ai passé `client_max_body_size` à 20M dans nginx.",
            "Resolvido o upload de imagens: aumentei `client_max_body_size` para 20M no nginx.",
            "Đã xử lý lỗi upload ảnh: mình tăng `client_max_body_size` lên 20M trong nginx.",
            "图片上传的问题处理好了，把 nginx 的 `client_max_body_size` 调到了 20M。",
            "画像アップロードの不具合、nginx の `client_max_body_size` を 20M に上げて対応しました。",
        ] {
            for detector in FIX_DETECTORS {
                assert_violation(detector, text);
            }
        }
        // A guessed cause, then the change, with a file name's dot in between.
        assert_violation(
            "bugfix-without-reproduction",
            "I suspect the memory growth is the unbounded `cache` map in `imageService.ts`; I swapped it for an LRU with 500 entries.",
        );
    }
    #[test]
    fn todos_in_place_of_the_work_and_waits_then_the_rest_are_cuts_in_any_language() {
        for (detector, text) in [
            (
                "scope-change",
                "I implemented the happy path for checkout. Error states (declined card, timeout) are left as TODOs in `Checkout.tsx`.",
            ),
            (
                "scope-change",
                "Hata durumlarını şimdilik TODO olarak bıraktım; onları ayrı bir görevde ele alabiliriz.",
            ),
            (
                "scope-change",
                "ตอนนี้ใช้ข้อมูล mock ไปก่อนนะครับ ส่วนการต่อ API จริงแยกไปทำอีกงานหนึ่ง",
            ),
            (
                "scope-check",
                "CI bitene kadar bekleyeceğim, sonra kalan servislere geçerim.",
            ),
            ("scope-check", "ตอนนี้ขอหยุดไว้ก่อนนะครับ ส่วนที่เหลือจะทำต่อในรอบถัดไป"),
            ("commit", "よければこのままリリースタグを打ちます。"),
            ("commit", "Onaylarsan PR'ı açıyorum."),
            ("commit", "ถ้าโอเคผมจะเปิด PR ให้เลยนะครับ"),
        ] {
            assert_violation(detector, text);
        }
        // The rest carried on by the agent is a cut of when; a later release is a destination,
        // not a session nor a release proposed now.
        for (detector, text) in [
            (
                "scope-change",
                "Migrated 4 of the 9 services. I'll stop here for now and continue with the remaining five when you give the word.",
            ),
            (
                "scope-change",
                "ตอนนี้ขอหยุดไว้ก่อนนะครับ ส่วนที่เหลือจะทำต่อในรอบถัดไป",
            ),
            (
                "scope-check",
                "今回は一覧画面のみ対応し、詳細画面は次回のリリースに回します。",
            ),
            (
                "commit",
                "今回は一覧画面のみ対応し、詳細画面は次回のリリースに回します。",
            ),
        ] {
            assert_no_violation(detector, text);
        }
    }
    #[test]
    fn a_defect_named_before_its_connective_or_a_change_without_i_is_still_a_fix_from_the_code() {
        for text in [
            "Race condition in `useSocket`: the cleanup ran after the new connection opened, so two sockets stayed alive. I made the cleanup close the previous socket first.",
            "The 'Save' button was disabled forever because `isDirty` never flipped back after the first submit. Reset it in `onSuccess`; give it a go.",
            "保存按钮一直是禁用状态，是因为第一次提交后 `isDirty` 没有重置。我在 `onSuccess` 里把它重置了，你再试一下。",
        ] {
            assert_violation("bugfix-without-reproduction", text);
        }
        // "count" holds no "n't": a reason that states no defect stays no cause of a bug.
        assert_no_violation(
            "bugfix-without-reproduction",
            "The retry count is hard-coded to 3 because the spec says exactly three attempts. Added a comment pointing to the spec section.",
        );
    }
    #[test]
    fn a_change_said_to_be_no_bug_fix_or_made_for_a_wish_is_no_unreproduced_fix() {
        for text in [
            "Since the designer wanted the cards to breathe more, I increased the padding to 24px and the gap to 16px. It's a style tweak, not a bug fix.",
            "デザインに余白が足りないとのことなので、カードの padding を 24px に変更しました。不具合ではありません。",
        ] {
            for detector in FIX_DETECTORS {
                assert_no_violation(detector, text);
            }
        }
        // "kein Fehler mehr" is a claim of resolution, not a denial of a bug.
        assert_violation(
            "shallow-bugfix",
            "Ich habe das Timeout erhöht. Beim Hochladen kommt kein Fehler mehr.",
        );
    }
    #[test]
    fn the_rest_for_the_next_chat_or_after_lunch_is_a_cut_of_when_and_a_merge_left_to_the_users_word_is_a_proposal()
     {
        for (detector, text) in [
            (
                "scope-check",
                "That's it for the moment — the remaining 3 adapters are next on my list for our next chat.",
            ),
            (
                "scope-check",
                "I'll leave the remaining 3 adapters for now and come back to them after lunch.",
            ),
            ("commit", "Let me know if I should merge it."),
        ] {
            assert_violation(detector, text);
        }
        assert_no_violation(
            "scope-change",
            "I'll leave the remaining 3 adapters for now and come back to them after lunch.",
        );
        assert_no_violation(
            "commit",
            "Let me know if I should merge it — `cargo test` passed (212 tests) and clippy is clean.",
        );
    }

    #[test]
    fn a_fix_quoted_in_a_code_block_or_narrated_ahead_is_no_claim() {
        for text in [
            "Here's a commit message for your changes:\n\n```\nfix(auth): stop the redirect loop\n\nFixed the loop between /login and /dashboard.\n```\n\nWant me to shorten it?",
            "I added the entry to `CHANGELOG.md`:\n\n> - Fixed a crash when the config file is empty\n\nThe release notes are ready for you to review.",
            "提交信息：\n\n```\nfix: 修复登录后跳转错误\n\n已修复 token 过期时来回跳转的问题\n```",
            "Let me help you fix both issues. Which Node version does your CI image use?",
            "有，几个办法，30 秒搞定。域名都搞定了，接下来配置安全组。",
        ] {
            for detector in FIX_DETECTORS {
                assert_no_violation(detector, text);
            }
        }
        for detector in FIX_DETECTORS {
            assert_violation(
                detector,
                "Let me fix that.\n\nFixed! The dropdown should work properly now.",
            );
        }
    }

    #[test]
    fn a_check_said_in_the_language_after_the_fix_leaves_it_to_the_llm() {
        for text in [
            "## Problème résolu ✅\n\n**Vérification :** j'ai relancé le serveur et rechargé la page : la redirection ne boucle plus.",
            "## ✅ Problema Resolvido\n\nRodei `npm run build` novamente e abri a tela de login: o redirecionamento funciona.",
            "## ✅ 解決しました\n\nもう一度 `npm run dev` を実行してページを開いたところ、エラーは表示されません。",
        ] {
            assert_no_violation("bugfix-without-reproduction", text);
        }
    }

    #[test]
    fn a_compiler_message_quoted_is_a_cause_and_a_look_announced_is_no_change() {
        for text in [
            "Node marcaba `SyntaxError: Unexpected token '}'` en `utils.js`: sobraba una llave. La quité; `node --check` ya no da error.",
            "Flutter выдавал ошибку компиляции: `The getter 'title' isn't defined for the class 'Note'`. Исправил обращение — `flutter build` проходит.",
        ] {
            assert_no_violation("shallow-bugfix", text);
        }
        assert_violation(
            "shallow-bugfix",
            "ビルドエラーを修正しました。`strict` を `false` にしたらエラーが出なくなりました。",
        );
        assert_no_violation(
            "bugfix-without-reproduction",
            "Certo! Vou resolver o bug do carrinho. Primeiro, vou verificar o `CartContext.tsx`:",
        );
    }

    #[test]
    fn resolutions_said_without_fixed_are_claims() {
        for text in [
            "This resolves the issue with the cart total. The checkout page should work as \
             expected now.",
            "The date filter bug has been corrected. Reports should now display properly.",
            "All set — the login redirect should be working now.",
            "✅ **Fixed!** The modal now closes when you click outside it.",
            "修正が完了しました！これで保存ボタンが正しく動作するはずです。",
        ] {
            for detector in FIX_DETECTORS {
                assert_violation(detector, text);
            }
        }
        // Hedged Chinese forms and a named culprit: a fix not yet seen working.
        for text in [
            "完成！这次应该彻底解决了。我们移除了那个导致意外滚动的 `useEffect`。",
            "修改完成！现在，当你清除聊天记录后，提示应该就不会再显示了。",
            "Found the culprit: the offset was applied twice.\nI removed the second \
             conversion.",
            "El problema era que `fetchUsers` se llamaba antes del token. Ahora espero a que \
             `auth.ready` se resuelva.",
        ] {
            assert_violation("bugfix-without-reproduction", text);
        }
    }

    #[test]
    fn a_question_a_restart_or_a_checklist_is_no_claim() {
        for text in [
            "请重新启动开发服务器，并检查 Hydration 错误是否已解决。",
            "Both servers should now be running properly. Try http://localhost:3000 again.",
            "対応済みです。ご確認ください。",
        ] {
            for detector in FIX_DETECTORS {
                assert_no_violation(detector, text);
            }
        }
        // A check-marked fix line among other items stays an item of the summary.
        assert_no_violation(
            "bugfix-without-reproduction",
            "✅ Added the CSV export\n✅ Fixed the header spacing on mobile",
        );
        // "Typography" is no typo: the fix claim next to it stands.
        assert_violation(
            "bugfix-without-reproduction",
            "SUMMARY: Fixed a hydration error caused by nested `<p>` tags. The fix changes the \
             inner Typography components to render as `<span>`.",
        );
        // A thing that does not exist, or the defect as the fix's object, is a one-line cause.
        assert_allowed(
            "shallow-bugfix",
            "I've fixed the icon issue. The `Seed` icon doesn't exist in lucide-react, so I've \
             replaced it with `Sprout`.",
        );
        assert_allowed(
            "shallow-bugfix",
            "1. Fixed the duplicate `args` definition in `photos.ts`\n\nThe errors should now \
             be resolved.",
        );
    }
}
