//! What a lookup name may be, checked before anything runs: an identifier, or an identifier
//! qualified as some language writes it (`Parser.parse`, `Foo::new`, `Set#add`,
//! `java.util.ArrayList.add`, `Symfony\Component\HttpFoundation\Request`, `std::vector`),
//! or an operator name where a language has one (Scala's `::`, Ruby's `<=>` and `[]=`,
//! C++'s `operator+`, `Matrix#*`). Anything else (`(`, `;`, `*` alone, a sentence, a
//! megabyte) is refused at once, in words that say what a name is.
//!
//! Components are separated by `.`, `::`, `#` (Ruby's and Javadoc's instance methods) and
//! `\` (PHP namespaces); a leading separator (`::Foo`, `\App\User`) names the global scope
//! and is dropped. A component is an identifier (letters, digits, `_`, `$`; `-` inside, as
//! shell functions have it; Ruby's `?`, `!` or `=` at the end; `@`/`@@`/`$` in front), a
//! name in backticks (Kotlin, Scala, Swift), or, last, an operator. Generic arguments
//! (`vector<int>`) and a trailing `()` are dropped.

/// Longest name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 512;

/// A checked name: the components that qualify it, and its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// Outermost first (`["java", "util", "ArrayList"]`); empty for a plain name.
    pub qualifier: Vec<String>,
    /// The symbol's own name (`add`, `::`, `operator+`).
    pub last: String,
    /// The kind its keyword named, written before it as C writes types (`struct
    /// task_struct`, `enum pid_type`, `union bpf_attr`, `class Foo`).
    pub kind: Option<&'static str>,
}

/// Keywords a name may follow, as declarations and C types write them, and the symbol kind
/// each names.
const KIND_WORDS: &[(&str, &str)] = &[
    ("struct", "struct"),
    ("union", "union"),
    ("enum", "enum"),
    ("class", "class"),
    ("interface", "interface"),
    ("trait", "trait"),
    ("protocol", "protocol"),
    ("namespace", "namespace"),
    ("module", "module"),
    ("typedef", "type"),
];

/// How a site's full name answers a qualified name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fit {
    /// The name's components end the site's (`java.util.List` for `java.util.List`,
    /// `ArrayList.add` for `java.util.ArrayList.add`).
    Exact,
    /// They appear in it in order, the last one last, with others between: an inline
    /// namespace (`std::string` for `std.__cxx11.string`), a module re-exported by its
    /// package (`requests.Session` for `requests.sessions.Session`).
    Loose,
}

impl Name {
    /// How `full` (a site's package and qualified name, in components) answers this name;
    /// `None` if it does not.
    pub fn fit(&self, full: &[&str]) -> Option<Fit> {
        self.fit_in(full, 0)
    }

    /// [`Name::fit`] for a site whose first `package` components are the module its file
    /// declares or its path makes: when there are some, a loose fit skips only those (a
    /// module between: `requests.get` is `requests.api.get`, never the method
    /// `requests.sessions.Session.get`); without them (C++'s and Ruby's namespaces are in the
    /// qualified name), any.
    pub fn fit_in(&self, full: &[&str], package: usize) -> Option<Fit> {
        // JavaScript's `Foo.prototype.bar` is `Foo`'s member `bar` (see [`parse`]).
        if full.contains(&"prototype") {
            let at = full[..package.min(full.len())]
                .iter()
                .filter(|c| **c != "prototype")
                .count();
            let members: Vec<&str> = full.iter().copied().filter(|c| *c != "prototype").collect();
            return self.fit_in(&members, at);
        }
        let (&own, outer) = full.split_last()?;
        if own != self.last {
            return None;
        }
        if self.qualifier.is_empty() {
            return Some(Fit::Exact);
        }
        let q = &self.qualifier;
        if outer.len() >= q.len()
            && outer[outer.len() - q.len()..]
                .iter()
                .zip(q)
                .all(|(a, b)| a == b)
        {
            return Some(Fit::Exact);
        }
        let mut wanted = q.iter().peekable();
        for (i, part) in outer.iter().enumerate() {
            if wanted.peek().is_some_and(|w| *w == part) {
                wanted.next();
            } else if package > 0 && i >= package {
                // A component of the qualified name skipped: a class, not a module.
                return None;
            }
        }
        wanted.peek().is_none().then_some(Fit::Loose)
    }
}

