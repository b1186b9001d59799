//! The definition lookup is exact on a hand-checked set per language (issue 26): for C, C++,
//! Java, C#, Bash, Kotlin, Ruby, PHP, Swift and Scala, a small tree in `fixtures/define/`
//! (plus the `file_read` fixtures for Kotlin, Ruby, PHP, Swift and Scala) and names whose
//! every site was read off the fixture by hand: names with several sites in two files,
//! overloads, nested and qualified names, macros, prototypes, names that are also called and
//! used elsewhere. Each test runs `mapgrep def NAME --json` per name, measures recall (the
//! hand-checked sites found / all of them) and the non-definitions returned (sites outside the
//! set: calls, uses, imports), and asserts 100% recall and none returned.

use crate::common::{BIN, Fixture};

/// A lookup: the command line's arguments after `def`, and the sites expected, each as
/// `PATH:START-END KIND QUALIFIED`, with ` (declaration)` for a declaration.
type Case = (&'static [&'static str], &'static [&'static str]);

/// A tree of `(path, contents)`.
fn tree(files: &[(&str, &str)]) -> Fixture {
    let fx = Fixture::new();
    for (path, text) in files {
        fx.write(path, text);
    }
    fx
}

/// The sites `mapgrep def ARGS --json` prints, as [`Case`] writes them.
fn sites(fx: &Fixture, args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(BIN)
        .arg("def")
        .args(args)
        .arg("--json")
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{args:?}: {out:?}"
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let decl = if v["declaration"] == true {
                " (declaration)"
            } else {
                ""
            };
            format!(
                "{}:{}-{} {} {}{decl}",
                v["path"].as_str().unwrap(),
                v["start_line"],
                v["end_line"],
                v["kind"].as_str().unwrap(),
                v["qualified"].as_str().unwrap(),
            )
        })
        .collect()
}

/// Runs every case of `lang`, prints its recall and non-definitions, and asserts the lookup
/// exact: every hand-checked site found, nothing else returned.
fn check(lang: &str, fx: &Fixture, cases: &[Case]) {
    let (mut expected, mut found, mut extra) = (0, 0, Vec::new());
    let mut missed = Vec::new();
    for (args, want) in cases {
        let got = sites(fx, args);
        expected += want.len();
        for w in *want {
            if got.iter().any(|g| g == w) {
                found += 1;
            } else {
                missed.push(format!("{args:?}: {w}"));
            }
        }
        for g in &got {
            if !want.contains(&g.as_str()) {
                extra.push(format!("{args:?}: {g}"));
            }
        }
    }
    eprintln!(
        "{lang}: {} names, recall {found}/{expected} ({:.0}%), {} non-definitions returned",
        cases.len(),
        100.0 * found as f64 / expected as f64,
        extra.len()
    );
    assert!(
        missed.is_empty() && extra.is_empty(),
        "{lang}: missed {missed:#?}\nreturned beyond the set {extra:#?}"
    );
}

const C_BUF_H: &str = include_str!("fixtures/define/c/include/buf.h");
const C_BUF_C: &str = include_str!("fixtures/define/c/src/buf.c");
const C_MAIN_C: &str = include_str!("fixtures/define/c/src/main.c");

