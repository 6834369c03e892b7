//! 7-Zip's own benchmark (`7z b`), run as sbc-bench runs it, and its output parsed.
//!
//! Only scores of 7-Zip/p7zip 16.02 compare with the hundreds of published sbc-bench
//! results: the rating formulas and the LZMA encoder changed in later versions. Debian 12's
//! `p7zip-full` prints both `7-Zip [64] 26.02` and `p7zip Version 16.02`; sbc-bench reads the
//! `p7zip Version` line and takes it for 16.02, but the engine is 26.02 (it scored 2493
//! single-threaded here where a real 16.02 scored 2248). We take the version from the
//! `7-Zip` line, which names the engine that ran.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bench::{BenchError, external};
use crate::shutdown::CancellationToken;

/// The one version whose scores compare with published sbc-bench results.
pub const COMPARABLE_VERSION: &str = "16.02";

/// Binary names tried, in order: p7zip's `7za` (what sbc-bench uses), `7z`, 7-Zip's own
/// Linux build `7zz`, the reduced `7zr`.
pub const NAMES: [&str; 4] = ["7za", "7z", "7zz", "7zr"];

/// The bundled 7-Zip's file name: the static `7za` 16.02 that
/// `scripts/build-7za-16.02.sh` builds and the release artifacts carry.
pub const BUNDLED_NAME: &str = "7za";

/// Where the .deb installs the bundled `7za`.
pub const LIB_DIR: &str = "/usr/lib/sbc-bench";

/// Environment variable naming the one directory to look in instead of [`lib_dirs`]'s
/// (an unpacked tarball elsewhere; the integration tests, which must not find this
/// machine's).
pub const LIB_DIR_ENV: &str = "SBC_BENCH_LIBDIR";

/// The directories the bundled `7za` may lie in, besides next to the binary, in search
/// order: `$SBC_BENCH_LIBDIR` alone when set and not empty; else `<exe dir>/../lib/sbc-bench`
/// (`install.sh --prefix P` and the Ansible playbook put it in `P/lib/sbc-bench` beside
/// `P/bin/sbc-bench`), then [`LIB_DIR`] (the .deb). Issue 28, item 9: `install.sh`'s
/// default prefix put it where the binary never looked.
pub fn lib_dirs(exe_dir: Option<&Path>, env: Option<&OsStr>) -> Vec<PathBuf> {
    if let Some(d) = env.filter(|d| !d.is_empty()) {
        return vec![PathBuf::from(d)];
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(prefix) = exe_dir.and_then(Path::parent) {
        dirs.push(prefix.join("lib").join("sbc-bench"));
    }
    dirs.push(PathBuf::from(LIB_DIR));
    dirs.dedup();
    dirs
}

/// Where a 7-Zip was found, in search order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `7za` next to our own binary (the release tarball).
    NextToBinary,
    /// `7za` in one of [`lib_dirs`]: `$SBC_BENCH_LIBDIR`, `PREFIX/lib/sbc-bench` beside
    /// `PREFIX/bin`, [`LIB_DIR`] (the .deb).
    LibDir,
    /// The first of [`NAMES`] in `$PATH` (the distro's, or one built by hand).
    Path,
}

impl Origin {
    /// Next to the binary or in the lib dir: the one sbc-bench ships.
    pub fn bundled(self) -> bool {
        matches!(self, Self::NextToBinary | Self::LibDir)
    }
}

/// Find 7-Zip in search order: the bundled `7za` next to our binary (`exe_dir`), then in
/// each of `lib_dirs` ([`lib_dirs`]), then the first of [`NAMES`] in the `$PATH`-style
/// list `path`. Only executable files count.
pub fn locate(
    exe_dir: Option<&Path>,
    lib_dirs: &[PathBuf],
    path: Option<&OsStr>,
) -> Option<(PathBuf, Origin)> {
    if let Some(dir) = exe_dir
        && let Some(p) = external::find_in_dirs(&[dir.to_path_buf()], &[BUNDLED_NAME])
    {
        return Some((p, Origin::NextToBinary));
    }
    for dir in lib_dirs {
        if let Some(p) = external::find_in_dirs(std::slice::from_ref(dir), &[BUNDLED_NAME]) {
            return Some((p, Origin::LibDir));
        }
    }
    external::find_in(path?, &NAMES).map(|p| (p, Origin::Path))
}

