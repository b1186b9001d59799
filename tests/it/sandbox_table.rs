//! The sandbox as one table: every attack path against every tool that takes a path
//! (`read_files`, `read_text_file`, `grep_content`, `doc_toc`, `doc_read`, `doc_replace` on a
//! server started with `--allow-write`, and `file_read` in four modes: whole, skeleton, range,
//! target). Each must be refused (or, for the controls, allowed) promptly, leak nothing from
//! outside the root, write nothing, and leave the server answering.

use mapgrep::platform::test_support as sys;
use std::path::Path;
use std::time::Instant;

use serde_json::json;

use crate::common::{CALL_TIMEOUT, Fixture, Server, text_of};

const SECRET: &str = "TOP SECRET outside the root";

/// The headings of `file_read`'s path refusals (the Error/Problem/Fix layout, shared with `read_files` and
/// the document tools). "Read failed" is the answer to a trailing slash on a file (ENOTDIR)
/// and to an over-long path (ENAMETOOLONG), as for the other tools.
const FILE_READ_REFUSALS: [&str; 5] = [
    "Error: Path outside the allowed roots\n",
    "Error: File not found\n",
    "Error: Invalid path\n",
    "Error: Not a regular file\n",
    "Error: Read failed\n",
];

/// `file_read` with a target on a file it opened that has no code structure (the fixture's
/// `.txt` files): the path was accepted.
const NO_SYMBOLS: &str = "Error: No symbols in this file type\n";

/// Whether a case must be refused or is a control that must work.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Refused,
    Allowed,
}

struct Case {
    name: &'static str,
    /// The path as the attacker sends it; `{root}` and `{base}` are replaced.
    path: String,
    want: Want,
}

fn case(name: &'static str, path: &str, want: Want) -> Case {
    Case {
        name,
        path: path.to_string(),
        want,
    }
}

fn fixture() -> Fixture {
    let fx = Fixture::new();
    let (root, base) = (fx.root.clone(), fx.base().to_path_buf());
    // Headings, so that the document tools have a section to read ("1": the one at line 1).
    fx.write("good.txt", "# good line\n");
    fx.write("sub/inner.txt", "# inner line\n");
    fx.write_outside("outside/secret.txt", format!("# {SECRET}\n"));
    fx.write_outside("repo-evil/secret.txt", format!("# {SECRET}\n"));
    let link = |target: &Path, name: &str| {
        sys::symlink(target, root.join(name)).expect("symlink");
    };
    link(&base.join("outside/secret.txt"), "file-out");
    link(&base.join("outside"), "dir-out");
    link(Path::new("../outside/secret.txt"), "relative-out");
    link(&root.join("file-out"), "chain-out");
    link(&root.join("loop-b"), "loop-a");
    link(&root.join("loop-a"), "loop-b");
    link(&root.join("missing.txt"), "dangling-in");
    link(&base.join("outside/missing.txt"), "dangling-out");
    link(&base, "parent");
    link(&root.join("sub"), "sub-link");
    link(&root.join("good.txt"), "good-link");
    // A FIFO and a socket where the system has them (elsewhere the two cases name missing
    // files, refused all the same).
    if sys::supported() {
        let ok = std::process::Command::new("mkfifo")
            .arg(root.join("fifo"))
            .status()
            .expect("mkfifo")
            .success();
        assert!(ok);
        let sock = sys::bind_socket(root.join("sock")).expect("socket");
        std::mem::forget(sock);
    }
    fx
}

