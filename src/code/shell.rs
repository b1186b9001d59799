//! Shell: the bytes tree-sitter-bash parses. Its lexer loses its way on a few words of real
//! scripts (extended globs `@(a|b)`, `!(*.bak)`; the regex of `[[ $x =~ ^(a|b)\[ ]]`; the
//! pattern of `${host%]?(:+([0-9]))}`; an escaped `\)` in a `case` pattern; bash 4's `;;&`
//! and `;&`), and one lost
//! word turns the rest of the file into an error where no function is found. Those words
//! are blanked in place (each byte and line keeps its place: the builder reads names from
//! the file itself); quotes, comments, arithmetic and command substitutions are followed so
//! that nothing inside a string is touched.

use std::borrow::Cow;

/// The contexts a shell word sits in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Commands: the file, or a `$(…)` (with the count of `(` open in it).
    Command(u32),
    /// Inside `"…"`.
    Quoted,
}

/// Nesting of `$(…)` and `"…"` followed; deeper text is read as the deepest context.
const MAX_DEPTH: usize = 64;

/// The bytes tree-sitter-bash parses for a shell file: `bytes` with the words its lexer
/// misreads blanked (see the module's docs), or `bytes` themselves when there are none.
pub(super) fn mask(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut m = Masker {
        src: bytes,
        out: None,
        stack: vec![Context::Command(0)],
    };
    let mut i = 0;
    while i < bytes.len() {
        i = match *m.stack.last().expect("the file's context") {
            Context::Quoted => m.quoted(i),
            Context::Command(_) => m.command(i),
        };
    }
    m.out.map_or(Cow::Borrowed(bytes), Cow::Owned)
}

struct Masker<'a> {
    src: &'a [u8],
    /// The masked copy, made at the first blanked byte.
    out: Option<Vec<u8>>,
    stack: Vec<Context>,
}

