; mapgrep's symbol and category query for Java.
; Captures: @definition.KIND with @name (a symbol; members are qualified by their class),
; and top-level @import, @comment, @directive (the package declaration) items.

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(method_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(program (import_declaration) @import)
(program (line_comment) @comment)
(program (block_comment) @comment)
(program (package_declaration) @directive)
