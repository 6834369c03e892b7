//! SoC identification from vendor ID registers (Rockchip OTP/eFuse, Amlogic/i.MX/… SoC
//! bus), device-tree `compatible`, cpuinfo `Hardware`/`Revision`/`Serial`, the x86 or
//! LoongArch `model name`, and — only for vendor-specific cores — the core composition.
//!
//! A wrong confident guess is worse than "unknown": where a source names a family of
//! chips that share a die or a device tree (Amlogic GXL: S905X/S905W/S905L, Allwinner
//! H616/H618/H313/H700/T507, RK3588/RK3588S with vendor device trees) the guess names the
//! whole family; where nothing decisive is found, `guess` is `None` and `basis` says why.
//! Core composition of licensed Arm cores is never used on its own: RK3588 and Unisoc
//! UMS9620, for example, both are 4×Cortex-A55 r2p0 + 4×Cortex-A76 r4p0.
//!
//! Everything is decided by the pure [`guess`] from [`SocInputs`], so fixtures and the
//! corpus logs test the rules; [`read_inputs`] only collects the inputs.

use serde::{Deserialize, Serialize};

use crate::sys::cpu::Topology;
use crate::sys::cpu::cpuinfo::CpuInfo;
use crate::sys::cpu::ident::{self, CpuArch};
use crate::sys::cpu::x86;
use crate::sys::kmsg;
use crate::sys::root::SysRoot;

/// Device-tree `compatible` list.
pub const DT_COMPATIBLE: &str = "/proc/device-tree/compatible";
/// Device-tree `model` (board name).
pub const DT_MODEL: &str = "/proc/device-tree/model";
/// The SoC bus device most SoC drivers register (Amlogic, i.MX, Tegra, Qualcomm, TI K3,
/// Exynos, Renesas, SMCCC SoC ID on ACPI machines).
pub const SOC0_DIR: &str = "/sys/devices/soc0";
/// nvmem devices (listed by name only; read are only those named below).
pub const NVMEM_DIR: &str = "/sys/bus/nvmem/devices";
/// nvmem device name prefixes whose content we read: Rockchip OTP/eFuse and Allwinner SID.
pub const NVMEM_PREFIXES: [&str; 3] = ["rockchip-otp", "rockchip-efuse", "sunxi-sid"];
/// The Raspberry Pi 4's eMMC2 bus DMA window: its layout tells BCM2711 B0 from C0 (the
/// firmware rewrites it for C0 and later, which lift B0's 1 GiB DMA limit).
pub const BCM2711_DMA_RANGES: &str = "/proc/device-tree/emmc2bus/dma-ranges";
/// The bytes of B0's window (bus address 0xc0000000, CPU address 0, size 1 GiB) as hex,
/// the pattern sbc-bench looks for in `od -tx1` of [`BCM2711_DMA_RANGES`].
const BCM2711_B0_PATTERN: &str = "c0000000000000000000000040";

/// Cores of one kind, in CPU order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreGroup {
    /// Core type (`Cortex-A76`), `unknown` when cpuinfo did not tell.
    pub core_type: String,
    /// Stepping (`r4p0`).
    pub stepping: Option<String>,
    /// How many consecutive CPUs.
    pub count: usize,
    /// Highest clock of these CPUs in MHz.
    pub max_mhz: Option<u64>,
}

/// `/sys/devices/soc0` attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocDevice {
    /// `family` (`Amlogic Meson`, `Freescale i.MX`, `Tegra`, `Snapdragon`, `jep106:…`).
    pub family: Option<String>,
    /// `soc_id` (`G12B (S922X)`, `i.MX8MP`, `SM8250`).
    pub soc_id: Option<String>,
    /// `revision` (`29:c - 40:2`, `1.1`).
    pub revision: Option<String>,
    /// `machine` (board name on most SoCs).
    pub machine: Option<String>,
}

/// Everything the guess is made from (pure data, so fixtures test the rules).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocInputs {
    /// Device-tree `compatible` strings, most specific first (`radxa,rock-5b`, `rockchip,rk3588`).
    #[serde(default)]
    pub compatible: Vec<String>,
    /// Device-tree `model` (`Radxa ROCK 5B`).
    pub dt_model: Option<String>,
    /// cpuinfo `Hardware` line (32-bit and vendor kernels).
    pub cpuinfo_hardware: Option<String>,
    /// cpuinfo `Revision` (Raspberry Pi revision code: it encodes the SoC).
    pub cpuinfo_revision: Option<String>,
    /// cpuinfo `Serial` (Amlogic vendor kernels put the chip ID there).
    pub cpuinfo_serial: Option<String>,
    /// cpuinfo `model name` of the first CPU (x86, LoongArch, some Arm vendor kernels).
    pub model_name: Option<String>,
    /// Instruction set the cpuinfo describes.
    pub arch: Option<CpuArch>,
    /// Core types with their counts, in CPU order (`[("Cortex-A55", 4), ("Cortex-A76", 4)]`).
    #[serde(default)]
    pub core_types: Vec<(String, usize)>,
    /// Core groups with steppings and clocks; when empty, `core_types` and `max_mhz` are used.
    #[serde(default)]
    pub cores: Vec<CoreGroup>,
    /// Highest clock of each cluster in MHz.
    #[serde(default)]
    pub max_mhz: Vec<u64>,
    /// Chip ID read from a vendor nvmem/efuse, as shown in the guess's detail (Rockchip:
    /// the ID bytes after the `RK` marker, `35 88 12 fe 21 41 …`; Allwinner: the SID word).
    pub chip_id: Option<String>,
    /// First 16-byte row of a Rockchip OTP/eFuse that starts with `RK`/`RV`, hex.
    pub rockchip_id: Option<String>,
    /// Allwinner SID first word (`82c00001`), as sbc-bench prints it.
    pub allwinner_sid: Option<String>,
    /// The chip ID a Rockchip BSP kernel logs (`rockchip-cpuinfo cpuinfo: SoC: 35880000`),
    /// from the kernel log when it is readable and still holds the boot messages.
    pub rockchip_log_id: Option<String>,
    /// BCM2711 revision from [`BCM2711_DMA_RANGES`]: `B0`, or `C0 or later` when the file
    /// exists without B0's window; `None` when not a BCM2711 or the file is missing.
    pub bcm2711_rev: Option<String>,
    /// `/sys/devices/soc0` attributes.
    pub soc0: Option<SocDevice>,
}

/// The guess, with the evidence it rests on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocGuess {
    /// `Rockchip RK3588`, or `None` when we cannot tell.
    pub guess: Option<String>,
    /// Extra identification such as the chip ID (`35 88 12 fe 21 41 …`, `SID 82c00001`).
    pub detail: Option<String>,
    /// What the guess is based on, one phrase each.
    #[serde(default)]
    pub basis: Vec<String>,
    /// How sbc-bench prints this guess where that is not `guess (detail)`: a Rockchip OTP
    /// row without the kernel's chip ID is `Rockchip RK3588 / 35 88 12 fe 21 41  32 38 …`.
    /// Text output only.
    #[serde(skip)]
    pub label: Option<String>,
}

/// Collect the inputs from the system.
pub fn read_inputs(root: &SysRoot, topo: &Topology) -> SocInputs {
    let cpuinfo = CpuInfo::parse(&root.read_opt("/proc/cpuinfo").unwrap_or_default());
    let mut inputs = from_cpuinfo(&cpuinfo);
    inputs.compatible = root
        .read_opt(DT_COMPATIBLE)
        .map(|s| parse_compatible(&s))
        .unwrap_or_default();
    inputs.dt_model = root
        .value(DT_MODEL)
        .map(|s| s.trim_matches('\0').trim().to_string())
        .filter(|s| !s.is_empty());
    if !topo.cpus.is_empty() {
        inputs.cores = group_cores(
            topo.cpus
                .iter()
                .map(|c| (c.core_type.clone(), c.stepping.clone(), c.max_mhz)),
        );
        inputs.core_types = core_types_of(&inputs.cores);
    }
    inputs.max_mhz = topo
        .clusters
        .iter()
        .filter_map(|cl| {
            cl.cpus
                .iter()
                .filter_map(|&n| topo.cpu(n).and_then(|c| c.max_mhz))
                .max()
        })
        .collect();
    inputs.soc0 = read_soc0(root);
    // `CPUINFOFILE` simulates another board: as sbc-bench, no vendor ID registers or
    // kernel log of this machine then (they would name this machine's chip, not the file's).
    let simulated = root.cpuinfo_overridden();
    for name in root.list(NVMEM_DIR) {
        if simulated {
            break;
        }
        if !NVMEM_PREFIXES.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let Ok(bytes) = root.read_bytes(format!("{NVMEM_DIR}/{name}/nvmem")) else {
            continue;
        };
        if name.starts_with("rockchip") && inputs.rockchip_id.is_none() {
            inputs.rockchip_id = rockchip_row(&bytes).map(|r| hex(&r));
        } else if name.starts_with("sunxi-sid") && inputs.allwinner_sid.is_none() {
            inputs.allwinner_sid = allwinner_sid_word(&bytes);
        }
    }
    let is_rockchip = inputs.rockchip_id.is_some()
        || inputs.compatible.iter().any(|c| c.starts_with("rockchip,"));
    if is_rockchip && !simulated {
        inputs.rockchip_log_id = kmsg::read(root).and_then(|records| {
            rockchip_soc_id_from_log(records.iter().map(|r| r.message.as_str()))
        });
    }
    let is_rpi4 = inputs.compatible.iter().any(|c| c == "brcm,bcm2711")
        || inputs
            .dt_model
            .as_deref()
            .is_some_and(|m| m.starts_with("Raspberry Pi 4"));
    if is_rpi4 {
        inputs.bcm2711_rev = root
            .read_bytes(BCM2711_DMA_RANGES)
            .ok()
            .map(|b| bcm2711_revision(&b).to_string());
    }
    inputs.chip_id = inputs
        .rockchip_id
        .as_deref()
        .and_then(|r| parse_hex(r).map(|b| hex(b.get(2..).unwrap_or_default())))
        .or_else(|| inputs.allwinner_sid.clone());
    inputs
}

