//! Rows printed as they come, around a progress bar: `storage bench`'s iozone table,
//! each row piece by piece as its passes finish.

use std::io::IsTerminal;

/// Prints a report while its command runs (`storage bench`: the header once the test file
/// is open, so it can say whether O_DIRECT was accepted, then each iozone row piece by
/// piece as its passes finish, as iozone does); into a pipe or file every piece is flushed at once,
/// so an interrupted run keeps what it measured. With a progress bar on the terminal,
/// whole rows are printed around it instead.
pub struct RowStream {
    on: bool,
    whole_rows: bool,
    row: String,
    closed: bool,
    /// The first write error (other than a closed pipe): the command ends with it.
    pub error: Option<std::io::Error>,
}

impl RowStream {
    /// A stream printing when `on` (off: JSON is printed at the end instead).
    pub fn new(on: bool) -> Self {
        Self {
            on,
            whole_rows: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
            row: String::new(),
            closed: false,
            error: None,
        }
    }
    /// Print `text` now (above the bar), unless stopped by a closed pipe or an error.
    pub fn put(&mut self, pb: &indicatif::ProgressBar, text: &str) {
        if !self.on || self.closed || self.error.is_some() {
            return;
        }
        match pb.suspend(|| crate::output::print_or_closed(text)) {
            Ok(true) => {}
            Ok(false) => self.closed = true,
            Err(e) => self.error = Some(e),
        }
    }
    /// Part of a row: held back until the row is complete when whole rows are wanted.
    pub fn cell(&mut self, pb: &indicatif::ProgressBar, text: &str) {
        if self.whole_rows {
            self.row.push_str(text);
            if text.ends_with('\n') {
                let row = std::mem::take(&mut self.row);
                self.put(pb, &row);
            }
        } else {
            self.row.push_str(text);
            if text.ends_with('\n') {
                self.row.clear();
            }
            self.put(pb, text);
        }
    }
    /// End a row cut short (error, Ctrl-C) so the terminal or file ends with a newline.
    pub fn cut(&mut self, pb: &indicatif::ProgressBar) {
        if self.row.is_empty() {
            return;
        }
        let rest = if self.whole_rows {
            std::mem::take(&mut self.row)
        } else {
            self.row.clear();
            String::new()
        };
        self.put(pb, &(rest + "\n"));
    }
}
