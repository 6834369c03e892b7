//! Core-type decoding of every real cpuinfo in `tests/fixtures/cpuinfo/` against the names
//! sbc-bench gives them (`cpuinfo-core-types.tsv`), and robustness of the parser.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use sbc_bench::sys::cpu::cpuinfo::CpuInfo;
use sbc_bench::sys::cpu::ident::{self, CpuArch};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cpuinfo")
}

fn read(name: &str) -> String {
    let bytes = fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn label(t: &str, s: &Option<String>) -> String {
    match s {
        Some(s) => format!("{t} / {s}"),
        None => t.to_string(),
    }
}

/// Every file of the tsv decodes to exactly sbc-bench's core types and steppings: CPU by
/// CPU where the kernel prints one block per CPU, as a set where it prints one for all.
#[test]
fn corpus_matches_sbc_bench_core_types() {
    let tsv = read("cpuinfo-core-types.tsv");
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in tsv.lines().filter(|l| !l.trim().is_empty()) {
        let Some((file, expected)) = line.split_once('\t') else {
            panic!("bad tsv line {line:?}");
        };
        let want: Vec<&str> = expected.split(',').map(str::trim).collect();
        let info = CpuInfo::parse(&read(file));
        let id = ident::decode(&info);
        assert_eq!(id.arch, Some(CpuArch::Arm), "{file}");
        let got: Vec<String> = id
            .cpus
            .values()
            .map(|c| label(c.core_type.as_deref().unwrap_or("n/a"), &c.stepping))
            .collect();
        let distinct: BTreeSet<String> = id.distinct.iter().map(|(t, s)| label(t, s)).collect();
        let want_set: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
        if distinct != want_set {
            failures.push(format!("{file}: distinct {distinct:?} != {want_set:?}"));
        }
        if !info.shared_identity && got != want {
            failures.push(format!("{file}: per CPU {got:?} != {want:?}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, 169);
}

/// Files sbc-bench's tsv does not cover (RISC-V, LoongArch, MIPS, the Kirin 920's
/// two-cluster lines), with what we print for them.
#[test]
fn corpus_files_outside_the_tsv() {
    let cases: &[(&str, Option<CpuArch>, &[&str])] = &[
        (
            "Allwinner-D1-5.17.0-rc2.cpuinfo",
            Some(CpuArch::Riscv),
            &["T-Head C906"],
        ),
        (
            "Eswin-EIC7700X-6.6.21.cpuinfo",
            Some(CpuArch::Riscv),
            &["SiFive P550"],
        ),
        (
            "Eswin-EIC7702X-6.6.92-eic7x-2025.07.cpuinfo",
            Some(CpuArch::Riscv),
            &["SiFive P550"],
        ),
        (
            "HiSilicon-Kirin-920.cpuinfo",
            Some(CpuArch::Arm),
            &["Cortex-A7 / r0p5", "Cortex-A15 / r3p3"],
        ),
        (
            "Kendryte-K210-5.1.0-rc5.cpuinfo",
            Some(CpuArch::Riscv),
            &["rv64imafdc"],
        ),
        (
            "Kendryte-K510-4.17.0.cpuinfo",
            Some(CpuArch::Riscv),
            &["rv64i2p0m2p0a2p0f2p0d2p0c2p0xv5-0p0"],
        ),
        (
            "Loongson-2K1000-4.19.0.cpuinfo",
            Some(CpuArch::Mips),
            &["Loongson-2K1000"],
        ),
        (
            "Loongson-3A3000-5.4.211-aosc-lemote.cpuinfo",
            Some(CpuArch::Mips),
            &["Loongson-3A3000"],
        ),
        (
            "Loongson-3A5000-H-4.19.0-17-loongson-3.cpuinfo",
            Some(CpuArch::Loongarch),
            &["Loongson-3A5000-H"],
        ),
        (
            "Loongson-3A5000-HV-4.19.0-loongson-3.cpuinfo",
            Some(CpuArch::Loongarch),
            &["Loongson-3A5000-HV"],
        ),
        (
            "Loongson-3A5000M-4.19.0.cpuinfo",
            Some(CpuArch::Loongarch),
            &["Loongson-3A5000M"],
        ),
        (
            "Loongson-3A6000-4.19.0-loongson-3.cpuinfo",
            Some(CpuArch::Loongarch),
            &["Loongson-3A6000"],
        ),
        (
            "Loongson-3C6000-6.12.cpuinfo",
            Some(CpuArch::Loongarch),
            &["Loongson-3C6000"],
        ),
        (
            "Renesas-RZ:Five-R9A07G043-6.0.cpuinfo",
            Some(CpuArch::Riscv),
            &["Andes AX45MP"],
        ),
        (
            "SiFive-Freedom-U540-5.8.2.cpuinfo",
            Some(CpuArch::Riscv),
            &["SiFive U54-MC"],
        ),
        (
            "Sophon-SG2042-6.1.18.cpuinfo",
            Some(CpuArch::Riscv),
            &["rv64imafdcv"],
        ),
        (
            "SpacemiT-K1_M1-6.1.15.cpuinfo",
            Some(CpuArch::Riscv),
            &["SpacemiT X60"],
        ),
        (
            "StarFive-JH7110-5.15.0.cpuinfo",
            Some(CpuArch::Riscv),
            &["SiFive U74-MC"],
        ),
        (
            "T-Head-C910-5.10.4.cpuinfo",
            Some(CpuArch::Riscv),
            &["rv64imafdcsu"],
        ),
        (
            "T-Head-TH1520-5.10.113.cpuinfo",
            Some(CpuArch::Riscv),
            &["rv64imafdcvsu"],
        ),
    ];
    let mut failures = Vec::new();
    for (file, arch, want) in cases {
        let id = ident::decode(&CpuInfo::parse(&read(file)));
        let got: Vec<String> = id.distinct.iter().map(|(t, s)| label(t, s)).collect();
        if id.arch != *arch || got != *want {
            failures.push(format!(
                "{file}: {:?} {got:?} != {arch:?} {want:?}",
                id.arch
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Together with the tsv this covers every file of the corpus.
    let total = fs::read_dir(dir())
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "cpuinfo"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(total, 169 + cases.len());
}

/// Every corpus file survives being truncated at any line, and CRLF conversion.
#[test]
fn corpus_truncated_and_crlf() {
    for e in fs::read_dir(dir())
        .expect("fixture dir")
        .filter_map(Result::ok)
    {
        let text = String::from_utf8_lossy(&fs::read(e.path()).expect("read")).into_owned();
        let full = ident::identify(&text);
        let crlf = ident::identify(&text.replace('\n', "\r\n"));
        assert_eq!(full, crlf, "{:?}", e.path());
        for cut in (0..text.len())
            .step_by(97)
            .filter(|&i| text.is_char_boundary(i))
        {
            let _ = ident::decode(&CpuInfo::parse(&text[..cut]));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary text never panics the parser or the decoder.
    #[test]
    fn any_text_never_panics(s in "\\PC*") {
        let _ = ident::decode(&CpuInfo::parse(&s));
    }

    /// cpuinfo-shaped garbage (real keys, random values, random separators) never panics,
    /// and unknown values give `None` or a named fallback, never an empty name.
    #[test]
    fn cpuinfo_shaped_garbage(lines in prop::collection::vec(
        (prop::sample::select(vec![
            "processor", "CPU implementer", "CPU part", "CPU variant", "CPU revision",
            "model name", "isa", "uarch", "mvendorid", "marchid", "hart", "Hardware",
            "vendor_id", "cpu family", "model", "cpu model", "Processor", "", "cpu", "timebase",
        ]), "[ -~\\t&\u{fffd}]{0,24}", prop::sample::select(vec!["\n", "\r\n", "\n\n", ""])),
        0..40,
    )) {
        let text: String = lines.iter().map(|(k, v, sep)| format!("{k}\t: {v}{sep}")).collect();
        let id = ident::decode(&CpuInfo::parse(&text));
        for c in id.cpus.values() {
            if let Some(t) = &c.core_type {
                prop_assert!(!t.trim().is_empty());
            }
        }
    }

    /// Latin-1 bytes decoded lossily, as `SysRoot::read` does, never panic either.
    #[test]
    fn lossy_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = ident::identify(&s);
    }
}