/// The inputs a cpuinfo file alone gives (sbc-bench's `CPUINFOFILE` on another machine):
/// `Hardware`, `Revision`, `Serial`, `model name`, the instruction set and the cores.
pub fn from_cpuinfo(cpuinfo: &CpuInfo) -> SocInputs {
    let identity = ident::decode(cpuinfo);
    let cores = group_cores(
        identity
            .cpus
            .values()
            .map(|c| (c.core_type.clone(), c.stepping.clone(), None)),
    );
    let text = |k: &str| {
        cpuinfo
            .first(k)
            .map(str::to_string)
            .filter(|s| !s.is_empty())
    };
    SocInputs {
        cpuinfo_hardware: cpuinfo.hardware().map(str::to_string),
        cpuinfo_revision: cpuinfo.global("Revision").map(str::to_string),
        cpuinfo_serial: cpuinfo.global("Serial").map(str::to_string),
        model_name: cpuinfo
            .first_ci("model name")
            .map(str::to_string)
            .or_else(|| text("cpu model")),
        arch: identity.arch,
        core_types: core_types_of(&cores),
        cores,
        ..Default::default()
    }
}

/// Consecutive CPUs with the same core type and stepping, in CPU order.
fn group_cores(
    cpus: impl Iterator<Item = (Option<String>, Option<String>, Option<u64>)>,
) -> Vec<CoreGroup> {
    let mut cores: Vec<CoreGroup> = Vec::new();
    for (t, stepping, max_mhz) in cpus {
        let t = t.unwrap_or_else(|| "unknown".into());
        match cores.last_mut() {
            Some(g) if g.core_type == t && g.stepping == stepping => {
                g.count += 1;
                g.max_mhz = g.max_mhz.max(max_mhz);
            }
            _ => cores.push(CoreGroup {
                core_type: t,
                stepping,
                count: 1,
                max_mhz,
            }),
        }
    }
    cores
}

fn core_types_of(cores: &[CoreGroup]) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = Vec::new();
    for g in cores {
        match v.last_mut() {
            Some((t, n)) if *t == g.core_type => *n += g.count,
            _ => v.push((g.core_type.clone(), g.count)),
        }
    }
    v
}

fn read_soc0(root: &SysRoot) -> Option<SocDevice> {
    let v = |a: &str| root.value(format!("{SOC0_DIR}/{a}"));
    let d = SocDevice {
        family: v("family"),
        soc_id: v("soc_id"),
        revision: v("revision"),
        machine: v("machine"),
    };
    (d != SocDevice::default()).then_some(d)
}

/// Split the NUL-separated `compatible` property.
pub fn parse_compatible(raw: &str) -> Vec<String> {
    raw.split('\0')
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() < 128)
        .map(str::to_string)
        .collect()
}

/// The first 16-byte row of a Rockchip OTP/eFuse dump that starts with the `RK` or `RV`
/// marker (`52 4b 35 88 …`), as sbc-bench finds it in `hexdump -C`. Only row starts in
/// the first 4 KiB are looked at.
pub fn rockchip_row(nvmem: &[u8]) -> Option<[u8; 16]> {
    nvmem
        .chunks_exact(16)
        .take(256)
        .find(|row| row[0] == b'R' && (row[1] == b'K' || row[1] == b'V'))
        .and_then(|row| row.try_into().ok())
}

/// The chip ID a Rockchip BSP kernel logs at boot: the driver prints `SoC\t\t: 35880000`
/// (tabs escaped as `\x09` in `/dev/kmsg`); the third `: `-separated field, as sbc-bench
/// takes it. `None` without the line, or when the ID is 0 or not hex.
pub fn rockchip_soc_id_from_log<'a>(messages: impl IntoIterator<Item = &'a str>) -> Option<String> {
    messages
        .into_iter()
        .filter(|m| m.contains("rockchip-cpuinfo cpuinfo: SoC"))
        .find_map(|m| {
            let id = m.split(": ").nth(2)?.trim();
            let ok = !id.is_empty()
                && id.len() <= 16
                && id.bytes().all(|b| b.is_ascii_hexdigit())
                && id.bytes().any(|b| b != b'0');
            ok.then(|| id.to_ascii_lowercase())
        })
}

/// BCM2711 revision from the eMMC2 bus `dma-ranges` bytes: `B0` when they hold B0's DMA
/// window, else `C0 or later` (the rule sbc-bench applies).
pub fn bcm2711_revision(dma_ranges: &[u8]) -> &'static str {
    let hex: String = dma_ranges.iter().map(|b| format!("{b:02x}")).collect();
    if hex.contains(BCM2711_B0_PATTERN) {
        "B0"
    } else {
        "C0 or later"
    }
}

/// Bytes 2-15 of a Rockchip ID row as `hexdump -C` lays them out (a second space after the
/// eighth byte of the row), which is how sbc-bench shows them:
/// `35 88 12 fe 21 41  32 38 4b 44 00 00 00 00`.
pub fn rockchip_id_field(row: &[u8]) -> String {
    let tail = row.get(2..row.len().min(16)).unwrap_or_default();
    let (a, b) = tail.split_at(tail.len().min(6));
    if b.is_empty() {
        hex(a)
    } else {
        format!("{}  {}", hex(a), hex(b))
    }
}

