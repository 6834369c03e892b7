//! RESULTS that last: reading published sbc-bench logs and our run JSON back into our
//! model, the published Results.md table shipped as a reference set, `compare`, and the
//! local results database (SQLite). Text in, model and text out; the store is the one
//! part that touches a file, the database the user names.

pub mod compare;
pub mod document;
pub mod export;
pub mod history;
pub mod lookup;
pub mod record_report;
pub mod reference;
pub mod reguess;
pub mod sbclog;
pub mod share;
pub mod store;
pub mod store_index;
pub mod view;
