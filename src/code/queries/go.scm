; mapgrep's symbol and category query for Go.
; Captures: @definition.KIND with @name (a symbol; methods are qualified in code by their
; receiver type; a spec with several names is a symbol per name), and top-level @import,
; @comment, @directive (the package clause) items.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
; `const KB, MB = …`: the grammar puts the comma in the name field too, which stops a
; field pattern at the first name.
(const_spec (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable

(source_file (import_declaration) @import)
(source_file (comment) @comment)
(source_file (package_clause) @directive)
