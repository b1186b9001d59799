//! C and C++: the bytes tree-sitter parses. Tree-sitter never runs the preprocessor, so a
//! declaration wrapped in macros it cannot know (`asmlinkage __visible void __sched
//! schedule(void)`, `_GLIBCXX20_CONSTEXPR void push_back(…) _GLIBCXX_NOEXCEPT`, `namespace
//! std _GLIBCXX_VISIBILITY(default) {`, a class split by `#if`/`#else` into two heads) reads
//! as an error that can swallow the rest of the file. This pass blanks, in place (every byte
//! and line keeps its place: the builder reads names from the file itself):
//!
//! - attribute macros: the kernel's known ones anywhere, and any macro-shaped word
//!   (`ALL_CAPS`, `__lower`) or call where a declaration has no room for it (see
//!   `cmask_head.rs`);
//! - dead and tangled conditionals: the `__cplusplus` branches of the other language, and
//!   the `#else`/`#elif` branches of a conditional whose first branch leaves a declaration
//!   or a brace open (the first branch is kept, its directives blanked);
//! - `SYSCALL_DEFINEn(name, …) {…}` and its family become a function named `name`.
//!
//! One forward pass over tokens, comments, strings and directive lines skipped.

use std::borrow::Cow;

use super::cmask_head;
use super::cmask_types::{Brace, Item, Kind, Masker};
use super::lang_id::Lang;

/// The bytes tree-sitter parses for a C/C++ file in `lang`: `bytes` with the macros and
/// branches above blanked, or `bytes` themselves when nothing is.
pub(super) fn mask(lang: Lang, bytes: &[u8]) -> Cow<'_, [u8]> {
    masker(lang, bytes, false).0
}

/// [`mask`] going past the insides of function bodies and initializers (which a skimmed
/// parse leaves out), left as they are: the text and the insides it went past (after `{`,
/// before `}`; see `skim::body_end`). The rest of the text is masked as [`mask`] masks it.
pub(super) fn mask_outside_bodies(
    lang: Lang,
    bytes: &[u8],
) -> (Cow<'_, [u8]>, Vec<(usize, usize)>) {
    masker(lang, bytes, true)
}

/// The masked text, and the insides of bodies gone past when `skip_bodies`.
fn masker(lang: Lang, bytes: &[u8], skip_bodies: bool) -> (Cow<'_, [u8]>, Vec<(usize, usize)>) {
    let mut m = Masker {
        src: bytes,
        out: None,
        cpp: lang == Lang::Cpp,
        at: 0,
        line_start: true,
        braces: Vec::new(),
        bodies: 0,
        boundaries: 0,
        head: Vec::new(),
        skipping: false,
        scope_pending: false,
        blanked: 0,
        conds: Vec::new(),
        skips: skip_bodies.then(Vec::new),
        skips_ended: false,
    };
    m.run();
    let skipped = m.skips.unwrap_or_default();
    (m.out.map_or(Cow::Borrowed(bytes), Cow::Owned), skipped)
}

/// Items of one declaration read; a longer head is not read further.
const MAX_HEAD: usize = 64;
/// Bytes a `(…)` or `<…>` of a head may span.
const MAX_GROUP: usize = 16 << 10;

impl<'a> Masker<'a> {
    pub(super) fn blank(&mut self, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let to = to.min(self.src.len());
        let out = self.out.get_or_insert_with(|| self.src.to_vec());
        for c in &mut out[from..to] {
            if !matches!(*c, b'\n' | b'\r') {
                *c = b' ';
            }
        }
    }

