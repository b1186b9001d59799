//! Query planning: from a pattern's HIR, the trigrams every match must contain, as an AND/OR
//! query over posting lists.
//!
//! Each node of the HIR is summarised by what is known of every string it matches: the exact
//! set of them when it is small, else sets of possible prefixes and suffixes and a trigram
//! query the string satisfies. Concatenation crosses suffixes with prefixes (so `[A-Z]+_RESUME`
//! asks for `A_R|B_R|…` and `_RE`, `RES`…), alternation ORs, and anything too large to
//! enumerate (`\w`, `.*`, `\p{Greek}`) is "any string". A trigram that a required string
//! continues asks for that next byte too (`PM_` followed by `R`, see [`super::trigram`]). The
//! query is sound: a file that holds a match satisfies it. When it asks for nothing, the
//! caller scans.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::trigram::{Trigram, indexable, next_bit, pack};

/// A boolean query over trigrams.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TriQuery {
    /// Every file (no trigram is required).
    All,
    /// No file.
    None,
    Tri(Trigram),
    /// The trigram, followed somewhere by a byte whose next bit is in the mask (documents
    /// without next masks only need the trigram).
    Next(Trigram, u8),
    And(Vec<TriQuery>),
    Or(Vec<TriQuery>),
}

impl TriQuery {
    pub fn and(self, other: TriQuery) -> TriQuery {
        match (self, other) {
            (TriQuery::All, q) | (q, TriQuery::All) => q,
            (TriQuery::None, _) | (_, TriQuery::None) => TriQuery::None,
            (TriQuery::And(mut a), TriQuery::And(b)) => {
                a.extend(b);
                dedup(TriQuery::And, a)
            }
            (TriQuery::And(mut a), q) | (q, TriQuery::And(mut a)) => {
                a.push(q);
                dedup(TriQuery::And, a)
            }
            (a, b) => dedup(TriQuery::And, vec![a, b]),
        }
    }

    pub fn or(self, other: TriQuery) -> TriQuery {
        match (self, other) {
            (TriQuery::All, _) | (_, TriQuery::All) => TriQuery::All,
            (TriQuery::None, q) | (q, TriQuery::None) => q,
            (TriQuery::Or(mut a), TriQuery::Or(b)) => {
                a.extend(b);
                dedup(TriQuery::Or, a)
            }
            (TriQuery::Or(mut a), q) | (q, TriQuery::Or(mut a)) => {
                a.push(q);
                dedup(TriQuery::Or, a)
            }
            (a, b) => dedup(TriQuery::Or, vec![a, b]),
        }
    }

    /// How many trigrams the query names.
    pub fn trigrams(&self) -> usize {
        match self {
            TriQuery::All | TriQuery::None => 0,
            TriQuery::Tri(_) | TriQuery::Next(..) => 1,
            TriQuery::And(v) | TriQuery::Or(v) => v.iter().map(TriQuery::trigrams).sum(),
        }
    }
}

fn dedup(make: fn(Vec<TriQuery>) -> TriQuery, mut v: Vec<TriQuery>) -> TriQuery {
    v.sort();
    v.dedup();
    if v.len() == 1 {
        v.pop().expect("one")
    } else {
        make(v)
    }
}

/// Most strings an exact set, or a prefix or suffix set, may hold.
const MAX_SET: usize = 64;
/// Larger classes are "any character".
const MAX_CLASS: usize = 64;

type Set = BTreeSet<Vec<u8>>;

/// Copies of a repeated node concatenated when planning (`x{100}` is planned as `x{4}` and
/// more).
const MAX_REPEAT: u32 = 4;

/// What is known of every string a node matches.
#[derive(Clone, Debug)]
struct Info {
    /// All the strings it matches, when few.
    exact: Option<Set>,
    /// Every match starts with one of these (when `exact` is `None`).
    prefix: Set,
    /// Every match ends with one of these (when `exact` is `None`).
    suffix: Set,
    /// Every match satisfies this.
    q: TriQuery,
}

fn single(s: &[u8]) -> Set {
    std::iter::once(s.to_vec()).collect()
}

