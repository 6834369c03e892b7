//! The bundled 7-Zip 16.02 (`scripts/build-7za-16.02.sh`) is found before the distro's:
//! next to our binary, then in `$SBC_BENCH_LIBDIR` (standing in for `/usr/lib/sbc-bench`),
//! then `$PATH`; reports call it `7-Zip 16.02 (bundled)`. Stand-in `7za` scripts print
//! p7zip 16.02's real output (corpus log 1ULtUe.txt) or the same table under a 26.02
//! banner, so which one ran shows in the version.

use std::path::{Path, PathBuf};

use crate::common::bin;

fn cpu() -> String {
    sbc_bench::bench::pin::allowed_cpus()
        .first()
        .copied()
        .unwrap_or(0)
        .to_string()
}

fn fixture_1602() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crypto/p7zip-16.02-b-mmt1.txt"),
    )
    .unwrap()
}

/// A `7za` in `dir` that prints `text` whatever it is asked.
fn fake_7za(dir: &Path, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    let out = dir.join("7za.out");
    std::fs::write(&out, text).unwrap();
    let p = dir.join("7za");
    std::fs::write(&p, format!("#!/bin/sh\n/bin/cat '{}'\n", out.display())).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// The distro's 7-Zip on `PATH`: 26.02, as Debian 12's p7zip-full is.
fn distro_2602(dir: &Path) -> PathBuf {
    fake_7za(
        dir,
        &fixture_1602().replace("7-Zip (a) [64] 16.02", "7-Zip [64] 26.02"),
    )
}

fn compress_json(cmd: &mut assert_cmd::Command) -> serde_json::Value {
    let out = cmd
        .args(["bench", "compress", "--quick", "--json", "--cpus", &cpu()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn bundled_7za_in_libdir_beats_the_distro_26_02_on_path() {
    let t = tempfile::tempdir().unwrap();
    let usr = t.path().join("usr-bin");
    let lib = t.path().join("lib-sbc-bench");
    let distro = distro_2602(&usr);

    // Only the distro's 26.02: it runs, unbundled, with its warning.
    let v = compress_json(
        bin()
            .env("PATH", &usr)
            .env("SBC_BENCH_LIBDIR", t.path().join("empty")),
    );
    let z = &v["results"]["sevenzip"];
    assert_eq!(z["path"], distro.display().to_string());
    assert_eq!(z["version"]["engine"], "26.02");
    assert!(z["warning"].as_str().unwrap().contains("26.02"));
    assert!(
        z.get("bundled").is_none() && z.get("label").is_none(),
        "{z}"
    );

    // The bundled 16.02 in the lib dir wins.
    let bundled = fake_7za(&lib, &fixture_1602());
    let v = compress_json(bin().env("PATH", &usr).env("SBC_BENCH_LIBDIR", &lib));
    let z = &v["results"]["sevenzip"];
    assert_eq!(z["path"], bundled.display().to_string());
    assert_eq!(z["version"]["engine"], "16.02");
    assert_eq!(z["bundled"], true);
    assert_eq!(z["label"], "7-Zip 16.02 (bundled)");
    assert!(z["warning"].is_null());
    assert_eq!(z["single"][0]["result"]["table"]["total_rating_mips"], 3270);

    // The text names it so.
    let out = bin()
        .env("PATH", &usr)
        .env("SBC_BENCH_LIBDIR", &lib)
        .args(["bench", "compress", "--quick", "--cpus", &cpu()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "7-Zip: 7-Zip 16.02 (bundled) ({})\n",
            bundled.display()
        )),
        "{text}"
    );
    assert!(!text.contains("26.02"), "{text}");
}

#[test]
fn bundled_7za_next_to_the_binary_beats_the_libdir() {
    let t = tempfile::tempdir().unwrap();
    // Our binary, hard-linked (or copied) into a folder with the bundled 7za beside it, as
    // the release tarball unpacks.
    let tarball = t.path().join("sbc-bench-tarball");
    std::fs::create_dir_all(&tarball).unwrap();
    let ours = tarball.join("sbc-bench");
    let built = assert_cmd::cargo::cargo_bin("sbc-bench");
    if std::fs::hard_link(&built, &ours).is_err() {
        std::fs::copy(&built, &ours).unwrap();
    }
    let beside = fake_7za(&tarball, &fixture_1602());
    let lib = t.path().join("lib-sbc-bench");
    distro_2602(&lib);
    let usr = t.path().join("usr-bin");
    distro_2602(&usr);

    let mut cmd = assert_cmd::Command::new(&ours);
    cmd.env_remove("SBC_BENCH_SYSROOT")
        .env("NO_COLOR", "1")
        .env("PATH", &usr)
        .env("SBC_BENCH_LIBDIR", &lib);
    let v = compress_json(&mut cmd);
    let z = &v["results"]["sevenzip"];
    assert_eq!(z["path"], beside.display().to_string());
    assert_eq!(z["label"], "7-Zip 16.02 (bundled)");
    assert_eq!(z["version"]["engine"], "16.02");
}

#[test]
fn native_lzma_reports_compress_and_decompress_apart_from_7zip() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib-sbc-bench");
    fake_7za(&lib, &fixture_1602());
    let v = compress_json(
        bin()
            .env("PATH", t.path().join("none"))
            .env("SBC_BENCH_LIBDIR", &lib),
    );
    let r = &v["results"];
    // 7-Zip's ratings are 7-Zip's; the native ones are under native_*, each part on its own.
    assert_eq!(
        r["sevenzip"]["single"][0]["result"]["table"]["compress_rating_mips"],
        3201
    );
    let native = &r["native_single"][0]["result"];
    let (c, d, tot) = (
        native["compress_rating_mips"].as_f64().unwrap(),
        native["decompress_rating_mips"].as_f64().unwrap(),
        native["total_rating_mips"].as_f64().unwrap(),
    );
    assert!(c > 0.0 && d > 0.0);
    assert!((tot - (c + d) / 2.0).abs() < 1.0, "{c} {d} {tot}");
    assert_ne!(tot, 3270.0);
}
