//! Which lines could define a name: the cheap test that picks the files worth parsing.
//!
//! A name used in thousands of files (`kfree`, `ARRAY_SIZE`) is defined in a few. Grep has
//! already read every line that holds it as a whole word; a line can only hold a definition
//! when the name stands where definitions put it:
//! - after a definition keyword (`fn`, `def`, `class`, `struct … {`, `#define`, `macro_rules!`…)
//!   or on a line that opens with one or with a modifier (`pub`, `static`, `public`, `export`…);
//! - after a type and before `(` (`void *kmalloc_array(`, `List<T> add(`), or after `::`/`~`;
//! - at the start of a statement and before `(` on a line that does not end the call (`start()
//!   {`, `foo() {`), or before `=`/`:` (a constant, a field); at column 0 before `(` (a C return
//!   type on the line above);
//! - after the `}` that closes a `typedef struct`.
//!
//! Calls (`kfree(p);`, `x = f(a)`, `return f(a)`, `obj.f(a)`, `new F(a)`) and uses
//! (`struct task_struct *p`) do not qualify. The test errs on the side of a line: a false
//! positive costs one file's parse, a false negative a definition; the lookup parses every
//! file holding the word when none of the likely ones defines it.

use crate::code::Lang;

/// Words after which the name is being defined.
const DEFINING: &[&str] = &[
    "fn",
    "def",
    "func",
    "function",
    "fun",
    "class",
    "interface",
    "trait",
    "type",
    "module",
    "object",
    "record",
    "namespace",
    "impl",
    "val",
    "var",
    "let",
    "const",
    "static",
    "typealias",
    "protocol",
    "extension",
    "actor",
    "alias",
    "typedef",
    "define",
    "macro_rules!",
    "mod",
    "sub",
    "delegate",
    "event",
    "concept",
    "using",
];

/// Words a definition's line may open with besides [`DEFINING`]'s: its modifiers, and the
/// keywords of a type with a body.
const OPENING: &[&str] = &[
    "pub",
    "pub(crate)",
    "export",
    "public",
    "private",
    "protected",
    "internal",
    "async",
    "abstract",
    "final",
    "override",
    "open",
    "inline",
    "extern",
    "virtual",
    "unsafe",
    "default",
    "sealed",
    "data",
    "template",
    "enum",
    "struct",
    "union",
    "case",
    "lazy",
    "implicit",
    "readonly",
    "get",
    "set",
    "partial",
    "mutating",
    "@objc",
    "constexpr",
    "explicit",
    "friend",
];

/// Words after which a name followed by `(` is called, not defined.
const CALLING: &[&str] = &[
    "return", "else", "case", "new", "throw", "yield", "await", "sizeof", "typeof", "goto", "do",
    "in", "of", "delete", "not", "and", "or", "is", "as", "if", "while", "for", "switch", "assert",
    "print", "echo", "raise", "puts", "alignof", "decltype", "go", "defer",
];

/// Whether `line` could hold a definition of `name` (a whole word in it somewhere) in a file
/// of `lang`.
pub fn could_define(line: &str, name: &str, lang: Lang) -> bool {
    if name.is_empty() {
        return false;
    }
    // A preprocessor line defines only the macro it names (`#define NAME`), whatever it uses.
    let directive = line.trim_start().starts_with('#');
    let opens_with_keyword = line
        .split_whitespace()
        .next()
        .map(|w| w.trim_end_matches(':'))
        .is_some_and(|w| OPENING.contains(&w) || DEFINING.contains(&w));
    let mut from = 0;
    while let Some(i) = line[from..].find(name) {
        let at = from + i;
        let end = at + name.len();
        from = end;
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if word(line[..at].chars().next_back()) || word(line[end..].chars().next()) {
            continue;
        }
        if directive {
            let pre = line[..at].trim_end();
            if pre.trim_start_matches(['#', ' ', '\t']).trim_start() == "define"
                || pre.ends_with("#define")
            {
                return true;
            }
            continue;
        }
        // C has no methods: an indented `name(…) {` is a statement macro
        // (`list_for_each_entry(pos, head, member) {`), never a definition.
        let indented_headers = lang != Lang::C;
        if defines_here(
            &line[..at],
            &line[end..],
            opens_with_keyword,
            indented_headers,
        ) || (lang == Lang::Cpp && bare_header(&line[..at], &line[end..]))
        {
            return true;
        }
    }
    false
}

/// C++ written with the return type and template head on lines of their own (`template<…>` /
/// `inline void` / `    sort(_It __first, _It __last)` / `{`): an indented name that opens a
/// line, followed by its parameters, with no statement's end (`;`) on the line. A call spread
/// over lines passes too; it costs a parse, not a site.
fn bare_header(pre: &str, post: &str) -> bool {
    let end = post.trim_end();
    pre.trim().is_empty()
        && post.starts_with('(')
        && (end.ends_with(')') || end.ends_with(',') || end.ends_with("const"))
        && !end.contains(';')
}