impl Name {
    /// Whether this name is `Trait::member` (the member's name checked by the caller) for a
    /// member of an implementation of `tr` in a file whose package is `package`: its
    /// qualifier ends with the trait, and what qualifies the trait (its crate and modules,
    /// which the implementing file does not repeat) is the file's crate and modules in order
    /// (`anyhow::Context::context` for `impl Context for Result` in `anyhow/src/context.rs`).
    pub fn fits_trait(&self, tr: &str, package: &[&str]) -> bool {
        let Some((last, outer)) = self.qualifier.split_last() else {
            return false;
        };
        if last != tr {
            return false;
        }
        let mut wanted = outer.iter().peekable();
        for part in package {
            if wanted.peek().is_some_and(|w| *w == part) {
                wanted.next();
            }
        }
        wanted.peek().is_none()
    }
}

/// Why a name was refused: the problem, in words that follow "'NAME' is not a symbol
/// name:".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError(pub String);

/// Characters an operator name is made of.
fn is_op_char(c: char) -> bool {
    "!%&*+-/:<=>?@^|~".contains(c)
}

/// Whether `c` may continue an identifier.
fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Checks `given` (trimmed by the caller).
pub fn parse(given: &str) -> Result<Name, NameError> {
    if given.len() > MAX_NAME_BYTES {
        return Err(NameError(format!(
            "it is {} bytes long; a name is at most {MAX_NAME_BYTES}",
            given.len()
        )));
    }
    if let Some(c) = given.chars().find(|c| c.is_control()) {
        return Err(NameError(format!("it holds the control character {c:?}")));
    }
    for (word, kind) in KIND_WORDS {
        if let Some(rest) = given.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) {
            let mut name = parse(rest.trim_start())?;
            name.kind = Some(kind);
            return Ok(name);
        }
    }
    // An operator alone: `::`, `<=>`, `[]`, `[]=`, `==` (one character alone is too likely
    // to be punctuation: qualify it, `Matrix#*`).
    if matches!(given, "[]" | "[]=")
        || (given.chars().count() >= 2 && given.chars().all(is_op_char))
    {
        return Ok(Name {
            qualifier: Vec::new(),
            last: given.to_string(),
            kind: None,
        });
    }
    let mut rest = given;
    for global in ["::", "\\"] {
        if let Some(r) = rest.strip_prefix(global) {
            rest = r;
            break;
        }
    }
    let rest = rest
        .strip_suffix("()")
        .filter(|r| !r.ends_with("operator"))
        .unwrap_or(rest);
    let go_form = go_trace(rest);
    let rest = go_form.as_deref().unwrap_or(rest);
    let mut parts: Vec<String> = Vec::new();
    let mut at = rest;
    loop {
        let (component, after) = component(at)?;
        parts.push(component);
        if after.is_empty() {
            break;
        }
        at = separator(after).ok_or_else(|| {
            NameError(format!(
                "'{}' follows a name part; parts are joined by '.', '::', '#' or '\\'",
                after.chars().next().unwrap_or(' ')
            ))
        })?;
        if at.is_empty() {
            return Err(NameError("it ends with a separator".into()));
        }
    }
    let mut parts = jvm_binary(parts);
    let last = parts.pop().expect("one part at least");
    if parts.is_empty() && last.chars().count() == 1 && last.chars().all(is_op_char) {
        return Err(NameError(format!(
            "'{last}' alone is punctuation; qualify an operator with its type (\"Matrix#{last}\") or name it as C++ does (\"operator{last}\")"
        )));
    }
    // JavaScript's `Foo.prototype.bar` is `Foo`'s member `bar`, however it is written.
    parts.retain(|p| p != "prototype");
    Ok(Name {
        qualifier: parts,
        last,
        kind: None,
    })
}

/// Go's name of a function in a stack trace or a profile, its import path first:
/// `net/http.(*Client).Do`, `github.com/a/b/pkg.Func`, `pkg.(*T[...]).M` — the package's
/// own name, then the type without its pointer and type arguments, then the member
/// (`http.Client.Do`). `None` for any other form.
fn go_trace(s: &str) -> Option<String> {
    let (path, tail) = match s.rfind('/') {
        Some(at) => (&s[..at], &s[at + 1..]),
        None => ("", s),
    };
    let path_ok = path
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '~'));
    let receiver = tail.find(".(");
    if !path_ok || (path.is_empty() && receiver.is_none()) || !tail.contains('.') {
        return None;
    }
    let Some(at) = receiver else {
        return Some(tail.to_string());
    };
    let inner = &tail[at + 2..];
    let close = inner.find(')')?;
    let ty = inner[..close].trim_start_matches('*');
    let ty = ty.split('[').next().unwrap_or(ty);
    Some(format!("{}.{ty}{}", &tail[..at], &inner[close + 1..]))
}

