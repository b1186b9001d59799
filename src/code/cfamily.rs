//! C and C++: the names of definitions (buried in declarator chains: `int *(*f(void))[3]`),
//! prototypes told from definitions, qualified names of out-of-line members
//! (`void ns::Foo::bar()` is `ns.Foo.bar`), and the masking of attribute macros
//! (`__alloc_size(1, 2)`, `__init`) that tree-sitter, which never runs the preprocessor,
//! would misread.

use std::borrow::Cow;

use tree_sitter::Node;

use super::lang_id::Lang;

/// Node kinds a C/C++ symbol may sit in without being a member of another symbol: the file,
/// preprocessor branches (a definition under `#ifdef` is still a definition), `extern "C"`
/// blocks, templates, and the declarations a `struct` with a body may be written in.
pub(super) fn transparent(lang: Lang, kind: &str) -> bool {
    let common = matches!(
        kind,
        "translation_unit"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "declaration"
            | "type_definition"
            | "field_declaration_list"
            | "field_declaration"
    );
    common
        || (lang == Lang::Cpp
            && matches!(
                kind,
                "linkage_specification" | "declaration_list" | "template_declaration"
            ))
}

/// Definitions that hold other symbols' definitions without owning them: a `typedef struct
/// foo {…} foo_t;` is the type `foo_t` and the struct `foo`, side by side.
pub(super) fn sees_through(kind: &str) -> bool {
    matches!(
        kind,
        "declaration" | "type_definition" | "field_declaration"
    )
}

/// Nodes the symbol query is started again below, so that definitions nested deep in
/// preprocessor branches and `extern "C"` blocks are reached.
pub(super) fn reopens(kind: &str) -> bool {
    matches!(
        kind,
        "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "namespace_definition"
    )
}

/// Whether a definition's range grows to its parent: a template to its `template <…>` line,
/// a struct with a body to the declaration or typedef it is written in.
pub(super) fn grows_into(node: Node, parent: Node) -> bool {
    match parent.kind() {
        "template_declaration" => true,
        "declaration" | "type_definition" | "field_declaration" => matches!(
            node.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        ),
        _ => false,
    }
}

/// The name, kind and qualifier of a C/C++ definition the query captured, or `None` when it
/// defines nothing worth a symbol (a data member, a macro call read as a prototype).
pub(super) fn name_of<'t>(
    node: Node<'t>,
    captured: Option<Node<'t>>,
    kind: &'static str,
    text: impl Fn(Node) -> &'t str,
) -> Option<(Node<'t>, &'static str, Option<String>)> {
    let declarator = match node.kind() {
        "function_definition" | "declaration" | "field_declaration" | "type_definition" => {
            node.child_by_field_name("declarator")?
        }
        _ => return Some((captured?, kind, None)),
    };
    let (name, is_function) = declarator_name(declarator)?;
    let kind = match node.kind() {
        "function_definition" if is_function => "function",
        "function_definition" => return None,
        "type_definition" => "type",
        _ if is_function => "prototype",
        "field_declaration" => return None,
        _ => "variable",
    };
    let (name, owner) = unqualify(name, &text);
    if kind != "function" && is_macro_like(text(name)) {
        // `EXPORT_SYMBOL(foo);`, `DEFINE_MUTEX(lock);`: macro calls read as declarations.
        return None;
    }
    Some((name, kind, owner))
}

/// The identifier a declarator chain declares, and whether it declares a function (its
/// nearest wrapper is a function declarator: `*f(void)` is a function, `(*f)(void)` a
/// pointer).
fn declarator_name(mut node: Node) -> Option<(Node, bool)> {
    let mut function = false;
    for _ in 0..32 {
        match node.kind() {
            "function_declarator" => function = true,
            "pointer_declarator"
            | "reference_declarator"
            | "array_declarator"
            | "init_declarator"
            | "attributed_declarator" => function = false,
            "parenthesized_declarator" => {}
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "operator_name"
            | "destructor_name"
            | "template_function"
            | "primitive_type" => {
                return Some((node, function));
            }
            "operator_cast" => return Some((node, true)),
            _ => return None,
        }
        node = node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))?;
    }
    None
}

/// `ns::Foo::bar` → (`bar`, `ns.Foo`); `f<int>` → `f`; any other name as it is.
fn unqualify<'t>(
    mut name: Node<'t>,
    text: &impl Fn(Node) -> &'t str,
) -> (Node<'t>, Option<String>) {
    let mut scopes: Vec<&str> = Vec::new();
    for _ in 0..32 {
        match name.kind() {
            "qualified_identifier" => {
                if let Some(scope) = name.child_by_field_name("scope") {
                    let scope = match scope.kind() {
                        "template_type" => scope.child_by_field_name("name").unwrap_or(scope),
                        _ => scope,
                    };
                    scopes.push(text(scope));
                }
                match name.child_by_field_name("name") {
                    Some(inner) => name = inner,
                    None => break,
                }
            }
            "template_function" => match name.child_by_field_name("name") {
                Some(inner) => name = inner,
                None => break,
            },
            _ => break,
        }
    }
    let owner = (!scopes.is_empty()).then(|| scopes.join("."));
    (name, owner)
}

