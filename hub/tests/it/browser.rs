//! The hub's pages in a real browser: headless Chromium loads them from a live hub over
//! HTTP, with every host name unresolvable (nothing may come from elsewhere), at a desktop
//! and a phone width; the screenshots are not blank, Chromium logs no console, CSP or
//! load error, and the DOM it built holds what each page is for. Among them: the page
//! whose URL `sbc-bench share --to` printed. Skipped, saying why, where Chromium is not
//! installed (CI installs it). `SBC_BENCH_KEEP_SHOTS=DIR` keeps the screenshots.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Backend, Hub, fake_run, fixture_logs, path_of, share};

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "chrome"]
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

/// Chromium headless on `url` with `extra` flags; (stdout, stderr).
fn headless(chrome: &Path, url: &str, extra: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            // Any request for another host fails, and is logged, instead of leaving.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// PNG → (width, height, bytes per pixel, pixels), 8-bit RGB or RGBA (what Chromium
/// writes), every row unfiltered.
fn decode_png(png: &[u8]) -> (u32, u32, usize, Vec<u8>) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let (mut pos, mut w, mut h, mut bpp, mut idat) = (8, 0u32, 0u32, 0usize, Vec::new());
    while pos + 8 <= png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
        let data = &png[pos + 8..pos + 8 + len];
        match &png[pos + 4..pos + 8] {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap());
                h = u32::from_be_bytes(data[4..8].try_into().unwrap());
                bpp = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = w as usize * bpp;
    let mut out = vec![0u8; stride * h as usize];
    for y in 0..h as usize {
        let filter = raw[y * (stride + 1)];
        for x in 0..stride {
            let v = raw[y * (stride + 1) + 1 + x];
            let a = if x >= bpp {
                out[y * stride + x - bpp]
            } else {
                0
            };
            let b = if y > 0 { out[(y - 1) * stride + x] } else { 0 };
            let c = if x >= bpp && y > 0 {
                out[(y - 1) * stride + x - bpp]
            } else {
                0
            };
            out[y * stride + x] = match filter {
                0 => v,
                1 => v.wrapping_add(a),
                2 => v.wrapping_add(b),
                3 => v.wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    v.wrapping_add(if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    })
                }
                f => panic!("filter {f}"),
            };
        }
    }
    (w, h, bpp, out)
}

fn no_errors(what: &str, log: &str) {
    let lower = log.to_ascii_lowercase();
    for bad in [
        "uncaught",
        "content security policy",
        "refused to",
        "err_name_not_resolved",
        "failed to load resource",
        ":error:console",
    ] {
        assert!(
            !lower.contains(bad),
            "{what}: chromium logged {bad}:\n{log}"
        );
    }
}

/// Screenshots at a desktop and a phone width: not blank, coloured.
fn shots(chrome: &Path, url: &str, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (w, h) in [(1200u32, 1800u32), (390, 1400)] {
        let shot = dir.path().join(format!("hub-{name}-{w}.png"));
        let (_, log) = headless(
            chrome,
            url,
            &[
                &format!("--window-size={w},{h}"),
                &format!("--screenshot={}", shot.display()),
            ],
        );
        let png = fs::read(&shot).unwrap_or_else(|e| panic!("{name}: no screenshot ({e}):\n{log}"));
        let (pw, ph, bpp, px) = decode_png(&png);
        assert_eq!((pw, ph), (w, h), "{name}");
        let mut colours = std::collections::BTreeSet::new();
        let mut ink = 0usize;
        for p in px.chunks(bpp) {
            colours.insert((p[0], p[1], p[2]));
            if p[..3] != [255, 255, 255] {
                ink += 1;
            }
        }
        assert!(
            colours.len() > 20,
            "{name} at {w}px: {} colours",
            colours.len()
        );
        assert!(ink > (w * h / 100) as usize, "{name} at {w}px: blank");
        no_errors(&format!("{name} at {w}px"), &log);
        if let Some(keep) = std::env::var_os("SBC_BENCH_KEEP_SHOTS") {
            fs::create_dir_all(&keep).unwrap();
            fs::copy(&shot, Path::new(&keep).join(shot.file_name().unwrap())).unwrap();
        }
    }
}

