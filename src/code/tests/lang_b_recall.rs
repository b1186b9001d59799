//! Unit tests of the definition classes real trees showed missing: C# code under
//! conditional directives (a directive inside a statement or a parameter list) and
//! Objective-C forward declarations in a header read as C.

use super::super::preproc::first_branches;
use super::lang_b_defs::{build, sites};

/// Directives inside a statement and a parameter list, a member redefined per branch, a
/// nested `#if` inside a branch not taken.
const CSHARP_CONDITIONAL: &str = r#"namespace Shop.Billing
{
    public class Ledger
    {
#if AUDIT
        private readonly object gate = new object();
        internal bool Audited { get; set; } = true;
#elif TRACE
        internal bool Audited { get; set; } = false;
#else
#if VERBOSE
        internal bool Loud = true;
#endif
        internal bool Audited { get; set; } = false;
#endif

        internal void Post(ref long cents, int batch
#if TRACE
                           , string origin
#endif
        )
        {
#if AUDIT
            lock (gate)
#endif
            {
                cents += batch;
            }
        }

        internal static void Open()
        {
            bool Check(long cents)
            {
                return cents > 0;
            }
            Check(1);
        }
    }
}
"#;

#[test]
fn csharp_conditional_directives_take_the_first_branch() {
    let masked = first_branches(CSHARP_CONDITIONAL.as_bytes());
    assert_eq!(masked.len(), CSHARP_CONDITIONAL.len());
    let text = String::from_utf8(masked.into_owned()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), CSHARP_CONDITIONAL.lines().count());
    // The directives and the other branches blank, the first branch kept.
    assert!(lines[4].trim().is_empty(), "{:?}", lines[4]);
    assert!(lines[5].contains("gate = new object()"));
    for (n, line) in lines.iter().enumerate().take(15).skip(7) {
        assert!(line.trim().is_empty(), "line {}: {line:?}", n + 1);
    }
    assert!(lines[18].contains(", string origin"));
    assert!(lines[23].contains("lock (gate)"));
    // Nothing to mask: the bytes themselves, borrowed.
    let plain = "class A { string s = \"#if\"; }\n";
    assert!(matches!(
        first_branches(plain.as_bytes()),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn csharp_members_after_directives_in_statements_are_found() {
    let s = build("Ledger.cs", CSHARP_CONDITIONAL);
    assert_eq!(sites(&s, "Post"), ["method Shop.Billing.Ledger.Post 17-29"]);
    assert_eq!(sites(&s, "Open"), ["method Shop.Billing.Ledger.Open 31-38"]);
    assert_eq!(
        sites(&s, "Audited"),
        ["property Shop.Billing.Ledger.Audited 7-7"]
    );
}

#[test]
fn objective_c_forward_declarations_in_headers_are_declarations() {
    let src = "#import <Foundation/Foundation.h>\n\n@class Invoice;\n@protocol Payable;\n\nint ledger_count(void);\n";
    let s = build("Ledger.h", src);
    for name in ["Invoice", "Payable"] {
        let found = sites(&s, name);
        assert!(
            !found.is_empty() && found.iter().all(|x| x.ends_with("(declaration)")),
            "{name}: {found:?}"
        );
    }
}