impl Info {
    fn any() -> Info {
        Info {
            exact: None,
            prefix: single(b""),
            suffix: single(b""),
            q: TriQuery::All,
        }
    }

    fn exact(set: Set) -> Info {
        Info {
            exact: Some(set),
            prefix: Set::new(),
            suffix: Set::new(),
            q: TriQuery::All,
        }
    }

    /// Turns an exact set into prefix, suffix and query.
    fn inexact(mut self) -> Info {
        if let Some(e) = self.exact.take() {
            self.q = self.q.and(or_strings(&e));
            self.prefix = e.clone();
            self.suffix = e;
            self.trim();
        }
        self
    }

    /// Moves what long prefixes and suffixes say into the query and keeps only their first
    /// (last) two bytes, so the sets stay small.
    fn trim(&mut self) {
        if self.exact.is_some() {
            return;
        }
        if self.prefix.iter().any(|p| p.len() > 2) || self.prefix.len() > MAX_SET {
            self.q = std::mem::replace(&mut self.q, TriQuery::All).and(or_strings(&self.prefix));
            self.prefix = shorten(&self.prefix, |s, n| s[..n].to_vec());
        }
        if self.suffix.iter().any(|p| p.len() > 2) || self.suffix.len() > MAX_SET {
            self.q = std::mem::replace(&mut self.q, TriQuery::All).and(or_strings(&self.suffix));
            self.suffix = shorten(&self.suffix, |s, n| s[s.len() - n..].to_vec());
        }
    }
}

/// The set cut to strings of at most 2 bytes (fewer while it holds too many).
fn shorten(set: &Set, cut: impl Fn(&[u8], usize) -> Vec<u8>) -> Set {
    for n in (0..=2).rev() {
        let s: Set = set.iter().map(|s| cut(s, s.len().min(n))).collect();
        if s.len() <= MAX_SET {
            return s;
        }
    }
    single(b"")
}

/// The leaf for the trigram of `s` at `i`: with the byte after it when `s` goes on (never a
/// newline: no match holds one), `All` when the trigram is never indexed.
fn leaf(s: &[u8], i: usize) -> TriQuery {
    let t = pack(s[i], s[i + 1], s[i + 2]);
    if !indexable(t) {
        return TriQuery::All;
    }
    match s.get(i + 3).map(|&b| next_bit(b)) {
        Some(m) if m != 0 => TriQuery::Next(t, m),
        _ => TriQuery::Tri(t),
    }
}

/// The query "holds one of these strings": OR over them of AND over their trigrams, with the
/// trigrams they all share taken out of the OR (`A_RESUME|B_RESUME` asks for `_RE`, `RES`…
/// once, and `A_R|B_R`).
fn or_strings(set: &Set) -> TriQuery {
    if set.is_empty() {
        return TriQuery::None;
    }
    // Many strings of one length (case variants, a class crossed with a literal): AND over
    // positions of OR over the strings' trigram there. Weaker than OR of ANDs (still sound:
    // each string satisfies every position's OR), and far smaller.
    let len = set.first().map_or(0, Vec::len);
    if set.len() > 4 && len >= 3 && set.iter().all(|s| s.len() == len) {
        let mut q = TriQuery::All;
        for i in 0..len - 2 {
            let mut alt = TriQuery::None;
            for s in set {
                alt = alt.or(leaf(s, i));
            }
            q = q.and(alt);
        }
        return q;
    }
    let mut each: Vec<BTreeSet<TriQuery>> = Vec::with_capacity(set.len());
    for s in set {
        let t: BTreeSet<TriQuery> = (0..s.len().saturating_sub(2))
            .map(|i| leaf(s, i))
            .filter(|q| *q != TriQuery::All)
            .collect();
        if t.is_empty() {
            // This string needs no trigram: neither does the set.
            return TriQuery::All;
        }
        each.push(t);
    }
    let mut common = each[0].clone();
    for t in &each[1..] {
        common.retain(|x| t.contains(x));
    }
    let mut q = TriQuery::All;
    for t in &common {
        q = q.and(t.clone());
    }
    let mut alt = TriQuery::None;
    for t in &each {
        let mut and = TriQuery::All;
        for x in t.difference(&common) {
            and = and.and(x.clone());
        }
        alt = alt.or(and);
        if alt == TriQuery::All {
            break;
        }
    }
    q.and(alt)
}

