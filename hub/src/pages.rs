//! The hub's HTML pages, server-rendered with maud (every value escaped by construction;
//! the only markup inserted whole is our own: the report's body and the SVG charts, both
//! made by `sbc_bench::report::page`, which escapes what it draws). No script, no font or
//! image from elsewhere: one stylesheet of our own (`hub.css`). Every link is relative, so
//! the same pages serve from the hub and from a static mirror in any directory.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::accept::{Check, Status, Weight};
use crate::compare::{self, Comparison};
use crate::history::{Figure, Regression};
use crate::store::{COLUMNS, Filter, Full, Order, Review, SortColumn, Summary};

/// The stylesheet: the report page's, then the hub's.
pub fn stylesheet() -> String {
    format!(
        "{}\n{}",
        sbc_bench::report::page::html::CSS,
        include_str!("hub.css")
    )
}

/// Where a page sits and whether it is served live or written out as a static file.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The way back to the site's root from this page (`""`, `"../"`).
    pub root: &'a str,
    /// A static mirror: no forms, no live-only links.
    pub static_site: bool,
}

impl Ctx<'_> {
    fn to(&self, path: &str) -> String {
        format!("{}{path}", self.root)
    }
}

/// The frame of every page.
pub fn layout(ctx: Ctx<'_>, title: &str, wide: bool, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · sbc-bench hub" }
                link rel="stylesheet" href=(ctx.to("hub.css"));
            }
            body class=[wide.then_some("wide")] {
                nav class="top" {
                    a href=(ctx.to("index.html")) { strong { "sbc-bench hub" } }
                    a href=(ctx.to("socs.html")) { "SoCs" }
                    a href=(ctx.to("devices.html")) { "Devices" }
                    a href=(ctx.to("reviews.html")) { "Reviews" }
                    a href=(ctx.to("Results.md")) { "Results.md" }
                    a href=(ctx.to("export/results.csv")) { "CSV" }
                    a href=(ctx.to("export/results.json")) { "JSON" }
                    a href=(ctx.to("about.html")) { "Upload & API" }
                }
                main { (body) }
                footer {
                    "sbc-bench hub: results measured by "
                    a href="https://github.com/ThomasKaiser/sbc-bench" { "sbc-bench" }
                    "'s method, checked as its maintainer checks them. Every result has a permanent page."
                }
            }
        }
    }
}

/// The tag as a badge.
fn badge(s: Status) -> Markup {
    html! { span class={ "tag t-" (s.as_str()) } { (s.label()) } }
}

fn num(v: Option<i64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn tens(v: Option<f64>) -> String {
    v.map_or_else(
        || "-".into(),
        |v| sbc_bench::record::results_row::round_tens(v.trunc()).to_string(),
    )
}

/// The Results.md columns of one result, as cells.
fn row_cells(s: &Summary) -> Markup {
    let clock = {
        let mut c = s.clock.clone();
        if s.throttled {
            c.push_str(" (throttled)");
        }
        if s.quick {
            c.push_str(" (quick)");
        }
        c
    };
    html! {
        td { (clock) }
        td { (s.kernel_series.as_deref().unwrap_or("-")) }
        td { (s.distro_arch) }
        td class="n" { (s.sevenzip_multi.map_or_else(|| "-".into(), |v| tens(Some(v as f64)))) }
        td class="n" { (num(s.sevenzip_single)) }
        td class="n" { (tens(s.aes256_16k)) }
        td class="n" { (tens(s.memcpy)) }
        td class="n" { (tens(s.memset)) }
        td class="n" { (s.scrypt.map_or_else(|| "-".into(), |v| format!("{v:.2}"))) }
    }
}

/// The query string of the table with `sort`/`dir`/`page` replaced.
pub fn table_link(f: &Filter, sort: &str, desc: bool, page: u64) -> String {
    let mut q: Vec<(String, String)> = Vec::new();
    let statuses: Vec<&str> = f.statuses.iter().map(|s| s.as_str()).collect();
    if !statuses.is_empty() && statuses != ["verified"] {
        q.push(("status".into(), statuses.join(",")));
    }
    for (k, v) in [
        ("soc", &f.soc),
        ("core", &f.core_type),
        ("arch", &f.arch),
        ("kernel", &f.kernel),
        ("distro", &f.distro),
        ("since", &f.since),
        ("until", &f.until),
    ] {
        if let Some(v) = v {
            q.push((k.into(), v.clone()));
        }
    }
    if sort != "device" || desc {
        q.push(("sort".into(), sort.into()));
        q.push(("dir".into(), if desc { "desc" } else { "asc" }.into()));
    }
    if page > 1 {
        q.push(("page".into(), page.to_string()));
    }
    let enc: Vec<String> = q
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    if enc.is_empty() {
        "index.html".into()
    } else {
        format!("index.html?{}", enc.join("&"))
    }
}

/// A static table page's file: `index.html`, `index-2.html`…
fn static_page(prefix: &str, n: u64) -> String {
    if n <= 1 {
        format!("{prefix}.html")
    } else {
        format!("{prefix}-{n}.html")
    }
}

/// Percent-encoding of a query value.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The table's header cell: a link that sorts by the column (the other way when it
/// already does).
fn head_cell(ctx: Ctx<'_>, c: &SortColumn, f: &Filter, o: &Order) -> Markup {
    let active = o.column.key == c.key;
    let desc = if active { !o.descending } else { c.numeric };
    let arrow = match (active, o.descending) {
        (true, true) => " ▼",
        (true, false) => " ▲",
        _ => "",
    };
    let class = if c.numeric { Some("n") } else { None };
    let sort = if active {
        if o.descending {
            "descending"
        } else {
            "ascending"
        }
    } else {
        "none"
    };
    html! {
        th class=[class] aria-sort=(sort) {
            @if ctx.static_site {
                a href=(ctx.to(&format!("sort/{}-{}.html", c.key, if desc { "desc" } else { "asc" }))) { (c.head) (arrow) }
            } @else {
                a href=(ctx.to(&table_link(f, c.key, desc, 1))) { (c.head) (arrow) }
            }
        }
    }
}

/// What the filter form offers.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    pub socs: Vec<(String, String, u64)>,
    pub archs: Vec<(String, String, u64)>,
    pub kernels: Vec<(String, String, u64)>,
    pub counts: Vec<(Status, u64)>,
}

