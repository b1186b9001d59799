; mapgrep's symbol and category query for Bash (and POSIX shell).
; Captures: @definition.function with @name (`f() {…}` and `function f {…}`), and top-level
; @import (`source FILE`, `. FILE`) and @comment items (a `#!` first line is a directive).

(function_definition name: (word) @name) @definition.function

(program
  (command name: (command_name (word) @_source)) @import
  (#match? @_source "^(source|\\.)$"))
(program (comment) @comment)
