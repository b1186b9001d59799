//! A file's language when its name does not say it all, as GitHub's linguist decides: the
//! path first ([`Lang::from_path`]); then, for a `.h` header or a file whose extension names
//! no language, the first bytes of its content: a `#!` line, an Emacs or Vim modeline, C++ or
//! Objective-C markers in a header, and for a file without an extension the shape of shell
//! (function definitions, `fi`/`done`/`esac`, tests). It runs on every file of a tree: a few
//! passes over at most [`HEAD_BYTES`], no allocation.

use std::path::Path;

use super::detect_header::{self, Header};
use super::lang_id::Lang;

/// The bytes of a file's beginning that detection reads.
pub const HEAD_BYTES: usize = 16 << 10;

/// Lines at each end of a file where a modeline is looked for (linguist's scope).
const MODELINE_LINES: usize = 5;

impl Lang {
    /// The language of the file at `path` whose content starts with `head` (the whole file,
    /// or at least its first [`HEAD_BYTES`]; a modeline is also looked for in the last lines
    /// of `head`): by its path, or where the path is silent (no extension, an extension of
    /// no language) or is a `.h` header, by its content. `None` for a file of no language of
    /// this build, and for an Objective-C header.
    pub fn of_file(path: &Path, head: &[u8]) -> Option<Lang> {
        let tail = last_lines(head, MODELINE_LINES);
        let head = &head[..head.len().min(HEAD_BYTES)];
        let lang = match Lang::from_path(path) {
            Some(Lang::C) if is_header(path) => header(head, tail)?,
            Some(lang) => return Some(lang),
            None => by_content(path, head, tail)?,
        };
        lang.enabled().then_some(lang)
    }

    /// Whether only a file's content can tell its language (the path names none, and is of
    /// no other known format): callers that look at paths alone keep such files for
    /// [`Lang::of_file`].
    pub fn content_decides(path: &Path) -> bool {
        Lang::from_path(path).is_none()
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_none_or(|e| !is_other_format(e))
    }
}

/// What the content tells of a file its path is silent about.
fn by_content(path: &Path, head: &[u8], tail: &[u8]) -> Option<Lang> {
    let ext = path.extension().and_then(|e| e.to_str());
    if ext.is_some_and(is_other_format) {
        return None;
    }
    if let Some(interpreter) = shebang(head) {
        return interpreter;
    }
    if let Some(mode) = modeline(head, tail) {
        return mode.lang();
    }
    let name = path.file_name()?.to_str()?;
    if is_shell_name(name) {
        return Some(Lang::Bash);
    }
    (ext.is_none() && !is_not_shell_name(name) && looks_like_shell(head)).then_some(Lang::Bash)
}

fn is_header(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("h"))
}

/// Extensions of formats that are never code of a parsed language, whatever their content.
fn is_other_format(ext: &str) -> bool {
    const OTHER: &[&str] = &[
        "md",
        "markdown",
        "txt",
        "text",
        "rst",
        "adoc",
        "json",
        "yaml",
        "yml",
        "toml",
        "xml",
        "html",
        "htm",
        "css",
        "csv",
        "tsv",
        "svg",
        "lock",
        "log",
        "diff",
        "patch",
        "po",
        "pot",
        "tex",
        "ini",
        "cfg",
        "conf",
        "properties",
        "gitignore",
        "m",
        "mm",
        "pl",
        "pm",
        "lua",
        "tcl",
        "awk",
        "sed",
        "mk",
        "cmake",
        "s",
        "asm",
        "dts",
        "dtsi",
    ];
    OTHER.iter().any(|o| ext.eq_ignore_ascii_case(o))
}

