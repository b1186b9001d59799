; mapgrep's symbol and category query for C#.
; Captures: @definition.KIND with @name (a symbol; members are qualified by their namespace
; and class), and top-level @import, @comment, @directive (a file-scoped namespace) items.

(namespace_declaration name: (_) @name) @definition.namespace
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration operator: _ @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.property
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

(compilation_unit (using_directive) @import)
(compilation_unit (comment) @comment)
(compilation_unit (file_scoped_namespace_declaration) @directive)
(compilation_unit (extern_alias_directive) @import)
