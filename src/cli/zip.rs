//! `-z`: compressed files searched through their format's own tool.

use std::io::Write;

/// `-z`: the text of a compressed file (by its extension), through the format's own tool;
/// `None` for other files or when the tool fails.
pub fn decompress(name: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    let tool = [
        (".gz", "gzip"),
        (".tgz", "gzip"),
        (".bz2", "bzip2"),
        (".xz", "xz"),
        (".lzma", "xz"),
        (".zst", "zstd"),
        (".lz4", "lz4"),
        (".br", "brotli"),
    ]
    .iter()
    .find(|(ext, _)| name.ends_with(ext))?
    .1;
    let mut child = std::process::Command::new(tool)
        .args(["-d", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    out.status.success().then_some(out.stdout)
}
