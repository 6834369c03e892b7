//! Is this kernel current, and is it what its version says? sbc-bench's kernel check
//! (`sbc-bench -k`, and the review's `### Kernel info:`), as pure judgements over text and
//! small structs:
//!
//! 1. **Which kernels are not judged** ([`Skip`]): release candidates, distribution kernels
//!    with their own release schemes (Debian/Ubuntu `6.2.0-32-generic`, Raspberry Pi OS
//!    `6.1.0-rpi4-rpi-v8`, Fedora/Rocky `.fc39`/`.el9`), every x86_64 machine and aarch64
//!    virtual machines, and series as new as the newest in the table or newer.
//! 2. **Its release cycle** ([`Standing`]) in the endoflife.date table ([`ReleaseTable`]):
//!    not covered any more, at the latest revision, or behind it by N revisions ([`Lag`], at
//!    sbc-bench's thresholds >5, ≥20, ≥50), and whether the cycle's end of life has passed.
//! 3. **Vendor (BSP) kernels** ([`BSP_RULES`]): version numbers that vendor SDKs froze,
//!    by SoC, some confirmed by the kernel log (Rockchip's PVTM messages).
//!
//! The table's series are compared as numbers: sbc-bench sorts `6.12` and `6.6` with
//! `sort -n` (as decimals, 6.12 < 6.6), so on a Raspberry Pi 5 running 6.6 it took 6.6 for
//! a series newer than the newest and printed nothing.

use std::cmp::Ordering;
use std::fmt;
use std::sync::LazyLock;

use chrono::NaiveDate;
use regex_lite::Regex;
use serde::{Deserialize, Serialize};

/// The release table shipped in the binary (`data/linux-releases.json`, endoflife.date's
/// API v1 document of the `linux` product; its date is its `generated_at`).
pub const BUILT_IN_TABLE: &str = include_str!("../../data/linux-releases.json");

/// [`BUILT_IN_TABLE`], read.
pub fn built_in_table() -> Result<ReleaseTable, TableError> {
    ReleaseTable::parse(BUILT_IN_TABLE)
}

/// A table older than this many days is reported as stale.
pub const STALE_AFTER_DAYS: i64 = 90;

/// Revisions behind the latest above which the kernel is said not to be the latest.
pub const LAG_SOME: u32 = 5;
/// Revisions behind from which "some exploitable vulnerabilities" are likely.
pub const LAG_MANY: u32 = 20;
/// Revisions behind from which "a lot of exploitable vulnerabilities" are likely.
pub const LAG_LOTS: u32 = 50;

/// A release series (`6.12`), ordered numerically; `"6.12"` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KernelSeries {
    /// `6` of `6.12`.
    pub major: u32,
    /// `12` of `6.12`.
    pub minor: u32,
}

impl fmt::Display for KernelSeries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for KernelSeries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl KernelSeries {
    /// `"6.12"` → 6.12; anything else is `None`.
    pub fn parse(s: &str) -> Option<Self> {
        let (a, b) = s.trim().split_once('.')?;
        Some(Self {
            major: a.parse().ok()?,
            minor: b.parse().ok()?,
        })
    }
}

/// A kernel release string taken apart (`5.10.160-rockchip-rk356x`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelVersion {
    /// The whole string, as `uname -r` printed it.
    pub release: String,
    /// What comes before the first `-` (`5.10.160`, `5.10.63+`, `6.6.20+rpt`): what
    /// sbc-bench names the kernel by and matches vendor versions against.
    pub token: String,
    /// The series (`5.10`).
    pub series: KernelSeries,
    /// The revision within the series (`160`): the digits of the third field, `None`
    /// without one (`6.14`).
    pub patch: Option<u32>,
}

impl KernelVersion {
    /// Parse a release; `None` unless it starts with `<major>.<minor>`.
    pub fn parse(release: &str) -> Option<Self> {
        let release = release.trim();
        let token = release.split('-').next().unwrap_or_default();
        let mut fields = token.split('.');
        let major = fields.next()?.parse().ok()?;
        let minor_digits: String = fields
            .next()?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let minor = minor_digits.parse().ok()?;
        // sbc-bench keeps only the digits of the third field (`63+` → 63).
        let patch = fields.next().and_then(|p| {
            p.chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        });
        Some(Self {
            release: release.to_string(),
            token: token.to_string(),
            series: KernelSeries { major, minor },
            patch,
        })
    }
}

/// Dates in JSON as `YYYY-MM-DD` (chrono is built without its serde feature).
pub mod day {
    use chrono::NaiveDate;
    use serde::Serializer;

    /// A day.
    pub fn ser<S: Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(d)
    }

    /// A day or `null`.
    pub fn opt<S: Serializer>(d: &Option<NaiveDate>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.collect_str(d),
            None => s.serialize_none(),
        }
    }
}

/// When a release cycle ends. In JSON: `false` (open), the day, or `true` (ended, day
/// unknown), as endoflife.date writes `eol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    /// No end date yet (`eol: false`).
    Open,
    /// Ends (or ended) on this day.
    On(NaiveDate),
    /// Ended, the day not known (`eol: true`).
    Ended,
}

impl Serialize for Eol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Eol::Open => s.serialize_bool(false),
            Eol::On(d) => s.collect_str(d),
            Eol::Ended => s.serialize_bool(true),
        }
    }
}

impl Eol {
    /// Has the cycle reached its end of life by `today`? (The end day itself counts.)
    pub fn reached(self, today: NaiveDate) -> bool {
        match self {
            Eol::Open => false,
            Eol::On(d) => d <= today,
            Eol::Ended => true,
        }
    }

    /// The end day, when known.
    pub fn date(self) -> Option<NaiveDate> {
        match self {
            Eol::On(d) => Some(d),
            _ => None,
        }
    }
}

/// One release cycle of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// The series (`6.12`).
    pub series: KernelSeries,
    /// A long-term (LTS) kernel.
    pub lts: bool,
    /// First release of the series.
    #[serde(serialize_with = "day::opt")]
    pub release_date: Option<NaiveDate>,
    /// End of life.
    pub eol: Eol,
    /// Latest revision (`6.12.104`).
    pub latest: String,
    /// When the latest revision was released.
    #[serde(serialize_with = "day::opt")]
    pub latest_date: Option<NaiveDate>,
}

impl Cycle {
    /// The revision number of [`Cycle::latest`] (`104`), 0 without one.
    pub fn latest_patch(&self) -> u32 {
        KernelVersion::parse(&self.latest)
            .and_then(|v| v.patch)
            .unwrap_or(0)
    }
}

/// The Linux release-cycle table (endoflife.date's `linux` product).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseTable {
    /// The day the table was taken: its `generated_at`, or for the older format without
    /// one, the newest release date it lists.
    #[serde(serialize_with = "day::ser")]
    pub snapshot: NaiveDate,
    /// Every cycle, newest first.
    pub cycles: Vec<Cycle>,
}

