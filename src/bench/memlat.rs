//! Memory latency, as the two tables sbc-bench logs:
//!
//! * tinymembench's "single random read / dual random read": random byte reads within a block
//!   of 1 KiB … 64 MiB, each address computed from a pseudo-random generator that depends on
//!   the previous read (so reads cannot overlap), dual = two independent reads per step. The
//!   time of the same loop on a 2-byte block (always an L1 hit) is subtracted: the numbers
//!   are the *extra* time over an L1 hit, as tinymembench states.
//! * ramlat's columns: dependent chains of 32-bit offsets, 64-bit offsets and pointers, 1, 2,
//!   4 or 8 chains walked in parallel, over 4 KiB … 128 MiB; nanoseconds per step. The chains
//!   visit the words of the block in bit-reversed order (0, ½, ¼, ¾, ⅛ …), ramlat's walk:
//!   every step lands far from the previous one, so neither the prefetcher nor a TLB entry
//!   helps once the block outgrows them. Parallel chains start 64 bytes (offsets) or 64 words
//!   (pointers) apart, and restart every 2^20 steps like ramlat's rounds.
//!
//! When the kernel offers transparent huge pages, tinymembench's table is measured twice, as
//! current sbc-bench logs show it: `madvise(MADV_NOHUGEPAGE)`, then `madvise(MADV_HUGEPAGE)`.
//! ramlat's buffer gets no advice (the kernel's THP policy decides), as the original ramlat
//! that sbc-bench runs; the result says how much of it was backed by huge pages (smaps).
//! Runs on the calling thread; pin it first.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bench::kernels::buffer::{Advice, Buffer};
use crate::bench::pin::Target;
use crate::bench::{BenchError, Benchmark, Progress};
use crate::shutdown::CancellationToken;
use crate::sys::membench;
use crate::sys::root::SysRoot;

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// Largest block of the ramlat table (sbc-bench: `-w 12,…,27`, 4 KiB … 128 MiB).
pub const RAMLAT_MAX: usize = 128 * MIB;
/// Largest block of the tinymembench table (its 64 MiB buffer).
pub const TMB_MAX: usize = 64 * MIB;
/// Below this the table is not worth printing: we refuse rather than mislead.
pub const MIN_BUFFER: usize = 4 * MIB;
/// Share of `MemAvailable` the buffer may take.
pub const MEM_SHARE_DIVISOR: u64 = 4;

/// ramlat's column names, in its order.
pub const RAMLAT_COLUMNS: [&str; 8] = [
    "1x32", "2x32", "1x64", "2x64", "1xPTR", "2xPTR", "4xPTR", "8xPTR",
];

/// How long and how often to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MemlatOptions {
    /// Random reads per tinymembench measurement (sbc-bench passes `-c 1000000`).
    pub tmb_count: usize,
    /// tinymembench repetitions per block size (sbc-bench: `-l 3`); the best counts.
    pub tmb_repeats: u32,
    /// Print tinymembench's table without and with huge pages when the kernel offers them,
    /// as the tinymembench build of current sbc-bench does (`[MADV_NOHUGEPAGE]` and
    /// `[MADV_HUGEPAGE]`); otherwise one table with the planned advice.
    pub tmb_both_page_sizes: bool,
    /// Time per ramlat cell (ramlat's default is 100 ms, sbc-bench passes 200; we use 25 ms
    /// by default: on the 2-core VM of docs/FIDELITY.md the cells' run-to-run spread was the
    /// same at 25, 40 and 80 ms, the machine's own noise, and the table takes 3 s, not 10).
    pub ramlat_cell: Duration,
    /// Largest block wanted (128 MiB; less when memory is short).
    pub max_bytes: usize,
    /// Shortened run.
    pub quick: bool,
}

impl MemlatOptions {
    /// About 25–30 s per cluster on a typical board.
    pub fn standard() -> Self {
        Self {
            tmb_count: 1_000_000,
            tmb_repeats: 3,
            tmb_both_page_sizes: true,
            ramlat_cell: Duration::from_millis(25),
            max_bytes: RAMLAT_MAX,
            quick: false,
        }
    }

