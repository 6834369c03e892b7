//! Writes that change nothing to restore, made by review mode before its waiting phase,
//! as sbc-bench does: drop the page cache (`echo 3 >/proc/sys/vm/drop_caches`) and mark
//! the kernel log (`echo "sbc-bench review mode started" >/dev/kmsg`).
//!
//! Neither has an original value to put back (reading `drop_caches` does not say what was
//! dropped; a kernel message cannot be taken back), so they bypass the restoring guard.
//! Both are made only on the live system: a `--sysroot` capture has no page cache and no
//! kernel log to write to, and tests compare such a tree byte for byte afterwards.

use crate::sys::root::SysRoot;

/// The kernel log device.
pub use crate::sys::kmsg::KMSG;
/// The page cache knob.
pub use crate::sys::memory::DROP_CACHES;

/// Drop the page cache, dentries and inodes; `false` when not done (not the live system,
/// or the kernel refused).
pub fn drop_caches(root: &SysRoot) -> bool {
    root.is_host() && std::fs::write(DROP_CACHES, "3\n").is_ok()
}

/// Write `message` to the kernel log; `false` when not done.
pub fn mark_kernel_log(root: &SysRoot, message: &str) -> bool {
    root.is_host() && std::fs::write(KMSG, format!("{message}\n")).is_ok()
}
