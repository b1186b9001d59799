//! Unit tests of what the definition lookup reads from Java, C#, Kotlin, Scala, Swift, Ruby
//! and PHP structures: the file's package, qualified names as each language writes them
//! (packages, namespaces, nested and reopened types, extensions, package objects, operator
//! names), definition lines with their annotations, and declarations told from definitions.

use std::path::Path;

use super::super::{FileStructure, Lang};
use super::assert_partition;

pub(super) fn build(name: &str, src: &str) -> FileStructure {
    let lang = Lang::from_path(Path::new(name)).expect("a language");
    let s = FileStructure::build(lang, src.as_bytes()).expect("parsed");
    assert_partition(&s, src.as_bytes());
    s
}

/// The symbols named `name` as the lookup lists them: `KIND FULL DEF-END`, the full name
/// being the package and the qualified name, ` (declaration)` after a declaration.
pub(super) fn sites(s: &FileStructure, name: &str) -> Vec<String> {
    s.symbols
        .iter()
        .filter(|x| x.name == name)
        .map(|x| {
            let full = match s.package.is_empty() {
                true => x.qualified.clone(),
                false => format!("{}.{}", s.package.join("."), x.qualified),
            };
            let decl = if x.declaration { " (declaration)" } else { "" };
            format!("{} {full} {}-{}{decl}", x.kind, x.def_line, x.end_line)
        })
        .collect()
}

const JAVA: &str = r#"package org.acme.text;

import java.util.Objects;

/** Formats values. */
@SuppressWarnings("unused")
public final class Format {

    /** The text of an int. */
    public static String valueOf(int i) {
        return Integer.toString(i);
    }

    @Deprecated
    public static String valueOf(Object o) {
        return Objects.toString(o);
    }

    static class Node {
        Node next;
    }

    public enum Style { PLAIN, FANCY; String tag() { return name(); } }

    public record Span(int from, int to) {}
}

interface Sequence<T> {
    static <T> Sequence<T> of(T one) {
        return null;
    }

    int size();

    default boolean isEmpty() {
        return size() == 0;
    }
}

@interface Marker {
    String value() default "";
}
"#;

#[test]
fn java_packages_overloads_nested_types_and_annotations() {
    let s = build("Format.java", JAVA);
    assert_eq!(s.package, ["org", "acme", "text"]);
    // The first line is the first annotation's, the Javadoc above it not.
    assert_eq!(sites(&s, "Format"), ["class org.acme.text.Format 6-26"]);
    assert_eq!(
        sites(&s, "valueOf"),
        [
            "method org.acme.text.Format.valueOf 10-12",
            "method org.acme.text.Format.valueOf 14-17"
        ]
    );
    assert_eq!(
        sites(&s, "Node")[0],
        "class org.acme.text.Format.Node 19-21"
    );
    assert_eq!(
        sites(&s, "Style"),
        ["enum org.acme.text.Format.Style 23-23"]
    );
    assert_eq!(
        sites(&s, "tag"),
        ["method org.acme.text.Format.Style.tag 23-23"]
    );
    assert_eq!(
        sites(&s, "Span"),
        ["record org.acme.text.Format.Span 25-25"]
    );
    // An interface's static and default methods are definitions, its abstract one not.
    assert_eq!(sites(&s, "of"), ["method org.acme.text.Sequence.of 29-31"]);
    assert_eq!(
        sites(&s, "size"),
        ["method org.acme.text.Sequence.size 33-33 (declaration)"]
    );
    assert_eq!(
        sites(&s, "isEmpty"),
        ["method org.acme.text.Sequence.isEmpty 35-37"]
    );
    assert_eq!(
        sites(&s, "Marker"),
        ["interface org.acme.text.Marker 40-42"]
    );
}

#[test]
fn csharp_file_scoped_namespaces_are_packages_block_ones_qualify() {
    let scoped = "using System;\n\nnamespace Acme.Billing;\n\n[Serializable]\npublic partial class Invoice\n{\n    public decimal Total() => 0m;\n}\n";
    let s = build("Invoice.cs", scoped);
    assert_eq!(s.package, ["Acme", "Billing"]);
    // The attribute is the class's first line.
    assert_eq!(sites(&s, "Invoice"), ["class Acme.Billing.Invoice 5-9"]);
    assert_eq!(
        sites(&s, "Total"),
        ["method Acme.Billing.Invoice.Total 8-8"]
    );
    let block = "namespace Acme.Billing\n{\n    public partial class Invoice\n    {\n        void Print() { }\n        internal interface IRule { bool Check(); }\n    }\n}\n";
    let s = build("Invoice.Print.cs", block);
    assert!(s.package.is_empty());
    assert_eq!(sites(&s, "Invoice"), ["class Acme.Billing.Invoice 3-7"]);
    assert_eq!(
        sites(&s, "Print"),
        ["method Acme.Billing.Invoice.Print 5-5"]
    );
    assert_eq!(
        sites(&s, "Check"),
        ["method Acme.Billing.Invoice.IRule.Check 6-6 (declaration)"]
    );
}

