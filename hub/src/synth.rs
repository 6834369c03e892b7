//! `sbc-bench-hub synth --count N`: synthetic results for the benchmark of how cost grows
//! (scripts/hub-bench.sh), made from the stored ones by varying their fields — device
//! name, run date, kernel, figures — and stored in batches. Each says what it is: its tag
//! is `not-comparable` unless `--tag` says otherwise, a check names it synthetic, its
//! document is one line naming the result it was made from. Never for a public hub.

use crate::accept::{Check, Status, Weight};
use crate::db::{Db, DbError};
use crate::ingest::Ingested;
use crate::store;

/// Make `count` results from the stored ones, a thousand per transaction; the number made.
pub fn synthesize(db: &Db, count: u64, tag: Status) -> Result<u64, DbError> {
    let bases = store::all(
        db,
        &store::Filter {
            statuses: Status::ALL.to_vec(),
            ..store::Filter::default()
        },
    )?;
    let mut docs: Vec<Ingested> = Vec::new();
    for b in bases.iter().take(400) {
        if let Some(full) = store::get(db, &b.id)? {
            docs.push(as_ingested(&full));
        }
    }
    if docs.is_empty() {
        return Err(DbError::Other(
            "no stored result to vary: import some first".into(),
        ));
    }
    let mut made = 0u64;
    let mut i = 0u64;
    while made < count {
        let n = (count - made).min(1000);
        let batch: Vec<Ingested> = (0..n)
            .map(|j| vary(&docs[((i + j) % docs.len() as u64) as usize], i + j, tag))
            .collect();
        i += n;
        made += store::insert_many(db, &batch)?;
        if i > count * 2 + 1000 {
            break;
        }
    }
    Ok(made)
}

/// A stored result as the ingest seam would have given it (its record, facts and checks).
fn as_ingested(f: &store::Full) -> Ingested {
    let p = f.record.clone();
    let s = &f.summary;
    let facts = crate::ingest::Facts {
        device: s.device.clone(),
        soc: s.soc.clone(),
        core_types: s
            .core_types
            .as_deref()
            .map(|c| c.split(", ").map(str::to_string).collect())
            .unwrap_or_default(),
        arch: s.arch.clone(),
        kernel: s.kernel.clone(),
        distro: s.distro.clone(),
        run_date: s.run_date.clone(),
        tool_version: s.tool_version.clone(),
        mode: s.mode.clone(),
        row: p.log.results_row.clone(),
    };
    Ingested {
        kind: crate::ingest::DocKind::Log,
        body: String::new(),
        sha256: String::new(),
        parsed: p,
        facts,
        identity: None,
        figures: String::new(),
        checks: f.checks.clone(),
        status: s.status,
    }
}

/// The `i`-th variation of `base`: another device name, date, kernel and figures ±10 %.
fn vary(base: &Ingested, i: u64, tag: Status) -> Ingested {
    let mut d = base.clone();
    let k = 1.0 + ((i * 7919 % 2001) as f64 - 1000.0) / 10_000.0;
    let f = &mut d.facts;
    f.device = format!("{} #{}", f.device, i / 400 + 1);
    d.parsed.log.results_row.device = f.device.clone();
    let day = chrono::NaiveDate::from_ymd_opt(2018, 1, 1)
        .and_then(|s| s.checked_add_days(chrono::Days::new(i % 2900)))
        .map(|d| format!("{d}T12:00:00Z"));
    f.run_date = day;
    if let Some(kernel) = &mut f.kernel {
        let minor = ["4.19", "5.10", "5.15", "6.1", "6.6", "6.12"][(i % 6) as usize];
        *kernel = format!("{minor}.{}", i % 200);
    }
    let r = &mut f.row;
    r.device = f.device.clone();
    r.sevenzip_multi = r.sevenzip_multi.map(|v| (v as f64 * k) as u64);
    r.sevenzip_single = r.sevenzip_single.map(|v| (v as f64 * k) as u64);
    r.aes256_16k = r.aes256_16k.map(|v| v * k);
    r.memcpy_mb_s = r.memcpy_mb_s.map(|v| v * k);
    r.memset_mb_s = r.memset_mb_s.map(|v| v * k);
    d.body = format!(
        "synthetic result {i}, made by `sbc-bench-hub synth` from a stored result of {}\n",
        base.facts.device
    );
    d.sha256 = {
        use sha2::{Digest, Sha256};
        Sha256::digest(d.body.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    d.checks.push(Check {
        code: "synthetic".into(),
        weight: Weight::Warning,
        reason: "a synthetic result made for a benchmark of the hub".into(),
    });
    d.status = tag;
    d
}
