//! The keywords the identifier scan (`idents.rs`) leaves out, per language family, sorted.

use super::lang_id::Lang;

/// The keywords of `lang`'s family, sorted (binary searched).
pub(super) fn keywords(lang: Lang) -> &'static [&'static [u8]] {
    match lang {
        Lang::C | Lang::Cpp => C_WORDS,
        Lang::Python => PYTHON_WORDS,
        Lang::Ruby => RUBY_WORDS,
        Lang::Bash => SHELL_WORDS,
        Lang::Php => PHP_WORDS,
        Lang::Go => GO_WORDS,
        Lang::Rust => RUST_WORDS,
        _ => JVM_JS_WORDS,
    }
}

#[rustfmt::skip]
const C_WORDS: &[&[u8]] = &[
    b"alignas", b"alignof", b"asm", b"auto", b"bool", b"break", b"case", b"catch", b"char",
    b"class", b"const", b"const_cast", b"constexpr", b"continue", b"decltype", b"default",
    b"define", b"defined", b"delete", b"do", b"double", b"dynamic_cast", b"elif", b"else",
    b"endif", b"enum", b"error", b"explicit", b"extern", b"false", b"float", b"for", b"friend",
    b"goto", b"if", b"ifdef", b"ifndef", b"inline", b"int", b"long", b"mutable", b"namespace",
    b"new", b"noexcept", b"nullptr", b"operator", b"override", b"pragma", b"private",
    b"protected", b"public", b"register", b"reinterpret_cast", b"restrict", b"return", b"short",
    b"signed", b"sizeof", b"static", b"static_assert", b"static_cast", b"struct", b"switch",
    b"template", b"this", b"throw", b"true", b"try", b"typedef", b"typeid", b"typename",
    b"undef", b"union", b"unsigned", b"using", b"virtual", b"void", b"volatile", b"while",
];

#[rustfmt::skip]
const PYTHON_WORDS: &[&[u8]] = &[
    b"False", b"None", b"True", b"and", b"as", b"assert", b"async", b"await", b"break",
    b"class", b"continue", b"def", b"del", b"elif", b"else", b"except", b"finally", b"for",
    b"from", b"global", b"if", b"import", b"in", b"is", b"lambda", b"nonlocal", b"not", b"or",
    b"pass", b"raise", b"return", b"self", b"try", b"while", b"with", b"yield",
];

#[rustfmt::skip]
const RUBY_WORDS: &[&[u8]] = &[
    b"BEGIN", b"END", b"__FILE__", b"__LINE__", b"alias", b"and", b"begin", b"break", b"case",
    b"class", b"def", b"defined", b"do", b"else", b"elsif", b"end", b"ensure", b"false", b"for",
    b"if", b"in", b"module", b"next", b"nil", b"not", b"or", b"redo", b"rescue", b"retry",
    b"return", b"self", b"super", b"then", b"true", b"undef", b"unless", b"until", b"when",
    b"while", b"yield",
];

#[rustfmt::skip]
const SHELL_WORDS: &[&[u8]] = &[
    b"case", b"do", b"done", b"elif", b"else", b"esac", b"fi", b"for", b"function", b"if",
    b"in", b"local", b"return", b"select", b"then", b"until", b"while",
];

#[rustfmt::skip]
const PHP_WORDS: &[&[u8]] = &[
    b"abstract", b"and", b"array", b"as", b"break", b"callable", b"case", b"catch", b"class",
    b"clone", b"const", b"continue", b"declare", b"default", b"do", b"echo", b"else", b"elseif",
    b"empty", b"enddeclare", b"endfor", b"endforeach", b"endif", b"endswitch", b"endwhile",
    b"enum", b"extends", b"false", b"final", b"finally", b"fn", b"for", b"foreach", b"function",
    b"global", b"goto", b"if", b"implements", b"include", b"include_once", b"instanceof",
    b"insteadof", b"interface", b"isset", b"list", b"match", b"namespace", b"new", b"null",
    b"or", b"php", b"print", b"private", b"protected", b"public", b"readonly", b"require",
    b"require_once", b"return", b"static", b"switch", b"throw", b"trait", b"true", b"try",
    b"unset", b"use", b"var", b"while", b"xor", b"yield",
];

#[rustfmt::skip]
const GO_WORDS: &[&[u8]] = &[
    b"break", b"case", b"chan", b"const", b"continue", b"default", b"defer", b"else",
    b"fallthrough", b"false", b"for", b"func", b"go", b"goto", b"if", b"import", b"interface",
    b"map", b"nil", b"package", b"range", b"return", b"select", b"struct", b"switch", b"true",
    b"type", b"var",
];

#[rustfmt::skip]
const RUST_WORDS: &[&[u8]] = &[
    b"Self", b"as", b"async", b"await", b"break", b"const", b"continue", b"crate", b"dyn",
    b"else", b"enum", b"extern", b"false", b"fn", b"for", b"if", b"impl", b"in", b"let",
    b"loop", b"match", b"mod", b"move", b"mut", b"pub", b"ref", b"return", b"self", b"static",
    b"struct", b"super", b"trait", b"true", b"type", b"unsafe", b"use", b"where", b"while",
];

/// Java, C#, Kotlin, Swift, Scala, JavaScript and TypeScript: their keywords together (a
/// keyword of one is rarely a name in another).
#[rustfmt::skip]
const JVM_JS_WORDS: &[&[u8]] = &[
    b"abstract", b"as", b"async", b"await", b"base", b"boolean", b"break", b"byte", b"case",
    b"catch", b"char", b"class", b"const", b"continue", b"def", b"default", b"delete", b"do",
    b"double", b"else", b"enum", b"export", b"extends", b"false", b"final", b"finally",
    b"float", b"for", b"from", b"fun", b"func", b"function", b"if", b"implements", b"import",
    b"in", b"instanceof", b"int", b"interface", b"is", b"let", b"long", b"namespace", b"new",
    b"null", b"object", b"override", b"package", b"private", b"protected", b"public", b"return",
    b"self", b"short", b"static", b"struct", b"super", b"switch", b"this", b"throw", b"throws",
    b"trait", b"true", b"try", b"typeof", b"val", b"var", b"void", b"when", b"while", b"with",
    b"yield",
];
