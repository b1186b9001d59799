//! A search as the caller describes it, with its validation messages (the Error/Problem/Fix layout).

use crate::error::Error;
use crate::error::ParamError;
use crate::words::{Term, Words};

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

/// What a search gives of each file (as `rg`, `rg -l` and `rg -c`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    /// Its matching lines (the default).
    #[default]
    Content,
    /// Only that it has a match: a file is read to its first.
    FilesWithMatches,
    /// How many of its lines match: a file is read whole.
    Count,
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
    /// Stop once the matches kept would take about this many bytes to show (their paths,
    /// lines and context): a page's size as a limit of the search, so a search for many
    /// matches reads no further than its answer can show; the cursor continues it.
    pub max_result_bytes: Option<usize>,
    pub cursor: Option<Cursor>,
    /// Walker threads (default: rayon's pool size).
    pub threads: Option<usize>,
    /// Only files of these types (the `ignore` crate's default type table: `rust`, `py`, `md`…).
    pub types: Vec<String>,
    /// No files of these types.
    pub types_not: Vec<String>,
    /// Follow symbolic links in the walk (a front-end that keeps callers inside roots, the
    /// server, never sets it: a link may lead out of them).
    pub follow_links: bool,
    /// Display paths relative to the first root (the server) rather than as given (the CLI).
    pub relative_to_root: bool,
    /// The search may read only the files a ready trigram index cannot rule out (results are
    /// the same). Off for searches that must see every file (inverted matches, files without
    /// a match) or match across lines.
    pub use_index: bool,
    /// Lines, or one result per file (then `max_results` counts files).
    pub output: OutputMode,
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
            max_result_bytes: None,
            cursor: None,
            threads: None,
            types: Vec::new(),
            types_not: Vec::new(),
            follow_links: false,
            relative_to_root: true,
            use_index: true,
            output: OutputMode::Content,
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
    pub(super) fn regex_source(&self, w: &dyn Words) -> Result<String, ParamError> {
        if self.pattern.is_empty() {
            return Err(self.error(
                w,
                "Empty pattern",
                "An empty pattern matches every line of every file.".into(),
                &format!(
                    "Give a regex or a literal (with {}) to search for.",
                    w.set(Term::FixedStrings)
                ),
            ));
        }
        let bound = if self.word {
            Bound::Word
        } else {
            Bound::Anywhere
        };
        Ok(patterns_regex(
            std::slice::from_ref(&self.pattern),
            self.fixed_strings,
            bound,
        ))
    }

    /// Echoes the query's main fields, for the `You provided:` line.
    pub fn provided(&self, w: &dyn Words) -> String {
        let mut parts = vec![w.given(Term::Pattern, &format!("{:?}", self.pattern))];
        if !self.search_paths.is_empty() {
            let paths = format!("{:?}", self.search_paths.join(", "));
            parts.push(w.given(Term::SearchPath, &paths));
        }
        if let Some(s) = &self.section_patterns {
            parts.push(w.given(Term::SectionPatterns, &format!("{s:?}")));
        }
        if !self.globs.is_empty() {
            parts.push(w.given(Term::Glob, &format!("{:?}", self.globs)));
        }
        if let Some(c) = &self.cursor {
            parts.push(w.given(Term::Cursor, &format!("{:?}", c.encode())));
        }
        parts.join(", ")
    }

    fn error(&self, w: &dyn Words, short: &str, problem: String, fix: &str) -> ParamError {
        ParamError::new(short, self.provided(w), problem, fix)
    }

    /// A section pattern that does not compile.
    pub(super) fn section_error(
        &self,
        w: &dyn Words,
        pattern: &str,
        e: &regex_automata::meta::BuildError,
    ) -> ParamError {
        ParamError::regex(
            w.name(Term::SectionPatterns),
            pattern,
            e,
            self.provided(w),
            "Fix the regex (Rust regex syntax; escape literal brackets as \\[ ), e.g. \"^## \" or \"^\\\\[LOG-\".",
        )
    }

    pub(super) fn type_error(&self, w: &dyn Words, e: &str) -> ParamError {
        self.error(
            w,
            "Unknown file type",
            format!("{e}."),
            "Use a type of the default table (rust, py, js, ts, go, md, c, cpp, java, json, yaml…).",
        )
    }

    pub(super) fn glob_error(&self, w: &dyn Words, glob: &str, e: &str) -> ParamError {
        self.error(
            w,
            "Invalid glob",
            format!("'{glob}' is not a valid glob: {e}"),
            "Use globs like \"*.rs\", \"src/**/*.ts\" or \"!target/**\" (a leading ! excludes).",
        )
    }

    pub(super) fn path_error(&self, w: &dyn Words, given: &str, e: &Error) -> ParamError {
        let name = w.name(Term::SearchPath);
        let (short, fix) = match e {
            Error::NotFound { .. } => (
                format!("{name} not found"),
                format!("Check the path: relative paths resolve against the first root; omit {name} to search every file under it."),
            ),
            Error::OutsideRoots { .. } | Error::NoRoots => (
                format!("{name} outside the allowed roots"),
                "Search inside the roots the server was started with (relative paths resolve against the first root).".into(),
            ),
            _ => (
                format!("{name} cannot be searched"),
                "Give a file or directory inside the roots.".into(),
            ),
        };
        ParamError {
            short,
            provided: w.given(Term::SearchPath, &format!("{given:?}")),
            problem: e.to_string(),
            fix,
            tip: None,
        }
    }
}

