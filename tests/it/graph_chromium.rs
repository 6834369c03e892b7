//! The efficiency graph's HTML page in a real browser: headless Chromium loads it from a
//! file with every host name unresolvable, takes a screenshot (a PNG that is not blank),
//! dumps the DOM it built (the SVG charts are there) and logs to stderr (no JavaScript or
//! CSP error, no request that tried to leave the page). Skipped, saying why, where
//! Chromium is not installed (Debian: `apt-get install chromium`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use crate::common::{bin, copy_tree, sysroot as fixture};

pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "chrome"]
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

/// Run Chromium headless on `page` with `extra` flags; (stdout, stderr).
pub fn headless(chrome: &Path, profile: &Path, page: &Path, extra: &[&str]) -> (String, String) {
    let out = Std::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            // Any request for another host fails (and is logged) instead of leaving.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1000,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// PNG → (width, height, RGBA-or-RGB rows unfiltered), 8-bit colour types 2 and 6 only
/// (what Chromium writes).
pub fn decode_png(png: &[u8]) -> (u32, u32, usize, Vec<u8>) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let mut pos = 8;
    let (mut w, mut h, mut bpp) = (0u32, 0u32, 0usize);
    let mut idat = Vec::new();
    while pos + 8 <= png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &png[pos + 4..pos + 8];
        let data = &png[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap());
                h = u32::from_be_bytes(data[4..8].try_into().unwrap());
                assert_eq!(data[8], 8, "8-bit");
                bpp = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
                assert_eq!(data[12], 0, "not interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    use std::io::Read;
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = w as usize * bpp;
    let mut out = vec![0u8; stride * h as usize];
    for y in 0..h as usize {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
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
            let v = match filter {
                0 => line[x],
                1 => line[x].wrapping_add(a),
                2 => line[x].wrapping_add(b),
                3 => line[x].wrapping_add(((a as u16 + b as u16) / 2) as u8),
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    let pred = if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    };
                    line[x].wrapping_add(pred)
                }
                f => panic!("filter {f}"),
            };
            out[y * stride + x] = v;
        }
    }
    (w, h, bpp, out)
}

#[test]
fn the_graph_page_renders_in_headless_chromium_offline_without_errors() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "skipped: Chromium is not installed (Debian/Ubuntu: apt-get install -y chromium); \
             the graph page is not checked in a browser"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rock-5b"), &root);
    fs::write(root.join("proc/loadavg"), "0.02 0.10 0.20 1/200 4242\n").unwrap();
    let page = tmp.path().join("graph.html");
    bin()
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "graph",
            "clusters",
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
        ])
        .arg("--log")
        .arg(tmp.path().join("l.log"))
        .arg("--html")
        .arg(&page)
        .assert()
        .success();
    let html = fs::read_to_string(&page).unwrap();
    // Nothing to fetch: no scripts, links, images or stylesheets from elsewhere.
    for needle in ["<script", "src=", "href=", "url(", "@import"] {
        assert!(!html.contains(needle), "the page holds {needle}");
    }
    let profile = tmp.path().join("profile");
    let shot = tmp.path().join("shot.png");
    let (_, log) = headless(
        &chrome,
        &profile,
        &page,
        &[&format!("--screenshot={}", shot.display())],
    );
    let png = fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot ({e}):\n{log}"));
    let (w, h, bpp, pixels) = decode_png(&png);
    assert_eq!((w, h), (1000, 1600), "{log}");
    // Not blank: the charts' lines in their colours, not one colour everywhere.
    let mut colours = std::collections::BTreeSet::new();
    let mut not_white = 0usize;
    for px in pixels.chunks(bpp) {
        colours.insert((px[0], px[1], px[2]));
        if px[..3] != [255, 255, 255] {
            not_white += 1;
        }
    }
    assert!(colours.len() > 20, "{} colours", colours.len());
    assert!(
        not_white > (w * h / 100) as usize,
        "{not_white} pixels drawn"
    );
    // The palette's first colour (the first cluster's line) is on screen.
    assert!(
        colours.contains(&(0x00, 0x72, 0xb2)),
        "the first series is drawn"
    );
    let lower = log.to_ascii_lowercase();
    for bad in [
        "uncaught",
        "content security policy",
        "err_name_not_resolved",
        "failed to load resource",
        ":error:console",
    ] {
        assert!(!lower.contains(bad), "chromium logged {bad}:\n{log}");
    }
    let (dom, log) = headless(&chrome, &profile, &page, &["--dump-dom"]);
    assert_eq!(dom.matches("<svg").count(), 1, "{log}");
    assert!(dom.contains("CPU 4-5 (Cortex-A76)"));
    assert!(dom.contains("Sysfs/Tested:  MIPS / Temp"));
}
