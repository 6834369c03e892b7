//! The host seam: what the standard run asks of the machine it runs on besides the
//! benchmarks — waiting for it to become idle, the CPUs this process may use, which
//! reference tools are installed. Chosen once, with the executor (`--fake-benchmarks`
//! picks [`CannedHost`]); the runner never asks whether results are fake.

use std::time::{Duration, Instant};

use crate::record::config::RunConfig;
use crate::run::preflight::{self, IdleOutcome};
use crate::shutdown::CancellationToken;
use crate::sys::root::SysRoot;

/// External tools found for the plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tools {
    /// `7z`, `7za` or `7zz` is installed.
    pub sevenzip: bool,
    /// `openssl` is installed.
    pub openssl: bool,
}

/// The machine the run is on.
pub trait Host {
    /// Wait until the machine is idle enough to benchmark; `say` gets sbc-bench's
    /// "Too busy for benchmarking" lines. Returns the outcome and the seconds waited.
    fn wait_for_idle(
        &self,
        root: &SysRoot,
        cfg: &RunConfig,
        cancel: &CancellationToken,
        say: &mut dyn FnMut(&str),
    ) -> (IdleOutcome, f64);

    /// CPUs benchmarks may run on; empty: every CPU of the tree read.
    fn allowed_cpus(&self, root: &SysRoot) -> Vec<u32>;

    /// Reference tools installed.
    fn tools(&self, cancel: &CancellationToken) -> Tools;
}

/// This machine, for real benchmarks.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealHost;

impl Host for RealHost {
    fn wait_for_idle(
        &self,
        root: &SysRoot,
        cfg: &RunConfig,
        cancel: &CancellationToken,
        say: &mut dyn FnMut(&str),
    ) -> (IdleOutcome, f64) {
        let t0 = Instant::now();
        let window = if cfg.extensive {
            preflight::SBC_BENCH_IDLE_WINDOW
        } else {
            preflight::IDLE_WINDOW
        };
        let outcome = preflight::wait_for_idle(
            root,
            cfg.max_wait_s.map(Duration::from_secs),
            window,
            cancel,
            preflight::IDLE_POLL,
            say,
        );
        (outcome, t0.elapsed().as_secs_f64())
    }

    /// Real benchmarks run on this machine's CPUs whatever tree is read: CPUs it cannot
    /// run on (a fixture with more cores than the host, an affinity mask) are skipped and
    /// listed, not run into errors.
    fn allowed_cpus(&self, _root: &SysRoot) -> Vec<u32> {
        crate::bench::pin::allowed_cpus()
    }

    fn tools(&self, cancel: &CancellationToken) -> Tools {
        Tools {
            sevenzip: crate::bench::external::sevenzip::SevenZip::find(cancel).is_some(),
            openssl: crate::bench::external::openssl::Openssl::find(cancel).is_some(),
        }
    }
}

/// The host as canned results see it (`--fake-benchmarks`): idle at once, the tree's
/// CPUs as they are, 7-Zip installed and OpenSSL not — whatever this host has, so reports
/// of fake runs are the same everywhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct CannedHost;

impl Host for CannedHost {
    fn wait_for_idle(
        &self,
        _root: &SysRoot,
        _cfg: &RunConfig,
        _cancel: &CancellationToken,
        _say: &mut dyn FnMut(&str),
    ) -> (IdleOutcome, f64) {
        (IdleOutcome::Idle(Duration::ZERO), 0.0)
    }

    /// On the live tree the canned run still stays within this process's CPUs.
    fn allowed_cpus(&self, root: &SysRoot) -> Vec<u32> {
        if root.is_host() {
            crate::bench::pin::allowed_cpus()
        } else {
            Vec::new()
        }
    }

    fn tools(&self, _cancel: &CancellationToken) -> Tools {
        Tools {
            sevenzip: true,
            openssl: false,
        }
    }
}
