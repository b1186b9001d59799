//! Section hints: for each match, where the section it sits in starts and ends.
//!
//! A section boundary is a line matching any of the section patterns. A match's section ends
//! on the line before the nearest boundary after it; when several patterns match that line,
//! the first in list order is the one reported. It starts at the nearest boundary at or before
//! the match. When no boundary follows but one precedes, the section runs to the end of the
//! file and the hint says so. Each pattern's boundaries are walked forward once per file while
//! the (sorted) matches are visited, so a file costs one scan per pattern, never one per match.

use std::sync::Arc;

use regex_automata::meta::Regex;

use crate::matcher::{count_newlines, next_line_match};

/// The default patterns, in the order they are credited: level-2 heading, level-1 heading,
/// log entry.
pub const DEFAULT_SECTION_PATTERNS: [&str; 3] = [r"^## ", r"^# ", r"^\[LOG-"];

/// Where a match's section starts and ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionHint {
    /// The last line of the section.
    pub end_line: u64,
    /// The boundary pattern that ended it; `None` when the section runs to end of file.
    pub next: Option<String>,
    /// The section's first line: the nearest boundary at or before the match (`None` when the
    /// match sits before the file's first boundary).
    pub start_line: Option<u64>,
}

/// One pattern's walk over its boundaries: the last one at or before the current match and
/// the first one after it.
struct Walk {
    cache: regex_automata::meta::Cache,
    /// The last boundary that starts at or before the current match: `(start, line)`.
    prev: Option<(usize, u64)>,
    /// The first boundary not yet passed (`None`: no more), once searched.
    next: Option<Option<(usize, u64)>>,
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
    let mut walks: Vec<Walk> = patterns
        .iter()
        .map(|(_, re)| Walk {
            cache: re.create_cache(),
            prev: None,
            next: None,
        })
        .collect();
    let mut total: Option<u64> = None;
    let mut out = Vec::with_capacity(lines.len());
    for &(line, start, _) in lines {
        let mut nearest: Option<(u64, usize)> = None;
        let mut start_line: Option<u64> = None;
        for (i, (_, re)) in patterns.iter().enumerate() {
            let w = &mut walks[i];
            // Move every boundary at or before the match's line into `prev`.
            loop {
                let next = *w.next.get_or_insert_with(|| {
                    let from = w.prev.map_or(0, |(s, _)| line_end(bytes, s) + 1);
                    // Numbered from the previous boundary when there is one: each stretch of
                    // the file is counted once.
                    let anchor = w.prev.unwrap_or((start, line));
                    next_line_match(re, &mut w.cache, bytes, from.min(bytes.len()))
                        .map(|m| (m.start, line_of(bytes, m.start, anchor)))
                });
                match next {
                    Some((s, l)) if s <= start => {
                        w.prev = Some((s, l));
                        w.next = None;
                    }
                    _ => break,
                }
            }
            if let Some(Some((_, l))) = w.next
                && nearest.is_none_or(|(best, _)| l < best)
            {
                nearest = Some((l, i));
            }
            if let Some((_, l)) = w.prev {
                start_line = start_line.max(Some(l));
            }
        }
        let hint = match nearest {
            Some((l, i)) => Some(SectionHint {
                end_line: l - 1,
                next: Some(patterns[i].0.clone()),
                start_line,
            }),
            // Last section of a sectioned file: a boundary at or before the match.
            None if start_line.is_some() => Some(SectionHint {
                end_line: *total.get_or_insert_with(|| {
                    let trailing = u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
                    line - 1 + count_newlines(&bytes[start..]) + trailing
                }),
                next: None,
                start_line,
            }),
            None => None,
        };
        out.push(hint);
    }
    out
}

/// The offset of the newline ending the line that starts at `start` (or the end of `bytes`).
fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i)
}

