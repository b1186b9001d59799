//! Finding a section from what a caller typed: a slug, an index path, a line number or
//! (fuzzily) a title.
//!
//! [`resolve`] tries [`Tier`]s in order and stops at the first that finds anything: one
//! section is [`Resolution::Found`]; several are [`Resolution::Ambiguous`] (no guessing); if
//! no tier finds anything, [`Resolution::NotFound`] carries "did you mean" suggestions.
//!
//! 1. [`Tier::Slug`]: the exact slug; a leading `#` or `user-content-` is accepted.
//! 2. Index path, written with at least one dot (`6.2`, `1.`): first the numbering written at
//!    the start of a title ([`Tier::TitleNumber`]: a heading "6.2 Phase B"), then the
//!    position in the heading tree ([`Tier::TreePosition`]). A bare number is a line.
//! 3. [`Tier::Line`]: all digits: the innermost section containing that line.
//! 4. [`Tier::ExactTitle`]: the title, exactly.
//! 5. [`Tier::FoldedTitle`]: the title [folded](fold): NFKC, full case folding, letters and
//!    digits only, so `PhaseB`, `phase b` and `ＰＨＡＳＥ Ｂ` all match "Phase B".
//! 6. [`Tier::TitleSubstring`]: the folded query inside the folded title (`验证计划` finds
//!    "6.2 Phase B 验证计划").
//! 7. [`Tier::TitleTokens`]: every whitespace-separated word of the query, folded, inside the
//!    folded title, in any order.

use super::outline::{Outline, Section};
use super::slug::fold;

/// How many suggestions a [`Resolution::NotFound`] carries at most.
pub const MAX_SUGGESTIONS: usize = 5;

/// Which rule found a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Slug,
    TitleNumber,
    TreePosition,
    Line,
    ExactTitle,
    FoldedTitle,
    TitleSubstring,
    TitleTokens,
}

/// A section offered to the caller when a query is ambiguous or finds nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub id: usize,
    pub slug: String,
    pub title: String,
    pub level: u8,
    pub index_path: String,
    pub line_start: u64,
    pub line_end: u64,
}

impl Candidate {
    /// The candidate that stands for `s`.
    pub fn of(s: &Section) -> Candidate {
        Candidate {
            id: s.id,
            slug: s.slug.clone(),
            title: s.title.clone(),
            level: s.level,
            index_path: s.index_path.clone(),
            line_start: s.line_start,
            line_end: s.line_end,
        }
    }
}

/// A "did you mean" section and how similar its title is to the query (0 to 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    pub candidate: Candidate,
    pub score: f64,
}

/// The outcome of [`resolve`].
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution<'a> {
    Found(&'a Section, Tier),
    /// The first tier that found anything found several sections, in document order.
    Ambiguous(Tier, Vec<Candidate>),
    /// Nothing matched; the most similar titles first.
    NotFound(Vec<Suggestion>),
}

impl<'a> Resolution<'a> {
    /// The section, if exactly one was found.
    pub fn found(&self) -> Option<&'a Section> {
        match self {
            Resolution::Found(s, _) => Some(s),
            _ => None,
        }
    }
}

/// Finds the section `query` names in `outline` (see the module docs for the tiers).
pub fn resolve<'a>(outline: &'a Outline, query: &str) -> Resolution<'a> {
    let q = query.trim();
    if q.is_empty() {
        return Resolution::NotFound(Vec::new());
    }
    let sections = outline.sections();
    let tiers: [(Tier, &dyn Fn() -> Vec<usize>); 8] = [
        (Tier::Slug, &|| by_slug(outline, q)),
        (Tier::TitleNumber, &|| {
            index_path(q).map_or_else(Vec::new, |path| by_title_number(sections, &path))
        }),
        (Tier::TreePosition, &|| {
            index_path(q).map_or_else(Vec::new, |path| by_position(outline, &path))
        }),
        (Tier::Line, &|| by_line(outline, q)),
        (Tier::ExactTitle, &|| {
            sections
                .iter()
                .filter(|s| s.title == q)
                .map(|s| s.id)
                .collect()
        }),
        (Tier::FoldedTitle, &|| {
            by_folded(outline, q, |title, folded| title == folded)
        }),
        (Tier::TitleSubstring, &|| {
            by_folded(outline, q, |title, folded| title.contains(folded))
        }),
        (Tier::TitleTokens, &|| by_tokens(outline, q)),
    ];
    for (tier, find) in tiers {
        match find().as_slice() {
            [] => continue,
            [one] => return Resolution::Found(&sections[*one], tier),
            many => {
                let candidates = many.iter().map(|&id| Candidate::of(&sections[id]));
                return Resolution::Ambiguous(tier, candidates.collect());
            }
        }
    }
    Resolution::NotFound(suggest(outline, q))
}

fn by_slug(outline: &Outline, q: &str) -> Vec<usize> {
    let q = q.strip_prefix('#').unwrap_or(q);
    // The slug as given first: a heading "User content foo" has the slug `user-content-foo`.
    let found = outline.by_slug(q).or_else(|| {
        q.strip_prefix("user-content-")
            .filter(|rest| !rest.is_empty())
            .and_then(|rest| outline.by_slug(rest))
    });
    found
        .filter(|_| !q.is_empty())
        .map(|s| s.id)
        .into_iter()
        .collect()
}