const KOTLIN: &str = r#"@file:JvmName("Strings")
package org.acme.text

/** Joins. */
@Suppress("NOTHING_TO_INLINE")
@SinceKotlin("1.3")
public fun <T> Iterable<T>.joinWith(sep: String): String {
    return ""
}

public val String?.lastIndexOrNull: Int?
    get() = this?.length

public expect object Clock {
    val zone: String
}

public expect fun nowMillis(): Long

@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.BINARY)
public annotation class Stable

public typealias Handler = (Throwable?) -> Unit

public data class Pair<out A, out B>(val first: A, val second: B)

class Registry {
    companion object Key {
        fun create(): Registry = Registry()
    }
}
"#;

#[test]
fn kotlin_packages_extensions_expect_and_annotation_lines() {
    let s = build("Strings.kt", KOTLIN);
    assert_eq!(s.package, ["org", "acme", "text"]);
    // An extension is qualified by its receiver type; the annotations above it (which the
    // grammar reads as an expression of their own) are its first lines, the KDoc not.
    assert_eq!(
        sites(&s, "joinWith"),
        ["function org.acme.text.Iterable.joinWith 5-9"]
    );
    assert_eq!(s.symbols[0].start_line, 4);
    assert_eq!(
        sites(&s, "lastIndexOrNull"),
        ["variable org.acme.text.String.lastIndexOrNull 11-12"]
    );
    // `expect` declarations and their members are declarations (`actual` ones define).
    assert_eq!(
        sites(&s, "Clock"),
        ["object org.acme.text.Clock 14-16 (declaration)"]
    );
    assert_eq!(
        sites(&s, "zone"),
        ["property org.acme.text.Clock.zone 15-15 (declaration)"]
    );
    assert_eq!(
        sites(&s, "nowMillis"),
        ["function org.acme.text.nowMillis 18-18 (declaration)"]
    );
    // Two annotations with arguments above a declaration without a body.
    assert_eq!(sites(&s, "Stable"), ["class org.acme.text.Stable 20-22"]);
    assert_eq!(sites(&s, "Handler"), ["type org.acme.text.Handler 24-24"]);
    assert_eq!(sites(&s, "Pair"), ["class org.acme.text.Pair 26-26"]);
    assert_eq!(
        sites(&s, "create"),
        ["method org.acme.text.Registry.create 30-30"]
    );
    assert_eq!(
        sites(&s, "Key"),
        ["object org.acme.text.Registry.Key 29-31"]
    );
}

