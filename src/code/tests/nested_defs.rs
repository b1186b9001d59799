//! Unit tests of definitions written inside control structures and method bodies: a
//! fallback class under Ruby's `begin … rescue`, a method kept by `end unless
//! method_defined?`, PHP and JavaScript definitions under a top-level `if` or `try`, and
//! C#'s local functions, each listed under the scope it belongs to.

use super::lang_b_defs::{build, sites};

const RUBY: &str = r#"# Loads the inflector, or defines what the script needs.
begin
  require "active_support/inflector"
rescue LoadError
  class String
    def camelize
      split("_").map(&:capitalize).join
    end
  end
ensure
  def loaded?
    true
  end
end

class Symbol
  def start_with?(*prefixes)
    to_s.start_with?(*prefixes)
  end unless method_defined?(:start_with?)

  if RUBY_VERSION < "3"
    if defined?(Ractor)
      def shareable
        self
      end
    end
  end
end
"#;

#[test]
fn ruby_definitions_under_begin_rescue_and_modifiers_are_found() {
    let s = build("profile.rb", RUBY);
    assert_eq!(sites(&s, "String"), ["class String 5-9"]);
    assert_eq!(sites(&s, "camelize"), ["method String.camelize 6-8"]);
    assert_eq!(sites(&s, "loaded?"), ["function loaded? 11-13"]);
    assert_eq!(
        sites(&s, "start_with?"),
        ["method Symbol.start_with? 17-19"]
    );
    assert_eq!(sites(&s, "shareable"), ["method Symbol.shareable 23-25"]);
}

const PHP: &str = r#"<?php

try {
    function mb_fold(string $s): string
    {
        return mb_strtolower($s);
    }
} catch (\Error $e) {
    class FoldError extends \Exception
    {
    }
} finally {
    const FOLD_READY = true;
}
"#;

#[test]
fn php_definitions_under_a_top_level_try_are_found() {
    let s = build("fold.php", PHP);
    assert_eq!(sites(&s, "mb_fold"), ["function mb_fold 4-7"]);
    assert_eq!(sites(&s, "FoldError"), ["class FoldError 9-11"]);
}

const JS: &str = r#"'use strict';

if (typeof window === 'undefined') {
  function schedule(fn) {
    setImmediate(fn);
  }
} else if (window.queueMicrotask) {
  if (window.requestIdleCallback) {
    function idle(fn) {
      window.requestIdleCallback(fn);
    }
  }
}

try {
  class NativeCodec {}
  module.exports.codec = new NativeCodec();
} catch (err) {
  var fallbackCodec = function () {
    return null;
  };
}

function run() {
  if (true) {
    function hidden() {}
  }
}
"#;

#[test]
fn javascript_definitions_under_top_level_if_and_try_are_the_modules() {
    for name in ["env.js", "env.ts"] {
        let s = build(name, JS);
        assert_eq!(sites(&s, "schedule"), ["function schedule 4-6"], "{name}");
        assert_eq!(sites(&s, "idle"), ["function idle 9-11"], "{name}");
        assert_eq!(
            sites(&s, "NativeCodec"),
            ["class NativeCodec 16-16"],
            "{name}"
        );
        assert_eq!(
            sites(&s, "fallbackCodec"),
            ["function fallbackCodec 19-21"],
            "{name}"
        );
        // A function body is not structure: what it declares stays out.
        assert!(sites(&s, "hidden").is_empty(), "{name}");
    }
}

const CSHARP: &str = r#"namespace Acme.Codecs
{
    public static class Decoders
    {
        public static bool TryDecode(object value, out string result)
        {
            result = Format(value);
            return result.Length > 0;

            static string Format(object v)
            {
                string Quote(string s) => "\"" + s + "\"";
                return Quote(v.ToString());
            }
        }

        public Decoders()
        {
            void Log(string line) => System.Console.WriteLine(line);
            Log("ready");
        }

        public static int Plain(int x)
        {
            if (x > 0)
            {
                return x;
            }
            return -x;
        }
    }
}
"#;

#[test]
fn csharp_local_functions_are_functions_of_their_method() {
    let s = build("Decoders.cs", CSHARP);
    assert_eq!(
        sites(&s, "TryDecode"),
        ["method Acme.Codecs.Decoders.TryDecode 5-15"]
    );
    assert_eq!(
        sites(&s, "Format"),
        ["function Acme.Codecs.Decoders.TryDecode.Format 10-14"]
    );
    assert_eq!(
        sites(&s, "Quote"),
        ["function Acme.Codecs.Decoders.TryDecode.Format.Quote 12-12"]
    );
    assert_eq!(
        sites(&s, "Log"),
        ["function Acme.Codecs.Decoders.Decoders.Log 19-19"]
    );
    // A method without local functions has no members.
    let plain = s.symbols.iter().find(|x| x.name == "Plain").expect("Plain");
    assert!(plain.children.is_empty());
}

const CSHARP_TOP_LEVEL: &str = r#"using System;

Console.WriteLine(Greet("world"));

static string Greet(string who)
{
    return $"Hello, {who}";
}
"#;

#[test]
fn csharp_top_level_statements_declare_functions() {
    let s = build("Program.cs", CSHARP_TOP_LEVEL);
    assert_eq!(sites(&s, "Greet"), ["function Greet 5-8"]);
}

const JSDOC: &str = r#"var baseSlice = require('./_baseSlice');

/**
 * Splits `array` into groups the length of `size`.
 *
 * @static
 * @memberOf _
 * @param {Array} array The array to process.
 * @returns {Array} Returns the new array of chunks.
 */
function chunk(array, size) {
  return baseSlice(array, 0, size);
}

/**
 * Removes all entries from the stack.
 *
 * @private
 * @name clear
 * @memberOf Stack
 */
function stackClear() {
  this.size = 0;
}

/** Creates a stack. */
function Stack() {}

module.exports = chunk;
"#;

#[test]
fn a_jsdoc_memberof_tag_names_the_owner() {
    for name in ["chunk.js", "chunk.ts"] {
        let s = build(name, JSDOC);
        assert_eq!(sites(&s, "chunk"), ["function _.chunk 11-13"], "{name}");
        // `@name` names another symbol than the one below: the tags are not its own.
        assert_eq!(
            sites(&s, "stackClear"),
            ["function stackClear 22-24"],
            "{name}"
        );
        assert_eq!(sites(&s, "Stack"), ["function Stack 27-27"], "{name}");
    }
}
