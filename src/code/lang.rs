//! The languages `file_read` parses: detection by file extension, the tree-sitter grammar of
//! each (one Cargo feature per grammar) and its symbol query, compiled once and reused.

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use super::cfamily;

pub use super::lang_id::{ALL, Lang};

impl Lang {
    /// The language of a file by its extension, if its grammar is built in.
    pub fn from_path(path: &Path) -> Option<Lang> {
        if let Some(lang) = super::lang_b::from_file_name(path) {
            return lang.enabled().then_some(lang);
        }
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        let lang = match ext.as_str() {
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "go" => Lang::Go,
            // `.h` by its path alone is C; its content tells C++ (`Lang::of_file`).
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" | "tcc"
            | "txx" | "inl" | "cppm" | "ixx" => Lang::Cpp,
            "java" => Lang::Java,
            "cs" => Lang::CSharp,
            "sh" | "bash" | "ksh" | "zsh" | "bats" => Lang::Bash,
            _ => super::lang_b::from_extension(&ext)?,
        };
        lang.enabled().then_some(lang)
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Java => "java",
            Lang::CSharp => "csharp",
            Lang::Bash => "bash",
            Lang::Kotlin => "kotlin",
            Lang::Ruby => "ruby",
            Lang::Php => "php",
            Lang::Swift => "swift",
            Lang::Scala => "scala",
        }
    }

    /// The file extensions parsed as this language, for messages.
    pub fn extensions(self) -> &'static str {
        match self {
            Lang::TypeScript => ".ts/.mts/.cts",
            Lang::Tsx => ".tsx",
            Lang::JavaScript => ".js/.jsx/.mjs/.cjs",
            Lang::Rust => ".rs",
            Lang::Python => ".py/.pyi",
            Lang::Go => ".go",
            Lang::C => ".c/.h",
            Lang::Cpp => ".cc/.cpp/.cxx/.hpp/.hh/.hxx/.ipp/.tcc",
            Lang::Java => ".java",
            Lang::CSharp => ".cs",
            Lang::Bash => ".sh/.bash/.ksh/.zsh",
            Lang::Kotlin => ".kt/.kts",
            Lang::Ruby => ".rb/.rake/.gemspec",
            Lang::Php => ".php",
            Lang::Swift => ".swift",
            Lang::Scala => ".scala/.sc",
        }
    }

    /// Whether this build has the language's grammar (its Cargo feature).
    pub fn enabled(self) -> bool {
        self.grammar().is_some()
    }

    fn grammar(self) -> Option<Language> {
        match self {
            #[cfg(feature = "lang-typescript")]
            Lang::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            #[cfg(feature = "lang-typescript")]
            Lang::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            #[cfg(feature = "lang-javascript")]
            Lang::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            #[cfg(feature = "lang-rust")]
            Lang::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
            #[cfg(feature = "lang-python")]
            Lang::Python => Some(tree_sitter_python::LANGUAGE.into()),
            #[cfg(feature = "lang-go")]
            Lang::Go => Some(tree_sitter_go::LANGUAGE.into()),
            #[cfg(feature = "lang-c")]
            Lang::C => Some(tree_sitter_c::LANGUAGE.into()),
            #[cfg(feature = "lang-cpp")]
            Lang::Cpp => Some(tree_sitter_cpp::LANGUAGE.into()),
            #[cfg(feature = "lang-java")]
            Lang::Java => Some(tree_sitter_java::LANGUAGE.into()),
            #[cfg(feature = "lang-csharp")]
            Lang::CSharp => Some(tree_sitter_c_sharp::LANGUAGE.into()),
            #[cfg(feature = "lang-bash")]
            Lang::Bash => Some(tree_sitter_bash::LANGUAGE.into()),
            #[cfg(feature = "lang-kotlin")]
            Lang::Kotlin => Some(tree_sitter_kotlin_ng::LANGUAGE.into()),
            #[cfg(feature = "lang-ruby")]
            Lang::Ruby => Some(tree_sitter_ruby::LANGUAGE.into()),
            #[cfg(feature = "lang-php")]
            Lang::Php => Some(tree_sitter_php::LANGUAGE_PHP.into()),
            #[cfg(feature = "lang-swift")]
            Lang::Swift => Some(tree_sitter_swift::LANGUAGE.into()),
            #[cfg(feature = "lang-scala")]
            Lang::Scala => Some(tree_sitter_scala::LANGUAGE.into()),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    fn query_source(self) -> &'static str {
        match self {
            Lang::TypeScript | Lang::Tsx => include_str!("queries/typescript.scm"),
            Lang::JavaScript => include_str!("queries/javascript.scm"),
            Lang::Rust => include_str!("queries/rust.scm"),
            Lang::Python => include_str!("queries/python.scm"),
            Lang::Go => include_str!("queries/go.scm"),
            Lang::C => include_str!("queries/c.scm"),
            Lang::Cpp => include_str!("queries/cpp.scm"),
            Lang::Java => include_str!("queries/java.scm"),
            Lang::CSharp => include_str!("queries/csharp.scm"),
            Lang::Bash => include_str!("queries/bash.scm"),
            Lang::Kotlin => include_str!("queries/kotlin.scm"),
            Lang::Ruby => include_str!("queries/ruby.scm"),
            Lang::Php => include_str!("queries/php.scm"),
            Lang::Swift => include_str!("queries/swift.scm"),
            Lang::Scala => include_str!("queries/scala.scm"),
        }
    }

    /// The grammar and compiled query of an enabled language (compiled on first use, then
    /// shared by every thread).
    pub(crate) fn compiled(self) -> Option<&'static Compiled> {
        static CELLS: [OnceLock<Option<Compiled>>; ALL.len()] =
            [const { OnceLock::new() }; ALL.len()];
        let slot = ALL
            .iter()
            .position(|l| *l == self)
            .expect("listed language");
        CELLS[slot]
            .get_or_init(|| {
                let language = self.grammar()?;
                let query = Query::new(&language, self.query_source()).unwrap_or_else(|e| {
                    panic!("the built-in {} query does not compile: {e}", self.name())
                });
                Some(Compiled::new(language, query))
            })
            .as_ref()
    }

    /// Node kinds a kept symbol may sit in without being a member of another symbol: the
    /// file's root, export wrappers, declaration lists and bodies of containers.
    pub(crate) fn transparent(self, kind: &str) -> bool {
        match self {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => matches!(
                kind,
                "program"
                    | "export_statement"
                    | "class_body"
                    | "class"
                    | "lexical_declaration"
                    | "variable_declaration"
                    | "expression_statement"
                    | "statement_block"
                    | "ambient_declaration"
                    | "internal_module"
                    | "module"
                    // `module.exports = {…}`, `req.get = req.header = function…`, and
                    // object literals bound to a name.
                    | "assignment_expression"
                    | "object"
                    // A definition under a top-level `if` or `try` (a fallback, a
                    // per-environment variant) is the module's.
                    | "if_statement"
                    | "else_clause"
                    | "try_statement"
                    | "catch_clause"
                    | "finally_clause"
            ),
            Lang::Rust => matches!(kind, "source_file" | "declaration_list"),
            // Definitions under `if`/`try` (platform and fallback variants) are the module's
            // or the class's.
            Lang::Python => matches!(
                kind,
                "module"
                    | "block"
                    | "decorated_definition"
                    | "expression_statement"
                    | "if_statement"
                    | "elif_clause"
                    | "else_clause"
                    | "try_statement"
                    | "except_clause"
                    | "finally_clause"
            ),
            Lang::Go => matches!(
                kind,
                "source_file"
                    | "type_declaration"
                    | "const_declaration"
                    | "var_declaration"
                    | "var_spec_list"
            ),
            Lang::C | Lang::Cpp => cfamily::transparent(self, kind),
            Lang::Java => matches!(
                kind,
                "program"
                    | "class_body"
                    | "interface_body"
                    | "enum_body"
                    | "enum_body_declarations"
                    | "annotation_type_body"
            ),
            // A method's body holds its local functions; top-level statements (C# 9) their own.
            Lang::CSharp => matches!(
                kind,
                "compilation_unit" | "declaration_list" | "block" | "global_statement"
            ),
            Lang::Bash => bash_transparent(kind),
            Lang::Kotlin | Lang::Ruby | Lang::Php | Lang::Swift | Lang::Scala => {
                super::lang_b::transparent(self, kind)
            }
        }
    }

    /// Structural node kinds the symbol query starts again below (C/C++ preprocessor
    /// branches and blocks, the `if` and `try` of Python and JavaScript, which nest deeper
    /// than the query's start depth).
    pub(crate) fn reopens(self, kind: &str) -> bool {
        match self {
            Lang::C | Lang::Cpp => cfamily::reopens(kind),
            Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
                matches!(kind, "if_statement" | "try_statement")
            }
            // Shell's control structures nest without bound, and a function defined in any of
            // them is a function: `if …; then f() {…}; fi`, `have x && { f() {…}; }`.
            Lang::Bash => kind != "program" && bash_transparent(kind),
            _ => self.is_b() && super::lang_b::reopens(self, kind),
        }
    }

    /// Node kinds of definitions whose bodies hold member symbols.
    pub(crate) fn is_container_node(self, kind: &str) -> bool {
        match self {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => matches!(
                kind,
                "class_declaration"
                    | "abstract_class_declaration"
                    | "interface_declaration"
                    | "variable_declarator"
            ),
            Lang::Rust => matches!(kind, "impl_item" | "trait_item" | "mod_item"),
            Lang::Python => kind == "class_definition",
            Lang::Go => false,
            // A function defined in a function's body is one of its members.
            Lang::Bash => kind == "function_definition",
            Lang::C | Lang::Cpp => matches!(
                kind,
                "class_specifier" | "struct_specifier" | "union_specifier" | "namespace_definition"
            ),
            Lang::Java => matches!(
                kind,
                "class_declaration"
                    | "interface_declaration"
                    | "enum_declaration"
                    | "record_declaration"
                    | "annotation_type_declaration"
            ),
            // Methods, constructors and local functions hold the local functions declared in
            // their bodies (`bool TryDecode(...) {…}` in a method).
            Lang::CSharp => matches!(
                kind,
                "namespace_declaration"
                    | "class_declaration"
                    | "struct_declaration"
                    | "interface_declaration"
                    | "record_declaration"
                    | "method_declaration"
                    | "constructor_declaration"
                    | "destructor_declaration"
                    | "operator_declaration"
                    | "local_function_statement"
            ),
            Lang::Kotlin | Lang::Ruby | Lang::Php | Lang::Swift | Lang::Scala => {
                super::lang_b::is_container_node(self, kind)
            }
        }
    }

    /// Comment node kinds (doc comments above a symbol belong to it).
    pub(crate) fn is_comment(self, kind: &str) -> bool {
        matches!(kind, "comment" | "line_comment" | "block_comment")
            // Swift's `/* */`
            || kind == "multiline_comment"
    }

    /// Node kinds that prefix a symbol and belong to it (decorators, attributes).
    pub(crate) fn is_prefix(self, kind: &str) -> bool {
        matches!(kind, "decorator" | "attribute_item")
    }
}

