//! The text of `sbc-bench kernel` (sbc-bench `-k`): `uname -a`, then sbc-bench's kernel
//! text (end of life, revisions behind, vendor/BSP kernel warnings) in its wording, our
//! notes (why a kernel was not judged, what could not be checked), and the date of the
//! release table the judgement rests on. Also the lines of the review's `### Kernel info:`
//! section ([`review_section_lines`]).

use chrono::NaiveDate;
use serde::Serialize;

use crate::diagnose::kernel::{
    BspWarning, Cycle, KernelAssessment, KernelFacts, KernelVersion, Lag, ReleaseTable,
    STALE_AFTER_DAYS, Skip, Standing, Vendor, assess,
};
use crate::sys::board::Kernel;
use crate::sys::discover::SystemInfo;
use crate::sys::kernel::{Uname, Vulnerability};

/// Name of the JSON document type.
pub const SCHEMA: &str = crate::output::schema::KERNEL.name;
/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = crate::output::schema::KERNEL.version;
/// Where a newer release table can be had.
pub const EOL_DATA_URL: &str = "https://endoflife.date/api/v1/products/linux";

/// The release table a judgement used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EolData {
    /// `built-in` (`data/linux-releases.json`), or the `--eol-data` file.
    pub source: String,
    /// The table's date.
    #[serde(serialize_with = "crate::diagnose::kernel::day::ser")]
    pub snapshot: NaiveDate,
    /// Days from the snapshot to the day of the judgement.
    pub age_days: i64,
    /// Older than [`STALE_AFTER_DAYS`].
    pub stale: bool,
}

impl EolData {
    /// Describe `table` from `source` as of `today`.
    pub fn new(source: impl Into<String>, table: &ReleaseTable, today: NaiveDate) -> Self {
        Self {
            source: source.into(),
            snapshot: table.snapshot,
            age_days: table.age_days(today),
            stale: table.is_stale(today),
        }
    }
}

/// Everything `sbc-bench kernel` reports, as one versioned document (`--json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelReport {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The board's `uname -a` fields; `None` when a release was given without a board.
    pub uname: Option<Uname>,
    /// The release given with `--release`, if any.
    pub given_release: Option<String>,
    /// The release judged.
    pub release: Option<String>,
    /// `uname -m` of the board, when known.
    pub machine: Option<String>,
    /// Virtual machine or container, when detected.
    pub virtualization: Option<String>,
    /// The SoC the vendor rules looked at.
    pub soc: Option<String>,
    /// Whether the kernel log could be read (for the Rockchip PVTM checks).
    pub kernel_log_read: bool,
    /// The release table used.
    pub eol_data: EolData,
    /// The judgement.
    pub assessment: KernelAssessment,
    /// sbc-bench's kernel text, line by line (empty when the kernel was not judged).
    pub text: Vec<String>,
    /// Our notes beside it.
    pub notes: Vec<String>,
}

fn lts(cycle: &Cycle) -> &'static str {
    if cycle.lts { " LTS" } else { "" }
}

fn day(d: Option<NaiveDate>) -> String {
    d.map_or_else(|| "n/a".to_string(), |d| d.to_string())
}

/// What sbc-bench prints before a vendor warning: that the version number does not make
/// this an official kernel, in the words of the standing (none when the series is not
/// covered at all). Its last line is continued by the warning's first.
fn disclaimer(standing: &Standing, v: &KernelVersion) -> Vec<String> {
    let but = |c: &Cycle| {
        vec![
            format!(
                "But this version string doesn't matter since this is not an official{} Linux",
                lts(c)
            ),
            "from kernel.org.".to_string(),
        ]
    };
    let the = |c: &Cycle| {
        vec![
            format!(
                "The {} kernel version string doesn't matter since this is not an official",
                v.token
            ),
            // sbc-bench starts this line with the blank before `LTS`; we do not.
            if c.lts {
                "LTS Linux from kernel.org."
            } else {
                "Linux from kernel.org."
            }
            .to_string(),
        ]
    };
    match standing {
        Standing::NotCovered => Vec::new(),
        Standing::Latest { cycle, .. } => but(cycle),
        Standing::Behind {
            cycle,
            eol_reached,
            lag,
            ..
        } if *eol_reached || *lag > Lag::Few => but(cycle),
        Standing::Ahead {
            cycle,
            eol_reached: true,
        } => but(cycle),
        Standing::Behind { cycle, .. } | Standing::Ahead { cycle, .. } => the(cycle),
    }
}

