//! The declarations the C/C++ masking pass (`cmask.rs`) reads: the items of a head (names,
//! calls, pointers, strings) and which of them are attribute macros to blank. C allows one
//! type in a declaration's specifiers, so around the declarator's name:
//!
//! - beside a keyword type (`void`, `int`, `struct x`), every other bare word or call before
//!   the name is an attribute (`asmlinkage __visible void __sched schedule(void)`);
//! - without one, one word is the type: macro-shaped ones (`ALL_CAPS`, `__lower`) beside it
//!   are attributes (`_GLIBCXX20_CONSTEXPR vector& operator=(…)`, `EFI_STATUS EFIAPI f()`
//!   keeps one);
//! - after the parameters, or after a variable's name, macro-shaped words and calls are
//!   attributes (`… const _GLIBCXX_NOEXCEPT {`, `*cachep __read_mostly;`);
//! - macro-shaped words before `template`, a specifier, a class key or a closing brace of a
//!   namespace or class stand alone (`_GLIBCXX_BEGIN_NAMESPACE_VERSION`);
//! - in `namespace std _GLIBCXX_VISIBILITY(default) {` and `class BOOST_SYMBOL_VISIBLE x :`
//!   the macros between the keyword's name and the body are attributes.
//!
//! What cannot be told apart is left as it is.

use super::cmask_types::{Brace, Kind, Masker};
pub(super) use super::cmask_words::{is_class_key, is_statement, known_attribute};

/// What a word is to a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// `void`, `int`, `unsigned`, `decltype(…)`: a type by itself.
    Type,
    /// `struct`, `union`, `enum`, `class`, `typename`: a type with the name after it.
    Key,
    /// `static`, `inline`, `const`, `virtual`…: neither a type nor a name.
    Spec,
    /// `template`, `namespace`, `typedef`, `using`, `extern`…: a declaration starts here.
    Start,
    /// `ALL_CAPS`, two characters or more.
    Macro,
    /// `__lower`: the compilers' and the kernel's reserved spelling.
    Reserved,
    Plain,
    /// A pointer or a string.
    Other,
}

/// Reads the masker's head, ended by `stop` (its first byte, 0 at the end of the text;
/// `closes_scope`: a `}` closing a namespace, class or `extern "C"` block), blanks its
/// attribute macros, and says what a `{` at `stop` opens.
pub(super) fn analyze(m: &mut Masker, stop: u8, closes_scope: bool) -> Brace {
    let n = m.head.len();
    m.blanked = 0;
    if n == 0 {
        return Brace::Other;
    }
    for i in 0..n {
        if known_attribute(m.text(m.head[i].word)).is_some() {
            m.blanked |= 1 << i;
        }
    }
    if stop == b'{' && defining_macro(m) {
        return Brace::Body;
    }
    // Macros alone before the `}` of a namespace or class (`_GLIBCXX_END_NAMESPACE_VERSION`).
    if (stop == 0 || (stop == b'}' && closes_scope)) && (0..n).all(|i| macroish(m, i)) {
        blank_items(m, 0..n);
        return Brace::Other;
    }
    // Macros alone before `template`, `namespace`, a class key or a specifier.
    let lead = (0..n)
        .take_while(|&i| macroish(m, i) && m.head[i].kind == Kind::Name)
        .count();
    let mut start = 0;
    if lead > 0
        && lead < n
        && (matches!(class(m, lead), Class::Start | Class::Key) || leading_spec(m, lead))
    {
        blank_items(m, 0..lead);
        start = lead;
    }
    if let Some(brace) = scope_head(m, start, stop) {
        return brace;
    }
    match declaration(m, start, stop) {
        true if stop == b'{' => Brace::Body,
        _ => Brace::Other,
    }
}

/// A specifier that only opens a declaration (`static`, `explicit`…), never follows its
/// type or parameters (as `const`, `noexcept` may).
fn leading_spec(m: &Masker, i: usize) -> bool {
    matches!(
        m.text(m.head[i].word),
        b"static"
            | b"inline"
            | b"virtual"
            | b"explicit"
            | b"constexpr"
            | b"consteval"
            | b"constinit"
            | b"thread_local"
            | b"_Thread_local"
            | b"friend"
            | b"extern"
            | b"typedef"
            | b"_Noreturn"
    )
}