#[test]
fn kotlin_annotations_are_masked_in_place() {
    let src = "package a\n\n@Deprecated(\"x (y)\", level = DeprecationLevel.ERROR)\n@JvmField val x = 1\n@A(\n  \"z\"\n)\nclass C\n@file:JvmName(\"N\")\n  @Indented fun f() {}\n";
    let masked = super::super::lang_b::mask_annotations(src.as_bytes());
    let masked = std::str::from_utf8(&masked).unwrap();
    assert_eq!(masked.len(), src.len());
    assert_eq!(
        masked,
        "package a\n\n//eprecated(\"x (y)\", level = DeprecationLevel.ERROR)\n@JvmField val x = 1\n//(\n     \n \nclass C\n@file:JvmName(\"N\")\n  @Indented fun f() {}\n"
    );
    // Nothing to mask: the bytes themselves.
    let plain = "package a\nfun f() = 1\n";
    assert!(matches!(
        super::super::lang_b::mask_annotations(plain.as_bytes()),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn kotlin_annotations_over_several_lines_are_the_first_lines() {
    let src = "package a\n\n/** Old. */\n@Deprecated(\n    \"use g\",\n    level = DeprecationLevel.ERROR\n)\n@Suppress(\"X\")\nfun f() = 1\n\n@JvmName(\"from\") // for Java\nfun Int.g() = 2\n";
    let s = build("a.kt", src);
    assert_eq!(sites(&s, "f"), ["function a.f 4-9"]);
    assert_eq!(s.symbols[0].start_line, 3);
    assert_eq!(sites(&s, "g"), ["function a.Int.g 11-12"]);
}

const SCALA: &str = r#"package org.acme
package coll

/** Lists. */
@SerialVersionUID(1L)
sealed abstract class Seq[+A] {
  def ::[B >: A](x: B): Seq[B] = new ::(x, this)
  def :::[B >: A](p: Seq[B]): Seq[B] = p
  def fold[B](z: B)(op: (B, A) => B): B
}

final case class ::[+A](head: A, tail: Seq[A]) extends Seq[A]
case object Empty extends Seq[Nothing]

object Seq {
  def apply[A](xs: A*): Seq[A] = Empty
  def max(a: Int, b: Int): Int = a
  def max(a: Long, b: Long): Long = a
}

package object util {
  type Id = String
  val Id = "id"
  def breakOut: Int = 0
}

package impl {
  package deep {
    object Helpers {
      def twice(x: Int): Int = x * 2
    }
  }
}
"#;

#[test]
fn scala_packages_package_objects_operators_and_companions() {
    let s = build("Seq.scala", SCALA);
    assert_eq!(s.package, ["org", "acme", "coll"]);
    // A class and its companion object; operator names; an abstract member declared.
    assert_eq!(
        sites(&s, "Seq"),
        [
            "class org.acme.coll.Seq 5-10",
            "object org.acme.coll.Seq 15-19"
        ]
    );
    assert_eq!(
        sites(&s, "::"),
        [
            "method org.acme.coll.Seq.:: 7-7",
            "class org.acme.coll.:: 12-12"
        ]
    );
    assert_eq!(sites(&s, ":::"), ["method org.acme.coll.Seq.::: 8-8"]);
    assert_eq!(
        sites(&s, "fold"),
        ["method org.acme.coll.Seq.fold 9-9 (declaration)"]
    );
    assert_eq!(sites(&s, "Empty"), ["object org.acme.coll.Empty 13-13"]);
    assert_eq!(
        sites(&s, "max"),
        [
            "method org.acme.coll.Seq.max 17-17",
            "method org.acme.coll.Seq.max 18-18"
        ]
    );
    // `package object util` is `org.acme.coll.util` and holds the object
    // `org.acme.coll.util.package`, whose members are the package's.
    assert_eq!(sites(&s, "util"), ["object org.acme.coll.util 21-25"]);
    assert_eq!(
        sites(&s, "package"),
        ["object org.acme.coll.util.package 21-25"]
    );
    assert_eq!(
        sites(&s, "Id"),
        [
            "type org.acme.coll.util.Id 22-22",
            "property org.acme.coll.util.Id 23-23"
        ]
    );
    assert_eq!(
        sites(&s, "breakOut"),
        ["method org.acme.coll.util.breakOut 24-24"]
    );
    // Braced packages, nested deeper than the query's start depth, qualify what they hold.
    assert_eq!(
        sites(&s, "twice"),
        ["method org.acme.coll.impl.deep.Helpers.twice 30-30"]
    );
    let package_items: Vec<&str> = s.directives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(package_items, ["org.acme", "coll", "impl"]);
}

const SWIFT: &str = r#"import AVFoundation

/// Formats.
@objc
public extension AVCaptureDevice.Format {
  @objc var maxWidth: Int { 0 }

  static func ==(lhs: AVCaptureDevice.Format, rhs: AVCaptureDevice.Format) -> Bool {
    return true
  }
}

final class CameraSession {
  func configure() {}
}

extension CameraSession: AVCaptureAudioDataOutputSampleBufferDelegate {
  func startAudio() {}

  struct Options {}
}

protocol Recorder {
  func record() -> Bool
}

public extension Array where Element == Int {
  func total() -> Int { 0 }
}
"#;

#[test]
fn swift_extensions_are_sites_of_their_type() {
    let s = build("CameraSession.swift", SWIFT);
    assert!(s.package.is_empty());
    // `extension AVCaptureDevice.Format` is `Format` in `AVCaptureDevice`, its first line
    // the `@objc` above it.
    assert_eq!(
        sites(&s, "Format"),
        ["extension AVCaptureDevice.Format 4-11"]
    );
    assert_eq!(
        sites(&s, "maxWidth"),
        ["property AVCaptureDevice.Format.maxWidth 6-6"]
    );
    assert_eq!(sites(&s, "=="), ["method AVCaptureDevice.Format.== 8-10"]);
    // The class and each extension of it.
    assert_eq!(
        sites(&s, "CameraSession"),
        ["class CameraSession 13-15", "extension CameraSession 17-21"]
    );
    assert_eq!(
        sites(&s, "startAudio"),
        ["method CameraSession.startAudio 18-18"]
    );
    assert_eq!(sites(&s, "Options"), ["struct CameraSession.Options 20-20"]);
    assert_eq!(
        sites(&s, "record"),
        ["method Recorder.record 24-24 (declaration)"]
    );
    assert_eq!(sites(&s, "total"), ["method Array.total 28-28"]);
}

const RUBY: &str = r#"# frozen_string_literal: true

module Acme
  module Inflector
    def camelize(term)
      term
    end
    module_function :camelize
  end

  class Cache::Store
    def fetch(key)
      key
    end

    if RUBY_VERSION >= "3.0"
      def clear; end
    else
      def clear(options = nil); end
    end
  end

  module Tracking
    extend ActiveSupport::Concern

    included do
      def self.tracked?
        true
      end
    end

    class_methods do
      def track(*names); end
    end
  end

  Point = Struct.new(:x, :y) do
    def norm
      x + y
    end
  end
end

class Acme::Inflector::Rules
  def self.default; end
end

class String
  def camelize
    Acme::Inflector.camelize(self)
  end
end
"#;

#[test]
fn ruby_nested_compact_reopened_conditional_and_block_definitions() {
    let s = build("inflector.rb", RUBY);
    assert!(s.package.is_empty());
    // Nested modules and `class A::B` qualify alike.
    assert_eq!(
        sites(&s, "camelize"),
        [
            "method Acme.Inflector.camelize 5-7",
            "method String.camelize 49-51"
        ]
    );
    assert_eq!(sites(&s, "Rules"), ["class Acme.Inflector.Rules 44-46"]);
    assert_eq!(
        sites(&s, "default"),
        ["method Acme.Inflector.Rules.default 45-45"]
    );
    assert_eq!(sites(&s, "fetch"), ["method Acme.Cache.Store.fetch 12-14"]);
    // Both branches of an `if` define.
    assert_eq!(
        sites(&s, "clear"),
        [
            "method Acme.Cache.Store.clear 17-17",
            "method Acme.Cache.Store.clear 19-19"
        ]
    );
    // `included do` and `class_methods do` (ActiveSupport::Concern) define the module's.
    assert_eq!(
        sites(&s, "tracked?"),
        ["method Acme.Tracking.tracked? 27-29"]
    );
    assert_eq!(sites(&s, "track"), ["method Acme.Tracking.track 33-33"]);
    // `Point = Struct.new(...) do` is a class.
    assert_eq!(sites(&s, "Point"), ["class Acme.Point 37-41"]);
    assert_eq!(sites(&s, "norm"), ["method Acme.Point.norm 38-40"]);
}

const PHP: &str = r#"<?php

declare(strict_types=1);

namespace Acme\Http;

use Acme\Support\Bag;

if (!function_exists('dump')) {
    /**
     * Dumps.
     */
    function dump(mixed $value): mixed
    {
        return $value;
    }
}

trait Creates
{
    abstract protected function build(): static;

    public static function make(): static
    {
        return new static();
    }
}

interface Sends
{
    public function send(): void;
}

final class Request implements Sends
{
    use Creates;

    #[\ReturnTypeWillChange]
    public static function create(string $uri): static
    {
        return new static();
    }

    public function send(): void
    {
    }
}
"#;

#[test]
fn php_namespaces_conditional_functions_traits_and_statics() {
    let s = build("Request.php", PHP);
    assert_eq!(s.package, ["Acme", "Http"]);
    // A function defined under `if (!function_exists(...))`.
    assert_eq!(sites(&s, "dump"), ["function Acme.Http.dump 13-16"]);
    assert_eq!(
        sites(&s, "build"),
        ["method Acme.Http.Creates.build 21-21 (declaration)"]
    );
    assert_eq!(sites(&s, "make"), ["method Acme.Http.Creates.make 23-26"]);
    // The attribute is the method's first line.
    assert_eq!(
        sites(&s, "create"),
        ["method Acme.Http.Request.create 38-42"]
    );
    assert_eq!(
        sites(&s, "send"),
        [
            "method Acme.Http.Sends.send 31-31 (declaration)",
            "method Acme.Http.Request.send 44-46"
        ]
    );
    // A braced namespace qualifies its members with its parts.
    let braced = "<?php\nnamespace Acme\\Legacy {\n    if (PHP_VERSION_ID < 80000) {\n        class Polyfill {}\n    } else {\n        class Polyfill { public function v() {} }\n    }\n}\n";
    let s = build("Polyfill.php", braced);
    assert!(s.package.is_empty());
    assert_eq!(
        sites(&s, "Polyfill"),
        [
            "class Acme.Legacy.Polyfill 4-4",
            "class Acme.Legacy.Polyfill 6-6"
        ]
    );
    assert_eq!(sites(&s, "v"), ["method Acme.Legacy.Polyfill.v 6-6"]);
}