fn select(name: &str, label: &str, opts: &[(String, String, u64)], cur: Option<&str>) -> Markup {
    html! {
        label {
            (label) " "
            select name=(name) {
                option value="" { "any" }
                @for (v, _, n) in opts {
                    option value=(v) selected[cur == Some(v.as_str())] { (v) " (" (n) ")" }
                }
            }
        }
    }
}

fn filter_form(f: &Filter, o: &Order, ch: &Choices) -> Markup {
    let shown: Vec<Status> = if f.statuses.is_empty() {
        vec![Status::Verified]
    } else {
        f.statuses.clone()
    };
    html! {
        form class="filters" method="get" action="index.html" {
            (select("soc", "SoC", &ch.socs, f.soc.as_deref()))
            label { "Core type " input type="text" name="core" size="12" value=[f.core_type.as_deref()] placeholder="Cortex-A76"; }
            (select("arch", "Architecture", &ch.archs, f.arch.as_deref()))
            (select("kernel", "Kernel", &ch.kernels, f.kernel.as_deref()))
            label { "Distro " input type="text" name="distro" size="10" value=[f.distro.as_deref()] placeholder="Bookworm"; }
            label { "From " input type="date" name="since" value=[f.since.as_deref()]; }
            label { "to " input type="date" name="until" value=[f.until.as_deref()]; }
            fieldset {
                legend { "Tags" }
                @for (s, n) in &ch.counts {
                    label { input type="checkbox" name="status" value=(s.as_str()) checked[shown.contains(s)]; " " (s.label()) " (" (n) ")" }
                }
            }
            input type="hidden" name="sort" value=(o.column.key);
            input type="hidden" name="dir" value=(if o.descending { "desc" } else { "asc" });
            button type="submit" { "Show" }
            " "
            a href="index.html" { "reset" }
        }
    }
}

