//! The per-language tables of Kotlin, Ruby, PHP, Swift and Scala (the other languages' are
//! in `lang.rs`): file names, transparent and container nodes, symbol kinds of their own.

use std::path::Path;

use super::lang_id::Lang;

/// Symbol kinds these languages add to `lang.rs`'s: Kotlin and Scala `object`s, Swift
/// protocols and extensions.
pub(crate) const KINDS: [&str; 3] = ["object", "protocol", "extension"];

/// The language of a file by its extension (lower case).
pub(crate) fn from_extension(ext: &str) -> Option<Lang> {
    Some(match ext {
        "kt" | "kts" => Lang::Kotlin,
        "rb" | "rake" | "gemspec" | "ru" => Lang::Ruby,
        "php" => Lang::Php,
        "swift" => Lang::Swift,
        "scala" | "sc" => Lang::Scala,
        _ => return None,
    })
}

/// The language of a file known by its whole name (`Rakefile`, `Gemfile`).
pub(crate) fn from_file_name(path: &Path) -> Option<Lang> {
    let name = path.file_name()?.to_str()?;
    matches!(name, "Rakefile" | "Gemfile" | "Guardfile" | "Podfile").then_some(Lang::Ruby)
}

/// Node kinds a kept symbol may sit in without being a member of another symbol.
pub(crate) fn transparent(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(kind, "source_file" | "class_body" | "enum_class_body"),
        // `class << self` holds singleton methods of the class around it.
        Lang::Ruby => matches!(kind, "program" | "body_statement" | "singleton_class"),
        Lang::Php => matches!(
            kind,
            "program" | "declaration_list" | "enum_declaration_list" | "compound_statement"
        ),
        Lang::Swift => matches!(
            kind,
            "source_file" | "class_body" | "enum_class_body" | "protocol_body"
        ),
        Lang::Scala => matches!(
            kind,
            "compilation_unit" | "template_body" | "enum_body" | "extension_definition"
        ),
        _ => false,
    }
}

/// Node kinds of definitions whose bodies hold member symbols.
pub(crate) fn is_container_node(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(
            kind,
            "class_declaration" | "object_declaration" | "companion_object"
        ),
        Lang::Ruby => matches!(kind, "module" | "class"),
        Lang::Php => matches!(
            kind,
            "class_declaration"
                | "interface_declaration"
                | "trait_declaration"
                | "enum_declaration"
                | "namespace_definition"
        ),
        Lang::Swift => matches!(kind, "class_declaration" | "protocol_declaration"),
        Lang::Scala => matches!(
            kind,
            "class_definition" | "object_definition" | "trait_definition" | "enum_definition"
        ),
        _ => false,
    }
}

/// Symbol kinds whose members are symbols too, beyond the ones every language has.
pub(crate) fn is_container_kind(lang: Lang, kind: &str) -> bool {
    lang.is_b()
        && matches!(
            kind,
            "object" | "protocol" | "extension" | "struct" | "enum"
        )
}

/// Line starts where a large file may be cut in two for parsing (see `build::split_point`).
pub(crate) fn split_starts(lang: Lang) -> &'static [&'static [u8]] {
    match lang {
        Lang::Kotlin => &[b"fun ", b"class ", b"data class ", b"object ", b"/**"],
        Lang::Ruby => &[b"def ", b"class ", b"module "],
        // A PHP half without its `<?php` would read as HTML text: never cut.
        Lang::Php => &[],
        Lang::Swift => &[b"func ", b"struct ", b"class ", b"extension ", b"///"],
        Lang::Scala => &[b"def ", b"class ", b"object ", b"trait ", b"/**"],
        _ => &[],
    }
}
