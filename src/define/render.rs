//! The text of a lookup's answer, for both front-ends: one line per site, the code of the
//! sites that carry it (cut to the room the caller gives, saying how to read the rest), and a
//! summary with notes. Advice is worded through [`Words`].

use std::fmt::Write as _;

use super::{Definitions, Site};
use crate::quote::{self, json};
use crate::words::{Term, Words};

/// A rendered answer: its text, and whether the room cut it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub truncated: bool,
}

/// One site as a line: `path:start-end: kind qualified (lang, doc from N) — signature`.
pub fn site_line(s: &Site) -> String {
    let mut tags = vec![s.lang.name().to_string()];
    if s.declaration {
        tags.push("declaration".into());
    }
    if let Some(doc) = s.doc_line {
        tags.push(format!("doc from {doc}"));
    }
    format!(
        "{}:{}-{}: {} {} ({}) — {}",
        quote::name(&s.path),
        s.start_line,
        s.end_line,
        s.kind,
        quote::name(&s.qualified),
        tags.join(", "),
        s.signature
    )
}

/// The answer for the lookup of `name`: [`body`] with at most about `room` bytes of sites
/// and code, then the [`summary`].
pub fn render(d: &Definitions, name: &str, room: usize, w: &dyn Words) -> Rendered {
    let mut r = body(d, room, w);
    if !d.sites.is_empty() {
        r.text.push('\n');
    }
    r.text.push_str(&summary(d, name, w));
    r
}

/// The sites, one line each, then the code of those that carry it, within about `room` bytes.
pub fn body(d: &Definitions, room: usize, w: &dyn Words) -> Rendered {
    let mut out = String::new();
    let mut truncated = false;
    let mut used = 0;
    let mut listed = 0;
    for s in &d.sites {
        let line = site_line(s);
        if used + line.len() + 1 > room && listed > 0 {
            break;
        }
        used += line.len() + 1;
        out.push_str(&line);
        out.push('\n');
        listed += 1;
    }
    if listed < d.sites.len() {
        truncated = true;
        let _ = writeln!(
            out,
            "[cut: {} more sites left out (response size limit). Narrow the lookup with {}, {}, {} or {}.]",
            d.sites.len() - listed,
            w.name(Term::SearchPath),
            w.name(Term::Glob),
            w.name(Term::Kind),
            w.name(Term::Lang)
        );
    }
    for s in d.sites[..listed].iter().filter(|s| s.code.is_some()) {
        let left = room.saturating_sub(used);
        let (block, cut) = code_block(s, left, w);
        used += block.len();
        truncated |= cut;
        out.push('\n');
        out.push_str(&block);
    }
    Rendered {
        text: out,
        truncated,
    }
}

/// A site's code under a header line, cut at a line end to `room` bytes with a note.
fn code_block(s: &Site, room: usize, w: &dyn Words) -> (String, bool) {
    let code = s.code.as_deref().unwrap_or_default();
    let first = s.code_start();
    let mut out = format!(
        "--- {}:{}-{}: {} {} ---\n",
        quote::name(&s.path),
        first,
        s.end_line,
        s.kind,
        quote::name(&s.qualified)
    );
    if code.len() <= room {
        out.push_str(code);
        if !code.ends_with('\n') {
            out.push('\n');
        }
        return (out, false);
    }
    let mut end = room.min(code.len());
    while !code.is_char_boundary(end) {
        end -= 1;
    }
    let head = code[..end].rfind('\n').map_or("", |i| &code[..=i]);
    out.push_str(head);
    let shown = head.matches('\n').count() as u32;
    let from = first + shown;
    let path = json(&s.path);
    let (from_s, end_s) = (from.to_string(), s.end_line.to_string());
    let rest = w.example(
        Term::ReadLines,
        &[
            (Term::Path, &path),
            (Term::StartLine, &from_s),
            (Term::EndLine, &end_s),
        ],
    );
    let whole = w.example(
        Term::ReadCode,
        &[(Term::Path, &path), (Term::Target, &json(&s.address))],
    );
    let _ = writeln!(
        out,
        "[cut: lines {from}-{} left out (response size limit). Read them with {}, or the symbol with {}.]",
        s.end_line,
        call(w, Term::ReadLines, &rest),
        call(w, Term::ReadCode, &whole)
    );
    (out, true)
}

/// An example request with the operation's name in front, unless the example names it.
fn call(w: &dyn Words, op: Term, example: &str) -> String {
    let name = w.name(op);
    if example.contains(name.trim_matches('`')) {
        example.to_string()
    } else {
        format!("{name} {example}")
    }
}

