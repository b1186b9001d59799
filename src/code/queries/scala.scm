; mapgrep's symbol and category query for Scala (2 and 3).
; Captures: @definition.KIND with @name (a symbol), and top-level @import, @comment,
; @directive (package clause) items. A `package object p` is two symbols: `p`, and the
; object `package` its body is (`scala.package`, as the compiler names it), whose members are
; `p`'s (named in code, lang_b_names.rs). Operator names (`::`, `:::`) are names.

(class_definition name: (_) @name) @definition.class
(object_definition name: (_) @name) @definition.object
(package_object name: (_) @name) @definition.object
(package_object body: (template_body) @definition.object)
(trait_definition name: (_) @name) @definition.trait
(enum_definition name: (_) @name) @definition.enum
(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function
(type_definition name: (_) @name) @definition.type
(val_definition pattern: (identifier) @name) @definition.property
(var_definition pattern: (identifier) @name) @definition.property
(given_definition name: (_) @name) @definition.property

(compilation_unit (import_declaration) @import)
(compilation_unit (comment) @comment)
(compilation_unit (block_comment) @comment)
(compilation_unit (package_clause) @directive)
