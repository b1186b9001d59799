; mapgrep's symbol and category query for C++.
; Captures: @definition.KIND (names and kinds of functions, prototypes, variables and typedefs
; are read in code from their declarators, out-of-line members `void ns::Foo::bar()` are
; qualified `ns.Foo.bar`: see cfamily.rs), @name, and top-level @import, @comment items.

(function_definition) @definition.function
(declaration) @definition.variable
(field_declaration) @definition.field
(type_definition) @definition.type
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
; Specializations (`template<typename _Tp> class unique_ptr<_Tp[]> {…}`) are named without
; their arguments.
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(union_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: (_) @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (preproc_include) @import)
(translation_unit (preproc_ifdef (preproc_include) @import))
(translation_unit (using_declaration) @import)
(translation_unit (comment) @comment)
