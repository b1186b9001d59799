//! The definition lookup on Python, Go, Rust, TypeScript and JavaScript as their code and
//! their users write them: small trees with packages and crates, and names in the three
//! forms an agent uses — simple (`area`), class-qualified (`Circle.area`, `Cart.Add`,
//! `Axios.from`) and module-qualified (`shapes.geometry.area`, `cart.New`,
//! `shop::errors::Error`) — through re-exports, attributes and decorators on the first line,
//! platform and `cfg` variants, items written in macros, ambient and `.d.ts` declarations,
//! CommonJS and prototype assignments, and object-literal members. Each case lists every
//! site, read off the fixture by hand; nothing else may be returned.

use crate::common::{BIN, Fixture};

/// A lookup: the command line's arguments after `def`, and every site expected, each as
/// `PATH:START-END KIND QUALIFIED`, with ` (declaration)` for a declaration.
type Case = (&'static [&'static str], &'static [&'static str]);

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
        .args(["--json", "--time-limit", "0"])
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

/// Runs every case and asserts the lookup exact: every site found, nothing else returned.
fn check(lang: &str, fx: &Fixture, cases: &[Case]) {
    let mut missed = Vec::new();
    let mut extra = Vec::new();
    for (args, want) in cases {
        let got = sites(fx, args);
        missed.extend(
            want.iter()
                .filter(|w| !got.iter().any(|g| g == *w))
                .map(|w| format!("{args:?}: {w}")),
        );
        extra.extend(
            got.iter()
                .filter(|g| !want.contains(&g.as_str()))
                .map(|g| format!("{args:?}: {g}")),
        );
    }
    assert!(
        missed.is_empty() && extra.is_empty(),
        "{lang}: missed {missed:#?}\nreturned beyond the set {extra:#?}"
    );
}

const PY_INIT: &str = "\
\"\"\"Plane shapes.\"\"\"

from .geometry import Circle, area

