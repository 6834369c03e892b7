//! sbc-bench's single-letter modes mapped onto our subcommands, so `sudo sbc-bench -m` works
//! as users type it today.

use std::ffi::OsString;

/// Modes of sbc-bench we do not offer (yet), with sbc-bench's own name for them
/// (`sbc-bench -h`).
const UNSUPPORTED: &[(&str, &str)] = &[
    ("-g", "graphs 7-zip MIPS for every cpufreq OPP"),
    ("-j", "Jeff Geerling mode"),
    ("-k", "kernel info: version number and vendor/BSP check"),
    ("-M", "memory controller throttling test"),
    ("-N", "Netio power meter monitor mode"),
    ("-r", "review mode"),
    ("-R", "review mode without baseline benchmarks"),
    ("-t", "thermal test"),
    ("-T", "thermal test"),
    (
        "-u",
        "update from GitHub; update this program with your package manager instead",
    ),
];

/// Rewrite `argv` so that sbc-bench's mode flags in front (after global options) become
/// the matching subcommand: `-m [SECS]` → `monitor [SECS]`, `-S` → `storage`, `-G` →
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
            "-m" | "-S" => {
                argv[i] = if arg == "-m" { "monitor" } else { "storage" }.into();
                // Flags of the standard run given before the mode (`-c -m`) do not apply.
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

/// Index of the first argument after the program name that is not a global option.
fn first_positional(argv: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].to_str()?;
        if a == "--sysroot" {
            i += 2;
        } else if a.starts_with("--sysroot=") || a == "--no-color" {
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
        let e = rewrite(vec!["sbc-bench".into(), "-r".into()]).unwrap_err();
        assert!(e.contains("review mode"), "{e}");
    }

    fn err(v: &[&str]) -> String {
        rewrite(v.iter().map(OsString::from).collect()).unwrap_err()
    }

    #[test]
    fn modes_as_sbc_bench_names_them_with_or_without_arguments() {
        assert!(err(&["sbc-bench", "-M"]).contains("memory controller throttling test"));
        assert!(err(&["sbc-bench", "-u"]).contains("-u (update from GitHub"));
        let n = err(&["sbc-bench", "-N", "powerbox.local", "2", "/tmp/x"]);
        assert!(n.contains("-N (Netio") && n.contains("not offered"), "{n}");
        assert!(err(&["sbc-bench", "-k", "extra"]).contains("not offered"));
        assert!(err(&["sbc-bench", "-c", "-j"]).contains("Jeff Geerling"));
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
