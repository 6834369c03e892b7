//! What `ethtool -i`, `ethtool`, `ethtool -k` and `ethtool -S` show, asked from the kernel
//! with the `SIOCETHTOOL` ioctl behind a small safe wrapper.
//!
//! This is the only place in `sys/` that talks to the kernel other than through files, so
//! it is only used on the live system (`SysRoot::is_host`): a fixture tree has no NIC to ask.
//! Everything the ioctl layout needs is from `linux/ethtool.h` (kernel UAPI).
//!
//! The NanoPi R5S review found `rx_mac_missed` and `rdu` growing on its RTL8125 ports with
//! `ethtool -S`; those counters exist only here, not in sysfs.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use serde::{Deserialize, Serialize};

const ETHTOOL_GDRVINFO: u32 = 0x03;
const ETHTOOL_GRXCSUM: u32 = 0x14;
const ETHTOOL_GTXCSUM: u32 = 0x16;
const ETHTOOL_GSG: u32 = 0x18;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GSTATS: u32 = 0x1d;
const ETHTOOL_GTSO: u32 = 0x1e;
const ETHTOOL_GGSO: u32 = 0x23;
const ETHTOOL_GFLAGS: u32 = 0x25;
const ETHTOOL_GGRO: u32 = 0x2b;
const ETHTOOL_GLINKSETTINGS: u32 = 0x4c;
const ETH_SS_STATS: u32 = 1;
const ETH_GSTRING_LEN: usize = 32;
const ETH_FLAG_LRO: u32 = 1 << 15;
const SIOCETHTOOL: u32 = 0x8946;
/// `struct ethtool_drvinfo`: cmd, five 32-byte strings, 12 reserved bytes, five u32.
const DRVINFO_LEN: usize = 4 + 5 * 32 + 12 + 5 * 4;
const DRVINFO_N_STATS: usize = 4 + 5 * 32 + 12 + 4;
/// `struct ethtool_link_settings` without the masks.
const LINK_SETTINGS_LEN: usize = 48;
/// Offsets in `struct ethtool_link_settings`: cmd, speed (u32 each), then duplex, port,
/// phy_address, autoneg, mdio_support, eth_tp_mdix, eth_tp_mdix_ctrl, nwords (u8 each).
const DUPLEX_OFF: usize = 8;
const AUTONEG_OFF: usize = 11;
const NWORDS_OFF: usize = 15;
/// Drivers with more statistics than this are not believed (and not allocated for).
const MAX_STATS: usize = 8192;

/// Link modes (`ethtool IF`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkModes {
    /// Negotiated speed in Mb/s.
    pub speed_mbps: Option<u32>,
    /// `full` / `half`.
    pub duplex: Option<String>,
    /// Autonegotiation on.
    pub autoneg: bool,
    /// Fastest mode the port supports, in Mb/s.
    pub supported_max_mbps: Option<u32>,
    /// Fastest mode we advertise.
    pub advertised_max_mbps: Option<u32>,
    /// Fastest mode the link partner advertises (when the driver reports it).
    pub partner_max_mbps: Option<u32>,
}

/// Driver facts from ethtool (live system only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EthtoolInfo {
    /// `driver:` of `ethtool -i`.
    pub driver: Option<String>,
    /// `version:`.
    pub version: Option<String>,
    /// `firmware-version:`.
    pub firmware: Option<String>,
    /// `bus-info:`.
    pub bus_info: Option<String>,
    /// How many statistics `ethtool -S` has.
    pub n_stats: u32,
    /// Link modes, when the driver implements them.
    pub link: Option<LinkModes>,
    /// Offloads that could be asked (`rx-checksumming`, `tcp-segmentation-offload`, …).
    #[serde(default)]
    pub offloads: BTreeMap<String, bool>,
}

