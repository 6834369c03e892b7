//! What kind of core each CPU is, decoded from the *content* of `/proc/cpuinfo` (never from
//! the host's architecture, so an ARM cpuinfo decodes correctly on an x86 machine).
//!
//! - Arm: MIDR implementer/part → name ([`midr`](super::midr)), stepping `rXpY` from variant/revision;
//! - RISC-V: machine ID registers, `uarch`, `model name`, else the raw `isa` ([`riscv`]);
//! - x86: the `model name` shortened as sbc-bench prints it ([`x86`]); the hybrid
//!   P-core/E-core split needs sysfs and is applied by `Topology::read`;
//! - LoongArch/MIPS: the `model name` (its bracketed part when there is one) or `cpu model`;
//! - PowerPC: the `cpu` line.
//!
//! Unknown content gives `core_type: None` (shown as `n/a`), never a guess.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::cpuinfo::{Block, CpuInfo, parse_num};
use super::midr::Midr;
use super::riscv::{self, RiscvId};
use super::x86::{self, X86Id};

/// Instruction set family, as told by the file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuArch {
    /// 32- or 64-bit Arm.
    Arm,
    /// RISC-V.
    Riscv,
    /// x86 / x86_64.
    X86,
    /// LoongArch.
    Loongarch,
    /// MIPS (including Loongson's MIPS cores).
    Mips,
    /// POWER / PowerPC.
    Powerpc,
}

/// The identity of one CPU as far as cpuinfo tells.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreIdent {
    /// Core name as sbc-bench prints it (`Cortex-A55`, `Neoverse-N1`, `Celeron J4125 @ 2.00GHz`).
    pub core_type: Option<String>,
    /// Revision as `rXpY` on Arm; `None` elsewhere (sbc-bench prints none there either).
    pub stepping: Option<String>,
    /// Instruction set family, from the file's content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<CpuArch>,
    /// Raw Arm MIDR fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub midr: Option<Midr>,
    /// Raw RISC-V machine ID registers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub riscv: Option<RiscvId>,
    /// Raw x86 CPUID family/model/stepping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x86: Option<X86Id>,
    /// True when this identity comes from the one block old kernels print for all CPUs. It
    /// then describes whichever CPU read the file: on big.LITTLE SoCs the other cluster's
    /// core type is not in the file at all.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
}

/// Everything decoded from one cpuinfo file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Instruction set family, `None` when the content does not tell.
    pub arch: Option<CpuArch>,
    /// Identity per listed CPU number.
    #[serde(default)]
    pub cpus: BTreeMap<u32, CoreIdent>,
    /// Distinct (core type, stepping) pairs in file order. HiSilicon's Kirin 920 kernel
    /// prints `CPU part : 0xc07 & 0xc0f`: both cores appear here, though which CPU is which
    /// is not in the file.
    #[serde(default)]
    pub distinct: Vec<(String, Option<String>)>,
}

/// Decode every `processor` block of a cpuinfo text. Keys are the CPU numbers; CPUs the
/// file does not list (offline CPUs on arm64 kernels) are absent. Old kernels that print
/// one identity for all CPUs give every listed CPU that identity with `shared: true`.
pub fn identify(cpuinfo: &str) -> BTreeMap<u32, CoreIdent> {
    decode(&CpuInfo::parse(cpuinfo)).cpus
}

/// Decode a parsed cpuinfo.
pub fn decode(info: &CpuInfo) -> Identity {
    let arch = detect_arch(info);
    let mut out = Identity {
        arch,
        ..Default::default()
    };
    let numbers = info.processors();
    if info.shared_identity {
        let empty = Block::default();
        let id = decode_block(info, &empty, arch, true);
        for n in numbers {
            out.cpus.insert(n, id.clone());
        }
    } else {
        for (i, block) in info.blocks.iter().enumerate() {
            let n = block.processor.unwrap_or(i as u32);
            out.cpus.insert(n, decode_block(info, block, arch, false));
        }
        if info.blocks.is_empty() {
            if let Some(n) = numbers.first() {
                let empty = Block::default();
                out.cpus.insert(*n, decode_block(info, &empty, arch, true));
            }
        }
    }
    for id in out.cpus.values() {
        let (Some(t), s) = (&id.core_type, &id.stepping) else {
            continue;
        };
        // Kirin 920 style `A & B` values list one entry per cluster.
        let types: Vec<&str> = t.split(" & ").collect();
        let steps: Vec<Option<&str>> = match s {
            Some(s) => s.split(" & ").map(Some).collect(),
            None => vec![None; types.len()],
        };
        for (k, t) in types.iter().enumerate() {
            let pair = (
                t.to_string(),
                steps.get(k).copied().flatten().map(str::to_string),
            );
            if !out.distinct.contains(&pair) {
                out.distinct.push(pair);
            }
        }
    }
    out
}

