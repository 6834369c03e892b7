//! `bench aes`, `bench compress`, `bench scrypt` as users run them: short real runs, and
//! the external-tool paths against stand-in `openssl`/`7za` scripts that print real output.

use std::path::Path;

use crate::common::bin;
use predicates::prelude::*;

/// The first CPU this test may run on.
fn cpu() -> String {
    sbc_bench::bench::pin::allowed_cpus()
        .first()
        .copied()
        .unwrap_or(0)
        .to_string()
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).expect("valid JSON")
}

fn write_script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).expect("write script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod script");
}

#[test]
fn aes_quick_native_prints_openssl_layout() {
    bin()
        .args(["bench", "aes", "--quick", "--native-only", "--cpus", &cpu()])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n",
        ))
        .stdout(predicate::str::is_match(r"\naes-128-cbc +[0-9]+\.[0-9]{2}k ").unwrap())
        .stdout(predicate::str::contains("\naes-192-cbc "))
        .stdout(predicate::str::contains("\naes-256-cbc "))
        .stdout(predicate::str::is_match(r"Native AES \(RustCrypto, (aes-ni|armv8-ce|soft): ").unwrap());
}

#[test]
fn aes_json_has_backend_and_rows() {
    let out = bin()
        .args([
            "bench",
            "aes",
            "--quick",
            "--native-only",
            "--json",
            "--cpus",
            &cpu(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["benchmark"], "aes");
    let backend = v["results"]["backend"].as_str().unwrap();
    assert!(
        ["aes-ni", "armv8-ce", "soft"].contains(&backend),
        "{backend}"
    );
    let rows = v["results"]["native"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["algorithm"], "aes-128-cbc");
    let sizes = rows[0]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 6);
    assert_eq!(sizes[5]["buffer_bytes"], 16384);
    assert!(sizes[5]["bytes_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["results"]["openssl"].is_null());
}

#[test]
fn aes_with_an_openssl_prints_both_tables() {
    // A stand-in `openssl` that answers like OpenSSL 1.1.1f (version) and OpenSSL 3
    // (capitals in the speed table), with numbers from the corpus log 41BH.txt.
    let dir = tempfile::tempdir().unwrap();
    write_script(
        dir.path(),
        "openssl",
        r#"if [ "$1" = version ]; then echo "OpenSSL 1.1.1f  31 Mar 2020"; exit 0; fi
for a in "$@"; do alg="$a"; done
echo "The 'numbers' are in 1000s of bytes per second processed."
echo "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes"
ALG=$(echo "$alg" | /usr/bin/tr a-z A-Z)
echo "$ALG     173982.22k   502837.89k   966930.26k  1252319.91k  1372788.05k  1382421.85k"
"#,
    );
    let out = bin()
        .env("PATH", dir.path())
        .args(["bench", "aes", "--quick", "--cpus", &cpu()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("\nOpenSSL 1.1.1f, built on 31 Mar 2020\ntype "),
        "{text}"
    );
    assert!(
        text.contains("\naes-256-cbc     173982.22k   502837.89k   966930.26k  1252319.91k  1372788.05k  1382421.85k ("),
        "{text}"
    );
}

#[test]
fn aes_algorithm_choice() {
    let out = bin()
        .args([
            "bench",
            "aes",
            "--quick",
            "--native-only",
            "--json",
            "--cpus",
            &cpu(),
            "--algorithms",
            "AES-256-CBC",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out.stdout);
    let rows = v["results"]["native"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["algorithm"], "aes-256-cbc");
    bin()
        .args(["bench", "aes", "--algorithms", "aes-512-cbc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'aes-512-cbc' for '--algorithms <LIST>': not one of",
        ));
}

#[test]
fn bad_cpu_lists_and_unusable_cpus() {
    bin()
        .args(["bench", "aes", "--cpus", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a CPU list"));
    bin()
        .args(["bench", "aes", "--quick", "--native-only", "--cpus", "4000"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("skipping cpu4000"))
        .stderr(predicate::str::contains("none of the requested CPUs"));
}

#[test]
fn compress_with_a_1602_7zip_and_native_lzma() {
    // A stand-in `7za` that prints p7zip 16.02's real output (corpus log 1ULtUe.txt).
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crypto/p7zip-16.02-b-mmt1.txt");
    write_script(
        dir.path(),
        "7za",
        &format!("/bin/cat '{}'\n", fixture.display()),
    );
    let out = bin()
        .env("PATH", dir.path())
        .args(["bench", "compress", "--quick", "--json", "--cpus", &cpu()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let z = &v["results"]["sevenzip"];
    assert_eq!(z["version"]["engine"], "16.02");
    assert!(z["warning"].is_null());
    assert_eq!(z["single"][0]["result"]["table"]["total_rating_mips"], 3270);
    let native = &v["results"]["native_single"][0]["result"];
    assert_eq!(native["dicts"][0]["dict_log2"], 22);
    assert!(native["total_rating_mips"].as_f64().unwrap() > 0.0);

    let out = bin()
        .env("PATH", dir.path())
        .args([
            "bench",
            "compress",
            "--quick",
            "--native-only",
            "--cpus",
            &cpu(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(!text.contains("7-zip total scores"), "{text}");
    assert!(
        text.contains("native LZMA total score, single-threaded: "),
        "{text}"
    );
}

#[test]
fn compress_text_has_sevenzip_sections_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crypto/p7zip-16.02-b-mmt1.txt");
    write_script(
        dir.path(),
        "7za",
        &format!("/bin/cat '{}'\n", fixture.display()),
    );
    // Default placement: one CPU per cluster single-threaded, all CPUs multi-threaded.
    let out = bin()
        .env("PATH", dir.path())
        .args(["bench", "compress", "--quick"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("Executing benchmark single-threaded on cpu"),
        "{text}"
    );
    assert!(
        text.contains("\nTot:             100   3271   3270\n"),
        "{text}"
    );
    if sbc_bench::bench::pin::allowed_cpus().len() > 1 {
        assert!(
            text.contains("Executing benchmark once multi-threaded on CPUs"),
            "{text}"
        );
        assert!(
            text.contains("7-zip total scores (1 consecutive run): 3270, single-threaded: 3270\n"),
            "{text}"
        );
        assert!(
            text.contains("\nCompression: 3201\nDecompression: 3338\nTotal: 3270\n"),
            "{text}"
        );
        assert!(text.contains("native LZMA total score ("), "{text}");
    } else {
        assert!(
            text.contains("7-zip total score, single-threaded: 3270\n"),
            "{text}"
        );
    }
}

#[test]
fn scrypt_short_run() {
    let out = bin()
        .args([
            "bench",
            "scrypt",
            "--duration",
            "2",
            "--json",
            "--cpus",
            &cpu(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["duration_s"], 2);
    assert_eq!(v["results"]["n"], 1024);
    let iv = v["results"]["intervals"].as_array().unwrap();
    assert_eq!(iv.len(), 1, "one 2-second interval");
    assert!(v["results"]["threads"][0]["hashes"].as_u64().unwrap() > 0);

    bin()
        .args(["bench", "scrypt", "--duration", "1", "--cpus", &cpu()])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(
                r"scrypt total scores \(1 second execution\): [0-9]+\.[0-9]{2} kH/s\n",
            )
            .unwrap(),
        );
}

#[test]
fn scrypt_rejects_bad_durations_and_kernels() {
    bin()
        .args(["bench", "scrypt", "--duration", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("duration"));
    bin()
        .args(["bench", "scrypt", "--kernel", "fast"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not one of scalar, simd, avx2"));
    bin()
        .args([
            "bench",
            "scrypt",
            "--duration",
            "1",
            "--kernel",
            "scalar",
            "--cpus",
            &cpu(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("scalar kernel"));
}

/// Ctrl-C during the stress test prints the intervals measured so far, then exits 130.
#[test]
fn scrypt_interrupted_prints_what_it_measured() {
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let child = std::process::Command::new(exe)
        .args([
            "bench",
            "scrypt",
            "--duration",
            "60",
            "--kernel",
            "scalar",
            "--cpus",
            &cpu(),
        ])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Past the first 5-second interval.
    std::thread::sleep(std::time::Duration::from_millis(7500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(text.contains("scrypt total scores ("), "{text}");
    assert!(
        !text.contains("kH/s: n/a") && !text.contains(" n/a kH/s"),
        "{text}"
    );
    assert!(text.contains("Note: stopped by a signal after "), "{text}");
}

/// Two CPUs of one cluster: the rows say which CPU they belong to.
#[test]
fn aes_rows_name_the_cpu_when_two_of_one_cluster_run() {
    let cpus = sbc_bench::bench::pin::allowed_cpus();
    if cpus.len() < 2 {
        return;
    }
    let list = format!("{},{}", cpus[0], cpus[1]);
    let out = bin()
        .args([
            "bench",
            "aes",
            "--quick",
            "--native-only",
            "--algorithms",
            "aes-128-cbc",
            "--cpus",
            &list,
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("aes-128-cbc"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    let same_cluster = !rows[0].ends_with(&format!(" (cpu{})", cpus[0]))
        && rows[0].rsplit_once(" (").map(|x| x.1) == rows[1].rsplit_once(" (").map(|x| x.1);
    assert!(!same_cluster, "two rows with the same tag: {text}");
    assert!(text.contains(" individually\n"), "{text}");
}
