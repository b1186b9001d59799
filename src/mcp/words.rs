//! The server's words for the engine's messages: tool names and JSON parameters, as the
//! tools' contracts (docs/) spell them.

use crate::words::{Term, Words};

/// Tools and parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct McpWords;

/// The words every workspace of the server uses.
pub static MCP_WORDS: McpWords = McpWords;

impl Words for McpWords {
    fn name(&self, term: Term) -> &'static str {
        match term {
            Term::Search => "grep_content",
            Term::ReadLines => "read_files",
            Term::Toc => "doc_toc",
            Term::ReadSection => "doc_read",
            Term::FindSection => "doc_find",
            Term::ReplaceSection => "doc_replace",
            Term::ReadCode | Term::CodeAnswer => "file_read",
            Term::CodeStartLine => "startLine",
            Term::CodeEndLine => "endLine",
            Term::AllowWrite => "--allow-write",
            Term::EnableWrites => "`mapgrep serve --allow-write ROOT...`",
            other => crate::words::Neutral.name(other),
        }
    }
}
