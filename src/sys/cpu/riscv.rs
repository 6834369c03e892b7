//! RISC-V core names from cpuinfo's `mvendorid`/`marchid`, `uarch`, `model name` or `isa`.
//!
//! Older kernels print only `isa` (and sometimes `uarch`); newer ones add the machine ID
//! registers. `mvendorid` is the JEDEC manufacturer ID (bank and code), `marchid` the
//! vendor's core design. sbc-bench prints the raw `uarch` or `isa`; we print a name when
//! the IDs or `uarch` tell one, and fall back to the same raw strings otherwise.

use serde::{Deserialize, Serialize};

/// The machine ID registers of one hart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiscvId {
    /// `mvendorid` (JEDEC ID: 0x489 SiFive, 0x5b7 T-Head, 0x710 SpacemiT, 0x31e Andes).
    pub mvendorid: u64,
    /// `marchid`.
    pub marchid: Option<u64>,
    /// `mimpid` (implementation version).
    pub mimpid: Option<u64>,
}

/// Vendor name for a `mvendorid`.
pub fn vendor_name(mvendorid: u64) -> Option<&'static str> {
    Some(match mvendorid {
        0x489 => "SiFive",
        0x5b7 => "T-Head",
        0x710 => "SpacemiT",
        0x31e => "Andes",
        _ => return None,
    })
}

/// Core name from the ID registers where vendor and architecture ID identify a design.
/// T-Head's cores report `marchid` 0, so C906/C910/C920 cannot be told apart this way.
pub fn core_from_ids(id: &RiscvId) -> Option<&'static str> {
    Some(match (id.mvendorid, id.marchid?) {
        // SiFive 7-series application core (JH7100/JH7110, FU740).
        (0x489, 0x8000_0000_0000_0007) => "SiFive U74",
        // SiFive Performance P550 (ESWIN EIC7700X).
        (0x489, 0x8000_0000_0000_0008) => "SiFive P550",
        (0x710, 0x8000_0000_5800_0001) => "SpacemiT X60",
        (0x31e, 0x8000_0000_0000_8a45) => "Andes AX45MP",
        _ => return None,
    })
}

/// Pretty name from a device-tree `uarch` (`sifive,u74-mc` → `SiFive U74-MC`), for the
/// vendors whose `uarch` names a core. Others (`eswin,eic770x` names the SoC) give `None`.
pub fn core_from_uarch(uarch: &str) -> Option<String> {
    let (vendor, model) = uarch.trim().split_once(',')?;
    let vendor = match vendor.trim() {
        "sifive" => "SiFive",
        "thead" => "T-Head",
        "andestech" => "Andes",
        "spacemit" => "SpacemiT",
        _ => return None,
    };
    let model = model.trim();
    if model.is_empty() || !model.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    Some(format!("{vendor} {}", model.to_ascii_uppercase()))
}

/// Clean a RISC-V `model name` (`Spacemit(R) X60` → `Spacemit X60`).
pub fn clean_model_name(s: &str) -> Option<String> {
    let s = s.replace("(R)", "").replace("(TM)", "");
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

/// True when an `isa` value is a RISC-V ISA string (`rv64imafdc…`).
pub fn is_riscv_isa(isa: &str) -> bool {
    let l = isa.trim().to_ascii_lowercase();
    l.starts_with("rv32") || l.starts_with("rv64") || l.starts_with("rv128")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_uarch() {
        let p550 = RiscvId {
            mvendorid: 0x489,
            marchid: Some(0x8000000000000008),
            mimpid: Some(0x6220425),
        };
        assert_eq!(core_from_ids(&p550), Some("SiFive P550"));
        let thead = RiscvId {
            mvendorid: 0x5b7,
            marchid: Some(0),
            mimpid: Some(0),
        };
        assert_eq!(core_from_ids(&thead), None);
        assert_eq!(
            core_from_uarch("sifive,u74-mc").as_deref(),
            Some("SiFive U74-MC")
        );
        assert_eq!(
            core_from_uarch("thead,c906").as_deref(),
            Some("T-Head C906")
        );
        assert_eq!(core_from_uarch("eswin,eic770x"), None);
        assert_eq!(core_from_uarch("thead,"), None);
        assert_eq!(
            clean_model_name("Spacemit(R) X60").as_deref(),
            Some("Spacemit X60")
        );
        assert!(is_riscv_isa("rv64imafdcv_zicbom"));
        assert!(!is_riscv_isa("loongarch32 loongarch64"));
    }
}