/// Why a release-cycle table could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    Json(String),
    /// JSON, but neither of endoflife.date's layouts.
    #[error(
        "not an endoflife.date release table (expected the API v1 product document with \
         result.releases, or the array of cycles of /api/linux.json)"
    )]
    Layout,
    /// A cycle without a usable name or latest version.
    #[error("release cycle {index}: {why}")]
    Cycle {
        /// Position in the list, from 0.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// No cycles at all.
    #[error("the table lists no release cycles")]
    Empty,
    /// A date of the table itself that is not one.
    #[error("{0}")]
    Date(String),
}

/// API v1: `{"generated_at": "…", "result": {"releases": [{"name", "isLts", "releaseDate",
/// "eolFrom", "isEol", "latest": {"name", "date"}}]}}`.
#[derive(Deserialize)]
struct V1Doc {
    generated_at: Option<String>,
    result: V1Result,
}

#[derive(Deserialize)]
struct V1Result {
    releases: Vec<V1Release>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V1Release {
    name: serde_json::Value,
    #[serde(default)]
    is_lts: bool,
    release_date: Option<String>,
    #[serde(default)]
    is_eol: bool,
    eol_from: Option<String>,
    latest: Option<V1Latest>,
}

#[derive(Deserialize)]
struct V1Latest {
    name: serde_json::Value,
    date: Option<String>,
}

/// The older API (`/api/linux.json`): `[{"cycle", "lts", "releaseDate", "eol", "latest",
/// "latestReleaseDate"}]`, where `eol` and `lts` are a date or a boolean.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V0Cycle {
    cycle: serde_json::Value,
    #[serde(default)]
    lts: serde_json::Value,
    release_date: Option<String>,
    #[serde(default)]
    eol: serde_json::Value,
    latest: Option<serde_json::Value>,
    latest_release_date: Option<String>,
}

fn date(s: Option<&str>) -> Option<NaiveDate> {
    let s = s?.trim();
    NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()
}

/// A date field of cycle `index`: missing or empty is `None`; anything else must be a
/// date (`2026-13-45` was taken as "no date" without a word).
fn checked_date(
    index: usize,
    field: &str,
    s: Option<&str>,
) -> Result<Option<NaiveDate>, TableError> {
    match s.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => date(Some(v)).map(Some).ok_or_else(|| TableError::Cycle {
            index,
            why: format!("{field} {v:?} is not a date (YYYY-MM-DD)"),
        }),
    }
}

/// A JSON string or number as text (`"6.12"`; a number `6.1` would lose `6.10`'s zero, so
/// numbers are taken as written only when they are strings, else as printed).
fn text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn cycle(
    index: usize,
    name: &serde_json::Value,
    latest: Option<&serde_json::Value>,
) -> Result<(KernelSeries, String), TableError> {
    let bad = |why: String| TableError::Cycle { index, why };
    let name = text(name).ok_or_else(|| bad("no cycle name".into()))?;
    let series = KernelSeries::parse(&name)
        .ok_or_else(|| bad(format!("'{name}' is not a series like 6.12")))?;
    let latest = latest
        .and_then(text)
        .ok_or_else(|| bad(format!("{name} has no latest version")))?;
    Ok((series, latest))
}

impl ReleaseTable {
    /// Parse endoflife.date's JSON: the API v1 product document (what we ship) or the older
    /// array of cycles.
    pub fn parse(json: &str) -> Result<Self, TableError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| TableError::Json(e.to_string()))?;
        let mut t = if value.is_array() {
            Self::from_v0(value)?
        } else {
            Self::from_v1(value)?
        };
        if t.cycles.is_empty() {
            return Err(TableError::Empty);
        }
        t.cycles.sort_by_key(|c| std::cmp::Reverse(c.series));
        Ok(t)
    }

    fn from_v1(value: serde_json::Value) -> Result<Self, TableError> {
        let doc: V1Doc = serde_json::from_value(value).map_err(|_| TableError::Layout)?;
        let mut cycles = Vec::new();
        for (i, r) in doc.result.releases.iter().enumerate() {
            let (series, latest) = cycle(i, &r.name, r.latest.as_ref().map(|l| &l.name))?;
            let eol = match checked_date(i, "eolFrom", r.eol_from.as_deref())? {
                Some(d) => Eol::On(d),
                None if r.is_eol => Eol::Ended,
                None => Eol::Open,
            };
            cycles.push(Cycle {
                series,
                lts: r.is_lts,
                release_date: checked_date(i, "releaseDate", r.release_date.as_deref())?,
                eol,
                latest,
                latest_date: checked_date(
                    i,
                    "latest.date",
                    r.latest.as_ref().and_then(|l| l.date.as_deref()),
                )?,
            });
        }
        let generated = match doc.generated_at.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(g) => Some(date(Some(g)).ok_or_else(|| {
                TableError::Date(format!("generated_at {g:?} is not a date (YYYY-MM-DD)"))
            })?),
        };
        let snapshot = generated.or_else(|| newest_date(&cycles));
        Ok(Self {
            snapshot: snapshot.ok_or(TableError::Empty)?,
            cycles,
        })
    }

    fn from_v0(value: serde_json::Value) -> Result<Self, TableError> {
        let rows: Vec<V0Cycle> = serde_json::from_value(value).map_err(|_| TableError::Layout)?;
        let mut cycles = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let (series, latest) = cycle(i, &r.cycle, r.latest.as_ref())?;
            let eol = match &r.eol {
                serde_json::Value::Bool(true) => Eol::Ended,
                serde_json::Value::String(s) => {
                    checked_date(i, "eol", Some(s))?.map_or(Eol::Open, Eol::On)
                }
                _ => Eol::Open,
            };
            let lts = match &r.lts {
                serde_json::Value::Bool(b) => *b,
                // An LTS date: LTS from then on.
                serde_json::Value::String(s) => checked_date(i, "lts", Some(s))?.is_some(),
                _ => false,
            };
            cycles.push(Cycle {
                series,
                lts,
                release_date: checked_date(i, "releaseDate", r.release_date.as_deref())?,
                eol,
                latest,
                latest_date: checked_date(
                    i,
                    "latestReleaseDate",
                    r.latest_release_date.as_deref(),
                )?,
            });
        }
        let snapshot = newest_date(&cycles).ok_or(TableError::Empty)?;
        Ok(Self { snapshot, cycles })
    }

    /// The newest series listed.
    pub fn newest(&self) -> Option<KernelSeries> {
        self.cycles.iter().map(|c| c.series).max()
    }

    /// The cycle of a series.
    pub fn cycle(&self, series: KernelSeries) -> Option<&Cycle> {
        self.cycles.iter().find(|c| c.series == series)
    }

    /// Days from the snapshot to `today` (negative for a table from the future).
    pub fn age_days(&self, today: NaiveDate) -> i64 {
        (today - self.snapshot).num_days()
    }

    /// Older than [`STALE_AFTER_DAYS`] on `today`?
    pub fn is_stale(&self, today: NaiveDate) -> bool {
        self.age_days(today) > STALE_AFTER_DAYS
    }
}

