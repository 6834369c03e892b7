//! The clock loop: a chain of dependent integer additions. Every mainstream core executes a
//! register-to-register `add` in one cycle and cannot overlap an addition with the next one
//! that needs its result, so `n` dependent additions take `n` cycles, whatever the width of
//! the core. This is the principle of Willy Tarreau's `mhz`.
//!
//! Two loop bodies of [`SHORT_ADDS`] and [`LONG_ADDS`] additions are run for the same number
//! of iterations: the loop counter, the branch and the call cost the same in both, so the
//! difference of their times is exactly `(LONG_ADDS - SHORT_ADDS) × iterations` cycles.

/// Dependent additions per iteration of the short loop.
pub const SHORT_ADDS: usize = 64;
/// Dependent additions per iteration of the long loop.
pub const LONG_ADDS: usize = 256;

/// Whether this build has a hand-written loop for the CPU it runs on. Without one the
/// clock cannot be measured honestly (a compiler-generated chain may not be one cycle per
/// step), and callers report `n/a`.
pub const SUPPORTED: bool = cfg!(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64",
    target_arch = "riscv32"
));

/// Run `iters` iterations of a body of `K` dependent additions.
#[inline(never)]
pub fn run<const K: usize>(iters: usize) {
    if iters == 0 {
        return;
    }
    chain::<K>(iters);
}

/// One `chain` per architecture: `.rept K` dependent additions, then the loop counter step
/// and the backward branch, each in its architecture's syntax. Operands, clobbers and
/// options are the same everywhere, so they are written once here.
macro_rules! chain_asm {
    ($arch:meta, add: $add:literal, dec: $dec:literal, branch: $branch:literal) => {
        #[cfg($arch)]
        #[inline(always)]
        fn chain<const K: usize>(iters: usize) {
            // SAFETY: register-only arithmetic and a backward branch; no memory is touched.
            unsafe {
                core::arch::asm!(
                    "2:",
                    ".rept {k}",
                    $add,
                    ".endr",
                    $dec,
                    $branch,
                    k = const K,
                    n = inout(reg) iters => _,
                    a = inout(reg) 0usize => _,
                    b = in(reg) 1usize,
                    options(nomem, nostack),
                );
            }
        }
    };
}

chain_asm!(
    any(target_arch = "x86_64", target_arch = "x86"),
    add: "add {a}, {b}",
    dec: "dec {n}",
    branch: "jnz 2b"
);
chain_asm!(
    target_arch = "aarch64",
    add: "add {a}, {a}, {b}",
    dec: "subs {n}, {n}, #1",
    branch: "b.ne 2b"
);
chain_asm!(
    target_arch = "arm",
    add: "add {a}, {a}, {b}",
    dec: "subs {n}, {n}, #1",
    branch: "bne 2b"
);
chain_asm!(
    any(target_arch = "riscv64", target_arch = "riscv32"),
    add: "add {a}, {a}, {b}",
    dec: "addi {n}, {n}, -1",
    branch: "bnez {n}, 2b"
);

/// Other architectures: a plain loop that keeps the CPU busy (so warm-up still works) but
/// whose cycle count is unknown; [`SUPPORTED`] is false there and no MHz is derived from it.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64",
    target_arch = "riscv32"
)))]
#[inline(always)]
fn chain<const K: usize>(iters: usize) {
    let mut a = 0usize;
    for _ in 0..iters {
        for _ in 0..K {
            a = std::hint::black_box(a.wrapping_add(1));
        }
    }
    std::hint::black_box(a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn long_loop_takes_longer_than_short_loop() {
        // Not a timing assertion on the machine's speed: only that 4x the additions cost
        // clearly more than 1x, i.e. that the loop bodies were not optimised away.
        if !SUPPORTED {
            return;
        }
        let iters = 20_000;
        let mut short = f64::MAX;
        let mut long = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            run::<SHORT_ADDS>(iters);
            short = short.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            run::<LONG_ADDS>(iters);
            long = long.min(t.elapsed().as_secs_f64());
        }
        assert!(long > short * 2.0, "short {short}s long {long}s");
    }

    #[test]
    fn zero_iterations_is_a_no_op() {
        run::<SHORT_ADDS>(0);
        run::<LONG_ADDS>(0);
    }
}
