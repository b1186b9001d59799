; mapgrep's symbol and category query for Swift.
; Captures: @definition.KIND with @name (a symbol; an extension is named in code after its
; type, `extension A.B` as `A.B`, and its members are that type's), and top-level @import,
; @comment items.

(class_declaration declaration_kind: "extension") @definition.extension
(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.protocol
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type
; Functions and operators (`static func ==`) are named in code from the token after `func`:
; matching their names here (`name: (simple_identifier)`) costs the query's compilation a
; quarter of a second.
(function_declaration) @definition.function
(protocol_function_declaration) @definition.method
(property_declaration name: (pattern) @name) @definition.property
(protocol_property_declaration name: (pattern) @name) @definition.property

(source_file (import_declaration) @import)
(source_file (comment) @comment)
(source_file (multiline_comment) @comment)
