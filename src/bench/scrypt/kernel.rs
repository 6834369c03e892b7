//! scrypt with r = 1, p = 1 (cpuminer's and Litecoin's parameters, N = 1024), computing
//! several independent hashes at once.
//!
//! The hashes are interleaved word by word ("lanes"): word `w` of every hash sits side by
//! side in `[u32; L]`, so each Salsa20/8 step is one SIMD operation over `L` hashes with no
//! shuffles (SSE2 or NEON for 4 lanes, AVX2 for 8), the layout cpuminer's multi-way
//! kernels use. The compiler vectorises the plain array code; the AVX2 variant is the same
//! code compiled with AVX2 enabled and chosen at run time. PBKDF2-HMAC-SHA256 (one
//! iteration each side of ROMix) uses RustCrypto's `sha2`, which picks SHA extensions at
//! run time.
//!
//! Memory per thread: `N × 128 bytes × L` (512 KiB for 4 lanes at N = 1024).

use sha2::{Digest, Sha256};

/// cpuminer's scrypt N.
pub const N: usize = 1024;

/// One interleaved 128-byte block (32 words) of `L` hashes.
pub type ScryptBlock<const L: usize> = [[u32; L]; 32];

/// HMAC-SHA256 (RFC 2104) with the keyed inner and outer states precomputed, since every
/// HMAC of one scrypt hash uses the same key (the password).
#[derive(Clone)]
struct HmacSha256 {
    inner: Sha256,
    outer: Sha256,
}

impl HmacSha256 {
    fn new(key: &[u8]) -> Self {
        let mut k = [0u8; 64];
        if key.len() > 64 {
            k[..32].copy_from_slice(&Sha256::digest(key));
        } else {
            k[..key.len()].copy_from_slice(key);
        }
        let pad = |b: u8| k.map(|x| x ^ b);
        let mut inner = Sha256::new();
        inner.update(pad(0x36));
        let mut outer = Sha256::new();
        outer.update(pad(0x5c));
        Self { inner, outer }
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut i = self.inner.clone();
        for p in parts {
            i.update(p);
        }
        let mut o = self.outer.clone();
        o.update(i.finalize());
        o.finalize().into()
    }
}

/// PBKDF2-HMAC-SHA256 with one iteration (RFC 8018): `out` is filled with
/// `T_1 || T_2 || …`, `T_i = HMAC(P, salt || be32(i))`.
fn pbkdf2_1(mac: &HmacSha256, salt: &[u8], out: &mut [u8]) {
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let t = mac.mac(&[salt, &(i as u32 + 1).to_be_bytes()]);
        chunk.copy_from_slice(&t[..chunk.len()]);
    }
}

#[inline(always)]
fn add_rotl_xor<const L: usize>(dst: &mut [u32; L], a: &[u32; L], b: &[u32; L], r: u32) {
    for l in 0..L {
        dst[l] ^= a[l].wrapping_add(b[l]).rotate_left(r);
    }
}

/// Salsa20's quarter round on words (a, b, c, d) of the state.
#[inline(always)]
fn quarter<const L: usize>(x: &mut [[u32; L]; 16], a: usize, b: usize, c: usize, d: usize) {
    let (xa, xd) = (x[a], x[d]);
    add_rotl_xor(&mut x[b], &xa, &xd, 7);
    let xb = x[b];
    add_rotl_xor(&mut x[c], &xb, &xa, 9);
    let xc = x[c];
    add_rotl_xor(&mut x[d], &xc, &xb, 13);
    let xd = x[d];
    add_rotl_xor(&mut x[a], &xd, &xc, 18);
}

/// The Salsa20/8 core (RFC 7914 section 3) applied to `L` states at once.
#[inline(always)]
fn salsa20_8<const L: usize>(b: &mut [[u32; L]; 16]) {
    let mut x = *b;
    for _ in 0..4 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 5, 9, 13, 1);
        quarter(&mut x, 10, 14, 2, 6);
        quarter(&mut x, 15, 3, 7, 11);
        quarter(&mut x, 0, 1, 2, 3);
        quarter(&mut x, 5, 6, 7, 4);
        quarter(&mut x, 10, 11, 8, 9);
        quarter(&mut x, 15, 12, 13, 14);
    }
    for (bw, xw) in b.iter_mut().zip(x.iter()) {
        for l in 0..L {
            bw[l] = bw[l].wrapping_add(xw[l]);
        }
    }
}

