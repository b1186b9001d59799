; mapgrep's symbol and category query for Rust.
; Captures: @definition.KIND with @name (a symbol; `impl` blocks are named in code from their
; type and trait), and top-level @import, @comment, @directive items.

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item) @definition.impl
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.static
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(macro_definition name: (identifier) @name) @definition.macro

(source_file (use_declaration) @import)
(source_file (extern_crate_declaration) @import)
(source_file (line_comment) @comment)
(source_file (block_comment) @comment)
(source_file (inner_attribute_item) @directive)
