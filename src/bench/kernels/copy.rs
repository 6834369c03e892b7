//! Copy and fill kernels: the best bandwidth the CPU can reach with plain SIMD loads and
//! stores, for boards whose libc `memcpy` is slow (an old or generic one). SSE2 and AVX2
//! (detected at run time) on x86_64, NEON on arm64 and on armv7 when the CPU has it, 64-bit
//! scalar elsewhere. Non-temporal variants bypass the caches on the way to DRAM, which is how
//! glibc's `memset` reaches its numbers on large buffers.
//!
//! Every kernel processes whole [`GRANULE`]-byte blocks from [`ALIGNMENT`]-aligned
//! pointers; [`CopyKernel::run`] checks both and refuses (returns `false`) otherwise.

use serde::{Deserialize, Serialize};

/// Bytes handled per kernel step; buffer lengths must be a multiple of it.
pub const GRANULE: usize = 128;
/// Required alignment of source and destination.
pub const ALIGNMENT: usize = 64;

/// What a kernel does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Read the source, write the destination.
    Copy,
    /// Write the destination with a pattern (the first 32 bytes of the source).
    Fill,
}

type KernelFn = unsafe fn(dst: *mut u8, src: *const u8, len: usize);

/// One copy or fill kernel.
#[derive(Clone, Copy)]
pub struct CopyKernel {
    /// Label in tinymembench's style (`NEON LDP/STP copy`, `SSE2 nontemporal fill`).
    pub name: &'static str,
    /// Instruction set (`sse2`, `avx2`, `neon`, `scalar`).
    pub isa: &'static str,
    /// Copy or fill.
    pub op: Op,
    f: KernelFn,
}

impl std::fmt::Debug for CopyKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("isa", &self.isa)
            .field("op", &self.op)
            .finish()
    }
}

impl CopyKernel {
    /// Run over `dst` (and `src` for copies; fills read their 32-byte pattern from `src`).
    /// Returns `false`, doing nothing, when the lengths or alignments do not fit.
    pub fn run(&self, dst: &mut [u8], src: &[u8]) -> bool {
        let len = dst.len();
        let fits = len > 0
            && len % GRANULE == 0
            && (dst.as_ptr() as usize) % ALIGNMENT == 0
            && (src.as_ptr() as usize) % ALIGNMENT == 0
            && match self.op {
                Op::Copy => src.len() >= len,
                Op::Fill => src.len() >= 32,
            };
        if !fits {
            return false;
        }
        // SAFETY: lengths and alignment checked above; dst and src are distinct borrows.
        unsafe { (self.f)(dst.as_mut_ptr(), src.as_ptr(), len) };
        true
    }
}

/// The kernels this CPU can run, best first within each operation.
pub fn kernels() -> Vec<CopyKernel> {
    let mut v = arch_kernels();
    if v.is_empty() {
        v.push(CopyKernel {
            name: "C copy",
            isa: "scalar",
            op: Op::Copy,
            f: scalar_copy,
        });
        v.push(CopyKernel {
            name: "C fill",
            isa: "scalar",
            op: Op::Fill,
            f: scalar_fill,
        });
    }
    v
}

/// The portable kernels, always available (used where no SIMD kernel exists, and by tests
/// as a reference).
pub fn scalar_kernels() -> [CopyKernel; 2] {
    [
        CopyKernel {
            name: "C copy",
            isa: "scalar",
            op: Op::Copy,
            f: scalar_copy,
        },
        CopyKernel {
            name: "C fill",
            isa: "scalar",
            op: Op::Fill,
            f: scalar_fill,
        },
    ]
}

/// 64-bit loads and stores, volatile so that the compiler neither calls `memcpy` nor
/// widens them to SIMD.
unsafe fn scalar_copy(dst: *mut u8, src: *const u8, len: usize) {
    let (d, s) = (dst as *mut u64, src as *const u64);
    let mut i = 0;
    while i < len / 8 {
        // SAFETY: caller guarantees len bytes at aligned dst/src; i + 7 < len / 8.
        unsafe {
            for k in 0..8 {
                d.add(i + k).write_volatile(s.add(i + k).read_volatile());
            }
        }
        i += 8;
    }
}

unsafe fn scalar_fill(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: caller guarantees 32 readable bytes at aligned src.
    let v = unsafe { (src as *const u64).read_volatile() };
    let d = dst as *mut u64;
    let mut i = 0;
    while i < len / 8 {
        // SAFETY: caller guarantees len bytes at aligned dst; i + 7 < len / 8.
        unsafe {
            for k in 0..8 {
                d.add(i + k).write_volatile(v);
            }
        }
        i += 8;
    }
}