fn newest_date(cycles: &[Cycle]) -> Option<NaiveDate> {
    cycles
        .iter()
        .flat_map(|c| [c.latest_date, c.release_date])
        .flatten()
        .max()
}

/// A distribution's own kernel numbering, which says nothing about kernel.org revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DistroScheme {
    /// Debian/Ubuntu: `6.2.0-32-generic`, `5.10.0-23-amd64`, `5.15.0-1035-raspi`.
    DebianUbuntu,
    /// Raspberry Pi OS since Bookworm: `6.1.0-rpi4-rpi-v8`, `6.1.0-rpi7-rpi-2712`.
    RaspberryPiOs,
    /// Fedora / Rocky Linux: `6.5.6-300.fc39.aarch64`, `5.14.0-362.el9.aarch64`.
    FedoraRocky,
}

impl DistroScheme {
    /// The distributions, as a reader names them.
    pub fn label(self) -> &'static str {
        match self {
            DistroScheme::DebianUbuntu => "Debian/Ubuntu",
            DistroScheme::RaspberryPiOs => "Raspberry Pi OS",
            DistroScheme::FedoraRocky => "Fedora/Rocky Linux",
        }
    }
}

/// Release-string patterns of distribution kernels (sbc-bench's). A Debian-like number in
/// a release naming `amlogic`, `librem5` or `rockchip` is a vendor kernel and is judged.
static DISTRO_PATTERNS: LazyLock<Vec<(Regex, Option<Regex>, DistroScheme)>> = LazyLock::new(|| {
    let re = |s: &str| Regex::new(s).ok();
    [
            (
                re(r"[3-9]\.[0-9]{1,3}\.[0-9]{1,2}-[0-9]{1,4}-raspi|[3-9]\.[0-9]{1,3}\.[0-9]{1,2}-[0-9]{1,3}-[a-z]{1,3}"),
                re("amlogic|librem5|rockchip"),
                DistroScheme::DebianUbuntu,
            ),
            (re(r"rpi.-rpi"), None, DistroScheme::RaspberryPiOs),
            (re(r"\.fc3|\.fc4|\.el9"), None, DistroScheme::FedoraRocky),
        ]
        .into_iter()
        .filter_map(|(p, except, s)| Some((p?, except, s)))
        .collect()
});

/// The distribution scheme a release string follows, if any.
pub fn distro_scheme(release: &str) -> Option<DistroScheme> {
    DISTRO_PATTERNS
        .iter()
        .find(|(p, except, _)| {
            p.is_match(release) && !except.as_ref().is_some_and(|e| e.is_match(release))
        })
        .map(|(_, _, s)| *s)
}

/// Virtual machines (systemd-detect-virt's names) in which an aarch64 kernel is not judged:
/// they run distribution kernels.
pub const VM_SKIPPED: &[&str] = &["kvm", "oracle", "parallels", "vmware", "wsl", "xen", "qemu"];

/// Why a kernel is not judged at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Skip {
    /// The release string does not start with `<major>.<minor>`.
    Unparsable,
    /// A release candidate (`-rc`): its developers know.
    ReleaseCandidate,
    /// A distribution kernel with its own numbering.
    Distro {
        /// Which scheme.
        scheme: DistroScheme,
    },
    /// x86_64: distribution kernels; sbc-bench has no checks for them.
    X86,
    /// An aarch64 virtual machine.
    VirtualMachine {
        /// The hypervisor or container (`kvm`).
        virt: String,
    },
    /// The series is as new as the newest in the table, or newer (a mainline or
    /// bleeding-edge kernel).
    NewestSeries {
        /// The newest series the table lists.
        newest: KernelSeries,
    },
}

/// How far behind the latest revision of its series a kernel is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lag {
    /// At most [`LAG_SOME`] revisions: not worth a word.
    Few,
    /// More than [`LAG_SOME`].
    Some,
    /// At least [`LAG_MANY`].
    Many,
    /// At least [`LAG_LOTS`].
    Lots,
}

impl Lag {
    /// The lag of `behind` revisions.
    pub fn of(behind: u32) -> Self {
        match behind {
            n if n >= LAG_LOTS => Lag::Lots,
            n if n >= LAG_MANY => Lag::Many,
            n if n > LAG_SOME => Lag::Some,
            _ => Lag::Few,
        }
    }
}

/// Where the kernel stands in its release cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "standing")]
pub enum Standing {
    /// The series is in no cycle of the table (ended long ago, or never listed).
    NotCovered,
    /// The latest revision of its series.
    Latest {
        /// The cycle.
        cycle: Cycle,
        /// Its end of life has passed.
        eol_reached: bool,
    },
    /// Behind the latest revision.
    Behind {
        /// The cycle.
        cycle: Cycle,
        /// Its end of life has passed.
        eol_reached: bool,
        /// Revisions behind the latest.
        behind: u32,
        /// How much that is.
        lag: Lag,
    },
    /// A revision newer than the table's latest: the table is older than the kernel.
    Ahead {
        /// The cycle.
        cycle: Cycle,
        /// Its end of life has passed.
        eol_reached: bool,
    },
}

/// Whose vendor (BSP) kernel a rule names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Vendor {
    /// Allwinner.
    Allwinner,
    /// Amlogic.
    Amlogic,
    /// Ingenic.
    Ingenic,
    /// Canaan Kendryte.
    Kendryte,
    /// MediaTek.
    MediaTek,
    /// Nexell.
    Nexell,
    /// Nvidia (Jetson Linux / L4T).
    Nvidia,
    /// NXP.
    #[serde(rename = "NXP")]
    Nxp,
    /// Phytium.
    Phytium,
    /// Qualcomm.
    Qualcomm,
    /// Realtek.
    RealTek,
    /// Rockchip's older forward-ported BSP (4.4, 4.19).
    Rockchip,
    /// Rockchip's BSP from 5.10 on, a mixture of Android GKI and other sources.
    RockchipGki,
    /// Samsung.
    Samsung,
    /// SiEngine.
    SiEngine,
    /// Sophon (Sophgo).
    Sophon,
    /// SpacemiT.
    SpacemiT,
    /// StarFive.
    StarFive,
    /// Synaptics.
    Synaptics,
    /// T-Head.
    #[serde(rename = "T-Head")]
    THead,
    /// Unisoc.
    Unisoc,
}

