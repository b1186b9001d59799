//! Whether a symbol's node is a declaration (a prototype, a signature) rather than a
//! definition, from the grammars' common names; and the files that hold only declarations
//! (TypeScript's `.d.ts`, Python's `.pyi` stubs).

use std::path::Path;

/// Whether the file at `path` holds only declarations by its name: TypeScript's declaration
/// files (`.d.ts`, `.d.mts`, `.d.cts`, `.d.tsx`) describe code that is defined elsewhere
/// (compiled JavaScript, the runtime), and so do Python's stubs (`.pyi`).
pub(crate) fn in_declaration_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    [".d.ts", ".d.mts", ".d.cts", ".d.tsx", ".pyi"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// Whether the definition at `node` (a symbol of `kind`) is a declaration without a body,
/// by the grammars' common names: a node with a `body` is a definition; without one, a
/// `*signature*` node (a trait's or an abstract method, a TypeScript overload), a
/// `*_specifier` (C/C++ `struct foo;`), a function or method `*_declaration` (Go's external
/// functions, Java's abstract methods), or a function declared by a statement ending in
/// `;` (a C prototype) is a declaration. So are a C/C++ `prototype` (a pure virtual method
/// too) and a Swift protocol's requirement (`protocol_function_declaration`…); Kotlin's
/// body is a `function_body` child, not a field. A Rust `mod name;` declares the module
/// whose file is `name.rs`. An Objective-C forward declaration in a header read as C
/// (`@class Plugin;`, `@protocol Bridge;`: a variable after an `@`) is one too.
pub(super) fn is_declaration(node: tree_sitter::Node, kind: &str, bytes: &[u8]) -> bool {
    if node.child_by_field_name("body").is_some() || node.child_by_field_name("value").is_some() {
        return false;
    }
    let mut cursor = node.walk();
    if node
        .named_children(&mut cursor)
        .any(|c| c.kind() == "function_body")
    {
        return false;
    }
    let node_kind = node.kind();
    let text = bytes[node.byte_range()].trim_ascii_end();
    if kind == "variable" && node.start_byte() > 0 && bytes[node.start_byte() - 1] == b'@' {
        return text.ends_with(b";");
    }
    let function = matches!(kind, "function" | "method");
    kind == "prototype"
        // Rust's `mod name;`: the module is the file it names.
        || node_kind == "mod_item"
        || (node_kind.starts_with("protocol_") && node_kind != "protocol_declaration")
        || node_kind.contains("signature")
        || node_kind.ends_with("_specifier")
        || (function && matches!(node_kind, "function_declaration" | "method_declaration"))
        || (function && node_kind.contains("declar") && text.ends_with(b";"))
}

/// The bytes of a line a reference shows (and looks at for a forward declaration).
pub const SHOWN_LINE: usize = 240;

/// The name a C or C++ forward declaration declares, when `line` (trimmed) is one:
/// `struct NAME;`, `union NAME;`, `enum NAME;`, `class NAME;`. Its use of NAME declares it
/// and is set aside by a reference search. Lines longer than [`SHOWN_LINE`] are never one.
pub fn forward_declared(line: &str) -> Option<&str> {
    if line.len() > SHOWN_LINE {
        return None;
    }
    let body = line.strip_suffix(';')?;
    let mut parts = body.split_whitespace();
    match (parts.next(), parts.next(), parts.next()) {
        (Some("struct" | "union" | "enum" | "class"), Some(n), None) => Some(n),
        _ => None,
    }
}

/// In C or C++ `bytes`: each forward declaration's name and the offset of its line's start
/// (the lines [`forward_declared`] names, read as a reference search reads them).
pub fn forward_declarations(bytes: &[u8]) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        let line = &bytes[start..end];
        let head = line.trim_ascii_start();
        let shaped = [&b"struct"[..], b"union", b"enum", b"class"]
            .iter()
            .any(|k| head.starts_with(k))
            && memchr::memchr(b';', line).is_some();
        if shaped
            && let Ok(text) = std::str::from_utf8(line)
            && let Some(name) = forward_declared(text.trim())
        {
            out.push((name, start));
        }
        start = end + 1;
    }
    out
}
