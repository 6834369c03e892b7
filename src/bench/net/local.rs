//! This end's choices before a test: the `-B` address to bind, the `-A` CPUs to run on.

/// `-B`: an address, or a host name resolved to its first address (as iperf3 takes it).
pub fn resolve_bind(host: &str) -> Result<std::net::IpAddr, String> {
    if let Ok(ip) = host.parse() {
        return Ok(ip);
    }
    use std::net::ToSocketAddrs;
    (host, 0)
        .to_socket_addrs()
        .map_err(|e| format!("unable to resolve bind address {host}: {e}"))?
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| format!("unable to resolve bind address {host}: no address"))
}

/// Restrict this thread (and the stream threads it will start) to `-A` CPUs.
pub fn apply_affinity(cpus: &[u32]) -> Result<(), String> {
    let mut set = nix::sched::CpuSet::new();
    for &c in cpus {
        set.set(c as usize)
            .map_err(|_| format!("cpu{c} is beyond what this system supports"))?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
        format!(
            "cannot run on CPUs {}: {e} (offline or outside our cpuset?)",
            crate::sys::cpu_list::format_list(cpus)
        )
    })
}
