//! Power meters end to end: a fake Netio (a local HTTP server serving a recorded
//! netio.xml), a fake FNIRSI tester (a recorded report stream where the hidraw node
//! would be, in a writable copy of a fixture tree) and an INA3221 without a power file,
//! through `monitor --power` and `run --power`; a Netio that is not there ends the run
//! with status 2 before any benchmark.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

use crate::common::{bin, copy_tree, sysroot as fixture};
use serde_json::Value;

const NETIO_XML: &str = include_str!("../fixtures/power/netio-4all.xml");

/// Socket 2 of the recorded NETIO 4All: 239.1 V × 7 mA × PF 0.52.
const NETIO_SOCKET2_MW: f64 = 239.1 * 7.0 * 0.52;

/// A local server that answers every request with `answer`, until the test ends. Its
/// address (`127.0.0.1:PORT`).
fn serve(answer: Vec<u8>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut req = [0u8; 1024];
                let _ = s.read(&mut req);
                let _ = s.write_all(&answer);
            });
        }
    });
    addr
}

fn netio_server() -> String {
    let body = NETIO_XML.as_bytes();
    let mut a = format!(
        "HTTP/1.0 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    a.extend_from_slice(body);
    serve(a)
}

/// The table lines of monitor output (header and rows), banner left out.
fn table(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("Time"))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

#[test]
fn power_netio_monitor_adds_the_mw_column_and_sbc_bench_line() {
    let host = netio_server();
    let out = bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(fixture("nanopi-r5s"))
        .args(["monitor", "0.05", "-n", "3", "--power"])
        .arg(format!("netio:{host}/2"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains(
            "Power monitoring on socket 2 of NETIO 4ALL Demo (Netio NETIO 4All, FW v3.1.0, \
             XML API v2.1, 239.1V @ 50.1Hz)\n\n"
        ),
        "{text}"
    );
    let lines = table(&text);
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].ends_with("      mW"), "{}", lines[0]);
    for row in &lines[1..] {
        assert!(row.ends_with("    870"), "{row}");
    }
}

#[test]
fn power_netio_env_variable_as_sbc_bench_and_without_meter_no_column() {
    let host = netio_server();
    let out = bin()
        .env("Netio", format!("{host}/2"))
        .arg("--sysroot")
        .arg(fixture("nanopi-r5s"))
        .args(["monitor", "0.05", "-n", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(table(&text)[0].ends_with("      mW"), "{text}");
    let plain = bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(fixture("nanopi-r5s"))
        .args(["monitor", "0.05", "-n", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let plain = String::from_utf8_lossy(&plain);
    assert!(!plain.contains("mW"), "{plain}");
}

/// A fake run with a meter over a writable copy of `board`: the JSON document, the log,
/// and stdout.
fn fake_run(board: &str, extra: impl FnOnce(&Path), power: &str) -> (Value, String, String) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    copy_tree(&fixture(board), &root);
    extra(&root);
    let (log, json) = (d.path().join("run.log"), d.path().join("run.json"));
    let out = bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "run",
            "--fake-benchmarks",
            "--unattended",
            "--power",
            power,
            "--log",
        ])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    (doc, fs::read_to_string(&log).unwrap(), stdout)
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-6)
}

#[test]
fn power_netio_run_records_idle_phases_energy_and_mips_per_watt() {
    let host = netio_server();
    let (doc, log, stdout) = fake_run("rock-5b", |_| {}, &format!("netio:{host}/2"));
    assert!(
        stdout.contains("Power monitoring on socket 2 of NETIO 4ALL Demo"),
        "{stdout}"
    );
    let p = &doc["power"];
    assert_eq!(p["meter"], "Netio NETIO 4All, socket 2");
    assert!(close(&p["idle_mw"], NETIO_SOCKET2_MW), "{p}");
    assert!(p["idle_readings"].as_u64().unwrap() >= 1);
    let phases = p["phases"].as_array().unwrap();
    assert_eq!(
        phases.len(),
        doc["steps"].as_array().unwrap().len(),
        "one power entry per benchmark phase"
    );
    for ph in phases {
        assert!(close(&ph["mean_mw"], NETIO_SOCKET2_MW), "{ph}");
        let e = ph["energy_mwh"].as_f64().unwrap();
        let want = NETIO_SOCKET2_MW * ph["duration_s"].as_f64().unwrap() / 3600.0;
        assert!((e - want).abs() < 1e-9, "{ph}");
    }
    let zip = phases
        .iter()
        .find(|ph| ph["phase"] == "7-zip benchmark")
        .expect("a 7-zip phase");
    let mips = zip["mips"].as_f64().unwrap();
    assert!(
        close(&zip["mips_per_watt"], mips / (NETIO_SOCKET2_MW / 1000.0)),
        "{zip}"
    );
    assert!(
        log.contains("Power consumption (Netio NETIO 4All, socket 2):\n\n"),
        "{log}"
    );
    assert!(log.contains("Idle consumption: 870 mW (mean of "), "{log}");
    assert!(
        log.contains("  7-zip benchmark                   870 "),
        "{log}"
    );
    assert_eq!(doc["config"]["power"], format!("netio:{host}/2"));
}

