//! The per-language tables of Kotlin, Ruby, PHP, Swift and Scala (the other languages' are
//! in `lang.rs`): file names, transparent and container nodes, symbol kinds of their own;
//! and what a Kotlin parse is given (top-level annotations as comments).

use std::borrow::Cow;
use std::path::Path;

use super::lang_id::Lang;

/// Symbol kinds these languages add to `lang.rs`'s: Kotlin and Scala `object`s, Swift
/// protocols and extensions.
pub(crate) const KINDS: [&str; 3] = ["object", "protocol", "extension"];

/// The language of a file by its extension (lower case).
pub(crate) fn from_extension(ext: &str) -> Option<Lang> {
    Some(match ext {
        "kt" | "kts" => Lang::Kotlin,
        "rb" | "rake" | "gemspec" | "ru" => Lang::Ruby,
        "php" => Lang::Php,
        "swift" => Lang::Swift,
        "scala" | "sc" => Lang::Scala,
        _ => return None,
    })
}

/// The language of a file known by its whole name (`Rakefile`, `Gemfile`).
pub(crate) fn from_file_name(path: &Path) -> Option<Lang> {
    let name = path.file_name()?.to_str()?;
    matches!(name, "Rakefile" | "Gemfile" | "Guardfile" | "Podfile").then_some(Lang::Ruby)
}

/// Node kinds a kept symbol may sit in without being a member of another symbol.
pub(crate) fn transparent(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(kind, "source_file" | "class_body" | "enum_class_body"),
        // `class << self` holds singleton methods of the class around it; a definition under
        // `if`/`unless` (`if RUBY_VERSION < "3"`, `def x … end unless method_defined?(:x)`),
        // in `begin … rescue … ensure … end` (a fallback when a `require` fails) or in a
        // block (`included do`, `class_methods do`) is one of the scope around it.
        Lang::Ruby => matches!(
            kind,
            "program"
                | "body_statement"
                | "singleton_class"
                | "if"
                | "unless"
                | "then"
                | "else"
                | "elsif"
                | "if_modifier"
                | "unless_modifier"
                | "begin"
                | "rescue"
                | "ensure"
                | "call"
                | "do_block"
        ),
        // `if (!function_exists('dump')) { function dump() {} }`, a class per PHP version, a
        // function declared in a `try` whose `catch` declares a fallback.
        Lang::Php => matches!(
            kind,
            "program"
                | "declaration_list"
                | "enum_declaration_list"
                | "compound_statement"
                | "if_statement"
                | "else_clause"
                | "else_if_clause"
                | "colon_block"
                | "try_statement"
                | "catch_clause"
                | "finally_clause"
        ),
        Lang::Swift => matches!(
            kind,
            "source_file" | "class_body" | "enum_class_body" | "protocol_body"
        ),
        // `package p { ... }` qualifies what it holds (see `lang_b_names.rs`).
        Lang::Scala => matches!(
            kind,
            "compilation_unit"
                | "template_body"
                | "enum_body"
                | "extension_definition"
                | "package_clause"
        ),
        _ => false,
    }
}

/// Structural node kinds the symbol query starts again below, where definitions nest
/// deeper than the query's start depth: Scala's braced packages (`package a { package b {
/// ... } }`), Ruby's blocks (`included do`, `class_methods do`, `Struct.new(:x) do`), `if`s
/// and `begin`s (`begin … rescue LoadError; if … ; class X … end; end; end`), and PHP's
/// `if`s and `try`s (`namespace A { if (...) { } else { class X {} } }`).
pub(crate) fn reopens(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Scala => kind == "package_clause",
        Lang::Ruby => matches!(kind, "do_block" | "if" | "unless" | "begin"),
        Lang::Php => matches!(kind, "if_statement" | "try_statement"),
        _ => false,
    }
}

/// Node kinds of definitions whose bodies hold member symbols.
pub(crate) fn is_container_node(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(
            kind,
            "class_declaration" | "object_declaration" | "companion_object"
        ),
        // `Point = Struct.new(:x) do ... end` is a class.
        Lang::Ruby => matches!(kind, "module" | "class" | "assignment"),
        Lang::Php => matches!(
            kind,
            "class_declaration"
                | "interface_declaration"
                | "trait_declaration"
                | "enum_declaration"
                | "namespace_definition"
        ),
        Lang::Swift => matches!(kind, "class_declaration" | "protocol_declaration"),
        Lang::Scala => matches!(
            kind,
            "class_definition"
                | "object_definition"
                | "package_object"
                | "trait_definition"
                | "enum_definition"
        ),
        _ => false,
    }
}