/// The components of a name as the JVM writes it in stack traces and binary names, as the
/// source writes them: a nested class after `$` (`HashMap$TreeNode` is `HashMap.TreeNode`)
/// and a Scala object's class without its trailing `$` (`Predef$` is `Predef`). Only a `$`
/// between an identifier and a capital letter, or ending a component, is read so: `$x`,
/// `a$b` and `$` stay identifiers.
fn jvm_binary(parts: Vec<String>) -> Vec<String> {
    if !parts.iter().any(|p| p.chars().skip(1).any(|c| c == '$')) {
        return parts;
    }
    let mut out = Vec::with_capacity(parts.len() + 1);
    for part in parts {
        let mut piece = String::new();
        let mut chars = part.chars().peekable();
        while let Some(c) = chars.next() {
            let inner = c == '$' && !piece.is_empty() && !piece.ends_with('$');
            match chars.peek() {
                Some(n) if inner && n.is_uppercase() => out.push(std::mem::take(&mut piece)),
                None if inner => {}
                _ => piece.push(c),
            }
        }
        out.push(piece);
    }
    out
}

/// The text after one separator at the start of `s`, if it starts with one.
fn separator(s: &str) -> Option<&str> {
    for sep in ["::", ".", "#", "\\"] {
        if let Some(rest) = s.strip_prefix(sep) {
            return Some(rest);
        }
    }
    None
}

/// One component at the start of `s`, and what follows it.
fn component(s: &str) -> Result<(String, &str), NameError> {
    if let Some(inner) = s.strip_prefix('`') {
        let end = inner
            .find('`')
            .ok_or_else(|| NameError("a backtick is not closed".into()))?;
        if end == 0 {
            return Err(NameError("empty backticks".into()));
        }
        return Ok((inner[..end].to_string(), &inner[end + 1..]));
    }
    if let Some(after) = s.strip_prefix("operator") {
        // C++'s `operator+`, `operator()`, `operator new[]`, `operator bool`, `operator""_km`.
        let op = after.strip_prefix(' ').unwrap_or(after);
        for word in ["()", "[]", "new[]", "delete[]", "new", "delete"] {
            if let Some(rest) = op.strip_prefix(word) {
                return Ok((format!("operator{}{word}", space(word)), rest));
            }
        }
        let symbol = op
            .chars()
            .take_while(|&c| is_op_char(c) || c == ',')
            .count();
        if symbol > 0 {
            let (sym, rest) =
                op.split_at(op.char_indices().nth(symbol).map_or(op.len(), |(i, _)| i));
            return Ok((format!("operator{sym}"), rest));
        }
        if let Some(literal) = op.strip_prefix("\"\"") {
            let (id, rest) = identifier(literal);
            return Ok((format!("operator\"\"{id}"), rest));
        }
        let (id, rest) = identifier(op);
        if !id.is_empty() && op.len() < after.len() {
            return Ok((format!("operator {id}"), rest));
        }
    }
    if let Some(after) = s.strip_prefix('~') {
        // A C++ destructor.
        let (id, rest) = identifier(after);
        if !id.is_empty() {
            return Ok((format!("~{id}"), skip_generics(rest)?));
        }
    }
    let (id, rest) = identifier(s);
    if !id.is_empty() {
        return Ok((id.to_string(), skip_generics(rest)?));
    }
    // An operator, last: `List.::`, `Matrix#*`, `Array#[]=`.
    let op_len: usize = s
        .char_indices()
        .take_while(|&(_, c)| is_op_char(c) || c == '[' || c == ']')
        .map(|(_, c)| c.len_utf8())
        .sum();
    if op_len > 0 && op_len == s.len() {
        return Ok((s.to_string(), ""));
    }
    match s.chars().next() {
        Some(c) if c.is_whitespace() => Err(NameError("names hold no spaces".into())),
        Some(c) => Err(NameError(format!(
            "'{c}' cannot start a name part (a name is letters, digits and '_', or an operator such as '::' or 'operator+')"
        ))),
        None => Err(NameError("a name part is empty".into())),
    }
}

