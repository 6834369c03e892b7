//! Corpus coverage of the log reader: for every section of a result log, how many of the
//! published logs contain it (a plain marker in the text, found without the reader) and
//! how many yield it (the typed record holds it). Goal: every section at ≥ 98 %. The
//! table is printed (`cargo test --test it log_coverage -- --nocapture`, or
//! `scripts/corpus-coverage.sh`); the test fails naming the logs a section was lost in.
//! Files of the corpus that are no results (Geekbench pages, a /proc/cpuinfo, an empty
//! paste) are counted as such and must be refused by the reader, not read.

use std::fs;
use std::path::{Path, PathBuf};

use sbc_bench::record::log_record::{LogClockPhase, LogRecord};
use sbc_bench::results::document;
use sbc_bench::results::sbclog::{self, LogError};

/// One section: its name, whether the text contains it, whether the record yields it.
struct Section {
    name: &'static str,
    contains: fn(&[String]) -> bool,
    yields: fn(&LogRecord) -> bool,
}

/// A table whose rows can be counted in the text with a plain marker: the rows the text
/// has, and the rows the record holds.
struct RowCount {
    name: &'static str,
    in_text: fn(&[String]) -> usize,
    in_record: fn(&LogRecord) -> usize,
}

fn count(lines: &[String], f: impl Fn(&str) -> bool) -> usize {
    lines.iter().filter(|l| f(l)).count()
}

fn is_time_row(l: &str) -> bool {
    let b = l.as_bytes();
    b.len() > 9 && b[2] == b':' && b[5] == b':' && b[8] == b':' && b[0].is_ascii_digit()
}

const ROW_COUNTS: &[RowCount] = &[
    RowCount {
        name: "OPP rows",
        in_text: |l| {
            count(l, |x| {
                x.trim_start().starts_with("Cpufreq OPP:") || x.starts_with("No cpufreq support")
            })
        },
        in_record: |r| r.clocks.iter().map(|t| t.rows.len()).sum(),
    },
    RowCount {
        name: "tinymembench latency rows",
        in_text: |l| {
            count(l, |x| {
                x.contains(" ns ")
                    && x.contains(" / ")
                    && x.trim_start().starts_with(|c: char| c.is_ascii_digit())
            })
        },
        in_record: |r| {
            r.tinymembench
                .iter()
                .flat_map(|t| &t.latency)
                .map(|t| t.rows.len())
                .sum()
        },
    },
    RowCount {
        name: "ramlat rows",
        in_text: |l| {
            count(l, |x| {
                let t = x.trim_start();
                t.split_once("k: ")
                    .is_some_and(|(n, _)| n.parse::<u64>().is_ok())
            })
        },
        in_record: |r| r.ramlat.iter().map(|t| t.rows.len()).sum(),
    },
    RowCount {
        name: "openssl rows",
        in_text: |l| count(l, |x| x.starts_with("aes-") && x.contains("k ")),
        in_record: |r| {
            r.aes
                .as_ref()
                .map_or(0, |a| a.openssl.len() + a.native.len())
        },
    },
    RowCount {
        name: "7-Zip runs",
        in_text: |l| count(l, |x| x.starts_with("Tot:")),
        in_record: |r| {
            r.sevenzip
                .as_ref()
                .map_or(0, |z| z.single.len() + z.multi.len() + z.cluster.len())
        },
    },
    RowCount {
        name: "health rows",
        in_text: |l| count(l, is_time_row),
        in_record: |r| r.health.iter().map(|t| t.rows.len()).sum(),
    },
];

fn any(lines: &[String], f: impl Fn(&str) -> bool) -> bool {
    lines.iter().any(|l| f(l))
}

/// A heading line whose first non-blank line after it is of the section's kind.
fn followed_by(lines: &[String], heading: fn(&str) -> bool, body: fn(&str) -> bool) -> bool {
    lines.iter().enumerate().any(|(i, l)| {
        heading(l)
            && lines[i + 1..]
                .iter()
                .find(|x| !x.trim().is_empty() || x.starts_with('\t'))
                .is_some_and(|x| body(x))
    })
}