/// A language's grammar and query with the indexes of its captures.
pub(crate) struct Compiled {
    pub language: Language,
    pub query: Query,
    pub name: Option<u32>,
    pub import: Option<u32>,
    pub export: Option<u32>,
    pub comment: Option<u32>,
    pub directive: Option<u32>,
    /// `(capture index, kind)` of every `@definition.KIND` capture.
    pub definitions: Vec<(u32, &'static str)>,
}

impl Compiled {
    fn new(language: Language, query: Query) -> Compiled {
        let index = |name: &str| query.capture_index_for_name(name);
        let definitions = query
            .capture_names()
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let kind = name.strip_prefix("definition.")?;
                Some((i as u32, intern_kind(kind)))
            })
            .collect();
        Compiled {
            name: index("name"),
            import: index("import"),
            export: index("export"),
            comment: index("comment"),
            directive: index("directive"),
            definitions,
            language,
            query,
        }
    }
}

/// The symbol kinds of every language but those of [`super::lang_b::KINDS`] (the queries'
/// capture suffixes).
const KINDS: [&str; 21] = [
    "function",
    "method",
    "class",
    "interface",
    "type",
    "enum",
    "namespace",
    "module",
    "property",
    "variable",
    "constant",
    "struct",
    "union",
    "trait",
    "impl",
    "static",
    "macro",
    "field",
    "prototype",
    "constructor",
    "record",
];