fn space(word: &str) -> &'static str {
    if word.starts_with(|c: char| c.is_alphabetic()) {
        " "
    } else {
        ""
    }
}

/// An identifier at the start of `s` (with Ruby's sigils and suffixes, and `-` inside), and
/// what follows it; empty if `s` does not start with one.
fn identifier(s: &str) -> (&str, &str) {
    let sigils = s
        .char_indices()
        .take_while(|&(i, c)| i < 2 && (c == '@' || c == '$'))
        .count();
    let body = &s[sigils..];
    let Some(first) = body.chars().next() else {
        return ("", s);
    };
    if !(first.is_alphabetic() || first == '_' || (first == '$' && sigils == 0)) {
        return ("", s);
    }
    let mut end = sigils;
    let mut chars = s[sigils..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let inner_dash = c == '-' && chars.peek().is_some_and(|&(_, n)| is_ident_char(n));
        if is_ident_char(c) || inner_dash {
            end = sigils + i + c.len_utf8();
        } else {
            break;
        }
    }
    // Ruby's `empty?`, `save!`, `name=` (not `==`, which would be an operator after).
    let tail = &s[end..];
    if let Some(c) = tail.chars().next()
        && "?!=".contains(c)
        && !tail[1..].starts_with(['=', '~'])
    {
        end += 1;
    }
    (&s[..end], &s[end..])
}

