//! Arm MIDR decoding: implementer and part number → core name.
//!
//! Sources (public facts, table written here): Arm Technical Reference Manuals (MIDR_EL1
//! "Part number" field of each core), Linux `arch/arm64/include/asm/cputype.h` and
//! `arch/arm/include/asm/cputype.h`, util-linux `lscpu` part lists, and the names
//! sbc-bench prints (`tests/fixtures/cpuinfo/cpuinfo-core-types.tsv`): Arm's own cores
//! without a vendor prefix (`Cortex-A76`, `Neoverse-N1`), every other implementer's cores
//! with one (`Qualcomm Kryo V2`, `Cavium ThunderX 88XX`, `NVidia Carmel`).

use serde::{Deserialize, Serialize};

/// The MIDR fields cpuinfo prints for one CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Midr {
    /// `CPU implementer` (0x41 = Arm).
    pub implementer: u32,
    /// `CPU part`.
    pub part: u32,
    /// `CPU variant` (the `r` of `rXpY`).
    pub variant: Option<u32>,
    /// `CPU revision` (the `p` of `rXpY`).
    pub revision: Option<u32>,
}

impl Midr {
    /// The core name, or a descriptive fallback naming the implementer and the raw part
    /// number when the part is not in the table (never a guess).
    pub fn core_name(&self) -> String {
        if let Some(n) = core_name(self.implementer, self.part) {
            return n.to_string();
        }
        match implementer_name(self.implementer) {
            Some(v) => format!("{v} part 0x{:03x}", self.part),
            None => format!(
                "implementer 0x{:02x} part 0x{:03x}",
                self.implementer, self.part
            ),
        }
    }

    /// `rXpY`, when both variant and revision are known.
    pub fn stepping(&self) -> Option<String> {
        Some(format!("r{}p{}", self.variant?, self.revision?))
    }
}

/// Implementer codes (MIDR bits 31:24) as assigned by Arm.
pub fn implementer_name(implementer: u32) -> Option<&'static str> {
    Some(match implementer {
        0x41 => "Arm",
        0x42 => "Broadcom",
        0x43 => "Cavium",
        0x44 => "DEC",
        0x46 => "Fujitsu",
        0x48 => "HiSilicon",
        0x49 => "Infineon",
        0x4d => "Motorola/Freescale",
        0x4e => "NVidia",
        0x50 => "APM",
        0x51 => "Qualcomm",
        0x53 => "Samsung",
        0x56 => "Marvell",
        0x61 => "Apple",
        0x63 => "ARM China",
        0x66 => "Faraday",
        0x68 => "HXT",
        0x69 => "Intel",
        0x6d => "Microsoft",
        0x70 => "Phytium",
        0xc0 => "Ampere",
        _ => return None,
    })
}

