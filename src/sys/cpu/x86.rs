//! x86 CPU names: the `model name` shortened the way sbc-bench prints it, and the
//! microarchitectures of Intel's hybrid (P-core/E-core) designs.
//!
//! Hybrid CPUs cannot be told apart in `/proc/cpuinfo` (every CPU has the same model name);
//! the kernel's hybrid PMU lists them in `/sys/devices/cpu_core/cpus` (P) and
//! `/sys/devices/cpu_atom/cpus` (E), read by `Topology::read`.

use serde::{Deserialize, Serialize};

/// CPUID family/model/stepping as cpuinfo prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct X86Id {
    /// `cpu family`.
    pub family: u32,
    /// `model`.
    pub model: u32,
    /// `stepping`.
    pub stepping: Option<u32>,
}

/// Which kind of core a CPU of a hybrid x86 design is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HybridKind {
    /// Performance core (`cpu_core`).
    Performance,
    /// Efficiency core (`cpu_atom`).
    Efficiency,
}

impl HybridKind {
    /// `P-core` / `E-core`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Performance => "P-core",
            Self::Efficiency => "E-core",
        }
    }
}

/// Shorten a `model name` as sbc-bench does: `Intel(R) Celeron(R) CPU  J1900  @ 1.99GHz`
/// → `Celeron J1900 @ 1.99GHz`, `AMD Ryzen Embedded R1505G with Radeon Vega Gfx` →
/// `Ryzen Embedded R1505G`, `12th Gen Intel(R) Core(TM) i7-1260P` → `i7-1260P`.
/// Each rule removes its first occurrence only, in this order, like sbc-bench's `sed`.
pub fn clean_model_name(raw: &str) -> Option<String> {
    let mut s = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    remove_generation(&mut s);
    for pat in [
        "Core(TM) ",
        " Processor",
        "Intel(R) Xeon(R) CPU ",
        "Intel(R) ",
        "(R)",
        "CPU ",
    ] {
        remove_first(&mut s, pat, "");
    }
    remove_first(&mut s, " 0 @", " @");
    remove_first(&mut s, "AMD ", "");
    remove_first(&mut s, "Authentic ", "");
    if let Some(i) = s.find(" with ") {
        s.truncate(i);
    }
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// Remove `12th Gen ` / `8th Gen ` (one or two digits before `th Gen `).
fn remove_generation(s: &mut String) {
    let Some(i) = s.find("th Gen ") else {
        return;
    };
    let b = s.as_bytes();
    if i == 0 {
        return;
    }
    let mut start = i - 1;
    if i >= 2 && b[i - 2] == b'1' {
        start = i - 2;
    }
    if s.is_char_boundary(start) {
        s.replace_range(start..i + "th Gen ".len(), "");
    }
}

fn remove_first(s: &mut String, pat: &str, with: &str) {
    if let Some(i) = s.find(pat) {
        s.replace_range(i..i + pat.len(), with);
    }
}

/// Microarchitectures (P-core, E-core) of Intel's hybrid designs, by CPUID family 6 model.
/// Public facts from Intel's product documentation and Linux `intel-family.h`.
pub fn hybrid_uarch(id: &X86Id) -> Option<(&'static str, &'static str)> {
    if id.family != 6 {
        return None;
    }
    Some(match id.model {
        0x8a => ("Sunny Cove", "Tremont"),                  // Lakefield
        0x97 | 0x9a => ("Golden Cove", "Gracemont"),        // Alder Lake S/P
        0xb7 | 0xba | 0xbf => ("Raptor Cove", "Gracemont"), // Raptor Lake
        0xaa | 0xac => ("Redwood Cove", "Crestmont"),       // Meteor Lake
        0xbd => ("Lion Cove", "Skymont"),                   // Lunar Lake
        0xc5 | 0xc6 => ("Lion Cove", "Skymont"),            // Arrow Lake
        0xcc => ("Cougar Cove", "Darkmont"),                // Panther Lake
        _ => return None,
    })
}

/// The core type of one CPU of a hybrid design: the microarchitecture when known
/// (`Golden Cove (P-core)`), else the model name (`i7-1260P (E-core)`).
pub fn hybrid_core_type(id: Option<&X86Id>, model: Option<&str>, kind: HybridKind) -> String {
    let base = match (id.and_then(hybrid_uarch), kind) {
        (Some((p, _)), HybridKind::Performance) => p.to_string(),
        (Some((_, e)), HybridKind::Efficiency) => e.to_string(),
        (None, _) => model.unwrap_or("x86").to_string(),
    };
    format!("{base} ({})", kind.label())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_sbc_bench_prints_them() {
        // (lscpu/cpuinfo model name, what sbc-bench's logs show in the topology table)
        let cases = [
            (
                "Intel(R) Celeron(R) CPU  J1900  @ 1.99GHz",
                "Celeron J1900 @ 1.99GHz",
            ),
            (
                "Intel(R) Atom(TM) CPU N270   @ 1.60GHz",
                "Atom(TM) N270 @ 1.60GHz",
            ),
            (
                "Intel(R) Pentium(R) Silver N6005 @ 2.00GHz",
                "Pentium Silver N6005 @ 2.00GHz",
            ),
            ("Intel(R) Core(TM) i3-N305", "i3-N305"),
            (
                "AMD Ryzen Embedded R1505G with Radeon Vega Gfx",
                "Ryzen Embedded R1505G",
            ),
            (
                "AMD Athlon(tm) II X3 420e Processor",
                "Athlon(tm) II X3 420e",
            ),
            (
                "Intel(R) Celeron(R) CPU 5205U @ 1.90GHz",
                "Celeron 5205U @ 1.90GHz",
            ),
            ("AMD E-450 APU with Radeon(tm) HD Graphics", "E-450 APU"),
            (
                "Intel(R) Celeron(R) J4125 CPU @ 2.00GHz",
                "Celeron J4125 @ 2.00GHz",
            ),
            (
                "Intel(R) Atom(TM) x5-Z8300  CPU @ 1.44GHz",
                "Atom(TM) x5-Z8300 @ 1.44GHz",
            ),
            ("Intel(R) N100", "N100"),
            ("Intel(R) Core(TM) Ultra 9 185H", "Ultra 9 185H"),
            ("12th Gen Intel(R) Core(TM) i7-1260P", "i7-1260P"),
            (
                "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
                "E5-2680 v4 @ 2.40GHz",
            ),
            ("AMD EPYC", "EPYC"),
        ];
        for (raw, want) in cases {
            assert_eq!(clean_model_name(raw).as_deref(), Some(want), "{raw}");
        }
        assert_eq!(clean_model_name("   "), None);
        assert_eq!(clean_model_name("th Gen x"), Some("th Gen x".into()));
    }

    #[test]
    fn hybrid_names() {
        let adl = X86Id {
            family: 6,
            model: 0x9a,
            stepping: Some(3),
        };
        assert_eq!(
            hybrid_core_type(Some(&adl), Some("i7-1260P"), HybridKind::Performance),
            "Golden Cove (P-core)"
        );
        let unknown = X86Id {
            family: 6,
            model: 0x01,
            stepping: None,
        };
        assert_eq!(
            hybrid_core_type(Some(&unknown), Some("i7-9999X"), HybridKind::Efficiency),
            "i7-9999X (E-core)"
        );
    }
}
