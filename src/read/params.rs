//! A read request as a caller gives it, and its validation into a [`ReadMode`] with the
//! messages of docs/read_files.md.

use super::ParamError;

/// One entry of a `read_files` batch, as given (numbers are signed so that a negative value
/// is answered with a clear message rather than a deserialization failure).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadRequest {
    pub path: String,
    pub head: Option<i64>,
    pub tail: Option<i64>,
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
    pub read_to_next_pattern: Option<String>,
    pub large_file_passthrough: bool,
}

/// What a valid request selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadMode {
    Whole,
    Head(u64),
    Tail(u64),
    Range { start: u64, end: Option<u64> },
    ToNext { start: u64, pattern: String },
}

impl ReadRequest {
    pub fn new(path: impl Into<String>) -> ReadRequest {
        ReadRequest {
            path: path.into(),
            ..ReadRequest::default()
        }
    }

    /// Echoes the parameters that were given, for the `You provided:` line.
    pub fn provided(&self) -> String {
        let mut parts = vec![format!("path={:?}", self.path)];
        let nums = [
            ("head", self.head),
            ("tail", self.tail),
            ("start_line", self.start_line),
            ("end_line", self.end_line),
        ];
        for (name, v) in nums {
            if let Some(v) = v {
                parts.push(format!("{name}={v}"));
            }
        }
        if let Some(p) = &self.read_to_next_pattern {
            parts.push(format!("read_to_next_pattern={p:?}"));
        }
        parts.join(", ")
    }

    fn error(&self, short: &str, problem: String, fix: &str) -> ParamError {
        ParamError::new(short, self.provided(), problem, fix)
    }

    /// Validates the combination of parameters.
    pub fn mode(&self) -> Result<ReadMode, ParamError> {
        if let Some(pattern) = &self.read_to_next_pattern {
            if self.start_line.is_none() {
                return Err(self.error(
                    "start_line is required when using read_to_next_pattern",
                    "read_to_next_pattern scans forward from start_line, but no start_line was given.".into(),
                    "Add start_line (1-indexed), e.g. {\"path\": \"WORK.md\", \"start_line\": 120, \"read_to_next_pattern\": \"^\\\\[LOG-\"}. Use grep_content to find the line.",
                ));
            }
            if self.end_line.is_some() {
                return Err(self.error(
                    "Cannot specify both end_line and read_to_next_pattern",
                    "end_line fixes where the read stops, and read_to_next_pattern computes it; only one can decide.".into(),
                    "Remove end_line to stop at the next line matching the pattern, or remove read_to_next_pattern to stop at end_line.",
                ));
            }
            if self.head.is_some() || self.tail.is_some() {
                return Err(self.error(
                    "Cannot mix head/tail with read_to_next_pattern",
                    "head and tail read from the ends of the file; read_to_next_pattern reads from start_line.".into(),
                    "Remove head/tail and keep start_line + read_to_next_pattern, or drop read_to_next_pattern to sample the file with head or tail.",
                ));
            }
            if pattern.is_empty() {
                return Err(self.error(
                    "read_to_next_pattern is empty",
                    "An empty pattern matches every line, so the read would always stop right after start_line.".into(),
                    "Give a boundary regex such as \"^## \", \"^#+ \", \"^\\\\[LOG-\" or \"^$\".",
                ));
            }
        }
        if self.head.is_some() && self.tail.is_some() {
            return Err(self.error(
                "Cannot specify both head and tail",
                "head reads the first lines and tail the last lines; one request does one.".into(),
                "Send two requests for the same path, one with head and one with tail.",
            ));
        }
        if (self.head.is_some() || self.tail.is_some())
            && (self.start_line.is_some() || self.end_line.is_some())
        {
            return Err(self.error(
                "Cannot mix head/tail with start_line/end_line",
                "head/tail select lines from the ends of the file; start_line/end_line select an explicit range.".into(),
                "Use either head or tail alone, or start_line (and optionally end_line).",
            ));
        }
        for (name, v) in [
            ("head", self.head),
            ("tail", self.tail),
            ("start_line", self.start_line),
            ("end_line", self.end_line),
        ] {
            if let Some(v) = v
                && v < 1
            {
                return Err(self.error(
                    &format!("{name} must be at least 1"),
                    format!("{name} is {v}, but line numbers and line counts start at 1."),
                    &format!("Give {name} as a positive whole number (lines are 1-indexed)."),
                ));
            }
        }
        if let (Some(s), Some(e)) = (self.start_line, self.end_line)
            && e < s
        {
            return Err(self.error(
                "end_line is before start_line",
                format!("end_line {e} comes before start_line {s}; the range would be empty."),
                "Give end_line >= start_line (end_line is inclusive), or omit it to read to the end of the file.",
            ));
        }
        let u = |v: i64| v as u64;
        Ok(match (self, &self.read_to_next_pattern) {
            (_, Some(p)) => ReadMode::ToNext {
                start: u(self.start_line.expect("checked")),
                pattern: p.clone(),
            },
            _ if self.head.is_some() => ReadMode::Head(u(self.head.expect("checked"))),
            _ if self.tail.is_some() => ReadMode::Tail(u(self.tail.expect("checked"))),
            _ if self.start_line.is_some() || self.end_line.is_some() => ReadMode::Range {
                start: self.start_line.map_or(1, u),
                end: self.end_line.map(u),
            },
            _ => ReadMode::Whole,
        })
    }
}

