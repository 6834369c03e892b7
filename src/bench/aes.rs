//! AES throughput measured the way `openssl speed -evp aes-…` measures it.
//!
//! The key schedule is set up once; then one buffer is encrypted in place again and
//! again for a fixed time, with the cipher state (the CBC chain, the GCM counter and
//! GHASH accumulator) carried from one call to the next. The 16-byte column therefore
//! shows the per-call overhead, not key expansion, exactly like OpenSSL's.
//!
//! The block cipher is RustCrypto's `aes`, which picks AES-NI (x86) or the ARMv8 Crypto
//! Extensions (aarch64) at run time. The CBC loop is ours, not the `cbc` crate's: that
//! crate keeps the chaining value in memory and reloads it for every block, which puts a
//! store-to-load forwarding delay on CBC's serial dependency chain and cost about 20 %
//! against OpenSSL on this machine (see `docs/FIDELITY.md`). Our loop runs inside the
//! backend closure, so the feature check happens once per buffer and the chaining value
//! stays in a register. GCM is streamed like OpenSSL's `EVP_EncryptUpdate` loop: CTR
//! keystream plus GHASH over the ciphertext, with no per-call nonce or tag.

pub mod suite;

use std::time::{Duration, Instant};

use aes::cipher::{
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    KeyIvInit, StreamCipher, consts::U16,
};
use ghash::universal_hash::UniversalHash;
use serde::{Deserialize, Serialize};

use crate::bench::{BenchError, Tick, pin};
use crate::shutdown::CancellationToken;

/// The buffer sizes `openssl speed` uses, in bytes.
pub const BUFFER_SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

/// How long `openssl speed` runs each buffer size by default.
pub const DEFAULT_SECONDS_PER_SIZE: f64 = 3.0;

pub use crate::bench::external::openssl::Algorithm;

/// Which AES implementation ran: the point of this benchmark for many users is to see
/// whether a SoC has crypto extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backend {
    /// x86 AES-NI instructions.
    #[serde(rename = "aes-ni")]
    AesNi,
    /// ARMv8 Cryptography Extensions (AESE/AESMC).
    #[serde(rename = "armv8-ce")]
    Armv8Ce,
    /// Portable constant-time software AES (bitsliced); no crypto instructions used.
    #[serde(rename = "soft")]
    Soft,
}

impl Backend {
    /// The backend RustCrypto's `aes` picks on this CPU (a run-time check).
    pub fn detect() -> Self {
        if !aes::hardware_accelerated() {
            return Self::Soft;
        }
        if cfg!(target_arch = "aarch64") {
            Self::Armv8Ce
        } else {
            Self::AesNi
        }
    }

    /// `aes-ni`, `armv8-ce` or `soft`.
    pub fn label(self) -> &'static str {
        match self {
            Self::AesNi => "aes-ni",
            Self::Armv8Ce => "armv8-ce",
            Self::Soft => "soft",
        }
    }
}

/// Which GHASH implementation the GCM rows use (carry-less multiply or software).
pub fn ghash_backend() -> &'static str {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    {
        if std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("avx")
        {
            return "pclmulqdq";
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("aes") {
            return "pmull";
        }
    }
    "soft"
}

/// How to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct AesOptions {
    /// Time spent on each buffer size (OpenSSL: 3 s).
    pub per_size: Duration,
    /// Buffer sizes in bytes; each is rounded down to whole 16-byte blocks (minimum one).
    pub buffer_sizes: Vec<usize>,
}

impl Default for AesOptions {
    fn default() -> Self {
        Self {
            per_size: Duration::from_secs_f64(DEFAULT_SECONDS_PER_SIZE),
            buffer_sizes: BUFFER_SIZES.to_vec(),
        }
    }
}

impl AesOptions {
    /// `--quick`: 0.2 s per size, every size.
    pub fn quick() -> Self {
        Self {
            per_size: Duration::from_millis(200),
            ..Self::default()
        }
    }
}

/// Throughput at one buffer size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    /// Buffer size in bytes.
    pub buffer_bytes: usize,
    /// Number of encrypt calls made.
    pub calls: u64,
    /// Wall-clock time of those calls, in seconds.
    pub elapsed_s: f64,
    /// Throughput in bytes per second (OpenSSL prints this divided by 1000, `k` suffix).
    pub bytes_per_s: f64,
}

