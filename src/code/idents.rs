//! The names a file's code uses: every identifier written outside its comments and string
//! literals, with how often, found by a lexical scan (no parse: the scan sees function
//! bodies a skimmed C file's parse leaves out, and costs a pass over the bytes). What the
//! records keep of a file for references and the repo map (`crate::symbols`).
//!
//! The scan knows each language's comments (`//`, `/* */`, `#`, Ruby's `=begin`), strings
//! (quotes, triple quotes, raw and template strings, C# verbatim strings, string prefixes)
//! and character literals (told from Rust lifetimes and Scala symbols by their closing
//! quote), and leaves out each language's keywords, names of one character, numbers, PHP
//! variables (`$x`) and the path of a C `#include`. It is a lexer's approximation, not a
//! parse: heredocs and C++ raw strings are read as code.

use super::idents_words::keywords;
use super::lang_id::Lang;

/// How a language writes comments and strings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    /// `//` and `/* */` comments; `#` starts a C preprocessor line.
    CLike,
    Python,
    Ruby,
    Shell,
    Php,
}

fn family(lang: Lang) -> Family {
    match lang {
        Lang::Python => Family::Python,
        Lang::Ruby => Family::Ruby,
        Lang::Bash => Family::Shell,
        Lang::Php => Family::Php,
        _ => Family::CLike,
    }
}

/// Whether a string in double quotes may run over several lines.
fn multiline_strings(lang: Lang) -> bool {
    matches!(lang, Lang::Rust | Lang::Php | Lang::Ruby | Lang::Bash)
}

/// Byte classes: a name's first byte, a name's byte, `$` (a name's byte in JavaScript).
const START: u8 = 1;
const NAME: u8 = 2;
const DOLLAR: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            t[b] = START | NAME;
        } else if c.is_ascii_digit() {
            t[b] = NAME;
        } else if c == b'$' {
            t[b] = DOLLAR;
        }
        b += 1;
    }
    t
};

/// The length of the run of name bytes at the start of `b` (`$` among them when `dollar`).
fn name_len(b: &[u8], dollar: bool) -> usize {
    let mask = if dollar { NAME | DOLLAR } else { NAME };
    b.iter()
        .position(|&c| CLASS[usize::from(c)] & mask == 0)
        .unwrap_or(b.len())
}

/// The identifiers `bytes` (a file in `lang`) uses outside comments and strings, each with
/// its number of uses, sorted by name; keywords and one-character names left out.
pub fn identifiers(lang: Lang, bytes: &[u8]) -> Vec<(&[u8], u32)> {
    // Sized for a file's distinct names at once (about one in 48 bytes in C): no rehash.
    let mut counts: crate::fasthash::FastMap<&[u8], u32> =
        crate::fasthash::FastMap::with_capacity_and_hasher(bytes.len() / 48, Default::default());
    // The keywords are in the map from the start, counted from KEYWORD on: told apart at the
    // end without a search per name.
    const KEYWORD: u32 = 1 << 31;
    for &k in keywords(lang) {
        counts.insert(k, KEYWORD);
    }
    Scan::new(lang, bytes).run(|name| {
        if name.len() > 1 {
            let n = counts.entry(name).or_insert(0);
            *n = n.saturating_add(1);
        }
    });
    let mut out: Vec<(&[u8], u32)> = counts.into_iter().filter(|(_, n)| *n < KEYWORD).collect();
    // By their first eight bytes as a number, then whole (most names differ there).
    let head = |n: &[u8]| {
        let mut b = [0u8; 8];
        let k = n.len().min(8);
        b[..k].copy_from_slice(&n[..k]);
        u64::from_be_bytes(b)
    };
    out.sort_unstable_by(|a, b| head(a.0).cmp(&head(b.0)).then_with(|| a.cmp(b)));
    out
}

