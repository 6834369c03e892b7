//! A pure, forgiving parser of `/proc/cpuinfo`.
//!
//! The file has many dialects, all seen on real boards (`tests/fixtures/cpuinfo/`):
//! - one block per CPU, separated by blank lines (arm64, x86, RISC-V, LoongArch);
//! - old Arm kernels: a global `Processor : ARMv7 Processor rev 5 (v7l)` line, then
//!   `processor : N` blocks holding only `BogoMIPS`, then ONE block of `CPU implementer` …
//!   `CPU revision` for all CPUs, then `Hardware`/`Revision`/`Serial`;
//! - vendor Qualcomm/Amlogic kernels: `processor : 0` … `processor : 5` on consecutive
//!   lines without blank lines, followed by one identity block;
//! - HiSilicon's Kirin 920 kernel: `CPU part : 0xc07 & 0xc0f` (one value per cluster);
//! - Kendryte K510: no `processor` lines at all, blocks start with `hart`;
//! - CRLF line ends (Exynos 7570), tabs or spaces around the colon, Latin-1 garbage,
//!   truncated files, and a missing newline (`… SDM439Processor : AArch64 …`).
//!
//! Nothing here panics on any input; unknown lines are kept or skipped, never fatal.

/// One `key : value` line, trimmed.
pub type Field = (String, String);

/// The fields of one CPU (one `processor : N` block).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// The `processor` number; `None` for blocks that start with `hart` (Kendryte K510).
    pub processor: Option<u32>,
    /// The lines of the block in file order (duplicates kept).
    pub fields: Vec<Field>,
}

impl Block {
    /// First value of `key` in this block.
    pub fn get(&self, key: &str) -> Option<&str> {
        lookup(&self.fields, key)
    }

    /// First value of `key`, ignoring ASCII case (LoongArch 6.12 prints `Model Name`).
    pub fn get_ci(&self, key: &str) -> Option<&str> {
        lookup_ci(&self.fields, key)
    }

    /// True when the block has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// A parsed cpuinfo file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuInfo {
    /// Per-CPU blocks in file order.
    pub blocks: Vec<Block>,
    /// Lines outside any block: `Hardware`, `Revision`, `Serial`, the old `Processor` line,
    /// and the identity block old kernels print once for all CPUs.
    pub global: Vec<Field>,
    /// True when the CPU identity (`CPU part` …) was printed once for all CPUs rather than
    /// per CPU. It then describes whichever CPU read the file, so on big.LITTLE SoCs with
    /// such kernels the other cluster's core type is simply not in the file.
    pub shared_identity: bool,
}

/// Keys that describe a CPU's identity on Arm. When these appear once for all CPUs, the
/// file uses the old shared layout.
const ARM_IDENT_KEYS: [&str; 6] = [
    "CPU implementer",
    "CPU architecture",
    "CPU variant",
    "CPU part",
    "CPU revision",
    "Features",
];

impl CpuInfo {
    /// Parse the text of a cpuinfo file. Never fails: garbage yields an empty result.
    pub fn parse(text: &str) -> Self {
        let mut info = CpuInfo::default();
        // Index into `info.blocks` of the block lines currently go to.
        let mut current: Option<usize> = None;
        for raw in text.split('\n') {
            // CRLF and stray CRs; NULs from truncated or padded captures.
            let line = raw.trim_end_matches(['\r', '\0']);
            if line.trim().is_empty() {
                current = None;
                continue;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let key = k.trim();
            let value = v.trim();
            if key.is_empty() || key.len() > 64 {
                continue;
            }
            if key == "processor" {
                if let Ok(n) = value.parse::<u32>() {
                    info.blocks.push(Block {
                        processor: Some(n),
                        fields: Vec::new(),
                    });
                    current = Some(info.blocks.len() - 1);
                    continue;
                }
            }
            if key == "hart"
                && current.is_none()
                && !info.blocks.iter().any(|b| b.processor.is_some())
            {
                // Kendryte K510: blocks without `processor`, each starting with `hart`.
                info.blocks.push(Block {
                    processor: None,
                    fields: Vec::new(),
                });
                current = Some(info.blocks.len() - 1);
            }
            let field = (key.to_string(), value.to_string());
            match current.and_then(|i| info.blocks.get_mut(i)) {
                Some(b) => b.fields.push(field),
                None => info.global.push(field),
            }
        }
        info.detect_shared_identity();
        info
    }

    /// Qualcomm/Amlogic vendor kernels print `processor : 0` … `processor : 5` and then one
    /// identity block without a blank line, so it lands in the last CPU's block. Move it to
    /// the global fields where it belongs, and note the shared layout.
    fn detect_shared_identity(&mut self) {
        let with_part = self.blocks.iter().filter(|b| b.has("CPU part")).count();
        let last_has = self.blocks.last().is_some_and(|b| b.has("CPU part"));
        if self.blocks.len() > 1 && with_part == 1 && last_has {
            if let Some(last) = self.blocks.last_mut() {
                let (ident, rest): (Vec<Field>, Vec<Field>) = std::mem::take(&mut last.fields)
                    .into_iter()
                    .partition(|(k, _)| ARM_IDENT_KEYS.contains(&k.as_str()));
                last.fields = rest;
                self.global.extend(ident);
            }
        }
        let global_has = lookup(&self.global, "CPU part").is_some();
        let per_cpu = self.blocks.iter().any(|b| b.has("CPU part"));
        self.shared_identity = global_has && !per_cpu;
    }

    /// First value of a global `key` (`Hardware`, `Revision`, `Serial`, `Processor`).
    pub fn global(&self, key: &str) -> Option<&str> {
        lookup(&self.global, key)
    }

    /// First value of `key` anywhere: the first block that has it, else the global lines.
    pub fn first(&self, key: &str) -> Option<&str> {
        self.blocks
            .iter()
            .find_map(|b| b.get(key))
            .or_else(|| self.global(key))
    }

    /// First value of `key` anywhere, ignoring ASCII case.
    pub fn first_ci(&self, key: &str) -> Option<&str> {
        self.blocks
            .iter()
            .find_map(|b| b.get_ci(key))
            .or_else(|| lookup_ci(&self.global, key))
    }

    /// `key` for one block, falling back to the global lines (shared layout).
    pub fn value_for<'a>(&'a self, block: &'a Block, key: &str) -> Option<&'a str> {
        block.get(key).or_else(|| self.global(key))
    }

    /// The CPU numbers the file lists. Blocks without a `processor` line are numbered by
    /// their position. A file with no blocks at all but an identity (ARM11 kernels print
    /// only global lines) stands for CPU 0.
    pub fn processors(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| b.processor.unwrap_or(i as u32))
            .collect();
        if v.is_empty() && self.has_identity() {
            v.push(0);
        }
        v
    }

