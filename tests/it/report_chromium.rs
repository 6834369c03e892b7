//! The HTML report in a real browser: the pages of two fixtures' fake runs (rock-5b, three
//! clusters with cpufreq; x86-vm, without cpufreq or sensors) load in headless Chromium
//! with every host name unresolvable, at a desktop and a phone width; the screenshots are
//! not blank, nothing is logged as an error, and the DOM Chromium built holds every chart
//! (drawn, or the sentence saying why not). Skipped, saying why, where Chromium is not
//! installed. `SBC_BENCH_KEEP_SHOTS=DIR` keeps the screenshots there for a look.

use std::fs;
use std::path::Path;

use crate::graph_chromium::{chromium, decode_png, headless};
use crate::report_run::{CHART_IDS, fake_run};

fn check_page(chrome: &Path, dir: &Path, page: &Path, name: &str, svgs: usize) {
    let profile = dir.join("profile");
    for (w, h) in [(1000u32, 2400u32), (390, 1800)] {
        let shot = dir.join(format!("{name}-{w}.png"));
        let (_, log) = headless(
            chrome,
            &profile,
            page,
            &[
                &format!("--window-size={w},{h}"),
                &format!("--screenshot={}", shot.display()),
            ],
        );
        let png = fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot ({e}):\n{log}"));
        let (pw, ph, bpp, pixels) = decode_png(&png);
        assert_eq!((pw, ph), (w, h), "{log}");
        let mut colours = std::collections::BTreeSet::new();
        let mut not_white = 0usize;
        for px in pixels.chunks(bpp) {
            colours.insert((px[0], px[1], px[2]));
            if px[..3] != [255, 255, 255] {
                not_white += 1;
            }
        }
        assert!(
            colours.len() > 20,
            "{name} at {w}px: {} colours",
            colours.len()
        );
        assert!(not_white > (w * h / 100) as usize, "{name} at {w}px: blank");
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
        if let Some(keep) = std::env::var_os("SBC_BENCH_KEEP_SHOTS") {
            let keep = Path::new(&keep);
            fs::create_dir_all(keep).unwrap();
            fs::copy(&shot, keep.join(shot.file_name().unwrap())).unwrap();
        }
    }
    let (dom, log) = headless(chrome, &profile, page, &["--dump-dom"]);
    for id in CHART_IDS {
        assert!(
            dom.contains(&format!("id=\"{id}\"")),
            "{name}: {id} missing\n{log}"
        );
    }
    assert_eq!(dom.matches("<svg").count(), svgs, "{name}");
}

#[test]
fn report_pages_render_in_headless_chromium_at_desktop_and_phone_widths() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "skipped: Chromium is not installed (Debian/Ubuntu: apt-get install -y chromium); \
             the report page is not checked in a browser"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let rock = tmp.path().join("rock-5b");
    fake_run("rock-5b", &rock, |_| {});
    // Clocks, 3 latency curves, bandwidth, AES, 7-Zip, clock and temperature over time,
    // the RK3588 rows.
    check_page(&chrome, tmp.path(), &rock.join("run.html"), "rock-5b", 10);
    let vm = tmp.path().join("x86-vm");
    fake_run("x86-vm", &vm, |_| {});
    let html = fs::read_to_string(vm.join("run.html")).unwrap();
    assert!(
        html.contains("No chart: no cpufreq OPPs were measured"),
        "{html}"
    );
    let drawn = html.matches("<svg").count();
    assert!(drawn >= 4, "{drawn} charts drawn on x86-vm");
    check_page(&chrome, tmp.path(), &vm.join("run.html"), "x86-vm", drawn);
}

/// Issue 31: the report of a published RK3588 log (41BH, v0.9.8) in a real browser: its
/// clock, latency, bandwidth, AES, 7-Zip and health charts load and draw.
#[test]
fn the_report_of_a_published_rk3588_log_renders_in_headless_chromium() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "skipped: Chromium is not installed (Debian/Ubuntu: apt-get install -y chromium)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (page, html) = crate::report_run::log_page(tmp.path(), "41BH");
    let drawn = crate::report_run::drawn(&html);
    assert!(drawn.len() >= 8, "{drawn:?}");
    check_page(
        &chrome,
        tmp.path(),
        &page,
        "41BH",
        html.matches("<svg").count(),
    );
}
