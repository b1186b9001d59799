//! Personalized PageRank over the implicit graph of [`super::tables`], and each definition's
//! score.
//!
//! The graph is Aider's multigraph: for each name `id` that file `src` uses `n` times and file
//! `dst != src` defines, an edge `src -> dst` of weight `mul(id) * sqrt(n)`. Its edges are
//! never listed. For a name, every edge from one user carries the same weight to each of
//! its definers, so one step of the walk is two passes over arrays:
//!
//! - the *inflow* of each name: `sum over users src of rank[src] * mul * sqrt(n) / out[src]`
//!   (the users kept by name: sequential reads, and `rank[src] / out[src]` by file, which
//!   stays in cache);
//! - each file's new rank: the inflows of the names it defines, less what its own uses of
//!   them put in (no self edges), plus the teleport and the dangling files' rank, both
//!   spread by the personalization.
//!
//! `out[src]` is the weight of all of `src`'s edges: `sum over its uses of mul * sqrt(n) *
//! (definers of the name other than src)`. A step costs the number of uses plus the number of
//! definitions, whatever the number of edges (tens of millions on the Linux tree).

use super::tables::Tables;
use super::{Focus, Scores};

const DAMPING: f64 = 0.85;
const TOLERANCE: f64 = 1e-6;
const MAX_ITERATIONS: u32 = 50;
/// A name defined in more files than this is a common word (`init`, `show`): its edges
/// weigh a tenth.
const COMMON_DEFINERS: u32 = 5;
/// The widest use count a packed user keeps (more counts as this many; a tree of more than
/// 2^20 files keeps fewer bits).
const COUNT_BITS: u32 = 12;
/// Files or slots per parallel part of a step (a fixed split: the sums do not depend on
/// how many threads run).
const CHUNK: usize = 4096;

/// The walk's arrays for one focus (see the module docs).
pub(super) struct Walk {
    /// A packed user: its file in the low `shift` bits, its use count (capped) above.
    shift: u32,
    /// `sqrt(count)` by packed count.
    sqrt: Vec<f64>,
    /// Per slot (a name with users and definers): its multiplier, and its users' range.
    mul: Vec<f64>,
    user_start: Vec<usize>,
    users: Vec<u32>,
    /// Per ident: its slot, or `u32::MAX` (no user, or no definer).
    slot_of: Vec<u32>,
    /// Per file: the weight of its edges, the slots it defines, and its uses of names it
    /// defines itself (slot, `mul * sqrt(n)`).
    out: Vec<f64>,
    def_start: Vec<usize>,
    def_slots: Vec<u32>,
    self_start: Vec<usize>,
    self_uses: Vec<(u32, f64)>,
    /// The personalization.
    p: Vec<f64>,
}

/// What the walk found: each file's rank, and the steps it took.
pub(super) struct Walked {
    pub rank: Vec<f64>,
    pub iterations: u32,
}

impl Walk {
    pub(super) fn new(t: &Tables, focus: &Focus) -> Walk {
        let files = t.files();
        let file_bits = (usize::BITS - files.max(2).saturating_sub(1).leading_zeros()).max(1);
        assert!(file_bits < 32, "fewer than 2^31 files");
        let count_bits = COUNT_BITS.min(32 - file_bits);
        let sqrt = (0..1u32 << count_bits)
            .map(|n| f64::from(n).sqrt())
            .collect();
        let mut w = Walk {
            shift: file_bits,
            sqrt,
            mul: Vec::new(),
            user_start: Vec::new(),
            users: Vec::new(),
            slot_of: Vec::new(),
            out: vec![0.0; files],
            def_start: Vec::with_capacity(files + 1),
            def_slots: Vec::new(),
            self_start: Vec::with_capacity(files + 1),
            self_uses: Vec::new(),
            p: personalization(t, &focus.files),
        };
        let mut rows = ident_rows(t, focus);
        w.count_users(t, &mut rows);
        let counts = w.number_slots(t, &mut rows);
        w.fill_users(t, &mut rows, &counts);
        w.slot_of = rows.iter().map(|r| r.slot).collect();
        w
    }

    /// Counts each ident's users (the files whose edges it carries); each file's out weight
    /// and self uses.
    fn count_users(&mut self, t: &Tables, rows: &mut [Row]) {
        self.self_start.push(0);
        for f in 0..t.files() {
            for &id in t.def_set(f) {
                rows[id as usize].mine = f as u32;
            }
            let mut out = 0.0;
            for &(id, n) in t.uses(f) {
                let r = &mut rows[id as usize];
                let own = r.mine == f as u32;
                let others = r.defs - u32::from(own);
                if others == 0 {
                    continue;
                }
                let w = r.mul * self.sqrt[self.capped(n) as usize];
                out += w * f64::from(others);
                r.users += 1;
                if own {
                    self.self_uses.push((id, w));
                }
            }
            self.out[f] = out;
            self.self_start.push(self.self_uses.len());
        }
    }

