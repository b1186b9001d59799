//! One `file_read` answer, as both front-ends give it: the mode chosen from the query
//! (docs/file_read.md, "Choosing the mode"), its text, the symbols it shows, or an error in the Error/Problem/Fix layout.

use std::fmt::Write as _;

use super::render::{self, PieceWriter};
use super::{CodeFile, FileStructure, Mode, QueryError, ReadQuery, TargetMatch, lang};
use crate::error::ParamError;
use crate::words::{Term, Words};

/// A rendered `file_read` result.
#[derive(Clone, Debug)]
pub struct Answer {
    pub text: String,
    pub mode: Mode,
    /// The lines shown (a range read: after widening to whole blocks).
    pub range: Option<(u32, u32)>,
    /// Symbols read (target mode), stubbed (range mode) or listed (skeleton).
    pub symbols: Vec<u32>,
    /// The response size limit cut the text.
    pub truncated: bool,
}

/// Answers `query` on an opened file. `shown` is the path as the caller wrote it,
/// `provided` the parameters for error messages, `budget` the response size limit.
pub fn answer(
    file: &CodeFile,
    shown: &str,
    query: &ReadQuery,
    provided: &str,
    budget: usize,
    words: &dyn Words,
) -> Result<Answer, ParamError> {
    let mode = query.mode().map_err(|e| query_error(&e, provided, words))?;
    let mut text = String::new();
    render::header(&mut text, shown, words);
    let read = Read {
        file,
        query,
        provided,
        budget,
        words,
    };
    let body = match mode {
        Mode::Target => read.targets(&mut text)?,
        Mode::Skeleton => read.skeleton(&mut text),
        Mode::Range => read.range(&mut text)?,
        Mode::Whole => read.whole(&mut text),
    };
    file.check_intact()
        .map_err(|e| crate::error::file_error_layout(&e, provided, words))?;
    let mut truncated = render::fit(&mut text, budget, &body.hint);
    if body.cut_line && !truncated {
        cut_line_note(&mut text, words);
        truncated = true;
    }
    Ok(Answer {
        text,
        mode,
        range: body.range,
        symbols: body.symbols,
        truncated,
    })
}

/// One `file_read` call: the file, the query, the size limit and what messages need.
struct Read<'r> {
    file: &'r CodeFile,
    query: &'r ReadQuery,
    /// The parameters as given, for error messages.
    provided: &'r str,
    /// The response size limit.
    budget: usize,
    words: &'r dyn Words,
}

/// What a mode wrote below the header, before the text is fitted to the budget.
#[derive(Default)]
struct Body {
    /// The lines shown ([`Answer::range`]).
    range: Option<(u32, u32)>,
    /// The symbols shown ([`Answer::symbols`]).
    symbols: Vec<u32>,
    /// A line longer than the budget was shown in part.
    cut_line: bool,
    /// How to read less (or the rest), for when the text is over the budget.
    hint: String,
}

