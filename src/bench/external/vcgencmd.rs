//! The Raspberry Pi firmware's throttling bits, which `vcgencmd get_throttled` reports
//! (`throttled=0x50005`: under-voltage now and since boot, capped and throttled since boot).

use std::path::PathBuf;
use std::time::Duration;

use crate::shutdown::CancellationToken;
use crate::sys::power::PI_GET_THROTTLED;
use crate::sys::root::SysRoot;

/// Where Raspberry Pi OS and older images install `vcgencmd`.
pub const DIRS: [&str; 2] = ["/usr/bin", "/opt/vc/bin"];

/// Bound on one query: the firmware mailbox has hung on broken boards.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// The throttling bits (`0x50005`), from the firmware driver's sysfs node, else from
/// `vcgencmd get_throttled` on the live system (bounded by [`TIMEOUT`]). `None` on other
/// boards. The query is not cut short by Ctrl-C: an interrupted run's report still wants
/// the bits after it.
pub fn pi_throttled(root: &SysRoot) -> Option<String> {
    if let Some(v) = root.value(PI_GET_THROTTLED) {
        return Some(v);
    }
    if !root.is_host() {
        return None;
    }
    let exe = super::find_in_dirs(&DIRS.map(PathBuf::from), &["vcgencmd"])?;
    let out =
        super::run_bounded(&exe, &["get_throttled"], TIMEOUT, &CancellationToken::new()).ok()?;
    let v = out.stdout.trim();
    (!v.is_empty()).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_node_first_and_nothing_from_a_tree_without_it() {
        let d = tempfile::tempdir().unwrap();
        let r = SysRoot::new(d.path());
        // A fixture tree never runs this machine's vcgencmd.
        assert_eq!(pi_throttled(&r), None);
        let f = d.path().join(PI_GET_THROTTLED.trim_start_matches('/'));
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, "50005\n").unwrap();
        assert_eq!(pi_throttled(&r).as_deref(), Some("50005"));
    }
}