/// Allwinner SID: the first 32-bit little-endian word as 8 hex digits (`82c00001`).
pub fn allwinner_sid_word(nvmem: &[u8]) -> Option<String> {
    let w = nvmem.get(..4)?;
    let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    (v != 0 && v != u32::MAX).then(|| format!("{v:08x}"))
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_hex(s: &str) -> Option<Vec<u8>> {
    s.split_whitespace()
        .map(|t| u8::from_str_radix(t, 16).ok())
        .collect()
}

/// The Rockchip model from the ID row (`RK` + two BCD-like bytes). Old chips store the
/// digits nibble-swapped (`23 82` → RK3228, `33 81` → RK3318); RK3588 variants are told
/// apart by the package byte (0x21 RK3588, 0x33 RK3588S, 0x53 RK3588S2), facts as
/// sbc-bench applies them.
pub fn rockchip_model(row: &[u8]) -> Option<String> {
    let (marker, x, y) = (row.get(..2)?, *row.get(2)?, *row.get(3)?);
    let swap = |v: u8| v.rotate_left(4);
    let digits = |a: u8, b: u8| format!("{a:02x}{b:02x}");
    let prefix = if marker == b"RV" { "RV" } else { "RK" };
    let code = match x {
        0x03 | 0x13 | 0x23 | 0x53 | 0x81 => digits(swap(x), swap(y)),
        0x33 if matches!(y, 0x80 | 0x81 | 0x62 | 0x82 | 0x85) => digits(swap(x), swap(y)),
        0x11 => {
            let y = if matches!(y, 0x30 | 0x60 | 0x62 | 0x90) {
                swap(y)
            } else {
                y
            };
            return Some(format!("Rockchip RV11{y:02x}")).filter(|s| is_decimal(&s[11..]));
        }
        _ => digits(x, y),
    };
    if !is_decimal(&code) {
        return None;
    }
    let name = match code.as_str() {
        "3228" => "RK3229/RK3228A".to_string(),
        "3588" => match row.get(6) {
            Some(0x21) => "RK3588".to_string(),
            Some(0x33) => "RK3588S".to_string(),
            Some(0x53) => "RK3588S2".to_string(),
            _ => "RK3588/RK3588S/RK3588S2".to_string(),
        },
        _ => format!("{prefix}{code}"),
    };
    Some(format!("Rockchip {name}"))
}

fn is_decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Make the guess.
pub fn guess(i: &SocInputs) -> SocGuess {
    let cores = cores_of(i);
    let mut g = from_rockchip_id(i)
        .or_else(|| from_soc0(i))
        .or_else(|| from_compatible(&i.compatible, &cores, i.cpuinfo_revision.as_deref()))
        .or_else(|| from_hardware(i, &cores))
        .or_else(|| from_model_name(i))
        .or_else(|| from_vendor_cores(&cores))
        .unwrap_or_else(|| SocGuess {
            basis: vec![unknown_reason(i, &cores)],
            ..Default::default()
        });
    if let Some(rev) = &i.bcm2711_rev {
        if g.guess.as_deref() == Some("Broadcom BCM2711") && g.detail.is_none() {
            g.detail = Some(format!("Rev {rev}"));
            g.basis
                .push(format!("{BCM2711_DMA_RANGES}: the {rev} DMA window"));
        }
    }
    if let Some(id) = &i.rockchip_log_id {
        if g.guess
            .as_deref()
            .is_some_and(|s| s.starts_with("Rockchip"))
        {
            // sbc-bench: `Rockchip RK3588 (35880000 / <OTP bytes>)`, or `(35880000)`.
            g.detail = Some(match &g.detail {
                Some(d) => format!("{id} / {d}"),
                None => id.clone(),
            });
            g.label = None;
            g.basis
                .push(format!("kernel log: rockchip-cpuinfo SoC {id}"));
        }
    }
    if let Some(sid) = &i.allwinner_sid {
        let is_allwinner = g
            .guess
            .as_deref()
            .is_none_or(|s| s.starts_with("Allwinner"));
        if is_allwinner && g.detail.is_none() {
            g.detail = Some(format!("SID {sid}"));
            g.basis.push("Allwinner SID read".into());
        }
    }
    g
}

fn cores_of(i: &SocInputs) -> Vec<CoreGroup> {
    if !i.cores.is_empty() {
        return i.cores.clone();
    }
    i.core_types
        .iter()
        .enumerate()
        .map(|(k, (t, n))| CoreGroup {
            core_type: t.clone(),
            stepping: None,
            count: *n,
            max_mhz: i.max_mhz.get(k).copied(),
        })
        .collect()
}

fn count_of(cores: &[CoreGroup], pred: impl Fn(&str) -> bool) -> usize {
    cores
        .iter()
        .filter(|g| pred(&g.core_type))
        .map(|g| g.count)
        .sum()
}

fn total(cores: &[CoreGroup]) -> usize {
    cores.iter().map(|g| g.count).sum()
}

fn composition(cores: &[CoreGroup]) -> String {
    cores
        .iter()
        .map(|g| match &g.stepping {
            Some(s) => format!("{}×{} {s}", g.count, g.core_type),
            None => format!("{}×{}", g.count, g.core_type),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn found(guess: impl Into<String>, basis: impl Into<String>) -> SocGuess {
    SocGuess {
        guess: Some(guess.into()),
        basis: vec![basis.into()],
        ..Default::default()
    }
}

fn unknown_reason(i: &SocInputs, cores: &[CoreGroup]) -> String {
    let mut why = Vec::new();
    if i.compatible.is_empty() {
        why.push("no device-tree compatible".to_string());
    } else {
        why.push(format!(
            "device-tree compatible {} names no known SoC",
            i.compatible.join(", ")
        ));
    }
    if let Some(h) = &i.cpuinfo_hardware {
        why.push(format!("cpuinfo Hardware \"{h}\" is not decisive"));
    }
    if !cores.is_empty() {
        why.push(format!(
            "core composition {} is not unique to one SoC",
            composition(cores)
        ));
    }
    format!("unknown: {}", why.join("; "))
}

fn from_rockchip_id(i: &SocInputs) -> Option<SocGuess> {
    let row = parse_hex(i.rockchip_id.as_deref()?)?;
    let model = rockchip_model(&row)?;
    let field = rockchip_id_field(&row);
    // Without the kernel's chip ID sbc-bench prints `<model> / <bytes>`, and only the
    // model for the chips whose ID digits are stored swapped (RK3228, RK3318/RK3328,
    // RV11xx); `guess` below adds the kernel's ID as `<model> (<id> / <bytes>)`.
    let swapped = matches!(row.get(2), Some(0x03 | 0x13 | 0x23 | 0x53 | 0x81 | 0x11))
        || (row.get(2) == Some(&0x33)
            && matches!(row.get(3), Some(0x80 | 0x81 | 0x62 | 0x82 | 0x85)));
    let label = if swapped {
        model.clone()
    } else {
        format!("{model} / {field}")
    };
    let mut g = found(model, "Rockchip OTP/eFuse chip ID");
    g.detail = Some(field);
    g.label = Some(label);
    Some(g)
}

/// Amlogic Meson families (`soc_id` / chip-ID major byte) and their chips.
fn amlogic_family(major: u8) -> Option<(&'static str, &'static str)> {
    Some(match major {
        0x19 => ("Meson8", "S802"),
        0x1b => ("Meson8B", "S805"),
        0x1d => ("Meson8m2", "S812"),
        0x1f => ("GXBB", "S905/S905H/S905M"),
        0x21 => ("GXL", "S905X/S905D/S905W/S905L/S805X/S805Y"),
        0x22 => ("GXM", "S912"),
        0x24 => ("TXLX", "T962X/T962E"),
        0x25 => ("AXG", "A113X/A113D"),
        0x28 => ("G12A", "S905X2/S905D2/S905Y2/S905L3A"),
        0x29 => ("G12B", "S922X/A311D"),
        0x2b => ("SM1", "S905X3/S905D3/S905Y3"),
        0x2c => ("A1", "A113L"),
        0x2e => ("TL1", "T962X2"),
        0x2f => ("TM2", "T962X3/T962E2"),
        0x32 => ("SC2", "S905X4/S905C2"),
        0x36 => ("T7", "A311D2"),
        0x37 => ("S4", "S905Y4/S805X2/S905W2"),
        _ => return None,
    })
}

/// The chip within an Amlogic family from the package ID (and minor revision), where
/// sbc-bench's collected IDs tell it unambiguously.
fn amlogic_chip(major: u8, minor: u8, pack: u8) -> Option<&'static str> {
    Some(match (major, pack >> 4) {
        (0x1f, 0x0 | 0x1) => "S905",
        (0x1f, 0x2) if pack == 0x23 => "S905H",
        (0x21, 0x0 | 0x4) => "S905D",
        (0x21, 0x3) => "S805X",
        (0x21, 0x8) => "S905X",
        (0x21, 0xa) => "S905W",
        (0x21, 0xb) => "S805Y",
        (0x21, 0xc) => "S905L",
        (0x22, _) => "S912",
        (0x28, 0x1) => "S905D2",
        (0x28, 0x3) => "S905Y2",
        (0x28, 0x4) => "S905X2",
        (0x28, 0x7) => "S905L3A",
        (0x29, 0x1) => "A311D",
        (0x29, 0x4) => "S922X",
        (0x2b, _) if pack == 0x10 || pack == 0x05 => "S905X3",
        (0x2b, _) if pack == 0x01 || pack == 0x04 || pack == 0x30 => "S905D3",
        (0x32, _) if pack == 0x02 => "S905X4",
        (0x36, _) if minor == 0x0b => "A311D2",
        (0x37, _) if minor == 0x0b => "S905Y4",
        _ => return None,
    })
}

fn from_soc0(i: &SocInputs) -> Option<SocGuess> {
    let d = i.soc0.as_ref()?;
    let family = d.family.as_deref().unwrap_or("");
    let soc_id = d.soc_id.as_deref().unwrap_or("").trim();
    let mut g = if family.starts_with("Amlogic") {
        // `G12B (S922X)`; `GXL (Unknown)` when the kernel lacks the package ID.
        let (fam, chip) = match soc_id.split_once('(') {
            Some((f, c)) => (f.trim(), c.trim_end_matches(')').trim()),
            None => (soc_id, "Unknown"),
        };
        let name = if chip.is_empty() || chip.eq_ignore_ascii_case("unknown") {
            let from_rev = d.revision.as_deref().and_then(amlogic_rev_chip);
            match from_rev {
                Some(c) => c.to_string(),
                None => {
                    let cands = (0x19..=0x37u8)
                        .filter_map(amlogic_family)
                        .find(|(f, _)| f.eq_ignore_ascii_case(fam))
                        .map(|(_, c)| c);
                    cands?.to_string()
                }
            }
        } else {
            chip.to_string()
        };
        found(
            format!("Amlogic {name}"),
            format!("SoC bus: {family} {soc_id}"),
        )
    } else if family.contains("i.MX") && !soc_id.is_empty() {
        found(
            format!("NXP {soc_id}"),
            format!("SoC bus: {family} {soc_id}"),
        )
    } else if family == "Snapdragon" && looks_like_part(soc_id) {
        found(
            qualcomm_name(&soc_id.to_ascii_lowercase()),
            format!("SoC bus: {family} {soc_id}"),
        )
    } else if family.starts_with("Samsung") && soc_id.to_ascii_uppercase().starts_with("EXYNOS") {
        let n = soc_id.get(6..).unwrap_or("").trim();
        found(format!("Samsung Exynos {n}"), format!("SoC bus: {soc_id}"))
    } else if family.starts_with("AM6") || family.starts_with("J7") || family.starts_with("AM5") {
        // TI K3: family is the chip (`AM62X`, `J721E`).
        found(format!("TI {family}"), format!("SoC bus: {family}"))
    } else {
        return None;
    };
    g.detail = d.revision.clone().map(|r| format!("revision {r}"));
    Some(g)
}

/// Amlogic `revision` `29:c - 40:2` (major:minor - package:misc) → chip.
fn amlogic_rev_chip(rev: &str) -> Option<&'static str> {
    let (a, b) = rev.split_once('-')?;
    let (major, minor) = a.trim().split_once(':')?;
    let (pack, _) = b.trim().split_once(':')?;
    let p = |s: &str| u8::from_str_radix(s.trim(), 16).ok();
    amlogic_chip(p(major)?, p(minor)?, p(pack)?)
}

fn looks_like_part(s: &str) -> bool {
    let s = s.trim();
    let letters = s.chars().take_while(char::is_ascii_alphabetic).count();
    let rest = &s[letters..];
    letters >= 1
        && rest.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Specificity of a compatible-derived guess: a chip beats a family.
const FAMILY: u8 = 1;
const CHIP: u8 = 2;

/// One `vendor,model` compatible string → (guess, specificity, cores it must have).
fn compat_entry(c: &str) -> Option<(String, u8)> {
    let c = c.trim().to_ascii_lowercase();
    let (vendor, model) = c.split_once(',')?;
    let (vendor, model) = (vendor.trim(), model.trim());
    let chip = |s: String| Some((s, CHIP));
    match vendor {
        "rockchip" => {
            let ok =
                ["rk", "rv", "px"].iter().any(|p| model.starts_with(p)) && looks_like_part(model);
            ok.then(|| (format!("Rockchip {}", model.to_ascii_uppercase()), CHIP))
        }
        "allwinner" | "arm" => allwinner(vendor, model),
        "amlogic" => amlogic_compat(model),
        "brcm" if looks_like_part(model) => {
            chip(format!("Broadcom {}", model.to_ascii_uppercase()))
        }
        "starfive" if looks_like_part(model) => {
            chip(format!("StarFive {}", model.to_ascii_uppercase()))
        }
        "sifive" if model.starts_with("fu") && looks_like_part(model) => {
            chip(format!("SiFive {}", model.to_ascii_uppercase()))
        }
        "eswin" if model.starts_with("eic77") && looks_like_part(model) => {
            chip(format!("Eswin {}X", model.to_ascii_uppercase()))
        }
        "thead" if model == "light" || model == "th1520" => chip("T-Head TH1520".into()),
        "spacemit" if model == "k1-x" || model == "k1" => chip("SpacemiT K1".into()),
        "sophgo" if model == "mango" => chip("Sophgo SG2042".into()),
        "sophgo" if looks_like_part(model) => {
            chip(format!("Sophgo {}", model.to_ascii_uppercase()))
        }
        "canaan-creative" | "canaan" => {
            let m = model.trim_start_matches("kendryte-");
            looks_like_part(m)
                .then(|| (format!("Canaan Kendryte {}", m.to_ascii_uppercase()), CHIP))
        }
        "nvidia" => tegra(model),
        "qcom" => qcom_compat(model),
        "mediatek" if model.starts_with("mt") && looks_like_part(model) => {
            chip(format!("MediaTek {}", model.to_ascii_uppercase()))
        }
        "samsung" => samsung_compat(model),
        "fsl" | "nxp" => nxp(model),
        "ti" => ti_compat(model),
        "marvell" => marvell_compat(model),
        "nexell" if looks_like_part(model) => {
            chip(format!("Nexell {}", model.to_ascii_uppercase()))
        }
        "amd" if model == "seattle" => chip("AMD Opteron A1100".into()),
        "sprd" if looks_like_part(model) => chip(format!("Unisoc {}", model.to_ascii_uppercase())),
        "xlnx" if model == "zynqmp" => chip("Xilinx Zynq UltraScale+ MPSoC".into()),
        "xlnx" if model == "zynq-7000" => chip("Xilinx Zynq-7000".into()),
        "cix" if model == "sky1" => chip("Cix P1 (CD8180)".into()),
        "hisilicon" => hisilicon_compat(model),
        "apple" => apple_compat(model),
        "renesas" if model.starts_with('r') && looks_like_part(model) => {
            chip(format!("Renesas {}", model.to_ascii_uppercase()))
        }
        "realtek" if model.starts_with("rtd") && looks_like_part(model) => {
            chip(format!("Realtek {}", model.to_ascii_uppercase()))
        }
        "loongson" => loongson_compat(model),
        _ => None,
    }
}

/// `qcom,<model>`.
fn qcom_compat(model: &str) -> Option<(String, u8)> {
    let chip = |s: String| Some((s, CHIP));
    if let Some(name) = qualcomm_codename(model) {
        return chip(name.into());
    }
    let prefixes = [
        "apq", "msm", "mdm", "sdm", "sm", "sc", "qcs", "qcm", "qrb", "x1e", "x1p", "sa", "ipq",
    ];
    (prefixes.iter().any(|p| model.starts_with(p)) && looks_like_part(model))
        .then(|| (qualcomm_name(model), CHIP))
}

/// `samsung,<model>`.
fn samsung_compat(model: &str) -> Option<(String, u8)> {
    let chip = |s: String| Some((s, CHIP));
    let n = model.strip_prefix("exynos")?;
    if n.len() < 4 || !n.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // ODROID-XU3/XU4 and HC1 describe their Exynos 5422 as exynos5800.
    let n = if n == "5800" { "5422/5800" } else { n };
    chip(format!("Samsung Exynos {n}"))
}

/// `ti,<model>`.
fn ti_compat(model: &str) -> Option<(String, u8)> {
    let chip = |s: String| Some((s, CHIP));
    let known = ["am", "omap", "dra", "j7", "j721", "j784", "k2"];
    if model == "am33xx" || model == "am335x" {
        return chip("TI AM335x".into());
    }
    if model == "j721e" {
        return chip("TI J721E (TDA4VM)".into());
    }
    (known.iter().any(|p| model.starts_with(p)) && looks_like_part(model))
        .then(|| (format!("TI {}", model.to_ascii_uppercase()), CHIP))
}

/// `marvell,<model>`.
fn marvell_compat(model: &str) -> Option<(String, u8)> {
    if let Some(n) = model.strip_prefix("armada") {
        let n = n.trim_start_matches('-');
        return (!n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
            .then(|| (format!("Marvell Armada {}", n.to_ascii_uppercase()), CHIP));
    }
    looks_like_part(model).then(|| (format!("Marvell {}", model.to_ascii_uppercase()), CHIP))
}

/// `hisilicon,<model>`.
fn hisilicon_compat(model: &str) -> Option<(String, u8)> {
    let chip = |s: String| Some((s, CHIP));
    let name = match model {
        "hi3660" => "HiSilicon Kirin 960 (Hi3660)".to_string(),
        "hi3670" => "HiSilicon Kirin 970 (Hi3670)".to_string(),
        "hi6220" => "HiSilicon Kirin 620 (Hi6220)".to_string(),
        m if looks_like_part(m) => format!("HiSilicon {}", m.to_ascii_uppercase()),
        _ => return None,
    };
    chip(name)
}

/// `apple,<model>`.
fn apple_compat(model: &str) -> Option<(String, u8)> {
    let chip = |s: String| Some((s, CHIP));
    let name = match model {
        "t8103" => "Apple M1",
        "t6000" => "Apple M1 Pro",
        "t6001" => "Apple M1 Max",
        "t6002" => "Apple M1 Ultra",
        "t8112" => "Apple M2",
        "t6020" => "Apple M2 Pro",
        "t6021" => "Apple M2 Max",
        "t6022" => "Apple M2 Ultra",
        _ => return None,
    };
    chip(name.into())
}

/// `loongson,<model>`.
fn loongson_compat(model: &str) -> Option<(String, u8)> {
    let m = model.trim_start_matches("ls");
    looks_like_part(&format!("x{m}"))
        .then(|| (format!("Loongson {}", m.to_ascii_uppercase()), CHIP))
}

fn allwinner(vendor: &str, model: &str) -> Option<(String, u8)> {
    // BSP kernels: `arm,sun50iw9p1`, `allwinner,sun20iw1p1` name the family code.
    if let Some(code) = model
        .strip_prefix("sun")
        .filter(|m| m.contains('w') && !m.contains('-'))
    {
        return allwinner_family(code).map(|s| (format!("Allwinner {s}"), FAMILY));
    }
    if vendor == "arm" {
        return None;
    }
    // Mainline: `allwinner,sun8i-h3`; BSP: `allwinner,h616`, `allwinner,d1`.
    let chip = match model.split_once('-') {
        Some((p, rest)) if p.starts_with("sun") => rest,
        Some(_) => return None,
        None => model,
    };
    let name = match chip {
        "h2-plus" => "H2+".to_string(),
        // One die and one device tree for all of them.
        "h616" => "H616/H618/H313/H700/T507".to_string(),
        "v3s" => "V3s".to_string(),
        "r40" => "R40/V40".to_string(),
        c if looks_like_part(c) => c.to_ascii_uppercase(),
        _ => return None,
    };
    Some((format!("Allwinner {name}"), CHIP))
}

/// Allwinner BSP family codes (`sun50iw9p1` → H616 family), facts as sbc-bench lists them.
fn allwinner_family(code: &str) -> Option<&'static str> {
    // `50iw9p1` → match on the part before `p`.
    let code = code.split('p').next().unwrap_or(code);
    Some(match code {
        "3i" => "F1C100s/F1C200s",
        "4i" => "A10",
        "5i" => "A10s/A13/R8",
        "6i" | "8iw1" => "A31/A31s",
        "7iw2" | "8iw2" => "A20",
        "8iw3" => "A23",
        "8iw5" => "A33/R16",
        "8iw6" => "A83T/H8",
        "8iw7" => "H3/H2+",
        "8iw8" => "V3/S3/V3s",
        "8iw11" => "R40/V40/T3/A40i",
        "8iw20" => "T113/F133/R528",
        "8iw21" => "V851S/V853",
        "9i" => "A80",
        "20iw1" => "D1",
        "50iw1" => "A64/H5/H6/H616",
        "50iw2" => "H5",
        "50iw3" => "A63",
        "50iw6" => "H6",
        "50iw9" => "H616/H618/H313/H700/T507",
        "50iw10" => "A100/A133/R818/T509",
        "50iw11" => "R329",
        "50iw12" => "H713",
        "55iw3" => "A523/A527/T527/H728",
        "60iw2" => "A733/T736",
        _ => return None,
    })
}

fn amlogic_compat(model: &str) -> Option<(String, u8)> {
    let family = match model {
        "meson6" => "8726-MX (Meson6)",
        "meson8" => "S802 (Meson8)",
        "meson8b" => "S805 (Meson8B)",
        "meson8m2" => "S812 (Meson8m2)",
        "meson-gxbb" => "S905 (GXBB)",
        "meson-gxl" => "S905X/S905D/S905W/S905L/S805X/S805Y (GXL)",
        "meson-gxm" => "S912 (GXM)",
        "meson-axg" => "A113X/A113D (AXG)",
        "g12a" => "S905X2/S905D2/S905Y2 (G12A)",
        "g12b" => "S922X/A311D (G12B)",
        "sm1" => "S905X3/S905D3/S905Y3 (SM1)",
        "sc2" => "S905X4/S905C2 (SC2)",
        "t7" => "A311D2 (T7)",
        "s4" => "S905Y4/S805X2/S905W2 (S4)",
        "a1" => "A113L (A1)",
        _ => "",
    };
    if !family.is_empty() {
        return Some((format!("Amlogic {family}"), FAMILY));
    }
    let chip = match model {
        // Generic TV-box device trees for S905X are used for S905W and S905L boxes too.
        "s905x" => "S905X/S905W/S905L".to_string(),
        m if m.starts_with('s') || m.starts_with('a') || m.starts_with('t') => {
            if !looks_like_part(m) {
                return None;
            }
            m.to_ascii_uppercase()
        }
        _ => return None,
    };
    Some((format!("Amlogic {chip}"), CHIP))
}

fn tegra(model: &str) -> Option<(String, u8)> {
    let name = match model {
        "tegra20" => "Nvidia Tegra 2 (Tegra20)",
        "tegra30" => "Nvidia Tegra 3 (Tegra30)",
        "tegra114" => "Nvidia Tegra 4 (Tegra114)",
        "tegra124" => "Nvidia Tegra K1 (Tegra124)",
        "tegra132" => "Nvidia Tegra K1 (Tegra132)",
        "tegra210" => "Nvidia Tegra X1 (Tegra210)",
        "tegra186" => "Nvidia Tegra X2 (Tegra186)",
        "tegra194" => "Nvidia Xavier (Tegra194)",
        "tegra234" => "Nvidia Orin (Tegra234)",
        "tegra264" => "Nvidia Thor (Tegra264)",
        _ => return None,
    };
    Some((name.to_string(), CHIP))
}

/// Qualcomm's code names, as vendor kernels print them in `Hardware` and device trees
/// use them (`qcom,kona`). One code name covers several parts (SM8250 and its robotics
/// twin QRB5165 are both kona), so the guess names them all.
fn qualcomm_codename(model: &str) -> Option<&'static str> {
    Some(match model {
        "kona" => "Qualcomm SM8250/QRB5165 (Snapdragon 865)",
        "lahaina" => "Qualcomm SM8350 (Snapdragon 888)",
        "taro" => "Qualcomm SM8450 (Snapdragon 8 Gen 1)",
        "kalama" => "Qualcomm SM8550 (Snapdragon 8 Gen 2)",
        "pineapple" => "Qualcomm SM8650 (Snapdragon 8 Gen 3)",
        "msmnile" => "Qualcomm SM8150 (Snapdragon 855)",
        "bengal" => "Qualcomm SM6115/SM4250 (Snapdragon 662/460)",
        _ => return None,
    })
}

/// `Qualcomm SM8250 (Snapdragon 865)`.
fn qualcomm_name(part: &str) -> String {
    let marketing = match part {
        "msm8916" => Some("Snapdragon 410"),
        "msm8996" => Some("Snapdragon 820"),
        "msm8998" => Some("Snapdragon 835"),
        "sdm845" => Some("Snapdragon 845"),
        "sm8150" => Some("Snapdragon 855"),
        "sm8250" => Some("Snapdragon 865"),
        "sm8350" => Some("Snapdragon 888"),
        "sm8450" => Some("Snapdragon 8 Gen 1"),
        "sm8550" => Some("Snapdragon 8 Gen 2"),
        "sm8650" => Some("Snapdragon 8 Gen 3"),
        "sm8750" => Some("Snapdragon 8 Elite"),
        "sm6115" => Some("Snapdragon 662"),
        "sc7180" => Some("Snapdragon 7c"),
        "sc8180x" => Some("Snapdragon 8cx"),
        "sc8280xp" => Some("Snapdragon 8cx Gen 3"),
        p if p.starts_with("x1e") => Some("Snapdragon X Elite"),
        p if p.starts_with("x1p") => Some("Snapdragon X Plus"),
        _ => None,
    };
    let upper = part.to_ascii_uppercase();
    match marketing {
        Some(m) => format!("Qualcomm {upper} ({m})"),
        None => format!("Qualcomm {upper}"),
    }
}

fn nxp(model: &str) -> Option<(String, u8)> {
    let name = match model {
        "imx6q" => "i.MX6 Quad".to_string(),
        "imx6dl" => "i.MX6 DualLite/Solo".to_string(),
        "imx6qp" => "i.MX6 QuadPlus".to_string(),
        "imx8mq" => "i.MX8M Quad".to_string(),
        "imx8mm" => "i.MX8M Mini".to_string(),
        "imx8mn" => "i.MX8M Nano".to_string(),
        "imx8mp" => "i.MX8M Plus".to_string(),
        "imx8qm" => "i.MX8 QuadMax".to_string(),
        "imx8qxp" => "i.MX8 QuadXPlus".to_string(),
        m if m.starts_with("imx") && looks_like_part(m) => {
            format!("i.MX{}", m[3..].to_ascii_uppercase())
        }
        m if (m.starts_with("ls") || m.starts_with("lx")) && looks_like_part(m) => {
            m.to_ascii_uppercase()
        }
        _ => return None,
    };
    Some((format!("NXP {name}"), CHIP))
}

/// Core types a SoC must have, for the SoCs whose device trees are known to be reused on
/// other chips (a HiFive Premier P550 ships a device tree that still says `sifive,fu740`).
fn expected_cores(guess: &str) -> Option<&'static [&'static str]> {
    // Lower-case fragments of the core names we or sbc-bench print (`SiFive U74-MC`,
    // `sifive,u74-mc`); a bare ISA string (`rv64imafdc`) contradicts nothing.
    Some(match guess {
        "SiFive FU740" | "SiFive FU540" | "StarFive JH7110" | "StarFive JH7110S"
        | "StarFive JH7100" => &["u74", "u54", "rv64"],
        "Eswin EIC7700X" | "Eswin EIC7702X" => &["p550", "eic770", "rv64"],
        _ => return None,
    })
}

fn contradicts(guess: &str, cores: &[CoreGroup]) -> bool {
    let Some(expected) = expected_cores(guess) else {
        return false;
    };
    let known: Vec<String> = cores
        .iter()
        .map(|g| g.core_type.to_ascii_lowercase())
        .filter(|t| t != "unknown")
        .collect();
    !known.is_empty()
        && known
            .iter()
            .all(|t| !expected.iter().any(|e| t.contains(e)))
}

fn from_compatible(
    compat: &[String],
    cores: &[CoreGroup],
    revision: Option<&str>,
) -> Option<SocGuess> {
    let lower: Vec<String> = compat.iter().map(|c| c.to_ascii_lowercase()).collect();
    // MediaTek's IoT chips (Genio) reuse their phone twin's SoC compatible; only the board
    // compatible names the real part.
    for (part, name) in [
        ("mt8395", "MediaTek MT8395 (Genio 1200)"),
        ("mt8390", "MediaTek MT8390 (Genio 700)"),
        ("mt8370", "MediaTek MT8370 (Genio 510)"),
    ] {
        if lower
            .iter()
            .any(|c| c.starts_with(&format!("mediatek,{part}")))
        {
            return Some(found(
                name,
                format!("device-tree compatible mediatek,{part}"),
            ));
        }
    }
    let mut best: Option<(String, u8, &String)> = None;
    let mut skipped = Vec::new();
    for c in compat {
        let Some((name, spec)) = compat_entry(c) else {
            continue;
        };
        if contradicts(&name, cores) {
            skipped.push(format!(
                "device-tree compatible {c} ignored: {name} does not have {}",
                composition(cores)
            ));
            continue;
        }
        if best.as_ref().is_none_or(|(_, s, _)| spec > *s) {
            best = Some((name, spec, c));
        }
    }
    let (mut name, _, c) = best?;
    let mut basis = vec![format!("device-tree compatible {c}")];
    if name == "Rockchip RK3588" || name == "Rockchip RK3588S" {
        let big = count_of(cores, |t| t == "Cortex-A76");
        if big == 2 {
            name = "Rockchip RK3582".into();
            basis.push("2×Cortex-A76 (RK3582 has two of the four big cores)".into());
        } else if name == "Rockchip RK3588" {
            // Vendor device trees say rk3588 for RK3588S boards too (ROCK 5A).
            name = "Rockchip RK3588/RK3588S".into();
        }
    }
    if name == "Rockchip RK3328" && lower.iter().any(|c| c.contains("rk3318")) {
        name = "Rockchip RK3318/RK3328".into();
        basis.push("board compatible mentions rk3318".into());
    }
    if name == "Broadcom BCM2837" && revision.and_then(rpi_revision).map(|r| r.1) == Some(0x12) {
        name = "Raspberry Pi RP3A0 (BCM2710A1)".into();
        basis.push("Raspberry Pi revision code: Zero 2 W".into());
    }
    basis.extend(skipped);
    Some(SocGuess {
        guess: Some(name),
        basis,
        ..Default::default()
    })
}

/// A Raspberry Pi revision code → (SoC, board type). New-style codes (bit 23) encode the
/// processor in bits 12-15 (0 BCM2835, 1 BCM2836, 2 BCM2837, 3 BCM2711, 4 BCM2712) and
/// the board type in bits 4-11; old-style codes (`000e`) are all original BCM2835 boards.
pub fn rpi_revision(rev: &str) -> Option<(&'static str, u32)> {
    let v = u32::from_str_radix(rev.trim().trim_start_matches("0x"), 16).ok()?;
    if v & (1 << 23) == 0 {
        return (v > 0 && v < 0x100).then_some(("BCM2835", 0));
    }
    let soc = match (v >> 12) & 0xf {
        0 => "BCM2835",
        1 => "BCM2836",
        2 => "BCM2837",
        3 => "BCM2711",
        4 => "BCM2712",
        _ => return None,
    };
    Some((soc, (v >> 4) & 0xff))
}

/// The first token that looks like a chip part number (`MSM8956`, `MT6771V`, `SDM439`).
fn part_token<'a>(s: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .find_map(|t| {
            let up = t.to_ascii_uppercase();
            let p = prefixes.iter().find(|p| up.starts_with(*p))?;
            let rest = &t[p.len()..];
            rest.starts_with(|c: char| c.is_ascii_digit()).then_some(t)
        })
}