/// The occurrence between `pre` and `post` stands where a definition puts its name.
fn defines_here(
    pre: &str,
    post: &str,
    opens_with_keyword: bool,
    indented_definitions: bool,
) -> bool {
    let post = post.trim_start();
    let before = pre.trim_end();
    let last_word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .next()
        .unwrap_or("");
    let last_word = last_word.trim_start_matches('#');
    // `struct NAME {`, `enum NAME<T>: P`, `union NAME` with its body (not a use of the type).
    if matches!(last_word, "struct" | "union" | "enum") {
        let post = without_generics(post);
        return post.is_empty()
            || post.starts_with("where")
            || post.starts_with('{')
            || post.starts_with(':')
            || post.starts_with("final");
    }
    if DEFINING.contains(&last_word) || before.ends_with("::") || before.ends_with('~') {
        return true;
    }
    // `} NAME;`: the end of a `typedef struct { … } NAME;`.
    if before.ends_with('}') {
        return true;
    }
    let calls = post.starts_with('(') || post.starts_with('<');
    if before.is_empty() {
        // At the start of a line: C's name under its return type (column 0, not a call
        // statement `f(a);`); indented, a method's header (`start(): void {`, `foo(a) {`,
        // `constructor(` with its parameters below, `deploy()`), not an argument or a call
        // spread over lines (`f(a),`).
        let end = post.trim_end();
        let header = if pre.is_empty() {
            !end.ends_with(';')
        } else if !indented_definitions {
            false
        } else {
            end.ends_with('{') || end.ends_with("=>") || end.ends_with('(') || end == "()"
        };
        // A constant or a field (`MAX = 3`, `name: string`): in C only at file scope (an
        // indented `x = …` is an assignment, `label:` a label).
        let assigned = (post.starts_with('=') && !post.starts_with("=="))
            || (post.starts_with(':') && !post.starts_with("::"));
        return (calls && header)
            || (assigned && (indented_definitions || pre.is_empty()))
            || opens_with_keyword;
    }
    if calls {
        // After a type (`void *f(`, `List<T> f(`, `int[] f(`), not after a calling word.
        let typed = before
            .ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '*' | '&' | '>' | ']'))
            && !before.ends_with("->");
        // A receiver: Go's `func (r *T) Name(`, Kotlin's `fun String.name(`, Ruby's
        // `def self.name(`.
        let receiver = opens_with_keyword && before.ends_with([')', '.']);
        return (typed || receiver) && !CALLING.contains(&last_word);
    }
    // A variable, a field, a property: after a modifier-led line's type or after a type
    // (`public int Count {`, `static int x =`, `int limit = 4;`, `private $name;`), not a
    // parameter (`f(struct inode *inode, …`); in C at file scope only.
    // (An attribute macro may stand between: `*cachep __ro_after_init;`.)
    let declared = post.is_empty()
        || post.starts_with(['=', ';', '{', '['])
        || post.starts_with("__")
        || (post.starts_with(':') && !post.starts_with("::"));
    let typed =
        before.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '*' | '>' | ']'));
    let indented = pre.starts_with(char::is_whitespace);
    (opens_with_keyword || typed)
        && declared
        && (indented_definitions || !indented)
        && !post.starts_with("==")
        && !CALLING.contains(&last_word)
        && !before.ends_with(['.', '=', '(', ','])
        && !before.ends_with("->")
}

/// `post` after the generic parameter list it opens with (`<K, V: Ord<K>>`), blanks
/// trimmed; `post` itself when it opens with none or the list does not close on the line.
fn without_generics(post: &str) -> &str {
    if !post.starts_with('<') {
        return post;
    }
    let mut depth = 0usize;
    for (i, c) in post.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return post[i + 1..].trim_start();
                }
            }
            _ => {}
        }
    }
    post
}

#[cfg(test)]
mod tests {
    use super::could_define;
    use crate::code::Lang;

    #[test]
    fn c_statement_macros_and_parameters_do_not() {
        for (line, name) in [
            (
                "\tlist_for_each_entry(pos, head, member) {",
                "list_for_each_entry",
            ),
            (
                "static int show(struct inode *inode, struct file *file)",
                "inode",
            ),
            ("\tstruct inode *inode = file_inode(file);", "inode"),
            ("\t\tinode = d_inode(dentry);", "inode"),
        ] {
            assert!(
                !could_define(line, name, Lang::C),
                "{line:?} only uses {name}"
            );
        }
        for (line, name) in [
            (
                "#define list_for_each_entry(pos, head, member)\t\\",
                "list_for_each_entry",
            ),
            ("struct inode {", "inode"),
            (
                "static struct kmem_cache *inode_cachep __ro_after_init;",
                "inode_cachep",
            ),
            (
                "int sysctl_vfs_cache_pressure = 100;",
                "sysctl_vfs_cache_pressure",
            ),
        ] {
            assert!(could_define(line, name, Lang::C), "{line:?} defines {name}");
        }
    }