/// Where `name` is written in the code of `bytes` (a file in `lang`) as a whole identifier,
/// outside comments and strings: the byte offset of each occurrence, in order.
///
/// The same scan as [`identifiers`], but it stops only at the bytes that can open a comment
/// or a string in `lang` and at `name`'s first byte (a whole word there is an occurrence):
/// the identifiers between are passed over, not read one by one.
pub fn occurrences(lang: Lang, bytes: &[u8], name: &[u8]) -> Vec<usize> {
    let mut at = Vec::new();
    let Some(&first) = name.first() else {
        return at;
    };
    let mut scan = Scan::new(lang, bytes);
    // A name with a byte the language's names cannot hold is never written as one.
    let mask = if scan.dollar { NAME | DOLLAR } else { NAME };
    if name.iter().any(|&c| CLASS[usize::from(c)] & mask == 0) {
        return at;
    }
    let stops = scan.stops(first);
    let n = bytes.len();
    while scan.i < n {
        match bytes[scan.i..].iter().position(|&c| stops[usize::from(c)]) {
            Some(k) => scan.i += k,
            None => break,
        }
        let i = scan.i;
        if bytes[i] == first && scan.whole_word_at(i, name) {
            if !scan.string_prefix(i, name.len()) && !scan.in_number(i) {
                at.push(i);
            }
            scan.i += name.len();
        } else if bytes[i] == first {
            scan.i += 1;
        } else {
            scan.special(bytes[i]);
        }
    }
    at
}

/// Where `name` is written in `bytes` (a file in `lang`) as a whole identifier, in comments
/// and strings too: every offset [`occurrences`] checks, found without reading the rest (a
/// search of the name's bytes). They hold [`occurrences`]' own; when a file's code is known
/// to use the name as many times, they are those.
pub fn written(lang: Lang, bytes: &[u8], name: &[u8]) -> Vec<usize> {
    let scan = Scan::new(lang, bytes);
    memchr::memmem::find_iter(bytes, name)
        .filter(|&i| {
            scan.whole_word_at(i, name) && !scan.string_prefix(i, name.len()) && !scan.in_number(i)
        })
        .collect()
}

struct Scan<'b> {
    b: &'b [u8],
    i: usize,
    lang: Lang,
    fam: Family,
    multiline: bool,
    /// `$` is part of a name (JavaScript, TypeScript).
    dollar: bool,
}

impl<'b> Scan<'b> {
    fn new(lang: Lang, b: &'b [u8]) -> Scan<'b> {
        Scan {
            b,
            i: 0,
            lang,
            fam: family(lang),
            multiline: multiline_strings(lang),
            dollar: matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx),
        }
    }

    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn starts(&self, s: &[u8]) -> bool {
        self.b[self.i..].starts_with(s)
    }

    /// Moves past the next `end` (or to the end of the bytes).
    fn skip_past(&mut self, end: &[u8]) {
        self.i = match memchr::memmem::find(&self.b[self.i..], end) {
            Some(k) => self.i + k + end.len(),
            None => self.b.len(),
        };
    }

    fn skip_line(&mut self) {
        self.i = memchr::memchr(b'\n', &self.b[self.i..]).map_or(self.b.len(), |k| self.i + k);
    }

