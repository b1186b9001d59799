//! The preprocessor's conditionals for the C/C++ masking pass (`cmask.rs`): each branch of
//! an `#if` is read from the state the `#if` found; a branch that leaves a declaration or a
//! brace open (`#if` between a template's head and its declarator, `#ifdef` around one
//! attribute, an `if (…) {` per branch) makes the first branch the only one (its directives
//! and the other branches blanked); the `__cplusplus` branches of the other language are
//! blanked.

use super::cmask_types::{Brace, Cond, Item, Masker, State};

/// Open conditionals followed; deeper ones are left as they are.
const MAX_CONDS: usize = 256;

impl Masker<'_> {
    fn state(&self) -> State {
        State {
            braces: self.braces.len(),
            head: self.head.len(),
            skipping: self.skipping,
            boundaries: self.boundaries,
        }
    }

    fn restore(&mut self, s: State, head: &[Item]) {
        while self.braces.len() > s.braces {
            self.pop_brace();
        }
        while self.braces.len() < s.braces {
            self.braces.push(Brace::Other);
        }
        self.head.clear();
        self.head.extend_from_slice(head);
        self.skipping = s.skipping;
        self.scope_pending = false;
    }

    /// A preprocessor line at `self.at`: conditionals followed, the rest skipped.
    pub(super) fn directive(&mut self) {
        let line = self.src[..self.at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |k| k + 1);
        let end = self.line_end(self.at);
        let (name, rest) = directive_parts(&self.src[self.at..end]);
        self.at = end;
        match name {
            b"if" | b"ifdef" | b"ifndef" if self.conds.len() < MAX_CONDS => {
                let state = self.state();
                self.conds.push(Cond {
                    open: Some((line, end)),
                    state,
                    head: self.head.clone(),
                    alt: None,
                });
                if is_dead(name, rest, self.cpp) {
                    self.dead_branch(end);
                }
            }
            b"elif" | b"else" | b"elifdef" | b"elifndef" => self.alternative(line, end),
            b"endif" => self.endif(line, end),
            _ => {}
        }
    }

    /// The first branch of the innermost `#if` is dead: blanked up to the next `#elif` or
    /// `#else` (which then opens the conditional) or `#endif`.
    fn dead_branch(&mut self, from: usize) {
        let (at, name) = next_directive(self.src, from, true);
        let Some(open) = self.conds.last_mut().and_then(|c| c.open.take()) else {
            return;
        };
        let end = self.line_end(at);
        self.at = end;
        match name {
            // The `#else` branch stands alone: its `#endif` goes too.
            Some(b"else") => self.blank(open.0, end),
            Some(b"elif") => {
                // `#elif X` becomes `#if X`.
                self.blank(open.0, at);
                let elif = at + self.src[at..].iter().position(|&c| c == b'e').unwrap_or(0);
                self.write(elif, b"if  ");
                if let Some(cond) = self.conds.last_mut() {
                    cond.open = Some((at, end));
                }
            }
            _ => {
                self.blank(open.0, end);
                self.conds.pop();
            }
        }
    }

    /// An `#elif` or `#else` of the innermost conditional, its line at `line..end`.
    fn alternative(&mut self, line: usize, end: usize) {
        let now = self.state();
        let Some(cond) = self.conds.last_mut() else {
            return;
        };
        let Some(open) = cond.open else {
            return;
        };
        let (state, first_alt) = (cond.state, cond.alt);
        if state.balanced(now) {
            cond.alt.get_or_insert(line);
            let head = std::mem::take(&mut cond.head);
            self.restore(state, &head);
            if let Some(cond) = self.conds.last_mut() {
                cond.head = head;
            }
            return;
        }
        // A branch leaves a declaration or a brace open: the first branch is kept alone.
        let head = self.conds.pop().map(|c| c.head).unwrap_or_default();
        let (close, _) = next_directive(self.src, end, false);
        let close_end = self.line_end(close);
        self.blank(open.0, open.1);
        self.blank(first_alt.unwrap_or(line), close_end);
        if first_alt.is_some() {
            self.restore(state, &head);
        }
        self.at = close_end;
    }

    fn endif(&mut self, line: usize, end: usize) {
        let Some(cond) = self.conds.pop() else {
            return;
        };
        let Some(open) = cond.open else {
            self.blank(line, end);
            return;
        };
        if cond.state.balanced(self.state()) {
            return;
        }
        self.blank(open.0, open.1);
        match cond.alt {
            None => self.blank(line, end),
            Some(alt) => {
                self.blank(alt, end);
                self.restore(cond.state, &cond.head);
            }
        }
    }
}

/// The name of a directive line (`if`, `define`…) and the rest of it, comments cut.
fn directive_parts(line: &[u8]) -> (&[u8], &[u8]) {
    let line = line.strip_prefix(b"#").unwrap_or(line).trim_ascii_start();
    let len = line
        .iter()
        .position(|&c| !c.is_ascii_alphanumeric() && c != b'_')
        .unwrap_or(line.len());
    let (name, rest) = line.split_at(len);
    let cut = memchr::memmem::find(rest, b"/*")
        .into_iter()
        .chain(memchr::memmem::find(rest, b"//"))
        .min()
        .unwrap_or(rest.len());
    (name, rest[..cut].trim_ascii())
}

/// The branches of the other language: `#ifdef __cplusplus` in C, `#ifndef __cplusplus` in
/// C++. (`#if 0` is read: a definition kept there for its documentation is still found.)
fn is_dead(name: &[u8], cond: &[u8], cpp: bool) -> bool {
    let plus = matches!(
        cond,
        b"__cplusplus" | b"defined(__cplusplus)" | b"defined __cplusplus"
    );
    let not_plus = matches!(cond, b"!defined(__cplusplus)" | b"!defined __cplusplus");
    match name {
        b"if" => (plus && !cpp) || (not_plus && cpp),
        b"ifdef" => plus && !cpp,
        b"ifndef" => plus && cpp,
        _ => false,
    }
}

/// The start of the next directive line from `from` that closes the conditional open there
/// (`#endif`, or with `alternatives` an `#elif`/`#else` too) and its name; nested
/// conditionals skipped. The end of the text when there is none.
fn next_directive(src: &[u8], from: usize, alternatives: bool) -> (usize, Option<&[u8]>) {
    let mut depth = 0u32;
    let mut at = from;
    while at < src.len() {
        let line_end = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |k| at + k);
        let line = src[at..line_end].trim_ascii_start();
        if line.starts_with(b"#") {
            let (name, _) = directive_parts(line);
            match name {
                b"if" | b"ifdef" | b"ifndef" => depth += 1,
                b"endif" if depth == 0 => return (at, Some(b"endif")),
                b"endif" => depth -= 1,
                b"else" | b"elifdef" | b"elifndef" if depth == 0 && alternatives => {
                    return (at, Some(b"else"));
                }
                b"elif" if depth == 0 && alternatives => return (at, Some(b"elif")),
                _ => {}
            }
        }
        at = line_end + 1;
    }
    (src.len(), None)
}
