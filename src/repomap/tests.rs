//! The repo map: small hand-made trees in several languages' naming styles, a naive
//! edge-list PageRank as the reference, the budget swept, and a large synthetic tree timed.

use std::time::Instant;

use super::tables::{Tables, name_mul};
use super::{Def, FileFacts, Focus, MapBudget, Ranking, rank, render};

fn file(path: &str, defs: &[(&str, u32)], uses: &[(&str, u32)]) -> FileFacts {
    let mut uses: Vec<(String, u32)> = uses.iter().map(|&(n, c)| (n.to_string(), c)).collect();
    uses.sort();
    FileFacts {
        path: path.into(),
        defs: defs
            .iter()
            .map(|&(name, line)| Def {
                name: name.into(),
                kind: "function",
                line,
                end_line: line + 2,
            })
            .collect(),
        uses,
    }
}

/// The ranked definitions as `path:name`, best first.
fn names(files: &[FileFacts], r: &Ranking) -> Vec<String> {
    r.iter(files)
        .map(|d| {
            let f = &files[d.file as usize];
            format!("{}:{}", f.path, f.defs[d.def as usize].name)
        })
        .collect()
}

fn place(files: &[FileFacts], r: &Ranking, what: &str) -> usize {
    names(files, r)
        .iter()
        .position(|n| n == what)
        .unwrap_or_else(|| panic!("{what} unranked"))
}

fn score(files: &[FileFacts], r: &Ranking, what: &str) -> f64 {
    r.defs(files)[place(files, r, what)].score
}

fn no_focus() -> Focus {
    Focus::default()
}

/// A tree in several languages: a Rust utility every other file uses, a Go constructor, a
/// Python helper, a C list function.
fn polyglot() -> Vec<FileFacts> {
    vec![
        file(
            "src/util.rs",
            &[("parse_config", 3), ("Config", 20)],
            &[("HashMap", 2)],
        ),
        file(
            "src/main.rs",
            &[("main", 1)],
            &[("parse_config", 2), ("Config", 1), ("NewServer", 1)],
        ),
        file(
            "server/server.go",
            &[("NewServer", 10), ("ServeHTTP", 30)],
            &[("parse_config", 1)],
        ),
        file(
            "tools/report.py",
            &[("_format_row", 4), ("render_report", 12)],
            &[("parse_config", 3)],
        ),
        file(
            "lib/list.c",
            &[("list_add", 7), ("list_del", 19)],
            &[("parse_config", 1)],
        ),
        file(
            "web/app.js",
            &[("fetchData", 2)],
            &[("parse_config", 1), ("render_report", 1)],
        ),
    ]
}