    /// True when there is anything that identifies a CPU.
    pub fn has_identity(&self) -> bool {
        [
            "CPU part",
            "model name",
            "isa",
            "uarch",
            "cpu model",
            "Processor",
            "cpu",
        ]
        .iter()
        .any(|k| self.first(k).is_some())
    }

    /// `Hardware` line (32-bit and vendor kernels), trimmed of trailing junk.
    pub fn hardware(&self) -> Option<&str> {
        self.global("Hardware")
            .or_else(|| self.first("Hardware"))
            .filter(|s| !s.is_empty())
    }
}

fn lookup_ci<'a>(fields: &'a [Field], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

fn lookup<'a>(fields: &'a [Field], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Parse an integer as cpuinfo prints them: `0x41`, `0xd0b`, `4`, `0X1F`.
pub fn parse_num(v: &str) -> Option<u64> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        v.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allwinner H3, legacy 3.4 kernel: one identity block for all CPUs.
    const H3_LEGACY: &str = "Processor\t: ARMv7 Processor rev 5 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 4799.99\n\nprocessor\t: 1\nBogoMIPS\t: 4799.99\n\nFeatures\t: swp half thumb fastmult vfp edsp thumbee neon vfpv3 tls vfpv4 idiva idivt \nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xc07\nCPU revision\t: 5\n\nHardware\t: sun8i\nRevision\t: 0000\nSerial\t\t: 3400503443144823034e";

    /// Qualcomm MSM8956 vendor kernel: processor lines without blank lines.
    const MSM8956: &str = "Processor\t: AArch64 Processor rev 4 (aarch64)\nprocessor\t: 0\nprocessor\t: 1\nprocessor\t: 2\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 \nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd03\nCPU revision\t: 4\n\nHardware\t: Qualcomm Technologies, Inc MSM8956\n";

    #[test]
    fn legacy_layout_is_shared() {
        let c = CpuInfo::parse(H3_LEGACY);
        assert_eq!(c.processors(), vec![0, 1]);
        assert!(c.shared_identity);
        assert_eq!(c.global("CPU part"), Some("0xc07"));
        assert_eq!(c.hardware(), Some("sun8i"));
        assert_eq!(c.global("Serial"), Some("3400503443144823034e"));
    }

    #[test]
    fn vendor_layout_moves_identity_to_global() {
        let c = CpuInfo::parse(MSM8956);
        assert_eq!(c.processors(), vec![0, 1, 2]);
        assert!(c.shared_identity);
        assert!(c.blocks.iter().all(|b| !b.has("CPU part")));
        assert_eq!(c.global("CPU part"), Some("0xd03"));
        assert_eq!(c.hardware(), Some("Qualcomm Technologies, Inc MSM8956"));
    }

    #[test]
    fn crlf_and_spaces() {
        let c = CpuInfo::parse(
            "processor : 0\r\nCPU part  :  0xd05\r\n\r\nprocessor\t: 1\r\nCPU part\t: 0xd05\r\n",
        );
        assert_eq!(c.processors(), vec![0, 1]);
        assert!(!c.shared_identity);
        assert_eq!(c.blocks[1].get("CPU part"), Some("0xd05"));
    }

    #[test]
    fn hart_blocks_without_processor() {
        let c = CpuInfo::parse("hart\t: 0\nisa\t: rv64imafdc\n\nhart\t: 1\nisa\t: rv64imafdc\n");
        assert_eq!(c.processors(), vec![0, 1]);
        assert_eq!(c.blocks[1].get("hart"), Some("1"));
    }

    #[test]
    fn garbage_and_empty() {
        assert_eq!(CpuInfo::parse("").processors(), Vec::<u32>::new());
        let c = CpuInfo::parse("\u{fffd}\u{fffd}: \n::::\nprocessor: x\nprocessor : 99999999999\n");
        assert!(c.blocks.is_empty());
        assert_eq!(parse_num("0xd0b"), Some(0xd0b));
        assert_eq!(parse_num("7"), Some(7));
        assert_eq!(parse_num("0xzz"), None);
    }
}