/// An installed 7-Zip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SevenZip {
    /// Where it is.
    pub path: PathBuf,
    /// Which version the binary reports.
    pub version: Version,
    /// Where it was found.
    pub origin: Origin,
}

/// The versions a 7-Zip banner names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// The `7-Zip …` banner line, without the copyright.
    pub banner: Option<String>,
    /// The engine's version from the `7-Zip` line (`16.02`, `26.02`): what actually ran.
    pub engine: Option<String>,
    /// The `p7zip Version` line's number, which on Debian 12 is not the engine's.
    pub p7zip: Option<String>,
}

impl Version {
    /// How reports name this 7-Zip: `7-Zip 16.02 (bundled)` for the one sbc-bench ships,
    /// else the banner (`7-Zip (a) [64] 16.02`).
    pub fn label(&self, bundled: bool) -> String {
        if bundled {
            let engine = self.engine.as_deref().unwrap_or("of unknown version");
            format!("7-Zip {engine} (bundled)")
        } else {
            self.banner
                .clone()
                .unwrap_or_else(|| "unknown version".to_string())
        }
    }

    /// Are this binary's scores comparable with published sbc-bench results?
    pub fn comparable(&self) -> bool {
        self.engine.as_deref() == Some(COMPARABLE_VERSION)
    }

    /// The warning to print when they are not; `None` for 16.02.
    pub fn warning(&self) -> Option<String> {
        if self.comparable() {
            return None;
        }
        let engine = self.engine.as_deref().unwrap_or("of unknown version");
        let p7zip = match self.p7zip.as_deref() {
            Some(p) if Some(p) != self.engine.as_deref() => {
                format!(" (it calls itself p7zip {p}, but the engine that runs is {engine})")
            }
            _ => String::new(),
        };
        Some(format!(
            "7-Zip {engine}{p7zip}: scores of 7-Zip versions other than {COMPARABLE_VERSION} \
             are not comparable with published sbc-bench results"
        ))
    }
}

/// Parse the versions from a 7-Zip banner (the first lines of any 7-Zip output).
pub fn parse_version(text: &str) -> Version {
    let mut v = Version::default();
    for line in text.lines().map(str::trim) {
        if v.banner.is_none() && line.starts_with("7-Zip") {
            let banner = line.split(" Copyright").next().unwrap_or(line);
            let banner = banner.trim_end_matches([' ', ':']).to_string();
            v.engine = banner.split_whitespace().skip(1).find_map(version_token);
            v.banner = Some(banner);
        } else if v.p7zip.is_none()
            && let Some(rest) = line.strip_prefix("p7zip Version ")
        {
            v.p7zip = rest.split_whitespace().next().and_then(version_token);
        }
    }
    v
}

/// `16.02` → Some; `(a)`, `[64]` → None.
fn version_token(t: &str) -> Option<String> {
    let (a, b) = t.split_once('.')?;
    (!a.is_empty()
        && !b.is_empty()
        && a.chars().all(|c| c.is_ascii_digit())
        && b.chars().all(|c| c.is_ascii_digit()))
    .then(|| t.to_string())
}

/// One dictionary-size row of the benchmark table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DictRow {
    /// log2 of the dictionary size (22 = 4 MiB).
    pub dict_log2: u32,
    /// Compression speed in KiB/s of input.
    pub compress_kib_per_s: u64,
    /// CPU usage while compressing, percent of one core.
    pub compress_usage_pct: u64,
    /// Compression rating per 100 % usage, in MIPS.
    pub compress_ru_mips: u64,
    /// Compression rating in MIPS.
    pub compress_rating_mips: u64,
    /// Decompression speed in KiB/s of output.
    pub decompress_kib_per_s: u64,
    /// CPU usage while decompressing, percent.
    pub decompress_usage_pct: u64,
    /// Decompression rating per 100 % usage, in MIPS.
    pub decompress_ru_mips: u64,
    /// Decompression rating in MIPS.
    pub decompress_rating_mips: u64,
}

