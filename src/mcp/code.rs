//! The structure-aware code reading tool of spec/003: `file_read`.

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::params::Parameters;
use super::{MapgrepServer, error_result, structured};
use crate::code::answer::answer;
use crate::code::{CodeFile, ReadQuery, Symbol};
use crate::read::file_error_layout;

const FILE_READ_DESCRIPTION: &str = r###"Read code by its structure instead of by guessed line numbers (TypeScript/TSX, JavaScript, Rust, Python, Go; other files are returned raw).

Workflow: map the file, then read exactly the symbol you need.
1. skeleton: true -> the file's map: imports, exports, comments, directives, every symbol with kind and lines ([12-28] function: initializeApp, members as Class.method), and the gaps (blank or uncategorized lines) shown verbatim. Nothing is hidden.
2. target: "initializeApp" -> that symbol's full text (with its export keyword, decorators and doc comment). Qualified names pick members: "App.start", "Foo.new" (Rust impl methods), "Server.Start" (Go receiver methods). Several at once: target: ["CONFIG", "App.start"]. Members longer than one line are collapsed to stubs unless recursive: true. An ambiguous name returns the candidates.
3. startLine/endLine -> a structured range: imports, exports, comments and other connective code raw; every symbol collapsed to a stub:
       --- symbol: initializeApp (function, lines 12-28) ---
       Use { target: "initializeApp" } to read this symbol
   A range touching part of an import/export/comment block or a gap includes the whole block. startLine alone reads to the end, endLine alone from line 1; values are clamped to the file. With skeleton: true as well, import/export/comment/directive blocks collapse to one-line stubs too and only gaps stay raw.
No parameters besides file: the whole file, raw.

target and startLine/endLine are mutually exclusive; recursive is ignored with a range. grep_content results in these languages name the enclosing symbol, ready for target.

Args:
    file: The file (relative to the first root, or absolute inside a root).
    target: Symbol name or qualified name, or a list of them.
    recursive: With target: show members in full instead of stubs (default false).
    skeleton: The file's map (alone), or collapse non-symbol blocks too (with a range).
    startLine: First line (1-based) of a structured range.
    endLine: Last line of a structured range."###;

/// One name or several.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Targets {
    One(String),
    Many(Vec<String>),
}

/// Parameters of `file_read`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileReadParams {
    /// The file (relative to the first root, or absolute inside a root).
    #[serde(alias = "path")]
    pub file: String,
    /// Symbol name ("initializeApp"), qualified name ("App.start"), or a list of them.
    pub target: Option<Targets>,
    /// With target: members in full instead of stubs (default false). Ignored with a range.
    pub recursive: Option<bool>,
    /// Alone: the file's map. With startLine/endLine: collapse import/export/comment/directive blocks too.
    pub skeleton: Option<bool>,
    /// First line (1-based) of a structured range; alone, reads to the end of the file.
    #[serde(rename = "startLine")]
    pub start_line: Option<i64>,
    /// Last line of a structured range; alone, reads from line 1.
    #[serde(rename = "endLine")]
    pub end_line: Option<i64>,
}

/// A symbol named in a `file_read` result.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SymbolRef {
    pub name: String,
    /// The qualified name (`Class.method` for members).
    pub qualified_name: String,
    /// The name to pass as target to read exactly this symbol (the qualified name unless
    /// several symbols share it).
    pub target: String,
    pub kind: String,
    pub start_line: u32,
    pub end_line: u32,
}

impl SymbolRef {
    fn of(s: &Symbol) -> SymbolRef {
        SymbolRef {
            name: s.name.clone(),
            qualified_name: s.qualified.clone(),
            target: s.address.clone(),
            kind: s.kind.to_string(),
            start_line: s.start_line,
            end_line: s.end_line,
        }
    }
}

/// Structured result of `file_read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FileReadResult {
    pub file: String,
    /// "target", "skeleton", "range" or "whole".
    pub mode: String,
    /// The parsed language, or null for a file read raw.
    pub language: Option<String>,
    pub total_lines: u32,
    /// First and last line shown (a range widened to whole blocks).
    pub start_line: Option<u32>,
    pub end_line: Option<u32>,
    /// Symbols read (target), collapsed to stubs (range) or listed (skeleton).
    pub symbols: Vec<SymbolRef>,
    /// True when the response size limit cut the text.
    pub truncated: bool,
}

impl FileReadParams {
    fn query(&self) -> ReadQuery {
        ReadQuery {
            targets: match &self.target {
                None => Vec::new(),
                Some(Targets::One(t)) => vec![t.clone()],
                Some(Targets::Many(ts)) => ts.clone(),
            },
            recursive: self.recursive.unwrap_or(false),
            skeleton: self.skeleton.unwrap_or(false),
            start_line: self.start_line,
            end_line: self.end_line,
        }
    }

    fn provided(&self, q: &ReadQuery) -> String {
        let mut p = format!("file={:?}", self.file);
        if !q.targets.is_empty() {
            p.push_str(&format!(", target={:?}", q.targets));
        }
        for (name, v) in [("startLine", self.start_line), ("endLine", self.end_line)] {
            if let Some(v) = v {
                p.push_str(&format!(", {name}={v}"));
            }
        }
        if q.skeleton {
            p.push_str(", skeleton=true");
        }
        if q.recursive {
            p.push_str(", recursive=true");
        }
        p
    }
}

#[tool_router(router = code_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "file_read",
        description = FILE_READ_DESCRIPTION,
        annotations(title = "Read code by structure", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<FileReadResult>()
    )]
    pub async fn file_read(
        &self,
        Parameters(p): Parameters<FileReadParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let query = p.query();
            let provided = p.provided(&query);
            let file = match CodeFile::open(ws, &p.file) {
                Ok(file) => file,
                Err(e) => return Ok(error_result(file_error_layout(&e, &provided))),
            };
            let a = match answer(
                &file,
                &p.file,
                &query,
                &provided,
                ws.limits().max_output_bytes,
            ) {
                Ok(a) => a,
                Err(e) => return Ok(error_result(e)),
            };
            let s = file.structure();
            let result = FileReadResult {
                file: p.file.clone(),
                mode: a.mode.name().to_string(),
                language: s.and_then(|s| s.lang).map(|l| l.name().to_string()),
                total_lines: file.total_lines(),
                start_line: a.range.map(|r| r.0),
                end_line: a.range.map(|r| r.1),
                symbols: match s {
                    Some(s) => a
                        .symbols
                        .iter()
                        .map(|&i| SymbolRef::of(s.symbol(i)))
                        .collect(),
                    None => Vec::new(),
                },
                truncated: a.truncated,
            };
            structured(a.text, &result)
        })
        .await?
    }
}
