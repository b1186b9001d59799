//! Typed errors of the engine, carrying the path they are about. Messages are lowercase and
//! say what went wrong; front-ends turn them into the specs' formats.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::platform::OsError;
use crate::words::{Term, Words};

/// An engine error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("file not found: {}", crate::quote::path(path))]
    NotFound { path: PathBuf },
    #[error("permission denied: {}", crate::quote::path(path))]
    PermissionDenied { path: PathBuf },
    #[error("{} is not a regular file (it is a {kind})", crate::quote::path(path))]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("cannot read binary file: {}", crate::quote::path(path))]
    Binary { path: PathBuf },
    #[error("{} is outside the allowed roots ({roots})", crate::quote::path(path))]
    OutsideRoots { path: PathBuf, roots: String },
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath { path: String, reason: String },
    /// A file that is read as lines but not parsed (too large, or not text of its kind).
    #[error("{} is not parsed: {reason}", crate::quote::path(path))]
    Unparsable { path: PathBuf, reason: String },
    #[error("no allowed roots are configured; refusing every path")]
    NoRoots,
    #[error(
        "file changed while it was being read, retry: {}",
        crate::quote::path(path)
    )]
    Changed { path: PathBuf },
    /// A file that may be read but is not to be replaced: its mode gives its owner no write
    /// permission, this process may not write it, or a replacement could not keep its owner.
    #[error("{} is read-only: {reason}", crate::quote::path(path))]
    ReadOnly { path: PathBuf, reason: String },
    #[error("{}: {source}", crate::quote::path(path))]
    Io { path: PathBuf, source: io::Error },
}

impl Error {
    /// Classifies an `io::Error` on `path`.
    pub fn io(path: &Path, e: io::Error) -> Error {
        let path = path.to_path_buf();
        match e.kind() {
            io::ErrorKind::NotFound => Error::NotFound { path },
            io::ErrorKind::PermissionDenied => Error::PermissionDenied { path },
            _ => match crate::platform::os_error(&e) {
                Some(OsError::Link) => Error::InvalidPath {
                    path: path.display().to_string(),
                    reason: "a symbolic link that does not lead to a file inside the roots (a loop, a dangling link, or a link swapped in after the check)".into(),
                },
                Some(OsError::NameTooLong) => Error::InvalidPath {
                    path: path.display().to_string(),
                    reason: "a name in it is longer than the filesystem allows (255 bytes)".into(),
                },
                Some(OsError::IsDirectory) => Error::NotAFile {
                    path,
                    kind: "directory",
                },
                _ => Error::Io { path, source: e },
            },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A validation error, rendered in the Error/Problem/Fix layout:
///
/// ```text
/// Error: [Short description]
///
/// You provided: [echo back the parameters]
/// Problem: [why this is invalid]
/// Fix: [how to correct it]
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub short: String,
    pub provided: String,
    pub problem: String,
    pub fix: String,
    pub tip: Option<String>,
}

impl ParamError {
    /// An error without a tip.
    pub fn new(short: &str, provided: String, problem: String, fix: &str) -> ParamError {
        ParamError {
            short: short.into(),
            provided,
            problem,
            fix: fix.into(),
            tip: None,
        }
    }

    /// The error of a regex parameter (`param`) that can only match text holding a line
    /// break, where it is matched line by line: it would never match. `fix` says how to
    /// match one line of it for that parameter.
    pub fn needs_line_break(param: &str, pattern: &str, provided: String, fix: &str) -> ParamError {
        ParamError::new(
            "Pattern needs a line break",
            provided,
            format!(
                "'{}' can only match text that contains a newline, but {param} is matched line by line: it would never match.",
                clip(pattern).escape_debug()
            ),
            fix,
        )
    }

    /// The error of a regex parameter (`param`, as the front-end names it) that does not
    /// compile: one wording for every tool that takes a regex. `fix` says how to write one
    /// for that parameter (the syntax error's fix); too large an automaton always gets the
    /// same advice.
    pub fn regex(
        param: &str,
        pattern: &str,
        e: &regex_automata::meta::BuildError,
        provided: String,
        fix: &str,
    ) -> ParamError {
        let pattern = clip(pattern);
        match crate::matcher::build_error_kind(e) {
            Ok(detail) => ParamError::new(
                &format!("Invalid regex in {param}"),
                provided,
                format!("'{pattern}' is not a valid regular expression: {detail}"),
                fix,
            ),
            Err(detail) => ParamError::new(
                &format!("Regex too large in {param}"),
                provided,
                format!("'{pattern}' compiles to more than the size limit: {detail}"),
                "Simplify the regex: fewer alternatives, smaller repetition counts ({n} bounds), or split it into several searches.",
            ),
        }
    }
}

/// Longest echo of a caller's value (a path, a pattern, a section name) in an answer: as long
/// as the longest path Linux takes, so real values are never cut.
pub const MAX_ECHO: usize = 4096;

/// `value` as an answer echoes it: whole up to [`MAX_ECHO`] bytes, else its first bytes and
/// how long it was (a 2 MB parameter must not come back two or three times over).
pub fn clip(value: &str) -> std::borrow::Cow<'_, str> {
    clip_to(value, MAX_ECHO)
}

/// [`clip`] at `max` bytes (messages that may list many names get more room).
pub fn clip_to(value: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if value.len() <= max {
        return value.into();
    }
    let mut end = max;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [cut: {} bytes in all]", &value[..end], value.len()).into()
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error: {}\n\nYou provided: {}\nProblem: {}\nFix: {}",
            self.short,
            clip(&self.provided),
            clip_to(&self.problem, 4 * MAX_ECHO),
            clip_to(&self.fix, 4 * MAX_ECHO)
        )?;
        if let Some(tip) = &self.tip {
            write!(f, "\n{}", clip_to(tip, 4 * MAX_ECHO))?;
        }
        Ok(())
    }
}

