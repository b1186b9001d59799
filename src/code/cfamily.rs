//! C and C++: the names of definitions (buried in declarator chains: `int *(*f(void))[3]`),
//! prototypes told from definitions, `extern` variables as declarations, qualified names of
//! out-of-line members (`void ns::Foo::bar()` is `ns.Foo.bar`), functions defined by a
//! macro (`SYSCALL_DEFINE3(open, …)`). What tree-sitter reads of a file (attribute macros
//! and tangled conditionals blanked) is `cmask.rs`'s.

use tree_sitter::Node;

use super::lang_id::Lang;

/// Node kinds a C/C++ symbol may sit in without being a member of another symbol: the file,
/// preprocessor branches (a definition under `#ifdef` is still a definition), `extern "C"`
/// blocks, templates, and the declarations a `struct` with a body may be written in.
pub(super) fn transparent(lang: Lang, kind: &str) -> bool {
    let common = matches!(
        kind,
        "translation_unit"
            // A parse that recovers from an error keeps the definitions around it.
            | "ERROR"
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
    let (mut name, is_function) = declarator_name(declarator)?;
    if node.kind() == "function_definition"
        && let Some(defined) = macro_defined(node, declarator, &text)
    {
        name = defined;
    }
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
    if kind == "type" && names_its_tag(node, text(name), &text) {
        // `typedef enum memory_order {…} memory_order;`: one site, the enum's.
        return None;
    }
    Some((name, kind, owner))
}

/// Whether a `typedef` gives the struct, union or enum it defines (with a body) that
/// struct's own name.
fn names_its_tag<'t>(node: Node<'t>, name: &str, text: &impl Fn(Node) -> &'t str) -> bool {
    node.child_by_field_name("type").is_some_and(|ty| {
        ty.kind().ends_with("_specifier")
            && ty.child_by_field_name("body").is_some()
            && ty
                .child_by_field_name("name")
                .is_some_and(|n| text(n) == name)
    })
}

/// The name a function-defining macro gives its definition: `open` of `SYSCALL_DEFINE3(open,
/// …) {…}` (which the masking pass turned into `long _(open, …)`).
fn macro_defined<'t>(
    node: Node<'t>,
    mut declarator: Node<'t>,
    text: &impl Fn(Node) -> &'t str,
) -> Option<Node<'t>> {
    let first = text(node)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?;
    if !super::cmask_head::is_defining_macro(first.as_bytes()) {
        return None;
    }
    while declarator.kind() != "function_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    let param = declarator
        .child_by_field_name("parameters")?
        .named_child(0)?;
    Some(param.child_by_field_name("type").unwrap_or(param))
}

/// Whether a C/C++ variable is only declared: `extern struct task_struct init_task;` (no
/// initializer), or a declaration under `extern "C"` without braces.
pub(super) fn is_extern_declaration(node: Node, parent: Option<Node>, bytes: &[u8]) -> bool {
    if node.kind() != "declaration" {
        return false;
    }
    let mut cursor = node.walk();
    let mut children = node.children(&mut cursor);
    let is_extern = children
        .any(|c| c.kind() == "storage_class_specifier" && &bytes[c.byte_range()] == b"extern")
        || parent.is_some_and(|p| p.kind() == "linkage_specification");
    let initialized = node
        .children_by_field_name("declarator", &mut node.walk())
        .any(|d| d.kind() == "init_declarator");
    is_extern && !initialized
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