/// sbc-bench's sentences on the release cycle.
fn standing_lines(standing: &Standing, v: &KernelVersion) -> Vec<String> {
    let mut out = Vec::new();
    let series = v.series;
    match standing {
        Standing::NotCovered => {
            out.push(format!(
                "Kernel version {} is not covered by any active release cycle any more.",
                v.token
            ));
            out.push(String::new());
            out.push(
                "See https://endoflife.date/linux for details. It is highly likely countless"
                    .into(),
            );
            out.push(
                "exploitable vulnerabilities do exist for this kernel as well as tons of bugs."
                    .into(),
            );
        }
        Standing::Latest { cycle, eol_reached } => {
            if *eol_reached {
                out.push(format!(
                    "{series}{} has reached end-of-life{}. {} is unsupported since then.",
                    lts(cycle),
                    on(cycle),
                    v.token
                ));
            } else {
                out.push(
                    "According to https://endoflife.date/linux this kernel version is up to date."
                        .into(),
                );
                if let (true, Some(eol)) = (cycle.lts, cycle.eol.date()) {
                    out.push(format!(
                        "The predicted end-of-life date for the {series} LTS kernel is {eol}"
                    ));
                }
            }
        }
        Standing::Behind {
            cycle,
            eol_reached,
            lag,
            ..
        } => {
            if *eol_reached {
                out.extend(eol_reached_lines(cycle, v));
            } else if *lag > Lag::Few {
                out.push(format!(
                    "Kernel {} is not latest {}{} that was released on {}.",
                    v.token,
                    cycle.latest,
                    lts(cycle),
                    day(cycle.latest_date)
                ));
                out.push(String::new());
            }
            if cycle.lts {
                out.extend(vulnerability_lines(*lag));
            }
        }
        Standing::Ahead { cycle, eol_reached } => {
            if *eol_reached {
                out.extend(eol_reached_lines(cycle, v));
            }
        }
    }
    out
}

fn on(cycle: &Cycle) -> String {
    cycle
        .eol
        .date()
        .map(|d| format!(" on {d}"))
        .unwrap_or_default()
}

fn eol_reached_lines(cycle: &Cycle, v: &KernelVersion) -> Vec<String> {
    let series = v.series;
    vec![
        format!(
            "{series}{} has reached end-of-life{} with version {}.",
            lts(cycle),
            on(cycle),
            cycle.latest
        ),
        format!(
            "This {} and all other {series}{} revisions are unsupported since then.",
            v.token,
            lts(cycle)
        ),
    ]
}

/// On LTS kernels only: users of other branches know what they run.
fn vulnerability_lines(lag: Lag) -> Vec<String> {
    let lines: &[&str] = match lag {
        Lag::Lots => &[
            "See https://endoflife.date/linux for details. It is somewhat likely that",
            "a lot of exploitable vulnerabilities exist for this kernel as well as many",
            "unfixed bugs.",
        ],
        Lag::Many => &[
            "See https://endoflife.date/linux for details. It is somewhat likely that some",
            "exploitable vulnerabilities exist for this kernel as well as many unfixed bugs.",
        ],
        Lag::Some => &[
            "See https://endoflife.date/linux for details. Perhaps some kernel bugs have",
            "been fixed in the meantime and maybe vulnerabilities as well.",
        ],
        Lag::Few => &[],
    };
    lines.iter().map(|s| s.to_string()).collect()
}

