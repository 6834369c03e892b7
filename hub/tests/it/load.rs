//! What the load benchmark (scripts/hub-bench.sh) found: with 100,000 results, 200 readers
//! of the results table each counted the filter form's choices at once, and no page was
//! answered within 20 s. The choices are now counted by one request at a time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sbc_bench_hub::db::Val;
use sbc_bench_hub::pages::Choices;
use sbc_bench_hub::views::{CHOICES_TTL, cached_choices};
use sbc_bench_hub::web::{App, Config};

use crate::common::Backend;

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

/// An index that also serves `status = ? AND hidden = ?` took the results table's page
/// from the listing index: SQLite 3.53 then read every verified result and sorted them
/// (150 ms a page at 100,000 results instead of 0.1 ms). The page is read in the listing
/// index's order.
#[test]
fn the_results_table_page_is_read_in_the_listing_index_order() {
    let b = Backend::sqlite();
    let db = b.open();
    let plan = db
        .read(|s| {
            s.query(
                "EXPLAIN QUERY PLAN SELECT id, label FROM results \
                 WHERE (status = $1) AND hidden = 0 \
                 ORDER BY sort_label ASC NULLS LAST, sort_label ASC, id ASC LIMIT $2 OFFSET $3",
                &[Val::text("verified"), Val::int(100), Val::int(0)],
            )
        })
        .expect("plan");
    let text: Vec<String> = plan.iter().map(|r| r.s(3)).collect();
    assert!(
        text.iter().any(|l| l.contains("INDEX results_listing")),
        "{text:?}"
    );
}