    /// sbc-bench's extensive mode: ramlat at 200 ms per cell.
    pub fn extensive() -> Self {
        Self {
            ramlat_cell: Duration::from_millis(200),
            ..Self::standard()
        }
    }

    /// For tests and smoke runs: blocks up to 8 MiB, a second or two.
    pub fn quick() -> Self {
        Self {
            tmb_count: 40_000,
            tmb_repeats: 2,
            tmb_both_page_sizes: true,
            ramlat_cell: Duration::from_millis(3),
            max_bytes: 8 * MIB,
            quick: true,
        }
    }
}

/// How large the buffer is, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemPlan {
    /// Buffer size in bytes (a power of two): the largest block measured.
    pub bytes: usize,
    /// What we wanted.
    pub wanted_bytes: usize,
    /// `MemAvailable` when planning, in bytes.
    pub mem_available_bytes: Option<u64>,
    /// The kernel's THP mode (`always`, `madvise`, `never`), `None` without THP.
    pub thp_mode: Option<String>,
    /// What we ask the kernel for.
    pub advice: Advice,
    /// A sentence when the blocks are smaller than wanted.
    pub note: Option<String>,
}

/// Size the buffer: `wanted` (a power of two), or the largest power of two within a quarter
/// of `MemAvailable`; ask for huge pages when THP is `always` or `madvise`.
pub fn plan(wanted: usize, mem_available: Option<u64>, thp_mode: Option<String>) -> MemPlan {
    let wanted = wanted.max(MIN_BUFFER).next_power_of_two();
    let mut bytes = wanted;
    let mut note = None;
    if let Some(avail) = mem_available {
        let cap = usize::try_from(avail / MEM_SHARE_DIVISOR).unwrap_or(usize::MAX);
        if cap < bytes {
            let fit = if cap == 0 {
                1
            } else {
                1usize << (usize::BITS - 1 - cap.leading_zeros())
            };
            bytes = fit.max(MIN_BUFFER);
            note = Some(format!(
                "only {} MiB memory available: blocks up to {} MiB instead of {} MiB",
                avail / MIB as u64,
                bytes / MIB,
                wanted / MIB
            ));
        }
    }
    let advice = if membench::thp_usable(thp_mode.as_deref()) {
        Advice::HugePage
    } else {
        Advice::Default
    };
    MemPlan {
        bytes,
        wanted_bytes: wanted,
        mem_available_bytes: mem_available,
        thp_mode,
        advice,
        note,
    }
}

/// One row of tinymembench's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyRow {
    /// Block size in bytes.
    pub block_bytes: u64,
    /// Extra time of one random read over an L1 hit, in ns.
    pub single_ns: f64,
    /// Extra time of two independent random reads over L1 hits, in ns.
    pub dual_ns: f64,
}

/// tinymembench's table for one page-size setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyTable {
    /// What was asked of the kernel.
    pub advice: Advice,
    /// Whether the kernel accepted the `madvise`.
    pub advised: bool,
    /// Bytes of the buffer backed by huge pages (from `/proc/self/smaps`), if known.
    pub huge_page_bytes: Option<u64>,
    /// One row per block size, ascending.
    #[serde(default)]
    pub rows: Vec<LatencyRow>,
}

/// One row of ramlat's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RamlatRow {
    /// Block size in bytes.
    pub size_bytes: u64,
    /// Nanoseconds per step, in the order of [`RAMLAT_COLUMNS`].
    #[serde(default)]
    pub ns: Vec<f64>,
}

/// ramlat's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RamlatTable {
    /// Column names ([`RAMLAT_COLUMNS`]).
    #[serde(default)]
    pub columns: Vec<String>,
    /// Whether the kernel accepted the `madvise`.
    pub advised: bool,
    /// Bytes of the buffer backed by huge pages, if known.
    pub huge_page_bytes: Option<u64>,
    /// How long each cell was measured, in milliseconds (sbc-bench passes ramlat 200; the
    /// standard run takes 25).
    pub cell_ms: f64,
    /// One row per block size, ascending.
    #[serde(default)]
    pub rows: Vec<RamlatRow>,
}