#[test]
fn a_utility_many_files_use_ranks_first() {
    let files = polyglot();
    let r = rank(&files, &no_focus());
    assert_eq!(names(&files, &r)[0], "src/util.rs:parse_config");
    assert!(
        r.file_rank[0] > r.file_rank[1] && r.file_rank[0] > r.file_rank[4],
        "{:?}",
        r.file_rank
    );
    assert!((r.file_rank.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // Unused definitions are the tail, with score 0.
    assert_eq!(score(&files, &r, "lib/list.c:list_add"), 0.0);
    assert!(
        place(&files, &r, "lib/list.c:list_add") > place(&files, &r, "server/server.go:NewServer")
    );
    assert_eq!((r.len(), r.defs(&files).len()), (10, 10));
}

/// Two clusters alike but for their names: `a/` and `b/`.
fn clusters() -> Vec<FileFacts> {
    vec![
        file("a/caller.py", &[("run_a", 1)], &[("load_items", 3)]),
        file("a/lib.py", &[("load_items", 5)], &[]),
        file("b/Caller.java", &[("runB", 1)], &[("fetchOrders", 3)]),
        file("b/Lib.java", &[("fetchOrders", 5)], &[]),
    ]
}

#[test]
fn focus_files_move_their_neighbourhood_up() {
    let files = clusters();
    let plain = rank(&files, &no_focus());
    let a = place(&files, &plain, "a/lib.py:load_items");
    let b = place(&files, &plain, "b/Lib.java:fetchOrders");
    assert!(a < b, "a tie goes to the path");
    let focus = Focus {
        files: vec![2],
        names: vec![],
    };
    let r = rank(&files, &focus);
    assert!(place(&files, &r, "b/Lib.java:fetchOrders") < place(&files, &r, "a/lib.py:load_items"));
    assert!(r.file_rank[3] > r.file_rank[1]);
    assert_eq!(
        r.file_rank[0], 0.0,
        "no teleport to a file out of focus, and nothing points at it"
    );
}

#[test]
fn focus_names_move_their_definitions_up() {
    let files = vec![
        file("pkg/a.go", &[("ReadConfig", 3)], &[]),
        file("pkg/b.go", &[("WriteConfig", 3)], &[]),
        file(
            "cmd/main.go",
            &[("main", 1)],
            &[("ReadConfig", 1), ("WriteConfig", 1)],
        ),
    ];
    let plain = rank(&files, &no_focus());
    assert_eq!(
        score(&files, &plain, "pkg/a.go:ReadConfig"),
        score(&files, &plain, "pkg/b.go:WriteConfig")
    );
    let focus = Focus {
        files: vec![],
        names: vec!["WriteConfig".into(), "Unknown".into()],
    };
    let r = rank(&files, &focus);
    assert_eq!(names(&files, &r)[0], "pkg/b.go:WriteConfig");
    let ratio =
        score(&files, &r, "pkg/b.go:WriteConfig") / score(&files, &r, "pkg/a.go:ReadConfig");
    assert!((ratio - 10.0).abs() < 1e-9, "{ratio}");
}

#[test]
fn private_names_and_common_names_rank_down() {
    assert_eq!(name_mul("parse_config"), 10.0);
    assert_eq!(name_mul("getUserName"), 10.0);
    assert_eq!(name_mul("MAX_ORDER"), 10.0);
    assert_eq!(name_mul("list_add"), 10.0);
    assert_eq!(name_mul("parse"), 1.0);
    assert_eq!(name_mul("lowercase"), 1.0);
    assert_eq!(name_mul("_parse"), 0.1);
    assert!((name_mul("_private_helper") - 1.0).abs() < 1e-12);
    let mut files = vec![
        file("py/a.py", &[("_parse", 2), ("parse", 9)], &[]),
        file(
            "py/main.py",
            &[("main", 1)],
            &[("_parse", 2), ("parse", 2), ("init", 1), ("start", 1)],
        ),
        file("c/start.c", &[("start", 1)], &[]),
    ];
    for i in 0..6 {
        files.push(file(&format!("c/drv{i}.c"), &[("init", 4)], &[]));
    }
    let r = rank(&files, &no_focus());
    let s = |w| score(&files, &r, w);
    assert!((s("py/a.py:parse") / s("py/a.py:_parse") - 10.0).abs() < 1e-9);
    assert!((s("c/start.c:start") / s("c/drv0.c:init") - 10.0).abs() < 1e-9);
    // Five definers are not yet common.
    files.pop();
    let r = rank(&files, &no_focus());
    assert!(
        (score(&files, &r, "c/start.c:start") / score(&files, &r, "c/drv0.c:init") - 1.0).abs()
            < 1e-9
    );
}

#[test]
fn self_uses_do_not_count() {
    let with = vec![
        file(
            "src/a.rs",
            &[("helper_fn", 1), ("shared_fn", 5)],
            &[("helper_fn", 100), ("shared_fn", 9)],
        ),
        file("src/b.rs", &[("shared_fn", 2)], &[]),
        file("src/c.rs", &[("main", 1)], &[("shared_fn", 1)]),
    ];
    let mut without = with.clone();
    without[0].uses = vec![("shared_fn".into(), 9)];
    let r = rank(&with, &no_focus());
    assert_eq!(score(&with, &r, "src/a.rs:helper_fn"), 0.0);
    let plain = rank(&without, &no_focus());
    assert_eq!(names(&with, &r), names(&without, &plain));
    assert_eq!(r.file_rank, plain.file_rank);
    // a's own use of shared_fn goes to b alone; c's goes to both.
    assert!(score(&with, &r, "src/b.rs:shared_fn") > score(&with, &r, "src/a.rs:shared_fn"));
}

/// A naive reference: the edges listed, PageRank over them, each definition's score summed
/// edge by edge.
fn reference(files: &[FileFacts], focus: &Focus) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = files.len();
    let definers = |name: &str| -> Vec<usize> {
        (0..n)
            .filter(|&f| files[f].defs.iter().any(|d| &*d.name == name))
            .collect()
    };
    let mut edges = Vec::new(); // (src, dst, name, weight)
    for (src, f) in files.iter().enumerate() {
        for (name, count) in &f.uses {
            let ds = definers(name);
            let mut mul = name_mul(name);
            if focus.names.contains(name) {
                mul *= 10.0;
            }
            if ds.len() > 5 {
                mul *= 0.1;
            }
            for &dst in ds.iter().filter(|&&d| d != src) {
                edges.push((src, dst, name.clone(), mul * f64::from(*count).sqrt()));
            }
        }
    }
    let mut out = vec![0.0; n];
    for e in &edges {
        out[e.0] += e.3;
    }
    let p: Vec<f64> = if focus.files.is_empty() {
        vec![1.0 / n as f64; n]
    } else {
        (0..n)
            .map(|f| {
                if focus.files.contains(&f) {
                    1.0 / focus.files.len() as f64
                } else {
                    0.0
                }
            })
            .collect()
    };
    let mut rank = p.clone();
    for _ in 0..50 {
        let dangling: f64 = (0..n).filter(|&f| out[f] == 0.0).map(|f| rank[f]).sum();
        let mut next: Vec<f64> = (0..n)
            .map(|f| 0.15 * p[f] + 0.85 * dangling * p[f])
            .collect();
        for e in &edges {
            next[e.1] += 0.85 * rank[e.0] * e.3 / out[e.0];
        }
        let change: f64 = (0..n).map(|f| (next[f] - rank[f]).abs()).sum();
        rank = next;
        if change < 1e-6 {
            break;
        }
    }
    let scores = files
        .iter()
        .enumerate()
        .map(|(dst, f)| {
            f.defs
                .iter()
                .map(|d| {
                    edges
                        .iter()
                        .filter(|e| e.1 == dst && *e.2 == *d.name)
                        .map(|e| rank[e.0] * e.3 / out[e.0])
                        .sum()
                })
                .collect()
        })
        .collect();
    (rank, scores)
}

/// A small random tree: `n` files, names of all styles, some defined in many files, some
/// files using names they define.
fn random_tree(n: usize, seed: u64) -> Vec<FileFacts> {
    let mut rng = Rng(seed);
    let pool: Vec<String> = (0..3 * n)
        .map(|i| match i % 5 {
            0 => format!("parse_item_{i}"),
            1 => format!("getValue{i}"),
            2 => format!("_hidden{i}"),
            3 => format!("run{i}"),
            _ => ["init", "probe", "show", "close"][i % 4].to_string(),
        })
        .collect();
    (0..n)
        .map(|f| {
            let defs: Vec<(&str, u32)> = (0..1 + rng.below(5))
                .map(|k| (pool[rng.below(pool.len())].as_str(), 1 + 10 * k as u32))
                .collect();
            let mut uses: Vec<(&str, u32)> = Vec::new();
            for _ in 0..rng.below(8) {
                let name = pool[rng.below(pool.len())].as_str();
                if !uses.iter().any(|u| u.0 == name) {
                    uses.push((name, 1 + rng.below(9) as u32));
                }
            }
            file(&format!("dir{}/file{f}.rs", f % 7), &defs, &uses)
        })
        .collect()
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn the_implicit_graph_ranks_as_the_edge_list_does() {
    for seed in 1..8u64 {
        let files = random_tree(30 + seed as usize * 5, seed);
        let focus = match seed % 3 {
            0 => no_focus(),
            1 => Focus {
                files: vec![1, 4],
                names: vec![],
            },
            _ => Focus {
                files: vec![],
                names: vec![files[2].defs[0].name.to_string()],
            },
        };
        let r = rank(&files, &focus);
        let (want_rank, want_scores) = reference(&files, &focus);
        for (f, (a, b)) in r.file_rank.iter().zip(&want_rank).enumerate() {
            assert!((a - b).abs() < 1e-12, "seed {seed} file {f}: {a} vs {b}");
        }
        for d in r.iter(&files) {
            let want = want_scores[d.file as usize][d.def as usize];
            assert!(
                (d.score - want).abs() < 1e-12,
                "seed {seed}: {} vs {want}",
                d.score
            );
        }
        for w in r.defs(&files).windows(2) {
            assert!(w[0].score >= w[1].score);
        }
    }
}

#[test]
fn replacing_a_files_rows_ranks_as_fresh_tables_do() {
    let mut files = random_tree(40, 11);
    let mut t = Tables::new(&files);
    let other = random_tree(41, 99);
    files[7] = other[3].clone();
    t.replace(7, &files[7]);
    files.push(other[40].clone());
    t.replace(40, &files[40]);
    files[0] = file("gone.rs", &[], &[]);
    t.replace(0, &files[0]);
    let focus = Focus {
        files: vec![3],
        names: vec![],
    };
    let a = t.rank(&files, &focus);
    let b = rank(&files, &focus);
    assert_eq!(a.file_rank, b.file_rank);
    assert_eq!(a.defs(&files), b.defs(&files));
}

#[test]
fn a_walk_from_the_last_ranks_reaches_the_same_ranking_in_fewer_steps() {
    let mut files = random_tree(300, 5);
    let mut t = Tables::new(&files);
    let focus = no_focus();
    let before = t.rank(&files, &focus);
    let other = random_tree(301, 77);
    for k in [3, 50, 120, 299] {
        files[k] = other[k].clone();
        t.replace(k, &files[k]);
    }
    files.push(other[300].clone());
    t.replace(300, &files[300]);
    t.remove(7);
    files[7] = FileFacts::default();
    let cold = t.rank(&files, &focus);
    let warm = t.rank_from(&files, &focus, Some(&before.file_rank));
    assert!(
        warm.iterations < cold.iterations,
        "{} steps from the last ranks, {} from the start",
        warm.iterations,
        cold.iterations
    );
    let apart: f64 = warm
        .file_rank
        .iter()
        .zip(&cold.file_rank)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(apart < 1e-5, "{apart}");
    assert_eq!(warm.file_rank[7], 0.0, "a removed file has no rank");
    let best = |r: &Ranking| -> Vec<(u32, u32)> {
        r.iter(&files).take(40).map(|d| (d.file, d.def)).collect()
    };
    assert_eq!(best(&warm), best(&cold));
}

fn sig(files: &[FileFacts]) -> impl FnMut(usize, usize) -> Option<String> + '_ {
    move |f, d| {
        let def = &files[f].defs[d];
        (!def.line.is_multiple_of(3)).then(|| format!("fn {}(x: u32) -> u32", def.name))
    }
}

#[test]
fn the_map_shows_files_by_their_best_definition_and_definitions_by_line() {
    let files = polyglot();
    let r = rank(&files, &no_focus());
    let mut asked = 0;
    let mut signature = |f: usize, d: usize| {
        asked += 1;
        match files[f].defs[d].name.as_ref() {
            "parse_config" => {
                Some("pub fn parse_config(\n    text: &str,\n) -> Config".to_string())
            }
            "NewServer" => Some("func NewServer(addr string) *Server".to_string()),
            _ => None,
        }
    };
    let budget = MapBudget {
        max_bytes: 10_000,
        max_lines: 100,
    };
    let map = render(&files, &r, budget, &mut signature);
    assert!(!map.cut);
    assert_eq!(
        (
            map.defs_shown,
            map.defs_total,
            map.files_shown,
            map.files_total
        ),
        (10, 10, 6, 6)
    );
    assert_eq!(asked, 10);
    let first: Vec<&str> = map.text.lines().take(3).collect();
    assert_eq!(
        first,
        [
            "src/util.rs:",
            "  3: pub fn parse_config( text: &str, ) -> Config",
            "  20: function Config"
        ]
    );
    assert!(map.text.contains(
        "server/server.go:\n  10: func NewServer(addr string) *Server\n  30: function ServeHTTP\n"
    ));
    assert!(!map.text.contains("[map:"));
}

#[test]
fn a_cut_map_says_how_much_it_shows() {
    let files = polyglot();
    let r = rank(&files, &no_focus());
    let mut asked = Vec::new();
    let mut signature = |f: usize, d: usize| {
        asked.push((f, d));
        None
    };
    let budget = MapBudget {
        max_bytes: 400,
        max_lines: 6,
    };
    let map = render(&files, &r, budget, &mut signature);
    assert!(map.cut);
    assert_eq!(asked.len(), map.defs_shown);
    // The third would need its file's header: no room (the fourth, Config, is not tried).
    assert_eq!(
        names(&files, &r)[2..4],
        ["server/server.go:NewServer", "src/util.rs:Config"]
    );
    let want = "src/util.rs:\n  3: function parse_config\ntools/report.py:\n  12: function render_report\n\
                [map: 2 of 10 definitions in 2 of 6 files; ask with a smaller path, a focus, or a larger byte budget]\n";
    assert_eq!(map.text, want);
    // Too few bytes for the long line: the short one.
    let map = render(
        &files,
        &r,
        MapBudget {
            max_bytes: 120,
            max_lines: 50,
        },
        &mut |_, _| None,
    );
    assert!(
        map.text
            .ends_with(&format!("\n[map: {} of 10 definitions]\n", map.defs_shown)),
        "{}",
        map.text
    );
}

/// Checks one map against its budget: the bytes and lines, the counts, and the cut line.
fn check_map(files: &[FileFacts], r: &Ranking, budget: MapBudget) {
    let mut asked = 0;
    let mut signature = sig(files);
    let mut counted = |f, d| {
        asked += 1;
        signature(f, d)
    };
    let map = render(files, r, budget, &mut counted);
    let what = format!("{budget:?}:\n{}", map.text);
    assert!(map.text.len() <= budget.max_bytes, "{what}");
    let lines = map.text.matches('\n').count();
    assert!(lines <= budget.max_lines, "{what}");
    assert!(map.text.is_empty() || map.text.ends_with('\n'), "{what}");
    let def_lines = map.text.lines().filter(|l| l.starts_with("  ")).count();
    assert_eq!(def_lines, map.defs_shown, "{what}");
    assert_eq!(map.cut, map.defs_shown < map.defs_total, "{what}");
    assert!(
        asked >= map.defs_shown && asked <= map.defs_shown + budget.max_bytes / 7,
        "{what}"
    );
    let note = map
        .text
        .lines()
        .last()
        .is_some_and(|l| l.starts_with("[map: "));
    let short = format!("[map: {0} of {0} definitions]\n", map.defs_total).len();
    if map.cut && budget.max_bytes >= short && budget.max_lines >= 1 {
        assert!(note, "{what}");
        let shown = format!(
            "[map: {} of {} definitions",
            map.defs_shown,
            super::render::thousands(map.defs_total)
        );
        assert!(
            map.text.lines().last().unwrap().starts_with(&shown),
            "{what}"
        );
    } else {
        assert!(!note, "{what}");
    }
    if !map.cut {
        assert_eq!(map.files_shown, map.files_total, "{what}");
    }
}

#[test]
fn the_map_never_exceeds_its_budget() {
    let files = random_tree(60, 5);
    let r = rank(&files, &no_focus());
    for max_bytes in (50..5000).step_by(23) {
        for max_lines in [1, 2, 3, 4, 5, 7, 10, 20, 50, 100, 200] {
            check_map(
                &files,
                &r,
                MapBudget {
                    max_bytes,
                    max_lines,
                },
            );
        }
    }
    for max_bytes in [0, 1, 10, 30, 100_000] {
        for max_lines in [0, 1, 1000] {
            check_map(
                &files,
                &r,
                MapBudget {
                    max_bytes,
                    max_lines,
                },
            );
        }
    }
    let all = render(
        &files,
        &r,
        MapBudget {
            max_bytes: 1 << 20,
            max_lines: 1 << 20,
        },
        &mut sig(&files),
    );
    assert!(!all.cut && all.defs_shown == all.defs_total);
}

#[test]
fn a_map_that_fits_only_without_its_cut_line_is_whole() {
    let files = polyglot();
    let r = rank(&files, &no_focus());
    let whole = render(
        &files,
        &r,
        MapBudget {
            max_bytes: 10_000,
            max_lines: 100,
        },
        &mut |_, _| None,
    );
    let lines = whole.text.matches('\n').count();
    for budget in [
        MapBudget {
            max_bytes: whole.text.len(),
            max_lines: lines,
        },
        MapBudget {
            max_bytes: whole.text.len(),
            max_lines: 100,
        },
        MapBudget {
            max_bytes: 10_000,
            max_lines: lines,
        },
    ] {
        let map = render(&files, &r, budget, &mut |_, _| None);
        assert_eq!(map, whole, "{budget:?}");
    }
    let one_less = render(
        &files,
        &r,
        MapBudget {
            max_bytes: 10_000,
            max_lines: lines - 1,
        },
        &mut |_, _| None,
    );
    assert!(one_less.cut && one_less.text.ends_with("larger byte budget]\n"));
}

#[test]
fn the_same_facts_give_the_same_map() {
    let files = random_tree(80, 3);
    let focus = Focus {
        files: vec![5],
        names: vec!["run13".into()],
    };
    let budget = MapBudget {
        max_bytes: 2000,
        max_lines: 60,
    };
    let a = render(&files, &rank(&files, &focus), budget, &mut sig(&files));
    let b = render(&files, &rank(&files, &focus), budget, &mut sig(&files));
    assert_eq!(a, b);
    // Files alike but for their paths: the path decides, whatever their order.
    let twins = vec![
        file("b.go", &[("DoThing", 1)], &[]),
        file("a.go", &[("DoThing", 1)], &[]),
        file("c.go", &[("main", 1)], &[("DoThing", 1)]),
    ];
    let r = rank(&twins, &no_focus());
    assert_eq!(names(&twins, &r)[..2], ["a.go:DoThing", "b.go:DoThing"]);
}

#[test]
fn the_ranking_is_the_same_on_one_thread_and_on_many() {
    // More files and names than one part of a step, so that the step is split.
    let files = random_tree(3 * 4096 + 17, 5);
    let focus = Focus {
        files: vec![2, 9_000],
        names: vec![],
    };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| rank(&files, &focus))
    };
    let (one, many) = (on(1), on(4));
    assert_eq!(one.iterations, many.iterations);
    let bits = |r: &Ranking| r.file_rank.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one), bits(&many));
    assert_eq!(one.defs(&files), many.defs(&files));
}