/// One algorithm measured on one CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesRun {
    /// What was measured.
    pub algorithm: Algorithm,
    /// The AES implementation that ran.
    pub backend: Backend,
    /// For GCM: the GHASH implementation (`pclmulqdq`, `pmull`, `soft`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ghash_backend: Option<String>,
    /// The CPU the thread was pinned to, if it was pinned.
    pub cpu: Option<u32>,
    /// One entry per buffer size, in the order asked for.
    #[serde(default)]
    pub sizes: Vec<SizeResult>,
}

/// Something that encrypts one buffer in place, carrying its state to the next call.
trait Engine {
    fn process(&mut self, buf: &mut [aes::Block]);
}

/// CBC encryption with the chaining value carried across calls.
struct Cbc<C> {
    cipher: C,
    chain: aes::Block,
}

impl<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>> Engine for Cbc<C> {
    #[inline]
    fn process(&mut self, buf: &mut [aes::Block]) {
        self.cipher.encrypt_with_backend(CbcClosure {
            chain: &mut self.chain,
            blocks: buf,
        });
    }
}

/// The CBC loop, run by the AES backend with its target features enabled.
struct CbcClosure<'a> {
    chain: &'a mut aes::Block,
    blocks: &'a mut [aes::Block],
}

impl BlockSizeUser for CbcClosure<'_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for CbcClosure<'_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        // A local copy: the chain must live in a register, not behind `&mut`.
        let mut chain = *self.chain;
        for block in self.blocks.iter_mut() {
            for (c, p) in chain.iter_mut().zip(block.iter()) {
                *c ^= *p;
            }
            backend.encrypt_block((&mut chain).into());
            *block = chain;
        }
        *self.chain = chain;
    }
}

type Ctr256 = ctr::Ctr32BE<aes::Aes256>;

/// GCM encryption streamed like OpenSSL's update loop: CTR keystream, then GHASH over
/// the ciphertext; the tag is only computed by [`Gcm::tag`] (tests).
struct Gcm {
    key: aes::cipher::Key<aes::Aes256>,
    j0: aes::Block,
    ctr: Ctr256,
    ghash: ghash::GHash,
    ciphertext_bytes: u64,
}

impl Gcm {
    /// GCM with a 96-bit IV (the only IV length OpenSSL's speed test uses).
    fn new(key: &[u8; 32], iv: &[u8; 12]) -> Self {
        let key = aes::cipher::Key::<aes::Aes256>::from(*key);
        let cipher = aes::Aes256::new(&key);
        let mut h = aes::Block::default();
        cipher.encrypt_block(&mut h);
        let mut j0 = aes::Block::default();
        j0[..12].copy_from_slice(iv);
        j0[15] = 1;
        let ctr = Self::ctr_at_first_block(&key, &j0);
        Self {
            key,
            j0,
            ctr,
            ghash: ghash::GHash::new(&h),
            ciphertext_bytes: 0,
        }
    }

    /// The CTR keystream for the payload starts at J0 + 1.
    fn ctr_at_first_block(key: &aes::cipher::Key<aes::Aes256>, j0: &aes::Block) -> Ctr256 {
        let mut first = *j0;
        first[15] = 2;
        Ctr256::new(key, &first)
    }

    /// The authentication tag of everything encrypted so far (no associated data).
    #[cfg(test)]
    fn tag(self) -> aes::Block {
        let mut lengths = aes::Block::default();
        lengths[8..].copy_from_slice(&(self.ciphertext_bytes * 8).to_be_bytes());
        let mut ghash = self.ghash;
        ghash.update(&[lengths]);
        let mut s = ghash.finalize();
        let mut ek_j0 = self.j0;
        aes::Aes256::new(&self.key).encrypt_block(&mut ek_j0);
        for (t, e) in s.iter_mut().zip(ek_j0.iter()) {
            *t ^= *e;
        }
        s
    }
}

impl Engine for Gcm {
    fn process(&mut self, buf: &mut [aes::Block]) {
        let len = buf.len() as u64 * 16;
        let bytes = aes::Block::slice_as_flattened_mut(buf);
        if self.ctr.try_apply_keystream(bytes).is_err() {
            // 2^32 blocks (64 GiB) in one benchmark: restart the counter instead of
            // panicking. Real GCM would need a new IV; for timing it is the same work.
            self.ctr = Self::ctr_at_first_block(&self.key, &self.j0);
            self.ctr.apply_keystream(bytes);
        }
        self.ghash.update(buf);
        self.ciphertext_bytes = self.ciphertext_bytes.wrapping_add(len);
    }
}