/// The summary line and the notes.
pub fn summary(d: &Definitions, name: &str, w: &dyn Words) -> String {
    let mut text = String::new();
    let out = &mut text;
    let last = super::name::parse(name.trim())
        .map(|n| n.last)
        .unwrap_or_default();
    let files: std::collections::BTreeSet<&str> = d.sites.iter().map(|s| s.path.as_str()).collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let definitions = d.sites.iter().filter(|s| !s.declaration).count();
    let found: Vec<String> = [
        (definitions, "definition"),
        (d.sites.len() - definitions, "declaration"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, word)| plural(*n, word))
    .collect();
    let from_records = match d.files_from_records {
        0 => String::new(),
        n => format!(", {n} read from their records"),
    };
    let scope = match d.recorded {
        Some(files) => {
            let mut scope = format!("from the symbol index of {}", plural(files, "file"));
            if d.files_searched > 0 {
                let _ = write!(
                    scope,
                    "; {} not indexed yet searched, {} of them holding the word, {} parsed",
                    plural(d.files_searched as usize, "file"),
                    d.files_with_name,
                    d.files_parsed
                );
                scope.push_str(&from_records);
            }
            scope
        }
        None => format!(
            "{} the word '{last}', {} of them parsed{from_records}; searched {}",
            match d.files_with_name {
                1 => "1 file contains".to_string(),
                n => format!("{n} files contain"),
            },
            d.files_parsed,
            plural(d.files_searched as usize, "file"),
        ),
    };
    if d.sites.is_empty() {
        let _ = writeln!(out, "No definition of '{}' found ({scope}).", name.trim());
        let _ = writeln!(
            out,
            "It may be defined in a file type this build does not parse, or under another name: {} finds the text.",
            w.name(Term::Search)
        );
    } else {
        let _ = writeln!(
            out,
            "Found {} in {} ({scope}).",
            found.join(" and "),
            plural(files.len(), "file")
        );
    }
    notes(out, d, w);
    text
}

/// The note of a lookup answered through its module's imports: the names looked up instead.
fn via_note(out: &mut String, d: &Definitions) {
    if d.via.is_empty() {
        return;
    }
    let names: Vec<String> = d
        .via
        .iter()
        .map(|(name, at)| format!("{name} (bound at {at})"))
        .collect();
    let _ = writeln!(
        out,
        "Note: nothing is defined by that name; its module imports another under it, so these are {}.",
        names.join(", ")
    );
}

/// The notes after the summary: declarations left out or shown alone, unreadable files, and
/// how far a lookup cut by its budget (or stopped) got.
fn notes(out: &mut String, d: &Definitions, w: &dyn Words) {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    via_note(out, d);
    if d.only_declarations {
        let _ = writeln!(
            out,
            "Note: no definition with a body was found; these are declarations (prototypes, signatures)."
        );
    }
    if d.hidden_declarations > 0 {
        let _ = writeln!(
            out,
            "Note: {} (prototypes, signatures) not shown; {} lists them.",
            plural(d.hidden_declarations, "declaration"),
            w.set(Term::Declarations)
        );
    }
    if !d.errors.is_empty() {
        let _ = writeln!(
            out,
            "Could not read {} (e.g. {}).",
            plural(d.errors.len(), "file"),
            quote::line(&d.errors[0])
        );
    }
    let narrow = format!(
        "Narrow it with {}, {}, {} or {}.",
        w.name(Term::SearchPath),
        w.name(Term::Glob),
        w.name(Term::Lang),
        w.name(Term::Kind)
    );
    if d.search_cut {
        let _ = writeln!(
            out,
            "Note: the word is too common to search every file within the lookup's time; {} were searched, and the sites are from them. {narrow}",
            plural(d.files_searched as usize, "file"),
        );
    }
    if d.not_parsed > 0 {
        let _ = writeln!(
            out,
            "Note: {} holding the word {} not parsed within the lookup's time (the likeliest definers are parsed first); the sites are from the {} parsed. {narrow}",
            plural(d.not_parsed, "file"),
            if d.not_parsed == 1 { "was" } else { "were" },
            d.files_parsed,
        );
    }
    if !d.as_text.is_empty() {
        let examples: Vec<String> = d
            .as_text
            .iter()
            .take(3)
            .map(|(path, why)| format!("{} ({})", quote::name(path), why.why()))
            .collect();
        let _ = writeln!(
            out,
            "Note: {} holding the word {} read as text, not parsed: {}{}.",
            plural(d.as_text.len(), "file"),
            if d.as_text.len() == 1 { "is" } else { "are" },
            examples.join(", "),
            if d.as_text.len() > 3 { ", ..." } else { "" },
        );
    }
    if d.timed_out {
        let _ = writeln!(
            out,
            "Note: the lookup ran out of time; the sites are partial. Narrow it with {} or {}.",
            w.name(Term::SearchPath),
            w.name(Term::Glob)
        );
    } else if d.cancelled {
        let _ = writeln!(
            out,
            "Note: the lookup was cancelled; the sites are partial."
        );
    }
}