impl RamlatTable {
    /// The row for a block size (sbc-bench's review shows 16M and 128M).
    pub fn row(&self, size_bytes: u64) -> Option<&RamlatRow> {
        self.rows.iter().find(|r| r.size_bytes == size_bytes)
    }
}

/// The latency results of one core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemlatResult {
    /// Buffer sizing and huge page policy.
    pub plan: MemPlan,
    /// tinymembench's table(s): with the planned advice, and without huge pages when asked.
    #[serde(default)]
    pub tinymembench: Vec<LatencyTable>,
    /// ramlat's table.
    pub ramlat: Option<RamlatTable>,
    /// Wall time in seconds.
    pub duration_s: f64,
    /// Stopped early by a signal.
    pub cancelled: bool,
}

/// The latency run of one target CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemlatRun {
    /// Where it ran.
    pub target: Target,
    /// The results, `None` when it could not run.
    pub result: Option<MemlatResult>,
    /// Why it could not run.
    pub error: Option<String>,
}

// ---------------------------------------------------------------------------------------
// tinymembench-style random reads

/// Knuth's MMIX LCG constants: 64-bit state, the high bits are well distributed.
const LCG_A: u64 = 6_364_136_223_846_793_005;
const LCG_C: u64 = 1_442_695_040_888_963_407;

/// `count` dependent random byte reads within `buf[..=mask]`. Returns the final state so
/// the loop cannot be optimised away.
#[inline(never)]
fn random_single(buf: &[u8], count: usize, mask: usize) -> u64 {
    let mask = mask.min(buf.len().saturating_sub(1));
    let p = buf.as_ptr();
    let mut s: u64 = 1;
    for _ in 0..count / 16 {
        for _ in 0..16 {
            s = s.wrapping_mul(LCG_A).wrapping_add(LCG_C);
            let i = (s >> 32) as usize & mask;
            // SAFETY: i <= mask <= buf.len() - 1.
            let b = unsafe { *p.add(i) };
            // The buffer holds zeros: OR-ing the byte in changes nothing but makes the next
            // address depend on this read.
            s |= u64::from(b);
        }
    }
    std::hint::black_box(s)
}

/// Like [`random_single`] with two independent reads per step.
#[inline(never)]
fn random_dual(buf: &[u8], count: usize, mask: usize) -> u64 {
    let mask = mask.min(buf.len().saturating_sub(1));
    let p = buf.as_ptr();
    let mut s: u64 = 1;
    for _ in 0..count / 16 {
        for _ in 0..16 {
            let s1 = s.wrapping_mul(LCG_A).wrapping_add(LCG_C);
            let s2 = s1.wrapping_mul(LCG_A).wrapping_add(LCG_C);
            let i1 = (s1 >> 32) as usize & mask;
            let i2 = (s2 >> 32) as usize & mask;
            // SAFETY: i1, i2 <= mask <= buf.len() - 1.
            let (b1, b2) = unsafe { (*p.add(i1), *p.add(i2)) };
            s = s2 | u64::from(b1) | u64::from(b2);
        }
    }
    std::hint::black_box(s)
}

fn timed(f: impl FnOnce() -> u64) -> f64 {
    let t = Instant::now();
    std::hint::black_box(f());
    t.elapsed().as_secs_f64()
}

/// A tiny xorshift for choosing block offsets (not for the measured accesses).
struct Offsets(u64);