#[test]
fn c() {
    let fx = tree(&[
        ("include/buf.h", C_BUF_H),
        ("src/buf.c", C_BUF_C),
        ("src/main.c", C_MAIN_C),
    ]);
    check(
        "C",
        &fx,
        &[
            // Macros, an object-like one used in both .c files, a function-like one.
            (&["BUF_MAX"], &["include/buf.h:6-6 macro BUF_MAX"]),
            (&["buf_len"], &["include/buf.h:7-7 macro buf_len"]),
            // The struct with its body, not its `struct buf *b` uses.
            (&["buf"], &["include/buf.h:10-13 struct buf"]),
            // Prototype in the header, definition in the .c file, call in main.c.
            (&["buf_new"], &["src/buf.c:17-25 function buf_new"]),
            (
                &["buf_new", "--declarations"],
                &[
                    "src/buf.c:17-25 function buf_new",
                    "include/buf.h:15-15 prototype buf_new (declaration)",
                ],
            ),
            (
                &["buf_free", "--declarations"],
                &[
                    "src/buf.c:27-31 function buf_free",
                    "include/buf.h:16-16 prototype buf_free (declaration)",
                ],
            ),
            // A prototype alone: listed, since nothing defines it.
            (
                &["buf_only_declared"],
                &["include/buf.h:17-17 prototype buf_only_declared (declaration)"],
            ),
            // Kernel-style attribute macro before the return type.
            (&["buf_grab"], &["include/buf.h:19-22 function buf_grab"]),
            // K&R style: the return type on the line above.
            (&["buf_grow"], &["src/buf.c:5-10 function buf_grow"]),
            // Both branches of `#ifdef`/`#else`.
            (
                &["buf_trace"],
                &[
                    "src/buf.c:34-37 function buf_trace",
                    "src/buf.c:39-42 function buf_trace",
                ],
            ),
            // A static function of that name in two files, called in one.
            (
                &["buf_check"],
                &[
                    "src/buf.c:12-15 function buf_check",
                    "src/main.c:4-7 function buf_check",
                ],
            ),
            (&["BUF_MAX", "--kind", "function"], &[]),
        ],
    );
}

const CPP_GEO_HPP: &str = include_str!("fixtures/define/cpp/include/geo.hpp");
const CPP_GEO_CPP: &str = include_str!("fixtures/define/cpp/src/geo.cpp");
const CPP_MAIN_CPP: &str = include_str!("fixtures/define/cpp/src/main.cpp");

#[test]
fn cpp() {
    let fx = tree(&[
        ("include/geo.hpp", CPP_GEO_HPP),
        ("src/geo.cpp", CPP_GEO_CPP),
        ("src/main.cpp", CPP_MAIN_CPP),
    ]);
    check(
        "C++",
        &fx,
        &[
            (&["GEO_SQUARE"], &["include/geo.hpp:4-4 macro GEO_SQUARE"]),
            // An out-of-class method (kind `function`: `geo::Circle::area` could as well
            // name a function of a namespace) and a static function in both `#ifdef`
            // branches; the pure virtual and the in-class prototype only when asked.
            (
                &["area"],
                &[
                    "src/geo.cpp:6-9 function geo.Circle.area",
                    "src/main.cpp:5-8 function area",
                    "src/main.cpp:10-13 function area",
                ],
            ),
            (
                &["area", "--declarations"],
                &[
                    "src/geo.cpp:6-9 function geo.Circle.area",
                    "src/main.cpp:5-8 function area",
                    "src/main.cpp:10-13 function area",
                    "include/geo.hpp:15-15 prototype geo.Shape.area (declaration)",
                    "include/geo.hpp:21-21 prototype geo.Circle.area (declaration)",
                ],
            ),
            (
                &["geo::Circle::area"],
                &["src/geo.cpp:6-9 function geo.Circle.area"],
            ),
            // Overloads, declared in the header.
            (
                &["describe"],
                &[
                    "src/geo.cpp:16-19 function geo.describe",
                    "src/geo.cpp:21-24 function geo.describe",
                ],
            ),
            // A namespaced name, called as `geo::distance` in main.cpp.
            (
                &["geo::distance"],
                &["src/geo.cpp:11-14 function geo.distance"],
            ),
            (
                &["geo::distance", "--declarations"],
                &[
                    "src/geo.cpp:11-14 function geo.distance",
                    "include/geo.hpp:35-35 prototype geo.distance (declaration)",
                ],
            ),
            // Nested class member.
            (
                &["Circle::Builder::radius"],
                &["include/geo.hpp:25-25 method geo.Circle.Builder.radius"],
            ),
            // The struct, not its `const Point &` and `geo::Point{…}` uses.
            (&["Point"], &["include/geo.hpp:8-10 struct geo.Point"]),
            (
                &["Circle", "--kind", "class"],
                &["include/geo.hpp:18-33 class geo.Circle"],
            ),
        ],
    );
}

