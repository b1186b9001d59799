//! Unit tests of the definitions of Python, Go, Rust, TypeScript and JavaScript as their
//! code writes them: Rust attributes on the first line, trait impls, `cfg` variants and
//! items written in macros; Python decorators, conditional and placeholder definitions;
//! Go specs with several names and receivers; TypeScript's ambient declarations and
//! declaration files; CommonJS, prototype and object-literal definitions.

use std::path::Path;

use super::super::{FileStructure, Lang, Symbol};
use super::assert_partition;

fn build(name: &str, src: &str) -> FileStructure {
    let lang = Lang::from_path(Path::new(name)).expect("a language");
    let s = FileStructure::build(lang, src.as_bytes()).expect("parsed");
    assert_partition(&s, src.as_bytes());
    s
}

/// `(kind, qualified, def_line, end_line)` of every symbol, with ` (declaration)` after the
/// kind of a declaration, and the doc line when it is above the definition.
fn sites(s: &FileStructure) -> Vec<String> {
    s.symbols.iter().map(site).collect()
}

fn site(sym: &Symbol) -> String {
    let decl = if sym.declaration {
        " (declaration)"
    } else {
        ""
    };
    let doc = if sym.start_line < sym.def_line {
        format!(" doc {}", sym.start_line)
    } else {
        String::new()
    };
    format!(
        "{} {}{decl} {}-{}{doc}",
        sym.kind, sym.qualified, sym.def_line, sym.end_line
    )
}

fn has(s: &FileStructure, want: &[&str]) {
    let got = sites(s);
    for w in want {
        assert!(got.iter().any(|g| g == w), "{w} not in {got:#?}");
    }
}

fn lacks(s: &FileStructure, qualified: &str) {
    let got = sites(s);
    assert!(
        !s.symbols.iter().any(|sym| sym.qualified == qualified),
        "{qualified} in {got:#?}"
    );
}

const RUST: &str = r#"//! A small crate.

/// A span of bytes.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Span {
    pub start: usize,
}

pub trait Context<T> {
    /// Wraps the error.
    fn context(self, what: &str) -> T;

    #[inline]
    fn is_loud(&self) -> bool {
        false
    }
}

impl<T, E> Context<T> for Result<T, E> {
    #[track_caller]
    fn context(self, what: &str) -> T {
        todo!()
    }
}

impl Span {
    /// The widest span.
    #[cfg(target_pointer_width = "64")]
    pub const MAX: usize = 1 << 40;

    #[cfg(not(target_pointer_width = "64"))]
    pub const MAX: usize = 1 << 20;
}

/// Fails at once.
#[macro_export]
macro_rules! bail {
    ($msg:literal) => {
        return Err($msg.into())
    };
}

