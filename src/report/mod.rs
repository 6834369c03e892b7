//! Exporters: pure functions from results to text that users already know how to read,
//! grouped by kind:
//!
//! - [`log`]: the sections of sbc-bench's text log (and the console summary), each mode's
//!   log and the benchmark tables in the layouts of the tools sbc-bench runs;
//! - [`page`]: the report of one run (`sbc-bench report`): its data, one table model, the
//!   HTML page with inline SVG charts and its Markdown form, and the efficiency graph's page;
//! - [`text`]: the text of the other commands (`info`, `kernel`, `net`, `storage`,
//!   `results list/show/parse`, the review's PCIe lines);
//! - [`export`]: the one `Exporter` trait and the sink that writes the output files;
//! - [`prometheus`] (a wire format) and [`redact`] (shareable outputs), used by all.

pub mod export;
pub mod log;
pub mod page;
pub mod prometheus;
pub mod redact;
pub mod redact_json;
pub mod text;
