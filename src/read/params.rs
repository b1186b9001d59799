//! A read request as a caller gives it, and its validation into a [`ReadMode`] with the
//! messages of docs/read_files.md.

use super::ParamError;
use crate::words::{Term, Words};

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
    pub fn provided(&self, w: &dyn Words) -> String {
        let mut parts = vec![w.given(Term::Path, &format!("{:?}", self.path))];
        let nums = [
            (Term::Head, self.head),
            (Term::Tail, self.tail),
            (Term::StartLine, self.start_line),
            (Term::EndLine, self.end_line),
        ];
        for (term, v) in nums {
            if let Some(v) = v {
                parts.push(w.given(term, &v.to_string()));
            }
        }
        if let Some(p) = &self.read_to_next_pattern {
            parts.push(w.given(Term::ToNextPattern, &format!("{p:?}")));
        }
        parts.join(", ")
    }

    /// Validates the combination of parameters (messages in the front-end's words `w`).
    pub fn mode(&self, w: &dyn Words) -> Result<ReadMode, ParamError> {
        if let Some(pattern) = &self.read_to_next_pattern {
            self.check_to_next(pattern, w)?;
        }
        self.check_mix(w)?;
        self.check_numbers(w)?;
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

    /// The parameter error of this request, with its `You provided:` line.
    fn error(&self, w: &dyn Words, short: &str, problem: String, fix: &str) -> ParamError {
        ParamError::new(short, self.provided(w), problem, fix)
    }

    /// `read_to_next_pattern` needs `start_line`, alone, and a pattern that is not empty.
    fn check_to_next(&self, pattern: &str, w: &dyn Words) -> Result<(), ParamError> {
        let [head, tail, start, end, next] = names(w);
        let error = |short: &str, problem: String, fix: &str| self.error(w, short, problem, fix);
        if self.start_line.is_none() {
            let example = w.example(
                Term::ReadLines,
                &[
                    (Term::Path, "\"WORK.md\""),
                    (Term::StartLine, "120"),
                    (Term::ToNextPattern, "\"^\\\\[LOG-\""),
                ],
            );
            return Err(error(
                &format!("{start} is required when using {next}"),
                format!("{next} scans forward from {start}, but no {start} was given."),
                &format!(
                    "Add {start} (1-indexed), e.g. {example}. Use {} to find the line.",
                    w.name(Term::Search)
                ),
            ));
        }
        if self.end_line.is_some() {
            return Err(error(
                &format!("Cannot specify both {end} and {next}"),
                format!(
                    "{end} fixes where the read stops, and {next} computes it; only one can decide."
                ),
                &format!(
                    "Remove {end} to stop at the next line matching the pattern, or remove {next} to stop at {end}."
                ),
            ));
        }
        if self.head.is_some() || self.tail.is_some() {
            return Err(error(
                &format!("Cannot mix {head}/{tail} with {next}"),
                format!(
                    "{head} and {tail} read from the ends of the file; {next} reads from {start}."
                ),
                &format!(
                    "Remove {head}/{tail} and keep {start} + {next}, or drop {next} to sample the file with {head} or {tail}."
                ),
            ));
        }
        if pattern.is_empty() {
            return Err(error(
                &format!("{next} is empty"),
                format!(
                    "An empty pattern matches every line, so the read would always stop right after {start}."
                ),
                "Give a boundary regex such as \"^## \", \"^#+ \", \"^\\\\[LOG-\" or \"^$\".",
            ));
        }
        Ok(())
    }

    /// `head` and `tail` go alone: not together, nor with a line range.
    fn check_mix(&self, w: &dyn Words) -> Result<(), ParamError> {
        let [head, tail, start, end, _] = names(w);
        let error = |short: &str, problem: String, fix: &str| self.error(w, short, problem, fix);
        if self.head.is_some() && self.tail.is_some() {
            return Err(error(
                &format!("Cannot specify both {head} and {tail}"),
                format!(
                    "{head} reads the first lines and {tail} the last lines; one request does one."
                ),
                &format!(
                    "Send two requests for the same path, one with {head} and one with {tail}."
                ),
            ));
        }
        if (self.head.is_some() || self.tail.is_some())
            && (self.start_line.is_some() || self.end_line.is_some())
        {
            return Err(error(
                &format!("Cannot mix {head}/{tail} with {start}/{end}"),
                format!(
                    "{head}/{tail} select lines from the ends of the file; {start}/{end} select an explicit range."
                ),
                &format!("Use either {head} or {tail} alone, or {start} (and optionally {end})."),
            ));
        }
        Ok(())
    }

    /// Every line number and count is at least 1, and a range does not end before it starts.
    fn check_numbers(&self, w: &dyn Words) -> Result<(), ParamError> {
        let [head, tail, start, end, _] = names(w);
        let error = |short: &str, problem: String, fix: &str| self.error(w, short, problem, fix);
        for (name, v) in [
            (head, self.head),
            (tail, self.tail),
            (start, self.start_line),
            (end, self.end_line),
        ] {
            if let Some(v) = v
                && v < 1
            {
                return Err(error(
                    &format!("{name} must be at least 1"),
                    format!("{name} is {v}, but line numbers and line counts start at 1."),
                    &format!("Give {name} as a positive whole number (lines are 1-indexed)."),
                ));
            }
        }
        if let (Some(s), Some(e)) = (self.start_line, self.end_line)
            && e < s
        {
            return Err(error(
                &format!("{end} is before {start}"),
                format!("{end} {e} comes before {start} {s}; the range would be empty."),
                &format!(
                    "Give {end} >= {start} ({end} is inclusive), or omit it to read to the end of the file."
                ),
            ));
        }
        Ok(())
    }
}

/// The names the front-end gives `head`, `tail`, `start_line`, `end_line` and
/// `read_to_next_pattern`, for the messages.
fn names(w: &dyn Words) -> [&'static str; 5] {
    [
        Term::Head,
        Term::Tail,
        Term::StartLine,
        Term::EndLine,
        Term::ToNextPattern,
    ]
    .map(|t| w.name(t))
}

/// `start_line` is past the last line (docs/read_files.md, with its tip).
pub(super) fn start_past_end(
    req: &ReadRequest,
    start: u64,
    total: u64,
    w: &dyn Words,
) -> ParamError {
    let name = w.name(Term::StartLine);
    let problem = if total == 0 {
        format!("{name} is {start}, but the file is empty (0 lines).")
    } else {
        format!("{name} is {start}, but the file has only {total} lines.")
    };
    ParamError {
        short: format!("{name} is past the end of the file"),
        provided: req.provided(w),
        problem,
        fix: if total == 0 {
            "Read the file without line parameters; it has no lines.".into()
        } else {
            format!("Use a {name} between 1 and {total}.")
        },
        tip: Some(format!(
            "Tip: Use {} to find valid line numbers first",
            w.name(Term::Search)
        )),
    }
}

/// A whole-file read of a large JSON/YAML file without `large_file_passthrough`.
pub(super) fn large_structured(req: &ReadRequest, len: u64, w: &dyn Words) -> ParamError {
    ParamError {
        short: "Large structured data file".into(),
        provided: req.provided(w),
        problem: format!(
            "{} is a JSON/YAML file of {len} bytes; reading it whole would flood the context.",
            req.path
        ),
        fix: format!(
            "Read part of it with {}, {} or {}/{}, find the lines you need with {}, or pass {} to read it anyway.",
            w.name(Term::Head),
            w.name(Term::Tail),
            w.name(Term::StartLine),
            w.name(Term::EndLine),
            w.name(Term::Search),
            w.set(Term::LargeFilePassthrough)
        ),
        tip: None,
    }
}