/// All capitals, digits and underscores: a macro's name by convention.
fn is_macro_like(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The bytes tree-sitter parses for a C/C++ file: attribute macros (`__alloc_size(1, 2)`,
/// `__init`, `__must_check`…) blanked out, newlines kept, so that every byte and line keeps
/// its place and the declarations around them parse. Preprocessor lines are left as they
/// are (`#define __init …` still defines `__init`). Other text is returned unchanged.
pub(crate) fn mask_attributes(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let (mut i, n) = (0, bytes.len());
    let mut line_start = true;
    let mut directive = false;
    while i < n {
        let b = bytes[i];
        if b == b'\n' {
            directive &= i > 0 && bytes[i - 1] == b'\\';
            line_start = true;
            i += 1;
            continue;
        }
        if line_start && !b.is_ascii_whitespace() {
            directive = b == b'#';
            line_start = false;
        }
        if !(b == b'_' || b.is_ascii_alphabetic()) {
            i += 1;
            continue;
        }
        let end = i + bytes[i..]
            .iter()
            .position(|&c| !(c == b'_' || c.is_ascii_alphanumeric()))
            .unwrap_or(n - i);
        let word = &bytes[i..end];
        let stop = match attribute_macro(word) {
            Some(args) if !directive => end + if args { call_len(&bytes[end..]) } else { 0 },
            _ => {
                i = end;
                continue;
            }
        };
        let masked = out.get_or_insert_with(|| bytes.to_vec());
        for c in &mut masked[i..stop] {
            if !matches!(*c, b'\n' | b'\r') {
                *c = b' ';
            }
        }
        i = stop;
    }
    out.map_or(Cow::Borrowed(bytes), Cow::Owned)
}

/// The length of `(…)` (balanced, at most 512 bytes) after optional blanks, or 0.
fn call_len(rest: &[u8]) -> usize {
    let open = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    if rest.get(open) != Some(&b'(') {
        return 0;
    }
    let mut depth = 0usize;
    for (k, &c) in rest.iter().enumerate().skip(open).take(512) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            b';' | b'{' | b'}' => return 0,
            _ => {}
        }
    }
    0
}

/// The attribute macros masked before parsing that take arguments (the Linux kernel's, from
/// include/linux/compiler*.h and friends).
const ATTRIBUTES_WITH_ARGUMENTS: &[&[u8]] = &[
    b"__alloc_size",
    b"__realloc_size",
    b"__printf",
    b"__scanf",
    b"__section",
    b"__aligned",
    b"__assume_aligned",
    b"__acquires",
    b"__releases",
    b"__must_hold",
    b"__cond_acquires",
    b"__diagnose_as",
    b"__counted_by",
];

/// The attribute macros masked before parsing that stand alone (`__init`, `__must_check`…).
const BARE_ATTRIBUTES: &[&[u8]] = &[
    b"__init",
    b"__exit",
    b"__initdata",
    b"__initconst",
    b"__exitdata",
    b"__ref",
    b"__refdata",
    b"__meminit",
    b"__init_or_module",
    b"__must_check",
    b"__weak",
    b"__always_inline",
    b"noinline",
    b"__noinline",
    b"__visible",
    b"asmlinkage",
    b"notrace",
    b"noinstr",
    b"__cold",
    b"__hot",
    b"__pure",
    b"__malloc",
    b"__maybe_unused",
    b"__always_unused",
    b"__used",
    b"__noreturn",
    b"__iomem",
    b"__user",
    b"__force",
    b"__rcu",
    b"__percpu",
    b"__kernel",
    b"__bitwise",
    b"__attribute_const__",
    b"__latent_entropy",
    b"__ro_after_init",
    b"__read_mostly",
    b"__cacheline_aligned",
    b"__cacheline_aligned_in_smp",
    b"__randomize_layout",
    b"__packed",
    b"__flatten",
    b"__naked",
    b"__nocfi",
    b"__cpuidle",
    b"__sched",
    b"__lockfunc",
    b"__irq_entry",
    b"__kprobes",
    b"nokprobe_inline",
    b"__deprecated",
    b"__nonstring",
    b"__no_kcsan",
    b"__no_sanitize_address",
    b"__assume_kmalloc_alignment",
    b"__assume_slab_alignment",
    b"__assume_page_alignment",
];

/// `Some(takes_arguments)` for the attribute macros masked before parsing.
fn attribute_macro(word: &[u8]) -> Option<bool> {
    if word.len() < 5 {
        return None;
    }
    if ATTRIBUTES_WITH_ARGUMENTS.contains(&word) {
        Some(true)
    } else if BARE_ATTRIBUTES.contains(&word) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::mask_attributes;

    #[test]
    fn attribute_macros_are_blanked_in_place() {
        let src = b"static inline __alloc_size(1, 2) void *f(size_t n)\n#define __init x\nint __init g(void);\n";
        let masked = mask_attributes(src);
        assert_eq!(masked.len(), src.len());
        assert_eq!(
            std::str::from_utf8(&masked).unwrap(),
            "static inline                    void *f(size_t n)\n#define __init x\nint        g(void);\n"
        );
        assert!(matches!(
            mask_attributes(b"int f(void);"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