const JAVA_CART: &str = include_str!("fixtures/define/java/Cart.java");
const JAVA_PRICED: &str = include_str!("fixtures/define/java/Priced.java");
const JAVA_CHECKOUT: &str = include_str!("fixtures/define/java/Checkout.java");

#[test]
fn java() {
    let fx = tree(&[
        ("src/com/shop/Cart.java", JAVA_CART),
        ("src/com/shop/Priced.java", JAVA_PRICED),
        ("src/com/shop/Checkout.java", JAVA_CHECKOUT),
    ]);
    check(
        "Java",
        &fx,
        &[
            // Overloads, one calling the other; `lines.add` and `cart.add` are calls.
            (
                &["add"],
                &[
                    "src/com/shop/Cart.java:18-20 method com.shop.Cart.add",
                    "src/com/shop/Cart.java:22-24 method com.shop.Cart.add",
                ],
            ),
            // Two classes define it, an interface declares it (asked for), calls in both.
            (
                &["total"],
                &[
                    "src/com/shop/Cart.java:26-33 method com.shop.Cart.total",
                    "src/com/shop/Checkout.java:4-8 method com.shop.Checkout.total",
                ],
            ),
            (
                &["Priced.total", "--declarations"],
                &["src/com/shop/Priced.java:4-4 method com.shop.Priced.total (declaration)"],
            ),
            // The class and its two constructors, not `new Cart()` nor `Cart cart`.
            (
                &["Cart"],
                &[
                    "src/com/shop/Cart.java:7-44 class com.shop.Cart",
                    "src/com/shop/Cart.java:10-12 constructor com.shop.Cart.Cart",
                    "src/com/shop/Cart.java:14-16 constructor com.shop.Cart.Cart",
                ],
            ),
            // A nested class by its qualified name, and its constructor.
            (
                &["Cart.Line"],
                &["src/com/shop/Cart.java:35-43 class com.shop.Cart.Line"],
            ),
            (
                &["Cart.Line.Line"],
                &["src/com/shop/Cart.java:39-42 constructor com.shop.Cart.Line.Line"],
            ),
            (
                &["Priced"],
                &["src/com/shop/Priced.java:3-9 interface com.shop.Priced"],
            ),
            (
                &["Priced.isFree"],
                &["src/com/shop/Priced.java:6-8 method com.shop.Priced.isFree"],
            ),
        ],
    );
}

const CS_ORDER: &str = include_str!("fixtures/define/csharp/Order.cs");
const CS_INVOICE: &str = include_str!("fixtures/define/csharp/Invoice.cs");

#[test]
fn csharp() {
    let fx = tree(&[
        ("Orders/Order.cs", CS_ORDER),
        ("Billing/Invoice.cs", CS_INVOICE),
    ]);
    check(
        "C#",
        &fx,
        &[
            // Overloads, an expression-bodied one calling the other; `_items.Add` is a call.
            (
                &["Add"],
                &[
                    "Orders/Order.cs:24-24 method Shop.Orders.Order.Add",
                    "Orders/Order.cs:26-29 method Shop.Orders.Order.Add",
                ],
            ),
            // Two classes in two files (one under a file-scoped namespace), an interface's
            // declaration when asked. A file-scoped namespace (`namespace Shop.Billing;`) is
            // the file's package, a block namespace a container: both qualify alike.
            (
                &["Total", "--declarations"],
                &[
                    "Billing/Invoice.cs:7-12 method Shop.Billing.Invoice.Total",
                    "Orders/Order.cs:31-34 method Shop.Orders.Order.Total",
                    "Orders/Order.cs:8-8 method Shop.Orders.IPriced.Total (declaration)",
                ],
            ),
            (
                &["Shop.Orders.Order.Total"],
                &["Orders/Order.cs:31-34 method Shop.Orders.Order.Total"],
            ),
            // The class and its constructors, not `new Order("copy")` nor `Order order`.
            (
                &["Order"],
                &[
                    "Orders/Order.cs:11-43 class Shop.Orders.Order",
                    "Orders/Order.cs:15-15 constructor Shop.Orders.Order.Order",
                    "Orders/Order.cs:17-20 constructor Shop.Orders.Order.Order",
                ],
            ),
            (
                &["Order.Item", "--kind", "class"],
                &["Orders/Order.cs:36-42 class Shop.Orders.Order.Item"],
            ),
            (
                &["IPriced"],
                &["Orders/Order.cs:6-9 interface Shop.Orders.IPriced"],
            ),
            (
                &["Customer"],
                &["Orders/Order.cs:22-22 property Shop.Orders.Order.Customer"],
            ),
        ],
    );
}