impl Offsets {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// tinymembench's table over `buf` (zero-filled): blocks from 1 KiB to `min(64 MiB, len)`.
fn tinymembench_table(
    buf: &[u8],
    opts: &MemlatOptions,
    cancel: &CancellationToken,
    tick: &mut dyn FnMut(),
) -> Vec<LatencyRow> {
    let count = opts.tmb_count.max(16);
    let repeats = opts.tmb_repeats.max(1);
    // Baseline: the same loops on a 2-byte block, always an L1 hit.
    let mut base1 = f64::MAX;
    let mut base2 = f64::MAX;
    for _ in 0..repeats {
        base1 = base1.min(timed(|| random_single(buf, count, 1)));
        base2 = base2.min(timed(|| random_dual(buf, count, 1)));
    }
    let mut rows = Vec::new();
    let mut offsets = Offsets(0x9E37_79B9_7F4A_7C15);
    let max = buf.len().min(TMB_MAX);
    let mut block = KIB;
    while block <= max {
        if cancel.is_cancelled() {
            break;
        }
        let (mut min1, mut min2) = (f64::MAX, f64::MAX);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for n in 0..repeats {
            // A random block-aligned offset, as tinymembench does, to average out cache
            // associativity effects of the physical pages we happened to get.
            let slots = (buf.len() / block) as u64;
            let off = (offsets.next() % slots.max(1)) as usize * block;
            let b = &buf[off..off + block];
            let t1 = (timed(|| random_single(b, count, block - 1)) - base1).max(0.0);
            let t2 = (timed(|| random_dual(b, count, block - 1)) - base2).max(0.0);
            min1 = min1.min(t1);
            min2 = min2.min(t2);
            xs.push(t1);
            ys.push(t2);
            if n >= 2
                && crate::bench::membw::sample_stddev(&xs) < min1 / 1000.0
                && crate::bench::membw::sample_stddev(&ys) < min2 / 1000.0
            {
                break;
            }
        }
        rows.push(LatencyRow {
            block_bytes: block as u64,
            single_ns: min1 * 1e9 / count as f64,
            dual_ns: min2 * 1e9 / count as f64,
        });
        tick();
        block *= 2;
    }
    rows
}

// ---------------------------------------------------------------------------------------
// ramlat-style chains

/// Reverse the low `bits` bits of `x`.
pub fn bit_reverse(x: usize, bits: u32) -> usize {
    if bits == 0 {
        return 0;
    }
    x.reverse_bits() >> (usize::BITS - bits)
}

/// For a block of `words` words (a power of two), the word each word points to: the walk
/// visits word `bit_reverse(k)` at step `k`, one cycle through every word.
pub fn walk_successor(word: usize, words: usize) -> usize {
    let bits = words.trailing_zeros();
    let k = bit_reverse(word, bits);
    bit_reverse((k + 1) % words, bits)
}

/// Word layout of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// 32-bit byte offsets.
    Off32,
    /// 64-bit byte offsets.
    Off64,
    /// Native pointers.
    Ptr,
}

impl Word {
    fn size(self) -> usize {
        match self {
            Word::Off32 => 4,
            Word::Off64 => 8,
            Word::Ptr => std::mem::size_of::<usize>(),
        }
    }
}

/// The word after `word` in the walk over `2^bits` words, without reversing twice:
/// `bit_reverse(bit_reverse(word) + 1)` is `word` counted up from its top bit (the carry
/// runs toward the low bits), so the run of ones at the top and the zero below it flip.
/// Equal to [`walk_successor`] (tested over every word of small blocks); a few integer
/// operations instead of two bit reversals, which x86 has no instruction for.
#[inline]
fn reversed_increment(word: usize, bits: u32) -> usize {
    if bits == 0 {
        return 0;
    }
    let ones = (word << (usize::BITS - bits)).leading_ones();
    if ones >= bits {
        return 0;
    }
    let low = bits - 1 - ones;
    word ^ (((1usize << (ones + 1)) - 1) << low)
}

/// Write the walk for `kind` into `area` (whose length is a power of two).
fn fill_walk(area: &mut [u8], kind: Word) {
    let w = kind.size();
    let words = area.len() / w;
    let base = area.as_mut_ptr() as usize;
    let bits = words.trailing_zeros();
    // Step k of the cycle is at word bit_reverse(k) and points to bit_reverse(k+1). The
    // words are written in address order (bit reversal is its own inverse: word `here` is
    // step bit_reverse(here)), so filling a 128 MiB block streams through memory instead of
    // missing the cache on every store.
    for (here, slot) in area.chunks_exact_mut(w).enumerate() {
        let next = reversed_increment(here, bits) * w;
        match kind {
            Word::Off32 => slot.copy_from_slice(&(next as u32).to_ne_bytes()),
            Word::Off64 => slot.copy_from_slice(&(next as u64).to_ne_bytes()),
            Word::Ptr => slot.copy_from_slice(&(base + next).to_ne_bytes()),
        }
    }
}

