//! Uploads as clients make them: `sbc-bench share --to URL` (the multipart `file=` it has
//! always sent), a run JSON POST, curl-style bodies; the answer is the result's permanent
//! URL. One result per run (log and JSON of one run are one result), one document stored
//! once, redaction on the server whatever the client sent, the acceptance tags, the
//! moderators' token and the rate limits. Every test runs on SQLite and PostgreSQL.

use std::fs;

use crate::common::{
    Backend, Hub, fake_run, fixture_logs, on_each_backend, path_of, post_with, share,
};

#[test]
fn share_to_a_fresh_hub_prints_a_url_whose_page_shows_the_run() {
    on_each_backend(|b| {
        let tmp = tempfile::tempdir().unwrap();
        let (log, _) = fake_run("rock-5b", tmp.path());
        let hub = Hub::start(b, &[]);
        let (code, out, err) = share(&log, &hub.url);
        assert_eq!(code, Some(0), "{}: {out}{err}", b.name());
        let url = out.trim();
        assert!(url.starts_with(&format!("{}results/", hub.url)), "{url}");
        assert!(url.ends_with(".html"), "{url}");
        let page = hub.get(path_of(&hub, url));
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body.contains("sbc-bench report: Radxa ROCK 5B"),
            "{}",
            page.body
        );
        assert!(page.body.contains("id=\"validation\""));
        assert!(page.body.contains("id=\"chart-sevenzip\""));
        // The raw log is what share sent (redacted by share and again by the hub).
        let raw = hub.get(&path_of(&hub, url).replace(".html", ".txt"));
        assert_eq!(raw.status, 200);
        assert!(
            raw.body.starts_with("sbc-bench v"),
            "{}",
            &raw.body[..80.min(raw.body.len())]
        );
        assert_eq!(
            raw.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        // Sharing it again: the same URL.
        let (_, again, _) = share(&log, &hub.url);
        assert_eq!(again.trim(), url);
    });
}

#[test]
fn a_run_as_log_and_as_json_is_one_result_and_a_document_is_stored_once() {
    on_each_backend(|b| {
        let tmp = tempfile::tempdir().unwrap();
        let (log, json) = fake_run("rock-5b", tmp.path());
        let hub = Hub::start(b, &[]);
        let first = hub.post(
            "/api/v1/results",
            "application/json",
            &fs::read(&json).unwrap(),
        );
        assert_eq!(first.status, 201, "{}", first.body);
        let doc = first.json();
        assert_eq!(doc["schema"], "sbc-bench-hub-upload");
        assert_eq!(doc["outcome"], "created");
        let id = doc["id"].as_str().unwrap().to_string();
        assert_eq!(first.header("location"), doc["url"].as_str());
        // The log of the same run: the same result.
        let second = hub.upload("sbc-bench.log", &fs::read(&log).unwrap());
        assert_eq!(second.status, 200, "{}", second.body);
        assert_eq!(second.body.trim(), format!("{}results/{id}.html", hub.url));
        // The same JSON again: a duplicate, the same URL.
        let third = hub.post(
            "/api/v1/results",
            "application/json",
            &fs::read(&json).unwrap(),
        );
        assert_eq!(third.json()["outcome"], "duplicate");
        assert_eq!(third.json()["id"], id.as_str());
        let api = hub.get(&format!("api/v1/results/{id}.json")).json();
        let docs = api["result"]["documents"].as_array().unwrap();
        assert_eq!(docs.len(), 2, "{docs:?}");
        assert!(api["result"]["has_log"].as_bool().unwrap());
        let list = hub.get("api/v1/results.json?status=all").json();
        assert_eq!(list["total"], 1);
        // Both documents are served.
        assert_eq!(hub.get(&format!("results/{id}.json")).status, 200);
        assert_eq!(hub.get(&format!("results/{id}.txt")).status, 200);
    });
}

#[test]
fn an_upload_that_claims_another_results_identity_is_refused() {
    on_each_backend(|b| {
        let tmp = tempfile::tempdir().unwrap();
        let (log, _) = fake_run("rock-5b", tmp.path());
        let hub = Hub::start(b, &[]);
        let text = fs::read_to_string(&log).unwrap();
        let ok = hub.upload("a.log", text.as_bytes());
        assert_eq!(ok.status, 201, "{}", ok.body);
        // The same header (device, date, kernel), other figures.
        let row = text.lines().rev().find(|l| l.starts_with("| ")).unwrap();
        let cells: Vec<&str> = row.split('|').collect();
        let forged_row = row.replace(cells[5], " 999990 ");
        let forged = text.replace(row, &forged_row);
        assert_ne!(forged, text);
        let r = hub.upload("b.log", forged.as_bytes());
        assert_eq!(r.status, 409, "{}", r.body);
        assert!(r.body.contains("already holds this run"), "{}", r.body);
        assert_eq!(hub.get("api/v1/results.json?status=all").json()["total"], 1);
        let (results, documents) = sbc_bench_hub::store::totals(&b.open()).unwrap();
        assert_eq!((results, documents), (1, 1));
    });
}

