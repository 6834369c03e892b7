//! Drive health through `smartctl` (smartmontools ≥ 7 for `--json`): wear, temperature,
//! CRC errors, reallocated/pending/uncorrectable sectors, NVMe media errors.
//!
//! Every call is bounded by a timeout: buggy USB-to-SATA bridges can hang a SMART query
//! forever, and a process stuck in the kernel cannot even be killed, so we stop waiting
//! for it instead of waiting for it to die. Optional: without smartctl the inventory
//! says so and goes on.
//!
//! For fixture sysroots (`--sysroot`), the live machine's drives would be the wrong ones:
//! health then comes from JSON recorded next to the tree, in
//! `<sysroot>/.sbc-bench/smartctl/<node>.json`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::ToolError;
use crate::sys::root::SysRoot;
use crate::sys::storage::{Bus, Device, Health};

/// sbc-bench's bound on one query: 15 seconds.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// Where health data comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmartctlSource {
    /// Run this smartctl binary.
    Live {
        /// Path of the binary.
        exe: PathBuf,
        /// Bound per call.
        timeout: Duration,
    },
    /// Recorded JSON files, one per device node name.
    Recorded(PathBuf),
    /// No health data, with the reason to tell the user.
    Unavailable(String),
}

impl SmartctlSource {
    /// The source that fits `root`: recorded files for a fixture tree, the installed
    /// smartctl for the live system.
    pub fn for_root(root: &SysRoot) -> Self {
        if !root.is_host() {
            let dir = root.root().join(".sbc-bench/smartctl");
            return if dir.is_dir() {
                Self::Recorded(dir)
            } else {
                Self::Unavailable("no smartctl data recorded in this sysroot".into())
            };
        }
        match find_in_path("smartctl") {
            Some(exe) => Self::Live {
                exe,
                timeout: TIMEOUT,
            },
            None => Self::Unavailable(
                "smartctl not installed: no health data (install smartmontools)".into(),
            ),
        }
    }
}

/// What one query gave.
#[derive(Debug, Clone, PartialEq)]
pub enum SmartctlOutcome {
    /// Health data.
    Health(Box<Health>),
    /// smartctl ran but found nothing usable (a USB stick, an unknown bridge); the
    /// message says why.
    NoData(String),
    /// It did not answer within the bound.
    Timeout(Duration),
}

/// Look for an executable in `PATH` and the sbin directories (smartctl lives in
/// `/usr/sbin`, which is not in a normal user's `PATH` on Debian).
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .collect();
    super::find_in_dirs(&dirs, &[name])
}

/// Should smartctl be asked about this device? SATA, NVMe, USB and SCSI disks; not SD
/// cards, eMMC or virtio disks, which have no SMART.
pub fn applies_to(dev: &Device) -> bool {
    matches!(dev.bus, Bus::Sata | Bus::Nvme | Bus::Usb | Bus::Scsi)
}

/// Query one device.
pub fn query(source: &SmartctlSource, dev: &Device) -> Option<SmartctlOutcome> {
    if !applies_to(dev) {
        return None;
    }
    let node_name = Path::new(&dev.node)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(&dev.name)
        .to_string();
    match source {
        SmartctlSource::Unavailable(_) => None,
        SmartctlSource::Recorded(dir) => {
            let text =
                crate::files::read::read_text(&dir.join(format!("{node_name}.json")), 16 << 20)
                    .ok()?;
            Some(outcome_of(&text, "recorded"))
        }
        SmartctlSource::Live { exe, timeout } => {
            // -n standby: never spin up a sleeping disk just to list it.
            let mut args: Vec<&str> = vec!["-j", "-a", "-n", "standby"];
            if dev.bus != Bus::Nvme {
                args.extend(["-l", "devstat"]);
            }
            let text = match run(exe, &args, &dev.node, *timeout) {
                Ok(t) => t,
                Err(e) => return Some(failed(e)),
            };
            let out = outcome_of(&text, "smartctl");
            // Bridges missing from smartctl's database often still speak SAT.
            if dev.bus == Bus::Usb
                && matches!(&out, SmartctlOutcome::NoData(m) if m.contains("Unknown USB bridge"))
            {
                let mut sat = args.clone();
                sat.extend(["-d", "sat"]);
                return Some(match run(exe, &sat, &dev.node, *timeout) {
                    Ok(t) => outcome_of(&t, "smartctl"),
                    Err(e) => failed(e),
                });
            }
            Some(out)
        }
    }
}

