//! Step 2 of the standard run: every cpufreq policy, and the dmc/gpu/npu devfreq devices,
//! to `performance` — through the restoring guard, so the originals come back on exit,
//! on error, on Ctrl-C and on SIGTERM.

use crate::record::tuning::{Governor, Tuned};
use crate::sys::cpufreq::{self, Policy};
use crate::sys::devfreq;
use crate::sys::root::SysRoot;
use crate::tune::Tuning;

/// Directory of the devfreq devices.
pub const DEVFREQ_DIR: &str = "/sys/class/devfreq";

/// Read every cpufreq policy's and devfreq device's governor.
pub fn read_governors(root: &SysRoot, policies: &[Policy]) -> Vec<Governor> {
    let mut out: Vec<Governor> = policies
        .iter()
        .map(|p| Governor {
            name: format!("cpufreq-policy{}", p.id),
            path: p.attr("scaling_governor"),
            governor: p.governor.clone(),
            available: p.available_governors.clone(),
            cur_mhz: p.cur_khz.map(|k| k / 1000),
            frequencies_mhz: p.opps_khz.iter().map(|k| k / 1000).collect(),
            io_is_busy: (p.governor.as_deref() == Some("ondemand"))
                .then(|| cpufreq::ondemand_io_is_busy(root, p.id))
                .flatten(),
        })
        .collect();
    for d in devfreq::read(root) {
        out.push(Governor {
            path: format!("{DEVFREQ_DIR}/{}/governor", d.name),
            governor: d.governor.clone(),
            available: d.available_governors.clone(),
            cur_mhz: d.cur_hz.map(devfreq::hz_to_mhz),
            frequencies_mhz: d
                .available_frequencies_hz
                .iter()
                .map(|&hz| devfreq::hz_to_mhz(hz))
                .collect(),
            io_is_busy: None,
            name: d.name,
        });
    }
    out
}

/// Switch every tunable governor that offers `performance` to it.
pub fn set_performance(tuning: &Tuning, governors: &[Governor]) -> Vec<Tuned> {
    governors
        .iter()
        .filter(|g| g.is_tuned_kind())
        .filter(|g| g.governor.is_some())
        .map(|g| {
            let outcome =
                if !g.available.is_empty() && !g.available.iter().any(|a| a == "performance") {
                    Err("performance governor not offered".to_string())
                } else if g.governor.as_deref() == Some("performance") {
                    Ok("performance".to_string())
                } else {
                    tuning
                        .set(&g.path, "performance")
                        .map(|()| "performance".to_string())
                        .map_err(|e| e.to_string())
                };
            Tuned {
                name: g.name.clone(),
                from: g.governor.clone(),
                outcome,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn fixture() -> (tempfile::TempDir, SysRoot) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sys/devices/system/cpu/cpufreq/policy0");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("scaling_governor"), "ondemand\n").unwrap();
        fs::write(
            p.join("scaling_available_governors"),
            "ondemand userspace powersave performance schedutil\n",
        )
        .unwrap();
        fs::write(p.join("related_cpus"), "0 1 2 3\n").unwrap();
        fs::create_dir_all(d.path().join("sys/devices/system/cpu/cpufreq/ondemand")).unwrap();
        fs::write(
            d.path()
                .join("sys/devices/system/cpu/cpufreq/ondemand/io_is_busy"),
            "0\n",
        )
        .unwrap();
        let dmc = d.path().join("sys/class/devfreq/dmc");
        fs::create_dir_all(&dmc).unwrap();
        fs::write(dmc.join("governor"), "dmc_ondemand\n").unwrap();
        fs::write(
            dmc.join("available_governors"),
            "dmc_ondemand userspace powersave performance simple_ondemand\n",
        )
        .unwrap();
        fs::write(dmc.join("cur_freq"), "528000000\n").unwrap();
        fs::write(
            dmc.join("available_frequencies"),
            "528000000 1068000000 1560000000 2112000000\n",
        )
        .unwrap();
        let r = SysRoot::new(d.path());
        (d, r)
    }

    #[test]
    fn tunes_and_restores_cpufreq_and_dmc() {
        let (_d, r) = fixture();
        let govs = read_governors(&r, &cpufreq::read_policies(&r));
        assert_eq!(govs.len(), 2);
        assert_eq!(govs[0].io_is_busy, Some(false));
        assert_eq!(
            crate::report::text::info::governor_status_line(&govs[1]),
            "dmc: dmc_ondemand / 528 MHz (dmc_ondemand userspace powersave performance simple_ondemand / 528 1068 1560 2112)"
        );
        {
            let t = Tuning::new(&r).unwrap();
            let res = set_performance(&t, &govs);
            assert!(res.iter().all(|x| x.outcome.is_ok()), "{res:?}");
            assert_eq!(
                r.value("/sys/class/devfreq/dmc/governor").as_deref(),
                Some("performance")
            );
        }
        assert_eq!(
            r.value("/sys/class/devfreq/dmc/governor").as_deref(),
            Some("dmc_ondemand")
        );
        assert_eq!(
            r.value("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor")
                .as_deref(),
            Some("ondemand")
        );
    }
}