/// Which instruction set the file describes, judged by its keys and values.
pub fn detect_arch(info: &CpuInfo) -> Option<CpuArch> {
    if info.first("CPU implementer").is_some() || info.first("CPU part").is_some() {
        return Some(CpuArch::Arm);
    }
    let isa = info.first("isa").unwrap_or("");
    if riscv::is_riscv_isa(isa)
        || info.first("uarch").is_some()
        || info.first("mvendorid").is_some()
        || info.first("hart").is_some()
    {
        return Some(CpuArch::Riscv);
    }
    // x86 always prints `flags`; s390x also has a `vendor_id` (`IBM/S390`) but no flags.
    let vendor = info.first("vendor_id").unwrap_or("");
    if info.first("flags").is_some()
        && (!vendor.is_empty() || info.first("cpu family").is_some())
        && !vendor.starts_with("IBM")
    {
        return Some(CpuArch::X86);
    }
    let family = info.first_ci("cpu family").unwrap_or("");
    if isa.contains("loongarch") || family.starts_with("Loongson") {
        return Some(CpuArch::Loongarch);
    }
    if info.first("cpu model").is_some() || isa.starts_with("mips") {
        return Some(CpuArch::Mips);
    }
    if info.first("timebase").is_some() && info.first("cpu").is_some() {
        return Some(CpuArch::Powerpc);
    }
    let processor = info.global("Processor").unwrap_or("");
    if processor.starts_with("ARM")
        || processor.starts_with("AArch64")
        || processor.contains("ARMv")
    {
        return Some(CpuArch::Arm);
    }
    None
}

fn decode_block(info: &CpuInfo, b: &Block, arch: Option<CpuArch>, shared: bool) -> CoreIdent {
    let mut id = CoreIdent {
        arch,
        shared,
        ..Default::default()
    };
    match arch {
        Some(CpuArch::Arm) => decode_arm(info, b, &mut id),
        Some(CpuArch::Riscv) => decode_riscv(info, b, &mut id),
        Some(CpuArch::X86) => {
            let model = info.value_for(b, "model name");
            id.core_type = model.and_then(x86::clean_model_name);
            let num = |k: &str| info.value_for(b, k).and_then(parse_num).map(|v| v as u32);
            if let (Some(family), Some(model)) = (num("cpu family"), num("model")) {
                id.x86 = Some(X86Id {
                    family,
                    model,
                    stepping: num("stepping"),
                });
            }
        }
        Some(CpuArch::Loongarch) | Some(CpuArch::Mips) => {
            let model = b
                .get_ci("model name")
                .or_else(|| info.first_ci("model name"));
            id.core_type = model
                .and_then(loongson_name)
                .or_else(|| info.value_for(b, "cpu model").and_then(squeeze));
        }
        Some(CpuArch::Powerpc) => {
            id.core_type = info.value_for(b, "cpu").and_then(|c| {
                let c = c.split(',').next().unwrap_or(c);
                squeeze(c.trim_end_matches("(raw)"))
            });
        }
        None => {
            id.core_type = info.value_for(b, "model name").and_then(squeeze);
        }
    }
    id
}

fn decode_arm(info: &CpuInfo, b: &Block, id: &mut CoreIdent) {
    let get = |k: &str| info.value_for(b, k);
    let parts = split_multi(get("CPU part"));
    if parts.is_empty() {
        return;
    }
    let imps = split_multi(get("CPU implementer"));
    let vars = split_multi(get("CPU variant"));
    let revs = split_multi(get("CPU revision"));
    let mut decoded: Vec<Midr> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        // One implementer for several parts is the usual Kirin 920 shape.
        let imp = imps.get(i).or_else(|| imps.first()).copied().flatten();
        let (Some(implementer), Some(part)) = (imp, *part) else {
            continue;
        };
        decoded.push(Midr {
            implementer: implementer as u32,
            part: part as u32,
            variant: vars.get(i).copied().flatten().map(|v| v as u32),
            revision: revs.get(i).copied().flatten().map(|v| v as u32),
        });
    }
    match decoded.as_slice() {
        [] => {}
        [one] => {
            id.core_type = Some(one.core_name());
            id.stepping = one.stepping();
            id.midr = Some(*one);
        }
        many => {
            let names: Vec<String> = many.iter().map(Midr::core_name).collect();
            id.core_type = Some(names.join(" & "));
            let steps: Option<Vec<String>> = many.iter().map(Midr::stepping).collect();
            id.stepping = steps.map(|s| s.join(" & "));
        }
    }
}

/// `0xc07 & 0xc0f` → `[Some(0xc07), Some(0xc0f)]`; a single value → one element.
fn split_multi(v: Option<&str>) -> Vec<Option<u64>> {
    match v {
        None => Vec::new(),
        Some(v) => v.split('&').map(parse_num).collect(),
    }
}