#[test]
fn the_hub_redacts_what_the_client_did_not() {
    on_each_backend(|b| {
        let tmp = tempfile::tempdir().unwrap();
        let (log, json) = fake_run("x86-vm", tmp.path());
        let hub = Hub::start(b, &[]);
        let mut text = fs::read_to_string(&log).unwrap();
        text.push_str(
            "\nLinux 6.1.0-18-amd64 (secret-host-42) \t03/14/25 \t_x86_64_\t(2 CPU)\n\
             eth0: link/ether 2e:1a:c3:4f:00:9b inet 192.168.7.23/24\nSerial Number: ABC123456789\n\
             ssh user@secret-host-42 from /home/alice/bench\n",
        );
        let r = hub.upload("l.log", text.as_bytes());
        assert_eq!(r.status, 201, "{}", r.body);
        let id = r
            .body
            .trim()
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".html")
            .to_string();
        let raw = hub.get(&format!("results/{id}.txt")).body;
        for secret in [
            "secret-host-42",
            "2e:1a:c3:4f:00:9b",
            "192.168.7.23",
            "ABC123456789",
            "alice",
        ] {
            assert!(!raw.contains(secret), "{secret} kept:\n{raw}");
        }
        assert!(raw.contains("<hostname>") && raw.contains("<mac>") && raw.contains("<serial>"));
        // A run JSON: its hostname field and every string in it.
        let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
        doc["system_before"]["hostname"] = "secret-host-43".into();
        doc["sbc_bench_version"] = "0.1.0 on secret-host-43 at 10.1.2.3".into();
        let r = hub.post(
            "/api/v1/results",
            "application/json",
            doc.to_string().as_bytes(),
        );
        assert!(matches!(r.status, 200 | 201), "{}", r.body);
        let id = r.json()["id"].as_str().unwrap().to_string();
        let raw = hub.get(&format!("results/{id}.json")).body;
        assert!(
            !raw.contains("secret-host-43") && !raw.contains("10.1.2.3"),
            "{raw}"
        );
        // Nowhere in the database either.
        let db = b.open();
        let all = sbc_bench_hub::db::Db::read(&db, |s| s.query("SELECT body FROM documents", &[]))
            .unwrap();
        for row in all {
            let body = row.s(0);
            assert!(
                !body.contains("secret-host") && !body.contains("2e:1a:c3"),
                "stored: {body}"
            );
        }
    });
}

/// Upload a fixture log; its result in the API.
fn uploaded(hub: &Hub, name: &str) -> serde_json::Value {
    let r = hub.upload(name, &fs::read(fixture_logs().join(name)).unwrap());
    assert!(matches!(r.status, 200 | 201), "{name}: {}", r.body);
    let id = r
        .body
        .trim()
        .rsplit('/')
        .next()
        .unwrap()
        .trim_end_matches(".html")
        .to_string();
    hub.get(&format!("api/v1/results/{id}.json")).json()["result"].clone()
}