/// `start_line` is past the last line (docs/read_files.md, with its tip).
pub(super) fn start_past_end(req: &ReadRequest, start: u64, total: u64) -> ParamError {
    let problem = if total == 0 {
        format!("start_line is {start}, but the file is empty (0 lines).")
    } else {
        format!("start_line is {start}, but the file has only {total} lines.")
    };
    ParamError {
        short: "start_line is past the end of the file".into(),
        provided: req.provided(),
        problem,
        fix: if total == 0 {
            "Read the file without line parameters; it has no lines.".into()
        } else {
            format!("Use a start_line between 1 and {total}.")
        },
        tip: Some("Tip: Use grep_content to find valid line numbers first".into()),
    }
}

/// `read_to_next_pattern` is not a valid regex.
pub(super) fn invalid_regex(
    req: &ReadRequest,
    pattern: &str,
    e: &regex_automata::meta::BuildError,
) -> ParamError {
    match crate::matcher::build_error_kind(e) {
        Ok(detail) => ParamError {
            short: "Invalid regex in read_to_next_pattern".into(),
            provided: req.provided(),
            problem: format!("'{pattern}' is not a valid regular expression: {detail}"),
            fix: "Fix the regex (Rust regex syntax; escape literal brackets as \\[ ), e.g. \"^\\\\[LOG-\" or \"^## \".".into(),
            tip: None,
        },
        Err(detail) => ParamError {
            short: "Regex too large in read_to_next_pattern".into(),
            provided: req.provided(),
            problem: format!("'{pattern}' compiles to more than the size limit: {detail}"),
            fix: "Simplify the regex: fewer alternatives, smaller repetition counts ({n} bounds).".into(),
            tip: None,
        },
    }
}

/// `read_to_next_pattern` can only match across a line break, which no line holds.
pub(super) fn multiline_pattern(req: &ReadRequest, pattern: &str) -> ParamError {
    ParamError {
        short: "Pattern needs a line break".into(),
        provided: req.provided(),
        problem: format!(
            "'{}' can only match text that contains a newline, but the boundary is found line by line: it would never match.",
            pattern.escape_debug()
        ),
        fix: "Match the boundary line alone: ^ for its start, $ for its end, e.g. \"^## \" or \"^$\" for a blank line.".into(),
        tip: None,
    }
}

/// A whole-file read of a large JSON/YAML file without `large_file_passthrough`.
pub(super) fn large_structured(req: &ReadRequest, len: u64) -> ParamError {
    ParamError {
        short: "Large structured data file".into(),
        provided: req.provided(),
        problem: format!(
            "{} is a JSON/YAML file of {len} bytes; reading it whole would flood the context.",
            req.path
        ),
        fix: "Read part of it with head, tail or start_line/end_line, find the lines you need with grep_content, or pass large_file_passthrough: true to read it anyway.".into(),
        tip: None,
    }
}