#[cfg(target_arch = "x86_64")]
fn arch_kernels() -> Vec<CopyKernel> {
    let mut v = Vec::new();
    if std::arch::is_x86_feature_detected!("avx2") {
        v.push(CopyKernel {
            name: "AVX2 copy",
            isa: "avx2",
            op: Op::Copy,
            f: x86::avx2_copy,
        });
        v.push(CopyKernel {
            name: "AVX2 nontemporal copy",
            isa: "avx2",
            op: Op::Copy,
            f: x86::avx2_copy_nt,
        });
    }
    v.push(CopyKernel {
        name: "SSE2 copy",
        isa: "sse2",
        op: Op::Copy,
        f: x86::sse2_copy,
    });
    v.push(CopyKernel {
        name: "SSE2 nontemporal copy",
        isa: "sse2",
        op: Op::Copy,
        f: x86::sse2_copy_nt,
    });
    if std::arch::is_x86_feature_detected!("avx2") {
        v.push(CopyKernel {
            name: "AVX2 fill",
            isa: "avx2",
            op: Op::Fill,
            f: x86::avx2_fill,
        });
        v.push(CopyKernel {
            name: "AVX2 nontemporal fill",
            isa: "avx2",
            op: Op::Fill,
            f: x86::avx2_fill_nt,
        });
    }
    v.push(CopyKernel {
        name: "SSE2 fill",
        isa: "sse2",
        op: Op::Fill,
        f: x86::sse2_fill,
    });
    v.push(CopyKernel {
        name: "SSE2 nontemporal fill",
        isa: "sse2",
        op: Op::Fill,
        f: x86::sse2_fill_nt,
    });
    v
}

#[cfg(target_arch = "aarch64")]
fn arch_kernels() -> Vec<CopyKernel> {
    vec![
        CopyKernel {
            name: "NEON LDP/STP copy",
            isa: "neon",
            op: Op::Copy,
            f: a64::ldp_stp_copy,
        },
        CopyKernel {
            name: "NEON LDNP/STNP copy",
            isa: "neon",
            op: Op::Copy,
            f: a64::ldnp_stnp_copy,
        },
        CopyKernel {
            name: "NEON STP fill",
            isa: "neon",
            op: Op::Fill,
            f: a64::stp_fill,
        },
        CopyKernel {
            name: "NEON STNP fill",
            isa: "neon",
            op: Op::Fill,
            f: a64::stnp_fill,
        },
    ]
}