    pub(super) fn write(&mut self, at: usize, bytes: &[u8]) {
        let out = self.out.get_or_insert_with(|| self.src.to_vec());
        out[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn byte(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        let n = self.src.len();
        while self.at < n {
            let b = self.src[self.at];
            match b {
                b'\n' => {
                    self.line_start = true;
                    self.at += 1;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.at += 1;
                    continue;
                }
                b'#' if self.line_start => {
                    self.directive();
                    continue;
                }
                b'/' if self.byte(self.at + 1) == b'/' => {
                    self.at = self.line_end(self.at);
                    continue;
                }
                b'/' if self.byte(self.at + 1) == b'*' => {
                    self.at = memchr::memmem::find(&self.src[self.at + 2..], b"*/")
                        .map_or(n, |k| self.at + 2 + k + 2);
                    continue;
                }
                _ => {}
            }
            self.line_start = false;
            match b {
                b'"' | b'\'' => self.literal(self.at),
                _ if b == b'_' || b.is_ascii_alphabetic() || b >= 0x80 => self.word(),
                _ => self.punct(b),
            }
        }
        self.end_head(0);
    }

    /// The end of the line at `i` (its `\n`, or the end of the text), continuations followed.
    pub(super) fn line_end(&self, mut i: usize) -> usize {
        let n = self.src.len();
        loop {
            match memchr::memchr(b'\n', &self.src[i..]) {
                None => return n,
                Some(k) => {
                    let end = i + k;
                    let line = &self.src[..end];
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    if !line.ends_with(b"\\") {
                        return end;
                    }
                    i = end + 1;
                }
            }
        }
    }

    /// Past a string or character literal at `i` (a raw string `R"x(…)x"` too); one in a head
    /// is an item (`extern "C"`).
    fn literal(&mut self, i: usize) {
        let end = string_end(self.src, i);
        if !self.skipping {
            self.push(Item::new(Kind::Str, i, end, end));
        }
        self.at = end;
    }

    fn word(&mut self) {
        let start = self.at;
        let end = start
            + self.src[start..]
                .iter()
                .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80))
                .unwrap_or(self.src.len() - start);
        self.at = end;
        let word = &self.src[start..end];
        if matches!(self.byte(end), b'"' | b'\'') && is_literal_prefix(word) {
            return self.literal(start);
        }
        if let Some(args) = cmask_head::known_attribute(word) {
            let stop = if args {
                end + self.group_len(end, b'(', b')')
            } else {
                end
            };
            self.blank(start, stop);
            self.at = stop;
            if !self.skipping && !self.scope_pending {
                // Kept in the head: where it stood tells where the declaration starts.
                let kind = if stop > end { Kind::Call } else { Kind::Name };
                self.push(Item {
                    word: (start, end),
                    ..Item::new(kind, start, stop, end)
                });
            }
            return;
        }
        if self.skipping {
            return;
        }
        if self.head.is_empty() && cmask_head::is_statement(word, self.cpp) {
            self.skipping = true;
            return;
        }
        if self.cpp && matches!(word, b"__try" | b"__catch") {
            // libstdc++'s spellings of `try` and `catch` (without exceptions, `if (true)`…).
            self.write(start, &word[2..]);
            self.blank(end - 2, end);
            if word == b"__try" {
                self.end_head(b'r');
            } else {
                self.skipping = true;
            }
            return;
        }
        if self.cpp && (word == b"requires" || word == b"try") {
            self.end_head(b'r');
            return;
        }
        self.loop_macro();
        if self.scope_pending
            && let Some(last) = self.head.last_mut()
        {
            last.end = end;
            last.name_end = end;
            last.word = (start, end);
            // `X::template rebind<T>`: the name goes on.
            self.scope_pending = word == b"template";
        } else if word == b"operator" && self.cpp {
            let name_end = self.operator_end(end);
            self.at = name_end;
            self.push(Item::new(Kind::Name, start, name_end, name_end));
        } else {
            self.push(Item::new(Kind::Name, start, end, end));
        }
    }

    /// The end of an operator's name after `operator`: `()`, `[]`, `==`, `new[]`, `""_x`,
    /// `bool`, `const char*`.
    fn operator_end(&self, mut i: usize) -> usize {
        let n = self.src.len();
        while i < n && matches!(self.src[i], b' ' | b'\t') {
            i += 1;
        }
        if self.src[i..].starts_with(b"()") || self.src[i..].starts_with(b"[]") {
            return i + 2;
        }
        let mut k = i;
        while k < n && k - i < 64 && self.src[k] != b'(' && !matches!(self.src[k], b';' | b'{') {
            k += 1;
        }
        let text = &self.src[i..k];
        let trimmed = text.trim_ascii_end();
        i + trimmed.len()
    }

    fn push(&mut self, item: Item) {
        if self.head.len() >= MAX_HEAD {
            self.skipping = true;
            self.head.clear();
            return;
        }
        self.head.push(item);
    }