#[test]
fn a_run_without_meter_has_no_power_section_nor_field() {
    let d = tempfile::tempdir().unwrap();
    let (log, json) = (d.path().join("run.log"), d.path().join("run.json"));
    bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert!(doc.get("power").is_none());
    assert!(doc["config"].get("power").is_none());
    assert!(
        !fs::read_to_string(&log)
            .unwrap()
            .contains("Power consumption")
    );
}

#[test]
fn unreachable_netio_exits_2_before_any_benchmark() {
    // A port nothing listens on: connection refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let d = tempfile::tempdir().unwrap();
    let (log, json) = (d.path().join("run.log"), d.path().join("run.json"));
    let out = bin()
        .env_remove("Netio")
        .env("Netio", format!("127.0.0.1:{port}/2"))
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: not able to fetch \"http://127.0.0.1:{port}/netio.xml\": "
        )),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("Done"), "no benchmark ran: {stdout}");
    assert!(!log.exists() && !json.exists(), "nothing written");
}

#[test]
fn a_netio_that_never_answers_or_floods_is_an_error_not_a_hang() {
    use sbc_bench::sys::meter::netio;
    // Accepts, reads the request, then says nothing and keeps the connection open.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let held = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut b = [0u8; 512];
        let _ = s.read(&mut b);
        // Held until the client gives up and closes.
        let _ = s.read(&mut b);
    });
    let e = netio::fetch(&addr).unwrap_err().to_string();
    assert!(e.contains("no complete answer within 3 s"), "{e}");
    held.join().unwrap();
    // A megabyte of answer is cut at the bound.
    let mut flood = b"HTTP/1.0 200 OK\r\n\r\n".to_vec();
    flood.extend(std::iter::repeat_n(b'x', 1 << 20));
    let e = netio::fetch(&serve(flood)).unwrap_err().to_string();
    assert!(e.contains("sent more than 64 KiB"), "{e}");
    // A web server that is not a Netio.
    let page = netio::fetch(&serve(b"HTTP/1.0 200 OK\r\n\r\n<html>hi</html>".to_vec())).unwrap();
    let e = netio::parse(&page).unwrap_err().to_string();
    assert!(e.contains("not a Netio"), "{e}");
}

#[test]
fn bad_power_spec_is_a_usage_error() {
    bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args(["run", "--fake-benchmarks", "--power", "kill-a-watt"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "error: invalid value 'kill-a-watt' for '--power <SPEC>': not a power meter",
        ));
}

/// A recorded FNB58 stream: `n` data reports of 5.0 V × 1.0 A, a report of another type
/// and one with a broken CRC among them (both skipped).
fn fnb58_stream(n: usize) -> Vec<u8> {
    use sbc_bench::sys::meter::fnirsi::encode;
    let mut out = Vec::new();
    for i in 0..n {
        let mut r = encode(&[(5.0, 1.0); 4]);
        if i == 3 {
            r[1] = 0x03;
        }
        if i == 5 {
            r[10] ^= 0xff;
        }
        out.extend_from_slice(&r);
    }
    out
}