    /// Slots for the names with users, numbered in the order of their first definer (so the
    /// rank pass reads the inflows nearly in order); each file's defined slots. The users of
    /// each slot.
    fn number_slots(&mut self, t: &Tables, rows: &mut [Row]) -> Vec<u32> {
        let mut counts = Vec::new();
        self.def_start.push(0);
        for f in 0..t.files() {
            for &id in t.def_set(f) {
                let r = &mut rows[id as usize];
                if r.users == 0 {
                    continue;
                }
                if r.slot == u32::MAX {
                    r.slot = self.mul.len() as u32;
                    self.mul.push(r.mul);
                    counts.push(r.users);
                }
                self.def_slots.push(r.slot);
            }
            self.def_start.push(self.def_slots.len());
        }
        for s in &mut self.self_uses {
            s.0 = rows[s.0 as usize].slot;
        }
        counts
    }

    /// The users of each slot, packed (file, count); each ident's `users` becomes the cursor
    /// of its slot's range while it fills.
    fn fill_users(&mut self, t: &Tables, rows: &mut [Row], counts: &[u32]) {
        let mut start = Vec::with_capacity(counts.len() + 1);
        start.push(0usize);
        for &c in counts {
            start.push(start[start.len() - 1] + c as usize);
        }
        assert!(
            start[counts.len()] <= u32::MAX as usize,
            "fewer than 2^32 uses"
        );
        for r in rows.iter_mut().filter(|r| r.slot != u32::MAX) {
            r.users = start[r.slot as usize] as u32;
        }
        self.users = vec![0; start[counts.len()]];
        for f in 0..t.files() {
            for &id in t.def_set(f) {
                rows[id as usize].mine = f as u32;
            }
            for &(id, n) in t.uses(f) {
                let r = &mut rows[id as usize];
                let own = r.mine == f as u32;
                if r.slot == u32::MAX || r.defs == u32::from(own) {
                    continue;
                }
                self.users[r.users as usize] = f as u32 | self.capped(n) << self.shift;
                r.users += 1;
            }
        }
        self.user_start = start;
    }

    fn capped(&self, n: u32) -> u32 {
        n.min(self.sqrt.len() as u32 - 1)
    }

    /// The personalized PageRank: from `start` (the ranks of an earlier walk, by file: those
    /// of files past its end are their personalization, and the whole is scaled to sum to 1)
    /// or else from the personalization, until a step changes the ranks by less than the
    /// tolerance (L1) or after the last allowed step. Every start reaches the same ranks
    /// within the tolerance; one near them, fewer steps.
    pub(super) fn run(&self, start: Option<&[f64]>) -> Walked {
        let mut rank = match start {
            Some(old) => {
                let mut r: Vec<f64> = (0..self.p.len())
                    .map(|f| old.get(f).copied().unwrap_or(self.p[f]))
                    .collect();
                let sum: f64 = r.iter().sum();
                if sum > 0.0 && sum.is_finite() {
                    r.iter_mut().for_each(|x| *x /= sum);
                    r
                } else {
                    self.p.clone()
                }
            }
            None => self.p.clone(),
        };
        let mut next = vec![0.0; rank.len()];
        let mut x = vec![0.0; rank.len()];
        let mut inflow = vec![0.0; self.mul.len()];
        let mut iterations = 0;
        while iterations < MAX_ITERATIONS {
            iterations += 1;
            let change = self.step(&rank, &mut x, &mut inflow, &mut next);
            std::mem::swap(&mut rank, &mut next);
            if change < TOLERANCE {
                break;
            }
        }
        Walked { rank, iterations }
    }

