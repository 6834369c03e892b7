//! `-` as a file name means standard output, wherever a command takes the path of a JSON
//! document (or another file it writes once, at the end: `--json -`, `--markdown -`,
//! `--log -`). The document is then all that stdout carries: [`reserve`] keeps the real
//! standard output aside for it and points file descriptor 1 at standard error, so every
//! line of human text (progress lines, the summary, prompts, from whichever layer prints
//! them) goes to stderr, and `sbc-bench run --json - | jq` reads one clean document.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

/// The real standard output, kept aside by [`reserve`].
static RESERVED: OnceLock<std::fs::File> = OnceLock::new();

/// Does `path` name standard output (`-`)?
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Keep standard output for the document alone: text printed from now on goes to
/// standard error. Idempotent; the process keeps it so until it ends.
pub fn reserve() -> std::io::Result<()> {
    if RESERVED.get().is_some() {
        return Ok(());
    }
    std::io::stdout().flush()?;
    let kept = nix::unistd::dup(std::io::stdout()).map_err(std::io::Error::from)?;
    nix::unistd::dup2_stdout(std::io::stderr()).map_err(std::io::Error::from)?;
    let _ = RESERVED.set(std::fs::File::from(kept));
    Ok(())
}

/// Was standard output [`reserve`]d for a document?
pub fn reserved() -> bool {
    RESERVED.get().is_some()
}

/// Write a document to standard output: the reserved one, or plain stdout.
pub fn write_document(bytes: &[u8]) -> std::io::Result<()> {
    match RESERVED.get() {
        Some(mut f) => f.write_all(bytes).and_then(|()| f.flush()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes).and_then(|()| out.flush())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lone_dash_is_stdout() {
        assert!(is_stdout(Path::new("-")));
        for p in ["./-", "-.json", "--", "/dev/stdout", ""] {
            assert!(!is_stdout(Path::new(p)), "{p}");
        }
    }
}