    /// Moves past a string opened by `q` at `self.i - 1`: to its unescaped closing quote,
    /// or (a one-line string) to the end of the line.
    fn skip_string(&mut self, q: u8, escapes: bool, multiline: bool) {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            self.i += 1;
            if c == b'\\' && escapes {
                self.i += 1;
            } else if c == q {
                // C#'s verbatim strings and others write a quote twice.
                if !escapes && self.at(0) == q {
                    self.i += 1;
                    continue;
                }
                return;
            } else if c == b'\n' && !multiline {
                return;
            }
        }
    }

    /// Whether a `#` here starts a comment in a shell (a word's first byte).
    fn shell_comment(&self) -> bool {
        self.i == 0
            || matches!(
                self.b[self.i - 1],
                b' ' | b'\t' | b'\n' | b';' | b'(' | b'|' | b'&'
            )
    }

    fn run(&mut self, mut found: impl FnMut(&'b [u8])) {
        let n = self.b.len();
        let start = if self.dollar { START | DOLLAR } else { START };
        while self.i < n {
            let c = self.b[self.i];
            if CLASS[usize::from(c)] & start != 0 {
                self.ident(&mut found);
            } else if c.is_ascii_digit() {
                // A number, with its dots and suffixes.
                while self.i < n
                    && (CLASS[usize::from(self.b[self.i])] & NAME != 0 || self.b[self.i] == b'.')
                {
                    self.i += 1;
                }
            } else {
                self.special(c);
            }
        }
    }

    /// The bytes [`Scan::special`] does more with than step over, and `first`.
    fn stops(&self, first: u8) -> [bool; 256] {
        let mut t = [false; 256];
        for c in [b'#', b'"', b'\'', first] {
            t[usize::from(c)] = true;
        }
        if matches!(self.fam, Family::CLike | Family::Php) {
            t[usize::from(b'/')] = true;
        }
        match self.fam {
            Family::Ruby => t[usize::from(b'=')] = true,
            Family::Php => t[usize::from(b'$')] = true,
            _ => {}
        }
        if matches!(
            self.lang,
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx | Lang::Go
        ) {
            t[usize::from(b'`')] = true;
        }
        t
    }

    /// Whether `name` is written at `i` as a whole name (no name byte before or after it).
    fn whole_word_at(&self, i: usize, name: &[u8]) -> bool {
        let mask = if self.dollar { NAME | DOLLAR } else { NAME };
        let is_name = |c: u8| CLASS[usize::from(c)] & mask != 0;
        self.b[i..].starts_with(name)
            && (i == 0 || !is_name(self.b[i - 1]))
            && self.b.get(i + name.len()).is_none_or(|&c| !is_name(c))
    }

    /// Whether a name at `i` after a dot is the rest of a number (`0x1.fp-3`, `1.e5`): the
    /// whole scan reads a number from a digit that starts a word on through names and dots.
    fn in_number(&self, i: usize) -> bool {
        if i == 0 || self.b[i - 1] != b'.' {
            return false;
        }
        let mask = if self.dollar { NAME | DOLLAR } else { NAME };
        let mut k = i;
        while k > 0 && (self.b[k - 1] == b'.' || CLASS[usize::from(self.b[k - 1])] & mask != 0) {
            k -= 1;
        }
        let run = &self.b[k..i];
        run.first().is_some_and(u8::is_ascii_digit)
            || run
                .windows(2)
                .any(|w| w[0] == b'.' && w[1].is_ascii_digit())
    }

    /// Whether the name of `len` bytes at `i` is a string's prefix (`r"`, `b'`, `f"`, `rb"`).
    fn string_prefix(&self, i: usize, len: usize) -> bool {
        let name = &self.b[i..i + len];
        matches!(self.b.get(i + len), Some(b'"' | b'\''))
            && len <= 2
            && name.iter().all(|c| b"rRbBfFuUL".contains(c))
    }

    /// At a byte `c` that is not a name's: a comment, a string or a character literal is
    /// passed over whole, anything else by one byte.
    fn special(&mut self, c: u8) {
        match c {
            b'/' if matches!(self.fam, Family::CLike | Family::Php) && self.at(1) == b'/' => {
                self.skip_line();
            }
            b'/' if matches!(self.fam, Family::CLike | Family::Php) && self.at(1) == b'*' => {
                self.i += 2;
                self.skip_past(b"*/");
            }
            b'#' => self.hash(),
            b'=' if self.fam == Family::Ruby
                && (self.i == 0 || self.b[self.i - 1] == b'\n')
                && self.starts(b"=begin") =>
            {
                self.skip_past(b"\n=end");
            }
            b'"' | b'\'' if self.starts(if c == b'"' { b"\"\"\"" } else { b"'''" }) => {
                self.i += 3;
                self.skip_past(if c == b'"' { b"\"\"\"" } else { b"'''" });
            }
            b'"' => {
                let verbatim =
                    self.lang == Lang::CSharp && self.i > 0 && self.b[self.i - 1] == b'@';
                self.i += 1;
                self.skip_string(b'"', !verbatim, self.multiline || verbatim);
            }
            b'\'' => self.quote(),
            b'`' if matches!(
                self.lang,
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx | Lang::Go
            ) =>
            {
                self.i += 1;
                self.skip_string(b'`', self.lang != Lang::Go, true);
            }
            b'$' if self.fam == Family::Php => {
                // A variable: its name is not a definition's.
                self.i += 1;
                self.i += name_len(&self.b[self.i..], false);
            }
            _ => self.i += 1,
        }
    }

    fn ident(&mut self, found: &mut impl FnMut(&'b [u8])) {
        let start = self.i;
        self.i += name_len(&self.b[start..], self.dollar);
        let name = &self.b[start..self.i];
        // A string's prefix (`r"`, `b'`, `f"`, `rb"`): the string follows.
        if matches!(self.at(0), b'"' | b'\'')
            && name.len() <= 2
            && name.iter().all(|c| b"rRbBfFuUL".contains(c))
        {
            return;
        }
        found(name);
    }

    fn hash(&mut self) {
        match self.fam {
            Family::Python | Family::Ruby | Family::Php => self.skip_line(),
            Family::Shell if self.shell_comment() => self.skip_line(),
            Family::Shell => self.i += 1,
            Family::CLike if matches!(self.lang, Lang::C | Lang::Cpp) => {
                // A preprocessor line: `#include <a/b.h>` names a path, not code.
                let mut k = self.i + 1;
                while k < self.b.len() && matches!(self.b[k], b' ' | b'\t') {
                    k += 1;
                }
                if self.b[k..].starts_with(b"include") || self.b[k..].starts_with(b"import") {
                    self.skip_line();
                } else {
                    self.i += 1;
                }
            }
            Family::CLike => self.i += 1,
        }
    }

    /// A single quote: a string where quotes make strings, else a character literal when it
    /// closes as one (`'a'`, `'\n'`), else a Rust lifetime or a Scala symbol (read on).
    fn quote(&mut self) {
        let strings = matches!(
            self.lang,
            Lang::Python
                | Lang::Ruby
                | Lang::Bash
                | Lang::Php
                | Lang::JavaScript
                | Lang::TypeScript
                | Lang::Tsx
        );
        self.i += 1;
        if strings {
            let escapes = self.lang != Lang::Bash;
            self.skip_string(b'\'', escapes, self.multiline);
        } else if self.at(0) == b'\\' {
            self.skip_string(b'\'', true, false);
        } else if self.at(1) == b'\'' {
            self.i += 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lang: Lang, src: &str) -> Vec<String> {
        identifiers(lang, src.as_bytes())
            .into_iter()
            .map(|(n, c)| format!("{}:{c}", String::from_utf8_lossy(n)))
            .collect()
    }

    #[test]
    fn keyword_lists_are_sorted() {
        for l in crate::code::lang::ALL {
            let k = keywords(l);
            assert!(k.windows(2).all(|w| w[0] < w[1]), "{l:?}");
        }
    }

    #[test]
    fn c_code_without_comments_strings_or_include_paths() {
        let src = "#include <linux/slab.h>\n/* kmalloc_array in a comment */\n\
                   static int grow(struct pool *p) {\n  // kfree here too\n  \
                   p->items = kmalloc_array(p->n, sizeof(*p->items), GFP_KERNEL);\n  \
                   pr_info(\"kzalloc %d\\n\", 'x');\n  return p->items ? 0 : -ENOMEM;\n}\n";
        assert_eq!(
            names(Lang::C, src),
            [
                "ENOMEM:1",
                "GFP_KERNEL:1",
                "grow:1",
                "items:3",
                "kmalloc_array:1",
                "pool:1",
                "pr_info:1"
            ]
        );
    }

    #[test]
    fn rust_lifetimes_chars_and_raw_strings() {
        let src = "fn view<'a>(s: &'a str) -> Vec<&'a str> { let c = '\\''; let r = r\"x y\"; \
                   s.split(c).collect() }";
        assert_eq!(
            names(Lang::Rust, src),
            ["Vec:1", "collect:1", "split:1", "str:2", "view:1"]
        );
    }

    #[test]
    fn python_ruby_shell_and_php_comments_and_strings() {
        let py = "def load(path):\n    \"\"\"Reads json_text.\"\"\"\n    # parse_later\n    \
                  return json.loads(open(path).read(), f\"{x}\")\n";
        assert_eq!(
            names(Lang::Python, py),
            ["json:1", "load:1", "loads:1", "open:1", "path:2", "read:1"]
        );
        let rb = "=begin\nhidden_word\n=end\nclass Inflector < Base # note\n  \
                  before_action :camelize\nend\n";
        assert_eq!(
            names(Lang::Ruby, rb),
            ["Base:1", "Inflector:1", "before_action:1", "camelize:1"]
        );
        let sh = "# comment_word\nlog() { echo \"$msg\" ${#args}; }\nlog 'quoted_word' $HOME\n";
        assert_eq!(
            names(Lang::Bash, sh),
            ["HOME:1", "args:1", "echo:1", "log:2"]
        );
        let php = "<?php\n$req = Request::create($uri); # why\n$req->send();\n";
        assert_eq!(names(Lang::Php, php), ["Request:1", "create:1", "send:1"]);
    }

    #[test]
    fn javascript_templates_and_names_with_dollars() {
        let src = "const $el = `hidden ${word}`; $el.on('click', handler); // off\n";
        assert_eq!(names(Lang::JavaScript, src), ["$el:2", "handler:1", "on:1"]);
    }

    #[test]
    fn occurrences_are_the_code_ones() {
        let src = "// grow here\nint grow(int n) { return grow(n - 1) + regrow(\"grow\"); }\n";
        let at = occurrences(Lang::C, src.as_bytes(), b"grow");
        assert_eq!(at, [17, 38]);
        assert!(at.iter().all(|&k| &src[k..k + 4] == "grow"));
        assert_eq!(occurrences(Lang::C, b"x = y;", b"x"), [0]);
    }

    /// What [`occurrences`] must find: every name the whole scan reports that is `name`.
    fn by_whole_scan(lang: Lang, bytes: &[u8], name: &[u8]) -> Vec<usize> {
        let mut at = Vec::new();
        let base = bytes.as_ptr() as usize;
        Scan::new(lang, bytes).run(|found| {
            if found == name {
                at.push(found.as_ptr() as usize - base);
            }
        });
        at
    }

    /// Every word of `bytes` (runs of name bytes) as a name to look for.
    fn words(bytes: &[u8]) -> Vec<&[u8]> {
        let mut w: Vec<&[u8]> = bytes
            .split(|&c| CLASS[usize::from(c)] & (NAME | DOLLAR) == 0)
            .filter(|w| {
                w.first()
                    .is_some_and(|&c| CLASS[usize::from(c)] & START != 0)
            })
            .collect();
        w.sort_unstable();
        w.dedup();
        w
    }

    #[test]
    fn occurrences_equal_the_whole_scan() {
        let cases: &[(Lang, &str)] = &[
            (
                Lang::C,
                "#include <a/grow.h>\n/* grow */ int grow(int n) { char c = 'g'; return grow(n) + L\"grow\" + 1.5e3 + 0x1f; }\n",
            ),
            (
                Lang::Cpp,
                "auto s = u8\"x\"; int x = 1'000'000; R x; // grow\nb = grow;",
            ),
            (
                Lang::Rust,
                "fn view<'a>(s: &'a str) { let r = r\"a\"; let b = b'x'; br\"q\"; 'outer: loop {} }",
            ),
            (
                Lang::Python,
                "def f(x):\n    \"\"\"x f\"\"\"\n    return rb'x' + f\"{x}\" # x\n",
            ),
            (Lang::Ruby, "=begin\nx\n=end\nx = 'x' # x\ny = \"#{x}\"\n"),
            (Lang::Bash, "x=1 # x\necho \"$x\" ${#x} 'x'; f() { x; }\n"),
            (
                Lang::Php,
                "<?php $x = x($y); # x\n// x\n$x->x(); /* x */ \"x\";\n",
            ),
            (Lang::JavaScript, "const $x = `x ${x}`; x.$x('x'); // x\n"),
            (Lang::Go, "s := `x\nx`; x := 'x'; // x\n"),
            (Lang::CSharp, "var s = @\"x\"\"x\"; x(s); // x\n"),
        ];
        for &(lang, src) in cases {
            for w in words(src.as_bytes()) {
                assert_eq!(
                    occurrences(lang, src.as_bytes(), w),
                    by_whole_scan(lang, src.as_bytes(), w),
                    "{lang:?} {:?} in {src:?}",
                    String::from_utf8_lossy(w)
                );
            }
        }
    }

    /// `MAPGREP_CODE_TREES=dir1:dir2 cargo test --release --lib occurrences_equal_on_trees --
    /// --ignored`: [`occurrences_equal_the_whole_scan`] over every word of every file of
    /// real trees.
    #[test]
    #[ignore = "needs MAPGREP_CODE_TREES"]
    fn occurrences_equal_on_trees() {
        let trees = std::env::var("MAPGREP_CODE_TREES").expect("MAPGREP_CODE_TREES");
        let (mut files, mut checked) = (0, 0);
        for tree in trees.split(':') {
            for e in ignore::WalkBuilder::new(tree).build().flatten() {
                let Ok(bytes) = std::fs::read(e.path()) else {
                    continue;
                };
                let Some(lang) = Lang::of_file(e.path(), &bytes) else {
                    continue;
                };
                files += 1;
                // Every 16th word: the whole set costs a scan per word.
                for w in words(&bytes).into_iter().step_by(16) {
                    checked += 1;
                    assert_eq!(
                        occurrences(lang, &bytes, w),
                        by_whole_scan(lang, &bytes, w),
                        "{} {:?}",
                        e.path().display(),
                        String::from_utf8_lossy(w)
                    );
                }
            }
        }
        eprintln!("{files} files, {checked} names: equal");
    }

    #[test]
    fn an_unclosed_string_ends_with_its_line() {
        let src = "char *s = \"open;\nint next_line(void);\n";
        assert_eq!(names(Lang::C, src), ["next_line:1"]);
    }
}
