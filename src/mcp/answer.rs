//! One tool answer, rendered once into both views a client may show the model.
//!
//! Some clients give the model only the `content` text, others only `structuredContent`
//! (as JSON). Both must carry the whole answer at about the same size, so the structured
//! view is the same text under `content`, beside a few typed fields a program may want
//! (a cursor, a hash, `truncated`). Typed per-match data stay in the library and the command
//! line's `--json`, not in every response.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::read::ParamError;

/// A rendered tool answer.
#[derive(Debug, Default)]
pub struct Answer {
    /// The text the model reads (first content block, and `content` in the structured view).
    text: String,
    /// Text blocks shown after `text` that the structured view carries as typed `fields`.
    trailer: Vec<String>,
    /// Typed fields beside `content` in the structured view.
    fields: Map<String, Value>,
    error: bool,
}

impl Answer {
    /// A successful answer with `text`.
    pub fn ok(text: String) -> Answer {
        Answer {
            text,
            ..Answer::default()
        }
    }

    /// A failed call: `text` says what was wrong and how to fix it.
    pub fn error(text: String) -> Answer {
        Answer {
            text,
            error: true,
            ..Answer::default()
        }
    }

    /// A parameter error in the `Error: / You provided: / Problem: / Fix:` layout.
    pub fn param_error(e: ParamError) -> Answer {
        Answer::error(e.to_string())
    }

    /// Adds a typed field to the structured view (a `None` or `false` adds nothing).
    pub fn field(mut self, key: &str, value: impl Serialize) -> Answer {
        match serde_json::to_value(value) {
            Ok(Value::Null | Value::Bool(false)) | Err(_) => {}
            Ok(v) => {
                self.fields.insert(key.to_string(), v);
            }
        }
        self
    }

    /// Adds a text block after the main one; its facts must be in the typed fields.
    pub fn trailer(mut self, text: String) -> Answer {
        self.trailer.push(text);
        self
    }

    /// Marks the answer as a failure (every entry of a batch failed).
    pub fn failed(mut self, yes: bool) -> Answer {
        self.error |= yes;
        self
    }
}

impl Answer {
    /// The main text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The structured view: the text under `content`, beside the typed fields.
    fn structured(&self) -> Map<String, Value> {
        let mut structured = Map::with_capacity(self.fields.len() + 1);
        structured.insert("content".into(), Value::String(self.text.clone()));
        structured.extend(self.fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        structured
    }

    /// What the client receives, measured: the larger of the text blocks' bytes (joined by
    /// newlines) and the structured view's JSON bytes; and the text's lines.
    pub fn size(&self) -> (usize, usize) {
        let blocks = std::iter::once(&self.text).chain(&self.trailer);
        let mut bytes = 0;
        let mut lines = 0;
        for (i, b) in blocks.enumerate() {
            bytes += b.len() + usize::from(i > 0);
            lines += bytecount_lines(b);
        }
        let json = serde_json::to_string(&self.structured()).map_or(0, |j| j.len());
        (bytes.max(json), lines)
    }

    /// The answer cut at a line end to fit `budget_bytes` and `budget_lines`, saying so: the
    /// last resort of the fitting in `super::budget` for an answer that does not shrink with less file text.
    pub fn cut_to(mut self, budget_bytes: usize, budget_lines: usize) -> Answer {
        let full = std::mem::take(&mut self.text);
        let mut keep = full.len();
        let mut max_lines = budget_lines;
        loop {
            let mut end = keep.min(full.len());
            while !full.is_char_boundary(end) {
                end -= 1;
            }
            // Whole lines only, and no more of them than the budget leaves room for.
            let mut head = &full[..end];
            if end < full.len() {
                head = head.rfind('\n').map_or("", |i| &full[..=i]);
            }
            if let Some((i, _)) = head.match_indices('\n').nth(max_lines.saturating_sub(3)) {
                head = &full[..=i];
            }
            self.text = format!(
                "{head}[cut: {} more bytes left out (response size limit {} bytes). Ask for less in one call.]\n",
                full.len() - head.len(),
                budget_bytes
            );
            let (bytes, lines) = self.size();
            if (bytes <= budget_bytes && lines <= budget_lines) || head.is_empty() {
                return self;
            }
            keep = (head.len() as u128 * budget_bytes as u128 / bytes.max(1) as u128) as usize * 15
                / 16;
            max_lines = max_lines.min(bytecount_lines(head)).saturating_sub(1);
        }
    }
}

/// Lines of `text` (a last line without a newline counts).
fn bytecount_lines(text: &str) -> usize {
    let n = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    n + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

impl From<Answer> for CallToolResult {
    fn from(a: Answer) -> CallToolResult {
        let structured = a.structured();
        let mut blocks = vec![ContentBlock::text(a.text)];
        blocks.extend(a.trailer.into_iter().map(ContentBlock::text));
        let mut out = if a.error {
            CallToolResult::error(blocks)
        } else {
            CallToolResult::success(blocks)
        };
        out.structured_content = Some(Value::Object(structured));
        out
    }
}

/// Gives a result made outside the tools (rmcp's own argument errors) the structured view
/// every answer has: its text under `content`.
pub fn complete_views(result: &mut CallToolResult) {
    if result.structured_content.is_some() {
        return;
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    let mut m = Map::new();
    m.insert("content".into(), Value::String(text.join("\n")));
    result.structured_content = Some(Value::Object(m));
}

/// The `truncated` field: present (true) when the response size limit cut the answer.
pub const TRUNCATED: (&str, &str, &str) = ("truncated", "boolean", "");

/// The `next_cursor` field: present when more follows (the text says how to go on).
pub const NEXT_CURSOR: (&str, &str, &str) = ("next_cursor", "string", "");

/// The output schema of a tool whose structured view is `content` plus `fields`
/// (name, JSON type, description).
pub fn output_schema(fields: &[(&str, &str, &str)]) -> Arc<JsonObject> {
    let mut props = Map::new();
    props.insert("content".into(), serde_json::json!({"type": "string"}));
    for (name, ty, description) in fields {
        // An empty description is left out (the name says it; tools/list stays small).
        let prop = if description.is_empty() {
            serde_json::json!({ "type": ty })
        } else {
            serde_json::json!({"type": ty, "description": description})
        };
        props.insert((*name).into(), prop);
    }
    let schema = serde_json::json!({
        "type": "object",
        "properties": props,
        "required": ["content"],
    });
    match schema {
        Value::Object(o) => Arc::new(o),
        _ => unreachable!("a JSON object literal"),
    }
}

/// `n` with its noun, in the plural unless `n` is 1 ("directory" and "file or directory"
/// as English has them).
pub(crate) fn plural(n: u64, what: &str) -> String {
    match (n, what) {
        (1, w) => format!("1 {w}"),
        (n, "directory") => format!("{n} directories"),
        (n, "file or directory") => format!("{n} files or directories"),
        (n, w) => format!("{n} {w}s"),
    }
}
