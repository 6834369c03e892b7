//! JSON files that are rewritten as a run progresses: written to a temporary file in the
//! same directory and renamed over the target, so a crash or Ctrl-C at any moment leaves
//! either the previous complete document or the new one — never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A JSON document on disk, replaced atomically on every write.
#[derive(Debug, Clone)]
pub struct JsonFile {
    path: PathBuf,
}

impl JsonFile {
    /// Check that `path` can be written (the directory exists and is writable) before a
    /// long run starts, so a typo fails in the first second, not after 30 minutes.
    /// Nothing is written to `path` itself: an existing report stays as it is until the
    /// run has something to put there (a run that never starts leaves it alone).
    pub fn create(path: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let path = path.into();
        let f = Self { path };
        f.probe()
            .with_context(|| format!("cannot write JSON report {}", f.path.display()))?;
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
            .unwrap_or_else(|| "report.json".into());
        self.dir()
            .join(format!(".{name}.{}.tmp", std::process::id()))
    }

    /// Can the document be written? The same temporary file [`write`](Self::write) uses
    /// is created and removed; the target must not be a directory.
    fn probe(&self) -> anyhow::Result<()> {
        if self.path.is_dir() {
            anyhow::bail!("is a directory");
        }
        let tmp = self.tmp();
        std::fs::File::create(&tmp)?;
        std::fs::remove_file(&tmp)?;
        Ok(())
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replace the file's content with `value`.
    pub fn write<T: serde::Serialize>(&self, value: &T) -> anyhow::Result<()> {
        let tmp = self.tmp();
        let res = (|| -> anyhow::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            serde_json::to_writer_pretty(&mut f, value)?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            Ok(())
        })();
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
        let f = JsonFile::create(&p).unwrap();
        f.write(&serde_json::json!({"a": 1})).unwrap();
        f.write(&serde_json::json!({"a": 2})).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 2);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn unwritable_target_fails_early() {
        assert!(JsonFile::create("/nonexistent-dir/x.json").is_err());
        let d = tempfile::tempdir().unwrap();
        assert!(JsonFile::create(d.path()).is_err(), "a directory");
    }

    #[test]
    fn create_leaves_an_existing_report_alone() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.json");
        std::fs::write(&p, "{\"previous\": true}\n").unwrap();
        let _f = JsonFile::create(&p).unwrap();
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
        let _g = JsonFile::create(&q).unwrap();
        assert!(!q.exists());
    }
}