fn cross(a: &Set, b: &Set) -> Set {
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    out
}

fn concat(x: Info, y: Info) -> Info {
    if let (Some(a), Some(b)) = (&x.exact, &y.exact)
        && a.len() * b.len() <= MAX_SET
    {
        let mut out = Info::exact(cross(a, b));
        out.q = x.q.and(y.q);
        return out;
    }
    let mut q = x.q.clone().and(y.q.clone());
    // The strings across the boundary: a suffix of x then a prefix of y.
    let (xs, yp) = (
        x.exact.as_ref().unwrap_or(&x.suffix),
        y.exact.as_ref().unwrap_or(&y.prefix),
    );
    if xs.len() * yp.len() <= MAX_SET {
        q = q.and(or_strings(&cross(xs, yp)));
    }
    let prefix = match &x.exact {
        Some(e) if e.len() * y.prefix.len().max(1) <= MAX_SET && y.exact.is_none() => {
            cross(e, &y.prefix)
        }
        Some(e) => e.clone(),
        None => x.prefix.clone(),
    };
    let suffix = match &y.exact {
        Some(e) if e.len() * x.suffix.len().max(1) <= MAX_SET && x.exact.is_none() => {
            cross(&x.suffix, e)
        }
        Some(e) => e.clone(),
        None => y.suffix.clone(),
    };
    // Exact sides that were not crossed still say what they hold.
    if let Some(e) = &x.exact {
        q = q.and(or_strings(e));
    }
    if let Some(e) = &y.exact {
        q = q.and(or_strings(e));
    }
    let mut out = Info {
        exact: None,
        prefix,
        suffix,
        q,
    };
    out.trim();
    out
}

fn alternate(x: Info, y: Info) -> Info {
    if let (Some(a), Some(b)) = (&x.exact, &y.exact)
        && a.len() + b.len() <= MAX_SET
    {
        let mut out = Info::exact(a.union(b).cloned().collect());
        out.q = x.q.or(y.q);
        return out;
    }
    let (x, y) = (x.inexact(), y.inexact());
    let mut out = Info {
        exact: None,
        prefix: x.prefix.union(&y.prefix).cloned().collect(),
        suffix: x.suffix.union(&y.suffix).cloned().collect(),
        q: x.q.or(y.q),
    };
    out.trim();
    out
}

fn class_strings(c: &Class) -> Option<Set> {
    let mut out = Set::new();
    match c {
        Class::Unicode(u) => {
            let n: usize = u
                .ranges()
                .iter()
                .map(|r| r.end() as usize - r.start() as usize + 1)
                .sum();
            if n > MAX_CLASS {
                return None;
            }
            for r in u.ranges() {
                for ch in r.start()..=r.end() {
                    let mut b = [0; 4];
                    out.insert(ch.encode_utf8(&mut b).as_bytes().to_vec());
                }
            }
        }
        Class::Bytes(bc) => {
            let n: usize = bc
                .ranges()
                .iter()
                .map(|r| r.end() as usize - r.start() as usize + 1)
                .sum();
            if n > MAX_CLASS {
                return None;
            }
            for r in bc.ranges() {
                for b in r.start()..=r.end() {
                    out.insert(vec![b]);
                }
            }
        }
    }
    Some(out)
}