/// Every symbol kind a structure may hold.
pub fn symbol_kinds() -> impl Iterator<Item = &'static str> {
    KINDS.iter().chain(super::lang_b::KINDS.iter()).copied()
}

/// Symbol kinds as static strings.
fn intern_kind(kind: &str) -> &'static str {
    symbol_kinds()
        .find(|k| *k == kind)
        .unwrap_or_else(|| panic!("symbol kind {kind:?} is not listed in KINDS"))
}

/// Symbol kinds whose members are symbols too.
pub(super) fn is_container(lang: Lang, kind: &str) -> bool {
    matches!(
        kind,
        "class"
            | "interface"
            | "namespace"
            | "module"
            | "impl"
            | "trait"
            | "struct"
            | "union"
            | "enum"
            | "record"
    ) || (lang == Lang::Bash && kind == "function")
        || super::lang_b::is_container_kind(lang, kind)
}

/// Shell's nodes a function or variable definition may sit in without belonging to another
/// symbol: the file, lists (`f() {…} && complete -F f f`), groups, subshells, conditionals,
/// loops, `export`/`readonly`/`declare`, a function's body, and the error a parse recovers
/// from (the rest of the file is still read).
fn bash_transparent(kind: &str) -> bool {
    matches!(
        kind,
        "program"
            | "ERROR"
            | "list"
            | "pipeline"
            | "negated_command"
            | "redirected_statement"
            | "compound_statement"
            | "subshell"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "case_statement"
            | "case_item"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "do_group"
            | "declaration_command"
            | "variable_assignments"
    )
}

/// `MAX_RETRIES`, `API_URL`: all capitals, digits and underscores, with a letter.
pub(super) fn is_constant_name(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}