/// Rounds of this many steps between clock reads.
const ROUND: usize = 1 << 16;
/// Chains restart from their first word after this many steps, as ramlat's rounds do: on
/// large blocks only the first 2^20 positions of the bit-reversed walk are visited, which
/// fixes how many distinct cache lines (and which cache sets) the walk touches.
const RESTART: usize = 1 << 20;

/// Walk `C` 32-bit-offset chains for `steps` steps from `pos`; returns the new positions.
#[inline(never)]
fn walk_off32<const C: usize>(area: &[u8], mut pos: [usize; C], steps: usize) -> [usize; C] {
    let p = area.as_ptr();
    for _ in 0..steps / 16 {
        for _ in 0..16 {
            for c in pos.iter_mut() {
                // SAFETY: fill_walk stored in-bounds, 4-aligned offsets; pos starts in bounds.
                *c = unsafe { (p.add(*c) as *const u32).read() } as usize;
            }
        }
    }
    pos
}

/// Walk `C` 64-bit-offset chains.
#[inline(never)]
fn walk_off64<const C: usize>(area: &[u8], mut pos: [usize; C], steps: usize) -> [usize; C] {
    let p = area.as_ptr();
    for _ in 0..steps / 16 {
        for _ in 0..16 {
            for c in pos.iter_mut() {
                // SAFETY: fill_walk stored in-bounds, 8-aligned offsets; pos starts in bounds.
                *c = unsafe { (p.add(*c) as *const u64).read() } as usize;
            }
        }
    }
    pos
}

/// Walk `C` pointer chains (positions are addresses).
#[inline(never)]
fn walk_ptr<const C: usize>(mut pos: [usize; C], steps: usize) -> [usize; C] {
    for _ in 0..steps / 16 {
        for _ in 0..16 {
            for c in pos.iter_mut() {
                // SAFETY: fill_walk stored addresses of aligned words inside the live area.
                *c = unsafe { (*c as *const usize).read() };
            }
        }
    }
    pos
}

/// Time one ramlat cell: walk until `cell` has passed, return ns per step.
fn ramlat_cell(area: &[u8], column: usize, cell: Duration) -> f64 {
    let base = area.as_ptr() as usize;
    let start = Instant::now();
    let mut steps = 0usize;
    // Offsets of parallel chains: 64 bytes apart for indexed words, 64 words for pointers.
    let off = |c: usize| c * 64;
    let ptr = |c: usize| base + c * 64 * std::mem::size_of::<usize>();
    macro_rules! run {
        ($walk:expr, $init:expr) => {{
            let init = $init;
            let mut pos = init;
            loop {
                pos = $walk(pos);
                steps += ROUND;
                if steps % RESTART == 0 {
                    std::hint::black_box(pos);
                    pos = init;
                }
                if start.elapsed() >= cell {
                    break;
                }
            }
            std::hint::black_box(pos);
        }};
    }
    match column {
        0 => run!(|p| walk_off32::<1>(area, p, ROUND), [off(0)]),
        1 => run!(|p| walk_off32::<2>(area, p, ROUND), [off(0), off(1)]),
        2 => run!(|p| walk_off64::<1>(area, p, ROUND), [off(0)]),
        3 => run!(|p| walk_off64::<2>(area, p, ROUND), [off(0), off(1)]),
        4 => run!(|p| walk_ptr::<1>(p, ROUND), [ptr(0)]),
        5 => run!(|p| walk_ptr::<2>(p, ROUND), [ptr(0), ptr(1)]),
        6 => run!(
            |p| walk_ptr::<4>(p, ROUND),
            [ptr(0), ptr(1), ptr(2), ptr(3)]
        ),
        _ => run!(
            |p| walk_ptr::<8>(p, ROUND),
            [
                ptr(0),
                ptr(1),
                ptr(2),
                ptr(3),
                ptr(4),
                ptr(5),
                ptr(6),
                ptr(7)
            ]
        ),
    }
    start.elapsed().as_secs_f64() * 1e9 / steps.max(1) as f64
}

