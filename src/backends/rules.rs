//! The offline judge: each field is true when one of the detector's cue patterns (`[rules]`)
//! matches the text. Deterministic, instant, no network: the embedded default.

use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest};

pub struct Rules;

impl Backend for Rules {
    fn name(&self) -> &'static str {
        "rules"
    }

    fn model(&self) -> Option<String> {
        None
    }

    fn call(&self, request: &JudgeRequest, _deadline: Instant) -> Result<String, BackendError> {
        let compiled = request.detector.compiled().map_err(BackendError::Reply)?;
        let mut reply = serde_json::Map::new();
        let mut matched = Vec::new();
        for field in &request.detector.fields {
            let cue = compiled
                .rules
                .iter()
                .find(|(name, _)| name == field)
                .and_then(|(_, cues)| cues.iter().find_map(|cue| cue.find(request.text)));
            let mut value = cue.is_some();
            if let Some(found) = cue {
                matched.push(format!("{field} (\"{}\")", clip(found.as_str())));
            }
            // What the turn did outweighs what the message says.
            if let Some(from_evidence) = request.evidence.and_then(|e| e.field(field))
                && from_evidence != value
            {
                matched.push(format!(
                    "{field} = {from_evidence} from the turn's tool calls"
                ));
                value = from_evidence;
            }
            reply.insert(field.clone(), serde_json::Value::Bool(value));
        }
        let reason = if matched.is_empty() {
            "rules: no cue matched".to_string()
        } else {
            format!("rules: {}", matched.join(", "))
        };
        reply.insert("reason".into(), serde_json::Value::String(reason));
        Ok(serde_json::Value::Object(reply).to_string())
    }
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