/// `6.2`, `6.2.` or `6.` as numbers; a bare `6` is not an index path (it is a line).
fn index_path(q: &str) -> Option<Vec<u32>> {
    if !q.contains('.') {
        return None;
    }
    let q = q.strip_suffix('.').unwrap_or(q);
    q.split('.')
        .map(|part| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                part.parse().ok()
            }
        })
        .collect()
}

/// The numbering written at the start of a title: `6.2` in "6.2 Phase B", "6.2. Phase B",
/// "6.2) Phase B" or "6.2: Phase B".
pub(super) fn title_number(title: &str) -> Option<Vec<u32>> {
    let end = title
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(title.len());
    let (number, rest) = title.split_at(end);
    let rest_ok = rest.is_empty()
        || rest.starts_with(char::is_whitespace)
        || ([')', ':'].iter().any(|&p| rest.starts_with(p)) && !number.ends_with('.'));
    if !number.starts_with(|c: char| c.is_ascii_digit()) || !rest_ok {
        return None;
    }
    let number = number.strip_suffix('.').unwrap_or(number);
    number
        .split('.')
        .map(|part| {
            if part.is_empty() {
                None
            } else {
                part.parse().ok()
            }
        })
        .collect()
}

fn by_title_number(sections: &[Section], path: &[u32]) -> Vec<usize> {
    sections
        .iter()
        .filter(|s| title_number(&s.title).is_some_and(|n| n == path))
        .map(|s| s.id)
        .collect()
}

fn by_position(outline: &Outline, path: &[u32]) -> Vec<usize> {
    let mut level: Vec<usize> = outline.roots().map(|s| s.id).collect();
    let mut found = None;
    for &n in path {
        let Some(&id) = (n as usize).checked_sub(1).and_then(|i| level.get(i)) else {
            return Vec::new();
        };
        found = Some(id);
        level = outline.sections()[id].children.clone();
    }
    found.into_iter().collect()
}

fn by_line(outline: &Outline, q: &str) -> Vec<usize> {
    if !q.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let Ok(line) = q.parse::<u64>() else {
        return Vec::new();
    };
    outline
        .innermost_at(line)
        .map(|s| s.id)
        .into_iter()
        .collect()
}

fn by_folded(outline: &Outline, q: &str, test: impl Fn(&str, &str) -> bool) -> Vec<usize> {
    let folded = fold(q);
    if folded.is_empty() {
        return Vec::new();
    }
    outline
        .folded_titles()
        .iter()
        .enumerate()
        .filter(|(_, title)| test(title, &folded))
        .map(|(id, _)| id)
        .collect()
}

fn by_tokens(outline: &Outline, q: &str) -> Vec<usize> {
    let tokens: Vec<String> = q
        .split_whitespace()
        .map(fold)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        return Vec::new();
    }
    outline
        .folded_titles()
        .iter()
        .enumerate()
        .filter(|(_, title)| tokens.iter().all(|t| title.contains(t.as_str())))
        .map(|(id, _)| id)
        .collect()
}

/// Up to [`MAX_SUGGESTIONS`] sections whose folded titles share the most character bigrams
/// with the folded query (Sørensen–Dice), best first, ties in document order.
fn suggest(outline: &Outline, q: &str) -> Vec<Suggestion> {
    let query = grams(&fold(q));
    if query.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(f64, usize)> = outline
        .folded_titles()
        .iter()
        .enumerate()
        .filter_map(|(id, title)| {
            let title = grams(title);
            let score = dice(&query, &title);
            (score > 0.0).then_some((score, id))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(score, id)| Suggestion {
            candidate: Candidate::of(&outline.sections()[id]),
            score,
        })
        .collect()
}

/// Sorted character bigrams of `s` (the single character for a one-character string).
fn grams(s: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = s.chars().collect();
    let mut grams: Vec<(char, char)> = match chars.as_slice() {
        [] => Vec::new(),
        [c] => vec![(*c, '\0')],
        _ => chars.windows(2).map(|w| (w[0], w[1])).collect(),
    };
    grams.sort_unstable();
    grams
}

/// Sørensen–Dice coefficient of two sorted multisets.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_and_title_numbers() {
        assert_eq!(index_path("6.2"), Some(vec![6, 2]));
        assert_eq!(index_path("6.2."), Some(vec![6, 2]));
        assert_eq!(index_path("3."), Some(vec![3]));
        assert_eq!(index_path("3"), None);
        assert_eq!(index_path("6..2"), None);
        assert_eq!(index_path("v6.2"), None);
        assert_eq!(title_number("6.2 Phase B"), Some(vec![6, 2]));
        assert_eq!(title_number("6.2. Phase B"), Some(vec![6, 2]));
        assert_eq!(title_number("6.2) Phase B"), Some(vec![6, 2]));
        assert_eq!(title_number("6: Phase B"), Some(vec![6]));
        assert_eq!(title_number("7"), Some(vec![7]));
        assert_eq!(title_number("6.2Phase"), None);
        assert_eq!(title_number("Phase 6.2"), None);
        assert_eq!(title_number("1.5x faster"), None);
    }

    #[test]
    fn dice_similarity() {
        assert_eq!(dice(&grams("night"), &grams("night")), 1.0);
        assert!(dice(&grams("night"), &grams("nacht")) > 0.0);
        assert_eq!(dice(&grams("abc"), &grams("xyz")), 0.0);
    }
}