impl Read<'_> {
    /// Target mode: the symbols each target names, a problem note for a target that does
    /// not resolve; an error when the file has no structure or no target resolves.
    fn targets(&self, text: &mut String) -> Result<Body, ParamError> {
        let Some(s) = self.file.structure() else {
            let e = match self.file.as_text() {
                Some(why) => QueryError::ReadAsText(why),
                None => QueryError::NoStructure,
            };
            return Err(query_error(&e, self.provided, self.words));
        };
        let matches: Vec<(String, TargetMatch)> = self
            .query
            .targets
            .iter()
            .map(|t| (t.clone(), super::resolve_target(s, t)))
            .collect();
        if !matches
            .iter()
            .any(|(_, m)| matches!(m, TargetMatch::Found(_)))
        {
            return Err(target_error(s, &matches, self.provided, self.words));
        }
        let mut body = Body {
            hint: "Read fewer targets per call, or members one by one (`Class.method`).".into(),
            ..Body::default()
        };
        for (n, (target, m)) in matches.iter().enumerate() {
            if n > 0 {
                text.push('\n');
            }
            let TargetMatch::Found(hits) = m else {
                render::target_problem(text, s, target, m, self.words);
                continue;
            };
            for (k, &hit) in hits.iter().enumerate() {
                if k > 0 {
                    text.push('\n');
                }
                body.cut_line |= self.symbol(text, s, hit);
                body.symbols.push(hit);
            }
        }
        Ok(body)
    }

    /// One symbol under its heading: its lines, members of more than one line as stubs
    /// unless the query is recursive; true if a line had to be cut.
    fn symbol(&self, text: &mut String, s: &FileStructure, hit: u32) -> bool {
        let _ = writeln!(text, "### {}\n", render::describe(s.symbol(hit)));
        let pieces = super::symbol_pieces(s, hit, self.query.recursive);
        let mut w = PieceWriter::new(text, self.budget, self.words);
        w.pieces(self.file, s, &pieces);
        w.cut_line
    }

    /// Skeleton mode: the file's map; without structure, the whole file raw under a note.
    fn skeleton(&self, text: &mut String) -> Body {
        let words = self.words;
        let Some(s) = self.file.structure() else {
            raw_note(text, self.file.as_text());
            let total = self.file.total_lines();
            return Body {
                range: (total > 0).then_some((1, total)),
                cut_line: whole_raw(text, self.file, total, self.budget, words),
                hint: format!("Read the rest with {}.", words.name(Term::CodeStartLine)),
                ..Body::default()
            };
        };
        render::skeleton(text, self.file, s);
        Body {
            symbols: (0..s.symbols.len() as u32).collect(),
            hint: format!(
                "Read a part with {}/{} and {}.",
                words.name(Term::CodeStartLine),
                words.name(Term::CodeEndLine),
                words.set(Term::Skeleton)
            ),
            ..Body::default()
        }
    }

    /// Range mode: the lines asked for, raw without structure; with it, symbols as stubs
    /// and the other blocks widened to whole (one line each when the query asks for a
    /// skeleton). An error when the range does not fit the file.
    fn range(&self, text: &mut String) -> Result<Body, ParamError> {
        let (file, budget, words) = (self.file, self.budget, self.words);
        let total = file.total_lines();
        let (first, last) = self
            .query
            .range(total)
            .map_err(|e| query_error(&e, self.provided, words))?;
        let mut body = Body {
            hint: format!(
                "Read a smaller range, or symbols with {}.",
                words.name(Term::Target)
            ),
            ..Body::default()
        };
        match file.structure() {
            Some(s) => {
                let read = super::structured_range(s, first, last, self.query.skeleton);
                let _ = write!(
                    text,
                    "**Range:** lines {}-{} of {total}\n\n",
                    read.first, read.last
                );
                let mut w = PieceWriter::new(text, budget, words);
                body.symbols = w.pieces(file, s, &read.pieces);
                body.cut_line = w.cut_line;
                body.range = Some((read.first, read.last));
            }
            None => {
                let _ = write!(text, "**Range:** lines {first}-{last} of {total}\n\n");
                let mut w = PieceWriter::new(text, budget, words);
                w.raw_lines(file, first, last);
                body.cut_line = w.cut_line;
                body.range = Some((first, last));
            }
        }
        Ok(body)
    }

    /// Whole mode: every line, raw.
    fn whole(&self, text: &mut String) -> Body {
        let words = self.words;
        let total = self.file.total_lines();
        let (start, end) = (
            words.name(Term::CodeStartLine),
            words.name(Term::CodeEndLine),
        );
        Body {
            range: (total > 0).then_some((1, total)),
            cut_line: whole_raw(text, self.file, total, self.budget, words),
            hint: if self.file.structure().is_some() {
                format!(
                    "See the file's map with {}, then read symbols with {} or parts with {start}/{end}.",
                    words.set(Term::Skeleton),
                    words.name(Term::Target)
                )
            } else {
                format!("Read the rest with {start}/{end}.")
            },
            ..Body::default()
        }
    }
}

/// The note after a text that fits the budget but has a line shown in part.
fn cut_line_note(text: &mut String, words: &dyn Words) {
    let _ = writeln!(
        text,
        "\n[cut: a line longer than the response size limit is shown in part and nothing after it. Search inside it with {}, or read the lines after it with {}.]",
        words.name(Term::Search),
        words.name(Term::CodeStartLine)
    );
}

/// The whole file, raw; true if a line had to be cut.
fn whole_raw(
    text: &mut String,
    file: &CodeFile,
    total: u32,
    budget: usize,
    words: &dyn Words,
) -> bool {
    if total == 0 {
        text.push_str("(empty file)\n");
        return false;
    }
    let _ = write!(text, "**Range:** lines 1-{total} of {total}\n\n");
    let mut w = PieceWriter::new(text, budget, words);
    w.raw_lines(file, 1, total);
    w.cut_line
}

