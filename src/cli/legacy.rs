//! sbc-bench's single-letter modes mapped onto our subcommands, so `sudo sbc-bench -m` works
//! as users type it today.

use std::ffi::OsString;

/// Modes of sbc-bench we do not offer (yet), with sbc-bench's own name for them
/// (`sbc-bench -h`).
const UNSUPPORTED: &[(&str, &str)] = &[
    ("-N", "Netio power meter monitor mode"),
    (
        "-u",
        "update from GitHub; update this program with your package manager instead",
    ),
];

/// Rewrite `argv` so that sbc-bench's mode flags in front (after global options) become
/// the matching subcommand: `-m [SECS]` → `monitor [SECS]`, `-S` → `storage`, `-k` →
/// `kernel`, `-g` → `graph`, `-t`/`-T`/`-M` → `thermal`, `-r`/`-j`/`-R` → `review`, `-G` →
/// `wrap --geekbench`, `-P ARGS` → `wrap --pts ARGS`, `-s` → `wrap --stockfish`. `-c` stays a
/// flag of the standard run; as in sbc-bench (getopts), flags combine and a mode flag
/// wins: `-c -m` monitors. Modes we do not offer are an error that says so, whatever
/// follows them.
pub fn rewrite(mut argv: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let Some(pos) = first_positional(&argv) else {
        return Ok(argv);
    };
    let mut i = pos;
    while i < argv.len() {
        let Some(arg) = argv[i].to_str().map(str::to_string) else {
            break;
        };
        match arg.as_str() {
            "-m" | "-S" | "-k" | "-g" => {
                argv[i] = match arg.as_str() {
                    "-m" => "monitor",
                    "-S" => "storage",
                    "-k" => "kernel",
                    _ => "graph",
                }
                .into();
                // Flags of the standard run given before the mode (`-c -m`) do not apply.
                argv.drain(pos..i);
                break;
            }
            "-t" | "-T" | "-M" => {
                thermal_mode(&mut argv, pos, i, &arg);
                break;
            }
            // -j (Jeff Geerling mode) is -r in sbc-bench.
            "-r" | "-j" | "-R" => {
                argv[i] = "review".into();
                if arg == "-R" {
                    argv.insert(i + 1, "--no-benchmarks".into());
                }
                argv.drain(pos..i);
                break;
            }
            // sbc-bench's Geekbench, Phoronix and stockfish modes are `wrap`'s tools.
            "-G" | "-P" | "-s" => {
                let tool = match arg.as_str() {
                    "-G" => "--geekbench",
                    "-P" => "--pts",
                    _ => "--stockfish",
                };
                argv[i] = "wrap".into();
                argv.insert(i + 1, tool.into());
                argv.drain(pos..i);
                break;
            }
            "-c" | "-h" => i += 1,
            other => {
                if let Some((_, what)) = UNSUPPORTED.iter().find(|(f, _)| *f == other) {
                    return Err(format!(
                        "sbc-bench {other} ({what}) is not offered by this version; \
                         see `sbc-bench --help` for what is"
                    ));
                }
                break;
            }
        }
    }
    Ok(argv)
}

/// `-t [°C]` → `thermal --cool-to °C`, `-T [°C]` → `thermal --heat-to °C` (sbc-bench's
/// default target is 50 °C, `thermal`'s too), `-M` → `thermal --memory-controller`. As
/// with `-m`, flags of the standard run before the mode (`-c -t`) do not apply.
fn thermal_mode(argv: &mut Vec<OsString>, pos: usize, i: usize, flag: &str) {
    let option = match flag {
        "-t" => "--cool-to",
        "-T" => "--heat-to",
        _ => "--memory-controller",
    };
    let degrees = argv
        .get(i + 1)
        .and_then(|a| a.to_str())
        .filter(|a| flag != "-M" && a.parse::<f64>().is_ok())
        .map(str::to_string);
    let mut with: Vec<OsString> = vec!["thermal".into(), option.into()];
    let mut end = i + 1;
    match degrees {
        Some(d) => {
            with.push(d.into());
            end += 1;
        }
        None if flag != "-M" => with.push("50".into()),
        None => {}
    }
    argv.splice(pos..end, with);
}

