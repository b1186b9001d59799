//! What a grep hit sits in, composed above the search and the parsers: the enclosing symbol
//! of a hit in code, and the section of a hit in a markdown document.
//!
//! In a markdown file under the default section patterns, headings are read as CommonMark
//! has them (never `#` lines in code blocks) and by level: a hit's section ends before the
//! next heading of the same or a higher level than the section it is in, or before the next
//! log entry (`[LOG-`) if that comes first; it starts at the later of its heading and the
//! log entry it is in.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::source::{FileId, Source};
use std::time::{Duration, Instant};

use crate::code::{Lang, Stop};
use crate::grep::{
    DEFAULT_SECTION_PATTERNS, EnclosingSection, EnclosingSymbol, GrepError, GrepMatch, GrepQuery,
    SectionHint, SectionPatterns,
};
use crate::markdown::doc::Document;
use crate::workspace::Workspace;

/// What one hit sits in: the one hint rule every front-end shows (`grep_content`, and the
/// command line's `--hints` and `--json`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hint {
    /// Where its section starts and ends (by the section patterns; in markdown under the
    /// default patterns, by heading level too).
    pub section_end_hint: Option<SectionHint>,
    /// Markdown: the section by heading, with its slug.
    pub section: Option<EnclosingSection>,
    /// Code in a parsed language: the innermost symbol.
    pub symbol: Option<EnclosingSymbol>,
}

/// How long one search may spend parsing files for its hits' enclosing symbols (files
/// already parsed, or whose symbols the index records, cost nothing): past it, hits in
/// files not parsed yet go without their symbol, and the answer says how many. The search's
/// own matches never wait for hints.
pub const HINT_BUDGET: Duration = Duration::from_millis(300);

/// The command line's budget: its hints stream with the output, so one slow file holds
/// back only its own lines.
pub const CLI_HINT_BUDGET: Duration = Duration::from_secs(3);

/// A query's section patterns, compiled once: computes the [`Hint`]s of one file's hits.
pub struct Hinter {
    patterns: SectionPatterns,
    default_sections: bool,
    /// Parses for symbols stop at this time.
    until: Instant,
    /// Hits left without their symbol (their file not parsed within the budget).
    left_out: AtomicU64,
}

impl Hinter {
    /// The hinter of `q` (its section patterns, or the default ones), with the engine's
    /// errors for a bad pattern.
    pub fn new(ws: &Workspace, q: &GrepQuery) -> Result<Hinter, GrepError> {
        Ok(Hinter {
            patterns: crate::grep::section_patterns(ws, q)?,
            default_sections: q.section_patterns.is_none(),
            until: Instant::now() + CLI_HINT_BUDGET,
            left_out: AtomicU64::new(0),
        })
    }

    /// Hits that went without their enclosing symbol: their files were not parsed within
    /// [`CLI_HINT_BUDGET`].
    pub fn left_out(&self) -> u64 {
        self.left_out.load(Ordering::Relaxed)
    }

    /// The hints of the hits `lines` (sorted `(line, start, end)`) in `bytes`, read from the
    /// file `at` (its path and the bytes' identity; `None`: not a file, and no symbols): the
    /// symbols from the index's records of these bytes, else from a parse of the bytes in hand.
    pub fn file(
        &self,
        ws: &Workspace,
        at: Option<(&Path, FileId)>,
        bytes: &[u8],
        lines: &[(u64, usize, usize)],
    ) -> Vec<Hint> {
        let by_pattern = self.patterns.hints(bytes, lines);
        let mut hints: Vec<Hint> = by_pattern
            .into_iter()
            .map(|h| Hint {
                section_end_hint: h,
                ..Hint::default()
            })
            .collect();
        let numbers: Vec<u64> = lines.iter().map(|l| l.0).collect();
        let stop = Stop::new(None, Some(self.until));
        // Not a file, or no hit in it (most files of a search): nothing to look up or parse.
        let Some((path, id)) = at.filter(|_| !lines.is_empty()) else {
            return hints;
        };
        // The index's records are kept by canonical path: a walk from a relative path (the
        // command line's `.`) names files relatively.
        let resolved;
        let path = if path.is_absolute() {
            path
        } else {
            match path.to_str().map(|p| ws.resolve(p)) {
                Some(Ok(p)) => {
                    resolved = p;
                    &resolved
                }
                _ => return hints,
            }
        };
        let file = InHand {
            path,
            id: Some(id),
            bytes,
        };
        if !fill(ws, file, &numbers, &mut hints, self.default_sections, &stop) {
            self.left_out
                .fetch_add(numbers.len() as u64, Ordering::Relaxed);
        }
        hints
    }
}

