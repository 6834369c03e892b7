//! Files that are rewritten as a run progresses: written to a temporary file in the same
//! directory and renamed over the target, so a crash or Ctrl-C at any moment leaves either
//! the previous complete document or the new one — never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A file on disk, replaced atomically on every write.
#[derive(Debug, Clone)]
pub struct AtomicFile {
    path: PathBuf,
}

impl AtomicFile {
    /// Check that `path` can be written before a long run starts, so a typo fails in the
    /// first second, not after 30 minutes: the directory takes the temporary file, or
    /// (an existing file in a directory we may not write) the file itself opens for
    /// writing. Nothing is written to `path` itself: an existing file stays as it is
    /// until the run has something to put there (a run that never starts leaves it alone).
    pub fn create(path: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let f = Self { path: path.into() };
        f.probe()?;
        Ok(f)
    }

    fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    fn tmp(&self) -> PathBuf {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "report".into());
        self.dir()
            .join(format!(".{name}.{}.tmp", std::process::id()))
    }

    /// Can the file be written? The same temporary file [`write`](Self::write) uses is
    /// created and removed; the target must not be a directory.
    fn probe(&self) -> std::io::Result<()> {
        if self.path.is_dir() {
            return Err(std::io::Error::other("is a directory"));
        }
        let tmp = self.tmp();
        let in_dir = std::fs::File::create(&tmp).and_then(|_| std::fs::remove_file(&tmp));
        match in_dir {
            Err(_) if self.path.exists() => std::fs::OpenOptions::new()
                .append(true)
                .open(&self.path)
                .map(|_| ()),
            r => r,
        }
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replace the file's content with `bytes`. Where the directory takes no temporary
    /// file (an existing log in a directory we may not write), the file is rewritten in
    /// place.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let tmp = self.tmp();
        let mut f = match std::fs::File::create(&tmp) {
            Ok(f) => f,
            Err(_) if self.path.exists() => return std::fs::write(&self.path, bytes),
            Err(e) => return Err(e),
        };
        let res = f
            .write_all(bytes)
            .and_then(|()| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        if res.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_atomically_and_leaves_no_temp_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.json");
        let f = AtomicFile::create(&p).unwrap();
        f.write(b"{\"a\": 1}").unwrap();
        f.write(b"{\"a\": 2}").unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 2);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn unwritable_target_fails_early() {
        assert!(AtomicFile::create("/nonexistent-dir/x.json").is_err());
        let d = tempfile::tempdir().unwrap();
        assert!(AtomicFile::create(d.path()).is_err(), "a directory");
    }

    #[test]
    fn create_leaves_an_existing_report_alone() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.json");
        std::fs::write(&p, "{\"previous\": true}\n").unwrap();
        let _f = AtomicFile::create(&p).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"previous\": true}\n"
        );
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        // A new target is not created either.
        let q = d.path().join("new.json");
        let _g = AtomicFile::create(&q).unwrap();
        assert!(!q.exists());
    }
}
