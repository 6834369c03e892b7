//! The report page's two forms, HTML and Markdown, drawn from the one table model
//! (`report::page::table`): tested here, beside both, so neither form's module imports the
//! other.

use crate::record::read::{fixture_rock5b, fixture_rock5b_openssl};
use crate::report::page::ReportData;
use crate::report::page::table::*;
use crate::report::page::{html, markdown};

/// The tables both forms draw (the page shows the bandwidth and the comparison as
/// bar charts only).
fn tables(d: &ReportData) -> Vec<PageTable> {
    let mut t = vec![summary(d), topology(d), clocks(d), aes(d), sevenzip(d)];
    t.extend(d.latency.iter().map(latency));
    t.extend(d.monitor.iter().map(phases));
    t
}

#[test]
fn the_page_and_its_markdown_draw_the_same_tables() {
    let d = ReportData::from_run(&fixture_rock5b());
    let (page, md) = (html::render(&d), markdown::render(&d));
    for t in tables(&d) {
        assert!(!t.is_empty(), "{:?}", t.head);
        for row in t.rows.iter().take(3) {
            let escaped: Vec<String> = row
                .iter()
                .map(|c| crate::report::page::svg::escape(c))
                .collect();
            let html_row = format!("<td>{}</td>", escaped[0]);
            assert!(page.contains(&html_row), "{html_row}");
            let md_row = format!("| {} |", row.join(" | ").replace('\n', " "));
            assert!(md.contains(&md_row), "{md_row}");
        }
    }
}

/// Issue 28: a run that measured AES with OpenSSL had "No chart: no AES results in the
/// run" on its page and no AES table in its Markdown.
#[test]
fn openssl_aes_rows_are_on_the_page_and_in_the_markdown() {
    for both in [false, true] {
        let d = ReportData::from_run(&fixture_rock5b_openssl(both));
        let (page, md) = (html::render(&d), markdown::render(&d));
        assert!(!page.contains("no AES results"), "{page}");
        assert!(page.contains("<td>aes-256-cbc (OpenSSL)</td>"));
        assert!(
            md.contains("| aes-256-cbc (OpenSSL) | cpu4-5 (Cortex-A76) |"),
            "{md}"
        );
        assert_eq!(
            md.contains("| aes-256-cbc | cpu4-5 (Cortex-A76) |"),
            both,
            "{md}"
        );
    }
}

/// Issue 28: the native all-cores LZMA rating (`native_multi`) reached neither the page
/// nor the Markdown; with OpenSSL's AES rows beside it, both are drawn.
#[test]
fn native_multi_and_openssl_rows_are_on_the_page_and_in_the_markdown() {
    let mut r = fixture_rock5b_openssl(true);
    r.results.sevenzip.as_mut().expect("7-Zip ran").native_multi =
        Some(crate::bench::lzma::LzmaRun {
            cpus: (0..8).collect(),
            dicts: Vec::new(),
            compress_rating_mips: 14_000.0,
            decompress_rating_mips: 20_000.0,
            total_rating_mips: 17_000.0,
            elapsed_s: 1.0,
        });
    let d = ReportData::from_run(&r);
    let (page, md) = (html::render(&d), markdown::render(&d));
    assert!(
        md.contains("| all cores | native LZMA | 14000 | 20000 | 17000 |"),
        "{md}"
    );
    assert!(page.contains("<td>native LZMA</td>"), "{page}");
    assert!(page.contains("<td class=\"n\">17000</td>"), "{page}");
    assert!(md.contains("| aes-256-cbc (OpenSSL) |") && md.contains("| aes-256-cbc |"));
}
