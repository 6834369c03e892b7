//! `sbc-bench monitor [SECONDS]` (also `sbc-bench -m`): the hardware summary, then one
//! line per interval until Ctrl-C or `--count` samples; `--json` prints JSON lines.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::app::Ctx;
use crate::cli::MonitorArgs;
use crate::monitor::render::{self, Banner, Table, TableOptions};
use crate::monitor::{Monitor, MonitorConfig, SampleSpec, Setup};
use crate::report;
use crate::sys::root::SysRoot;
use crate::sys::{board, soc};

/// Run the command. Ctrl-C ends it with status 0.
pub fn run(ctx: &Ctx, args: &MonitorArgs) -> anyhow::Result<i32> {
    let setup = Setup::discover(&ctx.root, args.cores);
    let mut cfg = MonitorConfig::every(Duration::from_secs_f64(args.interval));
    cfg.count = args.count;
    cfg.live = true;
    cfg.since_boot_first = true;
    if args.json {
        // Scripts get everything; the table stays cheap.
        cfg.spec = SampleSpec::full();
    }
    let tty = std::io::stdout().is_terminal();
    let online = setup.topology.online();
    let opts = TableOptions {
        dc_in: setup.dc_in.is_some(),
        busiest: online.len() > 1,
        cores: if args.cores { online } else { Vec::new() },
    };
    let mut table = Table::new(setup.layout.clone(), opts, tty);

    let mut out = std::io::stdout().lock();
    if !args.json {
        let head = format!(
            "{}{}",
            render::banner(&banner(&ctx.root, &setup)),
            table.header()
        );
        if out.write_all(head.as_bytes()).is_err() {
            return Ok(0);
        }
    }

    let mut handle = Monitor::start(&ctx.root, &setup, cfg)?;
    if let Some(rx) = handle.take_live() {
        for iv in rx {
            let line = if args.json {
                let mut s = serde_json::to_string(&iv)?;
                s.push('\n');
                s
            } else {
                table.row(&iv, &render::local_hms(iv.end_unix_ms))
            };
            // A closed pipe (`| head`) ends the monitor quietly, like Ctrl-C.
            if out
                .write_all(line.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                break;
            }
        }
    }
    drop(handle.stop());
    Ok(0)
}

/// The identification line's inputs. Hook for the lead: the SoC guess comes from
/// `sys::soc` (unknown until its rules land), userland and virtualisation from discovery
/// once merged — pass them in here and the banner shows them in sbc-bench's order.
pub fn banner(root: &SysRoot, setup: &Setup) -> Banner {
    let g = soc::guess(&soc::read_inputs(root, &setup.topology));
    let soc = g.guess.map(|name| match g.detail {
        Some(d) => format!("{name} ({d})"),
        None => name,
    });
    Banner {
        soc0: soc0(root),
        soc,
        kernel_arch: kernel_arch(root),
        virt: board::Virtualization::detect(
            root,
            board::Device::read(root).dmi.as_ref(),
            root.value("/proc/sys/kernel/osrelease").as_deref(),
        )
        .short(),
        userland: board::Userland::read(root).map(|u| u.arch),
        topology: report::topology::render(&setup.topology),
        thermal_source: setup.thermal.as_ref().map(|t| t.label()),
    }
}

/// `<family> <soc_id> rev <revision>` from `/sys/devices/soc0`, as sbc-bench prints it
/// before the SoC guess, except Arm's SMCCC placeholder (`jep106:091e`).
fn soc0(root: &SysRoot) -> Option<String> {
    let rev = root.value("/sys/devices/soc0/revision")?;
    let family = root.value("/sys/devices/soc0/family").unwrap_or_default();
    if family == "jep106:091e" {
        return None;
    }
    let id = root.value("/sys/devices/soc0/soc_id").unwrap_or_default();
    Some(format!("{family} {id} rev {rev}"))
}

/// The kernel's architecture (`uname -m`): `/proc/sys/kernel/arch` (recent kernels),
/// else `uname(2)` when reading the live system.
fn kernel_arch(root: &SysRoot) -> Option<String> {
    root.value("/proc/sys/kernel/arch")
        .or_else(|| root.is_host().then(uname_machine).flatten())
}

fn uname_machine() -> Option<String> {
    // SAFETY: `utsname` is plain old data; uname(2) fills it and NUL-terminates each field,
    // so `machine` is a valid C string inside `u` for as long as `u` lives.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    let m = unsafe { std::ffi::CStr::from_ptr(u.machine.as_ptr()) };
    let s = m.to_string_lossy().trim().to_string();
    (!s.is_empty()).then_some(s)
}