/// A label or access specifier ended by `:`: a macro before `public` stands alone
/// (`Q_OBJECT public:`).
pub(super) fn label(m: &mut Masker) {
    if m.head.len() == 2
        && macroish(m, 0)
        && matches!(
            m.text(m.head[1].word),
            b"public" | b"private" | b"protected"
        )
    {
        blank_item(m, 0);
    }
}

/// A namespace, class or `extern "C"` head from `start`: its attribute macros blanked, and
/// what its `{` opens. `None` for another head.
fn scope_head(m: &mut Masker, start: usize, stop: u8) -> Option<Brace> {
    let n = m.head.len();
    let scope = if stop == b'{' {
        Brace::Scope
    } else {
        Brace::Other
    };
    fn word<'a>(m: &Masker<'a>, i: usize) -> &'a [u8] {
        m.text(m.head[i].word)
    }
    if word(m, start) == b"extern" && n == start + 2 && m.head[start + 1].kind == Kind::Str {
        return Some(scope);
    }
    if let Some(ns) = (start..n).find(|&i| word(m, i) == b"namespace") {
        let named = m
            .head
            .get(ns + 1)
            .is_some_and(|i| i.kind == Kind::Name && !macroish(m, ns + 1));
        blank_matching(m, ns + 1 + usize::from(named)..n);
        return Some(scope);
    }
    let key = (start..n).find(|&i| class(m, i) == Class::Key)?;
    let before_ok = (start..key).all(|i| matches!(class(m, i), Class::Start | Class::Spec));
    let after_ok = (key + 1..n).all(|i| m.head[i].kind == Kind::Name || macroish(m, i));
    if !(is_class_key(word(m, key)) && before_ok && after_ok && matches!(stop, b'{' | b':')) {
        return None;
    }
    let first = key
        + 1
        + (key + 1..n)
            .take_while(|&i| class(m, i) == Class::Key)
            .count();
    let name = (first..n)
        .rev()
        .find(|&i| m.head[i].kind == Kind::Name && word(m, i) != b"final" && !macroish(m, i))
        .or_else(|| (first..n).rev().find(|&i| m.head[i].kind == Kind::Name))?;
    blank_matching(m, first..name);
    let is_enum = word(m, key) == b"enum";
    Some(if is_enum { Brace::Other } else { Brace::Scope })
}

/// A declaration from `start` ended by `stop`: a function's (its declarator a call: `true`)
/// or a variable's; the attribute macros around its name blanked.
fn declaration(m: &mut Masker, start: usize, stop: u8) -> bool {
    let n = m.head.len();
    let mut k = n;
    while k > start && is_suffix(m, k - 1) {
        k -= 1;
    }
    let declarator = if k > start && m.head[k - 1].kind == Kind::Call && declarator_call(m, k - 1) {
        Some(k - 1)
    } else {
        // A macro-shaped function name (`__foo(void)`, `FOO(void) BAR;`, a constructor
        // `__impl(…) noexcept :`): the first call after the type that is no attribute.
        (k..n)
            .find(|&i| m.head[i].kind == Kind::Call && !is_attribute_call(m, i))
            .filter(|&i| (k..i).all(|j| m.head[j].kind != Kind::Call))
            .filter(|&i| stop == b':' || typed(m, start, i))
    };
    if let Some(f) = declarator {
        blank_matching(m, f + 1..n);
        // Before a constructor's initializers there is no type: only attributes.
        prefix(m, start, f, stop == b':');
        keep_start(m, start);
        return true;
    }
    let mut j = n;
    while j > start && macroish(m, j - 1) {
        j -= 1;
    }
    if j > start
        && m.head[j - 1].kind == Kind::Name
        && class(m, j - 1) == Class::Plain
        && !after_key(m, j - 1)
        && typed(m, start, j - 1)
    {
        blank_matching(m, j..n);
        prefix(m, start, j - 1, false);
        keep_start(m, start);
    }
    false
}

/// A call that is an attribute, never a declarator: `__attribute__((…))`, `__declspec(…)`,
/// `alignas(…)`, a known attribute macro.
fn is_attribute_call(m: &Masker, i: usize) -> bool {
    let word = m.text(m.head[i].word);
    known_attribute(word).is_some()
        || matches!(
            word,
            b"__attribute__"
                | b"__attribute"
                | b"__declspec"
                | b"alignas"
                | b"_Alignas"
                | b"__asm__"
                | b"__asm"
                | b"asm"
                | b"noexcept"
                | b"throw"
        )
}

