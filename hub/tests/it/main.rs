//! The hub's integration tests: one binary (one link), a module per concern. The hub runs
//! as a real process on a real port; the database is SQLite and, where
//! `SBC_BENCH_HUB_TEST_PG` names a server, PostgreSQL (each test a database of its own).

// Test helpers may unwrap: a failure there is a failed test, with its location.
#![allow(clippy::unwrap_used)]

mod browser;
mod common;
mod corpus;
mod durability;
mod hostile;
mod site_pages;
mod static_site;
mod upload;
