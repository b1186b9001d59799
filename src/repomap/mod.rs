//! The repo map: a repository's definitions ranked by how the rest of its code uses them, and
//! the best of them rendered within a byte and line budget (Aider's repo map, computed
//! without materialising its graph). The ranking and rendering are pure computation over
//! each file's facts as the symbol records hold them (its definitions, and the names its
//! code uses with their counts) and a way to read a definition's signature.
//!
//! The ranking ([`rank`]): a file that uses a name another file defines points at it, with a
//! weight that grows with the square root of the uses and with how telling the name is (long
//! `snake_case`/`camelCase` names and focus names up, `_private` names and names defined in
//! many files down). A personalized PageRank over files (uniform over the focus files, else
//! over all) then gives each definition the rank its users send it through its name. Ties go
//! to the file of higher rank, then the path, then the line: the same facts give the same
//! map.
//!
//! The graph is implicit in two tables kept per file, its uses and its definitions
//! ([`Tables`]), so an edit replaces that file's rows ([`Tables::replace`]) and the next
//! ranking ([`Tables::rank`]) walks the tables as they are; [`rank`] builds them from scratch.
//!
//! Layout: `tables.rs` the interned names and each file's rows; `pagerank.rs` the walk over
//! them and the definitions' scores; `render.rs` the text within the budget; `graph.rs` a
//! path's files with their facts from the symbol records and the tables over them; `held.rs`
//! the map of a large path kept between calls and brought up to date; `tree.rs` the map of a
//! path inside the roots, and the signatures of the definitions shown read from their files
//! (the one part that reads files).

mod graph;
mod held;
mod pagerank;
mod render;
mod tables;
#[cfg(test)]
mod tests;
mod tree;

pub use held::{HOLD_FILES, HOLD_IDLE_SECS, HeldMaps};
pub use render::{MapBudget, RepoMap, render};
pub use tables::Tables;
pub use tree::{MapQuery, Prepared, TreeMap, map_tree, prepare};

/// One file's facts, as the symbol records hold them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// The file's path as the map shows it.
    pub path: String,
    /// Its definitions.
    pub defs: Vec<Def>,
    /// The names its code uses, each with its number of uses, sorted by name (names the file
    /// defines may be there: they make no edge).
    pub uses: Vec<(String, u32)>,
}

/// One definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    /// Shared with the tables' interned names (a whole tree has millions of definitions).
    pub name: std::sync::Arc<str>,
    pub kind: &'static str,
    pub line: u32,
    pub end_line: u32,
}

/// What the map is about: files (indexes into the facts) and names.
#[derive(Clone, Debug, Default)]
pub struct Focus {
    pub files: Vec<usize>,
    pub names: Vec<String>,
}

/// One definition's place in a ranking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankedDef {
    /// The file's index in the facts, and the definition's in the file's `defs`.
    pub file: u32,
    pub def: u32,
    /// The rank its users send it (0 when no other file uses its name).
    pub score: f64,
}

/// Every definition, best first, and each file's PageRank. The definitions that some other
/// file uses are kept in order; the rest (most of a whole tree's: 5.1 million of Linux's 6
/// million) follow file by file in the files' order, made as they are read
/// ([`Ranking::iter`]): a map reads a few hundred.
#[derive(Clone, Debug, Default)]
pub struct Ranking {
    /// The definitions of positive score, best first.
    scored: Vec<RankedDef>,
    /// The files best first (rank, then path): the unscored definitions follow in this order.
    by_rank: Vec<u32>,
    /// Each definition's score, by file.
    scores: Scores,
    /// By file index; sums to 1 when there are files.
    pub file_rank: Vec<f64>,
    /// The PageRank steps taken (at most 50).
    pub iterations: u32,
}

/// Each definition's score, by file then in the facts' order, in one array.
#[derive(Clone, Debug, Default)]
struct Scores {
    values: Vec<f64>,
    /// Per file, where its scores start (then the end).
    start: Vec<usize>,
}

impl Scores {
    fn of(&self, f: usize) -> &[f64] {
        &self.values[self.start[f]..self.start[f + 1]]
    }
}

