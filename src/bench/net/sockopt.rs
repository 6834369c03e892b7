//! Socket facts iperf3 reports: `TCP_INFO` (retransmits, congestion window, RTT, path MTU),
//! the congestion control algorithm, and the process's CPU time.
//!
//! `struct tcp_info` is the kernel's (UAPI `linux/tcp.h`); fields only ever get appended,
//! and the kernel copies at most the length we pass, so a prefix of it is safe on every
//! kernel: fields a kernel does not have stay zero.

use std::os::fd::RawFd;

/// The prefix of `struct tcp_info` up to `tcpi_snd_wnd` (Linux 5.4+).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct RawTcpInfo {
    state: u8,
    ca_state: u8,
    retransmits: u8,
    probes: u8,
    backoff: u8,
    options: u8,
    wscale: u8,
    flags: u8,
    rto: u32,
    ato: u32,
    snd_mss: u32,
    rcv_mss: u32,
    unacked: u32,
    sacked: u32,
    lost: u32,
    retrans: u32,
    fackets: u32,
    last_data_sent: u32,
    last_ack_sent: u32,
    last_data_recv: u32,
    last_ack_recv: u32,
    pmtu: u32,
    rcv_ssthresh: u32,
    rtt: u32,
    rttvar: u32,
    snd_ssthresh: u32,
    snd_cwnd: u32,
    advmss: u32,
    reordering: u32,
    rcv_rtt: u32,
    rcv_space: u32,
    total_retrans: u32,
    pacing_rate: u64,
    max_pacing_rate: u64,
    bytes_acked: u64,
    bytes_received: u64,
    segs_out: u32,
    segs_in: u32,
    notsent_bytes: u32,
    min_rtt: u32,
    data_segs_in: u32,
    data_segs_out: u32,
    delivery_rate: u64,
    busy_time: u64,
    rwnd_limited: u64,
    sndbuf_limited: u64,
    delivered: u32,
    delivered_ce: u32,
    bytes_sent: u64,
    bytes_retrans: u64,
    dsack_dups: u32,
    reord_seen: u32,
    rcv_ooopack: u32,
    snd_wnd: u32,
}

/// What iperf3 shows from `TCP_INFO`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// Retransmitted segments over the connection's life.
    pub total_retrans: u64,
    /// Congestion window in bytes (segments × MSS).
    pub snd_cwnd_bytes: u64,
    /// Peer's receive window in bytes (0 on kernels before 5.4).
    pub snd_wnd_bytes: u64,
    /// Smoothed RTT in µs.
    pub rtt_us: u64,
    /// RTT variance in µs.
    pub rttvar_us: u64,
    /// Path MTU.
    pub pmtu: u64,
}

/// Read `TCP_INFO` of a TCP socket.
pub fn tcp_info(fd: RawFd) -> Option<TcpInfo> {
    let mut raw = RawTcpInfo::default();
    let mut len = std::mem::size_of::<RawTcpInfo>() as libc::socklen_t;
    // SAFETY: `raw` is a plain-old-data buffer of `len` bytes; the kernel writes at most
    // `len` bytes and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut raw as *mut RawTcpInfo).cast(),
            &mut len,
        )
    };
    // qemu-user answers TCP_INFO like an int option (4 bytes): not an answer.
    let needed = std::mem::offset_of!(RawTcpInfo, total_retrans) + 4;
    if rc != 0 || (len as usize) < needed {
        return None;
    }
    Some(TcpInfo {
        total_retrans: u64::from(raw.total_retrans),
        snd_cwnd_bytes: u64::from(raw.snd_cwnd) * u64::from(raw.snd_mss),
        snd_wnd_bytes: u64::from(raw.snd_wnd),
        rtt_us: u64::from(raw.rtt),
        rttvar_us: u64::from(raw.rttvar),
        pmtu: u64::from(raw.pmtu),
    })
}

/// The congestion control algorithm of a TCP socket (`cubic`, `bbr`).
pub fn congestion(fd: RawFd) -> Option<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: `buf` has `len` bytes; the kernel writes at most that.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let s = String::from_utf8_lossy(&buf[..end]).into_owned();
    if s.is_empty() { None } else { Some(s) }
}

/// Set the congestion control algorithm of a TCP socket.
pub fn set_congestion(fd: RawFd, name: &str) -> std::io::Result<()> {
    // SAFETY: we pass a pointer to `name`'s bytes and their length.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// User and system CPU time of this process in µs (`getrusage(RUSAGE_SELF)`).
pub fn cpu_time_us() -> (f64, f64) {
    // SAFETY: rusage is plain old data; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer to a rusage.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return (0.0, 0.0);
    }
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    (us(ru.ru_utime), us(ru.ru_stime))
}

/// The kernel's monotonic clock as (seconds, microseconds), what iperf3 puts into UDP
/// headers.
pub fn monotonic_now() -> (u32, u32) {
    match nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC) {
        Ok(ts) => (ts.tv_sec() as u32, (ts.tv_nsec() / 1000) as u32),
        Err(_) => (0, 0),
    }
}

/// The kernel thread id of the calling thread.
pub fn gettid() -> i32 {
    nix::unistd::gettid().as_raw()
}

/// Process CPU utilisation between two readings, as iperf3 reports it: percent of one
/// core, total / user / system.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuUtil {
    /// User + system.
    pub total_pct: f64,
    /// User.
    pub user_pct: f64,
    /// System.
    pub system_pct: f64,
}

/// A starting point for [`CpuUtil`].
#[derive(Debug, Clone, Copy)]
pub struct CpuMark {
    at: std::time::Instant,
    user_us: f64,
    sys_us: f64,
}

impl CpuMark {
    /// Now.
    pub fn now() -> Self {
        let (user_us, sys_us) = cpu_time_us();
        Self {
            at: std::time::Instant::now(),
            user_us,
            sys_us,
        }
    }

    /// Utilisation since this mark.
    pub fn util(&self) -> CpuUtil {
        let (u, s) = cpu_time_us();
        let wall = self.at.elapsed().as_secs_f64() * 1e6;
        if wall <= 0.0 {
            return CpuUtil::default();
        }
        let user = (u - self.user_us).max(0.0) / wall * 100.0;
        let system = (s - self.sys_us).max(0.0) / wall * 100.0;
        CpuUtil {
            total_pct: user + system,
            user_pct: user,
            system_pct: system,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn tcp_info_of_a_loopback_connection() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        match tcp_info(c.as_raw_fd()) {
            Some(info) => {
                assert!(info.snd_cwnd_bytes > 0);
                assert!(info.pmtu > 0);
            }
            // The aarch64 tests run under qemu-user, which does not pass TCP_INFO through;
            // natively (the x86_64 CI host) it must work.
            None if cfg!(target_arch = "x86_64") => panic!("TCP_INFO unavailable"),
            None => {}
        }
        assert!(congestion(c.as_raw_fd()).is_some());
        // Not a TCP socket: no answer, no panic.
        let u = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(tcp_info(u.as_raw_fd()).is_none());
        assert!(set_congestion(c.as_raw_fd(), "no-such-algorithm").is_err());
    }

    #[test]
    fn cpu_util_is_sane() {
        let m = CpuMark::now();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let u = m.util();
        assert!(u.total_pct >= 0.0);
        assert!((u.total_pct - u.user_pct - u.system_pct).abs() < 1e-9);
        assert!(monotonic_now().0 > 0 || monotonic_now().1 > 0);
        assert!(gettid() > 0);
    }
}
