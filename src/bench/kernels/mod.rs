//! Hand-written inner loops of the clock and memory benchmarks.
//!
//! Compilers are free to turn a Rust copy loop into a `memcpy` call or to merge a chain of
//! additions into one multiplication, which would measure the wrong thing. Where the
//! instruction sequence *is* the measurement (the clock loop, the SIMD copy/fill kernels),
//! it is written with `core::arch::asm!` per architecture, with a portable fallback.

pub mod buffer;
pub mod clock_loop;
pub mod copy;
