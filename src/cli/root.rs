//! `--sysroot` and `CPUINFOFILE` checked before any command runs: a root that cannot
//! describe a machine is a usage error.

use crate::cli::UsageError;
use crate::sys::root::SysRoot;

/// Refuse roots that cannot describe a machine, before any command prints half a picture:
/// a `--sysroot` that is not a directory or holds neither `proc/` nor `sys/` (a mistyped or
/// unmounted capture), a `CPUINFOFILE` that cannot be read (sbc-bench's simulation of
/// another board would silently show this machine with no CPUs).
pub fn check_root(root: &SysRoot) -> Result<(), UsageError> {
    problem(root).map_err(UsageError)
}

fn problem(root: &SysRoot) -> Result<(), String> {
    if !root.is_host() {
        let dir = root.root();
        if !dir.is_dir() {
            return Err(format!("sysroot {} is not a directory", dir.display()));
        }
        if !dir.join("proc").is_dir() && !dir.join("sys").is_dir() {
            return Err(format!(
                "sysroot {} holds neither proc/ nor sys/: not a captured system tree",
                dir.display()
            ));
        }
    }
    if root.cpuinfo_overridden() {
        use crate::files::read::{Accept, Links, not_regular, open_read};
        let file = root.path("/proc/cpuinfo");
        // Never blocking: a FIFO given as CPUINFOFILE hung here in `open(2)`.
        if let Err(e) = open_read(&file, Accept::File, Links::Follow) {
            return Err(match not_regular(&e) {
                Some(n) => format!(
                    "CPUINFOFILE={}: is {}, not a cpuinfo file",
                    file.display(),
                    n.what
                ),
                None => format!("CPUINFOFILE={}: {e}", file.display()),
            });
        }
    }
    Ok(())
}
