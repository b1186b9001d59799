//! Text of `file_read` results (the file_read contract's formats): stubs, structured ranges, the enhanced
//! skeleton and symbol reads. Shared by the MCP tool and the command line.

use std::fmt::Write as _;

use super::{CodeFile, FileStructure, GapKind, Item, Piece, Symbol, TargetMatch};
use crate::code::Block;
use crate::words::{Term, Words};

/// `## NAME: PATH` (the operation's name in the front-end's words) and the blank line after it.
pub fn header(out: &mut String, path: &str, w: &dyn Words) {
    let _ = write!(out, "## {}: {path}\n\n", w.name(Term::CodeAnswer));
}

/// `--- symbol: NAME (KIND, lines X-Y) ---` and the line telling how to read it.
pub fn stub(out: &mut String, sym: &Symbol, w: &dyn Words) {
    let _ = write!(
        out,
        "--- symbol: {name} ({kind}, lines {a}-{b}) ---\nUse {call} to read this symbol\n",
        name = sym.address,
        call = w.inline(Term::Target, &format!("\"{}\"", sym.address)),
        kind = sym.kind,
        a = sym.start_line,
        b = sym.end_line
    );
}

/// The one-line stub of a collapsed import/export/comment/directive block.
pub fn collapsed(out: &mut String, block: &Block) {
    let name = block.category.name();
    let lines = if block.start_line == block.end_line {
        format!("line {}", block.start_line)
    } else {
        format!("lines {}-{}", block.start_line, block.end_line)
    };
    let _ = if block.items > 1 {
        writeln!(out, "--- {name}s ({} items, {lines}) ---", block.items)
    } else {
        writeln!(out, "--- {name} ({lines}) ---")
    };
}

/// Writes pieces with the spacing of docs/file_read.md: a symbol stub has a blank line above and
/// below it (never two), raw lines are as in the file.
pub struct PieceWriter<'a> {
    out: &'a mut String,
    /// The front-end's words, for the stubs' "how to read this" lines.
    words: &'a dyn Words,
    /// Stop writing lines once the text is longer than this (the response size limit: the
    /// caller cuts and says so).
    limit: usize,
    /// The output so far ends with a blank line, or nothing was written yet.
    after_blank: bool,
    /// A stub was written and wants a blank line before what follows.
    pending: bool,
    /// A line longer than the limit was shown in part; nothing follows it.
    pub cut_line: bool,
}

impl<'a> PieceWriter<'a> {
    pub fn new(out: &'a mut String, limit: usize, words: &'a dyn Words) -> PieceWriter<'a> {
        PieceWriter {
            out,
            words,
            limit,
            after_blank: true,
            pending: false,
            cut_line: false,
        }
    }

    pub fn raw_line(&mut self, line: &[u8]) {
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if self.pending && !blank {
            self.out.push('\n');
        }
        self.pending = false;
        // Room for the line, leaving space for the notes after it.
        let room = self.limit.saturating_sub(self.out.len() + 600);
        if line.len() > room {
            let text = String::from_utf8_lossy(&line[..room]);
            let mut end = text.len().min(room);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.out.push_str(&text[..end]);
            let _ = writeln!(
                self.out,
                " […line cut: {} of its {} bytes shown]",
                end,
                line.len()
            );
            self.cut_line = true;
            return;
        }
        self.out.push_str(&String::from_utf8_lossy(line));
        self.out.push('\n');
        self.after_blank = blank;
    }

    /// Lines `first..=last` of `file`, until the text passes the limit.
    pub fn raw_lines(&mut self, file: &CodeFile, first: u32, last: u32) {
        for line in file.lines(first, last) {
            if self.full() {
                return;
            }
            self.raw_line(line);
        }
    }

    /// Whether the text passed the limit.
    pub fn full(&self) -> bool {
        self.cut_line || self.out.len() > self.limit
    }

    pub fn stub(&mut self, sym: &Symbol) {
        if self.pending || !self.after_blank {
            self.out.push('\n');
        }
        stub(self.out, sym, self.words);
        self.pending = true;
        self.after_blank = false;
    }

    pub fn collapsed(&mut self, block: &Block) {
        if self.pending {
            self.out.push('\n');
            self.pending = false;
        }
        collapsed(self.out, block);
        self.after_blank = false;
    }

    /// Writes pieces of `file`; returns the symbols stubbed.
    pub fn pieces(&mut self, file: &CodeFile, s: &FileStructure, pieces: &[Piece]) -> Vec<u32> {
        let mut stubs = Vec::new();
        for piece in pieces {
            if self.full() {
                break;
            }
            match *piece {
                Piece::Raw { first, last } => self.raw_lines(file, first, last),
                Piece::Stub(i) => {
                    self.stub(s.symbol(i));
                    stubs.push(i);
                }
                Piece::Collapsed(block) => self.collapsed(&block),
            }
        }
        stubs
    }
}

/// `[5]` or `[5-8]`.
fn lines_tag(start: u32, end: u32) -> String {
    if start == end {
        format!("[{start}]")
    } else {
        format!("[{start}-{end}]")
    }
}

