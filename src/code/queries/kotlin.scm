; mapgrep's symbol and category query for Kotlin.
; Captures: @definition.KIND with @name (a symbol; companion objects, extension functions'
; receivers and member kinds are settled in code, lang_b.rs), and top-level @import,
; @comment, @directive (package header, file annotations) items. The first pattern that
; matches a node gives its kind.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  (modifiers (class_modifier "enum")) name: (identifier) @name) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(companion_object) @definition.object
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.method
(type_alias type: (identifier) @name) @definition.type
(property_declaration
  (modifiers (property_modifier "const"))
  (variable_declaration (identifier) @name)) @definition.constant
(property_declaration (variable_declaration (identifier) @name)) @definition.property

(source_file (import) @import)
(source_file (line_comment) @comment)
(source_file (block_comment) @comment)
(source_file (package_header) @directive)
(source_file (file_annotation) @directive)
(source_file (shebang) @directive)