/// `rest` after generic arguments (`<int, std::allocator<int>>`), balanced.
fn skip_generics(rest: &str) -> Result<&str, NameError> {
    if !rest.starts_with('<') {
        return Ok(rest);
    }
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(&rest[i + 1..]);
                }
            }
            _ => {}
        }
    }
    Err(NameError("a '<' is not closed".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(given: &str) -> Name {
        parse(given).unwrap_or_else(|e| panic!("{given:?} refused: {}", e.0))
    }

    #[test]
    fn names_as_languages_write_them() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("kmalloc_array", &[], "kmalloc_array"),
            ("Parser.parse", &["Parser"], "parse"),
            ("Foo::new", &["Foo"], "new"),
            ("Set#add", &["Set"], "add"),
            (
                "java.util.ArrayList.add",
                &["java", "util", "ArrayList"],
                "add",
            ),
            (
                "Symfony\\Component\\HttpFoundation\\Request",
                &["Symfony", "Component", "HttpFoundation"],
                "Request",
            ),
            ("\\App\\User::create", &["App", "User"], "create"),
            (
                "std::vector<int>::push_back",
                &["std", "vector"],
                "push_back",
            ),
            ("::globalFn", &[], "globalFn"),
            ("crate::index::Segment", &["crate", "index"], "Segment"),
            (
                "ActiveSupport::Inflector#camelize",
                &["ActiveSupport", "Inflector"],
                "camelize",
            ),
            ("ERB::Util.html_escape", &["ERB", "Util"], "html_escape"),
            ("String#blank?", &["String"], "blank?"),
            ("Record#save!", &["Record"], "save!"),
            ("Person#name=", &["Person"], "name="),
            (
                "scala.collection.immutable.::",
                &["scala", "collection", "immutable"],
                "::",
            ),
            ("::", &[], "::"),
            ("<=>", &[], "<=>"),
            ("[]=", &[], "[]="),
            ("Matrix#*", &["Matrix"], "*"),
            ("Array#[]", &["Array"], "[]"),
            ("operator+", &[], "operator+"),
            ("Vec3::operator+=", &["Vec3"], "operator+="),
            ("std::string::operator[]", &["std", "string"], "operator[]"),
            ("operator()", &[], "operator()"),
            ("operator new", &[], "operator new"),
            ("operator bool", &[], "operator bool"),
            ("~Widget", &[], "~Widget"),
            ("Widget::~Widget", &["Widget"], "~Widget"),
            ("`is`", &[], "is"),
            ("$container", &[], "$container"),
            ("@ivar", &[], "@ivar"),
            ("_comp-ssh-hosts", &[], "_comp-ssh-hosts"),
            ("kfree()", &[], "kfree"),
            ("größe", &[], "größe"),
            ("名前", &[], "名前"),
            ("struct task_struct", &[], "task_struct"),
            ("union bpf_attr", &[], "bpf_attr"),
            (
                "java.util.HashMap$TreeNode.putTreeVal",
                &["java", "util", "HashMap", "TreeNode"],
                "putTreeVal",
            ),
            ("scala.Predef$.println", &["scala", "Predef"], "println"),
            ("List$", &[], "List"),
            ("a$b", &[], "a$b"),
            ("$$props", &[], "$$props"),
        ];
        for (given, q, last) in cases {
            let n = ok(given);
            assert_eq!(
                (&n.qualifier[..], n.last.as_str()),
                (
                    &q.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..],
                    *last
                ),
                "{given}"
            );
        }
    }

    #[test]
    fn punctuation_sentences_and_long_names_are_refused() {
        for bad in [
            "(", ";", "*", "{", "=", "a b", "foo(", "a..b", "a.", ".", "#", "a::", "x;y", "if (x)",
            "\"str\"", "a,b", "foo\nbar", "`open", "1abc", "a.1b", "<", "f<int",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted: {:?}", parse(bad));
        }
        let long = "a".repeat(MAX_NAME_BYTES + 1);
        let e = parse(&long).unwrap_err();
        assert!(e.0.contains("at most 512"), "{}", e.0);
        assert!(parse(&"a".repeat(MAX_NAME_BYTES)).is_ok());
    }

    #[test]
    fn qualified_names_fit_the_full_names_of_sites() {
        let fit = |name: &str, full: &str| {
            let parts: Vec<&str> = full.split('.').collect();
            parse(name).unwrap().fit(&parts)
        };
        assert_eq!(fit("add", "java.util.ArrayList.add"), Some(Fit::Exact));
        assert_eq!(
            fit("ArrayList.add", "java.util.ArrayList.add"),
            Some(Fit::Exact)
        );
        assert_eq!(
            fit("java.util.ArrayList.add", "java.util.ArrayList.add"),
            Some(Fit::Exact)
        );
        assert_eq!(fit("std::string", "std.__cxx11.string"), Some(Fit::Loose));
        assert_eq!(
            fit("requests.Session", "requests.sessions.Session"),
            Some(Fit::Loose)
        );
        assert_eq!(fit("List.add", "java.util.ArrayList.add"), None);
        // With the file's module known, a loose fit skips modules, never a class.
        let within = |name: &str, full: &str, package: usize| {
            let parts: Vec<&str> = full.split('.').collect();
            parse(name).unwrap().fit_in(&parts, package)
        };
        assert_eq!(
            within("requests.get", "requests.api.get", 2),
            Some(Fit::Loose)
        );
        assert_eq!(
            within("requests.get", "requests.sessions.Session.get", 2),
            None
        );
        assert_eq!(
            within("requests.Session", "requests.sessions.Session", 2),
            Some(Fit::Loose)
        );
        assert_eq!(
            within("std::string", "std.__cxx11.string", 0),
            Some(Fit::Loose)
        );
        // JavaScript's prototype, as a site or a name writes it.
        assert_eq!(
            fit("Axios.prototype.request", "Axios.Axios.request"),
            Some(Fit::Exact)
        );
        assert_eq!(
            fit("Router.handle", "router.Router.prototype.handle"),
            Some(Fit::Exact)
        );
        assert_eq!(fit("util.java.ArrayList", "java.util.ArrayList"), None);
        assert_eq!(fit("ArrayList.add", "java.util.ArrayList.addAll"), None);
    }

    #[test]
    fn go_stack_trace_names_are_the_package_type_and_member() {
        let q = |name: &str| {
            let n = parse(name).unwrap();
            format!("{}.{}", n.qualifier.join("."), n.last)
        };
        assert_eq!(q("net/http.(*Client).Do"), "http.Client.Do");
        assert_eq!(q("github.com/a/b-c/pkg.(*Tree[...]).Walk"), "pkg.Tree.Walk");
        assert_eq!(q("main.(*server).run"), "main.server.run");
        assert_eq!(
            q("golang.org/x/sync/errgroup.WithContext"),
            "errgroup.WithContext"
        );
        assert!(parse("a/b").is_err());
        assert!(parse("net/http.(").is_err());
    }

    #[test]
    fn a_megabyte_is_refused_at_once() {
        let huge = "x.".repeat(500_000);
        let t = std::time::Instant::now();
        assert!(parse(&huge).is_err());
        assert!(t.elapsed() < std::time::Duration::from_millis(50));
    }
}