macro_rules! define_finder {
    ($(#[$doc:meta])*) => {
        #[cfg(feature = "alloc")]
        $(#[$doc])*
        pub struct Finder<A = Vec<u8>> {
            needle: A,
        }

        #[cfg(not(feature = "alloc"))]
        $(#[$doc])*
        pub struct Finder<A> {
            needle: A,
        }

        impl<A> $crate::Search for Finder<A> {
            fn find(&self) -> usize { 0 }
        }
    };
}

define_finder!(
    /// Finds a needle.
);

#[macro_export]
macro_rules! exported_only {
    () => {
        pub struct Ghost;
    };
}

macro_rules! make_getter {
    ($name:ident) => {
        pub fn $name() -> u8 { 0 }
        pub(crate) const fn zero() -> u8 { 0 }
    };
}

make_getter!(width);

bitflags! {
    /// Open modes.
    pub struct Mode: u32 {
        const READ = 1;
    }
}

thread_local!(static DEPTH: u8 = 0);

mod sys;

impl dyn std::error::Error + Send + Sync {
    pub fn chain(&self) {}
}

#[cfg(doc)]
wrap![
    #[macro_export]
    macro_rules! ensure {
        ($cond:expr) => {};
    }
];

impl std::fmt::Display for crate::Span {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        Ok(())
    }
}
"#;

#[test]
fn rust_attributes_start_the_definition_and_doc_comments_stay_apart() {
    let s = build("span.rs", RUST);
    has(
        &s,
        &[
            "struct Span 4-8 doc 3",
            "method Context.is_loud 14-17",
            "method Context.context (declaration) 12-12 doc 11",
            "method Result.context 21-24",
            // Both `cfg` variants, each from its attribute.
            "constant Span.MAX 29-30 doc 28",
            "constant Span.MAX 32-33",
            "macro bail 37-42 doc 36",
        ],
    );
}

#[test]
fn rust_items_written_in_macros_that_the_file_invokes() {
    let s = build("finder.rs", RUST);
    has(
        &s,
        &[
            "macro define_finder 44-62",
            "struct Finder 46-50",
            "struct Finder 52-56",
            "function zero 78-78",
            "struct Mode 86-88 doc 85",
            "static DEPTH 91-91",
        ],
    );
    // A module's declaration (its file defines it); impls of paths and trait objects.
    has(
        &s,
        &[
            "module sys (declaration) 93-93",
            "method Error.chain 96-96",
            "macro ensure 101-104",
            "method Span.fmt 108-110",
        ],
    );
    // An exported macro's (its items are the invoker's), a metavariable's name, an impl
    // block's members, a body's items: none.
    for q in ["Ghost", "find", "$name", "name", "width", "READ"] {
        lacks(&s, q);
    }
}

const PYTHON: &str = r#""""Processes, the POSIX and the Windows way."""

import os

Popen = None

DEFAULT_BUFSIZE = -1

try:
    from _posix import fork_exec
except ImportError:
    fork_exec = None


class Popen:
    """A child process."""

    class Error(Exception):
        pass

    if os.name == "nt":
        def _execute_child(self, args):
            return "windows"
    else:
        @staticmethod
        def _execute_child(self, args):
            return "posix"

    @property
    def pid(self):
        return self._pid

    @pid.setter
    def pid(self, value):
        self._pid = value

    def wait(self):
        def poll():
            return 0
        return poll()


if os.name == "nt":
    SEP = "\\"
else:
    SEP = "/"


def run(*args):
    return Popen(args).wait()
"#;

#[test]
fn python_methods_nested_classes_and_conditional_definitions() {
    let s = build("subprocess.py", PYTHON);
    has(
        &s,
        &[
            "class Popen 15-40",
            "class Popen.Error 18-19",
            "method Popen._execute_child 22-23",
            "method Popen._execute_child 25-27",
            "method Popen.pid 29-31",
            "method Popen.pid 33-35",
            "method Popen.wait 37-40",
            "constant DEFAULT_BUFSIZE 7-7",
            "variable fork_exec 12-12",
            "constant SEP 44-44",
            "constant SEP 46-46",
            "function run 49-50",
        ],
    );
    // A placeholder for a class defined below is a declaration; a function's local is
    // nothing.
    has(&s, &["variable Popen (declaration) 5-5"]);
    lacks(&s, "Popen.wait.poll");
    lacks(&s, "poll");
}

const GO: &str = "package atomic

// ErrA and ErrB are errors.
var (
\tErrA, ErrB = errors.New(\"a\"), errors.New(\"b\")
)

const KB, MB = 1 << 10, 1 << 20

// Pointer is an atomic pointer.
type Pointer[T any] struct {
\tv unsafe.Pointer
}

func (x *Pointer[T]) Load() *T { return nil }

type Duration int64

func (d Duration) String() string {
\treturn \"\"
}

type Handler interface {
\tServeHTTP(w ResponseWriter, r *Request)
}

type (
\tA int
\tB = int
)

// IndexByte is written in assembly.
func IndexByte(b []byte, c byte) int
";

#[test]
fn go_receivers_specs_with_several_names_and_bodyless_functions() {
    let s = build("type.go", GO);
    has(
        &s,
        &[
            "variable ErrA 5-5",
            "variable ErrB 5-5",
            "constant KB 8-8",
            "constant MB 8-8",
            "struct Pointer 11-13 doc 10",
            "method Pointer.Load 15-15",
            "type Duration 17-17",
            "method Duration.String 19-21",
            "interface Handler 23-25",
            "type A 28-28",
            "type B 29-29",
            "function IndexByte (declaration) 33-33 doc 32",
        ],
    );
    lacks(&s, "Handler.ServeHTTP");
}

const DECLARED_TS: &str = r#"export declare class Observable<T> {
    subscribe(next: (value: T) => void): void;
}
declare function noop(): void;
declare module "legacy" {
    export function parse(text: string): object;
    export class Parser {
        parse(): void;
    }
}
declare global {
    interface Window {
        app: object;
    }
}
export declare const VERSION: string;
export class Subject<T> {
    @Input()
    @Output()
    name = "subject";

    static create<T>(): Subject<T> {
        return new Subject<T>();
    }
}
export const animationFrameProvider = {
    schedule(callback: () => void) {
        return 1;
    },
    delegate: undefined,
};
"#;

#[test]
fn typescript_ambient_declarations_are_declarations() {
    let s = build("observable.ts", DECLARED_TS);
    has(
        &s,
        &[
            "class Observable (declaration) 1-3",
            "function noop (declaration) 4-4",
            "module legacy (declaration) 5-10",
            "function legacy.parse (declaration) 6-6",
            "class legacy.Parser (declaration) 7-9",
            "interface Window (declaration) 12-14",
            "constant VERSION (declaration) 16-16",
            "class Subject 17-25",
            // Decorators start the member.
            "property Subject.name 18-20",
            "method Subject.create 22-24",
            "variable animationFrameProvider 26-31",
            "method animationFrameProvider.schedule 27-29",
        ],
    );
}

const COMMONJS: &str = r#"'use strict';

var app = exports = module.exports = {};

/**
 * Listen for connections.
 */
app.listen = function listen() {
  return this;
};

req.get =
req.header = function header(name) {
  return name;
};

exports.parse = (text) => JSON.parse(text);

module.exports.stringify = function (value) {
  return JSON.stringify(value);
};

function Axios(config) {
  this.defaults = config;
}

Axios.prototype.request = function request(config) {
  return config;
};

Axios.from = (error, code) => {
  return error;
};

Axios.prototype = {
  getUri: function getUri(config) {
    return config.url;
  },
};

const utils = {
  forEach(obj, fn) {
    return obj;
  },
  isArray: Array.isArray,
  map: (list) => list,
};

module.exports = {
  merge(a, b) {
    return a;
  },
};

export default {
  bind(fn) {
    return fn;
  },
};

setup({ helper() {} });
"#;

#[test]
fn javascript_assignments_and_object_literal_members() {
    let s = build("application.js", COMMONJS);
    has(
        &s,
        &[
            "method app.listen 8-10 doc 5",
            "method req.get 12-15",
            "method req.header 13-15",
            "function parse 17-17",
            "function stringify 19-21",
            "function Axios 23-25",
            "method Axios.prototype.request 27-29",
            "method Axios.from 31-33",
            "variable Axios.prototype 35-39",
            "method Axios.prototype.getUri 36-38",
            "variable utils 41-47",
            "method utils.forEach 42-44",
            "method utils.map 46-46",
            "function merge 50-52",
            "function bind 56-58",
        ],
    );
    for q in ["exports", "module.exports", "helper", "utils.isArray"] {
        lacks(&s, q);
    }
}

const MODULE_WRAPPERS: &str = r#";(function() {
  function outer() {
    return 1;
  }

  var make = (function make(context) {
    function inner(a) {
      return a;
    }
    var local = 2;
    return inner;
  });

  function helper() {
    function hidden() {}
    return hidden;
  }
}.call(this));

