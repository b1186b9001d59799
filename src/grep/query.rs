//! A search as the caller describes it, with its validation messages (the Error/Problem/Fix layout).

use crate::error::Error;
use crate::read::ParamError;

use super::hints::DEFAULT_SECTION_PATTERNS;

/// Where a cut result continues: the first match not returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub path: String,
    pub line: u64,
}

impl Cursor {
    /// `LINE:PATH` (the line first, so paths with colons survive).
    pub fn encode(&self) -> String {
        format!("{}:{}", self.line, self.path)
    }

    pub fn decode(s: &str) -> Option<Cursor> {
        let (line, path) = s.split_once(':')?;
        Some(Cursor {
            path: path.to_string(),
            line: line.parse().ok().filter(|&l| l >= 1)?,
        })
    }
}

/// A search.
#[derive(Clone, Debug)]
pub struct GrepQuery {
    pub pattern: String,
    /// Paths to search (files or directories); empty means the first root.
    pub search_paths: Vec<String>,
    pub case_insensitive: bool,
    pub fixed_strings: bool,
    pub word: bool,
    pub before_context: usize,
    pub after_context: usize,
    /// `None`: the defaults (`^## `, `^# `, `^\[LOG-`); `Some([])`: no hints.
    pub section_patterns: Option<Vec<String>>,
    /// Glob overrides as in ripgrep's `-g` (`!` excludes).
    pub globs: Vec<String>,
    pub include_ignored: bool,
    pub include_hidden: bool,
    pub max_filesize: Option<u64>,
    pub max_results: usize,
    pub cursor: Option<Cursor>,
    /// Walker threads (default: rayon's pool size).
    pub threads: Option<usize>,
    /// Display paths relative to the first root (the server) rather than as given (the CLI).
    pub relative_to_root: bool,
}

impl Default for GrepQuery {
    fn default() -> GrepQuery {
        GrepQuery {
            pattern: String::new(),
            search_paths: Vec::new(),
            case_insensitive: false,
            fixed_strings: false,
            word: false,
            before_context: 0,
            after_context: 0,
            section_patterns: None,
            globs: Vec::new(),
            include_ignored: false,
            include_hidden: false,
            max_filesize: None,
            max_results: 100,
            cursor: None,
            threads: None,
            relative_to_root: true,
        }
    }
}

impl GrepQuery {
    pub fn new(pattern: impl Into<String>) -> GrepQuery {
        GrepQuery {
            pattern: pattern.into(),
            ..GrepQuery::default()
        }
    }

    pub(super) fn paths(&self) -> Vec<String> {
        if self.search_paths.is_empty() {
            vec![".".to_string()]
        } else {
            self.search_paths.clone()
        }
    }

    pub(super) fn display_relative_to_root(&self) -> bool {
        self.relative_to_root
    }

    pub(super) fn before(&self) -> usize {
        self.before_context
    }

    pub(super) fn after(&self) -> usize {
        self.after_context
    }

