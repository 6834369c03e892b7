//! Validation and insight: pure functions from system state, results and recordings to
//! `Finding`s with a stable code, a severity and a sentence.
