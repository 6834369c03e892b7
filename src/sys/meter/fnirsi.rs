//! FNIRSI USB power testers (FNB48, C1, FNB48S, FNB58) over Linux hidraw, no USB library.
//!
//! The protocol, as documented by those who decoded it (sbc-bench issue #110 points to
//! them): the tester is a HID device (USB IDs 0483:003a FNB48, 0483:003b C1, 2e3c:0049
//! FNB48S, 2e3c:5558 FNB58). The host sends 64-byte requests `aa <cmd> 00… <crc>`: `81`
//! and `82` to start, then `82` again on an FNB58/FNB48S or `83` on the older ones, and
//! `83` to keep it streaming (every second on an FNB58/FNB48S, after each report on the
//! others). The tester answers with 64-byte reports: `aa`, a type (`04`: data), four
//! samples of 15 bytes (voltage and current as little-endian u32 in 1e-5 V / 1e-5 A,
//! D+ and D− in mV, a constant, temperature in 0.1 °C), one unknown byte and a CRC-8
//! (polynomial 0x39, initial value 0x42) over bytes 1..63. It samples at 100 per second.

use std::fs::File;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use super::{MeterError, PowerMeter, PowerReading};
use crate::sys::root::SysRoot;

/// Where hidraw nodes are listed.
pub const HIDRAW_CLASS: &str = "/sys/class/hidraw";

/// One report's length.
pub const REPORT_LEN: usize = 64;
/// Samples in a data report.
pub const SAMPLES_PER_REPORT: usize = 4;
/// The tester's sampling interval (100 samples per second).
pub const SAMPLE_INTERVAL_S: f64 = 0.01;
/// How long a read waits for the first report.
pub const READ_TIMEOUT: Duration = Duration::from_secs(1);
/// Reports averaged by one read at most (one second of samples).
pub const MAX_REPORTS_PER_READ: usize = 25;

/// The testers this speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// FNIRSI FNB48 (0483:003a).
    Fnb48,
    /// FNIRSI C1 (0483:003b).
    C1,
    /// FNIRSI FNB48S (2e3c:0049).
    Fnb48s,
    /// FNIRSI FNB58 (2e3c:5558).
    Fnb58,
}

impl Model {
    /// The model with this USB vendor and product ID.
    pub fn from_usb_id(vendor: u32, product: u32) -> Option<Self> {
        match (vendor, product) {
            (0x0483, 0x003a) => Some(Model::Fnb48),
            (0x0483, 0x003b) => Some(Model::C1),
            (0x2e3c, 0x0049) => Some(Model::Fnb48s),
            (0x2e3c, 0x5558) => Some(Model::Fnb58),
            _ => None,
        }
    }

    /// As the log names it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Fnb48 => "FNIRSI FNB48",
            Model::C1 => "FNIRSI C1",
            Model::Fnb48s => "FNIRSI FNB48S",
            Model::Fnb58 => "FNIRSI FNB58",
        }
    }

    /// The newer models take a second `82` to start and want `83` only every second.
    fn newer(self) -> bool {
        matches!(self, Model::Fnb48s | Model::Fnb58)
    }

    /// The requests that start the stream.
    pub fn init_commands(self) -> [u8; 3] {
        if self.newer() {
            [0x81, 0x82, 0x82]
        } else {
            [0x81, 0x82, 0x83]
        }
    }

    /// How often the stream wants `83` again.
    pub fn refresh_every(self) -> Duration {
        if self.newer() {
            Duration::from_secs(1)
        } else {
            Duration::from_millis(3)
        }
    }
}

/// CRC-8, polynomial 0x39, initial value 0x42, not reflected, no final XOR.
pub fn crc8(bytes: &[u8]) -> u8 {
    let mut crc: u8 = 0x42;
    for &b in bytes {
        crc ^= b;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x39
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The 64-byte request `aa <cmd> 00… <crc>`.
pub fn request(cmd: u8) -> [u8; REPORT_LEN] {
    let mut r = [0u8; REPORT_LEN];
    r[0] = 0xaa;
    r[1] = cmd;
    r[REPORT_LEN - 1] = crc8(&r[1..REPORT_LEN - 1]);
    r
}

/// One sample: bus voltage and current.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FnirsiSample {
    /// Volts.
    pub volts: f64,
    /// Amperes.
    pub amps: f64,
}

/// Why a report was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnirsiSkip {
    /// Not `aa`-framed or not 64 bytes.
    NotAReport,
    /// A report of another type than data (`04`).
    NotData(u8),
    /// The CRC does not match.
    BadCrc,
}