fn codes(r: &serde_json::Value) -> Vec<String> {
    r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn uploads_are_tagged_and_the_table_shows_verified_ones_by_default() {
    on_each_backend(|b| {
        let hub = Hub::start(b, &[]);
        // A Raspberry Pi 5 with a clean validation; a board that throttled; 7-Zip 9.20.
        let clean = uploaded(&hub, "1ULtUe.txt");
        let hot = uploaded(&hub, "Kojb.txt");
        let old = uploaded(&hub, "4IT1.txt");
        assert_eq!(clean["status"], "verified", "{:?}", codes(&clean));
        assert_eq!(hot["status"], "warnings", "{:?}", codes(&hot));
        assert!(codes(&hot).contains(&"throttling".to_string()));
        assert_eq!(old["status"], "not-comparable", "{:?}", codes(&old));
        assert!(codes(&old).contains(&"7zip-version".to_string()));
        let table = hub.get("/").body;
        let all = hub.get("/?status=all").body;
        let shown = |page: &str, r: &serde_json::Value| {
            page.contains(&format!("id=\"r-{}\"", r["id"].as_str().unwrap()))
        };
        assert!(shown(&table, &clean));
        assert!(!shown(&table, &hot) && !shown(&table, &old));
        assert!(shown(&all, &hot) && shown(&all, &old));
        // One click away: the default table links to the others.
        assert!(
            table.contains("Show the 2 results with warnings or not comparable too"),
            "{table}"
        );
        // The reasons are on the result's page.
        let page = hub
            .get(&format!("results/{}.html", old["id"].as_str().unwrap()))
            .body;
        assert!(page.contains("7-Zip 9.20 ran, not 16.02"), "{page}");
        let md = hub.get("Results.md").body;
        assert_eq!(md.lines().count(), 3, "{md}");
        assert!(
            md.contains("| [Raspberry Pi 5 Model B Rev 1.0 (BCM2712)](results/"),
            "{md}"
        );
    });
}

#[test]
fn moderation_needs_the_token_and_hides_retags_and_deletes() {
    on_each_backend(|b| {
        let tmp = tempfile::tempdir().unwrap();
        let token_file = tmp.path().join("token");
        fs::write(&token_file, "correct-horse-battery-staple\n").unwrap();
        let hub = Hub::start(b, &["--admin-token-file", token_file.to_str().unwrap()]);
        let r = hub.upload(
            "Kojb.txt",
            &fs::read(fixture_logs().join("Kojb.txt")).unwrap(),
        );
        let id = r
            .body
            .trim()
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".html")
            .to_string();
        let admin = |action: &str, token: &str, body: &str| {
            post_with(
                &format!("{}admin/results/{id}/{action}", hub.url),
                &[
                    ("Authorization", &format!("Bearer {token}")),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ],
                body.as_bytes(),
            )
        };
        assert_eq!(admin("hide", "wrong-token-wrong-token", "").status, 401);
        assert_eq!(admin("hide", "", "").status, 401);
        assert_eq!(hub.get(&format!("results/{id}.html")).status, 200);
        let h = admin("hide", "correct-horse-battery-staple", "");
        assert_eq!(h.status, 200, "{}", h.body);
        assert_eq!(hub.get(&format!("results/{id}.html")).status, 410);
        assert_eq!(hub.get("api/v1/results.json?status=all").json()["total"], 0);
        assert_eq!(
            admin("unhide", "correct-horse-battery-staple", "").status,
            200
        );
        let t = admin(
            "retag",
            "correct-horse-battery-staple",
            "status=not-comparable&reason=a+board+sample+with+a+fan",
        );
        assert_eq!(t.status, 200, "{}", t.body);
        let api = hub.get(&format!("api/v1/results/{id}.json")).json();
        assert_eq!(api["result"]["status"], "not-comparable");
        assert_eq!(
            api["result"]["override_reason"],
            "a board sample with a fan"
        );
        assert_eq!(
            admin(
                "retag",
                "correct-horse-battery-staple",
                "status=gold&reason=x"
            )
            .status,
            400
        );
        assert_eq!(
            admin(
                "retag",
                "correct-horse-battery-staple",
                "status=auto&reason=back"
            )
            .status,
            200
        );
        assert_eq!(
            admin("delete", "correct-horse-battery-staple", "").status,
            200
        );
        assert_eq!(hub.get(&format!("results/{id}.html")).status, 404);
        assert_eq!(sbc_bench_hub::store::totals(&b.open()).unwrap(), (0, 0));
        assert_eq!(
            admin("delete", "correct-horse-battery-staple", "").status,
            404
        );
    });
    // Without a token, moderation is off.
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    let r = post_with(
        &format!("{}admin/results/x/hide", hub.url),
        &[("Authorization", "Bearer anything-anything")],
        b"",
    );
    assert_eq!(r.status, 403);
}

#[test]
fn the_admin_token_is_never_taken_from_the_command_line() {
    let out = std::process::Command::new(crate::common::hub_bin())
        .args(["serve", "--data", "/nonexistent", "--admin-token", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument"));
}

#[test]
fn uploads_beyond_the_rate_limit_are_told_to_wait() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &["--upload-rate", "5"]);
    let log = fs::read(fixture_logs().join("Kojb.txt")).unwrap();
    let statuses: Vec<u16> = (0..8).map(|_| hub.upload("k.log", &log).status).collect();
    assert!(
        statuses[..5].iter().all(|s| matches!(s, 200 | 201)),
        "{statuses:?}"
    );
    let r = hub.upload("k.log", &log);
    assert_eq!(r.status, 429, "{statuses:?}");
    assert!(r.header("retry-after").is_some());
    assert!(r.body.contains("too many requests"), "{}", r.body);
    // Reading is a limit of its own.
    assert_eq!(hub.get("/").status, 200);
}
