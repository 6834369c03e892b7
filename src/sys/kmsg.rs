//! Kernel log records from `/dev/kmsg` (what `dmesg` shows), read without blocking, so a
//! run can list what the kernel said while it ran and check that early boot messages are
//! still there.

use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// Path of the kernel log device.
pub const KMSG: &str = "/dev/kmsg";

/// One kernel log record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KmsgRecord {
    /// Syslog priority (0 emergency … 7 debug).
    pub priority: u8,
    /// Sequence number (monotonic since boot).
    pub seq: u64,
    /// Microseconds since boot.
    pub timestamp_us: u64,
    /// The message text (continuation lines dropped).
    pub message: String,
}

impl KmsgRecord {
    /// `[   12.345678] message`, as dmesg prints it.
    pub fn dmesg_line(&self) -> String {
        format!(
            "[{:>5}.{:06}] {}",
            self.timestamp_us / 1_000_000,
            self.timestamp_us % 1_000_000,
            self.message
        )
    }
}

/// Parse one record: `prio,seq,timestamp,flags[,…];message` (the facility is in the
/// upper bits of the first number). Continuation lines (starting with a space) and
/// malformed lines give `None`.
pub fn parse_record(line: &str) -> Option<KmsgRecord> {
    let (head, msg) = line.split_once(';')?;
    let mut it = head.split(',');
    let prio: u32 = it.next()?.trim().parse().ok()?;
    let seq = it.next()?.trim().parse().ok()?;
    let ts = it.next()?.trim().parse().ok()?;
    Some(KmsgRecord {
        priority: (prio & 7) as u8,
        seq,
        timestamp_us: ts,
        message: msg.trim_end().to_string(),
    })
}

/// Parse a dump of records (one per line).
pub fn parse_all(text: &str) -> Vec<KmsgRecord> {
    text.lines().filter_map(parse_record).collect()
}

/// Read every record currently in the kernel's buffer. `None` when the log is not
/// readable (not root with `kernel.dmesg_restrict=1`, containers).
pub fn read(root: &SysRoot) -> Option<Vec<KmsgRecord>> {
    let mut f = root
        .open(KMSG, crate::sys::root::NodeKind::FileOrCharDevice)
        .ok()?;
    let mut out = Vec::new();
    // The device returns one record per read(2) and EAGAIN at the end; a regular file
    // (fixture trees) returns everything at once.
    let mut buf = vec![0u8; 16 * 1024];
    let mut text = String::new();
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            // EPIPE: records were overwritten while reading; keep going from the next one.
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
        if text.len() > 16 * 1024 * 1024 {
            break;
        }
    }
    out.extend(parse_all(&text));
    Some(out)
}

/// Does the buffer still hold the early boot messages (`Booting Linux` / `Linux version`)?
/// sbc-bench warns when not: hardware details are then missing from the log.
pub fn has_early_boot(records: &[KmsgRecord]) -> bool {
    records
        .iter()
        .take(50)
        .any(|r| r.message.starts_with("Booting Linux") || r.message.starts_with("Linux version"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records() {
        let t = "6,0,0,-;Booting Linux on physical CPU 0x0000000000 [0x412fd050]\n\
                 4,512,1234567,-;stress invoked oom-killer: gfp_mask=0x100cca\n \
                 SUBSYSTEM=cpu\n\
                 garbage\n\
                 30,513,2000000,c;systemd[1]: Started foo.\n";
        let r = parse_all(t);
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].priority, 4);
        assert_eq!(r[2].priority, 6, "facility bits stripped");
        assert_eq!(
            r[1].dmesg_line(),
            "[    1.234567] stress invoked oom-killer: gfp_mask=0x100cca"
        );
        assert!(has_early_boot(&r));
        assert!(!has_early_boot(&r[1..]));
    }

    #[test]
    fn unreadable_is_none() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(&SysRoot::new(d.path())).is_none());
    }
}