__all__ = [\"Circle\", \"area\"]
";

const PY_GEOMETRY: &str = "\
import math
import sys

PI = math.pi


class Circle:
    \"\"\"A circle.\"\"\"

    class Error(ValueError):
        pass

    def __init__(self, r):
        self._r = r

    @property
    def radius(self):
        return self._r

    @classmethod
    def from_diameter(cls, d):
        return cls(d / 2)

    def area(self):
        return PI * self._r ** 2


def area(shapes):
    return sum(s.area() for s in shapes)


if sys.platform == \"win32\":
    def native():
        return \"nt\"
else:
    def native():
        return \"posix\"
";

const PY_REPORT: &str = "\
from shapes import area


def render(shapes):
    return f\"total {area(shapes)}\"
";

#[test]
fn python() {
    let fx = tree(&[
        ("shapes/__init__.py", PY_INIT),
        ("shapes/geometry.py", PY_GEOMETRY),
        ("tools/report.py", PY_REPORT),
    ]);
    check(
        "Python",
        &fx,
        &[
            (
                &["area"],
                &[
                    "shapes/geometry.py:24-25 method shapes.geometry.Circle.area",
                    "shapes/geometry.py:28-29 function shapes.geometry.area",
                ],
            ),
            (
                &["Circle.area"],
                &["shapes/geometry.py:24-25 method shapes.geometry.Circle.area"],
            ),
            (
                &["shapes.geometry.area"],
                &["shapes/geometry.py:28-29 function shapes.geometry.area"],
            ),
            // Re-exported by the package's `__init__.py`.
            (
                &["shapes.Circle"],
                &["shapes/geometry.py:7-25 class shapes.geometry.Circle"],
            ),
            (
                &["shapes.geometry.Circle.Error"],
                &["shapes/geometry.py:10-11 class shapes.geometry.Circle.Error"],
            ),
            // Decorators start the definition.
            (
                &["Circle.radius"],
                &["shapes/geometry.py:16-18 method shapes.geometry.Circle.radius"],
            ),
            (
                &["geometry.Circle.from_diameter"],
                &["shapes/geometry.py:20-22 method shapes.geometry.Circle.from_diameter"],
            ),
            (
                &["geometry.PI"],
                &["shapes/geometry.py:4-4 constant shapes.geometry.PI"],
            ),
            // Both platforms' definitions.
            (
                &["shapes.geometry.native"],
                &[
                    "shapes/geometry.py:33-34 function shapes.geometry.native",
                    "shapes/geometry.py:36-37 function shapes.geometry.native",
                ],
            ),
            // A module outside any package.
            (
                &["report.render"],
                &["tools/report.py:4-5 function report.render"],
            ),
        ],
    );
}

const GO_MOD: &str = "module example.com/shop\n\ngo 1.21\n";

const GO_CART: &str = "\
package cart

import \"errors\"

// ErrEmpty is returned for an empty cart.
var ErrEmpty = errors.New(\"empty cart\")

const (
\tMaxItems = 10
\tMinItems = 1
)

// Item is anything sold.
type Item interface {
\tPrice() int
}

// Cart holds items.
type Cart struct {
\titems []Item
}

// New makes an empty cart.
func New() *Cart {
\treturn &Cart{}
}

// Add puts an item in the cart.
func (c *Cart) Add(it Item) {
\tc.items = append(c.items, it)
}

func (c Cart) Total() int {
\tt := 0
\tfor _, it := range c.items {
\t\tt += it.Price()
\t}
\treturn t
}
";

const GO_CART_UNIX: &str = "\
//go:build unix

package cart

func (c *Cart) path() string {
\treturn \"/var/cart\"
}
";

const GO_CART_WINDOWS: &str = "\
//go:build windows

package cart

func (c *Cart) path() string {
\treturn `C:\\cart`
}
";

const GO_SUM: &str = "\
//go:build amd64

package asm

// Sum is written in assembly.
func Sum(x []int) int
";

const GO_SUM_GENERIC: &str = "\
//go:build !amd64

package asm

func Sum(x []int) int {
\ts := 0
\tfor _, v := range x {
\t\ts += v
\t}
\treturn s
}
";

#[test]
fn go() {
    let fx = tree(&[
        ("go.mod", GO_MOD),
        ("cart/cart.go", GO_CART),
        ("cart/cart_unix.go", GO_CART_UNIX),
        ("cart/cart_windows.go", GO_CART_WINDOWS),
        ("internal/asm/sum_amd64.go", GO_SUM),
        ("internal/asm/sum_generic.go", GO_SUM_GENERIC),
    ]);
    check(
        "Go",
        &fx,
        &[
            (&["cart.New"], &["cart/cart.go:24-26 function cart.New"]),
            (&["Add"], &["cart/cart.go:29-31 method cart.Cart.Add"]),
            (
                &["cart.Cart.Add"],
                &["cart/cart.go:29-31 method cart.Cart.Add"],
            ),
            (
                &["Cart.Total"],
                &["cart/cart.go:33-39 method cart.Cart.Total"],
            ),
            (&["cart.Cart"], &["cart/cart.go:19-21 struct cart.Cart"]),
            (&["cart.Item"], &["cart/cart.go:14-16 interface cart.Item"]),
            (
                &["cart.ErrEmpty"],
                &["cart/cart.go:6-6 variable cart.ErrEmpty"],
            ),
            (
                &["cart.MinItems"],
                &["cart/cart.go:10-10 constant cart.MinItems"],
            ),
            // Every build tag's file.
            (
                &["cart.Cart.path"],
                &[
                    "cart/cart_unix.go:5-7 method cart.Cart.path",
                    "cart/cart_windows.go:5-7 method cart.Cart.path",
                ],
            ),
            // The import path, and the body-less (assembly) declaration left out.
            (
                &["internal.asm.Sum"],
                &["internal/asm/sum_generic.go:5-11 function internal.asm.Sum"],
            ),
            (
                &["asm.Sum", "--declarations"],
                &[
                    "internal/asm/sum_generic.go:5-11 function internal.asm.Sum",
                    "internal/asm/sum_amd64.go:6-6 function internal.asm.Sum (declaration)",
                ],
            ),
        ],
    );
}

const RS_MANIFEST: &str = "[package]\nname = \"shop\"\nversion = \"0.1.0\"\n";

const RS_LIB: &str = "\
//! A shop.

pub mod errors;
pub mod ids;

pub use errors::Error;

/// The shop's result.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns early with an error.
#[macro_export]
macro_rules! fail {
    ($msg:expr) => {
        return Err($crate::Error::new($msg))
    };
}

/// Adds context to errors.
pub trait Context<T> {
    /// Wraps the error with a message.
    fn context(self, msg: &str) -> Result<T>;
}
";

const RS_ERRORS: &str = "\
//! Errors.

use crate::Context;

/// A shop error.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Error {
    msg: String,
}

impl Error {
    /// A new error.
    #[inline]
    pub fn new(msg: &str) -> Error {
        Error { msg: msg.into() }
    }
}

impl<T, E: std::fmt::Debug> Context<T> for std::result::Result<T, E> {
    fn context(self, msg: &str) -> crate::Result<T> {
        self.map_err(|_| Error::new(msg))
    }
}

#[cfg(unix)]
pub fn os() -> &'static str {
    \"unix\"
}

