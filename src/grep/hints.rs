//! Section hints: for each match, where the section it sits in starts and ends.
//!
//! A section boundary is a line matching any of the section patterns. A match's section ends
//! on the line before the nearest boundary after it; when several patterns match that line,
//! the first in list order is the one reported. It starts at the nearest boundary at or before
//! the match. When no boundary follows but one precedes, the section runs to the end of the
//! file and the hint says so. The boundaries (the lines the patterns' alternation matches) are
//! walked forward once per file while the (sorted) matches are visited, so a file costs one
//! scan for all the patterns, never one per pattern or per match.

use std::sync::Arc;

use regex_automata::Input;
use regex_automata::meta::Regex;

use crate::lines::line_end;
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

/// Section patterns compiled once for a search: each alone (to name the one that ends a
/// section) and their alternation (to find the boundaries in one pass).
#[derive(Clone, Default)]
pub struct SectionPatterns {
    patterns: Vec<(String, Arc<Regex>)>,
    any: Option<Arc<Regex>>,
}

impl SectionPatterns {
    /// Compiles `list` with the workspace's regex cache; the first pattern that does not
    /// compile comes back with its error.
    pub fn compile(
        ws: &crate::workspace::Workspace,
        list: &[String],
    ) -> Result<SectionPatterns, (String, Box<regex_automata::meta::BuildError>)> {
        let mut patterns = Vec::new();
        for p in list {
            let re = ws.regex(p, false).map_err(|e| (p.clone(), e))?;
            patterns.push((p.clone(), re));
        }
        // Each pattern compiled alone, so their alternation does too (else no hints).
        let any = if list.is_empty() {
            None
        } else {
            ws.regex_any(list, false).ok()
        };
        Ok(SectionPatterns { patterns, any })
    }

    /// The hints of one file's matches (`lines`: sorted `(line, start, end)`).
    pub fn hints(&self, bytes: &[u8], lines: &[(u64, usize, usize)]) -> Vec<Option<SectionHint>> {
        compute(bytes, &self.patterns, self.any.as_deref(), lines)
    }
}

/// Hints for `lines` (sorted `(line, start, end)` of the matches) of one file. `any` matches a
/// line when any of `patterns` does ([`crate::matcher::build_line_regex_any`]): the file is
/// walked once, boundary by boundary, for all the patterns, and the patterns are tried one by
/// one only on the boundary lines that end a section, to name the first that matches.
fn compute(
    bytes: &[u8],
    patterns: &[(String, Arc<Regex>)],
    any: Option<&Regex>,
    lines: &[(u64, usize, usize)],
) -> Vec<Option<SectionHint>> {
    let (Some(any), false) = (any, patterns.is_empty()) else {
        return vec![None; lines.len()];
    };
    let mut cache = any.create_cache();
    // The last boundary that starts at or before the current match: `(start, line)`.
    let mut prev: Option<(usize, u64)> = None;
    // The first boundary not yet passed, once searched (`None` inside: no more): `(start,
    // end, line)`, and the pattern it is credited to, once asked.
    let mut next: Option<Option<(usize, usize, u64)>> = None;
    let mut credited: Option<(usize, &str)> = None;
    let mut total: Option<u64> = None;
    let mut out = Vec::with_capacity(lines.len());
    for &(line, start, _) in lines {
        // Move every boundary at or before the match's line into `prev`.
        loop {
            let found = *next.get_or_insert_with(|| {
                let from = prev.map_or(0, |(s, _)| line_end(bytes, s) + 1);
                // Numbered from the previous boundary when there is one: each stretch of
                // the file is counted once.
                let anchor = prev.unwrap_or((start, line));
                next_line_match(any, &mut cache, bytes, from.min(bytes.len()))
                    .map(|m| (m.start, m.end, line_of(bytes, m.start, anchor)))
            });
            match found {
                Some((s, _, l)) if s <= start => {
                    prev = Some((s, l));
                    next = None;
                }
                _ => break,
            }
        }
        let start_line = prev.map(|(_, l)| l);
        let hint = match next {
            Some(Some((s, e, l))) => {
                // The first pattern, in list order, that matches the boundary line.
                let name = match credited {
                    Some((at, name)) if at == s => name,
                    _ => {
                        let name = first_matching(patterns, bytes, s, e);
                        credited = Some((s, name));
                        name
                    }
                };
                Some(SectionHint {
                    end_line: l - 1,
                    next: Some(name.to_string()),
                    start_line,
                })
            }
            // Last section of a sectioned file: a boundary at or before the match.
            _ if start_line.is_some() => Some(SectionHint {
                end_line: *total.get_or_insert_with(|| {
                    let trailing = u64::from(bytes.last().is_some_and(|&b| b != b'\n'));
                    line - 1 + count_newlines(&bytes[start..]) + trailing
                }),
                next: None,
                start_line,
            }),
            _ => None,
        };
        out.push(hint);
    }
    out
}

/// The first of `patterns` that matches the line `bytes[start..end]` (the bytes around it
/// visible to `^` and `$`, as in the whole-buffer search); the first pattern if none does,
/// which cannot happen for a line their alternation matched.
fn first_matching<'p>(
    patterns: &'p [(String, Arc<Regex>)],
    bytes: &[u8],
    start: usize,
    end: usize,
) -> &'p str {
    let line = Input::new(bytes).range(start..end).earliest(true);
    patterns
        .iter()
        .find(|(_, re)| re.is_match(line.clone()))
        .unwrap_or(&patterns[0])
        .0
        .as_str()
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
    use crate::matcher::{build_line_regex, build_line_regex_any};

    fn patterns(ps: &[&str]) -> Vec<(String, Arc<Regex>)> {
        ps.iter()
            .map(|p| (p.to_string(), Arc::new(build_line_regex(p, false).unwrap())))
            .collect()
    }

    /// The hints of `hs` in `doc` under the patterns `ps`.
    fn hints_of(doc: &str, ps: &[&str], hs: &[(u64, usize, usize)]) -> Vec<Option<SectionHint>> {
        let list: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
        let any = build_line_regex_any(&list, false).unwrap();
        compute(doc.as_bytes(), &patterns(ps), Some(&any), hs)
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
        let hs = hits(&doc, "x");
        let got = hints_of(&doc, &DEFAULT_SECTION_PATTERNS, &hs);
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
            &[r"^# ", r"^#"][..],
            &[r"(?i)^## b", r"^\s*$", r"x$"][..],
            &[r"^", r"^#"][..],
            &[r"(?x) ^\[LOG- # a comment", r"C\s"][..],
        ] {
            let hs = hits(doc, "x");
            let got = hints_of(doc, ps, &hs);
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