/// What a rule of [`from_hardware`] reads: cpuinfo's `Hardware` line as written and
/// lower-cased, the basis sentence, and the core groups.
struct Hardware<'a> {
    hw: &'a str,
    lower: String,
    basis: String,
    cores: &'a [CoreGroup],
}

/// A rule of [`from_hardware`]: `None` when the line is not this vendor's, `Some(guess)`
/// when it is (the guess itself `None` when the line names the vendor but not the chip).
type HardwareRule = fn(&SocInputs, &Hardware<'_>) -> Option<Option<SocGuess>>;

/// The rules, in the order they are tried.
const HARDWARE_RULES: &[HardwareRule] = &[
    hardware_raspberry_pi,
    hardware_amlogic,
    hardware_allwinner,
    hardware_qualcomm,
    hardware_others,
];

fn from_hardware(i: &SocInputs, cores: &[CoreGroup]) -> Option<SocGuess> {
    let hw = i.cpuinfo_hardware.as_deref()?.trim();
    let h = Hardware {
        hw,
        lower: hw.to_ascii_lowercase(),
        basis: format!("cpuinfo Hardware \"{hw}\""),
        cores,
    };
    HARDWARE_RULES.iter().find_map(|rule| rule(i, &h)).flatten()
}

/// Raspberry Pi kernels print BCM2835 (or BCM2709/2710/2711) for every model; the
/// revision code tells the real chip.
fn hardware_raspberry_pi(i: &SocInputs, h: &Hardware<'_>) -> Option<Option<SocGuess>> {
    let hw = h.hw;
    let basis = h.basis.clone();
    if hw.starts_with("BCM27") || hw.starts_with("BCM28") {
        if let Some((soc, kind)) = i.cpuinfo_revision.as_deref().and_then(rpi_revision) {
            let name = if kind == 0x12 {
                "Raspberry Pi RP3A0 (BCM2710A1)".to_string()
            } else {
                format!("Broadcom {soc}")
            };
            let mut g = found(name, basis);
            g.basis.push("Raspberry Pi revision code".into());
            return Some(Some(g));
        }
        return Some(None);
    }
    None
}

/// Amlogic and Khadas vendor kernels: the serial, else the family and core types.
fn hardware_amlogic(i: &SocInputs, h: &Hardware<'_>) -> Option<Option<SocGuess>> {
    let lower = h.lower.as_str();
    let basis = h.basis.clone();
    let cores = h.cores;
    let n = total(cores);
    let has = |t: &str| count_of(cores, |c| c == t);
    if lower.contains("amlogic") || lower.contains("khadas") {
        if let Some(g) = i.cpuinfo_serial.as_deref().and_then(amlogic_serial) {
            return Some(Some(g));
        }
        if lower.contains("meson8b") {
            return Some(Some(found("Amlogic S805", basis)));
        }
        if lower.contains("meson platform") || lower == "amlogic" {
            let name = if has("Cortex-A5") == n && n > 0 {
                "Amlogic S805 (Meson8B)"
            } else if has("Cortex-A9") == n && n > 0 {
                "Amlogic S802/S812 (Meson8/Meson8m2)"
            } else {
                return Some(None);
            };
            let mut g = found(name, basis);
            g.basis
                .push(format!("core composition {}", composition(cores)));
            return Some(Some(g));
        }
        return Some(None);
    }
    None
}

/// Allwinner `sunXiwY` families.
fn hardware_allwinner(_: &SocInputs, h: &Hardware<'_>) -> Option<Option<SocGuess>> {
    let hw = h.hw;
    let lower = h.lower.as_str();
    let basis = h.basis.clone();
    let cores = h.cores;
    let n = total(cores);
    let has = |t: &str| count_of(cores, |c| c == t);
    if let Some(fam) = lower
        .strip_prefix("sun")
        .filter(|r| r.contains('w'))
        .and_then(|r| allwinner_family(r.split_whitespace().next().unwrap_or(r)))
    {
        let mut g = found(format!("Allwinner {fam}"), basis);
        if hw.starts_with("sun50iw1") {
            g.basis
                .push("Armbian kernels report sun50iw1p1 for H5/H6/H616 too".into());
        }
        return Some(Some(g));
    }
    if lower.contains("sun8i") {
        // sun8i is H3, H2+, R40, A33, A23, A83T, V3s: only the core count narrows it.
        let name = match (has("Cortex-A7"), n) {
            (8, 8) => "Allwinner A83T",
            (4, 4) => "Allwinner H3/H2+/R40/A33",
            (2, 2) => "Allwinner A23",
            (1, 1) => "Allwinner V3s/V3/S3",
            _ => return Some(None),
        };
        let mut g = found(name, basis);
        g.basis
            .push(format!("core composition {}", composition(cores)));
        return Some(Some(g));
    }
    if lower.contains("sun4i") || lower.contains("sun5i") {
        return Some(Some(found("Allwinner A10/A10s/A13/R8", basis)));
    }
    if lower.contains("sun6i") {
        return Some(Some(found("Allwinner A31/A31s", basis)));
    }
    if lower.contains("sun7i") {
        return Some(Some(found("Allwinner A20", basis)));
    }
    if lower.contains("a83t") {
        return Some(Some(found("Allwinner A83T", basis)));
    }
    None
}

/// Qualcomm part numbers and codenames.
fn hardware_qualcomm(_: &SocInputs, h: &Hardware<'_>) -> Option<Option<SocGuess>> {
    let hw = h.hw;
    let lower = h.lower.as_str();
    let basis = h.basis.clone();
    if let Some(t) = part_token(hw, &["MSM", "APQ", "SDM", "SM", "QCS", "QCM", "MDM"]) {
        let up = t.to_ascii_uppercase();
        // `SDM439Processor` (a missing newline in one vendor kernel's cpuinfo).
        let up = up.trim_end_matches("PROCESSOR");
        return Some(Some(found(qualcomm_name(&up.to_ascii_lowercase()), basis)));
    }
    if lower.contains("qualcomm") || lower.starts_with("qct") {
        // `Qualcomm MSM 8610`, `Qualcomm Technologies, Inc KONA`.
        let words: Vec<&str> = hw.split_whitespace().collect();
        for w in words.windows(2) {
            if ["MSM", "APQ"].contains(&w[0]) && w[1].starts_with(|c: char| c.is_ascii_digit()) {
                return Some(Some(found(format!("Qualcomm {}{}", w[0], w[1]), basis)));
            }
        }
        if let Some(name) = words
            .last()
            .and_then(|w| qualcomm_codename(&w.to_ascii_lowercase()))
        {
            return Some(Some(found(name, basis)));
        }
        return Some(None);
    }
    None
}

/// MediaTek, HiSilicon, Samsung, boards that name their SoC, and the RK3288.
fn hardware_others(_: &SocInputs, h: &Hardware<'_>) -> Option<Option<SocGuess>> {
    let hw = h.hw;
    let lower = h.lower.as_str();
    let basis = h.basis.clone();
    let cores = h.cores;
    let n = total(cores);
    let has = |t: &str| count_of(cores, |c| c == t);
    if let Some(t) = part_token(hw, &["MT"]) {
        return Some(Some(found(
            format!("MediaTek {}", t.to_ascii_uppercase()),
            basis,
        )));
    }
    if let Some(n) = lower.strip_prefix("kirin") {
        return Some(Some(found(format!("HiSilicon Kirin {}", n.trim()), basis)));
    }
    let hisilicon = [
        ("hi6210", "HiSilicon Kirin 620 (Hi6210)"),
        ("hi6250", "HiSilicon Kirin 650 (Hi6250)"),
        ("hi3751", "HiSilicon Hi3751"),
        ("hi6620", "HiSilicon Hi6620"),
    ];
    if let Some((_, name)) = hisilicon.iter().find(|(k, _)| lower.starts_with(k)) {
        return Some(Some(found(*name, basis)));
    }
    if let Some(t) = part_token(hw, &["EXYNOS"]) {
        let n = &t[6..];
        if n.len() >= 4 {
            return Some(Some(found(format!("Samsung Exynos {n}"), basis)));
        }
    }
    let boards = [
        ("odroid-xu", "Samsung Exynos 5422"),
        ("odroid-hc", "Samsung Exynos 5422"),
        ("odroid-u", "Samsung Exynos 4412"),
        ("odroid-x", "Samsung Exynos 4412"),
        ("odroid-c1", "Amlogic S805"),
        ("odroid-c2", "Amlogic S905"),
        ("odroid-c4", "Amlogic S905X3"),
        ("odroid-n2", "Amlogic S922X"),
        ("odroid-n1", "Rockchip RK3399"),
        ("odroid-m1s", "Rockchip RK3566"),
        ("odroid-m1", "Rockchip RK3568"),
        ("freescale i.mx6 quad", "NXP i.MX6 Quad/DualLite"),
        // The kernel's family string; the 388 reports it too.
        ("marvell armada 380/385", "Marvell Armada 38x"),
        ("pxa1908", "Marvell PXA1908"),
        ("pxa988", "Marvell PXA988"),
        ("feroceon-kw", "Marvell Kirkwood"),
        ("generic am33xx", "TI AM335x"),
        ("omap4430", "TI OMAP4430"),
        ("xilinx zynq platform", "Xilinx Zynq-7000"),
        ("sc8830", "Spreadtrum SC8830"),
    ];
    if let Some((_, name)) = boards.iter().find(|(k, _)| lower.contains(k)) {
        return Some(Some(found(*name, basis)));
    }
    if lower.starts_with("rockchip") && has("Cortex-A17") == 4 && n == 4 {
        let mut g = found("Rockchip RK3288", basis);
        g.basis
            .push("4×Cortex-A17 (the only quad Cortex-A17 Rockchip)".into());
        return Some(Some(g));
    }
    None
}

/// Amlogic vendor kernels: `Serial` starts with the chip ID (major, minor, package).
fn amlogic_serial(serial: &str) -> Option<SocGuess> {
    let byte = |k: usize| {
        serial
            .get(k..k + 2)
            .and_then(|s| u8::from_str_radix(s, 16).ok())
    };
    let major = byte(0)?;
    let (family, cands) = amlogic_family(major)?;
    let chip = match (byte(2), byte(4)) {
        (Some(minor), Some(pack)) => amlogic_chip(major, minor, pack),
        _ => None,
    };
    let name = chip.unwrap_or(cands);
    let mut g = found(
        format!("Amlogic {name}"),
        format!("Amlogic chip ID in cpuinfo Serial ({family})"),
    );
    let id: String = serial.chars().take(8).collect();
    g.detail = Some(format!("{family} {id}"));
    Some(g)
}

fn from_model_name(i: &SocInputs) -> Option<SocGuess> {
    let raw = i.model_name.as_deref()?.trim();
    let basis = format!("cpuinfo model name \"{raw}\"");
    match i.arch {
        Some(CpuArch::X86) => {
            let clean = x86::clean_model_name(raw)?;
            let clean = clean
                .split(" @ ")
                .next()
                .unwrap_or(&clean)
                .trim()
                .to_string();
            let vendor = if raw.contains("Intel") {
                "Intel "
            } else if raw.contains("AMD") {
                "AMD "
            } else {
                ""
            };
            Some(found(format!("{vendor}{clean}"), basis))
        }
        Some(CpuArch::Loongarch) | Some(CpuArch::Mips) if raw.starts_with("Loongson") => {
            let core = ident::loongson_name(raw)?;
            Some(found(core.replacen("Loongson-", "Loongson ", 1), basis))
        }
        Some(CpuArch::Arm) if raw.to_ascii_lowercase().starts_with("bm1") => {
            Some(found(format!("Sophgo {}", raw.to_ascii_uppercase()), basis))
        }
        _ => None,
    }
}

/// Cores that only one vendor's chips use: the core names the chip (or its family).
fn from_vendor_cores(cores: &[CoreGroup]) -> Option<SocGuess> {
    let n = total(cores);
    let all = |p: &str| n > 0 && count_of(cores, |t| t.starts_with(p)) == n;
    let has = |p: &str| count_of(cores, |t| t.starts_with(p));
    let first = cores.first()?;
    let name: String = if all("Virtualized Apple Silicon") {
        "Apple Silicon (virtualized: model unknown)".into()
    } else if all("Apple ") {
        // `Apple Firestorm M1Pro` → `Apple M1 Pro`.
        let chip = first.core_type.rsplit(' ').next()?;
        let chip = chip.replace("Pro", " Pro").replace("Max", " Max");
        format!("Apple {chip}")
    } else if all("Cavium ThunderX 88XX") {
        "Cavium ThunderX CN88XX".into()
    } else if all("Cavium ThunderX2") || all("Broadcom Vulcan") {
        "Cavium ThunderX2 CN99XX".into()
    } else if all("Phytium FTC663") && n == 8 {
        "Phytium D2000".into()
    } else if all("Phytium FTC663") && n == 4 {
        "Phytium FT-2000/4".into()
    } else if all("Phytium FTC862") && n == 8 {
        "Phytium D3000".into()
    } else if all("Phytium FTC662") && n == 64 {
        "Phytium FT-2000+/64".into()
    } else if all("NVidia Carmel") {
        "Nvidia Xavier (Tegra194)".into()
    } else if all("NVidia Denver") && !all("NVidia Denver 2") {
        "Nvidia Tegra K1 (Tegra132)".into()
    } else if has("NVidia Denver 2") > 0 && has("Cortex-A57") + has("NVidia Denver 2") == n {
        "Nvidia Tegra X2 (Tegra186)".into()
    } else if has("Samsung Exynos-m5") > 0 {
        "Samsung Exynos 990".into()
    } else if has("Samsung Exynos-m4") > 0 {
        "Samsung Exynos 9820".into()
    } else if has("Samsung Exynos-m3") > 0 {
        "Samsung Exynos 9810".into()
    } else if has("Samsung Exynos-m1") > 0 {
        // Mongoose 2 (Exynos 8895) reports M1's part number with variant 4.
        let m2 = cores.iter().any(|g| {
            g.core_type.starts_with("Samsung Exynos-m1")
                && g.stepping.as_deref().is_some_and(|s| s.starts_with("r4"))
        });
        if m2 {
            "Samsung Exynos 8895"
        } else {
            "Samsung Exynos 8890"
        }
        .into()
    } else if all("Qualcomm Oryon") && n == 12 {
        "Qualcomm Snapdragon X Elite".into()
    } else if all("Qualcomm Falkor") && !all("Qualcomm Falkor V1") {
        "Qualcomm Centriq 2400".into()
    } else if all("Fujitsu A64FX") {
        "Fujitsu A64FX".into()
    } else if all("APM X-Gene") {
        "APM X-Gene".into()
    } else if all("HXT Phecda") {
        "HXT StarDragon 4800".into()
    } else if all("Azure Cobalt 100") {
        "Microsoft Azure Cobalt 100".into()
    } else if all("Ampere Ampere-1") {
        "AmpereOne".into()
    } else if all("TaiShan v110") {
        "HiSilicon Kunpeng 920".into()
    } else if all("HiSilicon-1910") {
        "HiSilicon Hi1910".into()
    } else if all("Neoverse-N1") && n > 64 {
        // AWS Graviton2 has 64 cores; more Neoverse-N1 cores are Ampere's (one Altra Max
        // or two Altra sockets).
        "Ampere Altra/Altra Max".into()
    } else if all("Cortex-A78AE") && matches!(n, 6 | 8 | 12) {
        "Nvidia Orin (Tegra234)".into()
    } else if has("Cortex-A720") == 8 && has("Cortex-A520") == 4 && n == 12 {
        "Cix P1 (CD8180)".into()
    } else {
        return None;
    };
    Some(found(
        name,
        format!("core composition {}", composition(cores)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(types: &[(&str, usize)]) -> Vec<CoreGroup> {
        types
            .iter()
            .map(|(t, n)| CoreGroup {
                core_type: t.to_string(),
                stepping: None,
                count: *n,
                max_mhz: None,
            })
            .collect()
    }

    fn inputs(compat: &[&str], cores: &[(&str, usize)]) -> SocInputs {
        SocInputs {
            compatible: compat.iter().map(|s| s.to_string()).collect(),
            cores: g(cores),
            ..Default::default()
        }
    }

    #[test]
    fn rockchip_ids() {
        let row = |b: &[u8]| {
            let mut r = b"RK".to_vec();
            r.extend_from_slice(b);
            r
        };
        assert_eq!(
            rockchip_model(&row(&[0x35, 0x88, 0x12, 0xfe, 0x33, 0x41])).as_deref(),
            Some("Rockchip RK3588S")
        );
        assert_eq!(
            rockchip_model(&row(&[0x35, 0x82, 0x12, 0xfe, 0x21, 0x41])).as_deref(),
            Some("Rockchip RK3582")
        );
        assert_eq!(
            rockchip_model(&row(&[0x23, 0x82])).as_deref(),
            Some("Rockchip RK3229/RK3228A")
        );
        assert_eq!(
            rockchip_model(&row(&[0x33, 0x81])).as_deref(),
            Some("Rockchip RK3318")
        );
        assert_eq!(
            rockchip_model(&row(&[0x33, 0x99])).as_deref(),
            Some("Rockchip RK3399")
        );
        assert_eq!(rockchip_model(&row(&[0xab, 0xcd])), None);
        let mut nvmem = vec![0u8; 64];
        nvmem[32..38].copy_from_slice(&[b'R', b'K', 0x35, 0x66, 0x12, 0x00]);
        let r = rockchip_row(&nvmem).unwrap();
        assert_eq!(rockchip_model(&r).as_deref(), Some("Rockchip RK3566"));
        assert_eq!(
            allwinner_sid_word(&[0x01, 0x00, 0xc0, 0x82]).as_deref(),
            Some("82c00001")
        );
    }

    #[test]
    fn raspberry_pi_revisions() {
        assert_eq!(rpi_revision("d03114").map(|r| r.0), Some("BCM2711"));
        assert_eq!(rpi_revision("000e").map(|r| r.0), Some("BCM2835"));
        assert_eq!(rpi_revision("1a01040").map(|r| r.0), Some("BCM2836"));
        assert_eq!(rpi_revision("902120"), Some(("BCM2837", 0x12)));
        assert_eq!(rpi_revision("zz"), None);
    }

    #[test]
    fn device_tree_families_stay_families() {
        let s922 = guess(&inputs(
            &["hardkernel,odroid-n2-plus", "amlogic,s922x", "amlogic,g12b"],
            &[],
        ));
        assert_eq!(s922.guess.as_deref(), Some("Amlogic S922X"));
        let g12b = guess(&inputs(&["azw,gtking", "amlogic,g12b"], &[]));
        assert_eq!(g12b.guess.as_deref(), Some("Amlogic S922X/A311D (G12B)"));
        let gxl = guess(&inputs(
            &["amlogic,p212", "amlogic,s905x", "amlogic,meson-gxl"],
            &[],
        ));
        assert_eq!(gxl.guess.as_deref(), Some("Amlogic S905X/S905W/S905L"));
        let rk = guess(&inputs(
            &["radxa,rock-5a", "rockchip,rk3588"],
            &[("Cortex-A55", 4), ("Cortex-A76", 4)],
        ));
        assert_eq!(rk.guess.as_deref(), Some("Rockchip RK3588/RK3588S"));
        let rk3582 = guess(&inputs(
            &["radxa,rock-5c", "rockchip,rk3588s"],
            &[("Cortex-A55", 4), ("Cortex-A76", 2)],
        ));
        assert_eq!(rk3582.guess.as_deref(), Some("Rockchip RK3582"));
    }

    #[test]
    fn reused_device_tree_is_caught_by_the_cores() {
        let p550 = guess(&inputs(
            &[
                "sifive,hifive-unmatched-a00",
                "sifive,fu740-c000",
                "sifive,fu740",
                "eswin,eic7700",
            ],
            &[("SiFive P550", 4)],
        ));
        assert_eq!(p550.guess.as_deref(), Some("Eswin EIC7700X"));
        assert!(p550.basis.iter().any(|b| b.contains("fu740 ignored")));
    }

    #[test]
    fn licensed_cores_alone_are_not_enough() {
        let u = guess(&inputs(&[], &[("Cortex-A55", 4), ("Cortex-A76", 4)]));
        assert_eq!(u.guess, None);
        assert!(u.basis[0].starts_with("unknown:"), "{:?}", u.basis);
        let t = guess(&inputs(&[], &[("Cavium ThunderX 88XX", 96)]));
        assert_eq!(t.guess.as_deref(), Some("Cavium ThunderX CN88XX"));
    }

    #[test]
    fn vendor_id_beats_device_tree() {
        let mut i = inputs(
            &["radxa,rock-5c", "rockchip,rk3588"],
            &[("Cortex-A55", 4), ("Cortex-A76", 4)],
        );
        i.rockchip_id = Some("52 4b 35 82 12 fe 21 41 32 47 41 31 00 00 00 00".into());
        let r = guess(&i);
        assert_eq!(r.guess.as_deref(), Some("Rockchip RK3582"));
        assert_eq!(
            r.detail.as_deref(),
            Some("35 82 12 fe 21 41  32 47 41 31 00 00 00 00")
        );
        let mut a = inputs(&["khadas,vim3", "amlogic,a311d", "amlogic,g12b"], &[]);
        a.soc0 = Some(SocDevice {
            family: Some("Amlogic Meson".into()),
            soc_id: Some("G12B (Unknown)".into()),
            revision: Some("29:b - 10:2".into()),
            machine: None,
        });
        assert_eq!(guess(&a).guess.as_deref(), Some("Amlogic A311D"));
    }

    /// ROCK 5B-like tree: device tree, OTP and cpuinfo read through the root.
    #[test]
    fn reads_inputs_through_the_root() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, b: &[u8]| {
            let path = d.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b).unwrap();
        };
        w(
            "proc/device-tree/compatible",
            b"radxa,rock-5b\0rockchip,rk3588\0",
        );
        w("proc/device-tree/model", b"Radxa ROCK 5B\0");
        let mut otp = vec![0u8; 0x400];
        otp[..16].copy_from_slice(&[
            0x52, 0x4b, 0x35, 0x88, 0x12, 0xfe, 0x21, 0x41, 0x32, 0x38, 0x4b, 0x44, 0, 0, 0, 0,
        ]);
        w("sys/bus/nvmem/devices/rockchip-otp0/nvmem", &otp);
        // Not a Rockchip/Allwinner ID device (sorts first): never read, or it would say RK3566.
        w(
            "sys/bus/nvmem/devices/at24-eeprom0/nvmem",
            b"RK\x35\x66\x12\xfe\x21\x41\x32\x38\x4b\x44\0\0\0\0",
        );
        let mut ci = String::new();
        for (n, v, p) in [(0, 2, "0xd05"), (4, 4, "0xd0b")] {
            ci.push_str(&format!(
                "processor\t: {n}\nCPU implementer\t: 0x41\nCPU variant\t: 0x{v}\nCPU part\t: {p}\nCPU revision\t: 0\n\n"
            ));
        }
        w("proc/cpuinfo", ci.as_bytes());
        let root = SysRoot::new(d.path());
        let (_, topo) = crate::sys::cpu::read(&root);
        let i = read_inputs(&root, &topo);
        assert_eq!(i.compatible, vec!["radxa,rock-5b", "rockchip,rk3588"]);
        assert_eq!(i.dt_model.as_deref(), Some("Radxa ROCK 5B"));
        assert_eq!(
            i.core_types,
            vec![("Cortex-A55".to_string(), 1), ("Cortex-A76".to_string(), 1)]
        );
        assert_eq!(
            i.chip_id.as_deref(),
            Some("35 88 12 fe 21 41 32 38 4b 44 00 00 00 00")
        );
        let g = guess(&i);
        assert_eq!(g.guess.as_deref(), Some("Rockchip RK3588"));
        assert_eq!(g.basis, vec!["Rockchip OTP/eFuse chip ID"]);
        assert_eq!(
            g.label.as_deref(),
            Some("Rockchip RK3588 / 35 88 12 fe 21 41  32 38 4b 44 00 00 00 00")
        );
        assert_eq!(i.rockchip_log_id, None);
        // A kernel log (as /dev/kmsg records, tabs escaped) that names the chip: sbc-bench's
        // `Rockchip RK3588 (35880000 / <bytes>)`.
        w(
            "dev/kmsg",
            b"6,1,0,-;Booting Linux on physical CPU 0x0000000000 [0x412fd050]\n\
              6,512,1234567,-;rockchip-cpuinfo cpuinfo: SoC\\x09\\x09: 35880000\n\
              6,513,1234568,-;rockchip-cpuinfo cpuinfo: Serial\\x09\\x09: 0123456789abcdef\n",
        );
        let i = read_inputs(&root, &topo);
        assert_eq!(i.rockchip_log_id.as_deref(), Some("35880000"));
        let g = guess(&i);
        assert_eq!(g.label, None);
        assert_eq!(
            g.detail.as_deref(),
            Some("35880000 / 35 88 12 fe 21 41  32 38 4b 44 00 00 00 00")
        );
        // CPUINFOFILE (another board's cpuinfo): this machine's OTP and log are not used.
        let sim = SysRoot::new(d.path()).with_cpuinfo_file(d.path().join("proc/cpuinfo"));
        let i = read_inputs(&sim, &topo);
        assert_eq!((i.rockchip_id, i.rockchip_log_id), (None, None));
    }

    #[test]
    fn rockchip_kernel_log_id() {
        let log = [
            "Booting Linux",
            "rockchip-cpuinfo cpuinfo: SoC\t\t: 35662000",
        ];
        assert_eq!(rockchip_soc_id_from_log(log).as_deref(), Some("35662000"));
        assert_eq!(
            rockchip_soc_id_from_log(["rockchip-cpuinfo cpuinfo: SoC\\x09\\x09: 0"]),
            None
        );
        assert_eq!(
            rockchip_soc_id_from_log(["rockchip-cpuinfo cpuinfo: SoC: x"]),
            None
        );
        // Chips whose ID digits are stored swapped: only the model without the kernel's ID.
        let mut i = inputs(&[], &[]);
        i.rockchip_id = Some("52 4b 33 81 12 fe 21 41 32 47 41 31 00 00 00 00".into());
        assert_eq!(guess(&i).label.as_deref(), Some("Rockchip RK3318"));
        i.rockchip_log_id = Some("33180000".into());
        let g = guess(&i);
        assert_eq!(g.label, None);
        assert_eq!(
            g.detail.as_deref(),
            Some("33180000 / 33 81 12 fe 21 41  32 47 41 31 00 00 00 00")
        );
        // Kernel ID without OTP: `Rockchip … (35880000)`.
        let mut k = inputs(
            &["rockchip,rk3588"],
            &[("Cortex-A55", 4), ("Cortex-A76", 4)],
        );
        k.rockchip_log_id = Some("35880000".into());
        assert_eq!(guess(&k).detail.as_deref(), Some("35880000"));
    }

    /// Raspberry Pi 4: the eMMC2 bus DMA window tells B0 (1 GiB limit) from C0.
    #[test]
    fn bcm2711_stepping() {
        let b0 = [
            0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0,
        ];
        assert_eq!(bcm2711_revision(&b0), "B0");
        let c0 = [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfc, 0, 0, 0,
        ];
        assert_eq!(bcm2711_revision(&c0), "C0 or later");
        let mut i = inputs(
            &["raspberrypi,4-model-b", "brcm,bcm2711"],
            &[("Cortex-A72", 4)],
        );
        assert_eq!(guess(&i).detail, None);
        i.bcm2711_rev = Some("B0".into());
        let g = guess(&i);
        assert_eq!(g.guess.as_deref(), Some("Broadcom BCM2711"));
        assert_eq!(g.detail.as_deref(), Some("Rev B0"));
    }

    #[test]
    fn garbage_inputs_are_unknown() {
        let i = SocInputs {
            compatible: vec![
                ",".into(),
                "x".into(),
                "rockchip,".into(),
                "qcom,iot".into(),
            ],
            cpuinfo_hardware: Some("\u{fffd}".into()),
            cpuinfo_revision: Some("".into()),
            cpuinfo_serial: Some("z".into()),
            rockchip_id: Some("zz".into()),
            ..Default::default()
        };
        assert_eq!(guess(&i).guess, None);
        assert_eq!(guess(&SocInputs::default()).guess, None);
    }
}