/// The results table.
pub fn table_page(
    ctx: Ctx<'_>,
    rows: &[Summary],
    total: u64,
    f: &Filter,
    o: &Order,
    ch: &Choices,
) -> Markup {
    let shown: Vec<Status> = if f.statuses.is_empty() {
        vec![Status::Verified]
    } else {
        f.statuses.clone()
    };
    let only_verified = shown == [Status::Verified];
    let page = o.offset / o.limit.max(1) + 1;
    let pages = total.div_ceil(o.limit.max(1)).max(1);
    let others: u64 = ch
        .counts
        .iter()
        .filter(|(s, _)| *s != Status::Verified)
        .map(|(_, n)| n)
        .sum();
    let results_table = html! {
        div class="scroll" {
            table class="results" {
                thead { tr {
                    @if !ctx.static_site { th { span class="sr" { "compare" } } }
                    @for c in &COLUMNS[..10] { (head_cell(ctx, c, f, o)) }
                    (head_cell(ctx, &COLUMNS[10], f, o))
                    (head_cell(ctx, &COLUMNS[11], f, o))
                    @if !only_verified { th { "Tag" } }
                } }
                tbody {
                    @for s in rows {
                        tr id={ "r-" (s.id) } {
                            @if !ctx.static_site { td { input type="checkbox" name="id" value=(s.id) aria-label={ "compare " (s.label) }; } }
                            td { a href=(ctx.to(&format!("results/{}.html", s.id))) { (s.label) } }
                            (row_cells(s))
                            td { @if let (Some(soc), Some(slug)) = (&s.soc, &s.soc_slug) { a href=(ctx.to(&format!("soc/{slug}.html"))) { (soc) } } @else { "-" } }
                            td { (s.run_date.as_deref().map_or("-", |d| d.get(..10).unwrap_or(d))) }
                            @if !only_verified { td { (badge(s.status)) } }
                        }
                    }
                }
            }
        }
    };
    let body = html! {
        h1 { "sbc-bench results" }
        p class="lead" {
            (total) " result" @if total != 1 { "s" } " "
            @if only_verified { "verified by the hub's checks (or accepted by a moderator)" } @else { "with the tags chosen" }
            ". Columns as in sbc-bench's Results.md; click a heading to sort."
        }
        @if only_verified && others > 0 {
            p class="others" {
                @if ctx.static_site {
                    a href=(ctx.to("all.html")) { "Show all " (others) " results with warnings or not comparable too" }
                } @else {
                    a href=(ctx.to(&table_link(&Filter { statuses: Status::ALL.to_vec(), ..f.clone() }, o.column.key, o.descending, 1))) {
                        "Show the " (others) " results with warnings or not comparable too"
                    }
                }
            }
        }
        @if !ctx.static_site { (filter_form(f, o, ch)) }
        @if ctx.static_site {
            (results_table)
        } @else {
            form method="get" action=(ctx.to("compare.html")) {
                (results_table)
                @if !rows.is_empty() {
                    p { button type="submit" { "Compare the checked results (2 to 4)" } }
                }
            }
        }
        @if pages > 1 {
            p class="pager" {
                "Page " (page) " of " (pages) ". "
                @if ctx.static_site && (o.column.key != "device" || o.descending) {
                    "The first " (o.limit) " in this order; the whole table: " a href=(ctx.to("Results.md")) { "Results.md" } ", " a href=(ctx.to("export/results.csv")) { "CSV" } "."
                } @else if ctx.static_site {
                    @let prefix = if only_verified { "index" } else { "all" };
                    @if page > 1 { a href=(ctx.to(&static_page(prefix, page - 1))) { "← previous" } " " }
                    @if page < pages { a href=(ctx.to(&static_page(prefix, page + 1))) { "next →" } }
                } @else {
                    @if page > 1 { a href=(ctx.to(&table_link(f, o.column.key, o.descending, page - 1))) { "← previous" } " " }
                    @if page < pages { a href=(ctx.to(&table_link(f, o.column.key, o.descending, page + 1))) { "next →" } }
                }
            }
        }
    };
    layout(ctx, "Results", true, body)
}

fn checks_list(checks: &[Check]) -> Markup {
    html! {
        @if checks.is_empty() {
            p { "Every check passed: no throttling, swapping or background activity reported, 7-Zip 16.02, a full (not --quick) run on real hardware, its row matching its log." }
        } @else {
            ul class="checks" {
                @for c in checks {
                    li {
                        span class={ "sev " (if c.weight == Weight::NotComparable { "sev-invalid" } else { "sev-warning" }) } {
                            (if c.weight == Weight::NotComparable { "not comparable" } else { "warning" })
                        }
                        " " code { (c.code) } ": " (c.reason)
                    }
                }
            }
        }
    }
}