/// The parsed `7z b` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchTable {
    /// `# Benchmark threads:` as 7-Zip reported it.
    pub threads: Option<u32>,
    /// One row per dictionary size.
    #[serde(default)]
    pub dicts: Vec<DictRow>,
    /// `Avr:` compression rating in MIPS (sbc-bench's "Compression" score).
    pub compress_rating_mips: Option<u64>,
    /// `Avr:` decompression rating in MIPS (sbc-bench's "Decompression" score).
    pub decompress_rating_mips: Option<u64>,
    /// `Tot:` rating in MIPS: the score sbc-bench reports.
    pub total_rating_mips: u64,
    /// `Tot:` usage in percent.
    pub total_usage_pct: Option<u64>,
}

fn numbers(s: &str) -> Vec<u64> {
    s.split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// Parse `7z b` output (7-Zip 9.20, 16.02 and 2x layouts). `None` without a `Tot:` line
/// (7-Zip was killed, e.g. by the OOM killer, or printed an error).
pub fn parse_bench(text: &str) -> Option<BenchTable> {
    let mut t = BenchTable::default();
    let mut tot = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("RAM usage:") {
            if let Some((_, n)) = rest.split_once("# Benchmark threads:") {
                t.threads = n.trim().parse().ok();
            }
        } else if let Some(rest) = line.strip_prefix("Avr:") {
            let (l, r) = match rest.split_once('|') {
                Some((l, r)) => (numbers(l), numbers(r)),
                None => {
                    // 7-Zip 9.20 prints no bar on this line: two halves of equal length.
                    let n = numbers(rest);
                    let (l, r) = n.split_at(n.len() / 2);
                    (l.to_vec(), r.to_vec())
                }
            };
            t.compress_rating_mips = l.last().copied();
            t.decompress_rating_mips = r.last().copied();
        } else if let Some(rest) = line.strip_prefix("Tot:") {
            let n = numbers(rest);
            if n.len() >= 3 {
                tot = n.last().copied();
                t.total_usage_pct = Some(n[n.len() - 3]);
            }
        } else if let Some((head, rest)) = line.split_once(':')
            && head.len() <= 2
            && let Ok(dict_log2) = head.parse::<u32>()
            && let Some((l, r)) = rest.split_once('|')
        {
            let (l, r) = (numbers(l), numbers(r));
            if l.len() == 4 && r.len() == 4 {
                t.dicts.push(DictRow {
                    dict_log2,
                    compress_kib_per_s: l[0],
                    compress_usage_pct: l[1],
                    compress_ru_mips: l[2],
                    compress_rating_mips: l[3],
                    decompress_kib_per_s: r[0],
                    decompress_usage_pct: r[1],
                    decompress_ru_mips: r[2],
                    decompress_rating_mips: r[3],
                });
            }
        }
    }
    t.total_rating_mips = tot?;
    Some(t)
}

/// One finished `7z b` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRun {
    /// The CPU it was pinned to (single-threaded runs); `None` for all cores.
    pub cpu: Option<u32>,
    /// `-mmt=` passed.
    pub threads: u32,
    /// The parsed table.
    pub table: BenchTable,
    /// Wall-clock duration in seconds.
    pub elapsed_s: f64,
    /// What 7-Zip printed, as sbc-bench logs it.
    pub output: String,
}