#[cfg(target_arch = "arm")]
fn arch_kernels() -> Vec<CopyKernel> {
    // armv7 boards without NEON exist (Tegra 2, some Marvell Armada): ask the kernel.
    const HWCAP_NEON: libc::c_ulong = 1 << 12;
    // SAFETY: getauxval has no preconditions.
    let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
    if hwcap & HWCAP_NEON == 0 {
        return Vec::new();
    }
    vec![
        CopyKernel {
            name: "NEON copy",
            isa: "neon",
            op: Op::Copy,
            f: a32::neon_copy,
        },
        CopyKernel {
            name: "NEON fill",
            isa: "neon",
            op: Op::Fill,
            f: a32::neon_fill,
        },
    ]
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
fn arch_kernels() -> Vec<CopyKernel> {
    Vec::new()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::asm;

    pub unsafe fn sse2_copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: caller guarantees len (multiple of 128) bytes at 64-aligned dst/src.
        unsafe {
            asm!(
                "2:",
                "movdqa xmm0, [{s}]",
                "movdqa xmm1, [{s} + 16]",
                "movdqa xmm2, [{s} + 32]",
                "movdqa xmm3, [{s} + 48]",
                "movdqa [{d}], xmm0",
                "movdqa [{d} + 16], xmm1",
                "movdqa [{d} + 32], xmm2",
                "movdqa [{d} + 48], xmm3",
                "add {s}, 64",
                "add {d}, 64",
                "sub {n}, 64",
                "jnz 2b",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn sse2_copy_nt(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as sse2_copy; sfence orders the streaming stores before we return.
        unsafe {
            asm!(
                "2:",
                "movdqa xmm0, [{s}]",
                "movdqa xmm1, [{s} + 16]",
                "movdqa xmm2, [{s} + 32]",
                "movdqa xmm3, [{s} + 48]",
                "movntdq [{d}], xmm0",
                "movntdq [{d} + 16], xmm1",
                "movntdq [{d} + 32], xmm2",
                "movntdq [{d} + 48], xmm3",
                "add {s}, 64",
                "add {d}, 64",
                "sub {n}, 64",
                "jnz 2b",
                "sfence",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn sse2_fill(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: caller guarantees len (multiple of 128) bytes at 64-aligned dst and 32
        // readable bytes at src.
        unsafe {
            asm!(
                "movdqu xmm0, [{s}]",
                "2:",
                "movdqa [{d}], xmm0",
                "movdqa [{d} + 16], xmm0",
                "movdqa [{d} + 32], xmm0",
                "movdqa [{d} + 48], xmm0",
                "add {d}, 64",
                "sub {n}, 64",
                "jnz 2b",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("xmm0") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn sse2_fill_nt(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as sse2_fill.
        unsafe {
            asm!(
                "movdqu xmm0, [{s}]",
                "2:",
                "movntdq [{d}], xmm0",
                "movntdq [{d} + 16], xmm0",
                "movntdq [{d} + 32], xmm0",
                "movntdq [{d} + 48], xmm0",
                "add {d}, 64",
                "sub {n}, 64",
                "jnz 2b",
                "sfence",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("xmm0") _,
                options(nostack),
            );
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2_copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: only listed after runtime AVX2 detection; len is a multiple of 128.
        unsafe {
            asm!(
                "2:",
                "vmovdqa ymm0, [{s}]",
                "vmovdqa ymm1, [{s} + 32]",
                "vmovdqa ymm2, [{s} + 64]",
                "vmovdqa ymm3, [{s} + 96]",
                "vmovdqa [{d}], ymm0",
                "vmovdqa [{d} + 32], ymm1",
                "vmovdqa [{d} + 64], ymm2",
                "vmovdqa [{d} + 96], ymm3",
                "add {s}, 128",
                "add {d}, 128",
                "sub {n}, 128",
                "jnz 2b",
                "vzeroupper",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                options(nostack),
            );
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2_copy_nt(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as avx2_copy.
        unsafe {
            asm!(
                "2:",
                "vmovdqa ymm0, [{s}]",
                "vmovdqa ymm1, [{s} + 32]",
                "vmovdqa ymm2, [{s} + 64]",
                "vmovdqa ymm3, [{s} + 96]",
                "vmovntdq [{d}], ymm0",
                "vmovntdq [{d} + 32], ymm1",
                "vmovntdq [{d} + 64], ymm2",
                "vmovntdq [{d} + 96], ymm3",
                "add {s}, 128",
                "add {d}, 128",
                "sub {n}, 128",
                "jnz 2b",
                "sfence",
                "vzeroupper",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                options(nostack),
            );
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2_fill(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as avx2_copy; 32 readable bytes at src.
        unsafe {
            asm!(
                "vmovdqu ymm0, [{s}]",
                "2:",
                "vmovdqa [{d}], ymm0",
                "vmovdqa [{d} + 32], ymm0",
                "vmovdqa [{d} + 64], ymm0",
                "vmovdqa [{d} + 96], ymm0",
                "add {d}, 128",
                "sub {n}, 128",
                "jnz 2b",
                "vzeroupper",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("ymm0") _,
                options(nostack),
            );
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2_fill_nt(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as avx2_fill.
        unsafe {
            asm!(
                "vmovdqu ymm0, [{s}]",
                "2:",
                "vmovntdq [{d}], ymm0",
                "vmovntdq [{d} + 32], ymm0",
                "vmovntdq [{d} + 64], ymm0",
                "vmovntdq [{d} + 96], ymm0",
                "add {d}, 128",
                "sub {n}, 128",
                "jnz 2b",
                "sfence",
                "vzeroupper",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("ymm0") _,
                options(nostack),
            );
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod a64 {
    use core::arch::asm;

    pub unsafe fn ldp_stp_copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: caller guarantees len (multiple of 128) bytes at 64-aligned dst/src.
        unsafe {
            asm!(
                "2:",
                "ldp q0, q1, [{s}]",
                "ldp q2, q3, [{s}, #32]",
                "stp q0, q1, [{d}]",
                "stp q2, q3, [{d}, #32]",
                "add {s}, {s}, #64",
                "add {d}, {d}, #64",
                "subs {n}, {n}, #64",
                "b.ne 2b",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn ldnp_stnp_copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as ldp_stp_copy.
        unsafe {
            asm!(
                "2:",
                "ldnp q0, q1, [{s}]",
                "ldnp q2, q3, [{s}, #32]",
                "stnp q0, q1, [{d}]",
                "stnp q2, q3, [{d}, #32]",
                "add {s}, {s}, #64",
                "add {d}, {d}, #64",
                "subs {n}, {n}, #64",
                "b.ne 2b",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn stp_fill(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: caller guarantees len (multiple of 128) bytes at 64-aligned dst and 32
        // readable bytes at src.
        unsafe {
            asm!(
                "ldr q0, [{s}]",
                "2:",
                "stp q0, q0, [{d}]",
                "stp q0, q0, [{d}, #32]",
                "add {d}, {d}, #64",
                "subs {n}, {n}, #64",
                "b.ne 2b",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("v0") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn stnp_fill(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as stp_fill.
        unsafe {
            asm!(
                "ldr q0, [{s}]",
                "2:",
                "stnp q0, q0, [{d}]",
                "stnp q0, q0, [{d}, #32]",
                "add {d}, {d}, #64",
                "subs {n}, {n}, #64",
                "b.ne 2b",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("v0") _,
                options(nostack),
            );
        }
    }
}

#[cfg(target_arch = "arm")]
mod a32 {
    use core::arch::asm;

    pub unsafe fn neon_copy(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: only listed when HWCAP says NEON; len is a multiple of 128 bytes at
        // 64-aligned dst/src.
        unsafe {
            asm!(
                ".fpu neon",
                "2:",
                "vld1.8 {{d0-d3}}, [{s}]!",
                "vld1.8 {{d4-d7}}, [{s}]!",
                "vst1.8 {{d0-d3}}, [{d}]!",
                "vst1.8 {{d4-d7}}, [{d}]!",
                "subs {n}, {n}, #64",
                "bne 2b",
                s = inout(reg) src => _,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("d0") _, out("d1") _, out("d2") _, out("d3") _,
                out("d4") _, out("d5") _, out("d6") _, out("d7") _,
                options(nostack),
            );
        }
    }

    pub unsafe fn neon_fill(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: as neon_copy; 32 readable bytes at src.
        unsafe {
            asm!(
                ".fpu neon",
                "vld1.8 {{d0-d3}}, [{s}]",
                "2:",
                "vst1.8 {{d0-d3}}, [{d}]!",
                "vst1.8 {{d0-d3}}, [{d}]!",
                "subs {n}, {n}, #64",
                "bne 2b",
                s = in(reg) src,
                d = inout(reg) dst => _,
                n = inout(reg) len => _,
                out("d0") _, out("d1") _, out("d2") _, out("d3") _,
                options(nostack),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::kernels::buffer::{Advice, Buffer};

    fn pattern(buf: &mut [u8]) {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (i.wrapping_mul(31) ^ (i >> 7)) as u8;
        }
    }

    #[test]
    fn every_kernel_copies_and_fills_exactly() {
        let len = 64 * 1024;
        let mut src = Buffer::new(len, Advice::Default).unwrap();
        let mut dst = Buffer::new(len, Advice::Default).unwrap();
        pattern(src.as_mut_slice());
        let mut all = kernels();
        all.extend(scalar_kernels());
        assert!(!all.is_empty());
        for k in all {
            dst.fill(0);
            assert!(k.run(dst.as_mut_slice(), src.as_slice()), "{}", k.name);
            match k.op {
                Op::Copy => assert_eq!(dst.as_slice(), src.as_slice(), "{}", k.name),
                Op::Fill => {
                    let pat = &src.as_slice()[..32];
                    let (u, unit) = if k.isa == "scalar" {
                        (8, &pat[..8])
                    } else if k.isa == "avx2" {
                        (32, pat)
                    } else {
                        // 16-byte registers, and armv7 NEON stores d0-d3 = 32 bytes.
                        if cfg!(target_arch = "arm") {
                            (32, pat)
                        } else {
                            (16, &pat[..16])
                        }
                    };
                    for chunk in dst.as_slice().chunks(u) {
                        assert_eq!(chunk, unit, "{}", k.name);
                    }
                }
            }
        }
    }

    #[test]
    fn misfits_are_refused_not_crashed() {
        let mut src = Buffer::new(8192, Advice::Default).unwrap();
        let mut dst = Buffer::new(8192, Advice::Default).unwrap();
        let src_s = src.as_mut_slice();
        src_s[0] = 1;
        for k in kernels() {
            let d = dst.as_mut_slice();
            assert!(!k.run(&mut d[..100], &src_s[..100]), "odd length");
            assert!(!k.run(&mut d[8..136], &src_s[..128]), "misaligned");
            assert!(!k.run(&mut d[..0], &src_s[..0]), "empty");
            if k.op == Op::Copy {
                assert!(!k.run(&mut d[..256], &src_s[..128]), "short source");
            }
        }
    }
}
