//! JavaScript and TypeScript: the owner a JSDoc comment names. A `/** … @memberof X */`
//! block right above a definition documents it as a member of `X` — how lodash's
//! `function chunk(…)`, exported alone from `chunk.js` or defined inside `runInContext`, is
//! `_.chunk` (its `@memberOf _`) — so the symbol is qualified by `X` instead of the scope
//! it is written in.

use tree_sitter::Node;

use super::builder::Builder;

impl<'a> Builder<'a> {
    /// The parent a JSDoc block right above the definition at `node` (named `name`) gives
    /// with `@memberof`: none without such a block, or when the block's `@name` tag names
    /// another symbol (lodash's `@name clear` above `function stackClear`).
    pub(super) fn jsdoc_owner(&self, node: Node<'a>, name: &str) -> Option<String> {
        let outer = self.outer(node);
        let comment = self
            .prev_named(outer)
            .filter(|c| self.lang.is_comment(c.kind()) && self.last(*c) + 1 == self.first(outer))?;
        let text = self.text(comment);
        // `@memberOf` or `@memberof`: most blocks have neither.
        if !text.starts_with("/**") || !text.contains("@member") {
            return None;
        }
        if tag_value(text, "@name").is_some_and(|n| n != name) {
            return None;
        }
        tag_value(text, "@memberof").filter(|owner| is_namepath(owner))
    }
}

/// The first word after `tag` (matched without regard to case: lodash writes `@memberOf`,
/// the JSDoc manual `@memberof`) in a comment; a `!` right after the tag (`@memberof!`,
/// which forces the parent) is skipped.
fn tag_value(comment: &str, tag: &str) -> Option<String> {
    let lower = comment.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(tag) {
        let after = from + at + tag.len();
        from = after;
        let rest = comment[after..]
            .strip_prefix('!')
            .unwrap_or(&comment[after..]);
        // `@namespace`, `@memberofx`: another tag.
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let word = rest.split_whitespace().next()?;
        return Some(word.trim_end_matches("*/").to_string());
    }
    None
}

/// Whether a `@memberof` value is a plain dotted name (`_`, `_.templateSettings`), not an
/// instance or inner member path (`Foo#bar`, `Foo~inner`), a module path or a quoted name.
fn is_namepath(owner: &str) -> bool {
    !owner.is_empty()
        && owner.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
        })
}

#[cfg(test)]
mod tests {
    use super::{is_namepath, tag_value};

    #[test]
    fn tags_are_read_without_regard_to_case() {
        let doc = "/**\n * Splits.\n *\n * @static\n * @memberOf _\n * @since 3.0.0\n */";
        assert_eq!(tag_value(doc, "@memberof").as_deref(), Some("_"));
        assert_eq!(
            tag_value("/** @memberof! Acme.Util */", "@memberof").as_deref(),
            Some("Acme.Util")
        );
        assert_eq!(tag_value("/** @namespace Acme */", "@name"), None);
        assert_eq!(
            tag_value("/** @name clear */", "@name").as_deref(),
            Some("clear")
        );
    }

    #[test]
    fn only_dotted_names_are_owners() {
        assert!(is_namepath("_"));
        assert!(is_namepath("_.templateSettings"));
        assert!(is_namepath("$"));
        assert!(!is_namepath("Foo#bar"));
        assert!(!is_namepath("module:foo/bar"));
        assert!(!is_namepath("Foo."));
    }
}