!function () {
  function bang() {}
}();

const api = (() => {
  class Client {
    send() {}
  }
  return { Client };
})();

setTimeout(function () {
  function callback() {}
}, 1);
"#;

#[test]
fn javascript_module_wrappers_define_what_their_bodies_define() {
    let s = build("wrapped.js", MODULE_WRAPPERS);
    has(
        &s,
        &[
            "function outer 2-4",
            "function make.inner 7-9",
            "function helper 14-17",
            "function bang 21-21",
            "class api.Client 25-27",
            "method api.Client.send 26-26",
        ],
    );
    // The wrapper's body is a module: its variables are the module's too.
    has(&s, &["variable make.local 10-10"]);
    // A plain function's locals, a callback's body: not the module's.
    for q in ["helper.hidden", "hidden", "callback"] {
        lacks(&s, q);
    }
}

#[test]
fn declaration_files_by_name() {
    use super::super::declaration::in_declaration_file;
    for (path, yes) in [
        ("types/Observable.d.ts", true),
        ("x.d.mts", true),
        ("stubs/os.pyi", true),
        ("Observable.ts", false),
        ("d.ts", false),
        ("lib/index.js", false),
    ] {
        assert_eq!(in_declaration_file(Path::new(path)), yes, "{path}");
    }
}

#[test]
fn a_declaration_file_holds_declarations_only() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        "export interface Observer<T> {\n  next(value: T): void;\n}\nexport type Id = string;\n";
    std::fs::write(dir.path().join("types.d.ts"), src).unwrap();
    std::fs::write(dir.path().join("types.ts"), src).unwrap();
    let ws = crate::workspace::Workspace::new(crate::roots::Roots::new([dir.path()]).unwrap());
    let decl = |name: &str| {
        let source = ws.open_source(name).unwrap();
        let s = super::super::structure_of(&ws, &source, Lang::TypeScript)
            .unwrap()
            .unwrap();
        s.symbols.iter().map(|x| x.declaration).collect::<Vec<_>>()
    };
    assert_eq!(decl("types.d.ts"), [true, true]);
    assert_eq!(decl("types.ts"), [false, false]);
}