/// ramlat's table over `buf`: blocks from 4 KiB to its length.
fn ramlat_table(
    buf: &mut [u8],
    opts: &MemlatOptions,
    cancel: &CancellationToken,
    tick: &mut dyn FnMut(),
) -> Vec<RamlatRow> {
    let mut rows = Vec::new();
    let mut size = 4 * KIB;
    while size <= buf.len() {
        let mut ns = Vec::with_capacity(RAMLAT_COLUMNS.len());
        for (col, kind) in [
            Word::Off32,
            Word::Off32,
            Word::Off64,
            Word::Off64,
            Word::Ptr,
            Word::Ptr,
            Word::Ptr,
            Word::Ptr,
        ]
        .into_iter()
        .enumerate()
        {
            if cancel.is_cancelled() {
                return rows;
            }
            let area = &mut buf[..size];
            if col == 0 || col == 2 || col == 4 {
                fill_walk(area, kind);
            }
            ns.push(ramlat_cell(area, col, opts.ramlat_cell));
            tick();
        }
        rows.push(RamlatRow {
            size_bytes: size as u64,
            ns,
        });
        size *= 2;
    }
    rows
}

/// The advice of each tinymembench table: without and with huge pages when the plan asks
/// for them and `opts` wants both (sbc-bench's order), else the plan's one.
pub fn tmb_advices(opts: &MemlatOptions, plan: &MemPlan) -> Vec<Advice> {
    if opts.tmb_both_page_sizes && plan.advice == Advice::HugePage {
        vec![Advice::NoHugePage, Advice::HugePage]
    } else {
        vec![plan.advice]
    }
}

/// Number of progress steps [`run`] reports for a plan.
pub fn steps(opts: &MemlatOptions, plan: &MemPlan) -> usize {
    let count = |from: usize, to: usize| {
        let mut n = 0;
        let mut s = from;
        while s <= to {
            n += 1;
            s *= 2;
        }
        n
    };
    let tmb = count(KIB, plan.bytes.min(TMB_MAX)) * tmb_advices(opts, plan).len();
    tmb + count(4 * KIB, plan.bytes) * RAMLAT_COLUMNS.len()
}

/// Measure both tables on the calling thread's core. `root` is only used to read
/// `/proc/self/smaps` (how much of the buffer got huge pages).
pub fn run(
    root: &SysRoot,
    opts: &MemlatOptions,
    plan: &MemPlan,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<MemlatResult, String> {
    let start = Instant::now();
    let total = steps(opts, plan);
    let mut done = 0;
    let mut tick = || {
        done += 1;
        progress(done, total);
    };
    let alloc = |advice| {
        let mut b = Buffer::new(plan.bytes, advice)
            .map_err(|e| format!("cannot allocate {} MiB: {e}", plan.bytes / MIB))?;
        b.fill(0);
        let huge = membench::anon_huge_bytes(root, b.addr());
        Ok::<_, String>((b, huge))
    };

    let mut tables = Vec::new();
    for advice in tmb_advices(opts, plan) {
        if cancel.is_cancelled() {
            break;
        }
        let (buf, huge) = alloc(advice)?;
        let rows = tinymembench_table(buf.as_slice(), opts, cancel, &mut tick);
        tables.push(LatencyTable {
            advice,
            advised: buf.advised(),
            huge_page_bytes: huge,
            rows,
        });
    }
    // ramlat runs as sbc-bench runs the original: in memory it does not `madvise`, so the
    // kernel's THP policy decides (its 16M/128M rows are what published logs summarise).
    let mut ramlat = None;
    if !cancel.is_cancelled() {
        let (mut buf, huge) = alloc(Advice::Default)?;
        let rows = ramlat_table(buf.as_mut_slice(), opts, cancel, &mut tick);
        ramlat = Some(RamlatTable {
            columns: RAMLAT_COLUMNS.iter().map(|s| s.to_string()).collect(),
            advised: buf.advised(),
            huge_page_bytes: membench::anon_huge_bytes(root, buf.addr()).or(huge),
            cell_ms: opts.ramlat_cell.as_secs_f64() * 1000.0,
            rows,
        });
    }
    Ok(MemlatResult {
        plan: plan.clone(),
        tinymembench: tables,
        ramlat,
        duration_s: start.elapsed().as_secs_f64(),
        cancelled: cancel.is_cancelled(),
    })
}

/// Memory latency on one target with a buffer plan (see [`run_target`]).
#[derive(Debug, Clone)]
pub struct Memlat<'a> {
    /// Where the system is read.
    pub root: &'a SysRoot,
    /// The CPU to run on.
    pub target: &'a Target,
    /// Buffer size and advice (see [`plan`]).
    pub plan: MemPlan,
}