fn outcome_of(text: &str, source: &str) -> SmartctlOutcome {
    match parse(text, source) {
        Ok(h) if h.model.is_some() => SmartctlOutcome::Health(Box::new(h)),
        Ok(h) => SmartctlOutcome::NoData(
            h.messages
                .first()
                .cloned()
                .unwrap_or_else(|| "no SMART data".to_string()),
        ),
        Err(e) => SmartctlOutcome::NoData(e),
    }
}

/// What a query that gave no output becomes.
fn failed(e: ToolError) -> SmartctlOutcome {
    match e {
        ToolError::TimedOut { timeout, .. } => SmartctlOutcome::Timeout(timeout),
        ToolError::Cancelled => SmartctlOutcome::NoData("interrupted".into()),
        other => SmartctlOutcome::NoData(other.to_string()),
    }
}

/// Run `exe args node` with the shared runner and return stdout (smartctl's exit status is
/// a bit mask that is non-zero on healthy drives too, so it is not looked at). A query
/// that hangs is abandoned after `timeout`; Ctrl-C stops it.
fn run(exe: &Path, args: &[&str], node: &str, timeout: Duration) -> Result<String, ToolError> {
    let mut argv: Vec<&str> = args.to_vec();
    argv.push(node);
    super::run_bounded(exe, &argv, timeout, crate::shutdown::token()).map(|o| o.stdout)
}

/// The leading integer of an attribute's raw string (`"2111 (12437 0)"` → 2111): raw
/// values of several attributes pack more than one counter into 48 bits.
fn raw_count(attr: &Value) -> Option<u64> {
    let raw = attr.get("raw")?;
    if let Some(s) = raw.get("string").and_then(Value::as_str) {
        let lead: String = s.trim().chars().take_while(char::is_ascii_digit).collect();
        if let Ok(v) = lead.parse() {
            return Some(v);
        }
    }
    raw.get("value").and_then(Value::as_u64)
}