/// The line number of the line starting at `pos`, from a known `(offset, line)` anchor.
fn line_of(bytes: &[u8], pos: usize, (at, line): (usize, u64)) -> u64 {
    if pos >= at {
        line + count_newlines(&bytes[at..pos])
    } else {
        line - count_newlines(&bytes[pos..at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::build_line_regex;

    fn patterns(ps: &[&str]) -> Vec<(String, Arc<Regex>)> {
        ps.iter()
            .map(|p| (p.to_string(), Arc::new(build_line_regex(p, false).unwrap())))
            .collect()
    }

    /// `(line, start, end)` of every line of `doc` containing `needle`.
    fn hits(doc: &str, needle: &str) -> Vec<(u64, usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        for (i, l) in doc.split_inclusive('\n').enumerate() {
            if l.contains(needle) {
                out.push((i as u64 + 1, at, at + l.trim_end_matches('\n').len()));
            }
            at += l.len();
        }
        out
    }

    /// The naive rule, line by line: nearest boundary after (first pattern in list order on
    /// that line), nearest at or before.
    fn naive(doc: &str, ps: &[&str], line: u64) -> Option<SectionHint> {
        let res: Vec<Regex> = ps
            .iter()
            .map(|p| build_line_regex(p, false).unwrap())
            .collect();
        let lines: Vec<&str> = doc.lines().collect();
        let matching = |l: &str| res.iter().position(|r| r.is_match(l));
        let start = (1..=line)
            .rev()
            .find(|&n| matching(lines[n as usize - 1]).is_some());
        let next = (line + 1..=lines.len() as u64)
            .find_map(|n| matching(lines[n as usize - 1]).map(|i| (n, i)));
        match next {
            Some((n, i)) => Some(SectionHint {
                end_line: n - 1,
                next: Some(ps[i].to_string()),
                start_line: start,
            }),
            None => start.map(|s| SectionHint {
                end_line: lines.len() as u64,
                next: None,
                start_line: Some(s),
            }),
        }
    }

    #[test]
    fn the_nearest_boundary_ends_a_section_and_the_nearest_before_starts_it() {
        // A work log: entries inside a `## ` section, a `## ` heading long after.
        let mut doc = String::from("# Log\n\n## 2. Events\n\n");
        for i in 0..50 {
            doc.push_str(&format!("[LOG-{i:03}] entry\nbody {i} x\nmore\n\n"));
        }
        doc.push_str("## 4. Next Steps\nlast x\n");
        let ps = patterns(&DEFAULT_SECTION_PATTERNS);
        let hs = hits(&doc, "x");
        let got = compute(doc.as_bytes(), &ps, &hs);
        for (&(line, _, _), h) in hs.iter().zip(&got) {
            assert_eq!(
                h.as_ref(),
                naive(&doc, &DEFAULT_SECTION_PATTERNS, line).as_ref(),
                "line {line}"
            );
        }
        // The entry of LOG-010 (line 45) runs from its start to the line before LOG-011.
        let h = got[10].clone().unwrap();
        assert_eq!(
            (h.start_line, h.end_line, h.next.as_deref()),
            (Some(45), 48, Some(r"^\[LOG-"))
        );
        // The last line: after the last heading, to the end of the file.
        let h = got.last().cloned().unwrap().unwrap();
        assert_eq!((h.start_line, h.end_line, h.next), (Some(205), 206, None));
    }

    #[test]
    fn equals_the_naive_rule_on_mixed_boundaries() {
        let doc = "pre x\n# A x\ntext x\n## B\n[LOG-1] x\nx\n[LOG-2]\n## C x\n# D\nx\n";
        for ps in [
            &DEFAULT_SECTION_PATTERNS[..],
            &[r"^\[LOG-", r"^#"][..],
            &[r"x$"][..],
            &[r"^#", r"^# "][..],
        ] {
            let hs = hits(doc, "x");
            let got = compute(doc.as_bytes(), &patterns(ps), &hs);
            for (&(line, _, _), h) in hs.iter().zip(&got) {
                assert_eq!(
                    h.as_ref(),
                    naive(doc, ps, line).as_ref(),
                    "{ps:?} line {line}"
                );
            }
        }
    }
}