/// sbc-bench's vendor warning (`PrintBSPWarning`), first line first.
fn vendor_lines(w: &BspWarning, v: &KernelVersion) -> Vec<String> {
    let name = w.vendor.name();
    let forward_ported = |extra: &[&str]| {
        let mut l = vec![
            format!("This device runs an {name} vendor/BSP kernel."),
            String::new(),
            "This kernel has been forward ported since ages based on unknown sources. While"
                .to_string(),
            format!(
                "the version string suggests being a {} LTS release the code base differs way",
                v.series
            ),
            "too much. Better expect tons of unfixed bugs and vulnerabilities hiding in this"
                .to_string(),
        ];
        l.extend(extra.iter().map(|s| s.to_string()));
        l
    };
    match w.vendor {
        Vendor::Allwinner => forward_ported(&["vendor kernel."]),
        Vendor::Amlogic => forward_ported(&[
            "vendor kernel. See https://tinyurl.com/y8k3af73 and https://tinyurl.com/ywtfec7n",
            "for details.",
        ]),
        Vendor::Rockchip => vec![format!(
            "This device runs a forward ported {name} vendor/BSP kernel."
        )],
        Vendor::RockchipGki => vec![
            "This device runs a Rockchip vendor/BSP kernel.".to_string(),
            String::new(),
            "This kernel is based on a mixture of Android GKI and other sources. Also some"
                .to_string(),
            "community attempts to do version string cosmetics might have happened, see"
                .to_string(),
            format!(
                "https://tinyurl.com/2p8fuubd for example. To examine how far away this {}",
                v.token
            ),
            "is from an official LTS of same version someone would have to reapply Rockchip's"
                .to_string(),
            format!("thousands of patches to a clean {} LTS.", v.token),
        ],
        _ => vec![format!("This device runs a {name} vendor/BSP kernel.")],
    }
}

/// sbc-bench's kernel text for a judgement, line by line: empty when the kernel was not
/// judged. Consecutive blank lines are one, and there is none at the end.
pub fn kernel_info_lines(a: &KernelAssessment) -> Vec<String> {
    let (Some(v), Some(standing)) = (&a.version, &a.standing) else {
        return Vec::new();
    };
    let mut out = standing_lines(standing, v);
    if let Some(w) = &a.bsp {
        out.push(String::new());
        let mut warning = vendor_lines(w, v);
        let mut lead = disclaimer(standing, v);
        if let Some(last) = lead.last_mut() {
            if !warning.is_empty() {
                let head = warning.remove(0);
                last.push(' ');
                last.push_str(&head);
            }
        }
        out.extend(lead);
        out.extend(warning);
    }
    if let Some(e) = &a.series_end {
        out.push(String::new());
        out.push(format!(
            "The {} series has reached end-of-life on {} with version {}.",
            e.series, e.eol, e.last
        ));
    }
    tidy(out)
}

fn tidy(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for l in lines {
        if l.is_empty() && out.last().is_none_or(|p| p.is_empty()) {
            continue;
        }
        out.push(l);
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// Width our own sentences are wrapped to, as sbc-bench wraps its own.
pub const WIDTH: usize = 80;

/// Break `text` into lines of at most `width` characters at blanks (a longer word stands on
/// its own line).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// How the kernel log was to be read: what the note says when it could not be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogAccess {
    /// From a `--sysroot` tree (which may hold none).
    Tree,
    /// On this machine as root: the log was not readable even so.
    Root,
    /// On this machine, not as root (dmesg is root's where `kernel.dmesg_restrict` is 1).
    NotRoot,
}

impl LogAccess {
    fn why(self) -> &'static str {
        match self {
            LogAccess::Tree => "the --sysroot tree holds none",
            LogAccess::Root => "not even as root",
            LogAccess::NotRoot => "run as root",
        }
    }
}