/// Decode a data report into its four samples.
pub fn decode(report: &[u8]) -> Result<[FnirsiSample; SAMPLES_PER_REPORT], FnirsiSkip> {
    if report.len() != REPORT_LEN || report[0] != 0xaa {
        return Err(FnirsiSkip::NotAReport);
    }
    if report[1] != 0x04 {
        return Err(FnirsiSkip::NotData(report[1]));
    }
    if crc8(&report[1..REPORT_LEN - 1]) != report[REPORT_LEN - 1] {
        return Err(FnirsiSkip::BadCrc);
    }
    let u32_at = |o: usize| {
        u32::from_le_bytes([report[o], report[o + 1], report[o + 2], report[o + 3]]) as f64
    };
    let mut out = [FnirsiSample {
        volts: 0.0,
        amps: 0.0,
    }; SAMPLES_PER_REPORT];
    for (i, s) in out.iter_mut().enumerate() {
        let o = 2 + 15 * i;
        *s = FnirsiSample {
            volts: u32_at(o) / 1e5,
            amps: u32_at(o + 4) / 1e5,
        };
    }
    Ok(out)
}

/// `HID_ID=0003:00002E3C:00005558` from a hidraw device's uevent: vendor and product.
pub fn hid_id(uevent: &str) -> Option<(u32, u32)> {
    let v = uevent
        .lines()
        .find_map(|l| l.trim().strip_prefix("HID_ID="))?;
    let mut parts = v.split(':');
    let _bus = parts.next()?;
    let vendor = u32::from_str_radix(parts.next()?, 16).ok()?;
    let product = u32::from_str_radix(parts.next()?, 16).ok()?;
    Some((vendor, product))
}

/// The first hidraw node (`/dev/hidraw3`) of a known tester, with its model.
pub fn find(root: &SysRoot) -> Option<(String, Model)> {
    root.list(HIDRAW_CLASS).into_iter().find_map(|n| {
        let ue = root.read_opt(format!("{HIDRAW_CLASS}/{n}/device/uevent"))?;
        let (v, p) = hid_id(&ue)?;
        Model::from_usb_id(v, p).map(|m| (format!("/dev/{n}"), m))
    })
}

/// The model of `node` (`/dev/hidraw3`) from its uevent.
fn model_of(root: &SysRoot, node: &str) -> Option<Model> {
    let n = node.rsplit('/').next()?;
    let ue = root.read_opt(format!("{HIDRAW_CLASS}/{n}/device/uevent"))?;
    let (v, p) = hid_id(&ue)?;
    Model::from_usb_id(v, p)
}

/// The report channel: a hidraw character device (reads and writes), or in a fixture tree
/// a regular file holding a recorded report stream (reads only: a recording does not
/// listen).
pub trait ReportIo: Send {
    /// Send one 64-byte request.
    fn send(&mut self, report: &[u8; REPORT_LEN]) -> std::io::Result<()>;
    /// The next report, waiting up to `timeout`; `None` when none came (or the stream
    /// ended).
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Vec<u8>>>;
}

/// A hidraw node or a recorded stream.
#[derive(Debug)]
pub struct Hidraw {
    file: File,
    device: bool,
}

impl Hidraw {
    /// Open `node` inside `root`, never blocking: a character device read and write, a
    /// regular file (a recorded stream in a fixture tree) read only; anything else is
    /// refused.
    pub fn open(root: &SysRoot, node: &str) -> Result<Self, MeterError> {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let path = root
            .in_root(node)
            .map_err(|e| MeterError::Unavailable(format!("{node}: {e}")))?;
        let meta = std::fs::metadata(&path)
            .map_err(|e| MeterError::Unavailable(format!("{node}: {e}")))?;
        let device = meta.file_type().is_char_device();
        if !device && !meta.is_file() {
            return Err(MeterError::Unavailable(format!(
                "{node}: not a hidraw device"
            )));
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(device)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| {
                MeterError::Unavailable(format!(
                    "{node}: {e}{}",
                    if e.kind() == std::io::ErrorKind::PermissionDenied {
                        " (run as root, or give your user access with a udev rule)"
                    } else {
                        ""
                    }
                ))
            })?;
        Ok(Hidraw { file, device })
    }
}