impl SevenZip {
    /// Find 7-Zip ([`locate`]: bundled next to our binary, then in [`lib_dirs`], then
    /// `$PATH`) and read its banner; `None` when none is installed.
    pub fn find(cancel: &CancellationToken) -> Option<Self> {
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf));
        let env = std::env::var_os(LIB_DIR_ENV);
        let dirs = lib_dirs(exe_dir.as_deref(), env.as_deref());
        let path_var = std::env::var_os("PATH");
        let (path, origin) = locate(exe_dir.as_deref(), &dirs, path_var.as_deref())?;
        // Without arguments 7-Zip prints its banner and usage and exits.
        let out = external::run(&path, &[], None, Duration::from_secs(20), cancel).ok()?;
        Some(Self {
            version: parse_version(&format!("{}\n{}", out.stdout, out.stderr)),
            path,
            origin,
        })
    }

    /// Run `7z b -mmt=<threads> [-md=<dict>]` restricted to `cpus` (empty: anywhere);
    /// `cpu` in the result is set for a single-CPU restriction.
    pub fn bench(
        &self,
        threads: u32,
        cpus: &[u32],
        dict: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<BenchRun, BenchError> {
        let cpu = match cpus {
            [one] => Some(*one),
            _ => None,
        };
        let mut args = vec!["b".to_string(), format!("-mmt={threads}")];
        if let Some(d) = dict {
            args.push(format!("-md={d}"));
        }
        // 7-Zip sizes its passes to a few seconds each whatever the CPU speed; 20 minutes
        // is far beyond any healthy run.
        let out =
            external::run_on_cpus(&self.path, &args, cpus, Duration::from_secs(1200), cancel)?;
        match parse_bench(&out.stdout) {
            Some(table) => Ok(BenchRun {
                cpu,
                threads,
                table,
                elapsed_s: out.elapsed.as_secs_f64(),
                output: out.stdout,
            }),
            None => Err(BenchError::Failed(format!(
                "`{} {}` printed no Tot: line (exit status {}){}",
                self.path.display(),
                args.join(" "),
                out.status.map_or("signal".to_string(), |s| s.to_string()),
                out.stderr
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // p7zip 16.02 single-threaded on a Cortex-A76, from a published sbc-bench log
    // (corpus logs/1ULtUe.txt).
    const P7ZIP_1602: &str = "
7-Zip (a) [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21
p7zip Version 16.02 (locale=C,Utf16=off,HugeFiles=on,64 bits,4 CPUs LE)

LE
CPU Freq: - - - - - - - - -

RAM size:    4045 MB,  # CPU hardware threads:   4
RAM usage:    435 MB,  # Benchmark threads:      1

                       Compressing  |                  Decompressing
Dict     Speed Usage    R/U Rating  |      Speed Usage    R/U Rating
         KiB/s     %   MIPS   MIPS  |      KiB/s     %   MIPS   MIPS

22:       3234   100   3147   3146  |      39364   100   3362   3361
23:       3088   100   3148   3147  |      38686   100   3349   3349
24:       2984   100   3210   3209  |      37972   100   3334   3334
25:       2891   100   3303   3301  |      37187   100   3311   3310
----------------------------------  | ------------------------------
Avr:             100   3202   3201  |              100   3339   3338
Tot:             100   3271   3270
";

    // Debian 12's p7zip-full on this project's x86 VM (`7z b -mmt1`): a 26.02 engine that
    // also prints a `p7zip Version 16.02` line.
    const DEBIAN_2602: &str = "
7-Zip [64] 26.02 : Copyright (c) 1999-2026 Igor Pavlov : 2026-06-25
p7zip Version 16.02 (locale=C.UTF-8,Utf16=on,HugeFiles=on,64 bits,2 CPUs AMD EPYC (A10F11)  (LP))

 mt1
Compiler:  ver:12.2.0 GCC 12.2.0 : SSE2
Linux : 6.18.44-fc-v595 : #1 SMP PREEMPT_DYNAMIC @0 : x86_64 : KVMKVMKVM : [FB]~
PageSize:4KB HPS:2MB THPS:2MB THP:madvise hwcap:2 hwcap2:2
AMD EPYC
(A10F11)  (LP)

1T CPU Freq (MHz):  3578  3556  3611  3665  3670  3629  3559

RAM size:   24105 MB (LP),  # CPU hardware threads:   1 / 2 : 1
RAM usage:    437 MB (LP),  # Benchmark threads:      1

                       Compressing  |                  Decompressing
Dict     Speed Usage    R/U Rating  |      Speed Usage    R/U Rating
         KiB/s     %   MIPS   MIPS  |      KiB/s     %   MIPS   MIPS

22:       4220    99   4129   4106  |      57402   100   4899   4901
23:       3650   100   3706   3719  |      56115    99   4886   4857
24:       3531    99   3820   3797  |      53975    99   4784   4738
25:       3013    91   3760   3440  |      44097    85   4595   3925
----------------------------------  | ------------------------------
Avr:      3603    98   3854   3766  |      52897    96   4791   4605
Tot:              97   4322   4186
";

    // p7zip 9.20 (corpus logs), whose Avr: line has no bar.
    const P7ZIP_920: &str = "
7-Zip (A) 9.20  Copyright (c) 1999-2010 Igor Pavlov  2010-11-18
p7zip Version 9.20 (locale=en_US.UTF-8,Utf16=on,HugeFiles=on,4 CPUs)

RAM size:    2010 MB,  # CPU hardware threads:   4
RAM usage:    850 MB,  # Benchmark threads:      4

22:     564   100    549    549  |    10063   100    908    907
----------------------------------------------------------------
Avr:          100    573    573               100    909    908
Tot:          100    741    741
";

    fn exe(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn bundled_7za_is_found_before_the_path_next_to_the_binary_first() {
        let t = tempfile::tempdir().unwrap();
        let (bin, lib, usr) = (
            t.path().join("bin"),
            t.path().join("lib"),
            t.path().join("usr"),
        );
        let distro = exe(&usr, "7za");
        let path = std::env::join_paths([&usr]).unwrap();
        // Only the distro's: PATH.
        assert_eq!(
            locate(Some(&bin), std::slice::from_ref(&lib), Some(&path)),
            Some((distro.clone(), Origin::Path))
        );
        // The .deb's /usr/lib/sbc-bench/7za beats PATH.
        let in_lib = exe(&lib, "7za");
        assert_eq!(
            locate(Some(&bin), std::slice::from_ref(&lib), Some(&path)),
            Some((in_lib.clone(), Origin::LibDir))
        );
        // The tarball's 7za next to the binary beats both.
        let beside = exe(&bin, "7za");
        assert_eq!(
            locate(Some(&bin), std::slice::from_ref(&lib), Some(&path)),
            Some((beside, Origin::NextToBinary))
        );
        // No exe dir known (current_exe failed): the lib dir, then PATH.
        assert_eq!(
            locate(None, std::slice::from_ref(&lib), Some(&path)),
            Some((in_lib, Origin::LibDir))
        );
        assert!(Origin::NextToBinary.bundled() && Origin::LibDir.bundled());
        assert!(!Origin::Path.bundled());
    }

    /// `install.sh`'s default prefix put 7za in /usr/local/lib/sbc-bench, where the
    /// binary (/usr/local/bin/sbc-bench) never looked (issue 28, item 9).
    #[test]
    fn install_sh_default_prefix_7za_is_found_beside_bin() {
        let t = tempfile::tempdir().unwrap();
        let prefix = t.path().join("usr-local");
        let bin = prefix.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let dirs = lib_dirs(Some(&bin), None);
        assert_eq!(
            dirs,
            [prefix.join("lib/sbc-bench"), PathBuf::from(LIB_DIR)],
            "PREFIX/lib/sbc-bench, then the .deb's"
        );
        let installed = exe(&prefix.join("lib/sbc-bench"), "7za");
        assert_eq!(
            locate(Some(&bin), &dirs, None),
            Some((installed, Origin::LibDir))
        );
        // $SBC_BENCH_LIBDIR alone; an empty one is unset; /usr/bin -> /usr/lib/sbc-bench once.
        let env = t.path().join("env");
        assert_eq!(lib_dirs(Some(&bin), Some(env.as_os_str())), [env]);
        assert_eq!(
            lib_dirs(Some(Path::new("/usr/bin")), Some(OsStr::new(""))),
            [PathBuf::from(LIB_DIR)]
        );
    }

    #[test]
    fn only_an_executable_7za_counts_as_bundled() {
        let t = tempfile::tempdir().unwrap();
        let (bin, lib, usr) = (
            t.path().join("bin"),
            t.path().join("lib"),
            t.path().join("usr"),
        );
        // A 7z (not the bundled name) beside the binary, a non-executable 7za in the lib dir.
        exe(&bin, "7z");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("7za"), "").unwrap();
        let path = std::env::join_paths([&usr]).unwrap();
        assert_eq!(
            locate(Some(&bin), std::slice::from_ref(&lib), Some(&path)),
            None
        );
        assert_eq!(locate(Some(&bin), std::slice::from_ref(&lib), None), None);
        let zz = exe(&usr, "7zz");
        assert_eq!(
            locate(Some(&bin), std::slice::from_ref(&lib), Some(&path)),
            Some((zz, Origin::Path))
        );
    }

    #[test]
    fn bundled_label_names_the_engine() {
        let v = parse_version(P7ZIP_1602);
        assert_eq!(v.label(true), "7-Zip 16.02 (bundled)");
        assert_eq!(v.label(false), "7-Zip (a) [64] 16.02");
        assert_eq!(Version::default().label(false), "unknown version");
        assert_eq!(
            Version::default().label(true),
            "7-Zip of unknown version (bundled)"
        );
    }

    #[test]
    fn parses_p7zip_1602_table() {
        let t = parse_bench(P7ZIP_1602).unwrap();
        assert_eq!(t.total_rating_mips, 3270);
        assert_eq!(t.compress_rating_mips, Some(3201));
        assert_eq!(t.decompress_rating_mips, Some(3338));
        assert_eq!(t.threads, Some(1));
        assert_eq!(t.dicts.len(), 4);
        assert_eq!(t.dicts[3].dict_log2, 25);
        assert_eq!(t.dicts[3].compress_kib_per_s, 2891);
        assert_eq!(t.dicts[3].decompress_rating_mips, 3310);
    }

    #[test]
    fn parses_2602_table_with_speed_in_avr() {
        let t = parse_bench(DEBIAN_2602).unwrap();
        assert_eq!(t.total_rating_mips, 4186);
        assert_eq!(t.total_usage_pct, Some(97));
        assert_eq!(t.compress_rating_mips, Some(3766));
        assert_eq!(t.decompress_rating_mips, Some(4605));
        assert_eq!(t.dicts.len(), 4);
    }

    #[test]
    fn parses_920_without_bar() {
        let t = parse_bench(P7ZIP_920).unwrap();
        assert_eq!(t.total_rating_mips, 741);
        assert_eq!(t.compress_rating_mips, Some(573));
        assert_eq!(t.decompress_rating_mips, Some(908));
        assert_eq!(t.threads, Some(4));
    }

    #[test]
    fn killed_run_has_no_table() {
        let cut = &P7ZIP_1602[..P7ZIP_1602.find("Avr:").unwrap()];
        assert_eq!(parse_bench(cut), None);
        assert_eq!(parse_bench(""), None);
        assert_eq!(parse_bench("Tot: x y z\n"), None);
    }

    #[test]
    fn debian_2602_is_not_taken_for_1602() {
        let v = parse_version(DEBIAN_2602);
        assert_eq!(v.engine.as_deref(), Some("26.02"));
        assert_eq!(v.p7zip.as_deref(), Some("16.02"));
        assert_eq!(v.banner.as_deref(), Some("7-Zip [64] 26.02"));
        assert!(!v.comparable());
        let w = v.warning().unwrap();
        assert!(w.contains("p7zip 16.02") && w.contains("26.02"), "{w}");
    }

    #[test]
    fn real_1602_and_other_banners() {
        let v = parse_version(P7ZIP_1602);
        assert_eq!(v.engine.as_deref(), Some("16.02"));
        assert!(v.comparable() && v.warning().is_none());
        assert_eq!(v.banner.as_deref(), Some("7-Zip (a) [64] 16.02"));
        let v = parse_version(P7ZIP_920);
        assert_eq!(v.engine.as_deref(), Some("9.20"));
        let v = parse_version(
            "7-Zip (z) 22.01 (arm64) : Copyright (c) 1999-2022 Igor Pavlov : 2022-07-15\n",
        );
        assert_eq!(v.engine.as_deref(), Some("22.01"));
        assert_eq!(v.p7zip, None);
        assert!(v.warning().unwrap().starts_with("7-Zip 22.01:"));
        assert_eq!(parse_version("garbage\n"), Version::default());
    }
}
