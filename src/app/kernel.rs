//! `sbc-bench kernel` (sbc-bench `-k`): `uname -a`, then whether the kernel is current and
//! whether it is a vendor kernel, judged offline against the release table in the binary
//! or the one `--eol-data` names.

use anyhow::Context;
use chrono::NaiveDate;

use crate::app::Ctx;
use crate::cli::kernel::KernelArgs;
use crate::diagnose::kernel::{self as judge, KernelFacts, ReleaseTable};
use crate::output::{self, Outcome};
use crate::report::text::kernel::{self as text, EolData, KernelReport};
use crate::sys::board::HostFacts;
use crate::sys::discover::SystemInfo;
use crate::sys::kernel::{self as facts, Uname};

/// Judge the kernel and print the text or the JSON document. A bad `--eol-data` file is a
/// usage error (status 2).
pub fn run(ctx: &Ctx, args: &KernelArgs) -> anyhow::Result<Outcome> {
    let (table, source) = crate::cli::kernel::release_table(args.eol_data.as_deref())?;
    let today = args
        .today
        .unwrap_or_else(|| chrono::Local::now().date_naive());
    let report = build(ctx, args, &table, source, today);
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&report)?;
        s.push('\n');
        s
    } else {
        text::render(&report)
    };
    output::print_or_closed(&out).context("writing to stdout")?;
    Ok(Outcome::Ok)
}

/// The board's facts (none of this machine's when a release is given without a tree),
/// judged.
fn build(
    ctx: &Ctx,
    args: &KernelArgs,
    table: &ReleaseTable,
    source: String,
    today: NaiveDate,
) -> KernelReport {
    // `--release` alone checks a string from elsewhere: this machine's SoC, architecture
    // and kernel log would describe the wrong board.
    let board = !(args.release.is_some() && ctx.root.is_host());
    let (uname, info, log) = if board {
        (
            Some(Uname::read(&ctx.root, &HostFacts::read(&ctx.root))),
            Some(SystemInfo::read(&ctx.root)),
            facts::read_kernel_log(&ctx.root),
        )
    } else {
        (None, None, None)
    };
    let machine = info.as_ref().and_then(|i| i.kernel.machine.clone());
    let virt = info.as_ref().and_then(|i| i.virtualization.systemd_name());
    let soc = args
        .soc
        .clone()
        .or_else(|| info.as_ref().and_then(text::soc_of));
    let release = args
        .release
        .clone()
        .or_else(|| uname.as_ref().and_then(|u| u.release.clone()));
    let assessment = judge::assess(
        &KernelFacts {
            release: release.as_deref().unwrap_or_default(),
            machine: machine.as_deref(),
            virt: virt.as_deref(),
            soc: soc.as_deref(),
            kernel_log: log.as_deref(),
        },
        table,
        today,
    );
    let notes = text::notes(
        &assessment,
        release.as_deref().unwrap_or_default(),
        soc.is_some(),
        table.snapshot,
        if !ctx.root.is_host() {
            text::LogAccess::Tree
        } else if crate::run::preflight::is_root() {
            text::LogAccess::Root
        } else {
            text::LogAccess::NotRoot
        },
    );
    KernelReport {
        schema: text::SCHEMA,
        schema_version: text::SCHEMA_VERSION,
        text: text::kernel_info_lines(&assessment),
        notes,
        uname,
        given_release: args.release.clone(),
        release,
        machine,
        virtualization: virt,
        soc,
        kernel_log_read: log.is_some(),
        eol_data: EolData::new(source, table, today),
        assessment,
    }
}
