//! The settings the guard changes, and nothing else: what [`crate::tune::Tuning::set`]
//! accepts and what a journal may name for `restore` to write back.
//!
//! A journal is a file in `/run`: one from a hostile or broken source named
//! `/sys/../etc/os-release`, and `restore` wrote the "original" there (a tree's
//! `/etc/hostname` was rewritten). A path is accepted only when it is written plainly
//! (absolute, no `.`, `..` or empty component), matches one of [`TUNABLES`], and — links
//! resolved inside the root — still lies under `/sys`.

use std::path::{Component, Path};

use crate::sys::root::SysRoot;

/// The settings, as patterns of path components: `{n}` is a number, `{name}` a plain
/// name (letters, digits, `-`, `_`, `.`, `:`), anything else literal.
pub const TUNABLES: &[&str] = &[
    // cpufreq: governors, limits (OPP walks), the userspace governor's clock.
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_governor",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_max_freq",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_min_freq",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_setspeed",
    "/sys/devices/system/cpu/cpufreq/policy{n}/ondemand/io_is_busy",
    "/sys/devices/system/cpu/cpufreq/ondemand/io_is_busy",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_max_freq",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_min_freq",
    // CPUs taken offline (`wrap --offline-others`).
    "/sys/devices/system/cpu/cpu{n}/online",
    // devfreq governors and limits (dmc, GPU, NPU).
    "/sys/class/devfreq/{name}/governor",
    "/sys/class/devfreq/{name}/min_freq",
    "/sys/class/devfreq/{name}/max_freq",
    // PCIe ASPM policy (review mode).
    "/sys/module/pcie_aspm/parameters/policy",
];

fn matches_component(pattern: &str, c: &str) -> bool {
    if let Some((head, _)) = pattern.split_once("{n}") {
        let Some(num) = c.strip_prefix(head) else {
            return false;
        };
        return !num.is_empty() && num.len() <= 5 && num.bytes().all(|b| b.is_ascii_digit());
    }
    if pattern == "{name}" {
        return !c.is_empty()
            && c != "."
            && c != ".."
            && c.len() <= 64
            && c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    }
    pattern == c
}

/// Does `abs`, as written, name one of [`TUNABLES`]? Only plain absolute paths do.
pub fn is_tunable_path(abs: &Path) -> bool {
    let Some(s) = abs.to_str() else {
        return false;
    };
    if !s.starts_with('/') || s.contains("//") || s.ends_with('/') {
        return false;
    }
    let parts: Vec<&str> = s[1..].split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return false;
    }
    TUNABLES.iter().any(|t| {
        let pat: Vec<&str> = t[1..].split('/').collect();
        pat.len() == parts.len() && pat.iter().zip(&parts).all(|(p, c)| matches_component(p, c))
    })
}

/// Why the guard will not write `abs` on `root`; `Ok` for a setting it changes.
pub fn check(root: &SysRoot, abs: &Path) -> Result<(), String> {
    if !is_tunable_path(abs) {
        return Err("not a setting sbc-bench changes".to_string());
    }
    // Links resolved as the kernel would with this root as `/` (devfreq's class links
    // lead into /sys/devices): a tree whose /sys/class/devfreq/x is a link to /etc is
    // not a setting.
    if let Some(real) = root.resolve(abs) {
        let under_sys = real.components().nth(1) == Some(Component::Normal("sys".as_ref()));
        if !under_sys {
            return Err(format!(
                "leads to {} (outside /sys): not a setting sbc-bench changes",
                real.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guards_settings_are_tunable_and_nothing_else() {
        for ok in [
            "/sys/devices/system/cpu/cpufreq/policy4/scaling_governor",
            "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq",
            "/sys/devices/system/cpu/cpu7/online",
            "/sys/class/devfreq/dmc/governor",
            "/sys/class/devfreq/fb000000.gpu/governor",
            "/sys/module/pcie_aspm/parameters/policy",
        ] {
            assert!(is_tunable_path(Path::new(ok)), "{ok}");
        }
        for bad in [
            "/sys/../etc/os-release",
            "/sys/devices/system/cpu/cpufreq/policy0/../../../../../etc/hostname",
            "/etc/hostname",
            "/sys/devices/system/cpu/cpufreq/policy0/./scaling_governor",
            "/sys//devices/system/cpu/cpu1/online",
            "sys/devices/system/cpu/cpu1/online",
            "/sys/devices/system/cpu/cpufreq/policyX/scaling_governor",
            "/sys/devices/system/cpu/cpufreq/policy/scaling_governor",
            "/sys/class/devfreq/../governor",
            "/proc/sys/kernel/hostname",
            "/sys/power/state",
        ] {
            assert!(!is_tunable_path(Path::new(bad)), "{bad}");
        }
    }

    #[test]
    fn a_link_out_of_sys_is_not_a_setting() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("etc/x")).unwrap();
        std::fs::write(d.path().join("etc/x/governor"), "keep\n").unwrap();
        std::fs::create_dir_all(d.path().join("sys/class/devfreq")).unwrap();
        std::os::unix::fs::symlink("../../../etc/x", d.path().join("sys/class/devfreq/dmc"))
            .unwrap();
        let r = SysRoot::new(d.path());
        let e = check(&r, Path::new("/sys/class/devfreq/dmc/governor")).unwrap_err();
        assert!(e.contains("outside /sys"), "{e}");
        std::fs::create_dir_all(d.path().join("sys/devices/system/cpu/cpu1")).unwrap();
        std::fs::write(d.path().join("sys/devices/system/cpu/cpu1/online"), "1\n").unwrap();
        assert_eq!(
            check(&r, Path::new("/sys/devices/system/cpu/cpu1/online")),
            Ok(())
        );
    }
}