/// The line index of the first `Testing … again` (the hot clock check), if any.
fn hot_from(lines: &[String]) -> Option<usize> {
    lines.iter().position(|l| {
        l.starts_with("Testing maximum cpufreq again") || l.starts_with("Testing clockspeeds again")
    })
}

const SECTIONS: &[Section] = &[
    Section {
        name: "header line",
        contains: |l| any(l, |x| x.starts_with("sbc-bench v")),
        yields: |r| r.header.version.is_some(),
    },
    Section {
        name: "header date (as UTC)",
        contains: |l| {
            any(l, |x| {
                x.starts_with("sbc-bench v")
                    && (x.contains(" -- ") || (x.ends_with(')') && x.contains(", ")))
            })
        },
        yields: |r| r.header.date_utc.is_some(),
    },
    Section {
        name: "distro (lsb_release)",
        contains: |l| any(l, |x| x.starts_with("Description:")),
        yields: |r| r.host.distro.is_some(),
    },
    Section {
        name: "kernel release",
        contains: |l| {
            any(l, |x| {
                (x.starts_with("Linux ") && x.contains(" CPU)"))
                    || x.trim_start().starts_with("Kernel: ")
            })
        },
        yields: |r| r.host.kernel_release.is_some(),
    },
    Section {
        name: "architecture",
        contains: |l| any(l, |x| x.starts_with("Linux ") && x.contains("\t_")),
        yields: |r| r.host.machine.is_some(),
    },
    Section {
        name: "uptime",
        contains: |l| any(l, |x| x.starts_with("Uptime:")),
        yields: |r| r.host.uptime.is_some(),
    },
    Section {
        name: "memory size (free)",
        contains: |l| any(l, |x| x.starts_with("Mem:")),
        yields: |r| r.host.mem_total.is_some(),
    },
    Section {
        name: "SoC guess",
        // `SoC guess: ` with nothing after it (4nt8, an x86 VM) holds no guess.
        contains: |l| {
            any(l, |x| {
                x.trim_start()
                    .strip_prefix("SoC guess:")
                    .is_some_and(|g| !g.trim().is_empty())
            })
        },
        yields: |r| r.host.soc_guess.is_some(),
    },
    Section {
        name: "DT compat",
        contains: |l| any(l, |x| x.starts_with("DT compat:")),
        yields: |r| !r.host.dt_compat.is_empty(),
    },
    Section {
        name: "firmware",
        contains: |l| {
            any(l, |x| {
                let t = x.trim_start();
                t.starts_with("Boot env:")
                    || t.starts_with("ThreadX:")
                    || x.starts_with("Raspberry Pi ThreadX version")
                    || x.starts_with("BIOS/UEFI:")
            })
        },
        yields: |r| r.host.firmware.is_some(),
    },
    Section {
        name: "topology table",
        contains: |l| any(l, |x| x.trim_start().starts_with("CPU sysfs topology")),
        yields: |r| !r.topology.is_empty(),
    },
    Section {
        name: "cpufreq OPP (cold)",
        contains: |l| {
            let end = hot_from(l).unwrap_or(l.len());
            l[..end].iter().any(|x| {
                x.trim_start().starts_with("Cpufreq OPP:") || x.starts_with("No cpufreq support")
            })
        },
        yields: |r| r.clocks.iter().any(|t| t.phase == LogClockPhase::Cold),
    },
    Section {
        name: "cpufreq OPP (hot)",
        contains: |l| {
            let Some(from) = hot_from(l) else {
                return false;
            };
            l[from..].iter().any(|x| {
                x.trim_start().starts_with("Cpufreq OPP:") || x.starts_with("No cpufreq support")
            })
        },
        yields: |r| r.clocks.iter().any(|t| t.phase == LogClockPhase::Hot),
    },
    Section {
        name: "tinymembench bandwidth",
        contains: |l| {
            any(l, |x| {
                x.starts_with(' ') && x.contains(" : ") && x.contains(" MB/s")
            })
        },
        yields: |r| r.tinymembench.iter().any(|t| !t.bandwidth.is_empty()),
    },
    Section {
        name: "tinymembench latency",
        contains: |l| any(l, |x| x.starts_with("block size :")),
        yields: |r| r.tinymembench.iter().any(|t| !t.latency.is_empty()),
    },
    Section {
        name: "ramlat",
        contains: |l| any(l, |x| x.starts_with("Executing ramlat")),
        yields: |r| !r.ramlat.is_empty(),
    },
    Section {
        name: "openssl speed (AES)",
        contains: |l| any(l, |x| x.starts_with("aes-") && x.contains("k ")),
        yields: |r| {
            r.aes
                .as_ref()
                .is_some_and(|a| !a.openssl.is_empty() || !a.native.is_empty())
        },
    },
    Section {
        name: "7-Zip single-threaded",
        contains: |l| any(l, |x| x.starts_with("Executing benchmark single-threaded")),
        yields: |r| r.sevenzip.as_ref().is_some_and(|z| !z.single.is_empty()),
    },
    Section {
        name: "7-Zip multi-threaded",
        contains: |l| any(l, |x| x.starts_with("Total: ") && x.contains(',')),
        yields: |r| r.sevenzip.as_ref().is_some_and(|z| !z.multi.is_empty()),
    },
    Section {
        name: "cpuminer",
        contains: |l| any(l, |x| x.contains("] Total: ") && x.contains("kH/s")),
        yields: |r| r.cpuminer.is_some(),
    },
    Section {
        name: "stockfish",
        contains: |l| any(l, |x| x.starts_with("Nodes/second")),
        yields: |r| r.stockfish.is_some(),
    },
    Section {
        name: "health tables",
        contains: |l| any(l, |x| x.starts_with("System health while running")),
        yields: |r| r.health.iter().any(|t| t.phase != "clock check under load"),
    },
    Section {
        name: "throttling statistics",
        contains: |l| any(l, |x| x.contains("time spent on each cpufreq OPP)")),
        yields: |r| !r.throttling.is_empty(),
    },
    Section {
        name: "swap / zram",
        contains: |l| {
            any(l, |x| {
                x.starts_with("Swap:") || x.starts_with("Swap configuration:")
            })
        },
        yields: |r| r.swap.is_some(),
    },
    Section {
        name: "validation lines",
        // A heading without lines (4HdL) holds none.
        contains: |l| {
            followed_by(
                l,
                |x| x.starts_with("Results validation"),
                |x| x.starts_with("  * "),
            )
        },
        yields: |r| !r.validation.is_empty(),
    },
    Section {
        name: "governors",
        contains: |l| {
            any(l, |x| {
                x.starts_with("Status of performance related")
                    || x.starts_with("Original governor settings")
            })
        },
        yields: |r| !r.governors.is_empty(),
    },
    Section {
        name: "DMI",
        contains: |l| {
            any(l, |x| {
                x.starts_with("BIOS/UEFI:") || x.starts_with("Device Info:")
            })
        },
        yields: |r| !r.dmi.is_empty(),
    },
    Section {
        name: "lscpu",
        contains: |l| any(l, |x| x.starts_with("Byte Order:")),
        yields: |r| !r.lscpu.is_empty(),
    },
    Section {
        name: "caches",
        contains: |l| any(l, |x| x.contains("/index0: ")),
        yields: |r| !r.caches.is_empty(),
    },
    Section {
        name: "RAM configuration",
        // A heading followed by a blank line (3Owk) holds no banks.
        contains: |l| {
            followed_by(
                l,
                |x| x.starts_with("DIMM configuration:") || x.starts_with("RAM configuration:"),
                |x| x.starts_with("  ") || x.starts_with('\t'),
            )
        },
        yields: |r| !r.ram.is_empty(),
    },
    Section {
        name: "Results.md row",
        contains: |l| {
            any(l, |x| {
                x.starts_with("| ") && !x.starts_with("| Device") && x.matches('|').count() >= 6
            })
        },
        yields: |r| r.stated_row.is_some(),
    },
];

