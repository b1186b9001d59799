//! How a symbol answers the name a lookup asks for: its package, qualified name, parent
//! and language against the name's parts (`Want::fit_parts`).

use crate::code::{self, Lang};

use super::Want;
use super::name::Fit;

impl Want {
    /// How the symbol `sym` of a file whose package is `package` and whose symbols are
    /// `all` answers the name.
    pub(super) fn fit(
        &self,
        package: &[String],
        sym: &code::Symbol,
        all: &[code::Symbol],
        lang: Option<Lang>,
    ) -> Option<Fit> {
        let package: Vec<&str> = package.iter().map(String::as_str).collect();
        let parent = sym
            .parent
            .and_then(|p| all.get(p as usize))
            .map_or("", |p| p.name.as_str());
        self.fit_parts(&package, &sym.name, sym.kind, &sym.qualified, parent, lang)
    }

    /// How a symbol named `name` of kind `kind`, qualified `qualified` in a file of
    /// language `lang` whose package is `package`, inside the symbol named `parent`,
    /// answers the name.
    pub(super) fn fit_parts(
        &self,
        package: &[&str],
        name: &str,
        kind: &str,
        qualified: &str,
        parent: &str,
        lang: Option<Lang>,
    ) -> Option<Fit> {
        if name != self.last || self.kind.is_some_and(|k| k != kind) {
            return None;
        }
        let full: Vec<&str> = package
            .iter()
            .copied()
            .chain(qualified.split('.'))
            .collect();
        let fit = self.name.fit_in(&full, package.len());
        if fit == Some(Fit::Exact) {
            return fit;
        }
        // A Kotlin extension (`fun Array<T>.joinToString(…)`, qualified with its receiver
        // type) is a member of its package: imports name it `kotlin.collections.joinToString`.
        if lang == Some(Lang::Kotlin) && parent.is_empty() && qualified.contains('.') {
            let member: Vec<&str> = package.iter().copied().chain([name]).collect();
            if self.name.fit_in(&member, package.len()) == Some(Fit::Exact) {
                return Some(Fit::Exact);
            }
        }
        match impl_trait(parent) {
            Some(tr) if self.name.fits_trait(tr, package) => Some(Fit::Exact),
            _ => fit,
        }
    }
}

/// The trait a Rust `impl Trait for Type` block (as its symbol is named) implements, without
/// its path or generic arguments (`impl fmt::Display for Foo<T>` → `Display`): its methods
/// answer `Trait::method` as well as `Type::method`.
fn impl_trait(parent: &str) -> Option<&str> {
    let (tr, _) = parent.strip_prefix("impl ")?.split_once(" for ")?;
    let tr = tr.split('<').next().unwrap_or(tr).trim();
    let tr = tr.rsplit("::").next().unwrap_or(tr);
    (!tr.is_empty()).then_some(tr)
}