impl Vendor {
    /// The vendor as the warning names it.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Allwinner => "Allwinner",
            Vendor::Amlogic => "Amlogic",
            Vendor::Ingenic => "Ingenic",
            Vendor::Kendryte => "Kendryte",
            Vendor::MediaTek => "MediaTek",
            Vendor::Nexell => "Nexell",
            Vendor::Nvidia => "Nvidia",
            Vendor::Nxp => "NXP",
            Vendor::Phytium => "Phytium",
            Vendor::Qualcomm => "Qualcomm",
            Vendor::RealTek => "RealTek",
            Vendor::Rockchip | Vendor::RockchipGki => "Rockchip",
            Vendor::Samsung => "Samsung",
            Vendor::SiEngine => "SiEngine",
            Vendor::Sophon => "Sophon",
            Vendor::SpacemiT => "SpacemiT",
            Vendor::StarFive => "StarFive",
            Vendor::Synaptics => "Synaptics",
            Vendor::THead => "T-Head",
            Vendor::Unisoc => "Unisoc",
        }
    }
}

/// Which kernel versions a rule covers, matched against [`KernelVersion::token`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ver {
    /// Exactly this version (`5.4.125`).
    Is(&'static str),
    /// Every version starting so (`4.9.` is the 4.9 series; `6.6.98` also `6.6.98+x`).
    StartsWith(&'static str),
    /// Every version (the last rule).
    Any,
}

impl Ver {
    fn matches(self, token: &str) -> bool {
        match self {
            Ver::Is(v) => token == v,
            Ver::StartsWith(p) => token.starts_with(p),
            Ver::Any => true,
        }
    }
}

/// SoCs a rule flags: the guess names one of `names` (case-insensitive substrings, so both
/// our names, `Samsung Exynos 5422`, `Nvidia Orin (Tegra234)`, and sbc-bench's, `Exynos
/// 5422`, `Nvidia Jetson AGX Orin`, match), and, when `log` is set, the kernel log holds
/// that text (Rockchip's BSP logs its PVTM calibration; mainline does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocRule {
    /// Any of these, lower case.
    pub names: &'static [&'static str],
    /// Whose vendor kernel it is.
    pub vendor: Vendor,
    /// Text the kernel log must contain.
    pub log: Option<&'static str>,
}

/// The end-of-life line of a series that endoflife.date no longer lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SeriesEnd {
    /// `4.4`.
    pub series: &'static str,
    /// `2022-02-03`.
    pub eol: &'static str,
    /// `4.4.302`.
    pub last: &'static str,
    /// Only when the table does not list the series (4.9, which endoflife.date still
    /// lists).
    #[serde(skip)]
    pub only_when_unlisted: bool,
}

/// One version arm: the first rule whose versions match is the only one applied; within
/// it the first matching SoC wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BspRule {
    /// Versions covered.
    pub versions: &'static [Ver],
    /// SoCs flagged, in order.
    pub socs: &'static [SocRule],
    /// The series' end, printed whatever the SoC.
    pub series_end: Option<SeriesEnd>,
}

const fn soc(names: &'static [&'static str], vendor: Vendor) -> SocRule {
    SocRule {
        names,
        vendor,
        log: None,
    }
}

const fn soc_logged(names: &'static [&'static str], vendor: Vendor, log: &'static str) -> SocRule {
    SocRule {
        names,
        vendor,
        log: Some(log),
    }
}

const fn ended(series: &'static str, eol: &'static str, last: &'static str) -> Option<SeriesEnd> {
    Some(SeriesEnd {
        series,
        eol,
        last,
        only_when_unlisted: false,
    })
}

const ALLWINNER: SocRule = soc(&["allwinner"], Vendor::Allwinner);
const AMLOGIC: SocRule = soc(&["amlogic"], Vendor::Amlogic);
const EXYNOS_5422: SocRule = soc(&["5422"], Vendor::Samsung);
const PHYTIUM: SocRule = soc(&["phytium"], Vendor::Phytium);
const NEXELL: SocRule = soc(&["nexell"], Vendor::Nexell);
const AMLOGIC_S928X: SocRule = soc(&["s928x"], Vendor::Amlogic);
const ROCKCHIP_GKI: SocRule = soc(&["rockchip"], Vendor::RockchipGki);

use Ver::{Any, Is, StartsWith};