#[cfg(windows)]
pub fn os() -> &'static str {
    \"windows\"
}
";

const RS_IDS: &str = "\
//! Identifiers.

macro_rules! define_id {
    ($(#[$doc:meta])*) => {
        #[cfg(target_pointer_width = \"64\")]
        $(#[$doc])*
        pub struct ItemId(u64);

        #[cfg(not(target_pointer_width = \"64\"))]
        $(#[$doc])*
        pub struct ItemId(u32);
    };
}

define_id!(
    /// An item's identifier.
);
";

#[test]
fn rust() {
    let fx = tree(&[
        ("shop/Cargo.toml", RS_MANIFEST),
        ("shop/src/lib.rs", RS_LIB),
        ("shop/src/errors.rs", RS_ERRORS),
        ("shop/src/ids.rs", RS_IDS),
    ]);
    check(
        "Rust",
        &fx,
        &[
            // Attributes start the definition; re-exported at the crate root.
            (
                &["shop::errors::Error"],
                &["shop/src/errors.rs:6-10 struct shop.errors.Error"],
            ),
            (
                &["shop::Error"],
                &["shop/src/errors.rs:6-10 struct shop.errors.Error"],
            ),
            (
                &["Error::new"],
                &["shop/src/errors.rs:14-17 method shop.errors.Error.new"],
            ),
            (&["shop::Result"], &["shop/src/lib.rs:9-9 type shop.Result"]),
            (&["shop::fail"], &["shop/src/lib.rs:12-17 macro shop.fail"]),
            (
                &["shop::Context"],
                &["shop/src/lib.rs:20-23 trait shop.Context"],
            ),
            // A trait impl's method, named by its type.
            (
                &["context"],
                &["shop/src/errors.rs:21-23 method shop.errors.Result.context"],
            ),
            // Both `cfg` variants.
            (
                &["shop::errors::os"],
                &[
                    "shop/src/errors.rs:26-29 function shop.errors.os",
                    "shop/src/errors.rs:31-34 function shop.errors.os",
                ],
            ),
            // Written in a macro the module invokes, once per `cfg`.
            (
                &["shop::ids::ItemId"],
                &[
                    "shop/src/ids.rs:5-7 struct shop.ids.ItemId",
                    "shop/src/ids.rs:9-11 struct shop.ids.ItemId",
                ],
            ),
        ],
    );
}

const TS_OBSERVABLE: &str = "\
/**
 * A stream of values.
 */
export class Observable<T> {
  static create = <T>(subscribe: (v: T) => void) => {
    return new Observable<T>(subscribe);
  };

  constructor(private source: (v: T) => void) {}

  subscribe(next: (v: T) => void): void;
  subscribe(next: (v: T) => void, error: (e: unknown) => void): void;
  subscribe(next: (v: T) => void, error?: (e: unknown) => void): void {
    this.source(next);
  }
}
";

const TS_OBSERVABLE_DTS: &str = "\
export declare class Observable<T> {
    static create: <T>(subscribe: (v: T) => void) => Observable<T>;
    subscribe(next: (v: T) => void): void;
}
";

const TS_PROVIDER: &str = "\
export const provider = {
  schedule(callback: () => void): number {
    return setTimeout(callback, 0) as unknown as number;
  },
  delegate: undefined as undefined | (() => void),
};

declare function legacySchedule(callback: () => void): number;
";

#[test]
fn typescript() {
    let fx = tree(&[
        ("src/Observable.ts", TS_OBSERVABLE),
        ("types/Observable.d.ts", TS_OBSERVABLE_DTS),
        ("src/provider.ts", TS_PROVIDER),
    ]);
    check(
        "TypeScript",
        &fx,
        &[
            // The `.d.ts` class is a declaration: left out beside the definition.
            (
                &["Observable"],
                &["src/Observable.ts:4-16 class Observable.Observable"],
            ),
            (
                &["Observable", "--declarations"],
                &[
                    "src/Observable.ts:4-16 class Observable.Observable",
                    "types/Observable.d.ts:1-4 class Observable.Observable (declaration)",
                ],
            ),
            (
                &["Observable.subscribe"],
                &["src/Observable.ts:13-15 method Observable.Observable.subscribe"],
            ),
            (
                &["Observable.create"],
                &["src/Observable.ts:5-7 method Observable.Observable.create"],
            ),
            (
                &["provider.schedule"],
                &["src/provider.ts:2-4 method provider.provider.schedule"],
            ),
            // Only declared: listed, as nothing defines it.
            (
                &["legacySchedule"],
                &["src/provider.ts:8-8 function provider.legacySchedule (declaration)"],
            ),
        ],
    );
}

const JS_APPLICATION: &str = "\
'use strict';

var app = exports = module.exports = {};

/**
 * Listens for connections.
 */
app.listen = function listen(port) {
  return port;
};

var req = Object.create(null);

req.get =
req.header = function header(name) {
  return this.headers[name];
};

exports.init = function init() {
  return app;
};
";

const JS_UTILS: &str = "\
function forEach(obj, fn) {
  for (const key of Object.keys(obj)) {
    fn(obj[key], key);
  }
}

