//! What kind of core each CPU is, decoded from the *content* of `/proc/cpuinfo` (never from
//! the host's architecture, so an ARM cpuinfo decodes correctly on an x86 machine).
//!
//! This first version only understands the x86 `model name` and the Arm `CPU part` lines of
//! a few common cores; the full MIDR / RISC-V / hybrid-x86 decoding replaces it.

use std::collections::BTreeMap;

use serde::Serialize;

/// The identity of one CPU as far as cpuinfo tells.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CoreIdent {
    /// Core name as sbc-bench prints it (`Cortex-A55`, `Neoverse-N1`, `Intel Core i5-1135G7`).
    pub core_type: Option<String>,
    /// Revision as `rXpY` on Arm, `stepping N` elsewhere.
    pub stepping: Option<String>,
}

/// Decode every `processor` block of a cpuinfo text. Keys are the CPU numbers; CPUs the
/// file does not list (old kernels list one block for all) are absent.
pub fn identify(cpuinfo: &str) -> BTreeMap<u32, CoreIdent> {
    let mut out = BTreeMap::new();
    let mut cur: Option<u32> = None;
    let mut ident = CoreIdent::default();
    let mut variant: Option<u32> = None;
    let mut revision: Option<u32> = None;
    let flush = |cur: Option<u32>,
                 ident: &mut CoreIdent,
                 variant: &mut Option<u32>,
                 revision: &mut Option<u32>,
                 out: &mut BTreeMap<u32, CoreIdent>| {
        if let (Some(v), Some(r)) = (variant.take(), revision.take()) {
            ident.stepping = Some(format!("r{v}p{r}"));
        }
        if let Some(c) = cur {
            out.insert(c, std::mem::take(ident));
        } else {
            *ident = CoreIdent::default();
        }
    };
    for line in cpuinfo.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "processor" => {
                if let Ok(n) = v.parse() {
                    flush(cur, &mut ident, &mut variant, &mut revision, &mut out);
                    cur = Some(n);
                }
            }
            "model name" if ident.core_type.is_none() && !v.starts_with("ARMv") => {
                ident.core_type = Some(v.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            "CPU variant" => variant = parse_num(v),
            "CPU revision" => revision = parse_num(v),
            "CPU part" => {
                ident.core_type = match parse_num(v) {
                    Some(0xd03) => Some("Cortex-A53".into()),
                    Some(0xd05) => Some("Cortex-A55".into()),
                    Some(0xd08) => Some("Cortex-A72".into()),
                    Some(0xd0b) => Some("Cortex-A76".into()),
                    Some(0xc07) => Some("Cortex-A7".into()),
                    _ => None,
                }
            }
            _ => {}
        }
    }
    flush(cur, &mut ident, &mut variant, &mut revision, &mut out);
    out
}

fn parse_num(v: &str) -> Option<u32> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        v.parse().ok()
    }
}