/// Our notes beside sbc-bench's text, one sentence each, unwrapped: why the kernel was not
/// judged, what the table cannot tell, what could not be checked.
pub fn notes(
    a: &KernelAssessment,
    release: &str,
    soc_known: bool,
    snapshot: NaiveDate,
    log_access: LogAccess,
) -> Vec<String> {
    let mut out = Vec::new();
    let not_checked = "Not checked against kernel.org:";
    match &a.skip {
        Some(Skip::Unparsable) if release.is_empty() => {
            out.push("Not checked: the kernel release is not known.".into());
        }
        Some(Skip::Unparsable) => out.push(format!(
            "Not checked: '{release}' is not a kernel version (expected <major>.<minor>…)."
        )),
        Some(Skip::ReleaseCandidate) => {
            out.push(format!("{not_checked} {release} is a release candidate."));
        }
        Some(Skip::Distro { scheme }) => out.push(format!(
            "{not_checked} {release} is a {} distribution kernel, numbered by its own scheme.",
            scheme.label()
        )),
        Some(Skip::X86) => out.push(format!(
            "{not_checked} x86_64 machines run distribution kernels with their own release \
             schedules (sbc-bench: \"This tool does not yet implement distro kernel checks\")."
        )),
        Some(Skip::VirtualMachine { virt }) => out.push(format!(
            "{not_checked} an aarch64 virtual machine ({virt}) runs a distribution kernel."
        )),
        Some(Skip::NewestSeries { newest }) => {
            let series = a
                .version
                .as_ref()
                .map_or_else(|| release.to_string(), |v| v.series.to_string());
            out.push(format!(
                "{not_checked} the {series} series is the newest in the EOL data ({newest}) \
                 or newer."
            ));
        }
        None => {}
    }
    if let (Some(Standing::Ahead { cycle, .. }), Some(v)) = (&a.standing, &a.version) {
        out.push(format!(
            "Kernel {} is newer than {}, the latest {} revision in the EOL data of {snapshot}: \
             the data is older than this kernel.",
            v.token, cycle.latest, v.series
        ));
    }
    if let Some(needle) = a.log_unread {
        out.push(format!(
            "The kernel log could not be read ({}), so whether this is Rockchip's \
             BSP kernel (it logs '{needle}') was not checked.",
            log_access.why()
        ));
    }
    if a.skip.is_none() && !soc_known {
        out.push(
            "No SoC known (give --soc NAME or --sysroot DIR): the vendor kernel rules by SoC \
             were not applied."
                .into(),
        );
    }
    out
}

/// The line naming the release table, and a warning when it is stale.
pub fn eol_data_lines(d: &EolData) -> Vec<String> {
    let from = if d.source == "built-in" {
        "built in".to_string()
    } else {
        format!("from {}", d.source)
    };
    let days = match d.age_days {
        1 => "1 day old".to_string(),
        n if n >= 0 => format!("{n} days old"),
        _ => "dated after today".to_string(),
    };
    let mut out = vec![format!(
        "EOL data: endoflife.date release table of {}, {days} ({from}).",
        d.snapshot
    )];
    if d.stale {
        out.push(format!(
            "Warning: the EOL data is older than {STALE_AFTER_DAYS} days: get {EOL_DATA_URL} \
             and pass it with --eol-data FILE."
        ));
    }
    out
}

