//! `mapgrep serve` started by hand at a terminal: it says what it waits for and how a client
//! runs it, and leaves with status 0 when its input ends (Ctrl-D) before a client connected.

use std::process::Command;

use crate::common::{BIN, Fixture};

#[test]
fn serve_at_a_terminal_explains_itself_and_exits_zero_at_the_end_of_input() {
    // `script` (util-linux) runs the server on a pseudo-terminal; its input (empty) ends at
    // once, which the terminal passes on as an end of file.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("cli_serve: no `script` command (util-linux); skipped");
        return;
    }
    let fx = Fixture::new();
    let cmd = format!("{BIN} serve {}", fx.root.display());
    let o = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("MCP client"), "{out}");
    assert!(out.contains("mcpServers"), "{out}");
    // The command line speaks commands and flags, never a tool's JSON parameters.
    assert!(
        !out.contains("search_path") && !out.contains(": true"),
        "{out}"
    );
}