/// How a pattern's matches are bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Anywhere in a line.
    Anywhere,
    /// A whole word (`-w`, `word`).
    Word,
    /// A whole line (`-x`).
    Line,
}

/// The one regex some patterns make: each escaped when `fixed` (a literal), bounded as
/// `bound` says, and joined by `|` (each in its own group, so that flags such as `(?i)`
/// stay in their pattern). The command line and `grep_content` build their regex here.
pub fn patterns_regex(patterns: &[String], fixed: bool, bound: Bound) -> String {
    let one = |p: &String| {
        let p = if fixed {
            regex_syntax::escape(p)
        } else {
            p.clone()
        };
        match bound {
            Bound::Anywhere if patterns.len() == 1 => p,
            Bound::Anywhere => format!("(?:{p})"),
            Bound::Word => format!(r"\b{{start-half}}(?:{p})\b{{end-half}}"),
            Bound::Line => format!("^(?:{p})$"),
        }
    };
    patterns.iter().map(one).collect::<Vec<_>>().join("|")
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
    fn patterns_make_one_regex_each_bounded_in_its_group() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(patterns_regex(&p(&["a.b"]), false, Bound::Anywhere), "a.b");
        assert_eq!(patterns_regex(&p(&["a.b"]), true, Bound::Anywhere), "a\\.b");
        assert_eq!(
            patterns_regex(&p(&["(?i)x", "y"]), false, Bound::Anywhere),
            "(?:(?i)x)|(?:y)"
        );
        assert_eq!(patterns_regex(&p(&["x"]), false, Bound::Line), "^(?:x)$");
        let word = patterns_regex(&p(&["x"]), false, Bound::Word);
        let re = crate::matcher::build_line_regex(&word, false).unwrap();
        assert!(re.is_match("a x b") && !re.is_match("axb"));
    }

    #[test]
    fn fixed_strings_are_escaped() {
        let q = GrepQuery {
            fixed_strings: true,
            ..GrepQuery::new("a.b(c)[d]{1}")
        };
        let re = crate::matcher::build_line_regex(
            &q.regex_source(&crate::words::Neutral).unwrap(),
            false,
        )
        .unwrap();
        assert!(re.is_match("xa.b(c)[d]{1}y"));
        assert!(!re.is_match("aXb(c)[d]{1}"));
    }
}