    fn punct(&mut self, b: u8) {
        let i = self.at;
        self.at += 1;
        if matches!(b, b'{' | b'}' | b';') {
            self.boundaries += 1;
        }
        match b {
            b'{' => self.open_brace(i),
            b'}' => {
                let closing = self.braces.last().copied();
                self.end_head_closing(closing);
                self.pop_brace();
                self.skipping = false;
            }
            b';' => {
                self.end_head(b';');
                self.skipping = false;
            }
            _ if self.skipping => {}
            b':' if self.byte(i + 1) == b':' => {
                self.at += 1;
                if self.head.is_empty() {
                    self.push(Item::new(Kind::Name, i, i + 2, i + 2));
                }
                self.scope_pending = true;
            }
            b'~' if self.cpp => {
                self.push(Item::new(Kind::Name, i, i + 1, i + 1));
                self.scope_pending = true;
            }
            b'*' => self.push(Item::new(Kind::Ptr, i, i + 1, i + 1)),
            b'&' => {
                let len = if self.byte(i + 1) == b'&' { 2 } else { 1 };
                self.at = i + len;
                self.push(Item::new(Kind::Ptr, i, i + len, i + len));
            }
            b'[' if self.byte(i + 1) == b'[' => {
                let len = self.group_len(i, b'[', b']').max(1);
                self.at = i + len;
                self.push(Item::new(Kind::Attr, i, i + len, i + len));
            }
            b'(' if self.last_is_name() => {
                let len = self.group_len(i, b'(', b')');
                if len == 0 {
                    self.end_head(b'(');
                    return;
                }
                self.blank_known(i, i + len);
                self.at = i + len;
                let last = self.head.last_mut().expect("a name before");
                last.kind = Kind::Call;
                last.end = i + len;
            }
            b'<' if self.cpp && self.last_is_name() && !matches!(self.byte(i + 1), b'<' | b'=') => {
                let len = self.group_len(i, b'<', b'>');
                if len == 0 {
                    self.end_head(b'<');
                    return;
                }
                self.blank_known(i, i + len);
                self.at = i + len;
                let last = self.head.last_mut().expect("a name before");
                last.end = i + len;
                last.name_end = i + len;
            }
            b':' if self.is_label() => {
                cmask_head::label(self);
                self.head.clear();
            }
            _ => {
                self.end_head(b);
            }
        }
    }

    /// A `{` at `i`: ends the head, and when the pass goes past bodies and this one opens a
    /// function's body or an initializer, goes past its inside to its `}`.
    fn open_brace(&mut self, i: usize) {
        let kind = self.end_head(b'{');
        self.bodies += usize::from(kind == Brace::Body);
        self.braces.push(kind);
        self.skipping = false;
        if self.skips.is_none() || self.skips_ended {
            return;
        }
        let initializer = || self.src[..i].trim_ascii_end().last() == Some(&b'=');
        // Not in a branch after the first of a conditional: the skim reads none of it, and
        // parses it with its bodies (as masked whole).
        if !(kind == Brace::Body || initializer()) || self.conds.iter().any(|c| c.alt.is_some()) {
            return;
        }
        let Some(skips) = &mut self.skips else {
            return;
        };
        match super::skim::body_end(self.src, self.at) {
            Ok(close) => {
                // An empty inside is no range (tree-sitter reads two ranges that touch as one).
                if close > self.at {
                    skips.push((self.at, close));
                }
                self.at = close;
            }
            // Braces that never close: no later body is gone past (each look would read to
            // the end again: a file of unclosed bodies stays linear).
            Err(true) => self.skips_ended = true,
            Err(false) => {}
        }
    }