/// The page of one result: its tag and checks, its documents, then the report.
pub fn result_page(ctx: Ctx<'_>, full: &Full, report_body: &str) -> Markup {
    let s = &full.summary;
    let body = html! {
        section class="hub-result" id="validation" {
            p class="crumbs" {
                a href=(ctx.to("index.html")) { "Results" }
                @if let (Some(soc), Some(slug)) = (&s.soc, &s.soc_slug) {
                    " › " a href=(ctx.to(&format!("soc/{slug}.html"))) { (soc) }
                }
                " › " a href=(ctx.to(&format!("device/{}.html", s.device_slug))) { (s.device) }
            }
            p { "Result " code { (s.id) } " " (badge(s.status)) @if s.hidden { " " span class="tag t-hidden" { "hidden by a moderator" } } }
            @if let Some(r) = &s.override_reason {
                p class="override" { "Tagged " strong { (s.status.label()) } " by hand (the checks say " (s.auto_status.label()) "): " (r) }
            }
            h2 { "Validation" }
            (checks_list(&full.checks))
            h2 { "Documents" }
            ul {
                @if s.has_log { li { a href=(ctx.to(&format!("results/{}.txt", s.id))) { "The log as uploaded" } " (redacted: no hostname, MAC or IP address, serial number)" } }
                @if full.documents.iter().any(|d| d.kind == "run-json") {
                    li { a href=(ctx.to(&format!("results/{}.json", s.id))) { "The run JSON as uploaded" } " (redacted)" }
                }
                li { a href=(ctx.to(&format!("api/v1/results/{}.json", s.id))) { "This result in the hub's JSON API" } }
                @for r in &full.reviews {
                    li { a href=(ctx.to(&format!("reviews/{}.html", r.slug))) { "Review: " (r.title) } }
                }
            }
            @if !ctx.static_site {
                form method="get" action=(ctx.to("compare.html")) class="inline" {
                    input type="hidden" name="id" value=(s.id);
                    label { "Compare with result ids " input type="text" name="ids" size="30" placeholder="87lq, 4zGI"; }
                    " " button type="submit" { "Compare" }
                }
            }
        }
        article class="report" { (PreEscaped(report_body)) }
    };
    layout(ctx, &s.label, false, body)
}

fn figure(f: &Figure) -> Markup {
    html! {
        figure id=(f.id) {
            @match &f.svg {
                Some(svg) => (PreEscaped(svg.as_str())),
                None => p class="missing" { "No chart: " (f.missing) "." },
            }
        }
    }
}

/// A SoC's or a device's page: every result, the charts, the regressions.
pub fn history_page(
    ctx: Ctx<'_>,
    title: &str,
    what: &str,
    rows: &[Summary],
    figures: &[Figure],
    regressions: &[Regression],
    reviews: &[Review],
) -> Markup {
    let body = html! {
        p class="crumbs" { a href=(ctx.to("index.html")) { "Results" } " › " (what) }
        h1 { (title) }
        p class="lead" { (rows.len()) " result" @if rows.len() != 1 { "s" } ", every tag (charts and regressions leave out the not comparable ones)." }
        h2 id="regressions" { "Regressions" }
        @if regressions.is_empty() {
            p { "None: no figure got worse from one kernel series to the next by more than 5 % and more than its runs spread." }
        } @else {
            ul class="regressions" { @for r in regressions { li { (r.sentence) } } }
        }
        h2 { "Results" }
        div class="scroll" {
            table class="results" {
                thead { tr {
                    @for c in &COLUMNS[..10] { th class=[c.numeric.then_some("n")] { (c.head) } }
                    th { "Date" } th { "Tag" }
                } }
                tbody {
                    @for s in rows {
                        tr {
                            td { a href=(ctx.to(&format!("results/{}.html", s.id))) { (s.label) } }
                            (row_cells(s))
                            td { (s.run_date.as_deref().map_or("-", |d| d.get(..10).unwrap_or(d))) }
                            td { (badge(s.status)) }
                        }
                    }
                }
            }
        }
        h2 { "Over time" }
        @for f in figures.iter().filter(|f| !f.id.starts_with("chart-kernels")) { (figure(f)) }
        h2 { "Across kernels" }
        @for f in figures.iter().filter(|f| f.id.starts_with("chart-kernels")) { (figure(f)) }
        @if !reviews.is_empty() {
            h2 { "Reviews" }
            ul { @for r in reviews { li { a href=(ctx.to(&format!("reviews/{}.html", r.slug))) { (r.title) } } } }
        }
    };
    layout(ctx, title, true, body)
}

/// The list of SoCs or devices.
pub fn index_page(ctx: Ctx<'_>, title: &str, dir: &str, items: &[(String, String, u64)]) -> Markup {
    let body = html! {
        h1 { (title) }
        ul class="columns" {
            @for (name, slug, n) in items {
                li { a href=(ctx.to(&format!("{dir}/{slug}.html"))) { (name) } " (" (n) ")" }
            }
        }
    };
    layout(ctx, title, false, body)
}

/// The list of reviews.
pub fn reviews_page(ctx: Ctx<'_>, reviews: &[Review]) -> Markup {
    let body = html! {
        h1 { "Reviews" }
        p class="lead" { "Board reviews made with sbc-bench's review mode (" code { "sbc-bench -r" } ")." }
        ul { @for r in reviews { li { a href=(ctx.to(&format!("reviews/{}.html", r.slug))) { (r.title) } } } }
    };
    layout(ctx, "Reviews", false, body)
}

