; mapgrep's symbol and category query for TypeScript and TSX.
; Captures: @definition.KIND with @name (a symbol), @definition.KIND without @name (named
; "default"), and top-level @import, @export, @comment, @directive items.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(public_field_definition name: (_) @name) @definition.property
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(variable_declarator name: (identifier) @name) @definition.variable
(export_statement
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function)
(export_statement value: (class) @definition.class)

; Object literals bound to a name hold their members (`const utils = { forEach() {…} }`);
; their function-valued pairs, and the definitions by assignment (`app.listen = function`,
; `Foo.prototype.bar =`, `exports.parse =`), are found in code (lang_a.rs).

(program
  [(lexical_declaration
     (variable_declarator
       value: (call_expression function: (identifier) @_require)))
   (variable_declaration
     (variable_declarator
       value: (call_expression function: (identifier) @_require)))] @import
  (#eq? @_require "require"))
(program (import_statement) @import)
(program (export_statement) @export)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module))) @export
  (#match? @_module "^(module|exports)$"))
(program (comment) @comment)
(program (hash_bang_line) @directive)
(program (expression_statement (string)) @directive)