fn analyze(h: &Hir) -> Info {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(single(b"")),
        HirKind::Literal(l) => Info::exact(single(&l.0)),
        HirKind::Class(c) => match class_strings(c) {
            Some(s) if s.is_empty() => Info {
                q: TriQuery::None,
                ..Info::exact(Set::new())
            },
            Some(s) => Info::exact(s),
            None => Info::any(),
        },
        HirKind::Capture(c) => analyze(&c.sub),
        HirKind::Repetition(r) => {
            if r.min == 0 {
                if r.max == Some(1) {
                    return alternate(Info::exact(single(b"")), analyze(&r.sub));
                }
                return Info::any();
            }
            let sub = analyze(&r.sub);
            // At least `min` copies in a row: a few of them concatenated are required
            // (`a{3}b` needs `aaab`), and exactly that when the count is fixed.
            let n = r.min.min(MAX_REPEAT);
            let mut acc = sub.clone();
            for _ in 1..n {
                acc = concat(acc, sub.clone());
            }
            if r.max == Some(r.min) && r.min <= MAX_REPEAT {
                acc
            } else {
                acc.inexact()
            }
        }
        HirKind::Concat(subs) => {
            let mut acc = Info::exact(single(b""));
            for s in subs {
                acc = concat(acc, analyze(s));
            }
            acc
        }
        HirKind::Alternation(subs) => {
            let mut it = subs.iter();
            let mut acc = match it.next() {
                Some(s) => analyze(s),
                None => return Info::exact(Set::new()),
            };
            for s in it {
                acc = alternate(acc, analyze(s));
            }
            acc
        }
    }
}

/// The trigram query every match of `hir` satisfies (`All` when it requires none).
pub fn plan(hir: &Hir) -> TriQuery {
    let info = analyze(hir).inexact();
    info.q
        .and(or_strings(&info.prefix))
        .and(or_strings(&info.suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(p: &str, ci: bool) -> TriQuery {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ci)
            .multi_line(true)
            .build()
            .parse(p)
            .unwrap();
        plan(&hir)
    }

    fn t(s: &str) -> TriQuery {
        let b = s.as_bytes();
        TriQuery::Tri(pack(b[0], b[1], b[2]))
    }

    /// `s`'s first trigram, followed by its fourth byte.
    fn n(s: &str) -> TriQuery {
        let b = s.as_bytes();
        TriQuery::Next(pack(b[0], b[1], b[2]), next_bit(b[3]))
    }

    #[test]
    fn a_literal_needs_all_its_trigrams_each_before_the_next_byte() {
        assert_eq!(
            q("PM_RESUME", false),
            TriQuery::And(vec![
                t("UME"),
                n("ESUM"),
                n("M_RE"),
                n("PM_R"),
                n("RESU"),
                n("SUME"),
                n("_RES"),
            ])
        );
        // Case variants ask for the same next bit: one mask serves them all.
        let ci = q("pm_r", true);
        let TriQuery::And(parts) = &ci else {
            panic!("{ci:?}")
        };
        let Some(TriQuery::Or(v)) = parts
            .iter()
            .find(|p| matches!(p, TriQuery::Or(v) if matches!(v[0], TriQuery::Next(..))))
        else {
            panic!("{ci:?}")
        };
        assert_eq!(v.len(), 4, "pm_, pM_, Pm_, PM_");
        for leaf in v {
            assert!(
                matches!(leaf, TriQuery::Next(_, m) if *m == next_bit(b'r')),
                "{leaf:?}"
            );
        }
        // No next byte is asked for across a newline (no match holds one).
        assert_eq!(leaf(b"abc\n", 0), t("abc"));
        assert_eq!(leaf(b"ab\nc", 0), TriQuery::All);
    }

    #[test]
    fn patterns_without_trigrams_ask_for_nothing() {
        for p in [
            r"\p{Greek}",
            r"\w{5}\s+\w{5}",
            "ab",
            ".*",
            "a|bcd",
            "(?:x)?",
        ] {
            assert_eq!(q(p, false), TriQuery::All, "{p}");
        }
    }

    #[test]
    fn alternation_ors_and_classes_cross() {
        let alt = q("PM_SUSPEND|wakeup_source", false);
        assert!(
            matches!(alt, TriQuery::Or(ref v) if v.len() == 2),
            "{alt:?}"
        );
        let cls = q("[A-Z]+_RESUME", false);
        let TriQuery::And(parts) = &cls else {
            panic!("{cls:?}")
        };
        assert!(parts.contains(&n("_RES")));
        assert!(
            parts
                .iter()
                .any(|p| matches!(p, TriQuery::Or(v) if v.len() == 26))
        );
        let ci = q("pm_resume", true);
        assert!(ci.trigrams() >= 7, "{ci:?}");
        assert_eq!(q(r"\bwakeup\b", false).trigrams(), 4);
    }
}