#[test]
fn a_removed_file_leaves_the_ranking_of_tables_made_without_it() {
    let files = random_tree(80, 3);
    for gone in [0usize, 17, 79] {
        let mut t = Tables::new(&files);
        t.remove(gone);
        let mut kept = files.clone();
        kept[gone] = FileFacts::default();
        let a = t.rank(&kept, &no_focus());
        let without: Vec<FileFacts> = files
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != gone)
            .map(|(_, f)| f.clone())
            .collect();
        let b = rank(&without, &no_focus());
        assert_eq!(names(&kept, &a), names(&without, &b), "without file {gone}");
        for (x, y) in a.iter(&kept).zip(b.iter(&without)) {
            assert!(
                (x.score - y.score).abs() <= 1e-12,
                "{} {}",
                x.score,
                y.score
            );
        }
        assert_eq!(a.file_rank[gone], 0.0);
        // Back again: the ranking of all the files.
        t.replace(gone, &files[gone]);
        let c = t.rank(&files, &no_focus());
        assert_eq!(names(&files, &c), names(&files, &rank(&files, &no_focus())));
    }
}

#[test]
fn counts_are_written_with_thousands() {
    use super::render::thousands;
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(48_210), "48,210");
    assert_eq!(thousands(6_000_000), "6,000,000");
}

