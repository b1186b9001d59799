//! C#: the conditional directives (`#if`, `#elif`, `#else`, `#endif`) read as the compiler
//! reads them with the first branch taken, for the parse. tree-sitter's C# grammar takes a
//! directive only where a declaration or a statement may stand; one inside a statement
//! (`lock (q)` under `#if`, its block after `#endif`) or a parameter list leaves an error
//! that can swallow the whole file. The directive lines and the other branches (`#elif`,
//! `#else`) become blanks, every newline in its place, so the code left is one the
//! compiler could see and every line keeps its number; the builder reads names from the
//! file itself. Definitions only in another branch are not seen: a branch that redefines a
//! member most often repeats the first one's name.

use std::borrow::Cow;

/// A conditional directive a line may start with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Directive {
    If,
    Else,
    End,
}

/// The directive the line at `bytes[start..]` holds, after blanks.
fn directive(line: &[u8]) -> Option<Directive> {
    let text = line.trim_ascii_start();
    let rest = text.strip_prefix(b"#")?.trim_ascii_start();
    let word_end = rest
        .iter()
        .position(|c| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    match &rest[..word_end] {
        b"if" => Some(Directive::If),
        b"elif" | b"else" => Some(Directive::Else),
        b"endif" => Some(Directive::End),
        _ => None,
    }
}

/// `bytes` with its conditional directives and every branch but the first blanked (see
/// the module); the bytes themselves when they hold no `#if`.
pub(crate) fn first_branches(bytes: &[u8]) -> Cow<'_, [u8]> {
    let has_if = memchr::memmem::find_iter(bytes, b"#if").any(|at| {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        bytes[line_start..at]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t'))
    });
    if !has_if {
        return Cow::Borrowed(bytes);
    }
    let mut out = bytes.to_vec();
    // For each open `#if`, whether a later branch of it is being skipped; `skip` counts the
    // open ones that skip (their lines are blanked, the directives inside them too).
    let mut open: Vec<bool> = Vec::new();
    let mut skip = 0usize;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let found = directive(&bytes[start..end]);
        let blank = match found {
            Some(Directive::If) => {
                open.push(false);
                true
            }
            Some(Directive::Else) => {
                if let Some(top) = open.last_mut()
                    && !*top
                {
                    *top = true;
                    skip += 1;
                }
                true
            }
            Some(Directive::End) => {
                if open.pop() == Some(true) {
                    skip -= 1;
                }
                true
            }
            None => skip > 0,
        };
        if blank {
            out[start..end].fill(b' ');
        }
        start = end + 1;
    }
    Cow::Owned(out)
}
