//! The words a front-end uses for the engine's operations and request fields.
//!
//! The engine's messages give advice ("find the line with a search first", "pass the text
//! literally"), and advice must name what the caller would do: a server names its tools and
//! JSON parameters, a command line its commands and flags. The engine never names either
//! itself: it words its messages with the [`Words`] its front-end gave the workspace, through
//! the typed [`Term`]s below, so a new front-end (or a library user) gets messages in its own
//! terms without touching the engine. [`Neutral`] is the default: plain field names.

/// Something a message may name: an operation or a request field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    // Operations.
    /// Search file contents for a regex.
    Search,
    /// Read lines of files (head, tail, a range, up to a pattern).
    ReadLines,
    /// List a markdown document's sections.
    Toc,
    /// Read markdown sections by name.
    ReadSection,
    /// Find markdown sections by title, level or content.
    FindSection,
    /// Replace a markdown section.
    ReplaceSection,
    /// Read a code file by symbol, skeleton or range.
    ReadCode,
    /// The heading of a code read's answer (`## NAME: path`).
    CodeAnswer,
    // Fields of a line read.
    Path,
    Head,
    Tail,
    StartLine,
    EndLine,
    ToNextPattern,
    LargeFilePassthrough,
    // Fields of a search.
    Pattern,
    FixedStrings,
    SearchPath,
    SectionPatterns,
    Glob,
    Cursor,
    // Fields of a code read.
    Target,
    Skeleton,
    CodeStartLine,
    CodeEndLine,
    // Fields of a definition lookup.
    /// The name looked up.
    DefName,
    /// The symbol kind a lookup keeps.
    Kind,
    /// The language a lookup keeps.
    Lang,
    /// The switch that lists declarations (prototypes, signatures) too.
    Declarations,
    /// The switch that shows each definition's code.
    Code,
    // Fields of a section replacement.
    IncludeChildren,
    ExpectedHash,
    AllowReadOnly,
    AllowOutlineChange,
    /// The switch that lets a server write.
    AllowWrite,
    /// How a read-only server is restarted with writes enabled.
    EnableWrites,
}

/// A front-end's vocabulary.
pub trait Words: Send + Sync + std::fmt::Debug {
    /// The name of `term` as the caller writes it.
    fn name(&self, term: Term) -> &'static str;

    /// How the caller turns the switch `term` on.
    fn set(&self, term: Term) -> String {
        format!("{}: true", self.name(term))
    }

    /// How the caller gives `term` the value `value` (as a message quotes it).
    fn pair(&self, term: Term, value: &str) -> String {
        format!("{}: {value}", self.name(term))
    }

    /// A given value echoed in an error's "You provided" line.
    fn given(&self, term: Term, value: &str) -> String {
        format!("{}={value}", self.name(term))
    }

    /// A one-field request, as a hint quotes it (`{ target: "App.start" }`).
    fn inline(&self, term: Term, value: &str) -> String {
        format!("{{ {}: {value} }}", self.name(term))
    }

    /// A whole example request: `fields` with their values, written as the caller would.
    fn example(&self, op: Term, fields: &[(Term, &str)]) -> String {
        let _ = op;
        let body: Vec<String> = fields
            .iter()
            .map(|(t, v)| format!("\"{}\": {v}", self.name(*t)))
            .collect();
        format!("{{{}}}", body.join(", "))
    }
}

/// Plain words: operations by what they do, fields by their names in the engine's requests.
#[derive(Debug, Clone, Copy, Default)]
pub struct Neutral;

impl Words for Neutral {
    fn name(&self, term: Term) -> &'static str {
        match term {
            Term::Search => "a search",
            Term::ReadLines => "a line read",
            Term::Toc => "the outline",
            Term::ReadSection => "a section read",
            Term::FindSection => "a section search",
            Term::ReplaceSection => "a section replacement",
            Term::ReadCode => "a code read",
            Term::CodeAnswer => "code",
            Term::Path => "path",
            Term::Head => "head",
            Term::Tail => "tail",
            Term::StartLine | Term::CodeStartLine => "start_line",
            Term::EndLine | Term::CodeEndLine => "end_line",
            Term::ToNextPattern => "read_to_next_pattern",
            Term::LargeFilePassthrough => "large_file_passthrough",
            Term::Pattern => "pattern",
            Term::FixedStrings => "fixed_strings",
            Term::SearchPath => "search_path",
            Term::SectionPatterns => "section_patterns",
            Term::Glob => "glob",
            Term::Cursor => "cursor",
            Term::Target => "target",
            Term::Skeleton => "skeleton",
            Term::DefName => "name",
            Term::Kind => "kind",
            Term::Lang => "lang",
            Term::Declarations => "declarations",
            Term::Code => "code",
            Term::ExpectedHash => "expected_hash",
            Term::IncludeChildren => "include_children",
            Term::AllowReadOnly => "allow_read_only",
            Term::AllowOutlineChange => "allow_outline_change",
            Term::AllowWrite => "allow_write",
            Term::EnableWrites => "a workspace that allows writes",
        }
    }
}

/// The neutral words, for a workspace no front-end configured.
pub static NEUTRAL: Neutral = Neutral;
