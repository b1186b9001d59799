//! What things of a file are called: the items (imports, exports, comments, directives) of a
//! skeleton, their kind and a short display name; and the symbol kinds that hold members and
//! the names that make a variable a constant.

use tree_sitter::Node;

use super::builder::{Builder, ItemCat};
use super::lang::Lang;

impl Builder<'_> {
    /// The kind and display name of an item.
    pub(super) fn describe(&self, node: Node, cat: ItemCat) -> (&'static str, String) {
        if let Some(described) = self.describe_b(node, cat) {
            return described;
        }
        let text = self.text(node);
        match cat {
            ItemCat::Import => self.describe_import(node, text),
            ItemCat::Export if node.kind() == "expression_statement" => {
                let left = node
                    .named_child(0)
                    .and_then(|a| a.child_by_field_name("left"))
                    .map_or(text, |l| self.text(l));
                ("commonjs-export", short(left))
            }
            ItemCat::Export => {
                let body = text.trim_start_matches("export").trim_start();
                if let Some(rest) = body.strip_prefix("default") {
                    ("default-export", short(rest.trim_end_matches(';')))
                } else if body.starts_with('*') || node.child_by_field_name("source").is_some() {
                    ("re-export", short(body.trim_end_matches(';')))
                } else {
                    ("named-export", short(body.trim_end_matches(';')))
                }
            }
            ItemCat::Comment => {
                let kind = if node.kind() == "expression_statement" {
                    "docstring"
                } else if text.starts_with("/**")
                    || text.starts_with("///")
                    || text.starts_with("//!")
                    || text.starts_with("/*!")
                {
                    "doc-comment"
                } else if text.starts_with("/*") {
                    "block-comment"
                } else {
                    "line-comment"
                };
                (kind, comment_title(text))
            }
            ItemCat::Directive => match node.kind() {
                "hash_bang_line" | "comment" => ("shebang", short(text)),
                "inner_attribute_item" => ("inner-attribute", short(text)),
                "package_clause" | "package_declaration" => (
                    "package",
                    short(
                        text.trim_start_matches("package")
                            .trim_start()
                            .trim_end_matches(';'),
                    ),
                ),
                "file_scoped_namespace_declaration" => (
                    "namespace",
                    short(
                        text.trim_start_matches("namespace")
                            .trim_start()
                            .trim_end_matches(';'),
                    ),
                ),
                _ => (
                    "directive",
                    short(text.trim_end_matches(';').trim_matches(['"', '\''])),
                ),
            },
        }
    }

    fn describe_import(&self, node: Node, text: &str) -> (&'static str, String) {
        let words = |skip: &str| short(text.trim_start_matches(skip).trim().trim_end_matches(';'));
        match (self.lang, node.kind()) {
            (_, "preproc_include") => ("include", words("#include")),
            (Lang::Java, "import_declaration") => ("import", words("import")),
            (_, "using_directive" | "using_declaration") => ("using", words("using")),
            (Lang::Bash, "command") => ("source", short(text)),
            (_, "import_statement") if matches!(self.lang, Lang::Python) => (
                "import",
                short(text.trim_start_matches("import").trim_start()),
            ),
            (_, "import_statement") => {
                let mut walk = node.walk();
                let clause = node
                    .named_children(&mut walk)
                    .find(|c| c.kind() == "import_clause");
                let Some(clause) = clause else {
                    return match node.child_by_field_name("source") {
                        Some(src) => ("side-effect-import", short(self.text(src))),
                        None => ("import", short(text.trim_start_matches("import"))),
                    };
                };
                let first = clause.named_child(0).map(|n| n.kind()).unwrap_or("");
                let kind = match first {
                    "named_imports" => "named-import",
                    "namespace_import" => "namespace-import",
                    _ => "default-import",
                };
                (kind, short(self.text(clause)))
            }
            (_, "import_from_statement") => (
                "from-import",
                short(text.trim_start_matches("from").trim_start()),
            ),
            (_, "future_import_statement") => (
                "future-import",
                short(text.trim_start_matches("from").trim_start()),
            ),
            (_, "use_declaration") => (
                "use",
                short(
                    node.child_by_field_name("argument")
                        .map(|a| self.text(a))
                        .unwrap_or(text),
                ),
            ),
            (_, "extern_crate_declaration") => ("extern-crate", short(text)),
            (_, "import_declaration") => {
                let mut paths = Vec::new();
                collect_kind(node, "import_spec", &mut |spec| {
                    paths.push(self.text(spec).to_string());
                });
                ("import", short(&paths.join(", ")))
            }
            (_, "lexical_declaration" | "variable_declaration") => {
                let name = node
                    .named_child(0)
                    .and_then(|d| d.child_by_field_name("name"))
                    .map(|n| self.text(n))
                    .unwrap_or(text);
                ("require", short(name))
            }
            _ => ("import", short(text)),
        }
    }
}

fn collect_kind<'t>(node: Node<'t>, kind: &str, f: &mut impl FnMut(Node<'t>)) {
    if node.kind() == kind {
        f(node);
        return;
    }
    let mut walk = node.walk();
    for child in node.named_children(&mut walk) {
        collect_kind(child, kind, f);
    }
}

/// Whitespace collapsed, cut at 80 characters.
pub(super) fn short(text: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX {
            let cut: String = out.chars().take(MAX).collect();
            return cut + "…";
        }
    }
    out
}

/// The first line of a comment's text without its markers.
fn comment_title(text: &str) -> String {
    let line = text
        .lines()
        .map(|l| {
            let l = l.trim().trim_end_matches("*/");
            let l = ["///", "//!", "//", "/**", "/*!", "/*", "*", "#"]
                .iter()
                .find_map(|m| l.strip_prefix(m))
                .unwrap_or(l);
            l.trim_matches(['"', '\'']).trim()
        })
        .find(|l| !l.is_empty())
        .unwrap_or("");
    short(line)
}