impl std::error::Error for ParamError {}

/// Renders a file-level error in the Error/Problem/Fix layout, with a fix for each kind.
pub fn file_error_layout(e: &Error, provided: &str, w: &dyn Words) -> ParamError {
    let by_lines;
    let (short, fix): (&str, &str) = match e {
        Error::NotFound { .. } => (
            "File not found",
            &format!(
                "Check the path: relative paths resolve against the first root. Use {} to find files.",
                w.name(Term::Search)
            ),
        ),
        Error::PermissionDenied { .. } => (
            "Permission denied",
            "Pick a file the server's user may read.",
        ),
        Error::NotAFile { .. } => (
            "Not a regular file",
            "Give the path of a regular file; directories, FIFOs, sockets and devices are not read.",
        ),
        Error::Binary { .. } => (
            "Binary file",
            &format!(
                "Only text files are read. Use {} to search text files instead.",
                w.name(Term::Search)
            ),
        ),
        Error::OutsideRoots { .. } | Error::NoRoots => (
            "Path outside the allowed roots",
            "Use a path inside the roots the server was started with (relative paths resolve against the first root).",
        ),
        Error::InvalidPath { .. } => ("Invalid path", "Give a plain file path."),
        Error::Unparsable { .. } => {
            by_lines = format!(
                "Read it by lines ({}, {}, {}/{}) or search it instead.",
                w.name(Term::Head),
                w.name(Term::Tail),
                w.name(Term::StartLine),
                w.name(Term::EndLine)
            );
            ("File not parsed", by_lines.as_str())
        }
        Error::Changed { .. } => ("File changed during read", "Retry the read."),
        Error::ReadOnly { .. } => (
            "File is read-only",
            "Make the file writable first if it should be edited; the file was not changed.",
        ),
        Error::Io { .. } => ("Read failed", "Retry; if it persists, check the file."),
    };
    ParamError {
        short: short.into(),
        provided: provided.into(),
        problem: e.to_string(),
        fix: fix.into(),
        tip: None,
    }
}

/// Why a request failed: its parameters (a [`ParamError`], already in the Error/Problem/Fix
/// layout), or a file it touched.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    Param(ParamError),
    #[error(transparent)]
    File(#[from] Error),
}

impl RequestError {
    /// The error in the Error/Problem/Fix layout, for a request echoed as `provided`.
    pub fn to_param_error(&self, provided: &str, w: &dyn Words) -> ParamError {
        match self {
            RequestError::Param(p) => p.clone(),
            RequestError::File(e) => file_error_layout(e, provided, w),
        }
    }
}