/// Name of the core with this implementer and part number, as sbc-bench prints it.
#[allow(
    clippy::too_many_lines,
    reason = "a lookup table: one line per implementer and part"
)]
pub fn core_name(implementer: u32, part: u32) -> Option<&'static str> {
    let name = match implementer {
        0x41 => arm(part)?,
        0x42 => match part {
            0x00f => "Broadcom Brahma B15",
            0x100 => "Broadcom Brahma B53",
            // Broadcom's Vulcan design, shipped by Cavium as ThunderX2 (Linux: VULCAN).
            0x516 => "Broadcom Vulcan",
            _ => return None,
        },
        0x43 => match part {
            0x0a0 => "Cavium ThunderX",
            0x0a1 => "Cavium ThunderX 88XX",
            0x0a2 => "Cavium ThunderX 81XX",
            0x0a3 => "Cavium ThunderX 83XX",
            0x0af => "Cavium ThunderX2 99xx",
            0x0b0 => "Cavium OcteonTX2",
            0x0b1 => "Cavium OcteonTX2 98XX",
            0x0b2 => "Cavium OcteonTX2 96XX",
            0x0b3 => "Cavium OcteonTX2 95XX",
            0x0b4 => "Cavium OcteonTX2 95XXN",
            0x0b5 => "Cavium OcteonTX2 95XXMM",
            0x0b6 => "Cavium OcteonTX2 95XXO",
            0x0b8 => "Cavium ThunderX3 T110",
            _ => return None,
        },
        0x44 => match part {
            0xa10 => "DEC SA110",
            0xa11 => "DEC SA1100",
            _ => return None,
        },
        0x46 => match part {
            0x001 => "Fujitsu A64FX",
            0x003 => "Fujitsu MONAKA",
            _ => return None,
        },
        0x48 => match part {
            0xd01 => "TaiShan v110",
            // Linux calls it HIP09; Kirin 9000s big cores report it too.
            0xd02 => "TaiShan v120",
            0xd03 => "TaiShan v130",
            0xd06 => "HiSilicon-HIP12",
            0xd40 => "HiSilicon-A76",
            0xd41 => "HiSilicon-A77",
            0xd42 => "HiSilicon-A710",
            _ => return None,
        },
        0x4e => match part {
            0x000 => "NVidia Denver",
            0x003 => "NVidia Denver 2",
            0x004 => "NVidia Carmel",
            0x010 => "NVidia Olympus",
            _ => return None,
        },
        0x50 => match part {
            0x000 => "APM X-Gene",
            _ => return None,
        },
        0x51 => match part {
            0x00f | 0x02d => "Qualcomm Scorpion",
            0x04d | 0x06f => "Qualcomm Krait",
            0x201 | 0x205 | 0x211 => "Qualcomm Kryo",
            0x800 => "Qualcomm Falkor V1/Kryo",
            0x801 => "Qualcomm Kryo V2",
            0x802 => "Qualcomm Kryo 3XX Gold",
            0x803 => "Qualcomm Kryo 3XX Silver",
            0x804 => "Qualcomm Kryo 4XX Gold",
            0x805 => "Qualcomm Kryo 4XX Silver",
            0xc00 => "Qualcomm Falkor",
            0xc01 => "Qualcomm Saphira",
            0x001 => "Qualcomm Oryon-X1",
            0x002 => "Qualcomm Oryon-X2",
            _ => return None,
        },
        // Samsung's custom "Mongoose" cores; M2 reports M1's part with variant 4.
        0x53 => match part {
            0x001 => "Samsung Exynos-m1",
            0x002 => "Samsung Exynos-m3",
            0x003 => "Samsung Exynos-m4",
            0x004 => "Samsung Exynos-m5",
            _ => return None,
        },
        0x56 => match part {
            0x131 => "Marvell Feroceon 88FR131",
            0x581 => "Marvell PJ4/PJ4b",
            0x584 => "Marvell PJ4B-MP",
            _ => return None,
        },
        0x61 => apple(part)?,
        0x63 => match part {
            0x132 => "Star-MC1",
            0xd25 => "Star-MC3",
            _ => return None,
        },
        0x66 => match part {
            0x526 => "Faraday FA526",
            0x626 => "Faraday FA626",
            _ => return None,
        },
        0x68 => match part {
            0x000 => "HXT Phecda",
            _ => return None,
        },
        0x69 => intel(part)?,
        0x6d => match part {
            // Neoverse-N2 based.
            0xd49 => "Azure Cobalt 100",
            _ => return None,
        },
        0x70 => match part {
            0x303 => "Phytium FTC310",
            0x660 => "Phytium FTC660",
            0x661 => "Phytium FTC661",
            0x662 => "Phytium FTC662",
            0x663 => "Phytium FTC663",
            0x664 => "Phytium FTC664",
            0x862 => "Phytium FTC862",
            _ => return None,
        },
        0xc0 => match part {
            0xac3 => "Ampere Ampere-1",
            0xac4 => "Ampere Ampere-1a",
            0xac5 => "Ampere Ampere-1b",
            0xac7 => "Ampere Ampere-1c",
            _ => return None,
        },
        // Implementer 0 is "reserved for software use": hypervisors and one vendor kernel.
        0x00 => match part {
            // Apple's hypervisor framework hands guests a zeroed MIDR.
            0x000 => "Virtualized Apple Silicon",
            // HiSilicon Ascend Hi1910 (TaiShan cores reporting implementer 0).
            0xd02 => "HiSilicon-1910",
            _ => return None,
        },
        _ => return None,
    };
    Some(name)
}