/// Speed in Mb/s of a link-mode bit (`ETHTOOL_LINK_MODE_*_BIT`); `None` for bits that are
/// not speeds (Autoneg, TP, Pause, FEC…) or that we do not know.
pub fn link_mode_speed(bit: u32) -> Option<u32> {
    Some(match bit {
        0 | 1 => 10,
        2 | 3 => 100,
        4 | 5 | 17 | 41 => 1000,
        15 | 47 => 2500,
        48 => 5000,
        12 | 18 | 19 | 20 | 42..=46 => 10_000,
        21 | 22 => 20_000,
        31..=33 => 25_000,
        23..=26 => 40_000,
        34 | 35 | 40 | 52..=56 => 50_000,
        27..=30 => 56_000,
        36..=39 | 57..=59 => 100_000,
        _ => return None,
    })
}

/// Fastest speed set in a link-mode bitmap (32-bit words, lowest bits first).
pub fn max_speed_of_mask(words: &[u32]) -> Option<u32> {
    let mut best = None;
    for (w, &word) in words.iter().enumerate() {
        for b in 0..32 {
            if word & (1 << b) != 0 {
                if let Some(s) = link_mode_speed(w as u32 * 32 + b) {
                    best = Some(best.map_or(s, |x: u32| x.max(s)));
                }
            }
        }
    }
    best
}

/// A NUL-terminated C string out of a fixed-size field.
fn c_str(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let s = String::from_utf8_lossy(&bytes[..end]).trim().to_string();
    if s.is_empty() { None } else { Some(s) }
}

fn u32_at(buf: &[u8], off: usize) -> Option<u32> {
    let b: [u8; 4] = buf.get(off..off + 4)?.try_into().ok()?;
    Some(u32::from_ne_bytes(b))
}

fn u64_at(buf: &[u8], off: usize) -> Option<u64> {
    let b: [u8; 8] = buf.get(off..off + 8)?.try_into().ok()?;
    Some(u64::from_ne_bytes(b))
}

/// Parse a `struct ethtool_gstrings` answer: `len` names of 32 bytes after a 12-byte header.
pub fn parse_gstrings(buf: &[u8]) -> Vec<String> {
    let n = u32_at(buf, 8).unwrap_or(0) as usize;
    (0..n.min(MAX_STATS))
        .map_while(|i| {
            let off = 12 + i * ETH_GSTRING_LEN;
            buf.get(off..off + ETH_GSTRING_LEN)
                .map(|s| c_str(s).unwrap_or_default())
        })
        .collect()
}

/// Parse a `struct ethtool_stats` answer: `n_stats` u64 after an 8-byte header.
pub fn parse_stats(buf: &[u8]) -> Vec<u64> {
    let n = u32_at(buf, 4).unwrap_or(0) as usize;
    (0..n.min(MAX_STATS))
        .map_while(|i| u64_at(buf, 8 + i * 8))
        .collect()
}

/// A socket to send ethtool requests through.
struct Ctl {
    fd: OwnedFd,
}

/// `struct ifreq` with the `ifr_data` member of the union; padded to the largest union
/// member (`struct ifmap`, 24 bytes on 64-bit) so the kernel never reads past it.
#[repr(C)]
struct IfReq {
    name: [u8; 16],
    data: *mut libc::c_void,
    _pad: [u8; 24],
}

