//! The command line's words for the engine's messages: commands, arguments and flags, so an
//! error at the shell says what to type there (never a tool name or a JSON parameter).

use crate::roots::Roots;
use crate::words::{Term, Words};
use crate::workspace::{Workspace, WorkspaceBuilder};

/// A workspace for the command line: its messages in the command line's words.
pub fn workspace(roots: Roots) -> Workspace {
    builder().build(roots)
}

/// A workspace for a person at a shell who reads `path` (absolute): everything their user may
/// read on its file system, rooted at `/` on Unix and at the path's drive on Windows (`C:\\`:
/// a root `/` there would be the current drive's alone).
pub fn whole_filesystem(path: &std::path::Path) -> anyhow::Result<Workspace> {
    let top = path.ancestors().last().unwrap_or(path);
    Ok(workspace(Roots::new([top])?))
}

/// A workspace builder with the command line's words.
pub fn builder() -> WorkspaceBuilder {
    let mut b = WorkspaceBuilder::new();
    b.words(&CLI_WORDS);
    b
}

/// Commands and flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct CliWords;

/// The words every workspace of the command line uses.
pub static CLI_WORDS: CliWords = CliWords;

impl Words for CliWords {
    fn name(&self, term: Term) -> &'static str {
        match term {
            Term::Search | Term::FindSection => "`mapgrep grep`",
            Term::ReadLines => "`mapgrep read`",
            Term::Toc => "`mapgrep toc`",
            Term::ReadSection => "`mapgrep section`",
            Term::ReplaceSection => "the server's section replacement",
            Term::ReadCode => "`mapgrep symbol`",
            Term::CodeAnswer => "file",
            Term::Path | Term::SearchPath => "PATH",
            Term::Head => "--head",
            Term::Tail => "--tail",
            Term::StartLine => "--start",
            Term::EndLine | Term::CodeEndLine => "--end",
            Term::CodeStartLine => "`mapgrep read --start`",
            Term::ToNextPattern => "--to-next",
            Term::LargeFilePassthrough => "--large-file",
            Term::Pattern => "PATTERN",
            Term::FixedStrings => "-F",
            Term::SectionPatterns => "--section-pattern",
            Term::Glob => "-g",
            Term::Cursor => "--cursor",
            Term::Target => "NAME",
            Term::Skeleton => "`mapgrep outline`",
            Term::DefName => "NAME",
            Term::Kind => "--kind",
            Term::Lang => "--lang",
            Term::Declarations => "--declarations",
            Term::Code => "--code",
            Term::ExpectedHash => "the section's hash",
            Term::AllowReadOnly => "--allow-read-only",
            Term::IncludeChildren => "--no-children",
            Term::AllowOutlineChange => "--allow-outline-change",
            Term::AllowWrite => "--allow-write",
            Term::EnableWrites => "`mapgrep serve --allow-write ROOT...`",
        }
    }

    fn set(&self, term: Term) -> String {
        self.name(term).to_string()
    }

    fn pair(&self, term: Term, value: &str) -> String {
        match term {
            Term::IncludeChildren => "--no-children".into(),
            _ => format!("{} {value}", self.name(term)),
        }
    }

    fn given(&self, term: Term, value: &str) -> String {
        match term {
            Term::Path | Term::SearchPath | Term::Pattern | Term::Target | Term::DefName => {
                value.to_string()
            }
            _ => format!("{} {value}", self.name(term)),
        }
    }

    fn inline(&self, term: Term, value: &str) -> String {
        match term {
            Term::Target => format!("`mapgrep symbol FILE {}`", shell_word(value)),
            _ => format!("`{}`", self.pair(term, &shell_word(value))),
        }
    }

    fn example(&self, op: Term, fields: &[(Term, &str)]) -> String {
        let mut line = self.name(op).trim_matches('`').to_string();
        for (term, value) in fields {
            let value = shell_word(value);
            match term {
                Term::Path | Term::SearchPath | Term::Pattern | Term::Target => {
                    line.push(' ');
                    line.push_str(&value);
                }
                _ => {
                    line.push(' ');
                    line.push_str(&self.pair(*term, &value));
                }
            }
        }
        format!("`{line}`")
    }
}

/// A value written as a JSON literal (`"WORK.md"`, `120`) as one shell word.
fn shell_word(json: &str) -> String {
    let plain = serde_json::from_str::<String>(json).unwrap_or_else(|_| json.to_string());
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !plain.is_empty() && plain.chars().all(safe) {
        plain
    } else {
        format!("'{}'", plain.replace('\'', r"'\''"))
    }
}

/// An engine error (the query's parameters, or a path), worded for the command line.
pub(super) fn error_exit(e: &crate::grep::GrepError) -> std::process::ExitCode {
    match e {
        crate::grep::GrepError::Param(p) => eprintln!("{p}"),
        crate::grep::GrepError::File(e) => eprintln!("mapgrep: {e}"),
    }
    std::process::ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_command_lines() {
        let w = CliWords;
        assert_eq!(
            w.example(
                Term::ReadLines,
                &[
                    (Term::Path, "\"WORK.md\""),
                    (Term::StartLine, "120"),
                    (Term::ToNextPattern, "\"^\\\\[LOG-\""),
                ]
            ),
            r"`mapgrep read WORK.md --start 120 --to-next '^\[LOG-'`"
        );
        assert_eq!(shell_word("\"it's\""), r"'it'\''s'");
    }
}
