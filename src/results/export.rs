//! `results export`: the stored runs' columns as CSV or YAML (JSON is serde's). Every
//! field of [`Entry`], in the order of [`entry_fields`]; a missing value is an empty CSV
//! cell and a YAML `null`.

use crate::results::store::{Entry, entry_fields};

/// CSV with a header line (RFC 4180 quoting, by the csv crate).
pub fn csv(rows: &[Entry]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    // The header is written from the field names, so an empty database still says what
    // its columns are.
    w.write_record(entry_fields())?;
    let mut w = {
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(bytes)
    };
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A YAML sequence of mappings, one per run. Strings are double-quoted with JSON's
/// escapes (valid YAML double-quoted scalars), so no value can be read as another type
/// (`no`, `1.10`, `~`) or break the structure.
pub fn yaml(rows: &[Entry]) -> String {
    let fields = entry_fields();
    if rows.is_empty() {
        return "[]\n".to_string();
    }
    let mut out = String::new();
    for r in rows {
        let v = serde_json::to_value(r).unwrap_or_default();
        for (i, f) in fields.iter().enumerate() {
            let value = match &v[*f] {
                serde_json::Value::Null => "null".to_string(),
                serde_json::Value::String(s) => {
                    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
                }
                other => other.to_string(),
            };
            out.push_str(if i == 0 { "- " } else { "  " });
            out.push_str(f);
            out.push_str(": ");
            out.push_str(&value);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            id: 3,
            stored_at: "2026-12-01T10:00:00Z".into(),
            source: "import".into(),
            source_path: Some("~/logs/a,b\"c.txt".into()),
            document_kind: "sbc-bench log".into(),
            date: None,
            tool_version: Some("0.9.72".into()),
            mode: None,
            device: Some("Radxa ROCK 5B".into()),
            soc: Some("RK3588".into()),
            core_types: Some("Cortex-A55, Cortex-A76".into()),
            kernel: Some("no".into()),
            kernel_bsp: Some(true),
            distro: None,
            machine: None,
            clock: Some("2400/1800 MHz".into()),
            clocks_measured: Some("1794/2350".into()),
            sevenzip_multi: Some(16280),
            sevenzip_single: None,
            aes256_16k: Some(1_337_000.5),
            memcpy_mb_s: None,
            memset_mb_s: None,
            scrypt_khs: None,
            ramlat_16m_ns: None,
            ramlat_128m_ns: Some(120.5),
            verdict: Some("ok".into()),
            throttled: Some(false),
        }
    }

    #[test]
    fn csv_quotes_and_keeps_the_column_order() {
        let t = csv(&[entry()]).unwrap();
        let mut r = ::csv::Reader::from_reader(t.as_bytes());
        let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(head, entry_fields());
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "3");
        assert_eq!(&row[3], "~/logs/a,b\"c.txt");
        assert_eq!(&row[5], "");
        assert_eq!(&row[17], "16280");
        // An empty database still has its header.
        assert_eq!(csv(&[]).unwrap().lines().count(), 1);
    }

    #[test]
    fn yaml_strings_are_quoted_so_nothing_changes_type() {
        let y = yaml(&[entry()]);
        assert!(
            y.starts_with("- id: 3\n  stored_at: \"2026-12-01T10:00:00Z\"\n"),
            "{y}"
        );
        assert!(y.contains("\n  kernel: \"no\"\n"), "{y}");
        assert!(y.contains("\n  kernel_bsp: true\n"), "{y}");
        assert!(y.contains("\n  date: null\n"), "{y}");
        assert!(
            y.contains("\n  source_path: \"~/logs/a,b\\\"c.txt\"\n"),
            "{y}"
        );
        assert!(y.contains("\n  aes256_16k: 1337000.5\n"), "{y}");
        assert_eq!(y.lines().count(), entry_fields().len());
        assert_eq!(yaml(&[]), "[]\n");
    }
}