/// The specifiers and type before the name at `end`: with a keyword type, every other word
/// is an attribute; without one, the macro-shaped words beside the one type; after a
/// pointer, macro-shaped qualifiers (`* __rcu`).
fn prefix(m: &mut Masker, start: usize, end: usize, constructor: bool) {
    let star = (start..end)
        .find(|&i| m.head[i].kind == Kind::Ptr)
        .unwrap_or(end);
    blank_matching(m, star..end);
    for i in start..star {
        // A macro right before `explicit`, `static`…, or before a constructor.
        if macroish(m, i) && (constructor || (i + 1 < end && leading_spec(m, i + 1))) {
            blank_item(m, i);
        }
    }
    let typed = (start..star)
        .any(|i| class(m, i) == Class::Type || (class(m, i) == Class::Key && i + 1 < star));
    let is_word = |m: &Masker, i: usize| {
        matches!(m.head[i].kind, Kind::Name | Kind::Call)
            && matches!(class(m, i), Class::Plain | Class::Macro | Class::Reserved)
            && !after_key(m, i)
    };
    if typed {
        for i in start..star {
            if is_word(m, i) {
                blank_item(m, i);
            }
        }
        return;
    }
    let is_word = |m: &Masker, i: usize| is_word(m, i) && !is_blanked(m, i);
    let count = (start..star).filter(|&i| is_word(m, i)).count();
    if count < 2 {
        return;
    }
    // One of them is the type: a plain word, else the last name, else the last.
    let keep = (start..star)
        .rev()
        .find(|&i| is_word(m, i) && class(m, i) == Class::Plain)
        .or_else(|| {
            (start..star)
                .rev()
                .find(|&i| is_word(m, i) && m.head[i].kind == Kind::Name)
        })
        .or_else(|| (start..star).rev().find(|&i| is_word(m, i)));
    for i in start..star {
        if is_word(m, i) && Some(i) != keep && class(m, i) != Class::Plain {
            blank_item(m, i);
        }
    }
}

/// `SYSCALL_DEFINE3(open, …) {`: the macro's name becomes a return type and a placeholder
/// name, so that the definition parses as a function (`cfamily::name_of` names it `open`).
fn defining_macro(m: &mut Masker) -> bool {
    let Some(f) = (0..m.head.len()).find(|&i| class(m, i) != Class::Spec) else {
        return false;
    };
    let item = m.head[f];
    if f + 1 != m.head.len() || item.kind != Kind::Call || !is_defining_macro(m.text(item.word)) {
        return false;
    }
    let (from, to) = item.word;
    m.write(from, b"long");
    m.blank(from + 4, to - 1);
    m.write(to - 1, b"_");
    true
}

/// The families of macros that define a function named by their first argument (the
/// kernel's, as its `scripts/tags.sh` lists them).
pub(super) fn is_defining_macro(word: &[u8]) -> bool {
    let family = match word.split_last() {
        Some((last, rest)) if last.is_ascii_digit() => rest,
        _ => return false,
    };
    matches!(
        family,
        b"SYSCALL_DEFINE" | b"COMPAT_SYSCALL_DEFINE" | b"BPF_CALL_"
    )
}

fn blank_item(m: &mut Masker, i: usize) {
    let it = m.head[i];
    m.blank(it.start, it.end);
    m.blanked |= 1 << i;
}

fn is_blanked(m: &Masker, i: usize) -> bool {
    m.blanked & (1 << i) != 0
}

/// A declaration whose first line held only attribute macros (`_GLIBCXX20_CONSTEXPR`,
/// `asmlinkage __visible __init` above `void start_kernel(void)`) starts there: the first of
/// the attributes right above its first kept word (no empty line between) becomes `[[x]]`,
/// an attribute tree-sitter keeps in the definition (the name is not touched).
fn keep_start(m: &mut Masker, start: usize) {
    let n = m.head.len();
    let Some(kept) = (start..n).find(|&i| !is_blanked(m, i)) else {
        return;
    };
    let mut first = kept;
    while first > start && is_blanked(m, first - 1) && !empty_line(m, first - 1, first) {
        first -= 1;
    }
    let (a, b) = (m.head[first], m.head[kept]);
    if first < kept && a.end - a.start >= 5 && m.src[a.start..b.start].contains(&b'\n') {
        m.write(a.start, b"[[x]]");
    }
}