/// Index of the first argument after the program name that is not a global option.
fn first_positional(argv: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].to_str()?;
        if a == "--sysroot" {
            i += 2;
        } else if a.starts_with("--sysroot=") || a == "--no-color" || a == "--sysroot-writable" {
            i += 1;
        } else {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(v: &[&str]) -> Vec<String> {
        rewrite(v.iter().map(OsString::from).collect())
            .unwrap()
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect()
    }

    #[test]
    fn monitor_alias() {
        assert_eq!(
            rw(&["sbc-bench", "-m", "0.5"]),
            ["sbc-bench", "monitor", "0.5"]
        );
        assert_eq!(
            rw(&["sbc-bench", "--sysroot", "/x", "-m"]),
            ["sbc-bench", "--sysroot", "/x", "monitor"]
        );
    }

    #[test]
    fn storage_alias_and_others_untouched() {
        assert_eq!(rw(&["sbc-bench", "-S"]), ["sbc-bench", "storage"]);
        assert_eq!(rw(&["sbc-bench", "-c"]), ["sbc-bench", "-c"]);
        assert_eq!(rw(&["sbc-bench"]), ["sbc-bench"]);
        assert!(rewrite(vec!["sbc-bench".into(), "-N".into()]).is_err());
    }

    fn err(v: &[&str]) -> String {
        rewrite(v.iter().map(OsString::from).collect()).unwrap_err()
    }

    #[test]
    fn modes_as_sbc_bench_names_them_with_or_without_arguments() {
        assert!(err(&["sbc-bench", "-u"]).contains("-u (update from GitHub"));
        let n = err(&["sbc-bench", "-N", "powerbox.local", "2", "/tmp/x"]);
        assert!(n.contains("-N (Netio") && n.contains("not offered"), "{n}");
        assert!(err(&["sbc-bench", "-N", "x"]).contains("not offered"));
    }

    #[test]
    fn geekbench_phoronix_and_stockfish_are_wrap_tools() {
        assert_eq!(
            rw(&["sbc-bench", "-G"]),
            ["sbc-bench", "wrap", "--geekbench"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-P", "pts/c-ray"]),
            ["sbc-bench", "wrap", "--pts", "pts/c-ray"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-c", "-s"]),
            ["sbc-bench", "wrap", "--stockfish"]
        );
    }

    /// `-k` was refused as "not offered" until `kernel` existed; now it is that command,
    /// with its options after it, and wins over `-c` as every mode does.
    #[test]
    fn kernel_alias() {
        assert_eq!(rw(&["sbc-bench", "-k"]), ["sbc-bench", "kernel"]);
        assert_eq!(
            rw(&["sbc-bench", "-k", "--json"]),
            ["sbc-bench", "kernel", "--json"]
        );
        assert_eq!(rw(&["sbc-bench", "-c", "-k"]), ["sbc-bench", "kernel"]);
        assert_eq!(
            rw(&["sbc-bench", "--sysroot", "/x", "-k"]),
            ["sbc-bench", "--sysroot", "/x", "kernel"]
        );
    }

    #[test]
    fn thermal_modes_as_sbc_bench_types_them() {
        assert_eq!(
            rw(&["sbc-bench", "-t"]),
            ["sbc-bench", "thermal", "--cool-to", "50"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-t", "45", "--fake-benchmarks"]),
            [
                "sbc-bench",
                "thermal",
                "--cool-to",
                "45",
                "--fake-benchmarks"
            ]
        );
        assert_eq!(
            rw(&["sbc-bench", "--sysroot", "/x", "-c", "-T", "60"]),
            ["sbc-bench", "--sysroot", "/x", "thermal", "--heat-to", "60"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-M", "--duration", "1s"]),
            [
                "sbc-bench",
                "thermal",
                "--memory-controller",
                "--duration",
                "1s"
            ]
        );
    }

    #[test]
    fn a_mode_after_sysroot_writable_is_still_a_mode() {
        assert_eq!(
            rw(&["sbc-bench", "--sysroot", "/x", "--sysroot-writable", "-j"]),
            [
                "sbc-bench",
                "--sysroot",
                "/x",
                "--sysroot-writable",
                "review"
            ]
        );
    }

    #[test]
    fn review_modes_as_sbc_bench() {
        assert_eq!(rw(&["sbc-bench", "-r"]), ["sbc-bench", "review"]);
        assert_eq!(rw(&["sbc-bench", "-j"]), ["sbc-bench", "review"]);
        assert_eq!(
            rw(&["sbc-bench", "-R"]),
            ["sbc-bench", "review", "--no-benchmarks"]
        );
        assert_eq!(
            rw(&["sbc-bench", "--sysroot", "/x", "-c", "-R", "--", "true"]),
            [
                "sbc-bench",
                "--sysroot",
                "/x",
                "review",
                "--no-benchmarks",
                "--",
                "true"
            ]
        );
    }

    #[test]
    fn graph_alias_with_sbc_bench_s_variants() {
        assert_eq!(rw(&["sbc-bench", "-g"]), ["sbc-bench", "graph"]);
        assert_eq!(
            rw(&["sbc-bench", "-g", "coreclusters"]),
            ["sbc-bench", "graph", "coreclusters"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-c", "-g", "4-7"]),
            ["sbc-bench", "graph", "4-7"]
        );
        // A global option before the mode (`--sysroot-writable` was taken for the first
        // argument, so `-m`/`-S`/`-g` after it reached clap unrewritten).
        assert_eq!(
            rw(&[
                "sbc-bench",
                "--sysroot",
                "/x",
                "--sysroot-writable",
                "-g",
                "all"
            ]),
            [
                "sbc-bench",
                "--sysroot",
                "/x",
                "--sysroot-writable",
                "graph",
                "all"
            ]
        );
    }

    #[test]
    fn flags_combine_and_a_mode_wins() {
        assert_eq!(rw(&["sbc-bench", "-c", "-m"]), ["sbc-bench", "monitor"]);
        assert_eq!(
            rw(&["sbc-bench", "-c", "-m", "2"]),
            ["sbc-bench", "monitor", "2"]
        );
        assert_eq!(
            rw(&["sbc-bench", "-c", "--quick"]),
            ["sbc-bench", "-c", "--quick"]
        );
        // Arguments of a subcommand are left alone.
        assert_eq!(
            rw(&["sbc-bench", "bench", "-m"]),
            ["sbc-bench", "bench", "-m"]
        );
    }
}