fn cases() -> Vec<Case> {
    use Want::*;
    vec![
        case(
            "absolute path outside",
            "{base}/outside/secret.txt",
            Refused,
        ),
        case("/etc/passwd", "/etc/passwd", Refused),
        case("dot-dot escape", "../outside/secret.txt", Refused),
        case(
            "deep dot-dot escape",
            "sub/../../outside/secret.txt",
            Refused,
        ),
        case(
            "absolute dot-dot escape",
            "{root}/../outside/secret.txt",
            Refused,
        ),
        case(
            "sibling with the root as prefix",
            "{base}/repo-evil/secret.txt",
            Refused,
        ),
        case(
            "sibling prefix by dot-dot",
            "../repo-evil/secret.txt",
            Refused,
        ),
        case("symlink to a file outside", "file-out", Refused),
        case(
            "symlink to a directory outside",
            "dir-out/secret.txt",
            Refused,
        ),
        case(
            "missing file under an outside symlink",
            "dir-out/missing.txt",
            Refused,
        ),
        case("relative symlink outside", "relative-out", Refused),
        case("symlink chain outside", "chain-out", Refused),
        case("symlink loop", "loop-a", Refused),
        case("dangling symlink inside", "dangling-in", Refused),
        case("dangling symlink outside", "dangling-out", Refused),
        case(
            "symlink to the root's parent",
            "parent/outside/secret.txt",
            Refused,
        ),
        case(
            "NUL byte in the path",
            "good.txt\u{0}../../etc/passwd",
            Refused,
        ),
        case("/dev/zero", "/dev/zero", Refused),
        case("/dev/urandom", "/dev/urandom", Refused),
        case("/proc/self/environ", "/proc/self/environ", Refused),
        case("FIFO inside the root", "fifo", Refused),
        case("socket inside the root", "sock", Refused),
        case("the filesystem root", "/", Refused),
        case("empty path", "", Refused),
        case("file with a trailing slash", "good.txt/", Refused),
        case("tilde is not expanded", "~/outside/secret.txt", Refused),
        case("URL-encoded dot-dot", "%2e%2e/outside/secret.txt", Refused),
        case("backslash dot-dot", "..\\outside\\secret.txt", Refused),
        case("very long path", &"a/".repeat(3000), Refused),
        case("control: a file", "good.txt", Allowed),
        case("control: a symlink inside", "good-link", Allowed),
        case(
            "control: through a symlinked directory inside",
            "sub-link/inner.txt",
            Allowed,
        ),
    ]
}

fn expand(fx: &Fixture, path: &str) -> String {
    path.replace("{root}", fx.root.to_str().unwrap())
        .replace("{base}", fx.base().to_str().unwrap())
}

/// Runs one tool on one path: (refused?, all the text of the answer).
async fn run(srv: &Server, fx: &Fixture, tool: &str, path: &str) -> (bool, String) {
    let started = Instant::now();
    let (refused, text) = match tool {
        "read_files" => {
            let out = srv.read_one(json!({"path": path})).await;
            (out.is_error, out.text)
        }
        "read_text_file" => {
            // The tool takes absolute paths: relative attacks are joined to the root first.
            let abs = if path.starts_with('/') || Path::new(path).is_absolute() {
                path.to_string()
            } else {
                format!("{}/{path}", fx.root.display())
            };
            match srv.read_text_file(json!({"path": abs})).await {
                Ok(r) => (r.is_error == Some(true), text_of(&r)),
                Err(e) => (true, e.message.to_string()),
            }
        }
        "grep_content" => {
            match srv
                .call(
                    "grep_content",
                    json!({"pattern": "line|SECRET", "search_path": path}),
                )
                .await
            {
                Ok(r) => (r.is_error == Some(true), text_of(&r)),
                Err(e) => (true, e.message.to_string()),
            }
        }
        "doc_toc" | "doc_read" => {
            match srv
                .call(tool_name(tool), json!({"path": path, "section": "1"}))
                .await
            {
                Ok(r) => (r.is_error == Some(true), text_of(&r)),
                Err(e) => (true, e.message.to_string()),
            }
        }
        "doc_replace" => {
            // A wrong hash: a path that reaches a file is refused as "Stale hash" and changes
            // nothing; that counts as allowed (the path was accepted), every other error as
            // refused.
            match srv
                .call(
                    "doc_replace",
                    json!({"path": path, "section": "1", "content": "# pwned", "expected_hash": "0"}),
                )
                .await
            {
                Ok(r) => {
                    let text = text_of(&r);
                    (!text.starts_with("Error: Stale hash"), text)
                }
                Err(e) => (true, e.message.to_string()),
            }
        }
        "file_read" | "file_read skeleton" | "file_read range" | "file_read target" => {
            let args = match tool {
                "file_read" => json!({"file": path}),
                "file_read skeleton" => json!({"file": path, "skeleton": true}),
                // The `path` alias, with a structured range.
                "file_read range" => json!({"path": path, "startLine": 1, "endLine": 1}),
                // A target: the path is checked before the query. On the fixture's `.txt`
                // files a target is answered "No symbols in this file type", which counts as
                // accepted (like doc_replace's "Stale hash").
                _ => json!({"file": path, "target": ["good", "App.start"]}),
            };
            match srv.call("file_read", args).await {
                Ok(r) => {
                    let text = text_of(&r);
                    let layout = ["\nYou provided: file=", "\nProblem: ", "\nFix: "]
                        .iter()
                        .all(|s| text.contains(s));
                    // Refused only with a path error in the the Error/Problem/Fix layout: any other error
                    // (or a success) on an attack is a failure.
                    let refused = r.is_error == Some(true)
                        && layout
                        && FILE_READ_REFUSALS.iter().any(|h| text.starts_with(h));
                    (refused, text)
                }
                // file_read answers errors as tool results, never as JSON-RPC errors.
                Err(e) => (false, format!("JSON-RPC error: {}", e.message)),
            }
        }
        _ => unreachable!(),
    };
    assert!(
        started.elapsed() < CALL_TIMEOUT,
        "{tool} {path:?} took too long"
    );
    (refused, text)
}

