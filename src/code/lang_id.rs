//! The languages as a type: the one thing every per-language table refers to, so it depends
//! on none of them (their dispatch, detection and grammars are `lang.rs`'s).

/// A language with a grammar and a symbol query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Rust,
    Python,
    Go,
    C,
    Cpp,
    Java,
    CSharp,
    Bash,
    // Kotlin, Ruby, PHP, Swift and Scala: their tables are in `lang_b.rs`.
    Kotlin,
    Ruby,
    Php,
    Swift,
    Scala,
}

/// Every language, in the order the docs list them.
pub const ALL: [Lang; 16] = [
    Lang::TypeScript,
    Lang::Tsx,
    Lang::JavaScript,
    Lang::Rust,
    Lang::Python,
    Lang::Go,
    Lang::C,
    Lang::Cpp,
    Lang::Java,
    Lang::CSharp,
    Lang::Bash,
    Lang::Kotlin,
    Lang::Ruby,
    Lang::Php,
    Lang::Swift,
    Lang::Scala,
];

impl Lang {
    /// Kotlin, Ruby, PHP, Swift and Scala: their tables and naming are `lang_b.rs`'s.
    pub(crate) fn is_b(self) -> bool {
        matches!(
            self,
            Lang::Kotlin | Lang::Ruby | Lang::Php | Lang::Swift | Lang::Scala
        )
    }
}