/// Whether an empty line stands between items `i` and `j`.
fn empty_line(m: &Masker, i: usize, j: usize) -> bool {
    let between = &m.src[m.head[i].end..m.head[j].start];
    between
        .split(|&c| c == b'\n')
        .skip(1)
        .take(
            between
                .iter()
                .filter(|&&c| c == b'\n')
                .count()
                .saturating_sub(1),
        )
        .any(|line| line.trim_ascii().is_empty())
}

fn blank_items(m: &mut Masker, range: std::ops::Range<usize>) {
    for i in range {
        blank_item(m, i);
    }
}

/// Blanks the macro-shaped words and calls in `range`.
fn blank_matching(m: &mut Masker, range: std::ops::Range<usize>) {
    for i in range {
        if macroish(m, i) {
            blank_item(m, i);
        }
    }
}

/// A macro-shaped name or call: `ALL_CAPS`, `__lower`.
fn macroish(m: &Masker, i: usize) -> bool {
    matches!(m.head[i].kind, Kind::Name | Kind::Call)
        && matches!(class(m, i), Class::Macro | Class::Reserved)
}

/// What may follow a function's parameters or a variable's name: qualifiers, `&`/`&&`,
/// attribute macros.
fn is_suffix(m: &Masker, i: usize) -> bool {
    let it = m.head[i];
    match it.kind {
        Kind::Ptr => m.text((it.start, it.end)) != b"*",
        Kind::Str => false,
        Kind::Attr => true,
        Kind::Name | Kind::Call => {
            macroish(m, i)
                || matches!(
                    m.text(it.word),
                    b"const"
                        | b"volatile"
                        | b"noexcept"
                        | b"throw"
                        | b"override"
                        | b"final"
                        | b"mutable"
                )
        }
    }
}

/// A call that can be a function's declarator (not `decltype(…)`, `alignas(…)`…).
fn declarator_call(m: &Masker, i: usize) -> bool {
    matches!(class(m, i), Class::Plain | Class::Macro | Class::Reserved)
}

/// Whether something before `end` (from `start`) can be a type: more than specifiers.
fn typed(m: &Masker, start: usize, end: usize) -> bool {
    (start..end).any(|i| !matches!(class(m, i), Class::Spec | Class::Start))
}

/// The name right after a class key or `typename` (part of the type, not a declarator).
fn after_key(m: &Masker, i: usize) -> bool {
    i > 0 && class(m, i - 1) == Class::Key
}

fn class(m: &Masker, i: usize) -> Class {
    let it = m.head[i];
    match it.kind {
        Kind::Ptr | Kind::Str => Class::Other,
        Kind::Attr => Class::Spec,
        Kind::Name | Kind::Call => word_class(m.text(it.word), m.cpp),
    }
}

fn word_class(word: &[u8], cpp: bool) -> Class {
    if known_attribute(word).is_some() {
        return Class::Reserved;
    }
    match word {
        b"void" | b"char" | b"short" | b"int" | b"long" | b"float" | b"double" | b"signed"
        | b"unsigned" | b"_Bool" | b"bool" | b"_Complex" | b"__int128" | b"wchar_t"
        | b"char8_t" | b"char16_t" | b"char32_t" | b"decltype" | b"typeof" | b"__typeof__"
        | b"__typeof" | b"_Atomic" => Class::Type,
        b"auto" if cpp => Class::Type,
        b"struct" | b"union" | b"enum" | b"typename" => Class::Key,
        b"class" if cpp => Class::Key,
        b"template" | b"namespace" | b"typedef" | b"using" | b"extern" | b"static_assert"
        | b"_Static_assert" | b"friend" | b"concept" | b"export" | b"module" | b"import" => {
            Class::Start
        }
        b"static" | b"inline" | b"const" | b"volatile" | b"register" | b"restrict"
        | b"__restrict" | b"__restrict__" | b"__inline" | b"__inline__" | b"__forceinline"
        | b"virtual" | b"explicit" | b"constexpr" | b"consteval" | b"constinit" | b"mutable"
        | b"thread_local" | b"_Thread_local" | b"__thread" | b"_Noreturn" | b"noreturn"
        | b"alignas" | b"_Alignas" | b"__extension__" | b"auto" | b"override" | b"final"
        | b"noexcept" | b"throw" | b"__cdecl" | b"__stdcall" | b"__fastcall" | b"__vectorcall" => {
            Class::Spec
        }
        _ if word.len() >= 2
            && word.iter().any(|c| c.is_ascii_uppercase())
            && word
                .iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_') =>
        {
            Class::Macro
        }
        _ if word.starts_with(b"__") => Class::Reserved,
        _ => Class::Plain,
    }
}