    /// One step from `rank` into `next`; the L1 change. Files are stepped in chunks on every
    /// core, each file's rank by the same sequential sums; the change is summed per chunk
    /// and the chunks in order, so the walk is the same on any number of threads.
    fn step(&self, rank: &[f64], x: &mut [f64], inflow: &mut [f64], next: &mut [f64]) -> f64 {
        use rayon::prelude::*;
        let dangling = self.spread(rank, x, inflow);
        let (x, inflow) = (&*x, &*inflow);
        let changes: Vec<f64> = next
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, part)| {
                let mut change = 0.0;
                for (i, slot_out) in part.iter_mut().enumerate() {
                    let f = c * CHUNK + i;
                    let r = self.next_rank(f, x, inflow, dangling);
                    change += (r - rank[f]).abs();
                    *slot_out = r;
                }
                change
            })
            .collect();
        changes.iter().sum()
    }

    /// File `f`'s rank after a step: the inflows of the names it defines less its own uses
    /// of them, the teleport and the dangling rank.
    fn next_rank(&self, f: usize, x: &[f64], inflow: &[f64], dangling: f64) -> f64 {
        let mut into = 0.0;
        for &slot in &self.def_slots[self.def_start[f]..self.def_start[f + 1]] {
            into += inflow[slot as usize];
        }
        for &(_, w) in &self.self_uses[self.self_start[f]..self.self_start[f + 1]] {
            into -= w * x[f];
        }
        (1.0 - DAMPING) * self.p[f] + DAMPING * (into.max(0.0) + dangling * self.p[f])
    }

    /// Each file's rank per unit of out weight into `x`, and each slot's inflow (on every
    /// core, each slot's sum sequential); the rank of the files without edges.
    fn spread(&self, rank: &[f64], x: &mut [f64], inflow: &mut [f64]) -> f64 {
        use rayon::prelude::*;
        let mut dangling = 0.0;
        for f in 0..rank.len() {
            if self.out[f] > 0.0 {
                x[f] = rank[f] / self.out[f];
            } else {
                x[f] = 0.0;
                dangling += rank[f];
            }
        }
        let mask = (1u32 << self.shift) - 1;
        let x = &*x;
        inflow
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, part)| {
                for (i, flow) in part.iter_mut().enumerate() {
                    let slot = c * CHUNK + i;
                    let mut sum = 0.0;
                    for &u in &self.users[self.user_start[slot]..self.user_start[slot + 1]] {
                        sum += x[(u & mask) as usize] * self.sqrt[(u >> self.shift) as usize];
                    }
                    *flow = self.mul[slot] * sum;
                }
            });
        dangling
    }

    /// Each definition's score, by file then in the facts' order: what the users of its name
    /// send its file through that name, at the final ranks.
    pub(super) fn scores(&self, t: &Tables, rank: &[f64]) -> Scores {
        let mut x = vec![0.0; rank.len()];
        let mut inflow = vec![0.0; self.mul.len()];
        self.spread(rank, &mut x, &mut inflow);
        let mut start = Vec::with_capacity(t.files() + 1);
        start.push(0);
        let mut values = Vec::with_capacity((0..t.files()).map(|f| t.defs(f).len()).sum());
        for (f, &xf) in x.iter().enumerate().take(t.files()) {
            let own = &self.self_uses[self.self_start[f]..self.self_start[f + 1]];
            values.extend(t.defs(f).iter().map(|&id| {
                let slot = self.slot_of[id as usize];
                if slot == u32::MAX {
                    return 0.0;
                }
                let mine: f64 = own.iter().filter(|o| o.0 == slot).map(|o| o.1).sum();
                (inflow[slot as usize] - mine * xf).max(0.0)
            }));
            start.push(values.len());
        }
        Scores { values, start }
    }
}

/// Uniform over the focus files (those in range, not removed) if any, else over all files
/// not removed.
fn personalization(t: &Tables, focus: &[usize]) -> Vec<f64> {
    let files = t.files();
    let mut p = vec![0.0; files];
    let mut chosen: Vec<usize> = focus
        .iter()
        .copied()
        .filter(|&f| f < files && !t.is_gone(f))
        .collect();
    chosen.sort_unstable();
    chosen.dedup();
    if chosen.is_empty() {
        let live = (0..files).filter(|&f| !t.is_gone(f)).count();
        for (f, v) in p.iter_mut().enumerate() {
            if !t.is_gone(f) {
                *v = 1.0 / live.max(1) as f64;
            }
        }
    } else {
        for &f in &chosen {
            p[f] = 1.0 / chosen.len() as f64;
        }
    }
    p
}

/// What building a walk keeps per ident, in one place (one cache miss a use).
struct Row {
    /// Its multiplier: its name's, x10 when it is a focus name, x0.1 when more than
    /// [`COMMON_DEFINERS`] files define it.
    mul: f64,
    /// The files that define it, the last file that marked it as its own, its users (then
    /// its slot's fill cursor), and its slot.
    defs: u32,
    mine: u32,
    users: u32,
    slot: u32,
}

fn ident_rows(t: &Tables, focus: &Focus) -> Vec<Row> {
    use rayon::prelude::*;
    // Millions on a whole tree, most of the cost the fresh memory's first touch: on every
    // core (the rows are the same in any order of making).
    let mut rows: Vec<Row> = (0..t.idents() as u32)
        .into_par_iter()
        .map(|id| {
            let defs = t.def_count(id);
            let common = if defs > COMMON_DEFINERS { 0.1 } else { 1.0 };
            Row {
                mul: t.name_mul(id) * common,
                defs,
                mine: u32::MAX,
                users: 0,
                slot: u32::MAX,
            }
        })
        .collect();
    let mut named: Vec<u32> = focus.names.iter().filter_map(|n| t.id(n)).collect();
    named.sort_unstable();
    named.dedup();
    for id in named {
        rows[id as usize].mul *= 10.0;
    }
    rows
}