/// Parse `smartctl -j -a [-l devstat]` output into [`Health`]. Anything missing stays
/// `None`; `Err` only when it is not JSON at all.
pub fn parse(text: &str, source: &str) -> Result<Health, String> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("smartctl output is not JSON: {e}"))?;
    let s = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .map(|x| x.trim().to_string())
    };
    let u = |p: &str| v.pointer(p).and_then(Value::as_u64);
    let version = v
        .pointer("/smartctl/version")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(".")
        });
    let protocol = s("/device/protocol");
    let is_nvme = protocol.as_deref() == Some("NVMe");
    let attrs: Vec<&Value> = v
        .pointer("/ata_smart_attributes/table")
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    let attr = |id: u64| {
        attrs
            .iter()
            .find(|a| a.get("id").and_then(Value::as_u64) == Some(id))
            .copied()
    };
    let attr_raw = |id: u64| attr(id).and_then(raw_count);
    let attr_norm = |id: u64| {
        attr(id)
            .and_then(|a| a.get("value"))
            .and_then(Value::as_u64)
    };
    let rotation_rpm = u("/rotation_rate")
        .and_then(|r| u32::try_from(r).ok())
        .or(is_nvme.then_some(0));
    let devstat_used = v
        .pointer("/ata_device_statistics/pages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("table").and_then(Value::as_array))
        .flatten()
        .find(|e| {
            e.get("name").and_then(Value::as_str) == Some("Percentage Used Endurance Indicator")
        })
        .and_then(|e| e.get("value"))
        .and_then(Value::as_u64);
    let percentage_used = if is_nvme {
        u("/nvme_smart_health_information_log/percentage_used")
    } else if rotation_rpm == Some(0) {
        // Device statistics first; vendor attributes only as fallback: 169 (raw,
        // remaining %, Silicon Motion), 177 (Samsung wear levelling, normalised), 202
        // (Crucial lifetime remaining, normalised).
        devstat_used.or_else(|| {
            attr_raw(169)
                .filter(|&r| r <= 100)
                .or_else(|| attr_norm(177))
                .or_else(|| attr_norm(202))
                .filter(|&r| r <= 100)
                .map(|remaining| 100 - remaining)
        })
    } else {
        devstat_used
    };
    let messages = v
        .pointer("/smartctl/messages")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter_map(|x| x.get("string").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok(Health {
        source: match (source, version) {
            ("smartctl", Some(ver)) => format!("smartctl {ver}"),
            (s, _) => s.to_string(),
        },
        model: s("/model_name").filter(|m| !m.is_empty()),
        model_family: s("/model_family"),
        firmware: s("/firmware_version"),
        sata_version: s("/sata_version/string"),
        sata_speed_max: s("/interface_speed/max/string"),
        sata_speed_current: s("/interface_speed/current/string"),
        rotation_rpm,
        passed: v.pointer("/smart_status/passed").and_then(Value::as_bool),
        percentage_used: percentage_used.and_then(|p| u32::try_from(p).ok()),
        temp_c: v
            .pointer("/temperature/current")
            .and_then(Value::as_i64)
            .or_else(|| {
                v.pointer("/nvme_smart_health_information_log/temperature")
                    .and_then(Value::as_i64)
            }),
        crc_errors: attr_raw(199),
        reallocated_sectors: attr_raw(5),
        ecc_recovered: attr_raw(195),
        reallocated_events: attr_raw(196),
        pending_sectors: attr_raw(197),
        offline_uncorrectable: attr_raw(198),
        end_to_end_errors: attr_raw(184),
        media_errors: u("/nvme_smart_health_information_log/media_errors"),
        error_log_entries: u("/nvme_smart_health_information_log/num_err_log_entries"),
        protocol,
        messages,
    })
}

/// Fill in each drive's health from smartctl, or say why it is missing.
pub fn fill_health(
    root: &crate::sys::root::SysRoot,
    inv: &mut crate::sys::storage::Inventory,
    notes: &mut Vec<String>,
) {
    let source = SmartctlSource::for_root(root);
    if let SmartctlSource::Unavailable(why) = &source {
        notes.push(why.clone());
        for d in inv.devices.iter_mut().filter(|d| applies_to(d)) {
            d.health_note = Some(why.clone());
        }
        return;
    }
    let sp = crate::output::spinner("Reading drive health (smartctl)");
    for d in inv.devices.iter_mut() {
        match query(&source, d) {
            Some(SmartctlOutcome::Health(h)) => d.health = Some(*h),
            Some(SmartctlOutcome::NoData(m)) => d.health_note = Some(m),
            Some(SmartctlOutcome::Timeout(t)) => {
                let m = format!(
                    "smartctl did not answer within {} s (a USB bridge that hangs on SMART commands?)",
                    t.as_secs()
                );
                notes.push(format!("{}: {m}", d.node));
                d.health_note = Some(m);
            }
            None => {}
        }
    }
    sp.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// `smartctl -j -a` of an NVMe SSD (layout of smartmontools 7.x), values of the
    /// ROCK 5 ITX review's Toshiba KXG50 (13 % worn, 44 °C).
    const NVME: &str = r#"{
  "json_format_version": [1, 0],
  "smartctl": {"version": [7, 3], "exit_status": 0},
  "device": {"name": "/dev/nvme0", "info_name": "/dev/nvme0", "type": "nvme", "protocol": "NVMe"},
  "model_name": "KXG50ZNV256G NVMe TOSHIBA 256GB",
  "firmware_version": "AADA4102",
  "smart_status": {"passed": true, "nvme": {"value": 0}},
  "nvme_smart_health_information_log": {
    "critical_warning": 0, "temperature": 44, "available_spare": 100,
    "available_spare_threshold": 10, "percentage_used": 13, "media_errors": 0,
    "num_err_log_entries": 0
  },
  "temperature": {"current": 44}
}"#;

    /// `smartctl -j -a -l devstat` of a SATA SSD behind a bridge (abridged).
    const SAT: &str = r#"{
  "smartctl": {"version": [7, 3], "exit_status": 0},
  "device": {"name": "/dev/sda", "info_name": "/dev/sda [SAT]", "type": "sat", "protocol": "ATA"},
  "model_family": "Samsung based SSDs",
  "model_name": "Samsung SSD 750 EVO 120GB",
  "firmware_version": "MAT01B6Q",
  "rotation_rate": 0,
  "sata_version": {"string": "SATA 3.1", "value": 127},
  "interface_speed": {
    "max": {"sata_value": 14, "string": "6.0 Gb/s", "units_per_second": 60, "bits_per_unit": 100000000},
    "current": {"sata_value": 3, "string": "6.0 Gb/s", "units_per_second": 60, "bits_per_unit": 100000000}
  },
  "smart_status": {"passed": true},
  "ata_smart_attributes": {"revision": 1, "table": [
    {"id": 5, "name": "Reallocated_Sector_Ct", "value": 100, "worst": 100, "thresh": 10, "raw": {"value": 0, "string": "0"}},
    {"id": 177, "name": "Wear_Leveling_Count", "value": 97, "worst": 97, "thresh": 0, "raw": {"value": 21, "string": "21"}},
    {"id": 196, "name": "Reallocated_Event_Count", "value": 98, "worst": 98, "thresh": 30, "raw": {"value": 53416508262463, "string": "2111 (12437 0)"}},
    {"id": 199, "name": "CRC_Error_Count", "value": 100, "worst": 100, "thresh": 0, "raw": {"value": 3, "string": "3"}}
  ]},
  "ata_device_statistics": {"pages": [
    {"number": 7, "name": "Solid State Device Statistics", "revision": 1, "table": [
      {"offset": 8, "name": "Percentage Used Endurance Indicator", "size": 1, "value": 3}
    ]}
  ]},
  "temperature": {"current": 26}
}"#;

    /// What smartctl 7.3 printed for this VM's virtio disk.
    const VIRTIO: &str = r#"{
  "json_format_version": [1, 0],
  "smartctl": {"version": [7, 3], "svn_revision": "5338",
    "messages": [{"string": "/dev/vda: Unable to detect device type", "severity": "error"}],
    "exit_status": 1},
  "local_time": {"time_t": 1796029349, "asctime": "Mon Nov 30 09:02:29 2026 UTC"}
}"#;

    #[test]
    fn nvme_health() {
        let h = parse(NVME, "smartctl").unwrap();
        assert_eq!(h.source, "smartctl 7.3");
        assert_eq!(h.model.as_deref(), Some("KXG50ZNV256G NVMe TOSHIBA 256GB"));
        assert_eq!(h.percentage_used, Some(13));
        assert_eq!(h.temp_c, Some(44));
        assert_eq!(h.media_errors, Some(0));
        assert_eq!(h.rotation_rpm, Some(0));
        assert_eq!(h.passed, Some(true));
    }

    #[test]
    fn sata_ssd_behind_a_bridge() {
        let h = parse(SAT, "smartctl").unwrap();
        assert_eq!(h.sata_version.as_deref(), Some("SATA 3.1"));
        assert_eq!(h.sata_speed_current.as_deref(), Some("6.0 Gb/s"));
        // Device statistics win over the vendor attribute 177 (which would say 3 %).
        assert_eq!(h.percentage_used, Some(3));
        assert_eq!(h.crc_errors, Some(3));
        // A packed raw value is read as its leading count.
        assert_eq!(h.reallocated_events, Some(2111));
        assert_eq!(h.reallocated_sectors, Some(0));
        assert_eq!(h.temp_c, Some(26));
        assert_eq!(h.is_hdd(), Some(false));
    }

    #[test]
    fn vendor_attribute_fallback_and_garbage() {
        let no_devstat = SAT.replace("Percentage Used Endurance Indicator", "Something else");
        assert_eq!(parse(&no_devstat, "x").unwrap().percentage_used, Some(3));
        let v = parse(VIRTIO, "smartctl").unwrap();
        assert_eq!(v.model, None);
        assert!(matches!(outcome_of(VIRTIO, "smartctl"),
            SmartctlOutcome::NoData(m) if m.contains("Unable to detect device type")));
        assert!(parse("not json", "x").is_err());
        assert!(matches!(outcome_of("{}", "x"), SmartctlOutcome::NoData(_)));
    }

    #[test]
    fn a_hanging_smartctl_is_abandoned() {
        // /bin/sh -c 'sleep 5' stands in for a smartctl stuck on a buggy bridge.
        let start = Instant::now();
        let r = run(
            Path::new("/bin/sh"),
            &["-c", "sleep 5; echo late"],
            "--",
            Duration::from_millis(200),
        );
        assert!(matches!(r, Err(ToolError::TimedOut { .. })));
        assert!(start.elapsed() < Duration::from_secs(3));
        let ok = run(Path::new("/bin/sh"), &["-c", "echo '{}'"], "--", TIMEOUT).unwrap();
        assert_eq!(ok.trim(), "{}");
    }
}
