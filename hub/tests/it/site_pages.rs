//! The site as a reader meets it, on both databases: the table sorted by any column and
//! filtered, `/Results.md`, a SoC's and a device's history, compare, every JSON document
//! valid by its schema (hub/schema/), the exports, and the headers of every answer.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Backend, Hub, fake_run, fixture_logs, on_each_backend};

/// The hub's JSON Schemas, compiled.
pub struct Schemas {
    schemas: boon::Schemas,
    index: BTreeMap<String, boon::SchemaIndex>,
}

impl Schemas {
    pub fn load() -> Self {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema");
        let mut schemas = boon::Schemas::new();
        let mut c = boon::Compiler::new();
        c.set_default_draft(boon::Draft::V2020_12);
        let mut index = BTreeMap::new();
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let kind = name
                .strip_suffix(".schema.json")
                .expect("a schema file")
                .to_string();
            let v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            assert_eq!(v["properties"]["schema"]["const"], kind.as_str(), "{name}");
            let url = format!("file:///hub/schema/{name}");
            c.add_resource(&url, v).unwrap();
            let i = c
                .compile(&url, &mut schemas)
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
            index.insert(kind, i);
        }
        Self { schemas, index }
    }

    pub fn check(&self, what: &str, doc: &Value) {
        let kind = doc["schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no schema in {doc}"));
        let i = self
            .index
            .get(kind)
            .unwrap_or_else(|| panic!("{what}: no schema file for {kind}"));
        if let Err(e) = self.schemas.validate(doc, *i) {
            panic!("{what}: not valid by {kind}: {e:#}");
        }
    }
}

/// A hub with the fixture logs of every sbc-bench rule change and a fake run (as JSON).
fn seeded(b: &Backend) -> (Hub, tempfile::TempDir) {
    let hub = Hub::start(b, &[]);
    let tmp = tempfile::tempdir().unwrap();
    for e in fs::read_dir(fixture_logs()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            let r = hub.upload("log.txt", &fs::read(&p).unwrap());
            assert!(matches!(r.status, 200 | 201), "{}: {}", p.display(), r.body);
        }
    }
    let (_, json) = fake_run("rock-5b", tmp.path());
    let r = hub.post(
        "/api/v1/results",
        "application/json",
        &fs::read(json).unwrap(),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    (hub, tmp)
}

/// The ids of the table's rows, in page order.
fn row_ids(page: &str) -> Vec<String> {
    page.split("id=\"r-")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect()
}

