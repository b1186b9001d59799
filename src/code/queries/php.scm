; mapgrep's symbol and category query for PHP (with HTML around `<?php`).
; Captures: @definition.KIND with @name (a symbol), and top-level @import (`use`,
; `require`/`include`), @comment, @directive (`<?php`, `declare`, a `namespace X;` that
; covers the rest of the file) items. A `namespace X { }` with a body is a symbol.

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(namespace_definition name: (_) @name body: (_)) @definition.namespace
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
(property_declaration (property_element (variable_name (name) @name))) @definition.property

(program (namespace_use_declaration) @import)
(program
  (expression_statement
    [(require_expression) (require_once_expression)
     (include_expression) (include_once_expression)]) @import)
(program (comment) @comment)
(program (php_tag) @directive)
(program (declare_statement) @directive)
(program (namespace_definition !body) @directive)
