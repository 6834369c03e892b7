//! sbc-bench-hub: the self-hostable results site of sbc-bench (docs/HUB.md).
//!
//! Uploads (`sbc-bench share --to URL`, a run JSON POST) are read by the project's own
//! readers behind one seam ([`ingest::read_document`]), redacted, checked as sbc-bench's
//! maintainer checks submissions ([`accept`]) and stored in SQLite or PostgreSQL ([`db`],
//! [`schema`], [`store`]); the site is server-rendered ([`pages`], [`views`]), with a JSON
//! API ([`api`]), `/Results.md` ([`resultsmd`]), histories with regressions ([`history`]),
//! comparisons ([`compare`]) and a static export ([`site`]). [`web`] holds the routes and
//! per-request limits, [`server`] the connections.

pub mod accept;
pub mod api;
pub mod compare;
pub mod db;
pub mod history;
pub mod import;
pub mod ingest;
pub mod pages;
pub mod report;
pub mod resultsmd;
pub mod schema;
pub mod server;
pub mod site;
pub mod store;
pub mod synth;
pub mod views;
pub mod web;