#[test]
fn the_table_sorts_by_every_column_and_filters() {
    on_each_backend(|b| {
        let (hub, _tmp) = seeded(b);
        let api = hub.get("api/v1/results.json?status=all&limit=1000").json();
        let all = api["results"].as_array().unwrap().clone();
        assert_eq!(all.len(), 13);
        let value = |id: &str, key: &str| -> Value {
            all.iter().find(|r| r["id"] == id).unwrap()[key].clone()
        };
        for (col, key) in [
            ("7zip-multi", "sevenzip_multi"),
            ("aes", "aes256_16k"),
            ("memcpy", "memcpy"),
            ("khs", "scrypt"),
        ] {
            for dir in ["asc", "desc"] {
                let page = hub.get(&format!("?status=all&sort={col}&dir={dir}")).body;
                let ids = row_ids(&page);
                assert_eq!(ids.len(), 13, "{col} {dir}");
                let vals: Vec<f64> = ids.iter().filter_map(|i| value(i, key).as_f64()).collect();
                let sorted = vals.windows(2).all(|w| {
                    if dir == "asc" {
                        w[0] <= w[1]
                    } else {
                        w[0] >= w[1]
                    }
                });
                assert!(sorted, "{col} {dir}: {vals:?}");
                // Results without the figure come last either way.
                let firsts_missing = ids.iter().position(|i| value(i, key).is_null());
                if let Some(p) = firsts_missing {
                    assert!(
                        ids[p..].iter().all(|i| value(i, key).is_null()),
                        "{col} {dir}"
                    );
                }
                // The API sorts the same way.
                let a = hub
                    .get(&format!(
                        "api/v1/results.json?status=all&sort={col}&dir={dir}"
                    ))
                    .json();
                let api_ids: Vec<&str> = a["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["id"].as_str().unwrap())
                    .collect();
                assert_eq!(api_ids, ids, "{col} {dir}");
            }
        }
        for col in [
            "device",
            "clock",
            "kernel",
            "distro",
            "7zip-single",
            "memset",
            "soc",
            "date",
        ] {
            assert_eq!(
                row_ids(&hub.get(&format!("?status=all&sort={col}&dir=desc")).body).len(),
                13,
                "{col}"
            );
        }
        // Filters.
        let ids = |q: &str| row_ids(&hub.get(&format!("?status=all&{q}")).body);
        let rk = ids("soc=RK3588");
        assert!(
            !rk.is_empty() && rk.iter().all(|i| value(i, "soc") == "RK3588"),
            "{rk:?}"
        );
        let a76 = ids("core=cortex-a76");
        assert!(a76.iter().all(|i| {
            value(i, "core_types")
                .as_str()
                .unwrap_or("")
                .contains("Cortex-A76")
        }));
        assert!(!a76.is_empty());
        let armhf = ids("arch=armhf");
        assert!(!armhf.is_empty() && armhf.iter().all(|i| value(i, "arch") == "armhf"));
        let k = ids("kernel=5.10");
        assert!(!k.is_empty() && k.iter().all(|i| value(i, "kernel_series") == "5.10"));
        let since = ids("since=2025-01-01");
        assert!(
            since
                .iter()
                .all(|i| value(i, "run_date").as_str().unwrap_or("0") >= "2025")
        );
        let until = ids("until=2022-12-31");
        assert!(
            !until.is_empty()
                && until
                    .iter()
                    .all(|i| value(i, "run_date").as_str().unwrap() < "2023")
        );
        assert!(ids("distro=bullseye").len() < 13);
        assert!(ids("soc=nothing-such").is_empty());
        // Pages.
        let p1 = hub.get("api/v1/results.json?status=all&limit=5").json();
        let p3 = hub
            .get("api/v1/results.json?status=all&limit=5&page=3")
            .json();
        assert_eq!(
            (
                p1["results"].as_array().unwrap().len(),
                p3["results"].as_array().unwrap().len()
            ),
            (5, 3)
        );
        assert_eq!(p1["total"], 13);
        let page = hub.get("/").body;
        assert!(page.contains("<form class=\"filters\""), "no filter form");
        assert!(page.contains("aria-sort=\"ascending\""));
    });
}

#[test]
fn soc_device_and_compare_pages_and_every_json_document_by_its_schema() {
    let schemas = Schemas::load();
    on_each_backend(|b| {
        let (hub, _tmp) = seeded(b);
        let list = hub.get("api/v1/results.json?status=all&limit=100").json();
        schemas.check("results", &list);
        let results = list["results"].as_array().unwrap();
        let rock = results
            .iter()
            .filter(|r| r["soc"] == "RK3588")
            .collect::<Vec<_>>();
        assert!(rock.len() >= 2, "{rock:?}");
        // The SoC's page: every result, the charts, the regressions section.
        let soc = hub.get("soc/rk3588.html");
        assert_eq!(soc.status, 200);
        for id in [
            "chart-7zip",
            "chart-aes",
            "chart-memory",
            "chart-latency",
            "chart-kernels-7zip-multi",
            "chart-kernels-memcpy",
            "regressions",
        ] {
            assert!(soc.body.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(soc.body.matches("<svg").count() >= 4, "charts drawn");
        for r in &rock {
            assert!(
                soc.body
                    .contains(&format!("results/{}.html", r["id"].as_str().unwrap()))
            );
        }
        let dev = rock[0]["device_slug"].as_str().unwrap();
        assert_eq!(hub.get(&format!("device/{dev}.html")).status, 200);
        assert_eq!(hub.get("soc/no-such-soc.html").status, 404);
        assert_eq!(hub.get("socs.html").status, 200);
        assert!(
            hub.get("devices.html")
                .body
                .contains(&format!("device/{dev}.html"))
        );
        // The JSON of each.
        schemas.check("soc", &hub.get("api/v1/soc/rk3588.json").json());
        schemas.check(
            "device",
            &hub.get(&format!("api/v1/device/{dev}.json")).json(),
        );
        schemas.check("socs", &hub.get("api/v1/socs.json").json());
        schemas.check("devices", &hub.get("api/v1/devices.json").json());
        for r in results {
            let id = r["id"].as_str().unwrap();
            schemas.check(id, &hub.get(&format!("api/v1/results/{id}.json")).json());
            assert_eq!(hub.get(&format!("results/{id}.html")).status, 200, "{id}");
        }
        // Compare: two to four.
        let ids: Vec<&str> = results
            .iter()
            .take(4)
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let page = hub.get(&format!("compare.html?ids={}", ids[..3].join(",")));
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body.contains("id=\"compare-metrics\"") && page.body.contains("Why they differ")
        );
        let by_form = hub.get(&format!("compare.html?id={}&id={}", ids[0], ids[1]));
        assert_eq!(by_form.status, 200);
        let c = hub
            .get(&format!("api/v1/compare.json?ids={}", ids.join(",")))
            .json();
        schemas.check("compare", &c);
        assert_eq!(c["comparison"]["ids"].as_array().unwrap().len(), 4);
        assert!(!c["comparison"]["reasons"].as_array().unwrap().is_empty());
        assert_eq!(hub.get(&format!("compare.html?ids={}", ids[0])).status, 400);
        let five = results
            .iter()
            .take(5)
            .map(|r| r["id"].as_str().unwrap())
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(hub.get(&format!("compare.html?ids={five}")).status, 400);
        assert_eq!(
            hub.get(&format!("compare.html?ids={},nothere", ids[0]))
                .status,
            404
        );
        let err = hub.get("api/v1/compare.json?ids=x");
        assert_eq!(err.status, 400);
        schemas.check("error", &err.json());
        // Exports.
        let export = hub.get("export/results.json").json();
        schemas.check("export", &export);
        assert_eq!(export["results"].as_array().unwrap().len(), 13);
        let csv = hub.get("export/results.csv");
        assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
        assert_eq!(csv.body.lines().count(), 14);
        assert!(
            csv.body.starts_with("id,label,device,device_slug,soc,"),
            "{}",
            &csv.body[..100]
        );
        let md = hub.get("Results.md");
        assert_eq!(
            md.header("content-type"),
            Some("text/markdown; charset=utf-8")
        );
        assert!(md.body.starts_with(sbc_bench_hub::resultsmd::HEADER));
        // An upload's JSON answer.
        let up = hub.post(
            "/api/v1/results",
            "application/json",
            &fs::read(fixture_logs().join("Kojb.txt")).unwrap(),
        );
        schemas.check("upload", &up.json());
    });
}

#[test]
fn every_answer_carries_the_security_headers() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    for path in [
        "/",
        "hub.css",
        "Results.md",
        "api/v1/results.json",
        "no-such-page",
        "results/zz.html",
    ] {
        let r = hub.get(path);
        let csp = r
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{path}: no CSP"));
        assert!(
            csp.starts_with("default-src 'none'; style-src 'self'"),
            "{path}: {csp}"
        );
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
    }
    assert_eq!(hub.get("no-such-page").status, 404);
    let r = hub.post("/index.html", "text/plain", b"x");
    assert_eq!(r.status, 405);
}