const SH_DEPLOY: &str = include_str!("fixtures/define/bash/deploy.sh");
const SH_LIB: &str = include_str!("fixtures/define/bash/lib.sh");

#[test]
fn bash() {
    let fx = tree(&[("bin/deploy.sh", SH_DEPLOY), ("bin/lib.sh", SH_LIB)]);
    check(
        "Bash",
        &fx,
        &[
            // `function NAME {`, called on the last lines.
            (&["deploy"], &["bin/deploy.sh:6-9 function deploy"]),
            // `NAME() {`, called in the other file.
            (&["log"], &["bin/lib.sh:3-5 function log"]),
            // Both forms, one per file; `|| usage` is a call.
            (
                &["usage"],
                &[
                    "bin/deploy.sh:11-14 function usage",
                    "bin/lib.sh:7-9 function usage",
                ],
            ),
        ],
    );
}

const KOTLIN_INVENTORY: &str = include_str!("fixtures/inventory.kt");
const KOTLIN_STOCK: &str = include_str!("fixtures/define/kotlin/Stock.kt");

#[test]
fn kotlin() {
    let fx = tree(&[
        ("src/inventory.kt", KOTLIN_INVENTORY),
        ("src/Stock.kt", KOTLIN_STOCK),
    ]);
    check(
        "Kotlin",
        &fx,
        &[
            // Overloads in one class, a third site in another file; `it.restock(amount)`
            // and `restock(other.count)` are calls.
            (
                &["restock"],
                &[
                    "src/Stock.kt:4-6 method com.example.inventory.Stock.restock",
                    "src/inventory.kt:21-21 method com.example.inventory.Item.restock",
                    "src/inventory.kt:23-23 method com.example.inventory.Item.restock",
                ],
            ),
            // Extension functions, one calling the other.
            (
                &["slugify"],
                &[
                    "src/Stock.kt:13-13 function com.example.inventory.Item.slugify",
                    "src/inventory.kt:60-61 function com.example.inventory.String.slugify",
                ],
            ),
            (
                &["String.slugify"],
                &["src/inventory.kt:60-61 function com.example.inventory.String.slugify"],
            ),
            // As an import names an extension: a member of its package, receiver left out.
            (
                &["com.example.inventory.slugify"],
                &[
                    "src/Stock.kt:13-13 function com.example.inventory.Item.slugify",
                    "src/inventory.kt:60-61 function com.example.inventory.String.slugify",
                ],
            ),
            (&["org.example.slugify"], &[]),
            // A companion member, qualified as Kotlin calls it (`Item.parse`, as in the
            // other file).
            (
                &["parse"],
                &["src/inventory.kt:26-29 method com.example.inventory.Item.parse"],
            ),
            (
                &["Item.parse"],
                &["src/inventory.kt:26-29 method com.example.inventory.Item.parse"],
            ),
            (
                &["Stock.Snapshot.describe"],
                &["src/Stock.kt:9-9 method com.example.inventory.Stock.Snapshot.describe"],
            ),
            // An interface member without a body: listed alone.
            (
                &["find"],
                &[
                    "src/inventory.kt:34-34 method com.example.inventory.Repository.find (declaration)",
                ],
            ),
            (
                &["Repository"],
                &["src/inventory.kt:33-36 interface com.example.inventory.Repository"],
            ),
        ],
    );
}