/// Shell files by their whole name (dotfiles, package recipes).
fn is_shell_name(name: &str) -> bool {
    matches!(
        name,
        ".bashrc"
            | ".bash_profile"
            | ".bash_login"
            | ".bash_logout"
            | ".bash_aliases"
            | ".bash_functions"
            | ".profile"
            | ".kshrc"
            | ".zshrc"
            | ".zshenv"
            | ".zprofile"
            | ".zlogin"
            | ".zlogout"
            | "bashrc"
            | "bash_profile"
            | "zshrc"
            | "PKGBUILD"
            | "APKBUILD"
    )
}

/// Extensionless files of other formats that may hold shell-like lines (make's recipes).
fn is_not_shell_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "makefile",
        "gnumakefile",
        "kbuild",
        "kconfig",
        "dockerfile",
        "containerfile",
    ]
    .iter()
    .any(|n| lower == *n)
        || lower.starts_with("makefile")
        || lower.starts_with("dockerfile")
}

/// The lines of `text` (without their line ends), at most the first `max`.
fn lines(text: &[u8], max: usize) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| b == b'\n')
        .take(max)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// The last `n` lines of `text`.
fn last_lines(text: &[u8], n: usize) -> &[u8] {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut at = body.len();
    for _ in 0..n {
        match memchr::memrchr(b'\n', &body[..at]) {
            Some(i) => at = i,
            None => return body,
        }
    }
    &body[at + 1..]
}

/// The language a `#!` first line names: `Some(None)` for an interpreter of no parsed
/// language (perl, make), `None` without a `#!` line.
fn shebang(head: &[u8]) -> Option<Option<Lang>> {
    let line = lines(head.strip_prefix(b"#!")?, 1).next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_ascii_whitespace();
    let mut program = basename(words.next().unwrap_or(""));
    if program == "env" || program == "busybox" {
        // `env -S bash -e`, `env VAR=1 python3`, `busybox sh`
        program = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map_or("", basename);
    }
    Some(interpreter(program))
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The language of a script run by `program` (`python3.11`, `bash`, `node`).
fn interpreter(program: &str) -> Option<Lang> {
    let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    Some(match name {
        "sh" | "bash" | "dash" | "ash" | "ksh" | "mksh" | "pdksh" | "zsh" | "yash" | "posh" => {
            Lang::Bash
        }
        "python" | "pypy" => Lang::Python,
        "ruby" | "jruby" | "macruby" | "rbx" => Lang::Ruby,
        "node" | "nodejs" => Lang::JavaScript,
        "deno" | "ts-node" | "tsx" => Lang::TypeScript,
        "php" => Lang::Php,
        "scala" => Lang::Scala,
        "kotlin" => Lang::Kotlin,
        "swift" => Lang::Swift,
        _ => return None,
    })
}

/// A language a modeline names: one of ours, Objective-C, or another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Lang(Lang),
    ObjectiveC,
    Other,
}

impl Mode {
    fn lang(self) -> Option<Lang> {
        match self {
            Mode::Lang(lang) => Some(lang),
            _ => None,
        }
    }

    /// The mode of an Emacs mode or Vim filetype name (ASCII case ignored).
    fn named(name: &str) -> Mode {
        let name = name.to_ascii_lowercase();
        Mode::Lang(match name.as_str() {
            "sh" | "shell-script" | "bash" | "ksh" | "zsh" | "shell" => Lang::Bash,
            "c" => Lang::C,
            "c++" | "cpp" | "cxx" => Lang::Cpp,
            "python" | "python3" => Lang::Python,
            "ruby" => Lang::Ruby,
            "js" | "js2" | "javascript" => Lang::JavaScript,
            "typescript" => Lang::TypeScript,
            "php" => Lang::Php,
            "go" => Lang::Go,
            "rust" => Lang::Rust,
            "java" => Lang::Java,
            "cs" | "csharp" => Lang::CSharp,
            "kotlin" => Lang::Kotlin,
            "scala" => Lang::Scala,
            "swift" => Lang::Swift,
            "objc" | "objective-c" => return Mode::ObjectiveC,
            _ => return Mode::Other,
        })
    }
}