#[inline(always)]
fn xor16<const L: usize>(x: &mut [[u32; L]; 16], y: &[[u32; L]]) {
    for (xw, yw) in x.iter_mut().zip(y) {
        for l in 0..L {
            xw[l] ^= yw[l];
        }
    }
}

/// scryptBlockMix with r = 1 (RFC 7914 section 4), in place: B = (B0, B1) becomes
/// (Salsa(B1 ^ B0), Salsa(that ^ B1)).
#[inline(always)]
fn block_mix<const L: usize>(b: &mut ScryptBlock<L>) {
    let mut x = [[0u32; L]; 16];
    x.copy_from_slice(&b[16..]);
    xor16(&mut x, &b[..16]);
    salsa20_8(&mut x);
    let y0 = x;
    xor16(&mut x, &b[16..]);
    salsa20_8(&mut x);
    b[..16].copy_from_slice(&y0);
    b[16..].copy_from_slice(&x);
}

/// scryptROMix (RFC 7914 section 5) on `L` interleaved blocks; `v` holds N blocks.
#[inline(always)]
pub fn romix<const L: usize>(x: &mut ScryptBlock<L>, v: &mut [ScryptBlock<L>]) {
    let n = v.len();
    debug_assert!(n.is_power_of_two());
    for vi in v.iter_mut() {
        *vi = *x;
        block_mix(x);
    }
    for _ in 0..n {
        // Integerify: the first word of the last 64-byte half, mod N (a power of two).
        for l in 0..L {
            let j = x[16][l] as usize & (n - 1);
            let vj = &v[j];
            for w in 0..32 {
                x[w][l] ^= vj[w][l];
            }
        }
        block_mix(x);
    }
}