/// The hints a server's search adds to each file's matches, in the worker that searched the
/// file (see [`crate::grep::FileHints`]): symbols from the index's records, or from a parse of
/// the bytes in hand while the search's parses have taken less than [`HINT_BUDGET`] per
/// core in all (the time they would have had in a pass of their own after the search) and
/// until `cancel`; the hits of files not parsed are marked `symbol_left_out`.
pub struct SearchHints<'a> {
    ws: &'a Workspace,
    default_sections: bool,
    cancel: &'a AtomicBool,
    /// Nanoseconds the search's parses may take in all, and have taken.
    budget: u64,
    spent: AtomicU64,
}

impl<'a> SearchHints<'a> {
    pub fn new(ws: &'a Workspace, default_sections: bool, cancel: &'a AtomicBool) -> Self {
        let cores = rayon::current_num_threads().max(1) as u64;
        SearchHints {
            ws,
            default_sections,
            cancel,
            budget: HINT_BUDGET.as_nanos() as u64 * cores,
            spent: AtomicU64::new(0),
        }
    }
}

impl crate::grep::FileHints for SearchHints<'_> {
    fn fill(&self, path: &Path, id: FileId, bytes: &[u8], matches: &mut [GrepMatch]) {
        let numbers: Vec<u64> = matches.iter().map(|m| m.line).collect();
        let mut hints: Vec<Hint> = matches
            .iter()
            .map(|m| Hint {
                section_end_hint: m.section_end_hint.clone(),
                ..Hint::default()
            })
            .collect();
        let file = InHand {
            path,
            id: Some(id),
            bytes,
        };
        let left = self
            .budget
            .saturating_sub(self.spent.load(Ordering::Relaxed));
        let started = Instant::now();
        let stop = Stop::new(
            Some(self.cancel),
            Some(started + Duration::from_nanos(left)),
        );
        let parsed = fill(
            self.ws,
            file,
            &numbers,
            &mut hints,
            self.default_sections,
            &stop,
        );
        self.spent
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        for (m, h) in matches.iter_mut().zip(hints) {
            m.section_end_hint = h.section_end_hint;
            m.section = h.section;
            m.symbol = h.symbol;
            m.symbol_left_out = !parsed;
        }
    }
}

/// A file whose bytes are in hand: its path, its identity when read (`None`: unknown, and
/// a parse opens the file again), and its bytes as a search read them.
#[derive(Clone, Copy)]
struct InHand<'a> {
    path: &'a Path,
    id: Option<FileId>,
    bytes: &'a [u8],
}

/// Bytes in hand up to this size are copied into a [`Source`] for a parse or an outline;
/// a larger file (a search maps those) is mapped again instead: a copy would cost its size
/// in heap (a markdown file followed by a gigabyte of NUL once took a gigabyte).
const ADOPT_MAX: usize = 128 * 1024;

impl InHand<'_> {
    /// The file as a [`Source`] for a parse: the bytes in hand when their identity is known
    /// and they are small, else the file opened again.
    fn source(&self, ws: &Workspace) -> Option<Source> {
        match self.id {
            Some(id) if self.bytes.len() <= ADOPT_MAX => {
                Some(Source::adopt(self.path, id, self.bytes))
            }
            _ => ws.open_resolved(self.path).ok(),
        }
    }
}

