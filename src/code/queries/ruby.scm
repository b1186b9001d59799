; mapgrep's symbol and category query for Ruby.
; Captures: @definition.KIND with @name (a symbol; `class A::B` names, `def self.x` owners
; and `Point = Struct.new(...)` classes are settled in code, lang_b_names.rs), and
; top-level @import (`require`, `require_relative`, `load`, `autoload`), @comment,
; @directive (magic comments) items.

(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant

(program
  (call method: (identifier) @_require) @import
  (#match? @_require "^(require|require_relative|load|autoload)$"))
(program
  (comment) @directive
  (#match? @directive "^#.*(frozen_string_literal|coding|encoding|warn_indent|shareable_constant_value):"))
(program (comment) @comment)