const RUBY_BILLING: &str = include_str!("fixtures/billing.rb");
const RUBY_LEDGER: &str = include_str!("fixtures/define/ruby/ledger.rb");

#[test]
fn ruby() {
    let fx = tree(&[
        ("lib/billing.rb", RUBY_BILLING),
        ("lib/billing/ledger.rb", RUBY_LEDGER),
    ]);
    check(
        "Ruby",
        &fx,
        &[
            // Two classes of one module in two files; `inv.add`, `l.add`, `ledger.add` are
            // calls.
            (
                &["add"],
                &[
                    "lib/billing.rb:25-28 method Billing.Invoice.add",
                    "lib/billing/ledger.rb:3-5 method Billing.Ledger.add",
                ],
            ),
            (
                &["Billing::Invoice#add"],
                &["lib/billing.rb:25-28 method Billing.Invoice.add"],
            ),
            // `def self.x`, called as `Invoice.from_json` in the other file.
            (
                &["from_json"],
                &["lib/billing.rb:35-40 method Billing.Invoice.from_json"],
            ),
            (
                &["Billing.settle"],
                &["lib/billing.rb:61-65 method Billing.settle"],
            ),
            (
                &["Billing::Ledger::Audit.check"],
                &["lib/billing/ledger.rb:12-15 method Billing.Ledger.Audit.check"],
            ),
            // Top-level, called at the end of its file and in the other one.
            (
                &["format_cents"],
                &["lib/billing.rb:68-70 function format_cents"],
            ),
            // Used as `invoice.total` in both files.
            (
                &["total"],
                &["lib/billing.rb:30-32 method Billing.Invoice.total"],
            ),
        ],
    );
}

const PHP_CONTROLLER: &str = include_str!("fixtures/UserController.php");
const PHP_HELPERS: &str = include_str!("fixtures/define/php/helpers.php");

#[test]
fn php() {
    let fx = tree(&[
        ("app/Http/UserController.php", PHP_CONTROLLER),
        ("app/Support/helpers.php", PHP_HELPERS),
    ]);
    check(
        "PHP",
        &fx,
        &[
            // Namespaced functions: `use function …\slugify` and `slugify($name)` are not
            // sites. A `namespace App\Support;` statement is the file's package.
            (
                &["slugify"],
                &["app/Support/helpers.php:5-8 function App.Support.slugify"],
            ),
            (
                &["App\\Support\\slugify"],
                &["app/Support/helpers.php:5-8 function App.Support.slugify"],
            ),
            (
                &["helper"],
                &[
                    "app/Http/UserController.php:73-76 function App.Http.Controllers.helper",
                    "app/Support/helpers.php:10-13 function App.Support.helper",
                ],
            ),
            // Trait methods in two files.
            (
                &["touch"],
                &[
                    "app/Http/UserController.php:21-24 method App.Http.Controllers.Timestamps.touch",
                    "app/Support/helpers.php:17-20 method App.Support.Loggable.touch",
                ],
            ),
            (
                &["Loggable::touch"],
                &["app/Support/helpers.php:17-20 method App.Support.Loggable.touch"],
            ),
            // An interface's declaration and the class's definition.
            (
                &["present", "--declarations"],
                &[
                    "app/Http/UserController.php:67-70 method App.Http.Controllers.UserController.present",
                    "app/Http/UserController.php:16-16 method App.Http.Controllers.Presentable.present (declaration)",
                ],
            ),
            (
                &["UserController::__construct"],
                &[
                    "app/Http/UserController.php:50-52 method App.Http.Controllers.UserController.__construct",
                ],
            ),
        ],
    );
}