    /// Blanks the known attribute macros in `from..to` (a group read as one item: a call's
    /// parameters), strings and comments aside.
    fn blank_known(&mut self, from: usize, to: usize) {
        let mut k = from;
        while k < to {
            let c = self.src[k];
            if c == b'"' || c == b'\'' {
                k = string_end(self.src, k);
            } else if c == b'/' && self.byte(k + 1) == b'*' {
                k = memchr::memmem::find(&self.src[k..to], b"*/").map_or(to, |e| k + e + 2);
            } else if c == b'/' && self.byte(k + 1) == b'/' {
                k = self.line_end(k);
            } else if c == b'_' || c.is_ascii_alphabetic() {
                let end = k + self.src[k..to]
                    .iter()
                    .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))
                    .unwrap_or(to - k);
                if let Some(args) = cmask_head::known_attribute(&self.src[k..end]) {
                    let stop = if args {
                        end + self.group_len(end, b'(', b')')
                    } else {
                        end
                    };
                    self.blank(k, stop);
                }
                k = end;
            } else {
                k += 1;
            }
        }
    }

    pub(super) fn pop_brace(&mut self) {
        if self.braces.pop() == Some(Brace::Body) {
            self.bodies -= 1;
        }
    }

    /// In a function's body, a call that a statement follows is a loop macro
    /// (`for_each_possible_cpu(i) sum += …;`), which tree-sitter would read as the type of a
    /// declaration: its name becomes `while`.
    fn loop_macro(&mut self) {
        let [call] = self.head[..] else {
            return;
        };
        if self.bodies == 0 || call.kind != Kind::Call || self.scope_pending {
            return;
        }
        let (from, to) = call.word;
        if to - from >= 5 && call.start == from {
            self.write(from, b"while");
            self.blank(from + 5, to);
            self.head.clear();
        }
    }

    fn last_is_name(&self) -> bool {
        !self.scope_pending && self.head.last().is_some_and(|l| l.kind == Kind::Name)
    }

    /// `public:`, `private slots:`, `out:` — a label or access specifier, after which
    /// declarations go on.
    fn is_label(&self) -> bool {
        !self.scope_pending
            && (1..=2).contains(&self.head.len())
            && self.head.iter().all(|i| i.kind == Kind::Name)
            && !cmask_head::is_class_key(self.text(self.head[0].word))
    }

    pub(super) fn text(&self, (from, to): (usize, usize)) -> &'a [u8] {
        &self.src[from..to]
    }

    /// The length of a balanced `open…close` group at `i` (strings and comments inside
    /// skipped), or 0 when it does not close within [`MAX_GROUP`] bytes (or, for `<`, a
    /// `;`, `{` or `}` comes first).
    fn group_len(&self, i: usize, open: u8, close: u8) -> usize {
        let mut k = i;
        while matches!(self.byte(k), b' ' | b'\t') {
            k += 1;
        }
        if self.byte(k) != open {
            return 0;
        }
        let (mut depth, mut parens) = (0usize, 0usize);
        let limit = self.src.len().min(k + MAX_GROUP);
        while k < limit {
            let c = self.src[k];
            match c {
                b'"' | b'\'' => {
                    k = string_end(self.src, k);
                    continue;
                }
                b'/' if self.byte(k + 1) == b'*' => {
                    k = memchr::memmem::find(&self.src[k..limit], b"*/")
                        .map_or(limit, |e| k + e + 2);
                    continue;
                }
                b'/' if self.byte(k + 1) == b'/' => {
                    k = self.line_end(k);
                    continue;
                }
                b'>' if open == b'<' && self.byte(k - 1) == b'-' => {}
                b'(' if open == b'<' => parens += 1,
                b')' if open == b'<' => parens = parens.saturating_sub(1),
                b';' | b'{' | b'}' if open == b'<' => return 0,
                _ if c == open => depth += 1,
                _ if c == close && (open != b'<' || parens == 0) => {
                    depth -= 1;
                    if depth == 0 {
                        return k + 1 - i;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        0
    }

    /// Ends the head at `stop` (its first byte; 0 at the end of the text): reads it, blanks
    /// what it holds that tree-sitter would misread, and says what a `{` there opens.
    fn end_head(&mut self, stop: u8) -> Brace {
        let brace = cmask_head::analyze(self, stop, false);
        self.head.clear();
        self.scope_pending = false;
        if !matches!(stop, b';' | b'{' | b'}' | 0) {
            self.skipping = true;
        }
        brace
    }

    /// Ends the head at a `}` closing a brace of `kind`.
    fn end_head_closing(&mut self, kind: Option<Brace>) {
        if !self.skipping {
            cmask_head::analyze(self, b'}', kind != Some(Brace::Other));
        }
        self.head.clear();
        self.scope_pending = false;
    }
}

/// Whether `word` prefixes a string or character literal (`L"x"`, `u8'x'`, `R"(…)"`).
fn is_literal_prefix(word: &[u8]) -> bool {
    matches!(
        word,
        b"L" | b"u" | b"U" | b"u8" | b"R" | b"LR" | b"uR" | b"UR" | b"u8R"
    )
}

/// The end of the string or character literal at `i` (a raw string `R"d(…)d"` when the
/// byte before is `R`), or of its line when it is not closed there.
fn string_end(src: &[u8], i: usize) -> usize {
    let quote = src[i];
    let n = src.len();
    if quote == b'"' && i > 0 && src[i - 1] == b'R' {
        let delim_end = src[i + 1..].iter().take(17).position(|&c| c == b'(');
        if let Some(d) = delim_end {
            let mut close = Vec::with_capacity(d + 2);
            close.push(b')');
            close.extend_from_slice(&src[i + 1..i + 1 + d]);
            close.push(b'"');
            return memchr::memmem::find(&src[i..], &close).map_or(n, |k| i + k + close.len());
        }
    }
    let mut k = i + 1;
    while k < n && src[k] != quote && src[k] != b'\n' {
        k += if src[k] == b'\\' { 2 } else { 1 };
    }
    (k + 1).min(n)
}
