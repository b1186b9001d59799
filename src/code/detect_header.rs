//! The heuristics that tell a `.h` header's language (linguist's, on tokens rather than
//! lines): Objective-C, C++ or C. Part of the detection of `detect.rs`.

/// What a `.h` header's code (comments and strings aside) says it is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Header {
    C,
    Cpp,
    ObjectiveC,
}

/// linguist's heuristics for `.h`, on tokens (never in comments, strings or `#if` lines):
/// Objective-C's `@interface`, `@end`… or `#import`; else C++'s `#include <vector>` (a
/// header without extension) or of a `.hpp`, `template <`, `namespace`, `class X` or
/// `virtual` opening a line, `public:`, `A::b`, `static_cast<`…; else C.
pub(super) fn markers(head: &[u8]) -> Header {
    let mut found = Header::C;
    let mut tokens = Tokens::new(head);
    let mut prev: Token = Token::Punct(b';');
    while let Some((token, line_start)) = tokens.next() {
        let next = || tokens.clone().next().map(|(t, _)| t);
        let cpp = match token {
            Token::ObjC => return Header::ObjectiveC,
            Token::Include(path) => is_cpp_include(path),
            Token::Word(w) => match w {
                b"template" => next() == Some(Token::Punct(b'<')),
                b"namespace" => matches!(next(), Some(Token::Word(_) | Token::Punct(b'{'))),
                b"class" | b"virtual" => line_start && matches!(next(), Some(Token::Word(_))),
                b"public" | b"private" | b"protected" => {
                    line_start && next() == Some(Token::Punct(b':'))
                }
                b"static_cast" | b"dynamic_cast" | b"reinterpret_cast" | b"const_cast" => {
                    next() == Some(Token::Punct(b'<'))
                }
                b"nullptr" | b"constexpr" | b"noexcept" => true,
                _ => false,
            },
            Token::Scope => matches!(prev, Token::Word(_)) && !tokens.in_attribute(),
            Token::Punct(_) => false,
        };
        if cpp {
            found = Header::Cpp;
        }
        prev = token;
    }
    found
}

/// `<vector>`, `<cstdint>` (the standard library's headers have no extension), or a C++
/// header by its extension.
fn is_cpp_include(path: &[u8]) -> bool {
    let inner = &path[1..path.len().saturating_sub(1)];
    if path.starts_with(b"<") && !inner.contains(&b'.') && !inner.is_empty() {
        return true;
    }
    let ext = inner.rsplit(|&b| b == b'.').next().unwrap_or(b"");
    inner.contains(&b'.')
        && [
            &b"hpp"[..],
            b"hh",
            b"hxx",
            b"h++",
            b"tcc",
            b"ipp",
            b"tpp",
            b"inl",
        ]
        .contains(&ext)
}

/// A token of C-family code for [`header_markers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a [u8]),
    /// `::`
    Scope,
    Punct(u8),
    /// The `<path>` or `"path"` of an `#include` line.
    Include(&'a [u8]),
    /// An Objective-C marker: `@interface`, `@end`…, `#import "x.h"`.
    ObjC,
}

