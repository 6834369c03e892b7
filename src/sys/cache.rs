//! CPU cache sizes per CPU, read from the kernel's cacheinfo
//! (`/sys/devices/system/cpu/cpuN/cache/indexM/size`).
//!
//! Used where nothing else tells CPU classes apart: Intel hybrid processors give every
//! logical CPU its own `intel_pstate` policy and Linux names no core type, yet P-cores,
//! E-cores and the low-power E-cores of Meteor Lake have different caches (Core Ultra 9
//! 185H, corpus log `XRRi`: 48K/64K/2048K/24576K, 32K/64K/2048K/24576K and 32K/64K/2048K
//! without L3). sbc-bench splits unknown hybrid CPUs where this list of sizes changes.

use crate::sys::root::SysRoot;

/// Cache `indexN` directories read per CPU (real CPUs have at most four or five).
pub const MAX_INDEX: u32 = 8;

/// The sizes of a CPU's caches in index order (`48K/64K/2048K/24576K`), as the kernel
/// prints them; `None` when the CPU has no cacheinfo (many Arm kernels, offline CPUs).
pub fn signature(root: &SysRoot, cpu: u32) -> Option<String> {
    let sizes: Vec<String> = (0..MAX_INDEX)
        .map_while(|i| root.value(size_path(cpu, i)))
        .map(|s| parse_size(&s))
        .collect::<Option<_>>()?;
    (!sizes.is_empty()).then(|| sizes.join("/"))
}

/// The sysfs path of one cache's size.
pub fn size_path(cpu: u32, index: u32) -> String {
    format!("/sys/devices/system/cpu/cpu{cpu}/cache/index{index}/size")
}

/// A cacheinfo size (`48K`, `2048K`, `24576K`, some kernels `3M`): kept as written when
/// it is a number with an optional unit letter, `None` for anything else.
pub fn parse_size(s: &str) -> Option<String> {
    let t = s.trim();
    let digits = t.trim_end_matches(['K', 'M', 'G']);
    let unit_ok = t.len() - digits.len() <= 1;
    (unit_ok && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_the_kernel_prints_them() {
        assert_eq!(parse_size("48K\n").as_deref(), Some("48K"));
        assert_eq!(parse_size("24576K").as_deref(), Some("24576K"));
        assert_eq!(parse_size("3M").as_deref(), Some("3M"));
        for bad in ["", "K", "garbage", "12KK", "-1K", "1.5M"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn signature_of_meteor_lake_cpus() {
        let d = tempfile::tempdir().unwrap();
        let w = |cpu: u32, sizes: &[&str]| {
            for (i, s) in sizes.iter().enumerate() {
                let p = d
                    .path()
                    .join(size_path(cpu, i as u32).trim_start_matches('/'));
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, format!("{s}\n")).unwrap();
            }
        };
        w(0, &["48K", "64K", "2048K", "24576K"]);
        w(20, &["32K", "64K", "2048K"]);
        w(3, &["32K", "rubbish"]);
        let r = SysRoot::new(d.path());
        assert_eq!(signature(&r, 0).as_deref(), Some("48K/64K/2048K/24576K"));
        assert_eq!(signature(&r, 20).as_deref(), Some("32K/64K/2048K"));
        assert_eq!(signature(&r, 3), None);
        assert_eq!(signature(&r, 7), None);
    }
}
