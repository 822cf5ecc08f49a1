//! Reading the judge's reply: find its verdict object (code fences and prose around it
//! are tolerated), and read the detector's boolean fields from it.

use std::collections::BTreeMap;

/// The fields and reason a judge returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeReply {
    pub fields: BTreeMap<String, bool>,
    pub reason: Option<String>,
}

/// Finds the judge's verdict in `reply`: the LAST top-level JSON object that has at least one of
/// `fields` (or, failing that, the last JSON object at all). Last, because a judge that quotes
/// the agent's text or an example verdict before its own answer ends with its own answer; an
/// object nested in another one (or inside one of its strings) is part of that object, never a
/// verdict of its own. A field that is missing or not a boolean counts as false.
pub fn parse_reply(reply: &str, fields: &[String]) -> Result<JudgeReply, String> {
    let mut last_object = None;
    let mut last_with_fields = None;
    let mut from = 0;
    while let Some(offset) = reply[from..].find('{') {
        let start = from + offset;
        let mut stream =
            serde_json::Deserializer::from_str(&reply[start..]).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(serde_json::Value::Object(object))) => {
                from = start + stream.byte_offset();
                if fields.iter().any(|f| object.contains_key(f)) {
                    last_with_fields = Some(object);
                } else {
                    last_object = Some(object);
                }
            }
            _ => from = start + 1,
        }
    }
    match last_with_fields.or(last_object) {
        Some(object) => Ok(read_fields(&object, fields)),
        None => Err(format!(
            "the judge's reply has no JSON object: {}",
            excerpt(reply)
        )),
    }
}

fn read_fields(
    object: &serde_json::Map<String, serde_json::Value>,
    fields: &[String],
) -> JudgeReply {
    let fields = fields
        .iter()
        .map(|f| {
            (
                f.clone(),
                object.get(f).and_then(|v| v.as_bool()).unwrap_or(false),
            )
        })
        .collect();
    let reason = object
        .get("reason")
        .and_then(|v| v.as_str())
        .map(str::to_string);
    JudgeReply { fields, reason }
}

fn excerpt(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return "(empty)".into();
    }
    let end = trimmed.floor_char_boundary(120);
    let mut out = trimmed[..end].replace('\n', " ");
    if end < trimmed.len() {
        out.push('…');
    }
    format!("`{out}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Vec<String> {
        vec!["new_proposal".into(), "verification_reported".into()]
    }

    #[test]
    fn plain_fenced_and_prose_wrapped_objects() {
        for reply in [
            r#"{"new_proposal": true, "verification_reported": false, "reason": "r"}"#,
            "```json\n{\"new_proposal\": true, \"reason\": \"r\"}\n```",
            "Sure! Here is my verdict:\n{\"new_proposal\": true}\nHope that helps {not json}",
        ] {
            let parsed = parse_reply(reply, &fields()).unwrap();
            assert!(parsed.fields["new_proposal"], "{reply}");
            assert!(!parsed.fields["verification_reported"], "{reply}");
        }
    }

    #[test]
    fn object_with_our_fields_wins_over_an_earlier_unrelated_one() {
        let reply = r#"{"note": 1} then {"new_proposal": true}"#;
        assert!(parse_reply(reply, &fields()).unwrap().fields["new_proposal"]);
    }

    #[test]
    fn the_last_verdict_wins_over_a_quoted_one() {
        let reply = "The agent wrote {\"new_proposal\": false, \"reason\": \"fake\"} in its text.\n\
                     My verdict: {\"new_proposal\": true, \"reason\": \"real\"}";
        let parsed = parse_reply(reply, &fields()).unwrap();
        assert!(parsed.fields["new_proposal"]);
        assert_eq!(parsed.reason.as_deref(), Some("real"));
        // An object inside the verdict (or inside one of its strings) is not a verdict.
        let nested = r#"{"new_proposal": true, "reason": "quoted {\"new_proposal\": false}", "extra": {"new_proposal": false}}"#;
        assert!(parse_reply(nested, &fields()).unwrap().fields["new_proposal"]);
        // A later object without our fields does not displace the verdict.
        let trailing = r#"{"new_proposal": true} and some metadata {"tokens": 12}"#;
        assert!(parse_reply(trailing, &fields()).unwrap().fields["new_proposal"]);
    }

    #[test]
    fn non_boolean_and_missing_fields_are_false() {
        let parsed = parse_reply(r#"{"new_proposal": "yes"}"#, &fields()).unwrap();
        assert!(!parsed.fields["new_proposal"]);
        assert!(!parsed.fields["verification_reported"]);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_reply("I think it is fine.", &fields()).is_err());
        assert!(parse_reply("", &fields()).is_err());
        assert!(parse_reply("[true, false]", &fields()).is_err());
        assert!(parse_reply("{{{{", &fields()).is_err());
    }
}
