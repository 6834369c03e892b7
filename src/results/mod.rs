//! RESULTS that last: reading published sbc-bench logs back into our model (and, to come,
//! the local results database and `compare`). Pure parsing here: text in, model out.

pub mod sbclog;
