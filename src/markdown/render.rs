//! Plain-text renderings of document results, shared by the MCP tools and the command line:
//! table-of-contents lines, section blocks and their notes.

use crate::words::{Term, Words};
use std::fmt::Write as _;

use super::doc::{SectionRead, candidate_line, tier_name};
use super::edit::Replaced;
use super::find::FindHit;
use super::outline::Section;

/// One outline line: `  1.2 ## Title  (#slug, lines 9-20, 1.2 KB)`, indented by depth.
pub fn toc_line(out: &mut String, s: &Section) {
    // Pushed piece by piece: a table of contents can run to thousands of lines.
    for _ in 0..s.index_path.matches('.').count() {
        out.push_str("  ");
    }
    out.push_str(&s.index_path);
    out.push(' ');
    for _ in 0..s.level {
        out.push('#');
    }
    out.push(' ');
    out.push_str(&s.title);
    out.push_str("  (#");
    out.push_str(&s.slug);
    let _ = write!(out, ", lines {}-{}, ", s.line_start, s.line_end);
    push_size(out, s.size);
    out.push_str(")\n");
}

/// Appends outline lines for `sections` to `out` while `out` stays within `budget` bytes;
/// returns how many were listed.
pub fn toc_lines(out: &mut String, sections: &[&Section], budget: usize) -> usize {
    out.reserve(budget.saturating_sub(out.len()).min(sections.len() * 96));
    for (i, s) in sections.iter().enumerate() {
        let before = out.len();
        toc_line(out, s);
        if out.len() > budget {
            out.truncate(before);
            return i;
        }
    }
    sections.len()
}

/// A size as people write it, appended to `out`: `512 B`, `1.2 KB`, `3.4 MB`.
fn push_size(out: &mut String, bytes: usize) {
    // Integer tenths, rounded: float formatting showed in profiles of long listings.
    let (unit, scale) = match bytes {
        0..1024 => {
            let _ = write!(out, "{bytes} B");
            return;
        }
        1024..1_048_576 => ("KB", 1024),
        _ => ("MB", 1024 * 1024),
    };
    let tenths = (bytes as u128 * 10 + scale as u128 / 2) / scale as u128;
    let _ = write!(out, "{}.{} {unit}", tenths / 10, tenths % 10);
}

/// A section read as a block: where it is, how it was found, its hash, notes, then the text
/// between dashes.
pub fn section_block(out: &mut String, path: &str, r: &SectionRead, w: &dyn Words) {
    let s = &r.section;
    let _ = writeln!(out, "File: {}", crate::quote::name(path));
    let _ = writeln!(
        out,
        "Section: {} {} {} (#{})",
        s.index_path,
        "#".repeat(s.level as usize),
        s.title,
        s.slug
    );
    let _ = writeln!(
        out,
        "Lines: {}-{} of {} · Hash: {} · Matched by: {}",
        r.first_line,
        r.cut_of.unwrap_or(r.last_line),
        r.total_lines,
        r.hash,
        tier_name(r.tier)
    );
    if !r.omitted_children.is_empty() {
        let _ = writeln!(
            out,
            "Note: {} subsection(s) not included ({}):",
            r.omitted_children.len(),
            w.pair(Term::IncludeChildren, "false")
        );
        for c in &r.omitted_children {
            let _ = writeln!(out, "  - {}", candidate_line(c));
        }
    }
    if let Some(end) = r.cut_of {
        let _ = writeln!(
            out,
            "Note: Cut at line {} (response size limit); the section runs to line {end}. Read the rest with {} {}, {}, or read its subsections one by one.",
            r.last_line,
            w.name(Term::ReadLines),
            w.pair(Term::StartLine, &(r.last_line + 1).to_string()),
            w.pair(Term::EndLine, &end.to_string())
        );
    }
    out.push_str("---\n");
    out.push_str(&r.text);
    if !r.text.is_empty() && !r.text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
}

/// A `doc_find` hit: its outline line and, for a content search, the first matching line.
pub fn find_hit(out: &mut String, hit: &FindHit<'_>) {
    toc_line(out, hit.section);
    if let Some((line, text)) = &hit.matched_line {
        let depth = hit.section.index_path.matches('.').count();
        let _ = writeln!(out, "{}    L{line}: {text}", "  ".repeat(depth));
    }
}

/// What a `doc_replace` did.
pub fn replaced(out: &mut String, path: &str, r: &Replaced) {
    let _ = writeln!(out, "File: {}", crate::quote::name(path));
    let _ = writeln!(
        out,
        "Replaced: {} (was lines {}-{})",
        candidate_line(&r.new),
        r.old.line_start,
        r.old.line_end
    );
    let _ = writeln!(out, "New hash: {}", r.hash);
    let _ = writeln!(
        out,
        "File: {} lines, {} -> {} bytes; every other section is unchanged.",
        r.total_lines, r.old_len, r.new_len
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_like_people_write_them() {
        let h = |n| {
            let mut s = String::new();
            super::push_size(&mut s, n);
            s
        };
        assert_eq!(h(0), "0 B");
        assert_eq!(h(1023), "1023 B");
        assert_eq!(h(1024), "1.0 KB");
        assert_eq!(h(1300), "1.3 KB");
        assert_eq!(h(1_048_575), "1024.0 KB");
        assert_eq!(h(3 * 1024 * 1024 + 400 * 1024), "3.4 MB");
    }
}