/// `files` files, each defining `defs` names and using `uses` names (skewed towards a few
/// popular ones), named as C and Go code names them.
fn synthetic(files: usize, defs: usize, uses: usize) -> Vec<FileFacts> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let names = files * defs;
    let name = |i: usize| {
        if i.is_multiple_of(2) {
            format!("sub_sys_fn_{i}")
        } else {
            format!("DoThing{i}")
        }
    };
    (0..files)
        .map(|f| {
            let defs: Vec<Def> = (0..defs)
                .map(|k| Def {
                    name: name((f * defs + k + rng.below(3) * files) % names).into(),
                    kind: "function",
                    line: 1 + 10 * k as u32,
                    end_line: 9 + 10 * k as u32,
                })
                .collect();
            let mut used: Vec<(String, u32)> = (0..uses)
                .map(|_| {
                    let i = rng.below(names);
                    let i = if rng.below(4) == 0 { i % 1000 } else { i };
                    (name(i), 1 + rng.below(8) as u32)
                })
                .collect();
            used.sort();
            used.dedup_by(|a, b| a.0 == b.0);
            FileFacts {
                path: format!("drivers/d{}/f{f}.c", f % 300),
                defs,
                uses: used,
            }
        })
        .collect()
}

fn time_synthetic(files: usize, defs: usize, uses: usize) {
    let facts = synthetic(files, defs, uses);
    let total_uses: usize = facts.iter().map(|f| f.uses.len()).sum();
    let start = Instant::now();
    let tables = Tables::new(&facts);
    let built = start.elapsed();
    // The steps of `Tables::rank`, timed one by one.
    let t = Instant::now();
    let walk = super::pagerank::Walk::new(&tables, &no_focus());
    let arrays = t.elapsed();
    let walked = walk.run(None);
    let steps = t.elapsed() - arrays;
    let scores = walk.scores(&tables, &walked.rank);
    let scored = t.elapsed() - arrays - steps;
    let (scored_defs, by_rank) = super::order(&facts, &scores, &walked.rank);
    let ordered = t.elapsed() - arrays - steps - scored;
    let r = Ranking {
        scored: scored_defs,
        by_rank,
        scores,
        file_rank: walked.rank,
        iterations: walked.iterations,
    };
    let map = render(
        &facts,
        &r,
        MapBudget {
            max_bytes: 8000,
            max_lines: 200,
        },
        &mut |_, _| None,
    );
    println!(
        "{files} files, {total_uses} uses, {} definitions: tables {built:.2?}; rank {:.2?} = arrays \
         {arrays:.2?} + {} steps {steps:.2?} + scores {scored:.2?} + order {ordered:.2?}; map {} bytes",
        r.len(),
        t.elapsed(),
        r.iterations,
        map.text.len()
    );
    assert!(map.cut && map.text.len() <= 8000);
    let defs = r.defs(&facts);
    assert!(defs[0].score >= defs[defs.len() / 2].score);
    assert_eq!(defs, tables.rank(&facts, &no_focus()).defs(&facts));
}

#[test]
#[ignore = "seconds in a debug build: run with --release --ignored"]
fn a_large_tree_ranks_in_bounded_time() {
    time_synthetic(20_000, 40, 150);
}

#[test]
#[ignore = "the Linux tree's size: run with --release --ignored"]
fn a_tree_the_size_of_linux_ranks_in_bounded_time() {
    time_synthetic(78_000, 75, 200);
}
