//! Languages told by content where the file name does not say (`detect.rs`): C++ in `.h`
//! headers, files without an extension by their `#!` line or modeline, shell files by their
//! shape; and what the parse then finds in them (C functions behind attribute macros of no
//! fixed list, C++ of a header, shell functions of a sourced file).

use std::path::Path;

use super::super::*;

fn lang(path: &str, src: &str) -> Option<Lang> {
    Lang::of_file(Path::new(path), src.as_bytes())
}

/// `(qualified, kind, start, end)` of the definitions (not declarations) of `src`, parsed in
/// the language its path and content tell.
fn definitions(path: &str, src: &str) -> Vec<(String, &'static str, u32, u32)> {
    let lang = lang(path, src).expect("a parsed language");
    let s = FileStructure::build(lang, src.as_bytes()).expect("parsed");
    super::assert_partition(&s, src.as_bytes());
    s.symbols
        .iter()
        .filter(|s| !s.declaration)
        .map(|s| (s.qualified.clone(), s.kind, s.start_line, s.end_line))
        .collect()
}

fn has(all: &[(String, &'static str, u32, u32)], q: &str, kind: &str, start: u32, end: u32) {
    assert!(
        all.iter()
            .any(|s| s.0 == q && s.1 == kind && s.2 == start && s.3 == end),
        "{q} {kind} {start}-{end} in {all:#?}"
    );
}

const C_HEADER: &str = "\
#ifndef RING_H
#define RING_H
/* A ring of fixed size; see ring.c for the class of callers. */
struct ring {
\tint head, tail;
};
int ring_push(struct ring *r, int v);
#endif
";

const CPP_CLASS_HEADER: &str = "\
#ifndef POOL_H
#define POOL_H
#include <stddef.h>

class Pool {
public:
  explicit Pool(size_t n);
  void *get();
};
#endif
";

const CPP_NAMESPACE_HEADER: &str = "\
// Spans of bytes.
#pragma once

namespace bytes
{
  struct span_base
  {
    unsigned long len;
  };
}
";

const CPP_TEMPLATE_HEADER: &str = "\
#include \"config.h\"

template<typename T>
T clamp_to(T v, T lo, T hi)
{
  return v < lo ? lo : hi < v ? hi : v;
}
";

const OBJC_HEADER: &str = "\
#import <Foundation/Foundation.h>

@interface Counter : NSObject
- (void)bump;
@end
";

#[test]
fn headers_are_cpp_by_their_classes_namespaces_and_templates() {
    assert_eq!(lang("ring.h", C_HEADER), Some(Lang::C));
    assert_eq!(lang("pool.h", CPP_CLASS_HEADER), Some(Lang::Cpp));
    assert_eq!(lang("span.h", CPP_NAMESPACE_HEADER), Some(Lang::Cpp));
    assert_eq!(lang("clamp.h", CPP_TEMPLATE_HEADER), Some(Lang::Cpp));
    // Objective-C is none of this build's languages.
    assert_eq!(lang("Counter.h", OBJC_HEADER), None);
    // Markers in comments and strings do not count; a `.c` file stays C whatever it holds.
    let commented = "/* a class Foo in C++ would use namespace x { } */\nint f(void);\n";
    assert_eq!(lang("f.h", commented), Some(Lang::C));
    assert_eq!(lang("pool.c", CPP_CLASS_HEADER), Some(Lang::C));
    // A modeline decides before the markers.
    let marked = "/* -*- C++ -*- */\n#define POOL_SIZE 64\n";
    assert_eq!(lang("pool_size.h", marked), Some(Lang::Cpp));
}

#[test]
fn cpp_of_a_header_parses_as_cpp() {
    let all = definitions("pool.h", CPP_CLASS_HEADER);
    has(&all, "Pool", "class", 5, 9);
    let all = definitions("span.h", CPP_NAMESPACE_HEADER);
    has(&all, "bytes", "namespace", 4, 10);
    has(&all, "bytes.span_base", "struct", 6, 9);
    let all = definitions("clamp.h", CPP_TEMPLATE_HEADER);
    has(&all, "clamp_to", "function", 3, 7);
}

const SOURCED_HELPERS: &str = "\
# Helpers sourced by the hook scripts; not run on their own.

log_step()
{
\tprintf '%s\\n' \"$*\" >&2
}

copy_file() {
\tsrc=\"$1\"
\tdst=\"$2\"
\tif [ -e \"$dst\" ]; then
\t\treturn 0
\tfi
\tcp -p \"$src\" \"$dst\"
}

if command -v mktemp >/dev/null; then
\tscratch_dir() { mktemp -d; }
else
\tscratch_dir() { mkdir -p /tmp/scratch.$$ && echo /tmp/scratch.$$; }
fi
";

const README_NO_EXT: &str = "\
This directory holds the helpers of the build. Run the install script
from the top of the tree and read the notes below before changing them.

Copy the files by hand when the script is not there.
";

const MAKEFILE: &str = "\
all: build

build:
\tif [ -d out ]; then echo ok; fi
";

#[test]
fn files_without_extension_by_shebang() {
    for (first, want) in [
        ("#!/bin/sh", Some(Lang::Bash)),
        ("#!/bin/bash -e", Some(Lang::Bash)),
        ("#!/usr/bin/env bash", Some(Lang::Bash)),
        ("#! /bin/dash", Some(Lang::Bash)),
        ("#!/usr/bin/env python3", Some(Lang::Python)),
        (
            "#!/usr/bin/env -S node --no-warnings",
            Some(Lang::JavaScript),
        ),
        ("#!/usr/bin/perl -w", None),
        ("#!/usr/bin/make -f", None),
    ] {
        let src = format!("{first}\necho hello\n");
        let want = want.filter(|l| l.enabled());
        assert_eq!(lang("bin/run", &src), want, "{first}");
    }
}

#[test]
fn files_without_extension_by_modeline() {
    let head = "# -*- mode: sh; indent-tabs-mode: t -*-\nPREFIX=/usr\n";
    assert_eq!(lang("config/defaults", head), Some(Lang::Bash));
    let tail = "PREFIX=/usr\nLIBDIR=$PREFIX/lib\n\n# vim: set ft=sh:\n";
    assert_eq!(lang("config/paths", tail), Some(Lang::Bash));
    let other = "# vim: set ft=make:\nall: build\n";
    assert_eq!(lang("rules", other), None);
}

#[test]
fn shell_files_without_either_by_their_shape() {
    assert_eq!(lang("hooks/helpers", SOURCED_HELPERS), Some(Lang::Bash));
    assert_eq!(lang("NOTES", README_NO_EXT), None);
    assert_eq!(lang("Makefile", MAKEFILE), None);
    // By whole name.
    assert_eq!(lang(".bashrc", "alias ll='ls -l'\n"), Some(Lang::Bash));
    // An extension of another format is never read as shell.
    assert_eq!(lang("helpers.txt", SOURCED_HELPERS), None);
    // Only content decides for extensionless files; known formats are left to their readers.
    assert!(Lang::content_decides(Path::new("hooks/helpers")));
    assert!(!Lang::content_decides(Path::new("notes.md")));
    assert!(!Lang::content_decides(Path::new("main.c")));
}

#[test]
fn sourced_shell_functions_wherever_they_stand() {
    let all = definitions("hooks/helpers", SOURCED_HELPERS);
    has(&all, "log_step", "function", 3, 6);
    has(&all, "copy_file", "function", 8, 15);
    has(&all, "scratch_dir", "function", 18, 18);
    has(&all, "scratch_dir", "function", 20, 20);
}

const C_ATTRIBUTE_MACROS: &str = "\
#include \"pool.h\"

#define POOL_API __attribute__((visibility(\"default\")))
#define POOL_WARN_UNUSED __attribute__((warn_unused_result))

POOL_API POOL_WARN_UNUSED
int pool_reserve(struct pool *p, size_t n)
{
\treturn p->cap >= n;
}

static inline POOL_HOT_PATH void *pool_get(struct pool *p)
{
\treturn p->slots[p->next++];
}

POOL_API void
pool_reset(struct pool *p)
{
\tp->next = 0;
}

int pool_size(const struct pool *p) POOL_PURE;
";

#[test]
fn c_functions_behind_attribute_macros_of_no_fixed_list() {
    let all = definitions("pool.c", C_ATTRIBUTE_MACROS);
    has(&all, "pool_reserve", "function", 6, 10);
    has(&all, "pool_get", "function", 12, 15);
    has(&all, "pool_reset", "function", 17, 21);
    assert!(
        !all.iter().any(|s| s.0 == "pool_size"),
        "a prototype is a declaration: {all:#?}"
    );
}

const CPP_MACRO_LED: &str = "\
namespace algo
{
  template<typename _Iter>
    _ALGO_CONSTEXPR
    inline void
    sort_all(_Iter __first, _Iter __last)
    {
      __sort(__first, __last);
    }

  typedef enum order
    {
      order_relaxed,
      order_seq
    } order;
}
";

#[test]
fn cpp_functions_behind_macros_and_one_site_for_a_typedef_of_its_tag() {
    let all = definitions("algo.h", CPP_MACRO_LED);
    has(&all, "algo.sort_all", "function", 3, 9);
    let orders: Vec<_> = all.iter().filter(|s| s.0 == "algo.order").collect();
    assert_eq!(orders.len(), 1, "{all:#?}");
    assert_eq!(orders[0].1, "enum");
}
