//! Page-aligned anonymous memory for the memory benchmarks, with control over transparent
//! huge pages (`madvise`). Allocation failure is an error value, never an abort: a 512 MiB
//! board must get a clear message, not a dead process.

use std::io;

/// Alignment of every buffer: one 2 MiB huge page on x86_64 and arm64 (4 KiB granule), so
/// THP can back the whole buffer from its first byte.
pub const ALIGN: usize = 2 * 1024 * 1024;

/// What to tell the kernel about huge pages for a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Advice {
    /// Leave the kernel's THP policy alone.
    Default,
    /// `madvise(MADV_HUGEPAGE)`.
    HugePage,
    /// `madvise(MADV_NOHUGEPAGE)`.
    NoHugePage,
}

/// An anonymous private mapping, aligned to [`ALIGN`], unmapped on drop.
#[derive(Debug)]
pub struct Buffer {
    map: *mut libc::c_void,
    map_len: usize,
    data: *mut u8,
    len: usize,
    advised: bool,
}

impl Buffer {
    /// Map `len` bytes (rounded up to a multiple of 4 KiB, at least 4 KiB) and apply
    /// `advice`. The memory is not touched yet: call [`Buffer::fill`] to fault it in.
    pub fn new(len: usize, advice: Advice) -> io::Result<Self> {
        let too_large = || io::Error::new(io::ErrorKind::OutOfMemory, "buffer too large");
        let len = len
            .max(4096)
            .div_ceil(4096)
            .checked_mul(4096)
            .ok_or_else(too_large)?;
        let map_len = len.checked_add(ALIGN).ok_or_else(too_large)?;
        // SAFETY: anonymous private mapping with no address hint; the result is checked.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let offset = (ALIGN - (map as usize) % ALIGN) % ALIGN;
        // SAFETY: offset < ALIGN and map_len = len + ALIGN, so data..data+len is mapped.
        let data = unsafe { (map as *mut u8).add(offset) };
        let mut b = Self {
            map,
            map_len,
            data,
            len,
            advised: false,
        };
        b.advised = match advice {
            Advice::Default => false,
            Advice::HugePage => b.madvise(libc::MADV_HUGEPAGE),
            Advice::NoHugePage => b.madvise(libc::MADV_NOHUGEPAGE),
        };
        Ok(b)
    }

    fn madvise(&self, advice: libc::c_int) -> bool {
        // SAFETY: data..data+len lies inside our mapping; data is page-aligned.
        unsafe { libc::madvise(self.data as *mut libc::c_void, self.len, advice) == 0 }
    }

    /// Whether the kernel accepted the `madvise` (false for [`Advice::Default`], or when the
    /// kernel has no THP support and answered EINVAL).
    pub fn advised(&self) -> bool {
        self.advised
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true (buffers are at least 4 KiB); present for API completeness.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Address of the first byte.
    pub fn addr(&self) -> usize {
        self.data as usize
    }

    /// Start pointer.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.data
    }

    /// The memory as bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: data..data+len is a live read/write mapping owned by self; anonymous
        // memory reads as zero until written, so it is always initialised.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    /// The memory as mutable bytes.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }

    /// Write `byte` everywhere (faults every page in before anything is timed).
    pub fn fill(&mut self, byte: u8) {
        self.as_mut_slice().fill(byte);
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: map/map_len are exactly what mmap returned.
        unsafe {
            libc::munmap(self.map, self.map_len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_zeroed_and_writable() {
        let mut b = Buffer::new(10_000, Advice::Default).unwrap();
        assert_eq!(b.len(), 12_288);
        assert_eq!(b.addr() % ALIGN, 0);
        assert!(b.as_slice().iter().all(|&x| x == 0));
        b.fill(0x5a);
        assert!(b.as_slice().iter().all(|&x| x == 0x5a));
        assert!(!b.advised());
        assert!(!b.is_empty());
    }

    #[test]
    fn huge_page_advice_is_accepted_or_refused_without_failing() {
        let b = Buffer::new(4 * 1024 * 1024, Advice::HugePage).unwrap();
        let _ = b.advised();
        let b = Buffer::new(4096, Advice::NoHugePage).unwrap();
        let _ = b.advised();
    }

    #[test]
    fn absurd_sizes_are_errors_not_aborts() {
        assert!(Buffer::new(usize::MAX - 10, Advice::Default).is_err());
        #[cfg(target_pointer_width = "64")]
        assert!(Buffer::new(usize::MAX / 2, Advice::Default).is_err());
    }
}