    pub(super) fn section_patterns(&self) -> Vec<String> {
        match &self.section_patterns {
            Some(p) => p.clone(),
            None => DEFAULT_SECTION_PATTERNS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    /// The regex to compile: the pattern escaped (`fixed_strings`) and bounded (`word`).
    pub(super) fn regex_source(&self) -> Result<String, ParamError> {
        if self.pattern.is_empty() {
            return Err(self.error(
                "Empty pattern",
                "An empty pattern matches every line of every file.".into(),
                "Give a regex or a literal (with fixed_strings: true) to search for.",
            ));
        }
        let mut p = if self.fixed_strings {
            regex_syntax_escape(&self.pattern)
        } else {
            self.pattern.clone()
        };
        if self.word {
            p = format!(r"\b{{start-half}}(?:{p})\b{{end-half}}");
        }
        Ok(p)
    }

    pub fn provided(&self) -> String {
        let mut parts = vec![format!("pattern={:?}", self.pattern)];
        if !self.search_paths.is_empty() {
            parts.push(format!("search_path={:?}", self.search_paths.join(", ")));
        }
        if let Some(s) = &self.section_patterns {
            parts.push(format!("section_patterns={s:?}"));
        }
        if !self.globs.is_empty() {
            parts.push(format!("glob={:?}", self.globs));
        }
        if let Some(c) = &self.cursor {
            parts.push(format!("cursor={:?}", c.encode()));
        }
        parts.join(", ")
    }

    fn error(&self, short: &str, problem: String, fix: &str) -> ParamError {
        ParamError::new(short, self.provided(), problem, fix)
    }

    pub(super) fn regex_error(
        &self,
        what: &str,
        pattern: &str,
        e: &regex_automata::meta::BuildError,
    ) -> ParamError {
        match e.syntax_error() {
            Some(s) => self.error(
                &format!("Invalid regex in {what}"),
                format!(
                    "'{pattern}' is not a valid regular expression: {}",
                    crate::matcher::syntax_error_summary(s)
                ),
                "Fix the regex (Rust regex syntax: escape literal ( [ { . * + ? with a backslash), or pass fixed_strings: true to search for the text literally.",
            ),
            None => self.error(
                &format!("Regex too large in {what}"),
                format!("'{pattern}' compiles to more than the size limit: {e}"),
                "Simplify the regex: fewer alternatives, smaller repetition counts ({n} bounds), or split it into several searches.",
            ),
        }
    }

    /// The pattern can only match across a line break: a search line by line never finds it.
    pub(super) fn multiline_error(&self) -> ParamError {
        self.error(
            "Pattern needs a line break",
            format!(
                "'{}' can only match text that contains a newline, but the search matches within single lines: it would never match.",
                self.pattern.escape_debug()
            ),
            "Search for one line of it (^ and $ match at line starts and ends), then read the lines around the match.",
        )
    }

    pub(super) fn glob_error(&self, glob: &str, e: &str) -> ParamError {
        self.error(
            "Invalid glob",
            format!("'{glob}' is not a valid glob: {e}"),
            "Use globs like \"*.rs\", \"src/**/*.ts\" or \"!target/**\" (a leading ! excludes).",
        )
    }

    pub(super) fn path_error(&self, given: &str, e: &Error) -> ParamError {
        let (short, fix) = match e {
            Error::NotFound { .. } => (
                "search_path not found",
                "Check the path: relative paths resolve against the first root; omit search_path to search every file under it.",
            ),
            Error::OutsideRoots { .. } | Error::NoRoots => (
                "search_path outside the allowed roots",
                "Search inside the roots the server was started with (relative paths resolve against the first root).",
            ),
            _ => (
                "search_path cannot be searched",
                "Give a file or directory inside the roots.",
            ),
        };
        ParamError {
            short: short.into(),
            provided: format!("search_path={given:?}"),
            problem: e.to_string(),
            fix: fix.into(),
            tip: None,
        }
    }
}

/// Escapes regex meta characters (the same set regex-syntax escapes).
fn regex_syntax_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '.'
                | '+'
                | '*'
                | '?'
                | '('
                | ')'
                | '|'
                | '['
                | ']'
                | '{'
                | '}'
                | '^'
                | '$'
                | '#'
                | '&'
                | '-'
                | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_paths_with_colons() {
        let c = Cursor {
            path: "a:b/c.rs".into(),
            line: 12,
        };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert_eq!(Cursor::decode("x:y"), None);
        assert_eq!(Cursor::decode("0:y"), None);
    }

    #[test]
    fn fixed_strings_are_escaped() {
        let q = GrepQuery {
            fixed_strings: true,
            ..GrepQuery::new("a.b(c)[d]{1}")
        };
        let re = crate::matcher::build_line_regex(&q.regex_source().unwrap(), false).unwrap();
        assert!(re.is_match("xa.b(c)[d]{1}y"));
        assert!(!re.is_match("aXb(c)[d]{1}"));
    }
}