/// The tokens of C-family code, comments, strings and other preprocessor lines left out,
/// each with whether it opens its line.
#[derive(Clone)]
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    line_start: bool,
    /// Depth in `[[…]]` (C23 and C++ attributes: `[[gnu::packed]]` is C too).
    attribute: u32,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8]) -> Tokens<'a> {
        Tokens {
            text,
            at: 0,
            line_start: true,
            attribute: 0,
        }
    }

    fn in_attribute(&self) -> bool {
        self.attribute > 0
    }

    fn next(&mut self) -> Option<(Token<'a>, bool)> {
        let t = self.text;
        loop {
            let b = *t.get(self.at)?;
            let start = self.line_start;
            match b {
                b'\n' => {
                    self.line_start = true;
                    self.at += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0c => self.at += 1,
                b'/' if t.get(self.at + 1) == Some(&b'/') => self.skip_line(),
                b'/' if t.get(self.at + 1) == Some(&b'*') => {
                    self.at = memchr::memmem::find(&t[self.at + 2..], b"*/")
                        .map_or(t.len(), |i| self.at + 2 + i + 2);
                }
                b'"' | b'\'' => self.skip_quoted(b),
                b'#' if start => {
                    if let Some(token) = self.directive() {
                        return Some((token, true));
                    }
                }
                b'@' if start => {
                    let word = self.word(self.at + 1);
                    self.at += 1 + word.len();
                    self.line_start = false;
                    if OBJC_MARKERS.contains(&word) {
                        return Some((Token::ObjC, true));
                    }
                }
                _ if b == b'_' || b.is_ascii_alphanumeric() => {
                    let word = self.word(self.at);
                    self.at += word.len();
                    self.line_start = false;
                    return Some((Token::Word(word), start));
                }
                _ => {
                    self.at += 1;
                    self.line_start = false;
                    if b == b':' && t.get(self.at) == Some(&b':') {
                        self.at += 1;
                        return Some((Token::Scope, start));
                    }
                    if b == b'[' && t.get(self.at) == Some(&b'[') {
                        self.attribute += 1;
                    } else if b == b']' && t.get(self.at) == Some(&b']') && self.attribute > 0 {
                        self.attribute -= 1;
                    }
                    return Some((Token::Punct(b), start));
                }
            }
        }
    }

    fn word(&self, from: usize) -> &'a [u8] {
        let rest = self.text.get(from..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))
            .unwrap_or(rest.len());
        &rest[..len]
    }

    /// Past the end of the line (and its continuations).
    fn skip_line(&mut self) {
        let t = self.text;
        loop {
            match memchr::memchr(b'\n', &t[self.at..]) {
                Some(i) => {
                    let end = self.at + i;
                    self.at = end + 1;
                    let before = t[..end].strip_suffix(b"\r").unwrap_or(&t[..end]);
                    if !before.ends_with(b"\\") {
                        self.line_start = true;
                        return;
                    }
                }
                None => {
                    self.at = t.len();
                    return;
                }
            }
        }
    }

    /// Past a string or character literal (to its line's end when it is not closed there).
    fn skip_quoted(&mut self, quote: u8) {
        let t = self.text;
        let mut i = self.at + 1;
        while i < t.len() && t[i] != quote && t[i] != b'\n' {
            i += if t[i] == b'\\' { 2 } else { 1 };
        }
        self.at = (i + 1).min(t.len());
        self.line_start = false;
    }

    /// A preprocessor line: the path of an `#include`, an Objective-C `#import`, or nothing.
    fn directive(&mut self) -> Option<Token<'a>> {
        let t = self.text;
        let mut i = self.at + 1;
        while i < t.len() && (t[i] == b' ' || t[i] == b'\t') {
            i += 1;
        }
        let name = self.word(i);
        let mut j = i + name.len();
        while j < t.len() && (t[j] == b' ' || t[j] == b'\t') {
            j += 1;
        }
        let close = match t.get(j) {
            Some(b'<') => Some(b'>'),
            Some(b'"') => Some(b'"'),
            _ => None,
        };
        let path = close.and_then(|c| {
            let len = t[j + 1..]
                .iter()
                .take(256)
                .position(|&b| b == c || b == b'\n')?;
            (t[j + 1 + len] == c).then(|| &t[j..j + len + 2])
        });
        self.skip_line();
        match (name, path) {
            (b"import", Some(_)) => Some(Token::ObjC),
            (b"include", Some(path)) => Some(Token::Include(path)),
            _ => None,
        }
    }
}

/// Objective-C's keywords after `@` that open a line.
const OBJC_MARKERS: &[&[u8]] = &[
    b"interface",
    b"class",
    b"protocol",
    b"property",
    b"end",
    b"synchronized",
    b"selector",
    b"implementation",
];