/// The one rule, for the hits at `lines` (sorted) of `file`, whose pattern hints are already
/// in `hints`: the enclosing symbol in a parsed language; in markdown the section, and under
/// the default patterns its bounds by heading level. `false` if `stop` left the symbols out.
fn fill(
    ws: &Workspace,
    file: InHand<'_>,
    lines: &[u64],
    hints: &mut [Hint],
    default_sections: bool,
    stop: &Stop,
) -> bool {
    let path = file.path;
    if Lang::from_path(path).is_some() || Lang::content_decides(path) {
        return symbols(ws, file, lines, hints, stop);
    } else if is_markdown(path) {
        sections(ws, file, lines, hints, default_sections);
    }
    true
}

/// Markdown by its extension.
pub fn is_markdown(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["md", "markdown", "mdown", "mkd", "mdx"]
            .iter()
            .any(|m| e.eq_ignore_ascii_case(m))
    })
}

/// The innermost symbol around each hit of one file: from the index's records of these
/// bytes, else by a parse; `false` if `stop` stopped the parse.
fn symbols(
    ws: &Workspace,
    file: InHand<'_>,
    lines: &[u64],
    hints: &mut [Hint],
    stop: &Stop,
) -> bool {
    let Some(lang) = Lang::of_file(file.path, file.bytes) else {
        return true;
    };
    // The index's records of this version, when there are: no parse.
    let version = crate::symbols::held(file.id, file.bytes);
    if let Some(found) = crate::symbols::enclosing(ws, file.path, version, lines) {
        for (h, e) in hints.iter_mut().zip(found) {
            h.symbol = e.map(|e| EnclosingSymbol {
                name: e.address,
                kind: e.kind.to_string(),
                start_line: e.start_line.into(),
                end_line: e.end_line.into(),
            });
        }
        return true;
    }
    let Some(source) = file.source(ws) else {
        return true;
    };
    if stop.stopped()
        && ws
            .cached_parse::<crate::code::FileStructure>(&source)
            .is_none()
    {
        return false;
    }
    let s = match crate::code::parse_of(ws, &source, lang, stop) {
        Ok(Ok(s)) => s,
        Ok(Err(crate::code::Unparsed::Stopped)) => return false,
        _ => return true,
    };
    if source.check_intact().is_err() {
        return true;
    }
    for (&line, h) in lines.iter().zip(hints.iter_mut()) {
        h.symbol = u32::try_from(line)
            .ok()
            .and_then(|line| s.innermost_at(line))
            .map(|i| {
                let sym = s.symbol(i);
                EnclosingSymbol {
                    name: sym.address.clone(),
                    kind: sym.kind.to_string(),
                    start_line: sym.start_line.into(),
                    end_line: sym.end_line.into(),
                }
            });
    }
    true
}

/// The innermost section around each hit of one markdown file and, under the default
/// patterns, hints by heading level.
fn sections(
    ws: &Workspace,
    file: InHand<'_>,
    lines: &[u64],
    hints: &mut [Hint],
    default_sections: bool,
) {
    let Some(doc) = file
        .source(ws)
        .and_then(|s| Document::of_source(ws, s).ok())
    else {
        return;
    };
    let outline = doc.outline();
    // The non-heading default boundaries ([LOG-), rescanned over the document.
    let mut log_hints: Vec<Option<SectionHint>> = vec![None; lines.len()];
    if default_sections {
        let bytes = doc.bytes();
        let index = ws.index(doc.source());
        let ranges: Vec<(u64, usize, usize)> = lines
            .iter()
            .map(|&line| {
                let r = index.line_range(bytes, line, line);
                (line, r.start, r.end)
            })
            .collect();
        log_hints = log_patterns(ws).hints(bytes, &ranges);
    }
    if doc.check_intact().is_err() {
        return;
    }
    for ((&line, h), log) in lines.iter().zip(hints.iter_mut()).zip(log_hints) {
        let Some(s) = outline.innermost_at(line) else {
            // Before the first heading: the log boundaries alone.
            if default_sections {
                h.section_end_hint = log;
            }
            continue;
        };
        h.section = Some(EnclosingSection {
            slug: s.slug.clone(),
            start_line: s.line_start,
            end_line: s.line_end,
        });
        if !default_sections {
            continue;
        }
        let by_heading = SectionHint {
            end_line: s.line_end,
            next: (s.line_end < outline.total_lines()).then(|| heading_pattern(s.level)),
            start_line: Some(s.line_start),
        };
        h.section_end_hint = Some(match log {
            // The nearer end and the later start of the two.
            Some(l) => SectionHint {
                start_line: l.start_line.max(by_heading.start_line),
                ..if l.next.is_some() && l.end_line < by_heading.end_line {
                    l
                } else {
                    by_heading
                }
            },
            None => by_heading,
        });
    }
}