/// sbc-bench's vendor-kernel rules (`CheckKernelVersion`), in its order. The first rule
/// whose versions match decides; a matching rule without a matching SoC says nothing.
pub const BSP_RULES: &[BspRule] = &[
    // Amlogic kernels of the 150balbes builds: so common that sbc-bench stays silent.
    BspRule {
        versions: &[
            Is("3.10.33"),
            Is("4.16.1"),
            Is("4.18.7"),
            Is("5.0.2"),
            Is("5.1.0"),
            Is("5.3.0"),
            Is("5.3.11"),
            Is("5.5.0"),
            Is("5.6.0"),
            StartsWith("5.7."),
            StartsWith("5.8."),
            StartsWith("5.9."),
            Is("5.10.0"),
            Is("5.14.0"),
        ],
        socs: &[],
        series_end: None,
    },
    // SDKs for Allwinner A10, A20, A83T, H2+/H3.
    BspRule {
        versions: &[StartsWith("3.4.")],
        socs: &[ALLWINNER],
        series_end: ended("3.4", "2016-10-26", "3.4.113"),
    },
    // Allwinner A64, H5, R40/V40, Amlogic S805 (Meson8b), Exynos 5422.
    BspRule {
        versions: &[StartsWith("3.10.")],
        socs: &[ALLWINNER, AMLOGIC, EXYNOS_5422],
        series_end: ended("3.10", "2017-11-05", "3.10.108"),
    },
    BspRule {
        versions: &[StartsWith("3.14.")],
        socs: &[AMLOGIC],
        series_end: ended("3.14", "2016-09-11", "3.14.79"),
    },
    // Amlogic S905 (ODROID-C2).
    BspRule {
        versions: &[StartsWith("3.16.")],
        socs: &[AMLOGIC],
        series_end: ended("3.16", "2020-06-11", "3.16.85"),
    },
    // Ingenic JZ4780, Qualcomm APQ8053.
    BspRule {
        versions: &[StartsWith("3.18.")],
        socs: &[
            soc(&["ingenic"], Vendor::Ingenic),
            soc(&["qualcomm"], Vendor::Qualcomm),
        ],
        series_end: ended("3.18", "2017-02-08", "3.18.48"),
    },
    // Rockchip RK32xx/RK33xx, Nexell S5P4418/S5P6818.
    BspRule {
        versions: &[StartsWith("4.4.")],
        socs: &[soc(&["rk3", "rockchip"], Vendor::Rockchip), NEXELL],
        series_end: ended("4.4", "2022-02-03", "4.4.302"),
    },
    // Allwinner H6/H616/H313/H618…, Amlogic S905X3/S922X/A311D, Exynos 5422, Nvidia
    // Jetson Nano/Xavier/Tegra X1, Realtek RTD129x/RTD139x.
    BspRule {
        versions: &[StartsWith("4.9.")],
        socs: &[
            EXYNOS_5422,
            ALLWINNER,
            AMLOGIC,
            soc(&["realtek rtd"], Vendor::RealTek),
            soc(&["nvidia"], Vendor::Nvidia),
        ],
        series_end: Some(SeriesEnd {
            series: "4.9",
            eol: "2023-01-07",
            last: "4.9.337",
            only_when_unlisted: true,
        }),
    },
    // Exynos 5422/9820, NXP i.MX8, Nexell S5P4418/S5P6818.
    BspRule {
        versions: &[StartsWith("4.14.")],
        socs: &[
            NEXELL,
            soc(&["5422", "exynos 9820"], Vendor::Samsung),
            soc(&["nxp i.mx8"], Vendor::Nxp),
        ],
        series_end: None,
    },
    // Rockchip RK356x.
    BspRule {
        versions: &[StartsWith("4.19.")],
        socs: &[soc(&["rk3566", "rk3568"], Vendor::Rockchip), PHYTIUM],
        series_end: None,
    },
    // Amlogic's SDK (5.4.125, after version cosmetics 5.4.180); Allwinner Android builds.
    BspRule {
        versions: &[Is("5.4.125"), Is("5.4.180")],
        socs: &[ALLWINNER, AMLOGIC],
        series_end: None,
    },
    // Allwinner A133/A64/D1/R528/T113/H5/H6/H616/H618, Amlogic A311D2 (T7), S805X2/S905Y4/
    // S905W2 (S4), S928X (S5), Exynos 5422.
    BspRule {
        versions: &[StartsWith("5.4.")],
        socs: &[
            ALLWINNER,
            soc(
                &["a311d2", "s805x2", "s905y4", "s905w2", "s928x"],
                Vendor::Amlogic,
            ),
            EXYNOS_5422,
            PHYTIUM,
            soc(&["unisoc"], Vendor::Unisoc),
            soc(&["synaptics"], Vendor::Synaptics),
        ],
        series_end: None,
    },
    BspRule {
        versions: &[StartsWith("5.10.0")],
        socs: &[soc(&["sophon", "sophgo"], Vendor::Sophon)],
        series_end: None,
    },
    BspRule {
        versions: &[Is("5.10.4")],
        socs: &[soc(&["k230"], Vendor::Kendryte)],
        series_end: None,
    },
    // Rockchip's 5.10 BSP in its flavours.
    BspRule {
        versions: &[Is("5.10.66"), Is("5.10.72"), Is("5.10.110")],
        socs: &[ROCKCHIP_GKI],
        series_end: None,
    },
    // Allwinner T153, Nvidia Jetson AGX Orin, Rockchip RK3399/RK3528/RK356x/RK3588.
    BspRule {
        versions: &[StartsWith("5.10.")],
        socs: &[
            ALLWINNER,
            soc(&["jetson agx orin", "tegra234"], Vendor::Nvidia),
            PHYTIUM,
            soc(&["rk3528", "rk3588"], Vendor::RockchipGki),
            // RK3399 and RK356x also run mainline 5.10: only the BSP logs PVTM.
            soc_logged(&["rk3399"], Vendor::RockchipGki, "pvtm-volt-sel"),
            soc_logged(&["rk3566", "rk3568"], Vendor::RockchipGki, "cpu cpu0: pvtm"),
            soc(
                &[
                    "snapdragon 8 gen1",
                    "snapdragon 8+ gen1",
                    "snapdragon 8 gen 1",
                    "snapdragon 8+ gen 1",
                    "sm8450",
                    "sm8475",
                ],
                Vendor::Qualcomm,
            ),
            AMLOGIC_S928X,
            soc(&["t-head"], Vendor::THead),
            soc(&["siengine"], Vendor::SiEngine),
        ],
        series_end: None,
    },
    // Amlogic's SDK from 5.15.78 (T7, S4, SM1, G12B), its version cosmetics; Allwinner's
    // Android 13 BSP.
    BspRule {
        versions: &[
            Is("5.15.78"),
            Is("5.15.119"),
            Is("5.15.137"),
            Is("5.15.147"),
            Is("5.15.153"),
        ],
        socs: &[ALLWINNER, AMLOGIC],
        series_end: None,
    },
    // Allwinner A133/T527/A733/A333 Android and OpenWrt builds.
    BspRule {
        versions: &[
            Is("5.15.41"),
            Is("5.15.94"),
            Is("5.15.123"),
            Is("5.15.147"),
            Is("5.15.151"),
            Is("6.6.30"),
            Is("6.6.57"),
            Is("6.6.77"),
            StartsWith("6.6.98"),
        ],
        socs: &[ALLWINNER],
        series_end: None,
    },
    BspRule {
        versions: &[StartsWith("5.15.")],
        socs: &[
            soc(&["starfive"], Vendor::StarFive),
            soc(&["mt7986a", "genio 1200"], Vendor::MediaTek),
            // Amlogic's Android 14 BSP.
            AMLOGIC_S928X,
        ],
        series_end: None,
    },
    BspRule {
        versions: &[StartsWith("6.1."), Is("6.6.89"), Is("6.12.58")],
        socs: &[ROCKCHIP_GKI, soc(&["spacemit"], Vendor::SpacemiT)],
        series_end: None,
    },
    BspRule {
        versions: &[Any],
        socs: &[soc(&["s928x", "a311y3"], Vendor::Amlogic)],
        series_end: None,
    },
];

/// What the judgement is made from.
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelFacts<'a> {
    /// `uname -r`.
    pub release: &'a str,
    /// `uname -m`; `None` when not known (`--release` without a board).
    pub machine: Option<&'a str>,
    /// Virtual machine or container (`kvm`, `docker`), systemd-detect-virt's name.
    pub virt: Option<&'a str>,
    /// The SoC as the guess names it (`Rockchip RK3588 (35880000)`).
    pub soc: Option<&'a str>,
    /// The kernel log's messages; `None` when it could not be read.
    pub kernel_log: Option<&'a [String]>,
}

/// A vendor-kernel warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BspWarning {
    /// Whose kernel.
    pub vendor: Vendor,
    /// The kernel-log text that confirmed it, when the rule needs one.
    pub log_evidence: Option<&'static str>,
}

/// The judgement of one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelAssessment {
    /// The release judged, taken apart (`None` when unparsable).
    pub version: Option<KernelVersion>,
    /// Why it was not judged; everything below is empty then.
    pub skip: Option<Skip>,
    /// Where it stands in its release cycle.
    pub standing: Option<Standing>,
    /// A vendor/BSP kernel warning.
    pub bsp: Option<BspWarning>,
    /// The end of a series the table no longer lists.
    pub series_end: Option<SeriesEnd>,
    /// A rule would have asked the kernel log (this text) but it could not be read.
    pub log_unread: Option<&'static str>,
}

