//! What the load benchmark (scripts/hub-bench.sh) found: with 100,000 results, 200 readers
//! of the results table each counted the filter form's choices at once, and no page was
//! answered within 20 s. The choices are now counted by one request at a time, from
//! indexes alone.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sbc_bench_hub::db::Val;
use sbc_bench_hub::pages::Choices;
use sbc_bench_hub::views::{CHOICES_TTL, cached_choices};
use sbc_bench_hub::web::{App, Config};

use crate::common::{Backend, on_each_backend};

fn marker(n: u64) -> Arc<Choices> {
    Arc::new(Choices {
        socs: vec![("Marker".into(), "marker".into(), n)],
        ..Choices::default()
    })
}

fn set(app: &App, at: Instant, ch: &Arc<Choices>) {
    *app.choices.lock().expect("choices lock") = Some((at, ch.clone()));
}

fn old() -> Instant {
    Instant::now()
        .checked_sub(CHOICES_TTL + Duration::from_secs(1))
        .expect("an instant in the past")
}

#[test]
fn choices_found_old_while_another_request_counts_them_show_the_last_count() {
    let app = App::new(Backend::sqlite().open(), Config::default());
    let last = marker(1);
    set(&app, old(), &last);
    let counting = app.choices_fill.lock().expect("fill lock");
    // Another request is counting: this one does not wait for it, nor count again.
    let shown = std::thread::scope(|s| s.spawn(|| cached_choices(&app)).join())
        .expect("thread")
        .expect("choices");
    assert!(Arc::ptr_eq(&shown, &last), "the last count is shown");
    drop(counting);
    // Nobody counting: this request counts them (an empty database has no SoC).
    let counted = cached_choices(&app).expect("choices");
    assert!(!Arc::ptr_eq(&counted, &last));
    assert!(counted.socs.is_empty());
    // And the next one finds them fresh.
    assert!(Arc::ptr_eq(
        &cached_choices(&app).expect("choices"),
        &counted
    ));
}

#[test]
fn the_first_count_is_waited_for_not_made_twice() {
    let app = App::new(Backend::sqlite().open(), Config::default());
    let counting = app.choices_fill.lock().expect("fill lock");
    std::thread::scope(|s| {
        let waiter = s.spawn(|| cached_choices(&app));
        // The waiter finds no count and waits for the one under way…
        std::thread::sleep(Duration::from_millis(200));
        assert!(!waiter.is_finished(), "a first count is waited for");
        // …which ends with this count: the waiter takes it instead of counting again.
        let first = marker(7);
        set(&app, Instant::now(), &first);
        drop(counting);
        let got = waiter.join().expect("thread").expect("choices");
        assert!(Arc::ptr_eq(&got, &first));
    });
}

#[test]
fn schema_2_counts_the_choices_from_indexes_alone() {
    on_each_backend(|b| {
        let db = b.open();
        assert_eq!(sbc_bench_hub::schema::current(&db).expect("version"), 2);
        if let Backend::Sqlite(_) = b {
            let plan = db
                .read(|s| {
                    s.query(
                        "EXPLAIN QUERY PLAN SELECT MIN(soc), soc_slug, COUNT(*) FROM results \
                         WHERE (status = $1 OR status = $2) AND hidden = 0 \
                         AND soc_slug IS NOT NULL GROUP BY soc_slug",
                        &[Val::text("verified"), Val::text("warnings")],
                    )
                })
                .expect("plan");
            let text: Vec<String> = plan.iter().map(|r| r.s(3)).collect();
            assert!(
                text.iter()
                    .any(|l| l.contains("COVERING INDEX results_facet_soc")),
                "{text:?}"
            );
        }
    });
}

#[test]
fn a_schema_1_database_gains_the_facet_indexes_when_opened() {
    on_each_backend(|b| {
        let db = b.open();
        db.batch(
            "DROP INDEX results_facet_soc; DROP INDEX results_facet_kernel; \
             DROP INDEX results_facet_arch; \
             UPDATE hub_meta SET value = '1' WHERE key = 'schema_version'",
        )
        .expect("back to schema 1");
        assert_eq!(sbc_bench_hub::schema::current(&db).expect("version"), 1);
        drop(db);
        let db = b.open();
        assert_eq!(sbc_bench_hub::schema::current(&db).expect("version"), 2);
        // The index is there again: dropping it works.
        db.batch("DROP INDEX results_facet_soc")
            .expect("index exists");
    });
}