fn raw_note(text: &mut String, as_text: Option<super::Unparsed>) {
    let _ = match as_text {
        Some(why) => write!(
            text,
            "**Note:** this file is read as text, not parsed ({}); shown raw.\n\n",
            why.why()
        ),
        None => write!(
            text,
            "**Note:** no code structure for this file (structure is parsed for {}); shown raw.\n\n",
            supported()
        ),
    };
}

/// The extensions parsed in this build, for messages.
pub fn supported() -> String {
    let mut names = Vec::new();
    for l in lang::ALL {
        if l.enabled() {
            names.push(l.extensions());
        }
    }
    if names.is_empty() {
        "no language in this build".into()
    } else {
        names.join(", ")
    }
}

fn query_error(e: &QueryError, provided: &str, w: &dyn Words) -> ParamError {
    let (sl, el, target) = (
        w.name(Term::CodeStartLine),
        w.name(Term::CodeEndLine),
        w.name(Term::Target),
    );
    let (short, problem, fix) = match e {
        QueryError::TargetWithRange => (
            format!("{target} and {sl}/{el} together"),
            format!(
                "{target} reads symbols by name; {sl}/{el} read a range. They are mutually exclusive."
            ),
            format!(
                "Pass either {target} (e.g. {}) or {sl}/{el}, not both.",
                w.inline(Term::Target, "\"initializeApp\"")
            ),
        ),
        QueryError::StartAfterEnd { start, end } => (
            format!("{sl} after {el}"),
            format!("{sl} ({start}) is greater than {el} ({end})."),
            format!(
                "Give {sl} <= {el}, or leave one out ({sl} alone reads to the end, {el} alone from line 1)."
            ),
        ),
        QueryError::StartPastEnd { start, total } => (
            format!("{sl} past the end of the file"),
            format!("{sl} ({start}) is greater than the file's {total} lines."),
            format!("Give a {sl} from 1 to {total}."),
        ),
        QueryError::EmptyFile => (
            "Empty file".to_string(),
            "The file has no lines, so no range can be read.".to_string(),
            format!("Read it without {sl}/{el} (or pick another file)."),
        ),
        QueryError::ReadAsText(why) => (
            "File read as text".to_string(),
            format!(
                "{target} needs a parsed code file; this one is read as text, not parsed ({}).",
                why.why()
            ),
            format!("Read the file with {sl}/{el}; a search finds the lines you need in it."),
        ),
        QueryError::NoStructure => (
            "No symbols in this file type".to_string(),
            format!(
                "{target} needs a parsed code file; structure is parsed for {}.",
                supported()
            ),
            format!(
                "Read the file with {sl}/{el} (or without parameters); for markdown sections use {}.",
                w.name(Term::ReadSection)
            ),
        ),
    };
    ParamError::new(&short, provided.into(), problem, &fix)
}

fn target_error(
    s: &FileStructure,
    matches: &[(String, TargetMatch)],
    provided: &str,
    w: &dyn Words,
) -> ParamError {
    let use_names = format!(
        "Use one of these names, or {} to list every symbol.",
        w.set(Term::Skeleton)
    );
    if let [(target, m)] = matches {
        return match m {
            TargetMatch::Ambiguous(hits) => ParamError::new(
                "Ambiguous target",
                provided.into(),
                format!(
                    "'{target}' names {} symbols:\n{}",
                    hits.len(),
                    render::list(s, hits)
                ),
                &format!(
                    "Use a qualified name, e.g. {}.",
                    w.inline(Term::Target, &format!("\"{}\"", s.symbol(hits[0]).address))
                ),
            ),
            TargetMatch::NotFound(similar) if !similar.is_empty() => ParamError::new(
                "Symbol not found",
                provided.into(),
                format!(
                    "No symbol named '{target}'. Did you mean:\n{}",
                    render::list(s, similar)
                ),
                &use_names,
            ),
            _ => ParamError::new(
                "Symbol not found",
                provided.into(),
                format!(
                    "No symbol named '{target}'. {}",
                    render::top_level_hint(s, w)
                ),
                &use_names,
            ),
        };
    }
    let mut problem = String::from("None of the targets resolved to one symbol:\n");
    for (target, m) in matches {
        render::target_problem(&mut problem, s, target, m, w);
    }
    ParamError::new(
        "No target found",
        provided.into(),
        problem.trim_end().to_string(),
        &format!(
            "Use names from {} (qualified names like `Class.method` pick one of several).",
            w.set(Term::Skeleton)
        ),
    )
}