// Fixed key and IV: the speed of AES does not depend on them.
const KEY: [u8; 32] = [
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
];
const IV: [u8; 16] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
];

fn engine(alg: Algorithm) -> Result<Box<dyn EngineDyn>, BenchError> {
    fn cbc<C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + 'static>(
        key: &[u8],
    ) -> Result<Box<dyn EngineDyn>, BenchError> {
        // KEY is 32 bytes; every AES key size is a prefix of it.
        let cipher = C::new_from_slice(key)
            .map_err(|_| BenchError::Failed(format!("bad AES key length {}", key.len())))?;
        Ok(Box::new(Cbc {
            cipher,
            chain: aes::Block::from(IV),
        }))
    }
    match alg {
        Algorithm::Aes128Cbc => cbc::<aes::Aes128>(&KEY[..16]),
        Algorithm::Aes192Cbc => cbc::<aes::Aes192>(&KEY[..24]),
        Algorithm::Aes256Cbc => cbc::<aes::Aes256>(&KEY),
        Algorithm::Aes256Gcm => {
            let mut iv = [0u8; 12];
            iv.copy_from_slice(&IV[..12]);
            Ok(Box::new(Gcm::new(&KEY, &iv)))
        }
    }
}

/// Object-safe wrapper: the timing loop is generic over the engine (static dispatch per
/// call); only the choice of loop is dynamic.
trait EngineDyn {
    fn time(
        &mut self,
        buf: &mut [aes::Block],
        per_size: Duration,
        cancel: &CancellationToken,
    ) -> (u64, Duration);
}

impl<E: Engine> EngineDyn for E {
    fn time(
        &mut self,
        buf: &mut [aes::Block],
        per_size: Duration,
        cancel: &CancellationToken,
    ) -> (u64, Duration) {
        time_loop(self, buf, per_size, cancel)
    }
}

/// Encrypt `buf` again and again for `per_size`. The clock is read between batches
/// sized to take about a millisecond, so timing costs nothing measurable.
fn time_loop<E: Engine>(
    engine: &mut E,
    buf: &mut [aes::Block],
    per_size: Duration,
    cancel: &CancellationToken,
) -> (u64, Duration) {
    const SLICE: Duration = Duration::from_millis(1);
    let start = Instant::now();
    let mut calls: u64 = 0;
    let mut batch: u64 = 1;
    loop {
        for _ in 0..batch {
            engine.process(buf);
        }
        std::hint::black_box(&mut *buf);
        calls += batch;
        let elapsed = start.elapsed();
        if elapsed >= per_size || cancel.is_cancelled() {
            return (calls, elapsed);
        }
        // Aim the next batch at ~1 ms, never past the deadline by more than that.
        let per_call = elapsed.as_secs_f64() / calls as f64;
        if per_call > 0.0 {
            let left = (per_size - elapsed).min(SLICE).as_secs_f64();
            batch = ((left / per_call) as u64).clamp(1, 1 << 24);
        } else {
            batch = batch.saturating_mul(2);
        }
    }
}

