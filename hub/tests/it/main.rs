//! The hub's integration tests: one binary (one link), a module per concern. The hub runs
//! as a real process on a real port; the database is SQLite and, where
//! `SBC_BENCH_HUB_TEST_PG` names a server, PostgreSQL (each test a database of its own).

// Test helpers may unwrap: a failure there is a failed test, with its location.
#![allow(clippy::unwrap_used)]
// Tests read fixtures and what the hub wrote with std's plain reads (the rule that every
// read of ours goes through `files::read` is for the programs, clippy.toml).
#![allow(clippy::disallowed_methods)]

mod browser;
mod common;
mod corpus;
mod durability;
mod hostile;
mod load;
mod site_pages;
mod static_site;
mod upload;
