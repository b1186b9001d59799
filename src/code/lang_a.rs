//! What Python, Go, Rust, TypeScript and JavaScript add to the tree walk of `builder.rs`:
//! the names of Rust `impl` blocks and Go methods (by their type), the symbols that hold
//! members (a JavaScript object literal bound to a name), the names of
//! CommonJS and prototype assignments (`app.listen = function`, `Foo.prototype.bar =`,
//! `exports.foo =`), TypeScript's ambient declarations (`declare class`, `declare module`),
//! the kind of a module-level method, and the Python assignments that only rebind a name
//! defined by `def` or `class` (declarations beside it).

use tree_sitter::Node;

use std::collections::HashSet;

use super::builder::{Builder, Candidate};
use super::lang::{Lang, is_container};
use super::structure::{FileStructure, Symbol};

/// A symbol's kind, name, owner (what qualifies it) and the scope it gives its members.
pub(super) type Naming = (&'static str, String, Option<String>, Option<String>);

impl<'a> Builder<'a> {
    fn is_script(&self) -> bool {
        matches!(self.lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
    }

    /// The kind, name, owner and member scope of a symbol at `node` from what the walk gave
    /// (`naming`): a Rust `impl` block is named `impl Trait for Type` and qualifies its
    /// members with `Type`; a Go method is its receiver type's; a JavaScript assignment to a
    /// member is its object's (see [`Builder::assigned`]).
    pub(super) fn name_a(&self, node: Node<'a>, naming: Naming) -> Naming {
        let (kind, mut name, mut owner, mut scope) = naming;
        match (self.lang, node.kind()) {
            (Lang::Rust, "impl_item") => {
                let ty = node
                    .child_by_field_name("type")
                    .map(|t| self.base_type(t))
                    .unwrap_or_default();
                name = match node.child_by_field_name("trait") {
                    Some(tr) => format!("impl {} for {ty}", self.text(tr)),
                    None => format!("impl {ty}"),
                }
                .trim()
                .to_string();
                scope = Some(ty);
            }
            (Lang::Go, "method_declaration") => {
                owner = node
                    .child_by_field_name("receiver")
                    .and_then(|r| r.named_child(0))
                    .and_then(|p| p.child_by_field_name("type"))
                    .map(|t| self.base_type(t));
            }
            (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "assignment_expression") => {
                let (kind, owner) = self.assigned(node, kind, owner);
                return (kind, name, owner, scope);
            }
            // `/** @memberOf _ */ function chunk(…)` is `_.chunk` (see `jsdoc.rs`).
            (
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript,
                "function_declaration" | "generator_function_declaration" | "variable_declarator",
            ) => {
                if let Some(documented) = self.jsdoc_owner(node, &name) {
                    owner = Some(documented);
                }
            }
            _ => {}
        }
        (kind, name, owner, scope)
    }

    /// A type's name without generics, references, pointers or path (`Foo<T>` → `Foo`,
    /// `std::result::Result<T, E>` → `Result`, `dyn Error + Send` → `Error`).
    fn base_type(&self, ty: Node) -> String {
        let mut t = ty;
        loop {
            let inner = match t.kind() {
                "generic_type" | "reference_type" | "pointer_type" => {
                    t.child_by_field_name("type").or_else(|| t.named_child(0))
                }
                "scoped_type_identifier" => t.child_by_field_name("name"),
                // `dyn Error + Send + Sync`: the trait object's trait.
                "bounded_type" => t.named_child(0),
                "dynamic_type" => t.child_by_field_name("trait"),
                _ => None,
            };
            match inner {
                Some(inner) => t = inner,
                None => return self.text(t).to_string(),
            }
        }
    }

    /// Whether the symbol of `kind` at `node` holds member symbols: a container kind, in
    /// TypeScript and JavaScript an object literal bound to a name (`const utils = {
    /// forEach() {} }`, `Foo.prototype = { bar: function () {} }`), in C# a method whose
    /// body declares local functions.
    pub(super) fn holds_members(&self, kind: &str, node: Node<'a>) -> bool {
        is_container(self.lang, kind)
            || (self.lang == Lang::CSharp && has_local_functions(node))
            || (self.is_script()
                && (self.object_value(node).is_some()
                    || self.wrap.contains(&node.id())
                    || node
                        .child_by_field_name("value")
                        .is_some_and(|v| self.wrap.contains(&v.id()))))
    }

    /// JavaScript's module pattern: when `node` (a statement or a declarator, as the walk
    /// meets it) holds a function written in parentheses or called at once — `(function()
    /// {…})()`, `(function(){…}.call(this))`, `!function(){…}()`, `var m = (function f(){…})`
    /// (lodash's `runInContext`) — the nodes down to its body are walked as structure, and
    /// the query runs again in the body: its definitions are the module's.
    pub(super) fn note_wrapper(&mut self, node: Node<'a>) {
        if !self.is_script() {
            return;
        }
        let value = match node.kind() {
            "expression_statement" => node.named_child(0),
            "variable_declarator" => node.child_by_field_name("value"),
            _ => None,
        };
        if let Some(chain) = value.and_then(|v| self.wrapped_body(v)) {
            let body = *chain.last().expect("a body ends the chain");
            self.wrap.extend(chain.iter().map(|n| n.id()));
            self.reopen.push(body);
        }
    }

    /// The nodes from `n` down to the body of the function it wraps (see
    /// [`Builder::note_wrapper`]), the body last; `None` if `n` is not such a wrapper.
    fn wrapped_body(&self, mut n: Node<'a>) -> Option<Vec<Node<'a>>> {
        let mut chain = Vec::new();
        let (mut paren, mut called) = (false, false);
        loop {
            chain.push(n);
            n = match n.kind() {
                "parenthesized_expression" => {
                    paren = true;
                    n.named_child(0)?
                }
                "unary_expression" => n.child_by_field_name("argument")?,
                "call_expression" => {
                    called = true;
                    n.child_by_field_name("function")?
                }
                // `function(){…}.call(this)`
                "member_expression" => {
                    let prop = n.child_by_field_name("property")?;
                    if !matches!(self.text(prop), "call" | "apply") {
                        return None;
                    }
                    n.child_by_field_name("object")?
                }
                "function_expression" | "function" | "arrow_function" if paren || called => {
                    let body = n.child_by_field_name("body")?;
                    if body.kind() != "statement_block" {
                        return None;
                    }
                    chain.push(body);
                    return Some(chain);
                }
                _ => return None,
            };
            if chain.len() > 8 {
                return None;
            }
        }
    }

    /// The object literal a declarator or an assignment binds, if it binds one.
    fn object_value(&self, node: Node<'a>) -> Option<Node<'a>> {
        let value = match node.kind() {
            "variable_declarator" => node.child_by_field_name("value"),
            "assignment_expression" => node.child_by_field_name("right"),
            _ => None,
        }?;
        (value.kind() == "object").then_some(value)
    }

    /// Whether `node` is the first of chained assignments (`req.get = req.header = function
    /// header() {}`): the ones it assigns are its siblings, not its members.
    pub(super) fn chained(&self, node: Node<'a>) -> bool {
        self.is_script()
            && node.kind() == "assignment_expression"
            && node
                .child_by_field_name("right")
                .is_some_and(|r| r.kind() == "assignment_expression")
    }

    /// The kind and owner of a definition by assignment to a member: `app.listen = function`
    /// is the method `app.listen`, `Foo.prototype.bar = function` the method
    /// `Foo.prototype.bar`; `exports.foo =` and `module.exports.foo =` define the module's
    /// `foo`.
    pub(super) fn assigned(
        &self,
        node: Node<'a>,
        kind: &'static str,
        owner: Option<String>,
    ) -> (&'static str, Option<String>) {
        let Some(object) = node
            .child_by_field_name("left")
            .and_then(|l| l.child_by_field_name("object"))
        else {
            return (kind, owner);
        };
        let text = self.text(object);
        let own = ["module.exports", "exports"]
            .iter()
            .find_map(|m| {
                let rest = text.strip_prefix(m)?;
                if rest.is_empty() {
                    Some(None)
                } else {
                    rest.strip_prefix('.').map(Some)
                }
            })
            .unwrap_or(Some(text));
        let own = own.map(|o| o.split_whitespace().collect::<String>());
        let kind = match (kind, &own) {
            ("method", None) => "function",
            _ => kind,
        };
        let owner = match (owner, own) {
            (Some(o), Some(w)) if !o.is_empty() => Some(format!("{o}.{w}")),
            (o, None) => o,
            (_, w) => w,
        };
        (kind, owner)
    }

    /// Whether a symbol declares without defining: in TypeScript, anything under `declare`
    /// (`declare class`, `declare function`, `declare module 'x' {…}`, `declare global`) and
    /// the members of a declaration.
    pub(super) fn declared_only(
        &self,
        node: Node<'a>,
        parent: Option<u32>,
        symbols: &[Symbol],
    ) -> bool {
        if !matches!(self.lang, Lang::TypeScript | Lang::Tsx) {
            return false;
        }
        if parent.is_some_and(|p| symbols[p as usize].declaration) {
            return true;
        }
        let mut at = self.parent(node);
        while let Some(n) = at {
            if n.kind() == "ambient_declaration" {
                return true;
            }
            if !self.lang.transparent(n.kind()) {
                return false;
            }
            at = self.parent(n);
        }
        false
    }

    /// A JavaScript or TypeScript method outside any class or object (a member of
    /// `module.exports = {…}`, `export default {…}`) is a function.
    pub(super) fn refine_kind_a(
        &self,
        kind: &'static str,
        node: Node<'a>,
        parent: Option<u32>,
    ) -> &'static str {
        match self.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript
                if kind == "method"
                    && parent.is_none()
                    && node.kind() != "assignment_expression" =>
            {
                "function"
            }
            _ => kind,
        }
    }

    /// Whether the walk looks into a structural node of this kind after the query (see
    /// [`Builder::macro_items`], [`Builder::branch_assignments`]).
    pub(super) fn scans(&self, kind: &str) -> bool {
        match self.lang {
            Lang::Rust => matches!(
                kind,
                "macro_definition" | "macro_invocation" | "expression_statement"
            ),
            Lang::Python => matches!(kind, "if_statement" | "try_statement"),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
                matches!(kind, "expression_statement" | "object")
            }
            _ => false,
        }
    }

    /// TypeScript and JavaScript: the definitions of the structural assignments and object
    /// literals — an assignment to a member of a function (each of a chain: `req.get =
    /// req.header = function`), a class or an object (not `module.exports = …` itself), and
    /// a pair whose value is a function (`{ map: function () {} }`). Found here rather than
    /// by the query, whose patterns would match every assignment of every function body
    /// within its depth.
    pub(super) fn script_definitions(&self, candidates: &mut Vec<Candidate<'a>>) {
        let mut add = |node: Node<'a>, name: Node<'a>, kind: &'static str| {
            candidates.push(Candidate {
                node,
                name: Some(name),
                kind,
                pattern: usize::MAX,
                qualifier: None,
                written: None,
            });
        };
        for &node in &self.scan {
            let mut walk = node.walk();
            if node.kind() == "object" {
                for pair in node
                    .named_children(&mut walk)
                    .filter(|p| p.kind() == "pair")
                {
                    let key = pair
                        .child_by_field_name("key")
                        .filter(|k| matches!(k.kind(), "property_identifier" | "string"));
                    let function = pair
                        .child_by_field_name("value")
                        .is_some_and(|v| is_function(v.kind()));
                    if let Some(key) = key.filter(|_| function) {
                        add(pair, key, "method");
                    }
                }
                continue;
            }
            let mut at = node
                .named_child(0)
                .filter(|a| a.kind() == "assignment_expression");
            let mut first = true;
            while let Some(assignment) = at {
                let value = assignment.child_by_field_name("right");
                if let (Some(kind), Some(name)) = (
                    self.assigned_kind(assignment, first),
                    self.member_name(assignment),
                ) {
                    add(assignment, name, kind);
                }
                at = value.filter(|v| v.kind() == "assignment_expression");
                first = false;
            }
        }
    }

    /// The property an assignment sets (`listen` of `app.listen = …`), unless it sets
    /// `module.exports` itself.
    fn member_name(&self, assignment: Node<'a>) -> Option<Node<'a>> {
        let left = assignment
            .child_by_field_name("left")
            .filter(|l| l.kind() == "member_expression")?;
        let property = left
            .child_by_field_name("property")
            .filter(|p| p.kind() == "property_identifier")?;
        let module = left
            .child_by_field_name("object")
            .is_some_and(|o| o.kind() == "identifier" && self.text(o) == "module");
        (!(module && self.text(property) == "exports")).then_some(property)
    }

    /// Python: the assignments to a name in the blocks of the structural `if` and `try`
    /// statements (platform variants, fallbacks), as variables.
    pub(super) fn branch_assignments(&self, candidates: &mut Vec<Candidate<'a>>) {
        for &statement in &self.scan {
            let mut walk = statement.walk();
            for clause in statement.named_children(&mut walk) {
                let block = match clause.kind() {
                    "block" => Some(clause),
                    "elif_clause" | "else_clause" | "except_clause" | "finally_clause" => {
                        let mut w = clause.walk();
                        clause.named_children(&mut w).find(|c| c.kind() == "block")
                    }
                    _ => None,
                };
                let Some(block) = block else { continue };
                let mut w = block.walk();
                for line in block.named_children(&mut w) {
                    let name = (line.kind() == "expression_statement")
                        .then(|| line.named_child(0))
                        .flatten()
                        .filter(|a| a.kind() == "assignment")
                        .and_then(|a| a.child_by_field_name("left"))
                        .filter(|l| l.kind() == "identifier");
                    if let Some(name) = name {
                        candidates.push(Candidate {
                            node: line,
                            name: Some(name),
                            kind: "variable",
                            pattern: usize::MAX,
                            qualifier: None,
                            written: None,
                        });
                    }
                }
            }
        }
    }

    /// The kind an assignment defines: a method (a function, at the end of a chain of
    /// assignments too); a class or a variable holding members (an object) when it is the
    /// `first` of its chain (or alone); none for other values.
    fn assigned_kind(&self, node: Node<'a>, first: bool) -> Option<&'static str> {
        let mut value = node.child_by_field_name("right")?;
        let chained = value.kind() == "assignment_expression";
        while value.kind() == "assignment_expression" {
            value = value.child_by_field_name("right")?;
        }
        match value.kind() {
            k if is_function(k) => Some("method"),
            "class" if first && !chained => Some("class"),
            "object" if first && !chained => Some("variable"),
            _ => None,
        }
    }
}

/// Whether a JavaScript value of this node kind is a function.
fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_expression" | "arrow_function" | "generator_function" | "function"
    )
}

