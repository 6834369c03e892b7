//! `sbc-bench-hub export-site`: the whole site as files that need no hub — the same
//! Results.md the hub serves, a page and the raw document of every result, the JSON
//! documents, the exports; every link in every page resolves to a file of the export; a
//! directory that holds anything is refused and left as it was.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Hub, fake_run, fixture_logs, hub_bin, on_each_backend};
use crate::site_pages::Schemas;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every `href="…"` of a page.
fn links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().replace("&amp;", "&"))
        .collect()
}

#[test]
fn the_static_export_is_the_site_and_its_links_resolve() {
    let schemas = Schemas::load();
    on_each_backend(|b| {
        let hub = Hub::start(b, &[]);
        for e in fs::read_dir(fixture_logs()).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "txt") {
                hub.upload("l.txt", &fs::read(&p).unwrap());
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let (_, json) = fake_run("rock-5b", tmp.path());
        assert_eq!(
            hub.post(
                "/api/v1/results",
                "application/json",
                &fs::read(json).unwrap()
            )
            .status,
            201
        );
        let out = tmp.path().join("mirror");
        let r = Command::new(hub_bin())
            .arg("export-site")
            .args(b.args())
            .arg(&out)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        // The same Results.md and JSON export as the live hub.
        assert_eq!(
            fs::read_to_string(out.join("Results.md")).unwrap(),
            hub.get("Results.md").body
        );
        let live: serde_json::Value = hub.get("export/results.json").json();
        let file: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(out.join("export/results.json")).unwrap())
                .unwrap();
        assert_eq!(live["results"], file["results"]);
        // Every result: its page, its raw documents, its JSON.
        for r in live["results"].as_array().unwrap() {
            let id = r["id"].as_str().unwrap();
            assert!(out.join(format!("results/{id}.html")).is_file(), "{id}");
            let raw = fs::read_to_string(out.join(r["raw"].as_str().unwrap())).unwrap();
            assert_eq!(raw, hub.get(r["raw"].as_str().unwrap()).body, "{id}");
            let doc: serde_json::Value = serde_json::from_str(
                &fs::read_to_string(out.join(format!("api/v1/results/{id}.json"))).unwrap(),
            )
            .unwrap();
            schemas.check(id, &doc);
        }
        // Every link of every page resolves inside the export.
        let mut files = Vec::new();
        walk(&out, &mut files);
        let mut broken = Vec::new();
        let mut pages = 0;
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|x| x == "html"))
        {
            pages += 1;
            let html = fs::read_to_string(f).unwrap();
            assert!(
                !html.contains("<form"),
                "{}: a form in a static page",
                f.display()
            );
            for l in links(&html) {
                if l.starts_with("https://") || l.starts_with("http://") {
                    assert!(
                        l.starts_with("https://github.com/ThomasKaiser/sbc-bench"),
                        "{}: {l}",
                        f.display()
                    );
                    continue;
                }
                let target = f
                    .parent()
                    .unwrap()
                    .join(l.split(['?', '#']).next().unwrap());
                if !target.is_file() {
                    broken.push(format!("{} → {l}", f.strip_prefix(&out).unwrap().display()));
                }
            }
        }
        assert!(pages > 30, "{pages} pages");
        assert!(
            broken.is_empty(),
            "{} broken links:\n{}",
            broken.len(),
            broken.join("\n")
        );
        // Into a directory that holds something: refused, nothing touched.
        let again = Command::new(hub_bin())
            .arg("export-site")
            .args(b.args())
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty"));
        let mut after = Vec::new();
        walk(&out, &mut after);
        assert_eq!(after.len(), files.len());
    });
}
