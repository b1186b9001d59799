; mapgrep's symbol and category query for Bash (and POSIX shell).
; Captures: @definition.function with @name (`f() {…}`, `f() (…)`, `function f {…}`, wherever
; they stand: in conditionals, lists, groups and other functions' bodies), top-level
; variables (`NAME=value`, `export NAME=value`), and top-level @import (`source FILE`,
; `. FILE`) and @comment items (a `#!` first line is a directive).

(function_definition name: (word) @name) @definition.function

(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (variable_assignments (variable_assignment name: (variable_name) @name) @definition.variable))
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition.variable))

(program
  (command name: (command_name (word) @_source)) @import
  (#match? @_source "^(source|\\.)$"))
(program (comment) @comment)
