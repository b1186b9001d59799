//! `file_read`, grep's enclosing symbol and `mapgrep outline`/`symbol` on Kotlin, Ruby, PHP,
//! Swift and Scala, over the fixtures in `fixtures/` (each written in its language's idioms):
//! skeleton and target snapshots, stubs that resolve, and the symbol a grep hit sits in.

use std::process::Command;

use serde_json::json;

use crate::common::{BIN, Fixture, lines};
use crate::file_read::{
    after_header, assert_stubs_resolve, read_ok, read_text, serve, stub, sym, symbols,
};

const KOTLIN: &str = include_str!("fixtures/inventory.kt");
const RUBY: &str = include_str!("fixtures/billing.rb");
const PHP: &str = include_str!("fixtures/UserController.php");
const SWIFT: &str = include_str!("fixtures/Shapes.swift");
const SCALA: &str = include_str!("fixtures/Pipeline.scala");

/// Every fixture: `(file name, text, language, a line inside a method, that method's
/// address and lines)`.
const FIXTURES: [(&str, &str, &str, u64, &str, u64, u64); 5] = [
    ("inventory.kt", KOTLIN, "kotlin", 27, "Item.parse", 26, 29),
    (
        "billing.rb",
        RUBY,
        "ruby",
        37,
        "Billing.Invoice.from_json",
        34,
        40,
    ),
    (
        "UserController.php",
        PHP,
        "php",
        59,
        "UserController.show",
        54,
        60,
    ),
    ("Shapes.swift", SWIFT, "swift", 57, "Circle.unit", 56, 58),
    ("Pipeline.scala", SCALA, "scala", 43, "Main.main", 42, 45),
];