/// The text of `sbc-bench kernel`.
pub fn render(r: &KernelReport) -> String {
    let mut s = String::new();
    match (&r.given_release, &r.uname) {
        (Some(g), _) => {
            s.push_str(&format!("Kernel release {g} (given with --release)"));
            if let Some(soc) = &r.soc {
                s.push_str(&format!(", SoC {soc}"));
            }
            s.push('\n');
        }
        (None, Some(u)) => {
            s.push_str(&u.line());
            s.push('\n');
        }
        (None, None) => s.push_str("Kernel release n/a\n"),
    }
    let notes: Vec<String> = r.notes.iter().flat_map(|n| wrap(n, WIDTH)).collect();
    let eol: Vec<String> = eol_data_lines(&r.eol_data)
        .iter()
        .flat_map(|n| wrap(n, WIDTH))
        .collect();
    for block in [&r.text, &notes, &eol] {
        if block.is_empty() {
            continue;
        }
        s.push('\n');
        for l in block {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
}

/// The SoC as the vendor rules see it: what sbc-bench shows in its place (the guess with
/// its detail; on x86 the processor name).
pub fn soc_of(info: &SystemInfo) -> Option<String> {
    crate::report::text::info::soc_label(info.cpu_name.as_deref(), &info.soc)
}

/// Judge the running kernel of a described machine (what the review's `### Kernel info:`
/// and `sbc-bench kernel` judge): its release, architecture, virtualisation and SoC, and
/// the kernel log's messages when they could be read (`sys::kernel::read_kernel_log`).
pub fn assess_system(
    info: &SystemInfo,
    kernel_log: Option<&[String]>,
    table: &ReleaseTable,
    today: NaiveDate,
) -> KernelAssessment {
    let soc = soc_of(info);
    let virt = info.virtualization.systemd_name();
    assess(
        &KernelFacts {
            release: info.kernel.release.as_deref().unwrap_or_default(),
            machine: info.kernel.machine.as_deref(),
            virt: virt.as_deref(),
            soc: soc.as_deref(),
            kernel_log,
        },
        table,
        today,
    )
}

/// What the review's `### Kernel info:` section lists above sbc-bench's kernel text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewKernelFacts {
    /// `/proc/cmdline`.
    pub cmdline: Option<String>,
    /// CPU vulnerability states (those `Not affected` are left out of the section, but
    /// their names still set the column, as in `lscpu`).
    pub vulnerabilities: Vec<Vulnerability>,
    /// `uname -r`.
    pub release: Option<String>,
    /// The `CONFIG_HZ=…` line of the kernel configuration.
    pub config_hz: Option<String>,
}

impl ReviewKernelFacts {
    /// From discovery's kernel facts and the vulnerability states
    /// (`sys::kernel::read_vulnerabilities`).
    pub fn new(kernel: &Kernel, vulnerabilities: Vec<Vulnerability>) -> Self {
        Self {
            cmdline: kernel.cmdline.clone(),
            vulnerabilities,
            release: kernel.release.clone(),
            config_hz: kernel
                .config
                .iter()
                .find(|l| l.starts_with("CONFIG_HZ="))
                .cloned(),
        }
    }
}

/// The lines of the review's `### Kernel info:` section below its heading: the command
/// line, the vulnerabilities `lscpu` would list (padded to one column, as `lscpu` pads
/// them), `Kernel <release> / CONFIG_HZ=…`, then, after a blank line, sbc-bench's kernel
/// text when there is one.
pub fn review_section_lines(f: &ReviewKernelFacts, a: &KernelAssessment) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = &f.cmdline {
        out.push(format!("  * `/proc/cmdline: {c}`"));
    }
    let width = f
        .vulnerabilities
        .iter()
        .map(|v| "Vulnerability ".len() + v.label().len() + 1)
        .max()
        .unwrap_or(0);
    for v in f
        .vulnerabilities
        .iter()
        .filter(|v| v.state != "Not affected")
    {
        let name = format!("Vulnerability {}:", v.label());
        out.push(format!("  * {name:<width$} {}", v.state));
    }
    let release = f.release.as_deref().unwrap_or("n/a");
    out.push(match &f.config_hz {
        Some(hz) => format!("  * Kernel {release} / {hz}"),
        None => format!("  * Kernel {release}"),
    });
    let text = kernel_info_lines(a);
    if !text.is_empty() {
        out.push(String::new());
        out.extend(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::kernel::{KernelFacts, assess};

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn table() -> ReleaseTable {
        crate::diagnose::kernel::built_in_table().unwrap()
    }

    fn text(release: &str, soc: Option<&str>, today: &str) -> Vec<String> {
        let a = assess(
            &KernelFacts {
                release,
                machine: Some("aarch64"),
                soc,
                ..Default::default()
            },
            &table(),
            d(today),
        );
        kernel_info_lines(&a)
    }

    /// NanoPi Fire3 with FriendlyELEC's 4.4 kernel (corpus review
    /// `FriendlyELEC-NanoPi-Fire3-32bit.md`): a series no cycle covers, a Nexell BSP, and
    /// the series' end.
    #[test]
    fn fire3_nexell_4_4_as_the_corpus_review() {
        assert_eq!(
            text("4.4.172-s5p6818", Some("Nexell S5P6818"), "2026-08-22"),
            [
                "Kernel version 4.4.172 is not covered by any active release cycle any more.",
                "",
                "See https://endoflife.date/linux for details. It is highly likely countless",
                "exploitable vulnerabilities do exist for this kernel as well as tons of bugs.",
                "",
                "This device runs a Nexell vendor/BSP kernel.",
                "",
                "The 4.4 series has reached end-of-life on 2022-02-03 with version 4.4.302.",
            ]
        );
    }

    /// NanoPi R5S with the Rockchip 5.10.160 BSP (corpus review
    /// `FriendlyELEC-NanoPi-R5S-5.10.md`, then 40 revisions behind 5.10.200; our table of
    /// 2026-08-22 has 5.10.265, 105 behind).
    #[test]
    fn r5s_rockchip_gki_behind_an_lts() {
        let a = assess(
            &KernelFacts {
                release: "5.10.160",
                machine: Some("aarch64"),
                soc: Some("Rockchip RK3568 (35682000)"),
                kernel_log: Some(&["cpu cpu0: pvtm=1505".to_string()]),
                virt: None,
            },
            &table(),
            d("2026-08-22"),
        );
        assert_eq!(
            kernel_info_lines(&a),
            [
                "Kernel 5.10.160 is not latest 5.10.265 LTS that was released on 2026-08-19.",
                "",
                "See https://endoflife.date/linux for details. It is somewhat likely that",
                "a lot of exploitable vulnerabilities exist for this kernel as well as many",
                "unfixed bugs.",
                "",
                "But this version string doesn't matter since this is not an official LTS Linux",
                "from kernel.org. This device runs a Rockchip vendor/BSP kernel.",
                "",
                "This kernel is based on a mixture of Android GKI and other sources. Also some",
                "community attempts to do version string cosmetics might have happened, see",
                "https://tinyurl.com/2p8fuubd for example. To examine how far away this 5.10.160",
                "is from an official LTS of same version someone would have to reapply Rockchip's",
                "thousands of patches to a clean 5.10.160 LTS.",
            ]
        );
    }

    /// The same 5.10 kernel on both sides of 5.10's end of life (2026-12-31).
    #[test]
    fn eol_texts_at_fixed_snapshot_dates() {
        let before = text("5.10.250", None, "2026-12-30");
        assert_eq!(
            before,
            [
                "Kernel 5.10.250 is not latest 5.10.265 LTS that was released on 2026-08-19.",
                "",
                "See https://endoflife.date/linux for details. Perhaps some kernel bugs have",
                "been fixed in the meantime and maybe vulnerabilities as well.",
            ]
        );
        let after = text("5.10.250", None, "2026-12-31");
        assert_eq!(
            after,
            [
                "5.10 LTS has reached end-of-life on 2026-12-31 with version 5.10.265.",
                "This 5.10.250 and all other 5.10 LTS revisions are unsupported since then.",
                "See https://endoflife.date/linux for details. Perhaps some kernel bugs have",
                "been fixed in the meantime and maybe vulnerabilities as well.",
            ]
        );
        assert_eq!(
            text("6.12.104", None, "2026-08-22"),
            [
                "According to https://endoflife.date/linux this kernel version is up to date.",
                "The predicted end-of-life date for the 6.12 LTS kernel is 2028-12-31",
            ]
        );
        assert_eq!(
            text("5.4.302", None, "2026-08-22"),
            ["5.4 LTS has reached end-of-life on 2025-12-03. 5.4.302 is unsupported since then."]
        );
        // Non-LTS, 8 behind: "not latest", no vulnerability sentence.
        assert_eq!(
            text("7.1.1", None, "2026-08-22"),
            ["Kernel 7.1.1 is not latest 7.1.9 that was released on 2026-08-19."]
        );
        // Within 5 revisions: nothing to say.
        assert!(text("6.18.40", None, "2026-08-22").is_empty());
        assert_eq!(
            text("6.12.84", None, "2026-08-22")[2],
            "See https://endoflife.date/linux for details. It is somewhat likely that some"
        );
    }

    #[test]
    fn close_revision_takes_the_other_disclaimer() {
        // Allwinner 6.6.98 BSP (A733, corpus log rca7s): 54 behind, "But this…".
        let far = text(
            "6.6.98-vendor-sun60iw2",
            Some("Allwinner A733"),
            "2026-08-22",
        );
        assert_eq!(
            far[5..],
            [
                "",
                "But this version string doesn't matter since this is not an official LTS Linux",
                "from kernel.org. This device runs an Allwinner vendor/BSP kernel.",
                "",
                "This kernel has been forward ported since ages based on unknown sources. While",
                "the version string suggests being a 6.6 LTS release the code base differs way",
                "too much. Better expect tons of unfixed bugs and vulnerabilities hiding in this",
                "vendor kernel.",
            ]
        );
        // Rockchip 6.1 BSP within 5 revisions of the latest: "The … kernel version string".
        let near = text("6.1.180", Some("Rockchip RK3588"), "2026-08-22");
        assert_eq!(
            near[..2],
            [
                "The 6.1.180 kernel version string doesn't matter since this is not an official",
                "LTS Linux from kernel.org. This device runs a Rockchip vendor/BSP kernel.",
            ]
        );
    }

    #[test]
    fn wrapping_at_blanks() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh ij", 4), ["abcdefgh", "ij"]);
        assert!(wrap("", 10).is_empty());
    }

    #[test]
    fn notes_and_eol_data_lines() {
        let t = table();
        let a = assess(
            &KernelFacts {
                release: "6.11.0-9-generic",
                machine: Some("x86_64"),
                ..Default::default()
            },
            &t,
            d("2026-08-22"),
        );
        assert!(kernel_info_lines(&a).is_empty());
        let n = notes(
            &a,
            "6.11.0-9-generic",
            false,
            t.snapshot,
            LogAccess::NotRoot,
        );
        assert_eq!(n.len(), 1);
        assert!(n[0].contains("Debian/Ubuntu distribution kernel"), "{n:?}");
        let fresh = EolData::new("built-in", &t, d("2026-09-01"));
        assert_eq!(
            eol_data_lines(&fresh),
            ["EOL data: endoflife.date release table of 2026-08-22, 10 days old (built in)."]
        );
        let stale = EolData::new("/tmp/x.json", &t, d("2026-12-01"));
        let l = eol_data_lines(&stale);
        assert_eq!(
            l[0],
            "EOL data: endoflife.date release table of 2026-08-22, 101 days old (from /tmp/x.json)."
        );
        assert!(l[1].starts_with("Warning: the EOL data is older than 90 days"));
        let ahead = assess(
            &KernelFacts {
                release: "6.12.110",
                machine: Some("aarch64"),
                soc: Some("Broadcom BCM2712"),
                ..Default::default()
            },
            &t,
            d("2026-09-01"),
        );
        assert!(kernel_info_lines(&ahead).is_empty());
        assert!(
            notes(&ahead, "6.12.110", true, t.snapshot, LogAccess::NotRoot)[0]
                .starts_with("Kernel 6.12.110 is newer than 6.12.104")
        );
    }

    /// The review's entry points over the ROCK 5B fixture tree: its RK3588 guess flags the
    /// Rockchip BSP, its kernel configuration gives `CONFIG_HZ=300`.
    #[test]
    fn review_lines_of_the_rock_5b_fixture() {
        let root = crate::sys::root::SysRoot::new(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/sysroots/rock-5b"),
        );
        let info = SystemInfo::read(&root);
        let a = assess_system(&info, None, &table(), d("2026-08-22"));
        assert_eq!(a.bsp.as_ref().map(|b| b.vendor), Some(Vendor::RockchipGki));
        let l = review_section_lines(&ReviewKernelFacts::new(&info.kernel, Vec::new()), &a);
        assert_eq!(
            l[0],
            "  * Kernel 5.10.66-11-rockchip-geee2b32138fd / CONFIG_HZ=300"
        );
        assert_eq!(l[1], "");
        assert_eq!(
            l[2],
            "Kernel 5.10.66 is not latest 5.10.265 LTS that was released on 2026-08-19."
        );
        assert!(
            l.last()
                .is_some_and(|x| x == "thousands of patches to a clean 5.10.66 LTS.")
        );
    }

    /// The section's layout in the corpus review `AAEON BOXER-8654AI (Orin NX).md`: the
    /// column set by the longest vulnerability name (`Spec rstack overflow`, not affected
    /// and so not listed).
    #[test]
    fn review_section_as_the_corpus_reviews() {
        let v = |n: &str, s: &str| Vulnerability {
            name: n.into(),
            state: s.into(),
        };
        let f = ReviewKernelFacts {
            cmdline: Some("root=/dev/nvme0n1p1 rw rootwait".into()),
            vulnerabilities: vec![
                v("spec_rstack_overflow", "Not affected"),
                v(
                    "spec_store_bypass",
                    "Mitigation; Speculative Store Bypass disabled via prctl",
                ),
                v("spectre_v1", "Mitigation; __user pointer sanitization"),
            ],
            release: Some("5.15.148-tegra".into()),
            config_hz: Some("CONFIG_HZ=250".into()),
        };
        let a = assess(
            &KernelFacts {
                release: "5.15.148-tegra",
                machine: Some("aarch64"),
                soc: Some("Nvidia Orin (Tegra234)"),
                ..Default::default()
            },
            &table(),
            d("2026-08-22"),
        );
        let l = review_section_lines(&f, &a);
        assert_eq!(
            l[..4],
            [
                "  * `/proc/cmdline: root=/dev/nvme0n1p1 rw rootwait`",
                "  * Vulnerability Spec store bypass:    Mitigation; Speculative Store Bypass disabled via prctl",
                "  * Vulnerability Spectre v1:           Mitigation; __user pointer sanitization",
                "  * Kernel 5.15.148-tegra / CONFIG_HZ=250",
            ]
        );
        assert_eq!(l[4], "");
        assert_eq!(
            l[5],
            "Kernel 5.15.148 is not latest 5.15.216 LTS that was released on 2026-08-19."
        );
    }

    /// Issue 28: the note on an unread kernel log told root to run as root.
    #[test]
    fn kernel_note_does_not_tell_root_to_run_as_root() {
        let t = table();
        let a = assess(
            &KernelFacts {
                release: "5.10.160-rockchip-rk356x",
                machine: Some("aarch64"),
                soc: Some("Rockchip RK3568 (35682000)"),
                kernel_log: None,
                virt: None,
            },
            &t,
            d("2026-08-22"),
        );
        let note = |access| {
            notes(&a, "5.10.160-rockchip-rk356x", true, t.snapshot, access)
                .into_iter()
                .find(|n| n.starts_with("The kernel log could not be read"))
                .unwrap_or_default()
        };
        assert!(note(LogAccess::NotRoot).contains("(run as root)"));
        let root = note(LogAccess::Root);
        assert!(root.contains("(not even as root)"), "{root}");
        assert!(!root.contains("run as root"), "{root}");
        assert!(note(LogAccess::Tree).contains("(the --sysroot tree holds none)"));
    }
}
