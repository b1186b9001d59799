//! The map's text: the ranked definitions taken greedily, best first, until the next would
//! not fit the budget, then shown under their files (files in the order of their best
//! definition, definitions in line order). A cut map ends with a line that says how much it
//! shows and how to see more; the room for that line is kept from the start.

use super::{FileFacts, Ranking};

/// A signature longer than this is cut (at a character boundary, with `…`).
const MAX_SIGNATURE: usize = 160;
/// The fewest bytes a definition's line takes (`  1: x` and its newline).
const MIN_DEF_LINE: usize = 7;

/// How much a map may hold: bytes and lines of its text (each line's newline counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapBudget {
    pub max_bytes: usize,
    pub max_lines: usize,
}

/// A rendered map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoMap {
    /// Every line ends with a newline; within the budget.
    pub text: String,
    pub defs_shown: usize,
    pub files_shown: usize,
    /// The definitions ranked, and the files that hold one.
    pub defs_total: usize,
    pub files_total: usize,
    /// Whether some definition is left out.
    pub cut: bool,
}

/// Renders the best of `ranking` within `budget` (see the module docs). `signature(file,
/// def)` gives a definition's one-line signature; it is asked only of definitions the map
/// takes (and, when the last few might fit in the room kept for the cut line, of those few);
/// without one, a definition shows as `{kind} {name}`.
pub fn render(
    files: &[FileFacts],
    ranking: &Ranking,
    budget: MapBudget,
    signature: &mut dyn FnMut(usize, usize) -> Option<String>,
) -> RepoMap {
    let defs_total = ranking.len();
    let files_total = files.iter().filter(|f| !f.defs.is_empty()).count();
    let note = Note::choose(defs_total, files_total, budget);
    let mut fill = Fill {
        files,
        budget,
        reserve: note.reserve,
        taken: Vec::new(),
        bytes: 0,
        lines: 0,
        group: vec![u32::MAX; files.len()],
        groups: 0,
    };
    let mut stop = fill.take(ranking, 0, signature);
    if stop < defs_total && fill.rest_might_fit(defs_total - stop) {
        let kept = fill.taken.len();
        fill.reserve = (0, 0);
        if fill.take(ranking, stop, signature) == defs_total {
            stop = defs_total;
        } else {
            fill.truncate(kept);
        }
    }
    let cut = stop < defs_total;
    let mut map = RepoMap {
        text: fill.text(),
        defs_shown: fill.taken.len(),
        files_shown: fill.groups as usize,
        defs_total,
        files_total,
        cut,
    };
    if cut && let Some(line) = note.line(&map) {
        map.text.push_str(&line);
    }
    map
}

/// One taken definition: its file, index and line, its text line, and whether it brought its
/// file's header.
struct Taken {
    file: u32,
    def: u32,
    line: u32,
    text: String,
    header: bool,
}

/// The greedy fill.
struct Fill<'a> {
    files: &'a [FileFacts],
    budget: MapBudget,
    /// Bytes and lines kept for the cut line.
    reserve: (usize, usize),
    taken: Vec<Taken>,
    bytes: usize,
    lines: usize,
    /// Per file: the order of its first taken definition, or `u32::MAX`.
    group: Vec<u32>,
    groups: u32,
}