    #[test]
    fn definitions_qualify() {
        for (line, name) in [
            (
                "static inline __alloc_size(1, 2) void *kmalloc_array(size_t n, size_t size, gfp_t flags)",
                "kmalloc_array",
            ),
            ("void kfree(const void *objp)", "kfree"),
            ("kfree(const void *objp)", "kfree"),
            (
                "#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))",
                "ARRAY_SIZE",
            ),
            (
                "# define container_of(ptr, type, member) ({",
                "container_of",
            ),
            ("struct task_struct {", "task_struct"),
            ("struct task_struct", "task_struct"),
            ("} pair_t;", "pair_t"),
            ("typedef unsigned int gfp_t;", "gfp_t"),
            ("pub fn parse(&self) -> bool {", "parse"),
            ("    pub(crate) fn parse(&self) {", "parse"),
            ("macro_rules! ensure {", "ensure"),
            ("def run(self):", "run"),
            ("    async def run(self):", "run"),
            ("func (r *Reader) Read(p []byte) (int, error) {", "Read"),
            ("type Reader struct {", "Reader"),
            ("    MaxSize = 10", "MaxSize"),
            ("  start(): void {", "start"),
            ("  async start() {", "start"),
            ("export function boot(): App {", "boot"),
            ("    public void add(int x) {", "add"),
            ("    public List<String> names() {", "names"),
            ("    public int Count { get; }", "Count"),
            ("void Foo::bar() {", "bar"),
            ("Foo::~Foo() {", "Foo"),
            ("fun String.slugify(): String =", "slugify"),
            ("  def self.build(attrs)", "build"),
            ("  object Companion {", "Companion"),
            ("deploy() {", "deploy"),
            ("  constructor(", "constructor"),
            ("    handle(req, res) {", "handle"),
            ("function deploy {", "deploy"),
            ("    private $name;", "name"),
            ("extension Circle {", "Circle"),
            ("MAX_RETRIES = 3", "MAX_RETRIES"),
            ("public struct Wrapper<T> {", "Wrapper"),
            ("struct Pair<K, V: Ord<K>>: Codable {", "Pair"),
            ("pub enum Tree<T> where T: Ord {", "Tree"),
        ] {
            let lang = if line.contains("fn ") {
                Lang::Rust
            } else {
                Lang::TypeScript
            };
            assert!(could_define(line, name, lang), "{line:?} defines {name}");
        }
    }

    #[test]
    fn cpp_headers_under_their_return_type_qualify() {
        for (line, name) in [
            ("    sort(_Iter __first, _Iter __last)", "sort"),
            ("      merge(_Iter __first, _Iter __last,", "merge"),
            ("    size() const", "size"),
        ] {
            assert!(
                could_define(line, name, Lang::Cpp),
                "{line:?} defines {name}"
            );
        }
        assert!(!could_define(
            "    sort(v.begin(), v.end());",
            "sort",
            Lang::Cpp
        ));
        assert!(!could_define("    sort(a, b)", "sort", Lang::Python));
    }

    #[test]
    fn calls_and_uses_do_not() {
        for (line, name) in [
            ("\tkfree(p);", "kfree"),
            ("\tif (p) kfree(p);", "kfree"),
            ("\treturn kfree(p);", "kfree"),
            ("\tx = kmalloc_array(n, size, GFP_KERNEL);", "kmalloc_array"),
            ("\tstruct task_struct *p = current;", "task_struct"),
            ("static void put(struct task_struct *t)", "task_struct"),
            ("\tfor (i = 0; i < ARRAY_SIZE(tbl); i++)", "ARRAY_SIZE"),
            ("        list.add(x);", "add"),
            ("        Foo f = new Foo(1);", "Foo"),
            ("    self.run()", "run"),
            ("\tcall_rcu(&p->rcu, kfree);", "kfree"),
            ("\tp->ops->release(p);", "release"),
            ("#define NR_SLOTS ARRAY_SIZE(slots)", "ARRAY_SIZE"),
            ("#ifdef CONFIG_KFREE", "CONFIG_KFREE"),
            ("\t\t\t\t   ARRAY_SIZE(modes),", "ARRAY_SIZE"),
            ("\t\tkfree(p))", "kfree"),
        ] {
            assert!(
                !could_define(line, name, Lang::Java),
                "{line:?} only uses {name}"
            );
        }
    }
}