/// Generate a ROMix for one SIMD instruction set: `$v` holds `$lanes` u32 lanes; every
/// helper carries the same `target_feature`, so the whole kernel compiles with it and
/// inlines. Interleaved blocks live in memory as plain `[[u32; L]; 32]` (V and the
/// caller's X); the working X is kept in 32 vectors.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! simd_romix {
    (
        $name:ident, $feature:literal, $lanes:literal, $v:ty,
        load: $load:expr, store: $store:expr,
        add: $add:path, xor: $xor:path, rotl: $rotl:ident
    ) => {
        #[target_feature(enable = $feature)]
        #[inline]
        fn salsa(b: &mut [$v; 16]) {
            let mut x = *b;
            macro_rules! q {
                ($a:literal, $b:literal, $c:literal, $d:literal) => {
                    x[$b] = $xor(x[$b], $rotl!($add(x[$a], x[$d]), 7));
                    x[$c] = $xor(x[$c], $rotl!($add(x[$b], x[$a]), 9));
                    x[$d] = $xor(x[$d], $rotl!($add(x[$c], x[$b]), 13));
                    x[$a] = $xor(x[$a], $rotl!($add(x[$d], x[$c]), 18));
                };
            }
            for _ in 0..4 {
                q!(0, 4, 8, 12);
                q!(5, 9, 13, 1);
                q!(10, 14, 2, 6);
                q!(15, 3, 7, 11);
                q!(0, 1, 2, 3);
                q!(5, 6, 7, 4);
                q!(10, 11, 8, 9);
                q!(15, 12, 13, 14);
            }
            for i in 0..16 {
                b[i] = $add(b[i], x[i]);
            }
        }

        #[target_feature(enable = $feature)]
        #[inline]
        fn block_mix(b: &mut [$v; 32]) {
            let mut x = [b[0]; 16];
            for i in 0..16 {
                x[i] = $xor(b[16 + i], b[i]);
            }
            salsa(&mut x);
            let y0 = x;
            for i in 0..16 {
                x[i] = $xor(x[i], b[16 + i]);
            }
            salsa(&mut x);
            b[..16].copy_from_slice(&y0);
            b[16..].copy_from_slice(&x);
        }

        /// ROMix over `$lanes` interleaved hashes.
        #[target_feature(enable = $feature)]
        pub(super) fn $name(x: &mut ScryptBlock<$lanes>, v: &mut [ScryptBlock<$lanes>]) {
            let n = v.len();
            let load = $load;
            let store = $store;
            let mut xv: [$v; 32] = [load(&x[0]); 32];
            for w in 0..32 {
                xv[w] = load(&x[w]);
            }
            for vi in v.iter_mut() {
                for w in 0..32 {
                    store(&mut vi[w], xv[w]);
                }
                block_mix(&mut xv);
            }
            for _ in 0..n {
                let mut j = [0u32; $lanes];
                store(&mut j, xv[16]);
                let mut t: ScryptBlock<$lanes> = [[0u32; $lanes]; 32];
                for l in 0..$lanes {
                    let vj = &v[j[l] as usize & (n - 1)];
                    for w in 0..32 {
                        t[w][l] = vj[w][l];
                    }
                }
                for w in 0..32 {
                    xv[w] = $xor(xv[w], load(&t[w]));
                }
                block_mix(&mut xv);
            }
            for w in 0..32 {
                store(&mut x[w], xv[w]);
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::ScryptBlock;
    use std::arch::x86_64::*;
    macro_rules! rotl {
        ($x:expr, $r:literal) => {{
            let x = $x;
            _mm_or_si128(_mm_slli_epi32::<$r>(x), _mm_srli_epi32::<{ 32 - $r }>(x))
        }};
    }
    simd_romix!(
        romix4, "sse2", 4, __m128i,
        // SAFETY (both): [u32; 4] is 16 readable/writable bytes; unaligned access.
        load: |a: &[u32; 4]| unsafe { _mm_loadu_si128(a.as_ptr().cast()) },
        store: |a: &mut [u32; 4], v: __m128i| unsafe { _mm_storeu_si128(a.as_mut_ptr().cast(), v) },
        add: _mm_add_epi32, xor: _mm_xor_si128, rotl: rotl
    );
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::ScryptBlock;
    use std::arch::x86_64::*;
    macro_rules! rotl {
        ($x:expr, $r:literal) => {{
            let x = $x;
            _mm256_or_si256(
                _mm256_slli_epi32::<$r>(x),
                _mm256_srli_epi32::<{ 32 - $r }>(x),
            )
        }};
    }
    simd_romix!(
        romix8, "avx2", 8, __m256i,
        // SAFETY (both): [u32; 8] is 32 readable/writable bytes; unaligned access.
        load: |a: &[u32; 8]| unsafe { _mm256_loadu_si256(a.as_ptr().cast()) },
        store: |a: &mut [u32; 8], v: __m256i| unsafe {
            _mm256_storeu_si256(a.as_mut_ptr().cast(), v)
        },
        add: _mm256_add_epi32, xor: _mm256_xor_si256, rotl: rotl
    );
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::ScryptBlock;
    use std::arch::aarch64::*;
    macro_rules! rotl {
        // Shift right, then shift-left-and-insert: two instructions per rotate.
        ($x:expr, $r:literal) => {{
            let x = $x;
            vsliq_n_u32::<$r>(vshrq_n_u32::<{ 32 - $r }>(x), x)
        }};
    }
    simd_romix!(
        romix4, "neon", 4, uint32x4_t,
        // SAFETY (both): [u32; 4] is 16 readable/writable bytes, u32-aligned.
        load: |a: &[u32; 4]| unsafe { vld1q_u32(a.as_ptr()) },
        store: |a: &mut [u32; 4], v: uint32x4_t| unsafe { vst1q_u32(a.as_mut_ptr(), v) },
        add: vaddq_u32, xor: veorq_u32, rotl: rotl
    );
}

/// Reusable memory for `L`-lane hashing with a given N.
pub struct Scratch<const L: usize> {
    v: Vec<ScryptBlock<L>>,
}

impl<const L: usize> Scratch<L> {
    /// Memory for N = `n` (a power of two ≥ 2).
    pub fn new(n: usize) -> Self {
        Self {
            v: vec![[[0u32; L]; 32]; n.max(2).next_power_of_two()],
        }
    }
}

/// scrypt(P, S, N, r = 1, p = 1, dkLen = `DK`) of `L` independent password/salt pairs at
/// once (cpuminer hashes the block header with itself as salt).
#[inline(always)]
pub fn hash_lanes<const L: usize, const DK: usize>(
    passwords: [&[u8]; L],
    salts: [&[u8]; L],
    scratch: &mut Scratch<L>,
    romix: impl FnOnce(&mut ScryptBlock<L>, &mut [ScryptBlock<L>]),
) -> [[u8; DK]; L] {
    let macs: [HmacSha256; L] = std::array::from_fn(|l| HmacSha256::new(passwords[l]));
    let mut x: ScryptBlock<L> = [[0u32; L]; 32];
    for l in 0..L {
        let mut b = [0u8; 128];
        pbkdf2_1(&macs[l], salts[l], &mut b);
        for (w, word) in b.chunks_exact(4).enumerate() {
            x[w][l] = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        }
    }
    romix(&mut x, &mut scratch.v);
    std::array::from_fn(|l| {
        let mut b = [0u8; 128];
        for (w, word) in b.chunks_exact_mut(4).enumerate() {
            word.copy_from_slice(&x[w][l].to_le_bytes());
        }
        let mut out = [0u8; DK];
        pbkdf2_1(&macs[l], &b, &mut out);
        out
    })
}

/// One scrypt(P, S, N, 1, 1) with dkLen = `DK` on the portable single-lane path
/// (reference and tests).
pub fn scrypt_r1p1<const DK: usize>(password: &[u8], salt: &[u8], n: usize) -> [u8; DK] {
    let mut s = Scratch::<1>::new(n);
    let [out] = hash_lanes::<1, DK>([password], [salt], &mut s, romix);
    out
}

/// Which multi-hash kernel runs on this CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ScryptKernel {
    /// One hash at a time, scalar code.
    #[serde(rename = "scalar")]
    Scalar,
    /// Four hashes per pass in 128-bit vectors (SSE2 on x86, NEON on aarch64).
    #[serde(rename = "simd-4way")]
    Simd4,
    /// Eight hashes per pass in 256-bit AVX2 vectors.
    #[serde(rename = "avx2-8way")]
    Avx2x8,
}

impl ScryptKernel {
    /// The best kernel for this CPU.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                return Self::Avx2x8;
            }
            return Self::Simd4;
        }
        #[cfg(target_arch = "aarch64")]
        {
            return Self::Simd4;
        }
        #[allow(unreachable_code)]
        Self::Scalar
    }

    /// Every kernel this CPU can run, narrowest first.
    pub fn available() -> Vec<Self> {
        [Self::Scalar, Self::Simd4, Self::Avx2x8]
            .into_iter()
            .filter(|k| k.runs_here())
            .collect()
    }

    /// Does this CPU have the instructions of this kernel? A run-time check: the AVX2
    /// kernel on a CPU without AVX2 dies of SIGILL (or worse).
    pub fn runs_here(self) -> bool {
        match self {
            Self::Scalar => true,
            Self::Simd4 => cfg!(any(target_arch = "x86_64", target_arch = "aarch64")),
            #[cfg(target_arch = "x86_64")]
            Self::Avx2x8 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Self::Avx2x8 => false,
        }
    }

    /// Parse a `--kernel` value: `scalar`, `simd`/`sse2-4way`/`neon-4way`, `avx2`/`avx2-8way`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scalar" => Some(Self::Scalar),
            "simd" | "simd-4way" | "sse2-4way" | "neon-4way" => Some(Self::Simd4),
            "avx2" | "avx2-8way" => Some(Self::Avx2x8),
            _ => None,
        }
    }

    /// Hashes computed per call.
    pub fn lanes(self) -> usize {
        match self {
            Self::Scalar => 1,
            Self::Simd4 => 4,
            Self::Avx2x8 => 8,
        }
    }

    /// `scalar`, `simd-4way` (with the instruction set), `avx2-8way`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Scalar => "scalar",
            Self::Simd4 if cfg!(target_arch = "aarch64") => "neon-4way",
            Self::Simd4 => "sse2-4way",
            Self::Avx2x8 => "avx2-8way",
        }
    }
}

