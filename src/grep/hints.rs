//! Section-end hints (spec/000, spec/001): for each match, where the section it sits in ends.
//!
//! The patterns are tried in order; the first one that matches a line after the match gives
//! the hint (that line minus one). When none does and the file has section boundaries before
//! the match, the section runs to the end of the file and the hint says so. Each pattern's next
//! boundary is remembered while the matches of a file are walked in order, so a file costs at
//! most one forward scan per pattern, never a pass per match.

use std::sync::Arc;

use regex_automata::meta::Regex;

use crate::matcher::{count_newlines, next_line_match};

/// spec/001's default patterns, in the order they are checked.
pub const DEFAULT_SECTION_PATTERNS: [&str; 3] = [r"^## ", r"^# ", r"^\[LOG-"];

/// Where a match's section ends.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SectionHint {
    /// The last line of the section.
    pub end_line: u64,
    /// The boundary pattern that ended it; `None` when the section runs to end of file.
    pub next: Option<String>,
}

enum Next {
    Unknown,
    At { start: usize, line: u64 },
    None,
}

/// Hints for `lines` (sorted `(line, start, end)` of the matches) of one file.
pub fn compute(
    bytes: &[u8],
    patterns: &[(String, Arc<Regex>)],
    lines: &[(u64, usize, usize)],
) -> Vec<Option<SectionHint>> {
    if patterns.is_empty() {
        return vec![None; lines.len()];
    }
    let mut caches: Vec<_> = patterns.iter().map(|(_, re)| re.create_cache()).collect();
    let mut next: Vec<Next> = patterns.iter().map(|_| Next::Unknown).collect();
    let mut first: Vec<Option<Option<usize>>> = vec![None; patterns.len()];
    let mut total: Option<u64> = None;
    let mut out = Vec::with_capacity(lines.len());
    for &(line, start, end) in lines {
        let mut hint = None;
        for (i, (pattern, re)) in patterns.iter().enumerate() {
            let stale = match next[i] {
                Next::Unknown => true,
                Next::At { start: s, .. } => s <= end,
                Next::None => false,
            };
            if stale {
                next[i] =
                    match next_line_match(re, &mut caches[i], bytes, (end + 1).min(bytes.len())) {
                        Some(m) => Next::At {
                            start: m.start,
                            line: line + count_newlines(&bytes[start..m.start]),
                        },
                        None => Next::None,
                    };
            }
            if let Next::At { line: l, .. } = next[i] {
                hint = Some(SectionHint {
                    end_line: l - 1,
                    next: Some(pattern.clone()),
                });
                break;
            }
        }
        if hint.is_none() {
            // Last section of a sectioned file: some boundary at or before the match.
            let sectioned = patterns.iter().enumerate().any(|(i, (_, re))| {
                let f = *first[i].get_or_insert_with(|| {
                    next_line_match(re, &mut caches[i], bytes, 0).map(|m| m.start)
                });
                f.is_some_and(|f| f <= start)
            });
            if sectioned {
                let t = *total.get_or_insert_with(|| {
                    let trailing = u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
                    line - 1 + count_newlines(&bytes[start..]) + trailing
                });
                hint = Some(SectionHint {
                    end_line: t,
                    next: None,
                });
            }
        }
        out.push(hint);
    }
    out
}