/// Measure one algorithm on the calling thread (pin it first, see [`measure_on`]).
/// `progress` is called after each buffer size.
pub fn measure(
    alg: Algorithm,
    opts: &AesOptions,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<AesRun, BenchError> {
    let mut engine = engine(alg)?;
    let mut sizes = Vec::with_capacity(opts.buffer_sizes.len());
    for &size in &opts.buffer_sizes {
        let blocks = (size / 16).max(1);
        let mut buf = vec![aes::Block::default(); blocks];
        let (calls, elapsed) = engine.time(&mut buf, opts.per_size, cancel);
        if cancel.is_cancelled() {
            return Err(BenchError::Cancelled);
        }
        let secs = elapsed.as_secs_f64().max(1e-9);
        sizes.push(SizeResult {
            buffer_bytes: blocks * 16,
            calls,
            elapsed_s: secs,
            bytes_per_s: calls as f64 * (blocks * 16) as f64 / secs,
        });
        progress();
    }
    Ok(AesRun {
        algorithm: alg,
        backend: Backend::detect(),
        ghash_backend: (alg == Algorithm::Aes256Gcm).then(|| ghash_backend().to_string()),
        cpu: None,
        sizes,
    })
}

/// Measure on a thread pinned to `cpu`.
pub fn measure_on(
    cpu: u32,
    alg: Algorithm,
    opts: &AesOptions,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<AesRun, BenchError> {
    let mut run = pin::run_on(cpu, || measure(alg, opts, cancel, progress))??;
    run.cpu = Some(cpu);
    Ok(run)
}

/// sbc-bench's extensive "fully parallel" rows: one pinned thread per CPU, all running at
/// once. Returns one result per CPU, in the order given; a CPU that cannot be pinned
/// gets its error and the others still run.
pub fn measure_parallel(
    cpus: &[u32],
    alg: Algorithm,
    opts: &AesOptions,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Vec<(u32, Result<AesRun, BenchError>)> {
    let barrier = std::sync::Barrier::new(cpus.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let barrier = &barrier;
                let h = s.spawn(move || {
                    let pinned = pin::pin_current_thread(cpu);
                    // Everyone waits, pinned or not, so the others start together.
                    barrier.wait();
                    pinned?;
                    let mut run = measure(alg, opts, cancel, progress)?;
                    run.cpu = Some(cpu);
                    Ok(run)
                });
                (cpu, h)
            })
            .collect();
        handles
            .into_iter()
            .map(|(cpu, h)| {
                let r = h
                    .join()
                    .unwrap_or(Err(BenchError::Pin(pin::PinError::Panicked(cpu))));
                (cpu, r)
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn blocks(bytes: &[u8]) -> Vec<aes::Block> {
        bytes
            .chunks(16)
            .map(|c| aes::Block::try_from(c).unwrap())
            .collect()
    }

    fn flat(b: &[aes::Block]) -> Vec<u8> {
        b.iter().flat_map(|x| x.iter().copied()).collect()
    }

    // NIST SP 800-38A, appendix F.2.1/F.2.3/F.2.5 (CBC-AES128/192/256.Encrypt).
    const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                         30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
    const CBC_VECTORS: [(&str, &str); 3] = [
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
             73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        ),
        (
            "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
            "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a\
             571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd",
        ),
        (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d\
             39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
        ),
    ];

    type Encrypt = Box<dyn FnMut(&mut [aes::Block])>;

    fn cbc_engine(key: &[u8]) -> Encrypt {
        let iv = aes::Block::from(IV);
        match key.len() {
            16 => {
                let mut e = Cbc {
                    cipher: aes::Aes128::new_from_slice(key).unwrap(),
                    chain: iv,
                };
                Box::new(move |b| e.process(b))
            }
            24 => {
                let mut e = Cbc {
                    cipher: aes::Aes192::new_from_slice(key).unwrap(),
                    chain: iv,
                };
                Box::new(move |b| e.process(b))
            }
            _ => {
                let mut e = Cbc {
                    cipher: aes::Aes256::new_from_slice(key).unwrap(),
                    chain: iv,
                };
                Box::new(move |b| e.process(b))
            }
        }
    }

    #[test]
    fn cbc_matches_nist_sp800_38a_vectors() {
        for (key, cipher) in CBC_VECTORS {
            let mut buf = blocks(&hex(PLAIN));
            cbc_engine(&hex(key))(&mut buf);
            assert_eq!(flat(&buf), hex(cipher), "key {key}");
        }
    }

    #[test]
    fn cbc_chain_carries_over_between_calls() {
        // Encrypting the four blocks in two calls of two gives the same ciphertext.
        for (key, cipher) in CBC_VECTORS {
            let mut e = cbc_engine(&hex(key));
            let mut buf = blocks(&hex(PLAIN));
            let (a, b) = buf.split_at_mut(2);
            e(a);
            e(b);
            assert_eq!(flat(&buf), hex(cipher));
        }
    }

    #[test]
    fn cbc_agrees_with_the_cbc_crate_over_repeated_calls() {
        use aes::cipher::BlockModeEncrypt;
        let mut ours = cbc_engine(&KEY[..16]);
        let mut theirs =
            cbc::Encryptor::<aes::Aes128>::new(&KEY[..16].try_into().unwrap(), &IV.into());
        let mut a = vec![aes::Block::default(); 64];
        let mut b = a.clone();
        for _ in 0..5 {
            ours(&mut a);
            theirs.encrypt_blocks(&mut b);
        }
        assert_eq!(a, b);
    }

    // The GCM specification (McGrew/Viega), test case 15: AES-256, 96-bit IV, no AAD.
    #[test]
    fn gcm_stream_matches_the_gcm_spec_vector() {
        let key: [u8; 32] = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
            .try_into()
            .unwrap();
        let iv: [u8; 12] = hex("cafebabefacedbaddecaf888").try_into().unwrap();
        let plain = hex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
             1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
        );
        let mut g = Gcm::new(&key, &iv);
        let mut buf = blocks(&plain);
        // Streamed in two calls, as the benchmark does.
        let (a, b) = buf.split_at_mut(1);
        g.process(a);
        g.process(b);
        assert_eq!(
            flat(&buf),
            hex(
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
                 8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
            )
        );
        assert_eq!(g.tag().to_vec(), hex("b094dac5d93471bdec1a502270e3cc6c"));
    }

    #[test]
    fn gcm_stream_agrees_with_the_aes_gcm_crate() {
        use aes_gcm::aead::AeadInOut;
        let mut g = Gcm::new(&KEY, &IV[..12].try_into().unwrap());
        let mut buf = vec![aes::Block::from([0x5a; 16]); 100];
        g.process(&mut buf[..37]);
        g.process(&mut buf[37..]);
        let mut theirs = vec![0x5au8; 1600];
        let aead = aes_gcm::Aes256Gcm::new(&KEY.into());
        let tag = aead
            .encrypt_inout_detached(
                &IV[..12].try_into().unwrap(),
                b"",
                theirs.as_mut_slice().into(),
            )
            .unwrap();
        assert_eq!(flat(&buf), theirs);
        assert_eq!(g.tag().to_vec(), tag.to_vec());
    }

    #[test]
    fn names_parse_in_both_openssl_spellings() {
        assert_eq!(
            Algorithm::from_name("AES-128-CBC"),
            Some(Algorithm::Aes128Cbc)
        );
        assert_eq!(
            Algorithm::from_name("aes-256-gcm"),
            Some(Algorithm::Aes256Gcm)
        );
        assert_eq!(Algorithm::from_name("aes-128-ecb"), None);
        assert_eq!(
            serde_json::to_string(&Algorithm::Aes192Cbc).unwrap(),
            "\"aes-192-cbc\""
        );
    }

    #[test]
    fn short_measurement_counts_calls_and_bytes() {
        let opts = AesOptions {
            per_size: Duration::from_millis(20),
            buffer_sizes: vec![16, 100],
        };
        let t = CancellationToken::new();
        for alg in [Algorithm::Aes128Cbc, Algorithm::Aes256Gcm] {
            let run = measure(alg, &opts, &t, &no_progress_fn).unwrap();
            assert_eq!(run.sizes.len(), 2);
            assert_eq!(run.sizes[1].buffer_bytes, 96, "rounded to whole blocks");
            for s in &run.sizes {
                assert!(s.calls > 0 && s.elapsed_s >= 0.02 && s.bytes_per_s > 0.0);
                let expect = s.calls as f64 * s.buffer_bytes as f64 / s.elapsed_s;
                assert!((s.bytes_per_s - expect).abs() < 1e-6 * expect);
            }
            assert_eq!(run.ghash_backend.is_some(), alg == Algorithm::Aes256Gcm);
        }
    }

    fn no_progress_fn() {}

    #[test]
    fn cancellation_stops_a_measurement() {
        let t = CancellationToken::new();
        t.cancel();
        let start = Instant::now();
        let r = measure(
            Algorithm::Aes128Cbc,
            &AesOptions::default(),
            &t,
            &no_progress_fn,
        );
        assert!(matches!(r, Err(BenchError::Cancelled)));
        assert!(start.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn parallel_run_reports_unpinnable_cpus_and_runs_the_rest() {
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let opts = AesOptions {
            per_size: Duration::from_millis(10),
            buffer_sizes: vec![1024],
        };
        let t = CancellationToken::new();
        let r = measure_parallel(
            &[cpu, 4000],
            Algorithm::Aes256Cbc,
            &opts,
            &t,
            &no_progress_fn,
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].1.as_ref().unwrap().cpu, Some(cpu));
        assert!(matches!(r[1].1, Err(BenchError::Pin(_))));
    }
}