fn decode_riscv(info: &CpuInfo, b: &Block, id: &mut CoreIdent) {
    let get = |k: &str| info.value_for(b, k);
    if let Some(mvendorid) = get("mvendorid").and_then(parse_num) {
        id.riscv = Some(RiscvId {
            mvendorid,
            marchid: get("marchid").and_then(parse_num),
            mimpid: get("mimpid").and_then(parse_num),
        });
    }
    let uarch = get("uarch").filter(|s| !s.is_empty());
    id.core_type = id
        .riscv
        .as_ref()
        .and_then(riscv::core_from_ids)
        .map(str::to_string)
        .or_else(|| uarch.and_then(riscv::core_from_uarch))
        .or_else(|| get("model name").and_then(riscv::clean_model_name))
        .or_else(|| uarch.map(str::to_string))
        .or_else(|| get("isa").filter(|s| !s.is_empty()).map(str::to_string));
}

/// `Loongson-3A R3 (Loongson-3A3000) @ 1400MHz` → `Loongson-3A3000`,
/// `Loongson-2K1000 Lemote @ 1000MHz` → `Loongson-2K1000`; others as printed.
pub fn loongson_name(model: &str) -> Option<String> {
    if let Some((_, rest)) = model.split_once('(') {
        if let Some((inner, _)) = rest.split_once(')') {
            if let Some(s) = squeeze(inner) {
                return Some(s);
            }
        }
    }
    if model.trim_start().starts_with("Loongson-") {
        return model.split_whitespace().next().map(str::to_string);
    }
    squeeze(model)
}

fn squeeze(s: &str) -> Option<String> {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RK3588 (ROCK 5B, 6.1 kernel): first A55 and first A76 blocks.
    const RK3588: &str = "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd05\nCPU revision\t: 0\n\nprocessor\t: 4\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x4\nCPU part\t: 0xd0b\nCPU revision\t: 0\n";

    #[test]
    fn arm_big_little() {
        let m = identify(RK3588);
        assert_eq!(m[&0].core_type.as_deref(), Some("Cortex-A55"));
        assert_eq!(m[&0].stepping.as_deref(), Some("r2p0"));
        assert_eq!(m[&4].core_type.as_deref(), Some("Cortex-A76"));
        assert_eq!(m[&4].stepping.as_deref(), Some("r4p0"));
        assert!(!m[&4].shared);
        assert_eq!(m[&4].arch, Some(CpuArch::Arm));
    }

    #[test]
    fn kirin_920_lists_both_clusters() {
        let s = "Processor\t: ARMv7 Processor rev 5 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 12.80\n\nprocessor\t: 4\nBogoMIPS\t: 38.40\n\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0 & 0x3\nCPU part\t: 0xc07 & 0xc0f\nCPU revision\t: 5 & 3\n\nHardware\t: Kirin920\n";
        let id = decode(&CpuInfo::parse(s));
        assert_eq!(
            id.distinct,
            vec![
                ("Cortex-A7".to_string(), Some("r0p5".to_string())),
                ("Cortex-A15".to_string(), Some("r3p3".to_string())),
            ]
        );
        assert!(id.cpus[&4].shared);
    }

    #[test]
    fn x86_and_others() {
        let x = identify(
            "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 190\nmodel name\t: Intel(R) N100\nstepping\t: 0\nflags\t\t: fpu\n",
        );
        assert_eq!(x[&0].core_type.as_deref(), Some("N100"));
        assert_eq!(x[&0].stepping, None);
        assert_eq!(x[&0].x86.map(|i| i.model), Some(190));
        let l = identify(
            "processor\t\t: 0\ncpu model\t\t: Loongson-3 V0.9  FPU V0.1\nmodel name\t\t: Loongson-3A R3 (Loongson-3A3000) @ 1400MHz\nisa\t\t\t: mips1 mips2\n",
        );
        assert_eq!(l[&0].core_type.as_deref(), Some("Loongson-3A3000"));
        assert_eq!(l[&0].arch, Some(CpuArch::Mips));
        let r = identify("processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdcvsu\nmmu\t\t: sv39\n");
        assert_eq!(r[&0].core_type.as_deref(), Some("rv64imafdcvsu"));
        let p = identify(
            "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 2166.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\ntimebase\t: 512000000\n",
        );
        assert_eq!(p[&0].core_type.as_deref(), Some("POWER9"));
    }

    #[test]
    fn nothing_known_is_none() {
        assert!(identify("").is_empty());
        let m = identify("processor : 0\nfoo : bar\n");
        assert_eq!(m[&0].core_type, None);
        // A part without an implementer is not guessed.
        let m = identify("processor : 0\nCPU part : 0xd03\n");
        assert_eq!(m[&0].core_type, None);
    }
}
