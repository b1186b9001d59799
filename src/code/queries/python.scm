; mapgrep's symbol and category query for Python.
; Captures: @definition.KIND with @name (a symbol), and top-level @import, @comment items
; (a module docstring counts as a comment).

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)

(module (import_statement) @import)
(module (import_from_statement) @import)
(module (future_import_statement) @import)
(module (comment) @comment)
(module (expression_statement (string)) @comment)
