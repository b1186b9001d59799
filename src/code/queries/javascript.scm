; mapgrep's symbol and category query for JavaScript (with JSX).
; Captures: @definition.KIND with @name (a symbol), @definition.KIND without @name (named
; "default"), and top-level @import, @export, @comment, @directive items.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(field_definition property: (_) @name) @definition.property
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