/// The enhanced skeleton: directives, imports, exports, comments, the symbol tree, and the
/// gaps with their content.
pub fn skeleton(out: &mut String, file: &CodeFile, s: &FileStructure) {
    let _ = write!(
        out,
        "**Skeleton Mode** ({} symbol{})\n{} lines, {}\n\n",
        s.symbols.len(),
        if s.symbols.len() == 1 { "" } else { "s" },
        s.total_lines,
        s.lang.map_or("text", |l| l.name())
    );
    let lists: [(&str, &[Item]); 4] = [
        ("Imports", &s.imports),
        ("Exports", &s.exports),
        ("Comments", &s.comments),
        ("Directives", &s.directives),
    ];
    for (title, items) in lists {
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(out, "**{title} ({}):**", items.len());
        for item in items {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                lines_tag(item.start_line, item.end_line),
                item.kind,
                item.name
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "**Symbols ({}):**", s.symbols.len());
    for &r in &s.roots {
        symbol_line(out, s, r, 1);
    }
    let gaps: Vec<_> = s.gaps().collect();
    if !gaps.is_empty() {
        out.push_str("\n**Gaps:**\n");
        for (block, kind) in gaps {
            let tag = lines_tag(block.start_line, block.end_line);
            let n = block.end_line + 1 - block.start_line;
            match kind {
                GapKind::Blank if n == 1 => {
                    let _ = writeln!(out, "  {tag} (blank)");
                }
                GapKind::Blank => {
                    let _ = writeln!(out, "  {tag} ({n} blank lines)");
                }
                GapKind::Unknown
                    if file
                        .lines(block.start_line, block.end_line)
                        .all(|l| l.iter().all(u8::is_ascii_whitespace)) =>
                {
                    let _ = writeln!(out, "  {tag} (blank)");
                }
                GapKind::Unknown if n == 1 => {
                    let _ = writeln!(
                        out,
                        "  {tag} {}",
                        String::from_utf8_lossy(file.line(block.start_line))
                    );
                }
                GapKind::Unknown => {
                    let _ = writeln!(out, "  {tag}");
                    for line in block.start_line..=block.end_line {
                        let _ = writeln!(out, "    {}", String::from_utf8_lossy(file.line(line)));
                    }
                }
            }
        }
    }
}

fn symbol_line(out: &mut String, s: &FileStructure, i: u32, depth: usize) {
    let sym = s.symbol(i);
    // Symbols always show both ends (`[10-10]`), as the file_read contract's skeleton does.
    let _ = writeln!(
        out,
        "{}[{}-{}] {}: {}",
        "  ".repeat(depth),
        sym.start_line,
        sym.end_line,
        sym.kind,
        sym.address
    );
    for &c in &sym.children {
        symbol_line(out, s, c, depth + 1);
    }
}

/// `NAME (KIND, lines X-Y)`, the name being the symbol's target address.
pub fn describe(sym: &Symbol) -> String {
    format!(
        "{} ({}, lines {}-{})",
        sym.address, sym.kind, sym.start_line, sym.end_line
    )
}

/// The text of one target that did not resolve to a read (for a multi-target read).
pub fn target_problem(
    out: &mut String,
    s: &FileStructure,
    target: &str,
    m: &TargetMatch,
    w: &dyn Words,
) {
    match m {
        TargetMatch::Found(_) => {}
        TargetMatch::Ambiguous(hits) => {
            let _ = writeln!(
                out,
                "### {target}: ambiguous ({} symbols)\n{}\nUse a qualified name, e.g. {}.",
                hits.len(),
                list(s, hits),
                w.inline(Term::Target, &format!("\"{}\"", s.symbol(hits[0]).address))
            );
        }
        TargetMatch::NotFound(similar) => {
            let _ = writeln!(out, "### {target}: not found");
            if similar.is_empty() {
                let _ = writeln!(out, "{}", top_level_hint(s, w));
            } else {
                let _ = writeln!(out, "Did you mean:\n{}", list(s, similar));
            }
        }
    }
}

/// One `  - NAME (KIND, lines X-Y)` line per symbol.
pub fn list(s: &FileStructure, symbols: &[u32]) -> String {
    symbols
        .iter()
        .map(|&i| format!("  - {}", describe(s.symbol(i))))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file's top-level symbol names (up to 20), to pick a target from.
pub fn top_level_hint(s: &FileStructure, w: &dyn Words) -> String {
    if s.roots.is_empty() {
        return "The file has no symbols.".into();
    }
    let names: Vec<&str> = s
        .roots
        .iter()
        .take(20)
        .map(|&r| s.symbol(r).address.as_str())
        .collect();
    let more = if s.roots.len() > 20 {
        format!(
            " and {} more ({} lists all)",
            s.roots.len() - 20,
            w.set(Term::Skeleton)
        )
    } else {
        String::new()
    };
    format!("Top-level symbols: {}{more}.", names.join(", "))
}

/// Cuts `text` to at most `budget` bytes at a line end and says so; returns whether it cut.
pub fn fit(text: &mut String, budget: usize, hint: &str) -> bool {
    if text.len() <= budget {
        return false;
    }
    let keep = budget.saturating_sub(400);
    let mut cut = keep.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').map_or(0, |i| i + 1);
    let dropped = text.len() - cut;
    text.truncate(cut);
    let _ = writeln!(
        text,
        "\n[cut: {dropped} more bytes left out (response size limit {budget} bytes). {hint}]"
    );
    true
}
