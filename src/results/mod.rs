//! RESULTS that last: reading published sbc-bench logs back into our model, the published
//! Results.md table shipped as a reference set, and `compare` (the local results database
//! is to come). Pure: text in, model and text out.

pub mod compare;
pub mod reference;
pub mod sbclog;