/// What a whole file's structure needs once it is built (or joined from two halves, which
/// see only their own symbols): Python's assignments to a name that the same scope defines
/// with `def` or `class` (`Enum = Flag = None` before `class Enum`, `f = wrap(f)` after
/// `def f`) are placeholders and rebindings, declarations beside the definition.
pub(super) fn finish(lang: Lang, s: &mut FileStructure) {
    if lang != Lang::Python {
        return;
    }
    let defined: HashSet<(Option<u32>, &str)> = s
        .symbols
        .iter()
        .filter(|x| matches!(x.kind, "function" | "class" | "method"))
        .map(|x| (x.parent, x.name.as_str()))
        .collect();
    if defined.is_empty() {
        return;
    }
    let rebound: Vec<usize> = (0..s.symbols.len())
        .filter(|&i| {
            let x = &s.symbols[i];
            matches!(x.kind, "variable" | "constant")
                && defined.contains(&(x.parent, x.name.as_str()))
        })
        .collect();
    for i in rebound {
        s.symbols[i].declaration = true;
    }
}

impl Builder<'_> {
    /// Whether the walk looks into a container node: always, but C#'s methods,
    /// constructors and local functions only when their body declares local functions (most
    /// do not, and the statements of the others are never structure).
    pub(super) fn opens(&self, node: Node) -> bool {
        self.lang != Lang::CSharp
            || !matches!(
                node.kind(),
                "method_declaration"
                    | "constructor_declaration"
                    | "destructor_declaration"
                    | "operator_declaration"
                    | "local_function_statement"
            )
            || has_local_functions(node)
    }
}

/// C#: whether the body of a method, constructor or local function declares a local
/// function among its statements (only these make it a container: the query is not run again
/// in the bodies of the others).
fn has_local_functions(node: Node) -> bool {
    let Some(body) = node
        .child_by_field_name("body")
        .filter(|b| b.kind() == "block")
    else {
        return false;
    };
    let mut walk = body.walk();
    body.named_children(&mut walk)
        .any(|s| s.kind() == "local_function_statement")
}