const isFormData = (thing) => thing instanceof FormData;

export default {
  forEach,
  isFormData,
  merge(a, b) {
    return Object.assign({}, a, b);
  },
};
";

const JS_AXIOS: &str = "\
class Axios {
  constructor(config) {
    this.defaults = config;
  }

  async request(config) {
    return config;
  }

  static create(config) {
    return new Axios(config);
  }
}

Axios.prototype.extra = function extra() {
  return 1;
};

function AxiosError(message) {
  this.message = message;
}

AxiosError.from = (error, code) => {
  const e = new AxiosError(error.message);
  e.code = code;
  return e;
};

export default Axios;
";

#[test]
fn javascript() {
    let fx = tree(&[
        ("lib/application.js", JS_APPLICATION),
        ("lib/utils.js", JS_UTILS),
        ("lib/core/Axios.js", JS_AXIOS),
    ]);
    check(
        "JavaScript",
        &fx,
        &[
            (
                &["app.listen"],
                &["lib/application.js:8-10 method application.app.listen"],
            ),
            (
                &["listen"],
                &["lib/application.js:8-10 method application.app.listen"],
            ),
            // Chained: both names.
            (
                &["req.get"],
                &["lib/application.js:14-17 method application.req.get"],
            ),
            (
                &["req.header"],
                &["lib/application.js:15-17 method application.req.header"],
            ),
            (
                &["application.init"],
                &["lib/application.js:19-21 function application.init"],
            ),
            // A module's function, a member of its default-exported object.
            (
                &["utils.forEach"],
                &["lib/utils.js:1-5 function utils.forEach"],
            ),
            (
                &["utils.isFormData"],
                &["lib/utils.js:7-7 function utils.isFormData"],
            ),
            (
                &["utils.merge"],
                &["lib/utils.js:12-14 function utils.merge"],
            ),
            (
                &["Axios.request"],
                &["lib/core/Axios.js:6-8 method Axios.Axios.request"],
            ),
            (
                &["Axios.create"],
                &["lib/core/Axios.js:10-12 method Axios.Axios.create"],
            ),
            (
                &["Axios.prototype.extra"],
                &["lib/core/Axios.js:15-17 method Axios.Axios.prototype.extra"],
            ),
            (
                &["AxiosError.from"],
                &["lib/core/Axios.js:23-27 method Axios.AxiosError.from"],
            ),
        ],
    );
}