/// Arm Ltd. (implementer 0x41) cores: ARMv4 … ARMv9, Cortex-A/R/M, Neoverse, C1.
fn arm(part: u32) -> Option<&'static str> {
    Some(match part {
        0x810 => "ARM810",
        0x920 => "ARM920",
        0x922 => "ARM922",
        0x926 => "ARM926",
        0x940 => "ARM940",
        0x946 => "ARM946",
        0x966 => "ARM966",
        0xa20 => "ARM1020",
        0xa22 => "ARM1022",
        0xa26 => "ARM1026",
        0xb02 => "ARM11 MPCore",
        0xb36 => "ARM1136",
        0xb56 => "ARM1156",
        0xb76 => "ARM1176",
        0xc05 => "Cortex-A5",
        0xc07 => "Cortex-A7",
        0xc08 => "Cortex-A8",
        0xc09 => "Cortex-A9",
        0xc0c => "Cortex-A12",
        // The Cortex-A12 was renamed Cortex-A17; RK3288 reports 0xc0d.
        0xc0d | 0xc0e => "Cortex-A17",
        0xc0f => "Cortex-A15",
        0xc14 => "Cortex-R4",
        0xc15 => "Cortex-R5",
        0xc17 => "Cortex-R7",
        0xc18 => "Cortex-R8",
        0xc20 => "Cortex-M0",
        0xc21 => "Cortex-M1",
        0xc23 => "Cortex-M3",
        0xc24 => "Cortex-M4",
        0xc27 => "Cortex-M7",
        0xc60 => "Cortex-M0+",
        0xd00 => "Foundation",
        0xd01 => "Cortex-A32",
        0xd02 => "Cortex-A34",
        0xd03 => "Cortex-A53",
        0xd04 => "Cortex-A35",
        0xd05 => "Cortex-A55",
        0xd06 => "Cortex-A65",
        0xd07 => "Cortex-A57",
        0xd08 => "Cortex-A72",
        0xd09 => "Cortex-A73",
        0xd0a => "Cortex-A75",
        0xd0b => "Cortex-A76",
        0xd0c => "Neoverse-N1",
        0xd0d => "Cortex-A77",
        0xd0e => "Cortex-A76AE",
        0xd0f => "AEMv8",
        0xd13 => "Cortex-R52",
        0xd14 => "Cortex-R82AE",
        0xd15 => "Cortex-R82",
        0xd16 => "Cortex-R52+",
        0xd20 => "Cortex-M23",
        0xd21 => "Cortex-M33",
        0xd22 => "Cortex-M55",
        0xd23 => "Cortex-M85",
        0xd24 => "Cortex-M52",
        0xd40 => "Neoverse-V1",
        0xd41 => "Cortex-A78",
        0xd42 => "Cortex-A78AE",
        0xd43 => "Cortex-A65AE",
        0xd44 => "Cortex-X1",
        0xd46 => "Cortex-A510",
        0xd47 => "Cortex-A710",
        0xd48 => "Cortex-X2",
        0xd49 => "Neoverse-N2",
        0xd4a => "Neoverse-E1",
        0xd4b => "Cortex-A78C",
        0xd4c => "Cortex-X1C",
        0xd4d => "Cortex-A715",
        0xd4e => "Cortex-X3",
        0xd4f => "Neoverse-V2",
        0xd80 => "Cortex-A520",
        0xd81 => "Cortex-A720",
        0xd82 => "Cortex-X4",
        0xd83 => "Neoverse-V3AE",
        0xd84 => "Neoverse-V3",
        0xd85 => "Cortex-X925",
        0xd87 => "Cortex-A725",
        0xd88 => "Cortex-A520AE",
        0xd89 => "Cortex-A720AE",
        0xd8a => "C1-Nano",
        0xd8b => "C1-Pro",
        0xd8c => "C1-Ultra",
        0xd8e => "Neoverse-N3",
        0xd8f => "Cortex-A320",
        0xd90 => "C1-Premium",
        _ => return None,
    })
}