/// Symbol kinds whose members are symbols too, beyond the ones every language has.
pub(crate) fn is_container_kind(lang: Lang, kind: &str) -> bool {
    lang.is_b()
        && matches!(
            kind,
            "object" | "protocol" | "extension" | "struct" | "enum"
        )
}

/// Line starts where a large file may be cut in two for parsing (see `build::split_point`).
pub(crate) fn split_starts(lang: Lang) -> &'static [&'static [u8]] {
    match lang {
        Lang::Kotlin => &[b"fun ", b"class ", b"data class ", b"object ", b"/**"],
        Lang::Ruby => &[b"def ", b"class ", b"module "],
        // A PHP half without its `<?php` would read as HTML text: never cut.
        Lang::Php => &[],
        Lang::Swift => &[b"func ", b"struct ", b"class ", b"extension ", b"///"],
        Lang::Scala => &[b"def ", b"class ", b"object ", b"trait ", b"/**"],
        _ => &[],
    }
}

/// Kotlin: the top-level annotations on lines of their own (a line that starts with `@`,
/// `@file:` aside, and holds nothing after them but a comment) turned into comments for the parse, every
/// byte in its place: `@Target(FUNCTION)` into `//arget(FUNCTION)`, arguments over several
/// lines into `//` on the first and blanks after. The grammar reads an annotation with
/// arguments on a line of its own as an expression: the arguments part from the declaration
/// below, and after two of them a declaration without a body (`public annotation class
/// nativeGetter`) is swallowed whole. As comments they are left alone, and the builder
/// counts them as the first lines of the declaration below (see `Builder::first_b`). An
/// annotation followed by code on its line (`@PublishedApi internal val x`) parses well and
/// is left as it is: it also keeps the modifiers after it from the property above.
pub(crate) fn mask_annotations(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let starts = std::iter::once(0).chain(memchr::memmem::find_iter(bytes, b"\n@").map(|i| i + 1));
    for start in starts {
        if bytes.get(start) != Some(&b'@') || bytes[start..].starts_with(b"@file:") {
            continue;
        }
        let Some(end) = annotation_run(bytes, start) else {
            continue;
        };
        let rest = &bytes[end..];
        let line_rest = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        let line_rest = line_rest.trim_ascii();
        if !(line_rest.is_empty() || line_rest.starts_with(b"//")) {
            continue;
        }
        let out = out.get_or_insert_with(|| bytes.to_vec());
        let masked = &mut out[start..end];
        masked[..2].copy_from_slice(b"//");
        // Arguments over several lines: the first line a comment, the others blank.
        if let Some(nl) = memchr::memchr(b'\n', masked) {
            for b in masked[nl..].iter_mut().filter(|b| **b != b'\n') {
                *b = b' ';
            }
        }
    }
    out.map_or(Cow::Borrowed(bytes), Cow::Owned)
}

/// The end of the annotations that start at `at` (`@A`, `@a.B(args)`, `@get:C`, several on
/// one line), arguments spread over lines included; `None` when it is no annotation or its
/// parentheses do not close.
pub(crate) fn annotation_run(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut end = None;
    while bytes.get(at) == Some(&b'@') {
        let name = bytes[at + 1..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':')))
            .unwrap_or(bytes.len() - at - 1);
        if name == 0 {
            return end;
        }
        at += 1 + name;
        if bytes.get(at) == Some(&b'(') {
            at += closing_paren(&bytes[at..])?;
        }
        end = Some(at);
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
    }
    end
}

/// The length of the parenthesized text `text` starts with, strings skipped; `None` when
/// it does not close within a few kilobytes.
fn closing_paren(text: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len().min(1 << 13) {
        match text[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' if text[i..].starts_with(b"\"\"\"") => {
                i += 3 + memchr::memmem::find(&text[i + 3..], b"\"\"\"")? + 2;
            }
            b'"' => loop {
                i += 1;
                match text.get(i)? {
                    b'\\' => i += 1,
                    b'"' => break,
                    b'\n' => return None,
                    _ => {}
                }
            },
            _ => {}
        }
        i += 1;
    }
    None
}
