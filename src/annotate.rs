//! What a grep hit sits in, composed above the search and the parsers: the enclosing symbol
//! of a hit in code, and the section of a hit in a markdown document.
//!
//! In a markdown file under the default section patterns, headings are read as CommonMark
//! has them (never `#` lines in code blocks) and by level: a hit's section ends before the
//! next heading of the same or a higher level than the section it is in, or before the next
//! log entry (`[LOG-`) if that comes first; it starts at the later of its heading and the
//! log entry it is in.

use std::path::Path;

use rayon::prelude::*;

use crate::code::Lang;
use crate::grep::{
    DEFAULT_SECTION_PATTERNS, EnclosingSection, EnclosingSymbol, GrepMatch, GrepReport,
    SectionHint, section_hints,
};
use crate::markdown::doc::Document;
use crate::workspace::Workspace;

/// Fills `symbol` for hits in parsed languages and, in markdown files, `section` (and, when
/// `default_sections`, the section hints by heading level). Files are handled in parallel; a
/// file that cannot be opened again, or that changed meanwhile, is left as the search left it.
pub fn annotate(ws: &Workspace, report: &mut GrepReport, default_sections: bool) {
    let groups: Vec<&mut [GrepMatch]> = report
        .matches
        .chunk_by_mut(|a, b| a.path == b.path)
        .collect();
    groups.into_par_iter().for_each(|group| {
        let path = Path::new(&group[0].path);
        if Lang::from_path(path).is_some() {
            symbols(ws, group);
        } else if is_markdown(path) {
            sections(ws, group, default_sections);
        }
    });
}

/// Markdown by its extension.
pub fn is_markdown(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["md", "markdown", "mdown", "mkd", "mdx"]
            .iter()
            .any(|m| e.eq_ignore_ascii_case(m))
    })
}

/// The innermost symbol around each hit of one file.
fn symbols(ws: &Workspace, group: &mut [GrepMatch]) {
    let Ok(source) = ws.open_source(&group[0].path) else {
        return;
    };
    let Some(lang) = Lang::from_path(source.path()) else {
        return;
    };
    let Ok(Some(s)) = crate::code::structure_of(ws, &source, lang) else {
        return;
    };
    if source.check_intact().is_err() {
        return;
    }
    for m in group.iter_mut() {
        m.symbol = u32::try_from(m.line)
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
}

/// The innermost section around each hit of one markdown file and, under the default
/// patterns, hints by heading level.
fn sections(ws: &Workspace, group: &mut [GrepMatch], default_sections: bool) {
    let Ok(doc) = Document::open(ws, &group[0].path) else {
        return;
    };
    let outline = doc.outline();
    // The non-heading default boundaries ([LOG-), rescanned over the document.
    let mut log_hints: Vec<Option<SectionHint>> = vec![None; group.len()];
    if default_sections {
        let bytes = doc.bytes();
        let index = ws.index(doc.source());
        let patterns: Vec<_> = DEFAULT_SECTION_PATTERNS
            .iter()
            .filter(|p| !p.starts_with("^#"))
            .filter_map(|p| ws.regex(p, false).ok().map(|re| (p.to_string(), re)))
            .collect();
        let lines: Vec<(u64, usize, usize)> = group
            .iter()
            .map(|m| {
                let r = index.line_range(bytes, m.line, m.line);
                (m.line, r.start, r.end)
            })
            .collect();
        let list: Vec<String> = patterns.iter().map(|(p, _)| p.clone()).collect();
        let any = ws.regex_any(&list, false).ok();
        log_hints = section_hints(bytes, &patterns, any.as_deref(), &lines);
    }
    if doc.check_intact().is_err() {
        return;
    }
    for (m, log) in group.iter_mut().zip(log_hints) {
        let Some(s) = outline.innermost_at(m.line) else {
            // Before the first heading: the log boundaries alone.
            if default_sections {
                m.section_end_hint = log;
            }
            continue;
        };
        m.section = Some(EnclosingSection {
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
        m.section_end_hint = Some(match log {
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

/// The boundary of a section of `level`: a heading of that level or higher.
fn heading_pattern(level: u8) -> String {
    match level {
        1 => "^# ".to_string(),
        n => format!("^#{{1,{n}}} "),
    }
}