/// Apple (implementer 0x61): efficiency/performance core pairs per SoC generation.
fn apple(part: u32) -> Option<&'static str> {
    Some(match part {
        // A zeroed part is what Apple's hypervisor shows guests (a real Swift core never
        // ran Linux), as sbc-bench also reports it.
        0x000 => "Virtualized Apple Silicon",
        0x001 => "Apple Cyclone",
        0x002 => "Apple Typhoon",
        0x003 => "Apple Typhoon/Capri",
        0x004 => "Apple Twister",
        0x005 => "Apple Twister/Elba/Malta",
        0x006 => "Apple Hurricane",
        0x007 => "Apple Hurricane/Myst",
        0x008 => "Apple Monsoon",
        0x009 => "Apple Mistral",
        0x00b => "Apple Vortex",
        0x00c => "Apple Tempest",
        0x00f => "Apple Tempest-M9",
        0x010 => "Apple Vortex-Aruba",
        0x011 => "Apple Tempest-Aruba",
        0x012 => "Apple Lightning",
        0x013 => "Apple Thunder",
        0x020 => "Apple Icestorm A14",
        0x021 => "Apple Firestorm A14",
        0x022 => "Apple Icestorm M1",
        0x023 => "Apple Firestorm M1",
        0x024 => "Apple Icestorm M1Pro",
        0x025 => "Apple Firestorm M1Pro",
        0x026 => "Apple Thunder-M10",
        0x028 => "Apple Icestorm M1Max",
        0x029 => "Apple Firestorm M1Max",
        0x030 => "Apple Blizzard A15",
        0x031 => "Apple Avalanche A15",
        0x032 => "Apple Blizzard M2",
        0x033 => "Apple Avalanche M2",
        0x034 => "Apple Blizzard M2Pro",
        0x035 => "Apple Avalanche M2Pro",
        0x038 => "Apple Blizzard M2Max",
        0x039 => "Apple Avalanche M2Max",
        0x040 => "Apple Sawtooth A16",
        0x041 => "Apple Everest A16",
        0x042 => "Apple Sawtooth M3",
        0x043 => "Apple Everest M3",
        0x044 => "Apple Sawtooth M3Pro",
        0x045 => "Apple Everest M3Pro",
        0x046 => "Apple Sawtooth M11",
        0x048 => "Apple Sawtooth M3Max",
        0x049 => "Apple Everest M3Max",
        0x050 => "Apple Sawtooth A17Pro",
        0x051 => "Apple Everest A17Pro",
        0x052 => "Apple Efficiency M4",
        0x053 => "Apple Performance M4",
        0x054 => "Apple Efficiency M4Pro",
        0x055 => "Apple Performance M4Pro",
        0x058 => "Apple Efficiency M4Max",
        0x059 => "Apple Performance M4Max",
        _ => return None,
    })
}

/// Intel (implementer 0x69): StrongARM/XScale (PXA, IXP, IOP).
fn intel(part: u32) -> Option<&'static str> {
    Some(match part {
        0x200 => "Intel i80200",
        0x210 => "Intel PXA250A",
        0x212 => "Intel PXA210A",
        0x242 => "Intel i80321-400",
        0x243 => "Intel i80321-600",
        0x290 => "Intel PXA250B/PXA26x",
        0x292 => "Intel PXA210B",
        0x2c2 => "Intel i80321-400-B0",
        0x2c3 => "Intel i80321-600-B0",
        0x2d0 => "Intel PXA250C/PXA255/PXA26x",
        0x2d2 => "Intel PXA210C",
        0x411 => "Intel PXA27x",
        0x41c => "Intel IXP425-533",
        0x41d => "Intel IXP425-400",
        0x41f => "Intel IXP425-266",
        0x682 => "Intel PXA32x",
        0x683 => "Intel PXA930/PXA935",
        0x688 => "Intel PXA30x",
        0x689 => "Intel PXA31x",
        0xb11 => "Intel SA1110",
        0xc12 => "Intel IXP1200",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(implementer: u32, part: u32, v: u32, r: u32) -> Midr {
        Midr {
            implementer,
            part,
            variant: Some(v),
            revision: Some(r),
        }
    }

    #[test]
    fn names_and_steppings() {
        assert_eq!(m(0x41, 0xd0b, 4, 0).core_name(), "Cortex-A76");
        assert_eq!(m(0x41, 0xd0b, 4, 0).stepping().as_deref(), Some("r4p0"));
        assert_eq!(m(0x51, 0x805, 13, 14).stepping().as_deref(), Some("r13p14"));
        assert_eq!(m(0x43, 0x0a1, 1, 1).core_name(), "Cavium ThunderX 88XX");
        assert_eq!(m(0x41, 0xd85, 0, 1).core_name(), "Cortex-X925");
        assert_eq!(m(0x41, 0xd8e, 0, 0).core_name(), "Neoverse-N3");
        assert_eq!(m(0x4e, 0x004, 0, 0).core_name(), "NVidia Carmel");
    }

    #[test]
    fn unknown_parts_are_not_guessed() {
        assert_eq!(m(0x41, 0xfff, 0, 0).core_name(), "Arm part 0xfff");
        assert_eq!(
            m(0x99, 0x001, 0, 0).core_name(),
            "implementer 0x99 part 0x001"
        );
        let no_rev = Midr {
            implementer: 0x41,
            part: 0xd03,
            variant: Some(0),
            revision: None,
        };
        assert_eq!(no_rev.stepping(), None);
    }
}