/// One review: its Markdown as text (nothing in it becomes markup).
pub fn review_page(ctx: Ctx<'_>, r: &Review) -> Markup {
    let body = html! {
        p class="crumbs" { a href=(ctx.to("reviews.html")) { "Reviews" } }
        h1 { (r.title) }
        @if let Some(id) = &r.result_id {
            p { "The result it reviews: " a href=(ctx.to(&format!("results/{id}.html"))) { (id) } }
        }
        pre class="review" { (r.body) }
    };
    layout(ctx, &r.title, false, body)
}

/// Results side by side.
pub fn compare_page(ctx: Ctx<'_>, results: &[Full], c: &Comparison) -> Markup {
    let body = html! {
        p class="crumbs" { a href=(ctx.to("index.html")) { "Results" } " › compare" }
        h1 { "Compare " (results.len()) " results" }
        div class="scroll" {
            table class="compare" id="compare-facts" {
                thead { tr { th { } @for f in results { th { a href=(ctx.to(&format!("results/{}.html", f.summary.id))) { (f.summary.label) } } } } }
                tbody {
                    @for r in &c.facts {
                        tr class=[r.differs.then_some("differs")] {
                            th { (r.name) }
                            @for v in &r.values { td { (v) } }
                        }
                    }
                }
            }
        }
        h2 { "Figures" }
        div class="scroll" {
            table class="compare" id="compare-metrics" {
                thead { tr { th { "Metric" } @for f in results { th class="n" { (f.summary.id) } } } }
                tbody {
                    @for m in &c.metrics {
                        tr {
                            th { (m.name) " (" (m.unit) ", " (if m.higher_is_better { "higher is better" } else { "lower is better" }) ")" }
                            @for (i, v) in m.values.iter().enumerate() {
                                td class={ "n" @if m.best == Some(i) { " best" } } {
                                    (compare::cell(*v))
                                    @if let Some(Some(p)) = m.vs_best_pct.get(i) {
                                        @if m.best != Some(i) { " " span class="delta" { "(" (format!("{p:+.0}")) " %)" } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Why they differ" }
        @if c.reasons.is_empty() {
            p { "They share every fact the hub records: the differences are run-to-run variation." }
        } @else {
            ul class="reasons" { @for r in &c.reasons { li { (r) } } }
        }
    };
    layout(ctx, "Compare", true, body)
}

/// How to upload and what the API offers.
pub fn about_page(ctx: Ctx<'_>, public_url: &str) -> Markup {
    let body = html! {
        h1 { "Upload and API" }
        h2 { "Upload a result" }
        p { "From the board, after a run:" }
        pre { "sbc-bench share --to " (public_url) }
        p { "or any client that sends a multipart form with a " code { "file" } " part (as " code { "curl -F file=@sbc-bench.log " (public_url) } "), or a run JSON:" }
        pre { "curl -H 'Content-Type: application/json' --data-binary @run.json " (public_url) "api/v1/results" }
        p { "The answer is the permanent URL of the result. The hub redacts every upload itself (hostname, MAC and IP addresses, serial numbers), whatever the client sent, and checks it as sbc-bench's maintainer checks submissions." }
        h2 { "JSON API (version 1)" }
        ul {
            li { code { "api/v1/results.json" } " — the table (query " code { "status soc core arch kernel distro since until sort dir page limit" } " on the live hub)" }
            li { code { "api/v1/results/ID.json" } " — one result: its row, facts, checks and documents" }
            li { code { "api/v1/compare.json?ids=A,B" } " — two to four results side by side" }
            li { code { "api/v1/socs.json" } ", " code { "api/v1/soc/SLUG.json" } ", " code { "api/v1/device/SLUG.json" } " — histories with regressions" }
            li { code { "export/results.csv" } ", " code { "export/results.json" } " — every result; " code { "Results.md" } " — the verified ones as sbc-bench's table" }
        }
        p { "Every document names its schema and version (" code { "\"schema\": \"sbc-bench-hub-…\", \"schema_version\": 1" } "); the JSON Schemas are in the project's " code { "docs/schema/" } "." }
    };
    layout(ctx, "Upload and API", false, body)
}

/// An error page.
pub fn error_page(ctx: Ctx<'_>, status: u16, message: &str) -> Markup {
    let body = html! {
        h1 { (status) }
        p { (message) }
        p { a href=(ctx.to("index.html")) { "The results table" } }
    };
    layout(ctx, &status.to_string(), false, body)
}