impl Masker<'_> {
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn starts(&self, i: usize, s: &[u8]) -> bool {
        self.src[i..].starts_with(s)
    }

    fn push(&mut self, c: Context) {
        if self.stack.len() < MAX_DEPTH {
            self.stack.push(c);
        }
    }

    fn pop(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// Writes `with` over `from..to` (line ends kept), and `x` at `from` when `mark`: a word
    /// stays a word.
    fn blank(&mut self, from: usize, to: usize, with: u8, mark: bool) {
        if from >= to {
            return;
        }
        let out = self.out.get_or_insert_with(|| self.src.to_vec());
        for c in &mut out[from..to] {
            if !matches!(*c, b'\n' | b'\r') {
                *c = with;
            }
        }
        if mark {
            out[from] = b'x';
        }
    }

    /// One step inside `"…"`; the next position.
    fn quoted(&mut self, i: usize) -> usize {
        match self.at(i) {
            b'\\' => i + 2,
            b'"' => {
                self.pop();
                i + 1
            }
            b'$' if self.starts(i, b"$((") => self.arithmetic(i),
            b'$' if self.starts(i, b"$(") => {
                self.push(Context::Command(0));
                i + 2
            }
            b'$' if self.starts(i, b"${") => self.parameter(i),
            _ => i + 1,
        }
    }

    /// One step among commands; the next position.
    fn command(&mut self, i: usize) -> usize {
        let b = self.at(i);
        let prev = if i > 0 { self.src[i - 1] } else { b'\n' };
        match b {
            b'\\' => {
                if matches!(self.at(i + 1), b'(' | b')' | b'[' | b']') {
                    self.blank(i, i + 2, b'x', false);
                }
                i + 2
            }
            b'#' if matches!(prev, b' ' | b'\t' | b'\n' | b';' | b'(' | b'|' | b'&') => {
                memchr::memchr(b'\n', &self.src[i..]).map_or(self.src.len(), |k| i + k)
            }
            b'\'' if prev == b'$' => self.ansi_c(i),
            b'\'' => {
                memchr::memchr(b'\'', &self.src[i + 1..]).map_or(self.src.len(), |k| i + k + 2)
            }
            b'"' => {
                self.push(Context::Quoted);
                i + 1
            }
            b'$' if self.starts(i, b"$((") => self.arithmetic(i),
            b'(' if self.starts(i, b"((")
                && matches!(prev, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|') =>
            {
                self.arithmetic(i)
            }
            b'$' if self.starts(i, b"$(") => {
                self.push(Context::Command(0));
                i + 2
            }
            b'$' if self.starts(i, b"${") => self.parameter(i),
            b'(' => {
                if let Some(Context::Command(open)) = self.stack.last_mut() {
                    *open += 1;
                }
                i + 1
            }
            b')' => {
                match self.stack.last_mut() {
                    Some(Context::Command(open)) if *open > 0 => *open -= 1,
                    _ => self.pop(),
                }
                i + 1
            }
            b'@' | b'!' | b'*' | b'+' | b'?' if self.at(i + 1) == b'(' && prev != b'$' => {
                self.extended_glob(i)
            }
            b'=' if self.at(i + 1) == b'~' => self.regex(i + 2),
            // `case` fall-throughs (`;&`, `;;&`), which the grammar lacks, end their item.
            b';' if self.starts(i, b";;&") => {
                self.blank(i + 2, i + 3, b' ', false);
                i + 3
            }
            b';' if self.starts(i, b";&") => {
                self.blank(i + 1, i + 2, b';', false);
                i + 2
            }
            b';' if self.at(i + 1) == b';' => i + 2,
            _ => i + 1,
        }
    }

    /// Past `$'…'` (backslash escapes).
    fn ansi_c(&self, i: usize) -> usize {
        let mut k = i + 1;
        while k < self.src.len() && self.src[k] != b'\'' {
            k += if self.src[k] == b'\\' { 2 } else { 1 };
        }
        k + 1
    }

    /// Past `((…))` or `$((…))`: arithmetic, where `*(` is a product.
    fn arithmetic(&self, i: usize) -> usize {
        memchr::memmem::find(&self.src[i..], b"))").map_or(self.src.len(), |k| i + k + 2)
    }

    /// `@(a|b)`, `!(x)`, `*(y)`, `+(z)`, `?(w)` on one line: written over with `x`s (one word
    /// that globs nothing tree-sitter cares about).
    fn extended_glob(&mut self, i: usize) -> usize {
        let mut depth = 0u32;
        let mut k = i + 1;
        while k < self.src.len() {
            match self.src[k] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.blank(i, k + 1, b'x', false);
                        return k + 1;
                    }
                }
                b'\\' => k += 1,
                b'\n' => break,
                _ => {}
            }
            k += 1;
        }
        i + 1
    }

    /// The regex after `=~`: one word (quotes and escapes inside it), blanked but its first
    /// byte (`x`).
    fn regex(&mut self, mut j: usize) -> usize {
        let n = self.src.len();
        while j < n {
            match self.src[j] {
                b' ' | b'\t' => j += 1,
                b'\\' if self.at(j + 1) == b'\n' => j += 2,
                _ => break,
            }
        }
        let mut k = j;
        while k < n && !matches!(self.src[k], b' ' | b'\t' | b'\n') {
            match self.src[k] {
                b'\\' => k += 1,
                q @ (b'"' | b'\'') => match memchr::memchr(q, &self.src[k + 1..]) {
                    Some(e) => k += e + 1,
                    None => break,
                },
                _ => {}
            }
            k += 1;
        }
        let k = k.min(n);
        self.blank(j, k, b' ', true);
        k
    }

    /// `${name…}`: the pattern after `%`, `#`, `/`, `^`, `,` (and their doubles) blanked to
    /// its closing brace on the same line; the next position.
    fn parameter(&mut self, i: usize) -> usize {
        let mut j = i + 2;
        if matches!(self.at(j), b'#' | b'!') {
            j += 1;
        }
        while self.at(j) == b'_' || self.at(j).is_ascii_alphanumeric() {
            j += 1;
        }
        if self.at(j) == b'['
            && let Some(e) = memchr::memchr(b']', &self.src[j..])
        {
            j += e + 1;
        }
        let op = match (self.at(j), self.at(j + 1)) {
            (a @ (b'%' | b'#' | b'/' | b'^' | b','), b) if a == b => 2,
            (b'/', b'#' | b'%') => 2,
            (b'%' | b'#' | b'/' | b'^' | b',', _) => 1,
            _ => return j.max(i + 2),
        };
        let from = j + op;
        match self.brace_end(from) {
            Some(end) => {
                self.blank(from, end, b' ', true);
                end + 1
            }
            None => from,
        }
    }

    /// The `}` closing a `${` whose text goes on at `from` (nested `${…}` counted), on the
    /// same line.
    fn brace_end(&self, from: usize) -> Option<usize> {
        let mut depth = 1u32;
        let mut k = from;
        while k < self.src.len() {
            match self.src[k] {
                b'$' if self.at(k + 1) == b'{' => {
                    depth += 1;
                    k += 1;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k);
                    }
                }
                b'\\' => k += 1,
                b'\n' => return None,
                _ => {}
            }
            k += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::mask;

    fn masked(src: &str) -> String {
        let out = mask(src.as_bytes());
        assert_eq!(out.len(), src.len());
        String::from_utf8(out.into_owned()).unwrap()
    }

    #[test]
    fn the_words_tree_sitter_misreads_are_blanked_in_place() {
        assert_eq!(
            masked("[[ $v =~ ^(a|b)\\[x$ ]] && f\n"),
            "[[ $v =~ x          ]] && f\n"
        );
        assert_eq!(
            masked("case $o in @(-a|-b)) x ;; esac\n"),
            "case $o in xxxxxxxx) x ;; esac\n"
        );
        assert_eq!(
            masked("h=\"${h%]?(:+([0-9]))}\"\n"),
            "h=\"${h%x            }\"\n"
        );
        assert_eq!(
            masked("case $w in *\\)*) ;; esac\n"),
            "case $w in *xx*) ;; esac\n"
        );
        assert_eq!(
            masked("case $w in a) f ;;& b) g ;& c) ;; esac\n"),
            "case $w in a) f ;;  b) g ;; c) ;; esac\n"
        );
        // Arithmetic, strings, comments and `$(…)` are left alone.
        for same in [
            "n=$(( a*(b+1) ))\n",
            "echo '@(x)' \"*(y)\" # ?(z)\n",
            "x=$(ls !(*.bak) )\n",
        ] {
            let expect = same.replace("!(*.bak)", "xxxxxxxx");
            assert_eq!(masked(same), expect);
        }
        assert!(matches!(
            mask(b"f() { echo hi; }\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