impl Fill<'_> {
    /// Takes the ranked definitions from `from` on while each fits; the index of the first
    /// that does not (the number ranked when all fit).
    fn take(
        &mut self,
        ranking: &Ranking,
        from: usize,
        signature: &mut dyn FnMut(usize, usize) -> Option<String>,
    ) -> usize {
        for (i, r) in ranking.iter(self.files).enumerate().skip(from) {
            let (f, d) = (r.file as usize, r.def as usize);
            let def = &self.files[f].defs[d];
            let header = self.group[f] == u32::MAX;
            let (mut bytes, mut lines) = (self.bytes, self.lines + 1);
            if header {
                bytes += header_line(&self.files[f].path).len();
                lines += 1;
            }
            // The cheapest line first: a definition that cannot fit is not asked for.
            if bytes + MIN_DEF_LINE + self.reserve.0 > self.budget.max_bytes
                || lines + self.reserve.1 > self.budget.max_lines
            {
                return i;
            }
            let sig = signature(f, d)
                .map(|s| one_line(&s))
                .filter(|s| !s.is_empty());
            let sig = sig.unwrap_or_else(|| one_line(&format!("{} {}", def.kind, def.name)));
            let text = format!("  {}: {sig}\n", def.line);
            bytes += text.len();
            if bytes + self.reserve.0 > self.budget.max_bytes {
                return i;
            }
            if header {
                self.group[f] = self.groups;
                self.groups += 1;
            }
            self.bytes = bytes;
            self.lines = lines;
            self.taken.push(Taken {
                file: r.file,
                def: r.def,
                line: def.line,
                text,
                header,
            });
        }
        ranking.len()
    }

    /// Whether `rest` more definitions could fit without the room kept for the cut line (a
    /// bound: each takes a line and at least [`MIN_DEF_LINE`] bytes).
    fn rest_might_fit(&self, rest: usize) -> bool {
        self.lines + rest <= self.budget.max_lines
            && self.bytes + rest * MIN_DEF_LINE <= self.budget.max_bytes
    }

    /// Drops the definitions taken after the first `kept`.
    fn truncate(&mut self, kept: usize) {
        for t in self.taken.drain(kept..) {
            self.bytes -= t.text.len();
            self.lines -= 1;
            if t.header {
                self.bytes -= header_line(&self.files[t.file as usize].path).len();
                self.lines -= 1;
                self.group[t.file as usize] = u32::MAX;
                self.groups -= 1;
            }
        }
    }

    /// The taken definitions under their files' headers.
    fn text(&mut self) -> String {
        self.taken
            .sort_by_key(|t| (self.group[t.file as usize], t.line, t.def));
        let mut text = String::with_capacity(self.bytes);
        let mut last = u32::MAX;
        for t in &self.taken {
            if t.file != last {
                text.push_str(&header_line(&self.files[t.file as usize].path));
                last = t.file;
            }
            text.push_str(&t.text);
        }
        text
    }
}

fn header_line(path: &str) -> String {
    format!("{}:\n", one_line(path))
}

/// `s` on one line: runs of white space (newlines included) as one space, trimmed, other
/// control characters as `?`, cut at [`MAX_SIGNATURE`] bytes.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_SIGNATURE + 3));
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().map(|c| if c.is_control() { '?' } else { c }));
        if out.len() > MAX_SIGNATURE {
            let mut end = MAX_SIGNATURE;
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push('…');
            break;
        }
    }
    out
}

/// The cut line: its form, and the bytes and lines kept for it from the start (those of its
/// longest text, every count at its total).
struct Note {
    form: Option<Form>,
    reserve: (usize, usize),
}

/// The cut line's forms: with the files and the advice, or the definitions alone.
#[derive(Clone, Copy)]
enum Form {
    Long,
    Short,
}

impl Note {
    /// The long form if it leaves the map half the bytes, else the short one if it fits at
    /// all, else none.
    fn choose(defs: usize, files: usize, budget: MapBudget) -> Note {
        let full = RepoMap {
            defs_shown: defs,
            files_shown: files,
            defs_total: defs,
            files_total: files,
            ..RepoMap::default()
        };
        let (long, short) = (Form::Long.text(&full).len(), Form::Short.text(&full).len());
        let (form, len) = if budget.max_lines == 0 || defs == 0 {
            (None, 0)
        } else if long <= budget.max_bytes / 2 {
            (Some(Form::Long), long)
        } else if short <= budget.max_bytes {
            (Some(Form::Short), short)
        } else {
            (None, 0)
        };
        Note {
            form,
            reserve: if form.is_some() { (len, 1) } else { (0, 0) },
        }
    }

    fn line(&self, map: &RepoMap) -> Option<String> {
        self.form.map(|f| f.text(map))
    }
}

impl Form {
    fn text(self, m: &RepoMap) -> String {
        let (a, b) = (thousands(m.defs_shown), thousands(m.defs_total));
        match self {
            Form::Long => format!(
                "[map: {a} of {b} definitions in {} of {} files; ask with a smaller path, a \
                 focus, or a larger byte budget]\n",
                thousands(m.files_shown),
                thousands(m.files_total)
            ),
            Form::Short => format!("[map: {a} of {b} definitions]\n"),
        }
    }
}

/// `48210` as `48,210`.
pub(super) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
