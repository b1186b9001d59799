//! Finding sections of a document by title glob, level, size or content (docs/doc_tools.md,
//! the find operation).

use std::sync::Arc;

use regex_automata::meta::Regex;

use super::doc::{Document, depth};
use super::outline::Section;
use crate::error::Error;

/// What [`find`] filters on; every filter given must hold.
#[derive(Clone, Debug, Default)]
pub struct FindQuery {
    /// Glob on the title (`*` any run, `?` one character; case-insensitive). Without a
    /// wildcard it matches any title containing it.
    pub pattern: Option<String>,
    /// Heading level (1 to 6).
    pub level: Option<u8>,
    /// A regex found in the section's own text (its heading and the text before its first
    /// subsection).
    pub content: Option<Arc<Regex>>,
    /// Least size of the whole section in bytes.
    pub min_size: Option<usize>,
    /// Deepest level of the tree (1 = top-level sections only).
    pub max_depth: Option<usize>,
}

/// A section [`find`] found, with the first line its content pattern matched.
#[derive(Clone, Debug)]
pub struct FindHit<'o> {
    pub section: &'o Section,
    pub matched_line: Option<(u64, String)>,
}

/// The sections matching `query`, in document order. A mapped file rewritten during the
/// content search is [`Error::Changed`] (see [`crate::source::guard_mapped`]).
pub fn find<'o>(doc: &'o Document, query: &FindQuery) -> Result<Vec<FindHit<'o>>, Error> {
    let source = doc.source();
    crate::source::guard_mapped(source.is_mapped(), source.path(), || find_in(doc, query))
}

fn find_in<'o>(doc: &'o Document, query: &FindQuery) -> Vec<FindHit<'o>> {
    let glob = query.pattern.as_deref().map(TitleGlob::new);
    let bytes = doc.bytes();
    doc.outline()
        .sections()
        .iter()
        .filter(|s| query.level.is_none_or(|l| s.level == l))
        .filter(|s| query.min_size.is_none_or(|m| s.size >= m))
        .filter(|s| query.max_depth.is_none_or(|d| depth(s) <= d))
        .filter(|s| glob.as_ref().is_none_or(|g| g.matches(&s.title)))
        .filter_map(|s| {
            let Some(re) = &query.content else {
                return Some(FindHit {
                    section: s,
                    matched_line: None,
                });
            };
            let own = doc.range(s, false);
            let m = re.find(&bytes[own.clone()])?;
            let at = own.start + m.start();
            let line =
                s.line_start + memchr::memchr_iter(b'\n', &bytes[own.start..at]).count() as u64;
            let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
            let line_end = crate::lines::line_end(bytes, at);
            let text = String::from_utf8_lossy(&bytes[line_start..line_end]);
            Some(FindHit {
                section: s,
                matched_line: Some((line, text.trim_end_matches('\r').to_string())),
            })
        })
        .collect()
}

/// A case-insensitive glob over titles.
struct TitleGlob {
    pattern: Vec<char>,
}

impl TitleGlob {
    fn new(pattern: &str) -> TitleGlob {
        let mut p: String = pattern.trim().to_lowercase();
        if !p.contains(['*', '?']) {
            p = format!("*{p}*");
        }
        TitleGlob {
            pattern: p.chars().collect(),
        }
    }

    fn matches(&self, title: &str) -> bool {
        let text: Vec<char> = title.to_lowercase().chars().collect();
        glob_match(&self.pattern, &text)
    }
}

/// Iterative wildcard matching with backtracking to the last `*` (linear in practice).
fn glob_match(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_titles() {
        let m = |p: &str, t: &str| TitleGlob::new(p).matches(t);
        assert!(m("*Phase*", "6.1 Phase B: plan"));
        assert!(m("phase", "6.1 Phase B: plan"));
        assert!(m("6.?*", "6.1 Phase B"));
        assert!(!m("6.?", "6.1 Phase B"));
        assert!(m("*验证*", "6.2 Phase B 验证计划"));
        assert!(!m("*Gamma*", "Phase B"));
        assert!(m("*", "anything"));
    }
}