impl Ranking {
    /// How many definitions are ranked.
    pub fn len(&self) -> usize {
        self.scores.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every definition of `files` (those ranked), best first: by score, then their file's
    /// rank, path, then line (and the definition's index). Those of score 0 are the long
    /// tail: listed file by file, in that order, each file's in line order.
    pub fn iter<'a>(&'a self, files: &'a [FileFacts]) -> impl Iterator<Item = RankedDef> + 'a {
        let tail = self.by_rank.iter().flat_map(move |&f| {
            let (score, defs) = (self.scores.of(f as usize), &files[f as usize].defs);
            let mut tail: Vec<u32> = (0..score.len() as u32)
                .filter(|&d| score[d as usize] <= 0.0)
                .collect();
            if !tail.is_sorted_by_key(|&d| defs[d as usize].line) {
                tail.sort_by_key(|&d| defs[d as usize].line);
            }
            tail.into_iter().map(move |def| RankedDef {
                file: f,
                def,
                score: 0.0,
            })
        });
        self.scored.iter().copied().chain(tail)
    }

    /// [`Ranking::iter`], collected.
    pub fn defs(&self, files: &[FileFacts]) -> Vec<RankedDef> {
        self.iter(files).collect()
    }
}

/// Ranks every definition of `files` (see the module docs).
pub fn rank(files: &[FileFacts], focus: &Focus) -> Ranking {
    Tables::new(files).rank(files, focus)
}

impl Tables {
    /// Ranks every definition of `files`, which these tables must hold (file `i`'s rows are
    /// `files[i]`'s).
    pub fn rank(&self, files: &[FileFacts], focus: &Focus) -> Ranking {
        self.rank_from(files, focus, None)
    }

    /// [`Tables::rank`], the walk starting from the file ranks of an earlier ranking of these
    /// tables before some of their rows changed (fewer steps; the same ranks within the
    /// walk's tolerance).
    pub fn rank_from(&self, files: &[FileFacts], focus: &Focus, start: Option<&[f64]>) -> Ranking {
        assert_eq!(self.files(), files.len(), "tables of other files");
        let walk = pagerank::Walk::new(self, focus);
        let walked = walk.run(start);
        let scores = walk.scores(self, &walked.rank);
        let (scored, by_rank) = order(files, &scores, &walked.rank);
        Ranking {
            scored,
            by_rank,
            scores,
            file_rank: walked.rank,
            iterations: walked.iterations,
        }
    }
}

/// The definitions of positive score best first: by score, then their file's rank, path,
/// then line (and the definition's index); and the files in that order (see
/// [`Ranking::iter`]).
fn order(files: &[FileFacts], scores: &Scores, file_rank: &[f64]) -> (Vec<RankedDef>, Vec<u32>) {
    let mut by_rank: Vec<u32> = (0..files.len() as u32).collect();
    by_rank.sort_unstable_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        file_rank[b]
            .total_cmp(&file_rank[a])
            .then_with(|| files[a].path.cmp(&files[b].path))
    });
    let mut place = vec![0u32; files.len()];
    for (i, &f) in by_rank.iter().enumerate() {
        place[f as usize] = i as u32;
    }
    // Scores are finite and never negative: their bits order as they do.
    let mut scored: Vec<(u64, u64, u64)> = Vec::new();
    for f in 0..files.len() {
        for (d, &score) in scores.of(f).iter().enumerate().filter(|x| *x.1 > 0.0) {
            let line = files[f].defs[d].line;
            let at = u64::from(place[f]) << 32 | u64::from(line);
            scored.push((!score.to_bits(), at, (f as u64) << 32 | d as u64));
        }
    }
    // Hundreds of thousands on a whole tree: sorted on every core.
    rayon::slice::ParallelSliceMut::par_sort_unstable(&mut scored[..]);
    let scored = scored
        .into_iter()
        .map(|(s, _, fd)| RankedDef {
            file: (fd >> 32) as u32,
            def: fd as u32,
            score: f64::from_bits(!s),
        })
        .collect();
    (scored, by_rank)
}