/// The mode an Emacs (`-*- mode: sh -*-`, `-*- C++ -*-`) or Vim (`vim: set ft=sh:`)
/// modeline in the first or last lines names.
fn modeline(head: &[u8], tail: &[u8]) -> Option<Mode> {
    lines(head, MODELINE_LINES)
        .chain(lines(tail, MODELINE_LINES))
        .filter_map(|line| std::str::from_utf8(line).ok())
        .find_map(|line| emacs_mode(line).or_else(|| vim_filetype(line)))
        .map(Mode::named)
}

/// `-*- C++ -*-`, `-*- mode: sh; tab-width: 4 -*-`, `-*- Mode: C; c-basic-offset: 8 -*-`.
fn emacs_mode(line: &str) -> Option<&str> {
    let start = line.find("-*-")? + 3;
    let len = line[start..].find("-*-")?;
    let inside = line[start..start + len].trim();
    if !inside.contains(':') {
        return (!inside.is_empty() && !inside.contains(char::is_whitespace)).then_some(inside);
    }
    inside.split(';').find_map(|var| {
        let (key, value) = var.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case("mode")
            .then(|| value.trim())
            .filter(|v| !v.is_empty())
    })
}

/// `vim: set ft=sh:`, `vi: filetype=bash`, `ex: ts=4 ft=c`, `vim600: set ft=cpp :`.
fn vim_filetype(line: &str) -> Option<&str> {
    let at = ["vim:", "vi:", "ex:", "vim600:"].iter().find_map(|m| {
        line.match_indices(m)
            .find(|(i, _)| *i == 0 || line.as_bytes()[i - 1].is_ascii_whitespace())
            .map(|(i, _)| i + m.len())
    })?;
    line[at..]
        .split(|c: char| c.is_ascii_whitespace() || c == ':')
        .find_map(|opt| {
            opt.strip_prefix("ft=")
                .or_else(|| opt.strip_prefix("filetype="))
                .or_else(|| opt.strip_prefix("syntax="))
        })
        .filter(|v| !v.is_empty())
}

/// A `.h` header: a modeline's language; Objective-C (none of ours) by its markers; C++ by
/// its markers; else C.
fn header(head: &[u8], tail: &[u8]) -> Option<Lang> {
    match modeline(head, tail) {
        Some(Mode::Lang(lang @ (Lang::C | Lang::Cpp))) => return Some(lang),
        Some(Mode::ObjectiveC) => return None,
        _ => {}
    }
    match detect_header::markers(head) {
        Header::ObjectiveC => None,
        Header::Cpp => Some(Lang::Cpp),
        Header::C => Some(Lang::C),
    }
}

/// Whether the beginning of an extensionless file reads as shell: function definitions or
/// shell's closing keywords among shell-shaped lines, little prose, no make rules.
fn looks_like_shell(head: &[u8]) -> bool {
    let mut n = [0u32; 6];
    let mut heredoc: Option<&[u8]> = None;
    for line in lines(head, 400) {
        let line = line.trim_ascii();
        if let Some(end) = heredoc {
            heredoc = (line != end).then_some(end);
            continue;
        }
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return false;
        };
        heredoc = heredoc_end(line);
        n[shell_line(text) as usize] += 1;
    }
    let [functions, closers, shell, make, prose, _] = n;
    let shellish = functions + closers + shell;
    functions + closers >= 1
        && 2 * (functions + closers) + shell >= 4
        && prose * 2 <= shellish
        && make * 4 <= shellish
}

/// The word that ends a here-document opened on `line` (`<<EOF`, `<<-'END'`, `<< "X"`).
fn heredoc_end(line: &[u8]) -> Option<&[u8]> {
    let at = memchr::memmem::find(line, b"<<")?;
    let rest = line[at + 2..].strip_prefix(b"-").unwrap_or(&line[at + 2..]);
    if rest.starts_with(b"<") {
        return None; // a here-string
    }
    let rest = rest.trim_ascii_start();
    let rest = rest
        .strip_prefix(b"'")
        .or_else(|| rest.strip_prefix(b"\""))
        .unwrap_or(rest);
    let len = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(rest.len());
    (len > 0).then_some(&rest[..len])
}