/// The scratch memory of the kernel in use.
enum AnyScratch {
    One(Box<Scratch<1>>),
    Four(Box<Scratch<4>>),
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Eight(Box<Scratch<8>>),
}

/// A kernel was asked for on a CPU that lacks its instructions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {} kernel does not run on this CPU (available: {})",
    .0.label(),
    ScryptKernel::available().iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
)]
pub struct KernelUnavailable(pub ScryptKernel);

/// cpuminer-style hashing for one thread: an 80-byte block header whose last four bytes
/// (the nonce) are incremented for every hash, hashed with itself as salt.
pub struct Miner {
    kernel: ScryptKernel,
    header: [u8; 80],
    nonce: u32,
    scratch: AnyScratch,
    /// XOR of every hash computed, so the work cannot be optimised away.
    pub digest_xor: [u8; 32],
}

impl Miner {
    /// A miner using `kernel` (see [`ScryptKernel::detect`]), starting at nonce `seed`; refused
    /// when this CPU lacks the kernel's instructions (the only way to an 8-lane scratch,
    /// which is what makes the AVX2 call in [`Miner::step`] sound).
    pub fn new(kernel: ScryptKernel, seed: u32) -> Result<Self, KernelUnavailable> {
        if !kernel.runs_here() {
            return Err(KernelUnavailable(kernel));
        }
        let mut header = [0u8; 80];
        // Version 2, then an arbitrary but fixed previous-hash/merkle/time/bits pattern.
        header[0] = 2;
        for (i, b) in header.iter_mut().enumerate().skip(4).take(72) {
            *b = (i as u8).wrapping_mul(37).wrapping_add(11);
        }
        let scratch = match kernel {
            ScryptKernel::Scalar => AnyScratch::One(Box::new(Scratch::new(N))),
            ScryptKernel::Simd4 => AnyScratch::Four(Box::new(Scratch::new(N))),
            #[cfg(target_arch = "x86_64")]
            ScryptKernel::Avx2x8 => AnyScratch::Eight(Box::new(Scratch::new(N))),
            #[cfg(not(target_arch = "x86_64"))]
            ScryptKernel::Avx2x8 => AnyScratch::Four(Box::new(Scratch::new(N))),
        };
        Ok(Self {
            kernel,
            header,
            nonce: seed,
            scratch,
            digest_xor: [0; 32],
        })
    }