const SWIFT_SHAPES: &str = include_str!("fixtures/Shapes.swift");
const SWIFT_DRAWING: &str = include_str!("fixtures/define/swift/Drawing.swift");

#[test]
fn swift() {
    let fx = tree(&[
        ("Sources/Shapes.swift", SWIFT_SHAPES),
        ("Sources/Drawing.swift", SWIFT_DRAWING),
    ]);
    check(
        "Swift",
        &fx,
        &[
            // A nested class's method, an extension member, a struct's; the protocol's
            // requirement when asked.
            (
                &["draw", "--declarations"],
                &[
                    "Sources/Drawing.swift:8-10 method Canvas.draw",
                    "Sources/Drawing.swift:18-21 method Sketch.draw",
                    "Sources/Shapes.swift:36-36 method Canvas.Layer.draw",
                    "Sources/Drawing.swift:4-4 method Drawable.draw (declaration)",
                ],
            ),
            (
                &["Canvas.Layer.draw"],
                &["Sources/Shapes.swift:36-36 method Canvas.Layer.draw"],
            ),
            // Overloads; `add(Circle.unit())` and `add($0)` are calls.
            (
                &["add"],
                &[
                    "Sources/Shapes.swift:27-29 method Canvas.add",
                    "Sources/Shapes.swift:31-33 method Canvas.add",
                ],
            ),
            // A struct's method and an extension's, in two files; called in a third place.
            (
                &["scaled"],
                &[
                    "Sources/Drawing.swift:12-14 method Canvas.scaled",
                    "Sources/Shapes.swift:17-19 method Circle.scaled",
                ],
            ),
            (
                &["Circle.unit"],
                &["Sources/Shapes.swift:56-58 method Circle.unit"],
            ),
            (
                &["Drawable"],
                &["Sources/Drawing.swift:3-5 protocol Drawable"],
            ),
            (
                &["totalArea"],
                &["Sources/Shapes.swift:62-64 function totalArea"],
            ),
        ],
    );
}

const SCALA_PIPELINE: &str = include_str!("fixtures/Pipeline.scala");
const SCALA_STAGES: &str = include_str!("fixtures/define/scala/Stages.scala");

#[test]
fn scala() {
    let fx = tree(&[
        ("src/Pipeline.scala", SCALA_PIPELINE),
        ("src/Stages.scala", SCALA_STAGES),
    ]);
    check(
        "Scala",
        &fx,
        &[
            // Overloads, object members, the traits' abstract members when asked;
            // `WordCount().run(…)` is a call.
            (
                &["run", "--declarations"],
                &[
                    "src/Pipeline.scala:14-15 method com.example.jobs.WordCount.run",
                    "src/Pipeline.scala:17-17 method com.example.jobs.WordCount.run",
                    "src/Stages.scala:8-8 method com.example.jobs.Stages.run",
                    "src/Stages.scala:11-11 method com.example.jobs.Stages.Console.run",
                    "src/Pipeline.scala:8-8 method com.example.jobs.Stage.run (declaration)",
                    "src/Stages.scala:4-4 method com.example.jobs.Sink.run (declaration)",
                ],
            ),
            (
                &["helper"],
                &[
                    "src/Pipeline.scala:48-48 method com.example.jobs.Main.Inner.helper",
                    "src/Stages.scala:14-14 method com.example.jobs.Stages.helper",
                ],
            ),
            (
                &["Main.Inner.helper"],
                &["src/Pipeline.scala:48-48 method com.example.jobs.Main.Inner.helper"],
            ),
            (
                &["WordCount.apply"],
                &["src/Pipeline.scala:23-23 method com.example.jobs.WordCount.apply"],
            ),
            (
                &["Sink"],
                &["src/Stages.scala:3-5 trait com.example.jobs.Sink"],
            ),
            (
                &["WordCount"],
                &[
                    "src/Pipeline.scala:13-18 class com.example.jobs.WordCount",
                    "src/Pipeline.scala:20-24 object com.example.jobs.WordCount",
                ],
            ),
        ],
    );
}
