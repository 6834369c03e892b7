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
#[allow(
    clippy::too_many_lines,
    reason = "a table of corpus files and what we print for them"
)]
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

// ---------------------------------------------------------------------------------------
// SoC guess

use sbc_bench::sys::soc::{self, CoreGroup, SocInputs};

/// `4x1512:Cortex-A53 / r0p4;2x-:Cortex-A76 / r4p0` → core groups.
fn parse_cores(s: &str) -> Vec<CoreGroup> {
    s.split(';')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, rest) = p.split_once('x').expect("count");
            let (mhz, core) = rest.split_once(':').expect("mhz");
            let (t, stepping) = match core.rsplit_once(" / ") {
                Some((t, s)) => (t, Some(s.to_string())),
                None => (core, None),
            };
            CoreGroup {
                core_type: if t.is_empty() || t == "-" {
                    "unknown".into()
                } else {
                    t.into()
                },
                stepping,
                count: n.parse().expect("count"),
                max_mhz: mhz.parse().ok(),
            }
        })
        .collect()
}

/// Every `SoC guess` of the corpus logs (133 runs of sbc-bench on real boards), rebuilt
/// from what the log shows — device-tree compatible, cores with steppings and clocks — and
/// compared with our guess as reviewed against sbc-bench's (which also used dmesg and
/// nvmem, not in the logs). Where sbc-bench could tell more only from those, we say less
/// (a family, or unknown) rather than guess.
#[test]
fn soc_guess_from_corpus_logs() {
    let tsv = read("soc-from-logs.tsv");
    let mut failures = Vec::new();
    let mut rows = 0;
    let mut known = 0;
    for line in tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "{line}");
        let cores = parse_cores(f[3]);
        let riscv = cores.iter().any(|g| {
            let t = g.core_type.to_ascii_lowercase();
            t.starts_with("rv64") || t.contains(',')
        });
        let inputs = SocInputs {
            compatible: f[2]
                .split('|')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            arch: Some(if riscv { CpuArch::Riscv } else { CpuArch::Arm }),
            cores,
            ..Default::default()
        };
        let g = soc::guess(&inputs);
        let got = g.guess.clone().unwrap_or_else(|| "-".into());
        if got != f[4] {
            failures.push(format!(
                "{}\t{got}\t(sbc-bench: {}) {:?}",
                f[0], f[1], g.basis
            ));
        }
        assert!(!g.basis.is_empty(), "{}: a guess without basis", f[0]);
        rows += 1;
        known += usize::from(g.guess.is_some());
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(rows, 133);
    assert!(known >= 100, "only {known} of {rows} guessed");
}

/// A cpuinfo file alone (sbc-bench's `CPUINFOFILE`): every corpus file, with the guess
/// we give for it. The file name starts with the real SoC, so each row was reviewed
/// against it; most are honest `-`, never a wrong chip.
#[test]
fn soc_guess_from_cpuinfo_only() {
    let tsv = read("soc-from-cpuinfo.tsv");
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (file, want) = line.split_once('\t').expect("two columns");
        let inputs = soc::from_cpuinfo(&CpuInfo::parse(&read(file)));
        let g = soc::guess(&inputs);
        let got = g.guess.clone().unwrap_or_else(|| "-".into());
        if got != want {
            failures.push(format!("{file}\t{got}\t{:?}", g.basis));
        }
        rows += 1;
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(rows, 189);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Hostile SoC inputs (random compatibles, Hardware, serials, nvmem bytes) never panic
    /// and a guess always says what it rests on.
    #[test]
    fn soc_guess_never_panics(
        compat in prop::collection::vec("[a-z0-9, -]{0,20}", 0..5),
        hw in proptest::option::of("\\PC{0,40}"),
        rev in proptest::option::of("[0-9a-fx]{0,9}"),
        serial in proptest::option::of("[0-9a-f\u{fffd}]{0,12}"),
        nvmem in prop::collection::vec(any::<u8>(), 0..64),
        model in proptest::option::of("\\PC{0,30}"),
        types in prop::collection::vec(("[A-Za-z0-9 -]{0,16}", 1usize..8), 0..4),
    ) {
        let mut nv = b"RK".to_vec();
        nv.extend_from_slice(&nvmem);
        let row = soc::rockchip_row(&nv);
        let inputs = SocInputs {
            compatible: compat,
            cpuinfo_hardware: hw,
            cpuinfo_revision: rev,
            cpuinfo_serial: serial,
            model_name: model,
            arch: Some(CpuArch::Arm),
            core_types: types,
            rockchip_id: row.map(|r| r.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")),
            allwinner_sid: soc::allwinner_sid_word(&nvmem),
            ..Default::default()
        };
        let g = soc::guess(&inputs);
        prop_assert!(!g.basis.is_empty());
        if let Some(name) = &g.guess {
            prop_assert!(!name.trim().is_empty());
        }
    }
}