impl Benchmark for Memlat<'_> {
    const NAME: &'static str = "memlat";
    type Options = MemlatOptions;
    type Output = MemlatRun;

    /// [`run_target`]; problems and cancellation are recorded in the run.
    fn run(
        &self,
        opts: &MemlatOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<MemlatRun, BenchError> {
        let total = steps(opts, &self.plan);
        Ok(run_target(
            self.root,
            self.target,
            opts,
            &self.plan,
            cancel,
            &mut |d, _| progress.count(d, total),
        ))
    }
}

/// Pin a thread to `target` and measure with `plan` (see [`plan`]): what the CLI and the
/// standard run call per cluster.
pub fn run_target(
    root: &SysRoot,
    target: &Target,
    opts: &MemlatOptions,
    plan: &MemPlan,
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> MemlatRun {
    let res = crate::bench::pin::run_on(target.cpu, || run(root, opts, plan, cancel, progress));
    let (result, error) = match res {
        Ok(Ok(m)) => (Some(m), None),
        Ok(Err(e)) => (None, Some(e)),
        Err(e) => (None, Some(e.to_string())),
    };
    MemlatRun {
        target: target.clone(),
        result,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_reversed_walk_is_one_cycle_through_every_word() {
        for words in [1usize, 2, 16, 1024] {
            let mut seen = vec![false; words];
            let mut w = 0;
            for _ in 0..words {
                assert!(!seen[w], "word {w} visited twice in {words}");
                seen[w] = true;
                w = walk_successor(w, words);
            }
            assert_eq!(w, 0, "back at the start after {words} steps");
            assert!(seen.iter().all(|&s| s));
        }
        // ramlat's order: 0, 1/2, 1/4, 3/4, 1/8 …
        let n = 64;
        let mut order = vec![0];
        for _ in 0..4 {
            order.push(walk_successor(*order.last().unwrap(), n));
        }
        assert_eq!(order, vec![0, 32, 16, 48, 8]);
    }

    #[test]
    fn reversed_increment_is_the_walks_successor_for_every_word() {
        for bits in 0..=12u32 {
            let words = 1usize << bits;
            for word in 0..words {
                assert_eq!(
                    reversed_increment(word, bits),
                    walk_successor(word, words),
                    "word {word} of {words}"
                );
            }
        }
        // The top of a 2^25-word block (ramlat's 128 MiB of 32-bit words) wraps to 0.
        assert_eq!(reversed_increment((1 << 25) - 1, 25), 0);
        assert_eq!(reversed_increment(0, 25), 1 << 24);
    }

    #[test]
    fn filling_in_address_order_stores_every_words_successor() {
        let mut buf = Buffer::new(64 * KIB, Advice::Default).unwrap();
        let area = &mut buf.as_mut_slice()[..8192];
        fill_walk(area, Word::Off32);
        for (i, word) in area.chunks_exact(4).enumerate() {
            let v = u32::from_ne_bytes(word.try_into().unwrap()) as usize;
            assert_eq!(v, walk_successor(i, 2048) * 4, "word {i}");
        }
        fill_walk(area, Word::Off64);
        for (i, word) in area.chunks_exact(8).enumerate() {
            let v = u64::from_ne_bytes(word.try_into().unwrap()) as usize;
            assert_eq!(v, walk_successor(i, 1024) * 8, "word {i}");
        }
    }

    #[test]
    fn filled_chains_follow_the_walk() {
        let mut buf = Buffer::new(64 * KIB, Advice::Default).unwrap();
        let area = &mut buf.as_mut_slice()[..4096];
        fill_walk(area, Word::Off32);
        let p = walk_off32::<1>(area, [0], 16);
        // 16 steps of the bit-reversed walk over 1024 words, in bytes.
        let mut w = 0;
        for _ in 0..16 {
            w = walk_successor(w, 1024);
        }
        assert_eq!(p, [w * 4]);
        fill_walk(area, Word::Off64);
        let full = walk_off64::<2>(area, [0, 64], 512);
        assert_eq!(full, [0, 64], "512 steps over 512 words: back at the start");
        fill_walk(area, Word::Ptr);
        let base = area.as_ptr() as usize;
        let words = 4096 / std::mem::size_of::<usize>();
        let full = walk_ptr::<1>([base], words);
        assert_eq!(full, [base]);
    }

    #[test]
    fn plan_fits_memory_and_huge_pages() {
        let gib = 1024 * MIB as u64;
        let p = plan(RAMLAT_MAX, Some(8 * gib), Some("madvise".into()));
        assert_eq!(p.bytes, 128 * MIB);
        assert_eq!(p.advice, Advice::HugePage);
        assert!(p.note.is_none());
        // A 512 MiB board with 300 MiB available: 64 MiB blocks, a note.
        let p = plan(RAMLAT_MAX, Some(300 * MIB as u64), Some("never".into()));
        assert_eq!(p.bytes, 64 * MIB);
        assert_eq!(p.advice, Advice::Default);
        assert!(p.note.unwrap().contains("up to 64 MiB"));
        // Nearly nothing: the minimum, never zero.
        let p = plan(RAMLAT_MAX, Some(1), None);
        assert_eq!(p.bytes, MIN_BUFFER);
        // Odd requests become powers of two.
        assert_eq!(plan(5 * MIB, None, None).bytes, 8 * MIB);
    }

    #[test]
    fn quick_run_fills_both_tables() {
        let opts = MemlatOptions {
            max_bytes: 4 * MIB,
            tmb_count: 4096,
            ramlat_cell: Duration::from_millis(1),
            ..MemlatOptions::quick()
        };
        let p = plan(opts.max_bytes, None, Some("madvise".into()));
        let mut last = (0, 0);
        let r = run(
            &SysRoot::host(),
            &opts,
            &p,
            &CancellationToken::new(),
            &mut |d, t| last = (d, t),
        )
        .unwrap();
        assert_eq!(last, (steps(&opts, &p), steps(&opts, &p)));
        let t = &r.tinymembench[0];
        assert_eq!(t.rows.len(), 13, "1 KiB … 4 MiB");
        assert!(
            t.rows
                .iter()
                .all(|x| x.single_ns >= 0.0 && x.dual_ns >= 0.0)
        );
        let rl = r.ramlat.unwrap();
        assert_eq!(rl.rows.len(), 11, "4 KiB … 4 MiB");
        assert!(
            rl.rows
                .iter()
                .all(|x| x.ns.len() == 8 && x.ns.iter().all(|v| *v > 0.0))
        );
        assert!(rl.row(4 * MIB as u64).is_some());
    }

    #[test]
    fn both_page_size_tables_when_asked() {
        let opts = MemlatOptions {
            max_bytes: 4 * MIB,
            tmb_count: 1024,
            tmb_both_page_sizes: true,
            ramlat_cell: Duration::from_millis(1),
            ..MemlatOptions::quick()
        };
        let p = plan(opts.max_bytes, None, Some("always".into()));
        let r = run(
            &SysRoot::host(),
            &opts,
            &p,
            &CancellationToken::new(),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(r.tinymembench.len(), 2);
        assert_eq!(r.tinymembench[0].advice, Advice::NoHugePage);
        assert_eq!(r.tinymembench[1].advice, Advice::HugePage);
        // ramlat is not advised either way: measured as sbc-bench's ramlat is.
        assert!(!r.ramlat.unwrap().advised);
    }

    #[test]
    fn the_default_shows_both_tables_where_huge_pages_are_offered() {
        for opts in [
            MemlatOptions::standard(),
            MemlatOptions::quick(),
            MemlatOptions::extensive(),
        ] {
            let thp = plan(opts.max_bytes, None, Some("madvise".into()));
            assert_eq!(
                tmb_advices(&opts, &thp),
                vec![Advice::NoHugePage, Advice::HugePage]
            );
            let no_thp = plan(opts.max_bytes, None, Some("never".into()));
            assert_eq!(tmb_advices(&opts, &no_thp), vec![Advice::Default]);
        }
    }
}