fn skip(version: Option<KernelVersion>, why: Skip) -> KernelAssessment {
    KernelAssessment {
        version,
        skip: Some(why),
        standing: None,
        bsp: None,
        series_end: None,
        log_unread: None,
    }
}

/// Judge a kernel against `table` on `today`.
pub fn assess(facts: &KernelFacts, table: &ReleaseTable, today: NaiveDate) -> KernelAssessment {
    let version = KernelVersion::parse(facts.release);
    if let Some(why) = skip_reason(facts, version.as_ref(), table) {
        return skip(version, why);
    }
    let Some(v) = version else {
        return skip(None, Skip::Unparsable);
    };
    let standing = standing(&v, table, today);
    let (bsp, series_end, log_unread) = match BSP_RULES
        .iter()
        .find(|r| r.versions.iter().any(|p| p.matches(&v.token)))
    {
        Some(rule) => {
            let (bsp, log_unread) = vendor_kernel(rule, facts);
            let end = rule
                .series_end
                .filter(|e| !e.only_when_unlisted || !listed(table, e.series));
            (bsp, end, log_unread)
        }
        None => (None, None, None),
    };
    KernelAssessment {
        version: Some(v),
        skip: None,
        standing: Some(standing),
        bsp,
        series_end,
        log_unread,
    }
}

/// Whether `facts` describe a vendor (BSP) kernel, as sbc-bench's `CheckKernelVersion`
/// rules judge it: `Some(true)` when a vendor rule flags it, `Some(false)` when no rule
/// can (a distribution or x86 kernel, a virtual machine, a release candidate, the newest
/// series, a version no vendor froze), `None` when it cannot be told: an unparsable
/// release, or a vendor version whose SoC (or the kernel log a rule asks) is unknown.
pub fn is_vendor_kernel(facts: &KernelFacts, table: &ReleaseTable) -> Option<bool> {
    let version = KernelVersion::parse(facts.release);
    match skip_reason(facts, version.as_ref(), table) {
        Some(Skip::Unparsable) => return None,
        Some(_) => return Some(false),
        None => {}
    }
    let v = version?;
    let Some(rule) = BSP_RULES
        .iter()
        .find(|r| r.versions.iter().any(|p| p.matches(&v.token)))
    else {
        return Some(false);
    };
    facts.soc?;
    match vendor_kernel(rule, facts) {
        (Some(_), _) => Some(true),
        (None, Some(_)) => None,
        (None, None) => Some(false),
    }
}

fn listed(table: &ReleaseTable, series: &str) -> bool {
    KernelSeries::parse(series).is_some_and(|s| table.cycle(s).is_some())
}

fn skip_reason(
    facts: &KernelFacts,
    version: Option<&KernelVersion>,
    table: &ReleaseTable,
) -> Option<Skip> {
    if facts.release.contains("-rc") {
        return Some(Skip::ReleaseCandidate);
    }
    if let Some(scheme) = distro_scheme(facts.release) {
        return Some(Skip::Distro { scheme });
    }
    match facts.machine {
        Some("x86_64") => return Some(Skip::X86),
        Some("aarch64") => {
            if let Some(v) = facts.virt.filter(|v| VM_SKIPPED.contains(v)) {
                return Some(Skip::VirtualMachine {
                    virt: v.to_string(),
                });
            }
        }
        _ => {}
    }
    let Some(version) = version else {
        return Some(Skip::Unparsable);
    };
    match table.newest() {
        Some(newest) if version.series >= newest => Some(Skip::NewestSeries { newest }),
        _ => None,
    }
}

fn standing(v: &KernelVersion, table: &ReleaseTable, today: NaiveDate) -> Standing {
    let Some(cycle) = table.cycle(v.series) else {
        return Standing::NotCovered;
    };
    let eol_reached = cycle.eol.reached(today);
    let latest = cycle.latest_patch();
    let used = v.patch.unwrap_or(0);
    let cycle = cycle.clone();
    match used.cmp(&latest) {
        Ordering::Equal => Standing::Latest { cycle, eol_reached },
        Ordering::Greater => Standing::Ahead { cycle, eol_reached },
        Ordering::Less => {
            let behind = latest - used;
            Standing::Behind {
                cycle,
                eol_reached,
                behind,
                lag: Lag::of(behind),
            }
        }
    }
}