/// Per section: logs containing it, logs yielding it, and the files it was lost in.
pub struct Coverage {
    pub logs: usize,
    /// Per countable table: logs with rows, logs whose record holds every row, and where not.
    pub complete: Vec<(&'static str, usize, usize, Vec<String>)>,
    pub not_results: Vec<String>,
    pub rows: Vec<(&'static str, usize, usize, Vec<String>)>,
}

/// The coverage of every file in `dir`.
pub fn coverage(dir: &Path) -> Coverage {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut c = Coverage {
        logs: 0,
        complete: ROW_COUNTS
            .iter()
            .map(|s| (s.name, 0, 0, Vec::new()))
            .collect(),
        not_results: Vec::new(),
        rows: SECTIONS
            .iter()
            .map(|s| (s.name, 0, 0, Vec::new()))
            .collect(),
    };
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let (text, _) = match sbclog::decode(&fs::read(&f).unwrap()) {
            Ok(t) => t,
            Err(_) => {
                c.not_results.push(name);
                continue;
            }
        };
        if document::is_run_json(&text) {
            // Our run JSON is read by its own reader (record_read.rs); not a log.
            continue;
        }
        let runs = document::split_runs(&text);
        if runs.is_empty() {
            // An empty paste.
            c.not_results.push(name);
            continue;
        }
        for run in runs {
            let record = match sbclog::read_log(run) {
                Ok(r) => r,
                Err(LogError::NotALog) => {
                    c.not_results.push(name.clone());
                    continue;
                }
                Err(e) => panic!("{name}: {e}"),
            };
            c.logs += 1;
            let lines = sbclog::normalise(run);
            for (s, row) in ROW_COUNTS.iter().zip(&mut c.complete) {
                let want = (s.in_text)(&lines);
                if want > 0 {
                    row.1 += 1;
                    let got = (s.in_record)(&record);
                    if got == want {
                        row.2 += 1;
                    } else {
                        row.3.push(format!("{name} ({got} of {want})"));
                    }
                }
            }
            for (s, row) in SECTIONS.iter().zip(&mut c.rows) {
                if (s.contains)(&lines) {
                    row.1 += 1;
                    if (s.yields)(&record) {
                        row.2 += 1;
                    } else {
                        row.3.push(name.clone());
                    }
                }
            }
        }
    }
    c
}

/// The table as Markdown.
pub fn table(c: &Coverage) -> String {
    let mut s = format!(
        "{} logs read; {} files of the corpus are not results\n\n| Section | contain | yield | % |\n| --- | ---: | ---: | ---: |\n",
        c.logs,
        c.not_results.len()
    );
    for (name, contain, yields, _) in &c.rows {
        let pct = if *contain == 0 {
            "-".to_string()
        } else {
            format!("{:.1}", 100.0 * *yields as f64 / *contain as f64)
        };
        s.push_str(&format!("| {name} | {contain} | {yields} | {pct} |\n"));
    }
    s.push_str("\n| Table | logs with rows | every row read | % |\n| --- | ---: | ---: | ---: |\n");
    for (name, with, all, _) in &c.complete {
        let pct = 100.0 * *all as f64 / (*with).max(1) as f64;
        s.push_str(&format!("| {name} | {with} | {all} | {pct:.1} |\n"));
    }
    s
}

#[test]
fn every_section_a_corpus_log_contains_comes_out() {
    let Some(dir) = crate::common::corpus_logs() else {
        eprintln!("skipped: the corpus is not here");
        return;
    };
    let c = coverage(&dir);
    println!("{}", table(&c));
    assert!(c.logs >= 240, "{} logs", c.logs);
    let mut bad = Vec::new();
    for (name, contain, yields, lost) in &c.rows {
        if *contain > 0 && yields < contain {
            eprintln!("{name}: lost in {lost:?}");
        }
        if *contain > 0 && (*yields as f64) < 0.98 * *contain as f64 {
            bad.push(format!("{name}: {yields} of {contain}, lost in {lost:?}"));
        }
    }
    for (name, with, all, lost) in &c.complete {
        if all < with {
            eprintln!("{name}: not every row in {lost:?}");
        }
        if (*all as f64) < 0.98 * *with as f64 {
            bad.push(format!(
                "{name}: every row in {all} of {with}, not in {lost:?}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The Geekbench pages, the cpuinfo dumps and the empty paste are no results.
    assert!(
        c.not_results.iter().any(|n| n == "8Ko-.txt"),
        "{:?}",
        c.not_results
    );
}