/// The shape of a line of an extensionless file (the index of its count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShellLine {
    /// `name() {`, `function name {`
    Function = 0,
    /// `fi`, `done`, `esac`, `;;`
    Closer = 1,
    /// Another line of shell's shape: a keyword, an assignment, a test, a brace.
    Shell = 2,
    /// A make rule or conditional.
    Make = 3,
    /// A sentence.
    Prose = 4,
    Other = 5,
}

/// The shape of one trimmed, non-comment line.
fn shell_line(line: &str) -> ShellLine {
    let first = line
        .split(|c: char| c.is_ascii_whitespace() || c == ';')
        .next()
        .unwrap_or("");
    if is_function_line(line) {
        return ShellLine::Function;
    }
    match first {
        "fi" | "done" | "esac" | ";;" => return ShellLine::Closer,
        "if" | "then" | "else" | "elif" | "case" | "for" | "while" | "until" | "do" | "local"
        | "export" | "readonly" | "declare" | "typeset" | "return" | "shift" | "set" | "unset"
        | "source" | "." | "trap" | "exit" | "eval" | "exec" | "[" | "[[" | "{" | "}" | "echo"
        | "printf" | "test" | "shopt" | "complete" | "compgen" => {
            return ShellLine::Shell;
        }
        "ifeq" | "ifneq" | "ifdef" | "ifndef" | "endif" | "define" | "endef" | "include"
        | "-include" | ".PHONY:" => return ShellLine::Make,
        _ => {}
    }
    if line.ends_with(";;") || line.ends_with("; then") || line.ends_with("; do") {
        return ShellLine::Shell;
    }
    if line.contains(":=") || line.contains("?=") || is_make_rule(line) {
        return ShellLine::Make;
    }
    match line.split_once('=') {
        Some((name, _)) if is_shell_name_word(name.strip_suffix('+').unwrap_or(name)) => {
            ShellLine::Shell
        }
        _ if is_prose(line) => ShellLine::Prose,
        _ => ShellLine::Other,
    }
}

/// Six words or more of letters, without shell's punctuation.
fn is_prose(line: &str) -> bool {
    line.split_ascii_whitespace().count() >= 6
        && !line.contains(['$', '=', '|', '&', ';', '(', '[', '{', '<', '>', '`', '\\'])
        && line.bytes().filter(|b| b.is_ascii_alphabetic()).count() * 4 >= line.len() * 3
}

/// `name() {`, `name ()`, `name() (`, `function name {`, `function name() {`.
fn is_function_line(line: &str) -> bool {
    let (rest, keyword) = match line.strip_prefix("function ") {
        Some(rest) => (rest.trim_start(), true),
        None => (line, false),
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return false;
    }
    let after = after.trim_start();
    let after = match after.strip_prefix("()") {
        Some(a) => a.trim_start(),
        None if after.starts_with('(') => match after[1..].trim_start().strip_prefix(')') {
            Some(a) => a.trim_start(),
            None => return false,
        },
        None if keyword => after,
        None => return false,
    };
    after.is_empty() || after.starts_with('{') || after.starts_with('(')
}

/// `NAME` of `NAME=value`: a shell variable's name.
fn is_shell_name_word(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `target: deps` at the start of a line (make), not `name() {` or `case` patterns.
fn is_make_rule(line: &str) -> bool {
    let Some((target, rest)) = line.split_once(':') else {
        return false;
    };
    !target.is_empty()
        && !rest.starts_with(':')
        && !rest.starts_with('=')
        && target
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" _-./%$()".contains(&b))
        && !target.contains("()")
        && !target.starts_with('$')
}