/// The DOM Chromium built (after parsing, styles applied).
fn dom(chrome: &Path, url: &str, name: &str) -> String {
    let (dom, log) = headless(chrome, url, &["--dump-dom"]);
    no_errors(name, &log);
    assert!(dom.contains("</html>"), "{name}: {dom}");
    dom
}

#[test]
fn the_hubs_pages_render_in_headless_chromium_without_errors() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "skipped: Chromium is not installed (apt-get install -y chromium); the hub's pages are not checked in a browser"
        );
        return;
    };
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    let tmp = tempfile::tempdir().unwrap();
    for name in ["Kojb.txt", "41BH.txt", "1ULtUe.txt", "4IT1.txt", "3Ntu.txt"] {
        assert!(matches!(
            hub.upload(name, &fs::read(fixture_logs().join(name)).unwrap())
                .status,
            200 | 201
        ));
    }
    // The run shared as users share it, and its JSON.
    let (log, json) = fake_run("rock-5b", tmp.path());
    let (code, out, err) = share(&log, &hub.url);
    assert_eq!(code, Some(0), "{out}{err}");
    let shared = out.trim().to_string();
    let r = hub.post(
        "/api/v1/results",
        "application/json",
        &fs::read(json).unwrap(),
    );
    assert_eq!(
        r.status, 200,
        "the JSON of the shared run is the same result: {}",
        r.body
    );
    assert_eq!(r.json()["url"], shared.as_str());
    // Its checks are now the JSON's: a fake run measured nothing.
    assert_eq!(r.json()["status"], "not-comparable");

    // The shared run's page shows its report: every chart's figure, drawn from the JSON.
    let page = dom(&chrome, &shared, "result");
    for id in [
        "validation",
        "verdict",
        "summary",
        "chart-clocks",
        "chart-latency",
        "chart-sevenzip",
        "chart-monitor-clock",
        "chart-comparison",
    ] {
        assert!(
            page.contains(&format!("id=\"{id}\"")),
            "result page: no #{id}"
        );
    }
    assert!(page.contains("sbc-bench report: Radxa ROCK 5B"));
    assert!(page.matches("<svg").count() >= 6, "charts drawn");
    shots(&chrome, &shared, "result");

    let table = dom(&chrome, &format!("{}?status=all", hub.url), "table");
    assert!(table.contains("<table class=\"results\">") && table.contains("Radxa ROCK 5B"));
    shots(
        &chrome,
        &format!("{}?status=all&sort=7zip-multi&dir=desc", hub.url),
        "table",
    );

    let soc = format!("{}soc/rk3588.html", hub.url);
    let d = dom(&chrome, &soc, "soc");
    assert!(d.contains("id=\"chart-7zip\"") && d.contains("id=\"chart-kernels-aes\""));
    shots(&chrome, &soc, "soc");

    let list = hub.get("api/v1/results.json?status=all").json();
    let ids: Vec<&str> = list["results"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let cmp = format!("{}compare.html?ids={}", hub.url, ids.join(","));
    let d = dom(&chrome, &cmp, "compare");
    assert!(d.contains("id=\"compare-metrics\""));
    shots(&chrome, &cmp, "compare");

    let dev = list["results"][0]["device_slug"]
        .as_str()
        .unwrap()
        .to_string();
    for (p, what) in [
        (format!("device/{dev}.html"), "device"),
        ("about.html".to_string(), "about"),
        ("socs.html".to_string(), "socs"),
        ("no-such-page".to_string(), "404"),
    ] {
        dom(&chrome, &format!("{}{p}", hub.url), what);
    }
    // The link the table gives a result goes where share's URL goes.
    let id = path_of(&hub, &shared)
        .trim_start_matches("results/")
        .trim_end_matches(".html")
        .to_string();
    assert!(table.contains(&format!("href=\"results/{id}.html\"")));
}