/// The SoC rule of `rule` that flags this machine, and the log text a rule needed but
/// could not check.
fn vendor_kernel(
    rule: &BspRule,
    facts: &KernelFacts,
) -> (Option<BspWarning>, Option<&'static str>) {
    let Some(soc) = facts.soc.map(str::to_ascii_lowercase) else {
        return (None, None);
    };
    let mut unread = None;
    for r in rule.socs {
        if !r.names.iter().any(|n| soc.contains(n)) {
            continue;
        }
        match (r.log, facts.kernel_log) {
            (None, _) => {
                return (
                    Some(BspWarning {
                        vendor: r.vendor,
                        log_evidence: None,
                    }),
                    None,
                );
            }
            (Some(needle), Some(log)) if log.iter().any(|m| m.contains(needle)) => {
                return (
                    Some(BspWarning {
                        vendor: r.vendor,
                        log_evidence: Some(needle),
                    }),
                    None,
                );
            }
            (Some(_), Some(_)) => {}
            (Some(needle), None) => unread = unread.or(Some(needle)),
        }
    }
    (None, unread)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn table() -> ReleaseTable {
        built_in_table().unwrap()
    }

    fn facts<'a>(release: &'a str, soc: Option<&'a str>) -> KernelFacts<'a> {
        KernelFacts {
            release,
            machine: Some("aarch64"),
            soc,
            ..Default::default()
        }
    }

    #[test]
    fn shipped_table_is_read() {
        let t = table();
        assert_eq!(t.snapshot, d("2026-08-22"));
        assert_eq!(t.newest(), Some(KernelSeries { major: 7, minor: 2 }));
        let c = t.cycle(KernelSeries::parse("6.12").unwrap()).unwrap();
        assert!(c.lts);
        assert_eq!(c.eol, Eol::On(d("2028-12-31")));
        assert_eq!(c.latest, "6.12.104");
        assert_eq!(c.latest_patch(), 104);
        assert_eq!(c.latest_date, Some(d("2026-08-19")));
        assert!(t.cycle(KernelSeries::parse("4.4").unwrap()).is_none());
        assert!(!t.is_stale(d("2026-11-20")));
        assert!(t.is_stale(d("2026-11-21")));
        assert_eq!(t.age_days(d("2026-12-01")), 101);
    }

    /// sbc-bench compares series with `sort -n`, as decimals: 6.12 < 6.6, so it took a 6.6
    /// kernel for one newer than the newest cycle (6.12 then) and said nothing.
    #[test]
    fn decimal_sort_of_series_regression() {
        assert!(KernelSeries::parse("6.12") > KernelSeries::parse("6.6"));
        assert!(KernelSeries::parse("6.10") > KernelSeries::parse("6.9"));
        let t = table();
        let newest_612 = ReleaseTable {
            cycles: t
                .cycles
                .iter()
                .filter(|c| c.series <= KernelSeries::parse("6.12").unwrap())
                .cloned()
                .collect(),
            ..t
        };
        assert_eq!(newest_612.newest(), KernelSeries::parse("6.12"));
        let a = assess(
            &facts("6.6.20+rpt-rpi-2712", Some("BCM2712")),
            &newest_612,
            d("2026-08-22"),
        );
        assert_eq!(a.skip, None, "6.6 is not newer than 6.12");
        assert!(matches!(
            a.standing,
            Some(Standing::Behind {
                behind: 132,
                lag: Lag::Lots,
                ..
            })
        ));
        // 6.12 itself is the newest series there: not judged, as sbc-bench.
        let a = assess(&facts("6.12.1", None), &newest_612, d("2026-08-22"));
        assert_eq!(
            a.skip,
            Some(Skip::NewestSeries {
                newest: KernelSeries::parse("6.12").unwrap()
            })
        );
    }

    #[test]
    fn versions_are_taken_apart_as_sbc_bench_names_them() {
        let v = KernelVersion::parse("5.10.63-v8+").unwrap();
        assert_eq!((v.token.as_str(), v.patch), ("5.10.63", Some(63)));
        let v = KernelVersion::parse("5.10.63+").unwrap();
        assert_eq!((v.token.as_str(), v.patch), ("5.10.63+", Some(63)));
        let v = KernelVersion::parse("6.6.20+rpt-rpi-2712").unwrap();
        assert_eq!(v.token, "6.6.20+rpt");
        assert_eq!(v.series, KernelSeries { major: 6, minor: 6 });
        assert_eq!(v.patch, Some(20));
        let v = KernelVersion::parse("6.14").unwrap();
        assert_eq!(v.patch, None);
        let v = KernelVersion::parse("6.3.0+").unwrap();
        assert_eq!((v.series.minor, v.patch), (3, Some(0)));
        assert!(KernelVersion::parse("garbage").is_none());
        assert!(KernelVersion::parse("").is_none());
        assert!(KernelVersion::parse("6").is_none());
    }

    #[test]
    fn distro_kernels_and_their_exceptions() {
        for (r, s) in [
            ("6.2.0-32-generic", Some(DistroScheme::DebianUbuntu)),
            ("5.10.0-23-amd64", Some(DistroScheme::DebianUbuntu)),
            ("5.15.0-1035-raspi", Some(DistroScheme::DebianUbuntu)),
            ("6.1.0-rpi4-rpi-v8", Some(DistroScheme::RaspberryPiOs)),
            ("6.1.0-rpi7-rpi-2712", Some(DistroScheme::RaspberryPiOs)),
            ("6.5.6-300.fc39.aarch64", Some(DistroScheme::FedoraRocky)),
            ("5.14.0-362.el9.aarch64", Some(DistroScheme::FedoraRocky)),
            // Vendor kernels with a Debian-like number.
            ("5.10.69-10-amlogic-g617a45dd0fce", None),
            ("5.10.110-33-rockchip", None),
            ("5.10.160-rockchip-rk356x", None),
            // Four digits after the version are only Ubuntu's `raspi`.
            ("5.15.0-1018-mtk", None),
            ("6.6.20+rpt-rpi-2712", None),
        ] {
            assert_eq!(distro_scheme(r), s, "{r}");
        }
    }

    #[test]
    fn lag_thresholds_as_sbc_bench() {
        assert_eq!(Lag::of(0), Lag::Few);
        assert_eq!(Lag::of(5), Lag::Few);
        assert_eq!(Lag::of(6), Lag::Some);
        assert_eq!(Lag::of(19), Lag::Some);
        assert_eq!(Lag::of(20), Lag::Many);
        assert_eq!(Lag::of(49), Lag::Many);
        assert_eq!(Lag::of(50), Lag::Lots);
    }

    #[test]
    fn standings_at_a_fixed_day() {
        let t = table();
        let day = d("2026-08-22");
        let st = |r: &str| assess(&facts(r, None), &t, day).standing;
        assert_eq!(st("4.4.302"), Some(Standing::NotCovered));
        assert!(matches!(
            st("6.12.104"),
            Some(Standing::Latest {
                eol_reached: false,
                ..
            })
        ));
        assert!(matches!(
            st("6.12.110"),
            Some(Standing::Ahead {
                eol_reached: false,
                ..
            })
        ));
        assert!(matches!(
            st("5.4.302"),
            Some(Standing::Latest {
                eol_reached: true,
                ..
            })
        ));
        assert!(matches!(
            st("6.12.100"),
            Some(Standing::Behind {
                behind: 4,
                lag: Lag::Few,
                eol_reached: false,
                ..
            })
        ));
        // 5.10 and 5.15 end on 2026-12-31: the same kernel is alive today and dead in 2027.
        let a = assess(&facts("5.15.200", None), &t, d("2026-12-30")).standing;
        assert!(matches!(
            a,
            Some(Standing::Behind {
                eol_reached: false,
                behind: 16,
                lag: Lag::Some,
                ..
            })
        ));
        let a = assess(&facts("5.15.200", None), &t, d("2026-12-31")).standing;
        assert!(matches!(
            a,
            Some(Standing::Behind {
                eol_reached: true,
                ..
            })
        ));
    }

    #[test]
    fn skipped_kernels() {
        let t = table();
        let day = d("2026-08-22");
        let sk = |f: KernelFacts| assess(&f, &t, day).skip;
        assert_eq!(
            sk(facts("6.14-rc6-0-qcom-x1e", None)),
            Some(Skip::ReleaseCandidate)
        );
        assert_eq!(
            sk(KernelFacts {
                release: "6.8.12",
                machine: Some("x86_64"),
                ..Default::default()
            }),
            Some(Skip::X86)
        );
        assert_eq!(
            sk(KernelFacts {
                release: "6.6.38",
                machine: Some("aarch64"),
                virt: Some("kvm"),
                ..Default::default()
            }),
            Some(Skip::VirtualMachine { virt: "kvm".into() })
        );
        // Other VMs (Apple's hypervisor, `vm-other`) and other architectures are judged.
        assert_eq!(
            sk(KernelFacts {
                release: "6.6.38",
                machine: Some("aarch64"),
                virt: Some("vm-other"),
                ..Default::default()
            }),
            None
        );
        assert_eq!(
            sk(facts("7.2.0", None)),
            Some(Skip::NewestSeries {
                newest: KernelSeries { major: 7, minor: 2 }
            })
        );
        assert_eq!(
            sk(facts("8.0.1", None)).map(|s| matches!(s, Skip::NewestSeries { .. })),
            Some(true)
        );
        assert_eq!(sk(facts("bogus", None)), Some(Skip::Unparsable));
    }

    #[test]
    fn pvtm_in_the_kernel_log_tells_rockchip_bsp_from_mainline() {
        let t = table();
        let day = d("2026-08-22");
        let bsp_log = vec!["cpu cpu0: pvtm=1505".to_string()];
        let mainline_log = vec!["Booting Linux on physical CPU 0x0".to_string()];
        let run = |log: Option<&[String]>| {
            assess(
                &KernelFacts {
                    release: "5.10.160-rockchip-rk356x",
                    machine: Some("aarch64"),
                    soc: Some("Rockchip RK3568 (35682000)"),
                    kernel_log: log,
                    virt: None,
                },
                &t,
                day,
            )
        };
        let a = run(Some(&bsp_log));
        assert_eq!(
            a.bsp,
            Some(BspWarning {
                vendor: Vendor::RockchipGki,
                log_evidence: Some("cpu cpu0: pvtm")
            })
        );
        let a = run(Some(&mainline_log));
        assert_eq!((a.bsp, a.log_unread), (None, None));
        let a = run(None);
        assert_eq!((a.bsp, a.log_unread), (None, Some("cpu cpu0: pvtm")));
    }

    #[test]
    fn vendor_kernel_is_told_where_it_can_be() {
        let t = table();
        assert_eq!(
            is_vendor_kernel(&facts("4.4.194-rk322x", Some("Rockchip RK3229")), &t),
            Some(true)
        );
        // The same vendor version on an unknown SoC cannot be told.
        assert_eq!(is_vendor_kernel(&facts("4.4.194-rk322x", None), &t), None);
        // A rule that needs the kernel log, without one: not known; with a mainline log: no.
        fn rk(log: Option<&[String]>) -> KernelFacts<'_> {
            KernelFacts {
                release: "5.10.160-rockchip-rk356x",
                machine: Some("aarch64"),
                soc: Some("Rockchip RK3568 (35682000)"),
                kernel_log: log,
                virt: None,
            }
        }
        assert_eq!(is_vendor_kernel(&rk(None), &t), None);
        let mainline_log = vec!["Booting Linux on physical CPU 0x0".to_string()];
        assert_eq!(is_vendor_kernel(&rk(Some(&mainline_log)), &t), Some(false));
        // Distribution, x86 and newest-series kernels are no vendor's.
        let x86 = KernelFacts {
            release: "6.1.0-18-amd64",
            machine: Some("x86_64"),
            ..Default::default()
        };
        assert_eq!(is_vendor_kernel(&x86, &t), Some(false));
        assert_eq!(
            is_vendor_kernel(&facts("7.2.1", Some("RK3588")), &t),
            Some(false)
        );
        assert_eq!(is_vendor_kernel(&facts("bogus", None), &t), None);
    }

    #[test]
    fn series_end_lines() {
        let t = table();
        let day = d("2026-08-22");
        let a = assess(&facts("4.4.194-rk322x", Some("Rockchip RK3229")), &t, day);
        assert_eq!(a.series_end.map(|e| e.last), Some("4.4.302"));
        assert_eq!(a.bsp.map(|b| b.vendor), Some(Vendor::Rockchip));
        // 4.9 is still listed by endoflife.date: its own line is not needed.
        let a = assess(&facts("4.9.253-tegra", Some("Nvidia Jetson Nano")), &t, day);
        assert_eq!(a.series_end, None);
        assert_eq!(a.bsp.map(|b| b.vendor), Some(Vendor::Nvidia));
        let without_49 = ReleaseTable {
            cycles: t
                .cycles
                .iter()
                .filter(|c| c.series != KernelSeries { major: 4, minor: 9 })
                .cloned()
                .collect(),
            ..t.clone()
        };
        let a = assess(&facts("4.9.253-tegra", None), &without_49, day);
        assert_eq!(a.series_end.map(|e| e.eol), Some("2023-01-07"));
    }

    #[test]
    fn older_api_layout_and_broken_tables() {
        let v0 = r#"[
            {"cycle":"6.12","releaseDate":"2024-11-17","eol":"2026-12-31","latest":"6.12.10","latestReleaseDate":"2025-01-17","lts":true},
            {"cycle":"6.6","releaseDate":"2023-10-30","eol":"2026-12-31","latest":"6.6.72","latestReleaseDate":"2025-01-17","lts":true},
            {"cycle":"6.13","releaseDate":"2025-01-19","eol":false,"latest":"6.13","latestReleaseDate":"2025-01-19","lts":false},
            {"cycle":"6.11","releaseDate":"2024-09-15","eol":true,"latest":"6.11.11","latestReleaseDate":"2024-12-05","lts":false}
        ]"#;
        let t = ReleaseTable::parse(v0).unwrap();
        assert_eq!(t.snapshot, d("2025-01-19"));
        assert_eq!(
            t.cycles
                .iter()
                .map(|c| c.series.to_string())
                .collect::<Vec<_>>(),
            ["6.13", "6.12", "6.11", "6.6"]
        );
        assert_eq!(t.cycles[2].eol, Eol::Ended);
        assert_eq!(t.cycles[0].eol, Eol::Open);
        assert!(matches!(ReleaseTable::parse("{"), Err(TableError::Json(_))));
        assert_eq!(ReleaseTable::parse("{}"), Err(TableError::Layout));
        assert_eq!(ReleaseTable::parse("[]"), Err(TableError::Empty));
        assert!(matches!(
            ReleaseTable::parse(r#"[{"cycle":"six","latest":"6.1.1"}]"#),
            Err(TableError::Cycle { index: 0, .. })
        ));
        assert!(matches!(
            ReleaseTable::parse(r#"[{"cycle":"6.1"}]"#),
            Err(TableError::Cycle { index: 0, .. })
        ));
    }

    // Issue 27, item 14: `--eol-data` took a date like `2026-13-45` as "no end of life".
    #[test]
    fn an_impossible_date_in_the_eol_data_is_refused() {
        let v0 = r#"[{"cycle":"6.12","releaseDate":"2024-11-17","eol":"2026-13-45","latest":"6.12.10","latestReleaseDate":"2025-01-17","lts":true}]"#;
        let e = ReleaseTable::parse(v0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "release cycle 0: eol \"2026-13-45\" is not a date (YYYY-MM-DD)"
        );
        let v1 = r#"{"generated_at":"2025-01-20","result":{"releases":[{"name":"6.12","isLts":true,"isEol":false,"releaseDate":"2024-11-17","eolFrom":"2026-02-30","latest":{"name":"6.12.10","date":"2025-01-17"}}]}}"#;
        assert!(matches!(
            ReleaseTable::parse(v1),
            Err(TableError::Cycle { index: 0, .. })
        ));
        let ok = v1.replace("2026-02-30", "2026-12-31");
        assert!(ReleaseTable::parse(&ok).is_ok());
    }
}