fn tool_name(tool: &str) -> &'static str {
    match tool {
        "doc_toc" => "doc_toc",
        _ => "doc_read",
    }
}

const TOOLS: [&str; 10] = [
    "read_files",
    "read_text_file",
    "grep_content",
    "doc_toc",
    "doc_read",
    "doc_replace",
    "file_read",
    "file_read skeleton",
    "file_read range",
    "file_read target",
];

/// Whether a case is about symbolic links (its name says so).
fn is_link_case(c: &Case) -> bool {
    c.name.contains("symlink")
}

#[tokio::test]
async fn every_attack_against_every_path_tool() {
    table(false, 18).await;
}

/// The cases with symbolic links, apart: where links are not the system's own (wine makes a
/// Windows link a host link), they cannot be run as that system would.
#[tokio::test]
async fn every_link_attack_against_every_path_tool() {
    table(true, 8).await;
}

/// Every case (of links, or of the rest) against every tool: at least `min_attacks` cases to
/// refuse for each tool.
async fn table(links: bool, min_attacks: usize) {
    let fx = fixture();
    let srv = fx.serve_with(&["--allow-write"]).await;
    let mut failures = Vec::new();
    let mut attacks = 0;
    // An outside directory as answers may write it (Windows: `\\?\` dropped, `/` for `\`).
    let outside = ["outside", "repo-evil"].map(|d| {
        let o = fx.base().join(d).display().to_string();
        let plain = o.strip_prefix(r"\\?\").unwrap_or(&o).to_string();
        [plain.clone(), plain.replace('\\', "/")]
    });
    let names = |text: &str, o: &[String; 2]| o.iter().any(|o| text.contains(o.as_str()));
    for tool in TOOLS {
        for c in cases().into_iter().filter(|c| is_link_case(c) == links) {
            let path = expand(&fx, &c.path);
            let (refused, text) = run(&srv, &fx, tool, &path).await;
            if c.want == Want::Refused {
                attacks += 1;
            }
            // The secret's text, or the place of an outside directory the attacker did not
            // name (e.g. a symlink's target).
            let leaked = text.contains(SECRET)
                || outside.iter().any(|o| names(&text, o) && !names(&path, o));
            let ok = match c.want {
                Want::Refused => refused && !leaked,
                Want::Allowed => {
                    !refused
                        && !leaked
                        && (text.contains("line")
                            || tool == "file_read target" && text.starts_with(NO_SYMBOLS))
                }
            };
            if !ok {
                failures.push(format!(
                    "{tool} / {}: refused={refused} leaked={leaked}: {}",
                    c.name,
                    text.chars().take(200).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        attacks >= min_attacks * TOOLS.len(),
        "{attacks} attack runs"
    );
    // Nothing was written, inside or outside.
    for secret in ["outside/secret.txt", "repo-evil/secret.txt"] {
        assert_eq!(
            std::fs::read_to_string(fx.base().join(secret)).unwrap(),
            format!("# {SECRET}\n")
        );
    }
    assert_eq!(
        std::fs::read_to_string(fx.root.join("good.txt")).unwrap(),
        "# good line\n"
    );
    // Still serving.
    let out = srv.read_one(json!({"path": "good.txt"})).await;
    assert!(!out.is_error && out.text.contains("good line"));
    srv.shutdown().await;
}