#[tokio::test]
async fn skeletons_of_every_language() {
    let files: Vec<(&str, &str)> = FIXTURES.iter().map(|f| (f.0, f.1)).collect();
    let (_fx, srv) = serve(&files).await;
    for (file, src, language, ..) in FIXTURES {
        let (text, v) = read_ok(&srv, json!({"file": file, "skeleton": true})).await;
        assert_eq!(v["language"], language, "{file}");
        insta::assert_snapshot!(format!("skeleton_{language}"), text);
        // A range over the whole file: every stub reads its symbol.
        let total = src.lines().count();
        let text = read_text(
            &srv,
            json!({"file": file, "startLine": 1, "endLine": total}),
        )
        .await;
        assert_stubs_resolve(&srv, file, &text).await;
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn targets_of_every_language() {
    let files: Vec<(&str, &str)> = FIXTURES.iter().map(|f| (f.0, f.1)).collect();
    let (_fx, srv) = serve(&files).await;
    let targets = [
        ("inventory.kt", "Item", "target_kotlin_class"),
        ("inventory.kt", "String.slugify", "target_kotlin_extension"),
        ("billing.rb", "Billing::Invoice", "target_ruby_class"),
        ("UserController.php", "UserController", "target_php_class"),
        ("Shapes.swift", "Circle@53", "target_swift_extension"),
        (
            "Pipeline.scala",
            "WordCount",
            "target_scala_class_and_companion",
        ),
    ];
    for (file, target, snapshot) in targets {
        let text = read_text(&srv, json!({"file": file, "target": target})).await;
        insta::assert_snapshot!(snapshot, text);
    }
    // Overloads are read together.
    let (_, v) = read_ok(
        &srv,
        json!({"file": "Shapes.swift", "target": "Canvas.add"}),
    )
    .await;
    assert_eq!(
        symbols(&v),
        vec![
            sym("Canvas.add", "method", 27, 29),
            sym("Canvas.add", "method", 31, 33)
        ]
    );
    let (_, v) = read_ok(&srv, json!({"file": "inventory.kt", "target": "restock"})).await;
    assert_eq!(symbols(&v).len(), 2);
    srv.shutdown().await;
}

#[tokio::test]
async fn kotlin_companion_members_are_the_class_members() {
    let (_fx, srv) = serve(&[("inventory.kt", KOTLIN)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "inventory.kt", "target": "Item.parse"}),
    )
    .await;
    assert_eq!(symbols(&v), vec![sym("Item.parse", "method", 26, 29)]);
    assert_eq!(
        after_header(&text, "inventory.kt"),
        format!(
            "### Item.parse (method, lines 26-29)\n\n{}",
            lines(KOTLIN, 26, 29)
        )
    );
    // The class, members collapsed: the KDoc is its start.
    let text = read_text(&srv, json!({"file": "inventory.kt", "target": "Item"})).await;
    assert!(
        after_header(&text, "inventory.kt").contains(&stub("Item.Companion", "object", 25, 30)),
        "{text}"
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn ruby_instance_and_singleton_methods_by_ruby_names() {
    let (_fx, srv) = serve(&[("billing.rb", RUBY)]).await;
    for t in [
        "Billing::Invoice#total",
        "Invoice#total",
        "Billing.Invoice.total",
    ] {
        let (_, v) = read_ok(&srv, json!({"file": "billing.rb", "target": t})).await;
        assert_eq!(
            symbols(&v),
            vec![sym("Billing.Invoice.total", "method", 30, 32)],
            "{t}"
        );
    }
    let (text, _) = read_ok(
        &srv,
        json!({"file": "billing.rb", "target": "Invoice.from_json"}),
    )
    .await;
    assert!(
        text.contains("# Builds an invoice from a JSON document.\n    def self.from_json(text)"),
        "the `#` comment above is the method's: {text}"
    );
    srv.shutdown().await;
}

/// grep's hits name the symbol they sit in, for each language; the name reads it.
#[tokio::test]
async fn grep_hits_name_their_enclosing_symbol_in_every_language() {
    let fx = Fixture::new();
    for (file, src, ..) in FIXTURES {
        fx.write(file, src);
    }
    let srv = fx.serve().await;
    for (file, src, _, line, address, first, last) in FIXTURES {
        let needle = src.lines().nth(line as usize - 1).unwrap().trim();
        let g = srv
            .answer(
                "grep_content",
                json!({"pattern": needle, "fixed_strings": true, "glob": [file],
                       "section_patterns": []}),
            )
            .await;
        assert!(!g.is_error, "{}", g.text);
        let m = &g.structured["matches"][0];
        assert_eq!(m["line"], line, "{file}: {}", g.text);
        assert_eq!(
            m["symbol"],
            json!({"name": address, "start_line": first, "end_line": last}),
            "{file}"
        );
        assert!(
            g.text.contains(&format!(
                "File: {file}, Line: {line}, Symbol: {address} (lines {first}-{last})"
            )),
            "{}",
            g.text
        );
        let (_, v) = read_ok(&srv, json!({"file": file, "target": address})).await;
        assert_eq!(symbols(&v).len(), 1, "{file}: {address}");
    }
    srv.shutdown().await;
}

/// `mapgrep outline` and `mapgrep symbol` on each language.
#[test]
fn cli_outline_and_symbol_in_every_language() {
    let fx = Fixture::new();
    for (file, src, language, line, address, first, last) in FIXTURES {
        let path = fx.write(file, src);
        let path = path.to_str().unwrap();
        let o = Command::new(BIN).args(["outline", path]).output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{file}: {out}");
        assert!(out.contains(&format!(", {language}\n")), "{out}");
        assert!(
            out.contains(&format!("[{first}-{last}] method: {address}\n")),
            "{out}"
        );
        let o = Command::new(BIN)
            .args(["symbol", path, address])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{file}: {out}");
        assert!(
            out.contains(&format!("### {address} (method, lines {first}-{last})\n")),
            "{out}"
        );
        assert!(out.contains(src.lines().nth(line as usize - 1).unwrap()));
    }
}