/// The default boundaries that are not headings (`^\[LOG-`), compiled.
fn log_patterns(ws: &Workspace) -> SectionPatterns {
    let list: Vec<String> = DEFAULT_SECTION_PATTERNS
        .iter()
        .filter(|p| !p.starts_with("^#"))
        .map(|p| p.to_string())
        .collect();
    SectionPatterns::compile(ws, &list).unwrap_or_default()
}

/// The boundary of a section of `level`: a heading of that level or higher.
fn heading_pattern(level: u8) -> String {
    match level {
        1 => "^# ".to_string(),
        n => format!("^#{{1,{n}}} "),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::grep::{GrepQuery, Progress};
    use crate::roots::Roots;

    #[test]
    fn hints_left_out_by_the_budget_are_marked_and_the_matches_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn start() {\n    run();\n}\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "fn stop() {\n    run();\n}\n").unwrap();
        let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
        let q = GrepQuery::new("run");
        let search = |cancel: bool| {
            let cancelled = AtomicBool::new(cancel);
            let hints = SearchHints::new(&ws, true, &cancelled);
            crate::grep::search_hinted(&ws, &q, &Progress::default(), Some(&hints)).unwrap()
        };
        // Cancelled before it starts: no file is parsed, every hit is kept, marked.
        let report = search(true);
        assert_eq!(report.matches.len(), 2);
        assert!(
            report
                .matches
                .iter()
                .all(|m| m.symbol.is_none() && m.symbol_left_out)
        );
        // With time: the enclosing functions, from the bytes the search read.
        let report = search(false);
        let symbols: Vec<_> = report
            .matches
            .iter()
            .map(|m| m.symbol.as_ref().map(|s| s.name.as_str()))
            .collect();
        assert_eq!(symbols, [Some("start"), Some("stop")]);
        assert!(report.matches.iter().all(|m| !m.symbol_left_out));
    }

    #[test]
    fn the_command_lines_hints_come_from_the_bytes_in_hand() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        let text = b"fn start() {\n    run();\n}\n";
        std::fs::write(&path, text).unwrap();
        let id = crate::source::FileId::from_metadata(&std::fs::metadata(&path).unwrap());
        let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
        let hinter = Hinter::new(&ws, &GrepQuery::new("run")).unwrap();
        // The file is gone after the search read it: its hints are made from what was read,
        // never by opening it again.
        std::fs::remove_file(&path).unwrap();
        let hints = hinter.file(&ws, Some((&path, id)), text, &[(2, 13, 23)]);
        let symbol = hints[0].symbol.as_ref().map(|s| s.name.as_str());
        assert_eq!(symbol, Some("start"));
        // Not a file (standard input): no symbol, and nothing opened.
        let hints = hinter.file(&ws, None, text, &[(2, 13, 23)]);
        assert!(hints[0].symbol.is_none());
        // No hit: nothing to look up.
        assert!(hinter.file(&ws, Some((&path, id)), text, &[]).is_empty());
    }
}