fn plant_fnb58(root: &Path) {
    let dev = root.join("sys/class/hidraw/hidraw0/device");
    fs::create_dir_all(&dev).unwrap();
    fs::write(
        dev.join("uevent"),
        "DRIVER=hid-generic\nHID_ID=0003:00002E3C:00005558\nHID_NAME=FNIRSI USB Tester\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("dev")).unwrap();
    fs::write(root.join("dev/hidraw0"), fnb58_stream(400)).unwrap();
}

#[test]
fn power_fnb58_found_by_usb_id_in_a_fake_hidraw_stream() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    copy_tree(&fixture("rpi5"), &root);
    plant_fnb58(&root);
    let out = bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .args(["monitor", "0.05", "-n", "2", "--power", "fnirsi"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    let lines = table(&text);
    assert!(lines[0].ends_with("      mW"), "{text}");
    assert!(lines[1].ends_with("   5000"), "{}", lines[1]);
}

#[test]
fn power_ina3221_without_power_file_in_a_run() {
    let (doc, log, _) = fake_run(
        "rock-5b",
        |root| {
            let h = root.join("sys/class/hwmon/hwmon9");
            fs::create_dir_all(&h).unwrap();
            fs::write(h.join("name"), "ina3221\n").unwrap();
            fs::write(h.join("in1_input"), "5104\n").unwrap();
            fs::write(h.join("curr1_input"), "612\n").unwrap();
        },
        "hwmon:ina3221",
    );
    let p = &doc["power"];
    assert_eq!(p["meter"], "INA3221 (hwmon9, channel 1, V × I)");
    assert!(close(&p["idle_mw"], 5.104 * 612.0), "{p}");
    assert!(log.contains("Idle consumption: 3120 mW"), "{log}");
}

#[test]
fn hidraw_node_that_is_a_fifo_or_missing_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    copy_tree(&fixture("rpi5"), &root);
    let out = bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .args(["monitor", "0.05", "-n", "1", "--power", "fnirsi"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let e = String::from_utf8_lossy(&out);
    assert!(e.contains("no FNIRSI USB tester"), "{e}");
    // A FIFO where the node should be is refused at once, not read from.
    fs::create_dir_all(root.join("dev")).unwrap();
    let fifo = root.join("dev/hidraw7");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    bin()
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .args([
            "monitor",
            "0.05",
            "-n",
            "1",
            "--power",
            "fnirsi:/dev/hidraw7",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a hidraw device"));
}

/// Every mode reads the meter, not only the standard run: `thermal -M`, `wrap` and
/// `review` over a ROCK 5B copy with an INA3221 record power per phase in their JSON and
/// logs.
#[test]
fn power_in_thermal_wrap_and_review_modes() {
    for mode in ["thermal", "wrap", "review"] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        copy_tree(&fixture("rock-5b"), &root);
        let h = root.join("sys/class/hwmon/hwmon9");
        fs::create_dir_all(&h).unwrap();
        fs::write(h.join("name"), "ina3221\n").unwrap();
        fs::write(h.join("in1_input"), "5104\n").unwrap();
        fs::write(h.join("curr1_input"), "612\n").unwrap();
        let (log, json) = (tmp.path().join("l.log"), tmp.path().join("r.json"));
        let mut c = bin();
        c.env_remove("MODE")
            .env_remove("NOTUNING")
            .env_remove("NotReadyYet")
            .env_remove("ExecuteCommand")
            .env_remove("Netio")
            .arg("--sysroot")
            .arg(&root)
            .arg("--sysroot-writable")
            .arg(mode);
        match mode {
            "thermal" => c.args(["--memory-controller", "--duration", "1s"]),
            "review" => c.arg("--review").arg(tmp.path().join("review.md")),
            _ => &mut c,
        };
        c.args([
            "--fake-benchmarks",
            "--unattended",
            "--power",
            "hwmon:ina3221",
        ])
        .arg("--log")
        .arg(&log)
        .arg("--json")
        .arg(&json);
        match mode {
            "wrap" => c.args(["--", "true"]),
            "review" => c.args(["--", "true"]),
            _ => &mut c,
        };
        let out = c.output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0) | Some(3)),
            "{mode}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
        let p = &doc["power"];
        assert_eq!(
            p["meter"], "INA3221 (hwmon9, channel 1, V × I)",
            "{mode}: {p}"
        );
        let text = fs::read_to_string(&log).unwrap();
        assert!(text.contains("Power consumption"), "{mode}: {text}");
    }
}
