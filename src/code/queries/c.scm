; mapgrep's symbol and category query for C.
; Captures: @definition.KIND (names and kinds of functions, prototypes, variables and typedefs
; are read in code from their declarators: see cfamily.rs), @name, and top-level @import,
; @comment items. Definitions under #if/#ifdef/#else are found like any other.
; The builder makes these matches with a walk of the tree (walk_c.rs), tested equal to this
; query: a pattern added here goes there too.

(function_definition) @definition.function
(declaration) @definition.variable
(type_definition) @definition.type
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (preproc_include) @import)
(translation_unit (preproc_ifdef (preproc_include) @import))
(translation_unit (comment) @comment)