    /// The kernel in use.
    pub fn kernel(&self) -> ScryptKernel {
        self.kernel
    }

    /// The header hashed for nonce `nonce`.
    pub fn header_for(&self, nonce: u32) -> [u8; 80] {
        let mut h = self.header;
        h[76..].copy_from_slice(&nonce.to_le_bytes());
        h
    }

    /// Compute the next batch of hashes; returns how many were computed.
    pub fn step(&mut self) -> usize {
        let (header, nonce, dx) = (&self.header, self.nonce, &mut self.digest_xor);
        let n = match &mut self.scratch {
            AnyScratch::One(s) => batch::<1>(header, nonce, s, dx, romix),
            #[cfg(target_arch = "x86_64")]
            AnyScratch::Four(s) => batch::<4>(header, nonce, s, dx, |x, v| {
                // SAFETY: SSE2 is part of the x86_64 baseline; every x86_64 CPU has it.
                unsafe { sse2::romix4(x, v) }
            }),
            #[cfg(target_arch = "aarch64")]
            AnyScratch::Four(s) => batch::<4>(header, nonce, s, dx, |x, v| {
                // SAFETY: NEON (Advanced SIMD) is mandatory on AArch64.
                unsafe { neon::romix4(x, v) }
            }),
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            AnyScratch::Four(s) => batch::<4>(header, nonce, s, dx, romix),
            #[cfg(target_arch = "x86_64")]
            AnyScratch::Eight(s) => batch::<8>(header, nonce, s, dx, |x, v| {
                // SAFETY: an 8-lane scratch exists only for `ScryptKernel::Avx2x8`, and
                // `Miner::new` builds one only after a run-time check for AVX2.
                unsafe { avx2::romix8(x, v) }
            }),
            #[cfg(not(target_arch = "x86_64"))]
            AnyScratch::Eight(s) => batch::<8>(header, nonce, s, dx, romix),
        };
        self.nonce = self.nonce.wrapping_add(n as u32);
        n
    }
}

/// Hash `L` consecutive nonces and fold the results into `digest_xor`.
#[inline(always)]
fn batch<const L: usize>(
    header: &[u8; 80],
    nonce: u32,
    s: &mut Scratch<L>,
    digest_xor: &mut [u8; 32],
    romix: impl FnOnce(&mut ScryptBlock<L>, &mut [ScryptBlock<L>]),
) -> usize {
    let headers: [[u8; 80]; L] = std::array::from_fn(|l| {
        let mut h = *header;
        h[76..].copy_from_slice(&nonce.wrapping_add(l as u32).to_le_bytes());
        h
    });
    let refs: [&[u8]; L] = std::array::from_fn(|l| &headers[l][..]);
    let outs = hash_lanes::<L, 32>(refs, refs, s, romix);
    for o in &outs {
        for (d, b) in digest_xor.iter_mut().zip(o) {
            *d ^= *b;
        }
    }
    L
}
