//! The fleet files that ship beside the binary (issue 29, item 6): the Grafana dashboard
//! (contrib/grafana/sbc-bench.json) and the systemd units (contrib/systemd/). The
//! dashboard is loaded as JSON and every sbc-bench metric its queries name is one the
//! exporter writes; every unit's command line is one our CLI accepts.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn grafana_dashboard_loads_and_names_only_exported_metrics() {
    let text = std::fs::read_to_string(root().join("contrib/grafana/sbc-bench.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    assert!(dash["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(dash["uid"].as_str().is_some_and(|t| !t.is_empty()));
    let panels = dash["panels"].as_array().expect("panels");
    assert!(panels.len() >= 6, "{} panels", panels.len());
    let exporter = std::fs::read_to_string(root().join("src/report/prometheus.rs")).unwrap();
    let docs = std::fs::read_to_string(root().join("docs/PROMETHEUS.md")).unwrap();
    let name = regex_lite::Regex::new(r"\bsbc_bench_[a-z0-9_]+").unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for p in panels {
        assert!(
            ids.insert(p["id"].as_u64().expect("panel id")),
            "duplicate id"
        );
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{}: no query", p["title"]);
        for t in targets {
            let expr = t["expr"].as_str().expect("expr");
            let names: Vec<&str> = name.find_iter(expr).map(|m| m.as_str()).collect();
            assert!(!names.is_empty(), "{expr}: no sbc-bench metric");
            for n in names {
                assert!(
                    exporter.contains(&format!("\"{n}\"")),
                    "{n} (in {expr}) is not exported"
                );
                assert!(
                    docs.contains(&format!("`{n}`")),
                    "{n} is not in docs/PROMETHEUS.md"
                );
            }
            // Brackets and parentheses balance: a query Grafana can send.
            for (o, c) in [('(', ')'), ('{', '}'), ('[', ']')] {
                assert_eq!(expr.matches(o).count(), expr.matches(c).count(), "{expr}");
            }
        }
    }
}

/// The value of `Key=` lines of a unit file, with `Environment="K=V"` expanded.
fn unit_exec(text: &str) -> Vec<String> {
    let mut env = std::collections::BTreeMap::new();
    for l in text.lines() {
        if let Some(v) = l.strip_prefix("Environment=") {
            for part in v.split('"').filter(|p| p.contains('=')) {
                let (k, v) = part.trim().split_once('=').unwrap();
                env.insert(k.to_string(), v.to_string());
            }
        }
    }
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart");
    let mut words = Vec::new();
    for w in exec.split_whitespace() {
        let key = w
            .trim_start_matches("${")
            .trim_start_matches('$')
            .trim_end_matches('}');
        if w.starts_with('$') {
            words.extend(env[key].split_whitespace().map(String::from));
        } else {
            words.push(w.to_string());
        }
    }
    words
}

#[test]
fn systemd_units_run_a_command_line_we_accept() {
    let dir = root().join("contrib/systemd");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        for section in ["[Unit]", "[Service]", "[Install]"] {
            assert!(text.contains(section), "{}: no {section}", p.display());
        }
        let argv = unit_exec(&text);
        assert_eq!(argv[0], "/usr/bin/sbc-bench", "{}", p.display());
        assert_eq!(argv[1], "monitor", "{}", p.display());
        assert!(argv.iter().any(|a| a == "--quiet"), "{}", p.display());
        let parsed = sbc_bench::cli::Cli::try_parse_argv(
            &argv
                .iter()
                .map(std::ffi::OsString::from)
                .collect::<Vec<_>>(),
        );
        assert!(
            parsed.is_ok(),
            "{}: {argv:?}: {:?}",
            p.display(),
            parsed.err()
        );
        n += 1;
    }
    assert_eq!(n, 2, "the monitor and the textfile units");
}
