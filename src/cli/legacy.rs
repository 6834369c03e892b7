//! sbc-bench's single-letter modes mapped onto our subcommands, so `sudo sbc-bench -m` works
//! as users type it today.

use std::ffi::OsString;

/// Modes of sbc-bench we do not offer (yet), with what to use instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("-g", "graph mode"),
    ("-G", "graph mode"),
    ("-j", "Jeff Geerling mode"),
    ("-k", "kernel/driver check"),
    ("-r", "review mode"),
    ("-R", "review mode"),
    ("-s", "stockfish stress"),
    ("-t", "thermal test"),
    ("-T", "thermal test"),
    ("-P", "Phoronix mode"),
    ("-M", "Markdown review"),
];

/// Rewrite `argv` so that the first argument, when it is one of sbc-bench's mode flags,
/// becomes the matching subcommand: `-m [SECS]` → `monitor [SECS]`, `-S` → `storage`.
/// `-c` stays a flag of the standard run. Modes we do not offer are an error that says so.
pub fn rewrite(mut argv: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let Some(pos) = first_positional(&argv) else {
        return Ok(argv);
    };
    let Some(arg) = argv[pos].to_str().map(str::to_string) else {
        return Ok(argv);
    };
    match arg.as_str() {
        "-m" => argv[pos] = "monitor".into(),
        "-S" => argv[pos] = "storage".into(),
        other => {
            if let Some((_, what)) = UNSUPPORTED.iter().find(|(f, _)| *f == other) {
                return Err(format!(
                    "sbc-bench {other} ({what}) is not offered by this version; \
                     see `sbc-bench --help` for what is"
                ));
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
}