impl Ctl {
    fn open() -> Option<Self> {
        // SAFETY: plain socket(2) call; the result is checked before use.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return None;
        }
        // SAFETY: fd is a freshly created descriptor we own.
        Some(Self {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    /// Run one ethtool command on `iface` with `buf` as the command structure (its first
    /// four bytes are the command). The kernel reads and writes at most the structure size
    /// implied by the command, which every caller allocates (or more).
    fn call(&self, iface: &str, buf: &mut [u8]) -> io::Result<()> {
        let mut req = IfReq {
            name: [0; 16],
            data: buf.as_mut_ptr().cast(),
            _pad: [0; 24],
        };
        let n = iface.len().min(15);
        req.name[..n].copy_from_slice(&iface.as_bytes()[..n]);
        // SAFETY: `req` is a valid ifreq whose data pointer refers to `buf`, which lives
        // across the call and is large enough for the command it holds (see callers).
        let rc = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                SIOCETHTOOL as _,
                &mut req as *mut IfReq,
            )
        };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    fn value(&self, iface: &str, cmd: u32) -> Option<u32> {
        let mut buf = [0u8; 8];
        buf[..4].copy_from_slice(&cmd.to_ne_bytes());
        self.call(iface, &mut buf).ok()?;
        u32_at(&buf, 4)
    }

    fn drvinfo(&self, iface: &str) -> Option<Vec<u8>> {
        let mut buf = vec![0u8; DRVINFO_LEN];
        buf[..4].copy_from_slice(&ETHTOOL_GDRVINFO.to_ne_bytes());
        self.call(iface, &mut buf).ok()?;
        Some(buf)
    }

    fn link(&self, iface: &str) -> Option<LinkModes> {
        // Handshake: with nwords = 0 the kernel answers with -(words it needs).
        let mut buf = vec![0u8; LINK_SETTINGS_LEN + 3 * 4 * 127];
        buf[..4].copy_from_slice(&ETHTOOL_GLINKSETTINGS.to_ne_bytes());
        self.call(iface, &mut buf).ok()?;
        let nwords = -(buf[NWORDS_OFF] as i8);
        if nwords <= 0 {
            return None;
        }
        let nwords = nwords as usize;
        buf.fill(0);
        buf[..4].copy_from_slice(&ETHTOOL_GLINKSETTINGS.to_ne_bytes());
        buf[NWORDS_OFF] = nwords as u8;
        self.call(iface, &mut buf).ok()?;
        let words = |k: usize| -> Vec<u32> {
            (0..nwords)
                .filter_map(|i| u32_at(&buf, LINK_SETTINGS_LEN + (k * nwords + i) * 4))
                .collect()
        };
        let speed = u32_at(&buf, 4).filter(|&s| s != 0 && s != u32::MAX);
        Some(LinkModes {
            speed_mbps: speed,
            duplex: match buf[DUPLEX_OFF] {
                0 => Some("half".into()),
                1 => Some("full".into()),
                _ => None,
            },
            autoneg: buf[AUTONEG_OFF] == 1,
            supported_max_mbps: max_speed_of_mask(&words(0)),
            advertised_max_mbps: max_speed_of_mask(&words(1)),
            partner_max_mbps: max_speed_of_mask(&words(2)),
        })
    }
}

/// Ask the driver of `iface` what `ethtool -i`, `ethtool` and `ethtool -k` would show.
/// `None` when the interface has no ethtool support or cannot be asked.
pub fn query(iface: &str) -> Option<EthtoolInfo> {
    if !super::valid_name(iface) {
        return None;
    }
    let ctl = Ctl::open()?;
    let info = ctl.drvinfo(iface)?;
    let mut offloads = BTreeMap::new();
    for (name, cmd) in [
        ("rx-checksumming", ETHTOOL_GRXCSUM),
        ("tx-checksumming", ETHTOOL_GTXCSUM),
        ("scatter-gather", ETHTOOL_GSG),
        ("tcp-segmentation-offload", ETHTOOL_GTSO),
        ("generic-segmentation-offload", ETHTOOL_GGSO),
        ("generic-receive-offload", ETHTOOL_GGRO),
    ] {
        if let Some(v) = ctl.value(iface, cmd) {
            offloads.insert(name.to_string(), v != 0);
        }
    }
    if let Some(flags) = ctl.value(iface, ETHTOOL_GFLAGS) {
        offloads.insert(
            "large-receive-offload".to_string(),
            flags & ETH_FLAG_LRO != 0,
        );
    }
    Some(EthtoolInfo {
        driver: c_str(&info[4..36]),
        version: c_str(&info[36..68]),
        firmware: c_str(&info[68..100]),
        bus_info: c_str(&info[100..132]),
        n_stats: u32_at(&info, DRVINFO_N_STATS).unwrap_or(0),
        link: ctl.link(iface),
        offloads,
    })
}

/// `ethtool -S IF`: the driver's statistics by name. `None` when the driver has none or the
/// interface cannot be asked.
pub fn stats(iface: &str) -> Option<BTreeMap<String, u64>> {
    if !super::valid_name(iface) {
        return None;
    }
    let ctl = Ctl::open()?;
    let info = ctl.drvinfo(iface)?;
    let n = u32_at(&info, DRVINFO_N_STATS)? as usize;
    if n == 0 || n > MAX_STATS {
        return None;
    }
    // The kernel asks the driver for the count again and copies that many entries: leave
    // room in case it grew since GDRVINFO.
    let room = n * 2 + 16;
    let mut names = vec![0u8; 12 + room * ETH_GSTRING_LEN];
    names[..4].copy_from_slice(&ETHTOOL_GSTRINGS.to_ne_bytes());
    names[4..8].copy_from_slice(&ETH_SS_STATS.to_ne_bytes());
    names[8..12].copy_from_slice(&(n as u32).to_ne_bytes());
    ctl.call(iface, &mut names).ok()?;
    let mut values = vec![0u8; 8 + room * 8];
    values[..4].copy_from_slice(&ETHTOOL_GSTATS.to_ne_bytes());
    values[4..8].copy_from_slice(&(n as u32).to_ne_bytes());
    ctl.call(iface, &mut values).ok()?;
    let names = parse_gstrings(&names);
    let values = parse_stats(&values);
    Some(names.into_iter().zip(values).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_mode_speeds() {
        // RTL8125: 10/100/1000baseT + 2500baseT_Full (bit 47).
        let mut words = [0u32; 2];
        for b in [0u32, 1, 2, 3, 5, 6, 7, 13, 47] {
            words[(b / 32) as usize] |= 1 << (b % 32);
        }
        assert_eq!(max_speed_of_mask(&words), Some(2500));
        assert_eq!(max_speed_of_mask(&[1 << 5]), Some(1000));
        assert_eq!(max_speed_of_mask(&[1 << 6 | 1 << 13]), None, "not speeds");
        assert_eq!(max_speed_of_mask(&[]), None);
        assert_eq!(link_mode_speed(48), Some(5000));
        assert_eq!(link_mode_speed(12), Some(10_000));
        assert_eq!(link_mode_speed(49), None);
    }

    #[test]
    fn gstrings_and_stats_layouts() {
        let mut s = vec![0u8; 12 + 2 * 32];
        s[8..12].copy_from_slice(&2u32.to_ne_bytes());
        s[12..12 + 13].copy_from_slice(b"rx_mac_missed");
        s[44..47].copy_from_slice(b"rdu");
        assert_eq!(parse_gstrings(&s), vec!["rx_mac_missed", "rdu"]);
        let mut v = vec![0u8; 8 + 16];
        v[4..8].copy_from_slice(&2u32.to_ne_bytes());
        v[8..16].copy_from_slice(&31u64.to_ne_bytes());
        v[16..24].copy_from_slice(&570u64.to_ne_bytes());
        assert_eq!(parse_stats(&v), vec![31, 570]);
        // A count larger than the buffer stops at the buffer.
        v[4..8].copy_from_slice(&1000u32.to_ne_bytes());
        assert_eq!(parse_stats(&v).len(), 2);
        assert!(parse_gstrings(&[0u8; 3]).is_empty());
    }

    #[test]
    fn asking_missing_or_bad_interfaces_is_none() {
        assert!(query("nonexistent0").is_none());
        assert!(stats("../../x").is_none());
        // lo has no driver statistics.
        assert!(stats("lo").is_none_or(|m| m.is_empty()));
    }
}