impl ReportIo for Hidraw {
    fn send(&mut self, report: &[u8; REPORT_LEN]) -> std::io::Result<()> {
        if !self.device {
            return Ok(());
        }
        // hidraw takes the report number first; these testers use none (0).
        let mut out = [0u8; REPORT_LEN + 1];
        out[1..].copy_from_slice(report);
        self.file.write_all(&out)
    }

    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Vec<u8>>> {
        use std::os::fd::AsRawFd;
        let mut pfd = libc::pollfd {
            fd: self.file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            return if e.kind() == std::io::ErrorKind::Interrupted {
                Ok(None)
            } else {
                Err(e)
            };
        }
        if n == 0 {
            return Ok(None);
        }
        let mut buf = vec![0u8; REPORT_LEN];
        let mut got = 0;
        while got < REPORT_LEN {
            match self.file.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(k) => {
                    got += k;
                    // A hidraw read returns one whole report.
                    if self.device {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if got == 0 {
            return Ok(None);
        }
        buf.truncate(got);
        Ok(Some(buf))
    }
}

/// A FNIRSI tester as a meter.
pub struct Fnirsi {
    io: Box<dyn ReportIo>,
    model: Model,
    node: String,
    last_refresh: Instant,
    energy_mwh: f64,
}

impl Fnirsi {
    /// The tester at `node`, or the first one found by USB ID; the stream is started.
    pub fn open(root: &SysRoot, node: Option<&str>) -> Result<Self, MeterError> {
        let (node, model) = match node {
            Some(n) => (n.to_string(), model_of(root, n).unwrap_or(Model::Fnb58)),
            None => find(root).ok_or_else(|| {
                MeterError::Unavailable(format!(
                    "no FNIRSI USB tester (0483:003a/003b, 2e3c:5558/0049) in {HIDRAW_CLASS}"
                ))
            })?,
        };
        let io = Hidraw::open(root, &node)?;
        Self::start(Box::new(io), model, node)
    }

    /// Start the stream on `io`: the model's init requests.
    pub fn start(
        mut io: Box<dyn ReportIo>,
        model: Model,
        node: String,
    ) -> Result<Self, MeterError> {
        for c in model.init_commands() {
            io.send(&request(c))
                .map_err(|e| MeterError::Unavailable(format!("{node}: {e}")))?;
        }
        Ok(Fnirsi {
            io,
            model,
            node,
            last_refresh: Instant::now(),
            energy_mwh: 0.0,
        })
    }
}

impl PowerMeter for Fnirsi {
    fn describe(&self) -> String {
        format!("{} ({})", self.model.name(), self.node)
    }

    fn read(&mut self) -> Result<PowerReading, MeterError> {
        let io_err = |e: std::io::Error| MeterError::Unavailable(format!("{}: {e}", self.node));
        if self.last_refresh.elapsed() >= self.model.refresh_every() {
            self.io.send(&request(0x83)).map_err(io_err)?;
            self.last_refresh = Instant::now();
        }
        let mut samples = Vec::new();
        let mut skipped = 0;
        let mut wait = READ_TIMEOUT;
        for _ in 0..MAX_REPORTS_PER_READ * 2 {
            let Some(r) = self.io.next(wait).map_err(io_err)? else {
                break;
            };
            match decode(&r) {
                Ok(s) => samples.extend_from_slice(&s),
                Err(_) => skipped += 1,
            }
            if samples.len() >= MAX_REPORTS_PER_READ * SAMPLES_PER_REPORT {
                break;
            }
            // After the first report, take only what is already queued.
            wait = Duration::ZERO;
        }
        if samples.is_empty() {
            return Err(MeterError::Unavailable(format!(
                "{} sent no data report within {} s{}",
                self.describe(),
                READ_TIMEOUT.as_secs(),
                if skipped > 0 {
                    format!(" ({skipped} unreadable)")
                } else {
                    String::new()
                }
            )));
        }
        let n = samples.len() as f64;
        let mw_each: Vec<f64> = samples.iter().map(|s| s.volts * s.amps * 1000.0).collect();
        self.energy_mwh += mw_each.iter().sum::<f64>() * SAMPLE_INTERVAL_S / 3600.0;
        Ok(PowerReading {
            mw: mw_each.iter().sum::<f64>() / n,
            energy_mwh: Some(self.energy_mwh),
            volts: Some(samples.iter().map(|s| s.volts).sum::<f64>() / n),
            amps: Some(samples.iter().map(|s| s.amps).sum::<f64>() / n),
        })
    }
}

/// A data report with these four (volts, amps) samples, as a tester sends it: for tests
/// and fixtures.
pub fn encode(samples: &[(f64, f64); SAMPLES_PER_REPORT]) -> [u8; REPORT_LEN] {
    let mut r = [0u8; REPORT_LEN];
    r[0] = 0xaa;
    r[1] = 0x04;
    for (i, (v, a)) in samples.iter().enumerate() {
        let o = 2 + 15 * i;
        r[o..o + 4].copy_from_slice(&((v * 1e5).round() as u32).to_le_bytes());
        r[o + 4..o + 8].copy_from_slice(&((a * 1e5).round() as u32).to_le_bytes());
        r[o + 12] = 1;
        // 25.0 °C
        r[o + 13..o + 15].copy_from_slice(&250u16.to_le_bytes());
    }
    r[62] = 0x0a;
    r[63] = crc8(&r[1..63]);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// The documented requests and their CRCs: `aa 81 … 8e`, `aa 82 … 96`, `aa 83 … 9e`.
    #[test]
    fn requests_carry_the_documented_crc() {
        assert_eq!(request(0x81)[63], 0x8e);
        assert_eq!(request(0x82)[63], 0x96);
        assert_eq!(request(0x83)[63], 0x9e);
        assert_eq!(&request(0x81)[..2], &[0xaa, 0x81]);
    }

    #[test]
    fn data_report_decodes_and_a_bad_crc_is_skipped() {
        let r = encode(&[(5.1, 0.9), (5.1, 1.0), (5.09, 0.95), (5.11, 0.85)]);
        let s = decode(&r).unwrap();
        assert!((s[0].volts - 5.1).abs() < 1e-9 && (s[3].amps - 0.85).abs() < 1e-9);
        let mut bad = r;
        bad[5] ^= 1;
        assert_eq!(decode(&bad), Err(FnirsiSkip::BadCrc));
        let mut other = r;
        other[1] = 0x03;
        assert_eq!(decode(&other), Err(FnirsiSkip::NotData(3)));
        assert_eq!(decode(&r[..10]), Err(FnirsiSkip::NotAReport));
    }

    #[test]
    fn usb_ids_from_uevent() {
        let ue = "DRIVER=hid-generic\nHID_ID=0003:00002E3C:00005558\nHID_NAME=FNIRSI USB Tester\n";
        assert_eq!(hid_id(ue), Some((0x2e3c, 0x5558)));
        assert_eq!(Model::from_usb_id(0x2e3c, 0x5558), Some(Model::Fnb58));
        assert_eq!(Model::from_usb_id(0x0483, 0x003a), Some(Model::Fnb48));
        assert_eq!(Model::from_usb_id(0x046d, 0xc52b), None);
    }

    /// A scripted tester: what was sent, and reports to give.
    struct Scripted {
        sent: Arc<Mutex<Vec<u8>>>,
        reports: Vec<Vec<u8>>,
    }

    impl ReportIo for Scripted {
        fn send(&mut self, r: &[u8; REPORT_LEN]) -> std::io::Result<()> {
            self.sent.lock().unwrap().push(r[1]);
            Ok(())
        }
        fn next(&mut self, _t: Duration) -> std::io::Result<Option<Vec<u8>>> {
            Ok((!self.reports.is_empty()).then(|| self.reports.remove(0)))
        }
    }

    #[test]
    fn fnb58_init_sequence_and_mean_of_the_samples() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut other = encode(&[(5.0, 1.0); 4]);
        other[1] = 0x03;
        let io = Scripted {
            sent: sent.clone(),
            reports: vec![
                other.to_vec(),
                encode(&[(5.0, 1.0), (5.0, 1.0), (5.0, 0.5), (5.0, 0.5)]).to_vec(),
                encode(&[(5.0, 1.0); 4]).to_vec(),
            ],
        };
        let mut m = Fnirsi::start(Box::new(io), Model::Fnb58, "/dev/hidraw0".into()).unwrap();
        assert_eq!(*sent.lock().unwrap(), vec![0x81, 0x82, 0x82]);
        let r = m.read().unwrap();
        // (4 × 5000 + 2 × 5000 + 2 × 2500) / 8 mW
        assert!((r.mw - 4375.0).abs() < 1e-6, "{r:?}");
        assert!((r.energy_mwh.unwrap() - 4375.0 * 8.0 * 0.01 / 3600.0).abs() < 1e-9);
        // Stream ended: a clear error.
        let e = m.read().unwrap_err().to_string();
        assert!(e.contains("sent no data report"), "{e}");
        // The older FNB48 starts with 83.
        let sent2 = Arc::new(Mutex::new(Vec::new()));
        let io2 = Scripted {
            sent: sent2.clone(),
            reports: Vec::new(),
        };
        Fnirsi::start(Box::new(io2), Model::Fnb48, "x".into()).unwrap();
        assert_eq!(*sent2.lock().unwrap(), vec![0x81, 0x82, 0x83]);
    }
}
