//! [`Finding`]s: a stable code, a severity and a sentence. The codes are an enum (logic
//! matches on variants, never on strings) serialised as the kebab-case strings that JSON
//! consumers already read (`docs/NET.md` lists the network ones).

use serde::{Deserialize, Serialize};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A check passed (sbc-bench lists these too: "No swapping").
    Ok,
    /// Worth knowing, does not affect the numbers.
    Info,
    /// The numbers may be affected; read the sentence.
    Warning,
    /// The numbers cannot be trusted (throttling, swapping, background activity).
    Invalid,
}

impl Severity {
    /// One word for text output (`[warning] …`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Invalid => "error",
        }
    }
}

/// One table: variant, serialised code, meaning. The macro keeps the two spellings in
/// one place so they cannot drift apart.
macro_rules! finding_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal,)*) => {
        /// Stable machine code of a finding.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum FindingCode {
            $($(#[doc = $doc])* #[serde(rename = $code)] $variant,)*
        }

        impl FindingCode {
            /// Every code, in table order.
            pub const ALL: &'static [FindingCode] = &[$(FindingCode::$variant,)*];

            /// The code as JSON and text output spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(FindingCode::$variant => $code,)*
                }
            }

            /// What the code means in general (its line in this table).
            pub fn meaning(self) -> &'static str {
                match self {
                    $(FindingCode::$variant => concat!($($doc, " ",)*).trim_ascii(),)*
                }
            }
        }
    };
}

finding_codes! {
    /// 7-Zip is missing or not 16.02, the version the published table used.
    SevenZipVersion = "7zip-version",
    /// Other processes used CPU time while a benchmark ran.
    BackgroundOther = "background-other",
    /// High %sys during a benchmark phase (kernel work, not ours).
    BackgroundSys = "background-sys",
    /// A phase too short (`--quick`) for its %sys to be judged.
    BackgroundSysNotJudged = "background-sys-not-judged",
    /// %sys stayed low during the benchmarks.
    BackgroundSysOk = "background-sys-ok",
    /// A step of the run failed; its results are missing.
    BenchmarkFailed = "benchmark-failed",
    /// Measured clocks match the advertised cpufreq OPPs.
    ClockAsAdvertised = "clock-as-advertised",
    /// A measured clock is below the advertised one: a note within 10 % (OPP rounding),
    /// a warning from 10 % on (sbc-bench's threshold).
    ClockBelowAdvertised = "clock-below-advertised",
    /// Clocks measured again at the end were lower than before.
    ClockDroppedUnderLoad = "clock-dropped-under-load",
    /// CPUs went offline during the run.
    CpusOfflined = "cpus-offlined",
    /// The kernel log gained errors or warnings during the run.
    KernelErrors = "kernel-errors",
    /// Throughput reached the negotiated link speed.
    NetAtLineRate = "net-at-line-rate",
    /// Other load on this machine during the network test.
    NetBackgroundLoad = "net-background-load",
    /// A core was saturated during the network test.
    NetCpuBoundCore = "net-cpu-bound-core",
    /// The interface negotiated half duplex.
    NetHalfDuplex = "net-half-duplex",
    /// The NIC's interrupt core was saturated.
    NetIrqBoundCore = "net-irq-bound-core",
    /// All of the NIC's interrupt lines are served by one core.
    NetIrqsOneCore = "net-irqs-one-core",
    /// The link negotiated below what both ends support.
    NetLinkDowngraded = "net-link-downgraded",
    /// The peer is this machine: the NIC was not tested.
    NetLoopback = "net-loopback",
    /// Cores ran below their maximum clock during the test.
    NetLowClocks = "net-low-clocks",
    /// TCP retransmitted segments during the test.
    NetRetransmits = "net-retransmits",
    /// The interface dropped received packets during the test.
    NetRxDrops = "net-rx-drops",
    /// A stream thread ran on the NIC's interrupt core.
    NetThreadSharesIrqCore = "net-thread-shares-irq-core",
    /// No swapping during the run.
    NoSwapping = "no-swapping",
    /// No throttling during the run.
    NoThrottling = "no-throttling",
    /// The OOM killer ran during the run.
    OomKiller = "oom-killer",
    /// Raspberry Pi firmware reported throttling during the run.
    PiThrottledDuringRun = "pi-throttled-during-run",
    /// Raspberry Pi firmware reports throttling or under-voltage now.
    PiThrottledNow = "pi-throttled-now",
    /// Raspberry Pi firmware reported throttling since boot.
    PiThrottledSinceBoot = "pi-throttled-since-boot",
    /// A tuned setting could not be restored.
    RestoreFailed = "restore-failed",
    /// Other load during the storage benchmark.
    StorageBackgroundLoad = "storage-background-load",
    /// The SD card looks counterfeit (capacity or IDs).
    StorageCounterfeitCard = "storage-counterfeit-card",
    /// A core was saturated during the storage benchmark.
    StorageCpuBound = "storage-cpu-bound",
    /// SMART health data reports a problem.
    StorageDriveHealth = "storage-drive-health",
    /// The eMMC reports wear beyond its life estimate.
    StorageEmmcWorn = "storage-emmc-worn",
    /// The tested path is on a FUSE filesystem.
    StorageFuseFilesystem = "storage-fuse-filesystem",
    /// The cpufreq governor kept clocks low during I/O.
    StorageGovernorLowClock = "storage-governor-low-clock",
    /// Throughput is limited by the disk's link.
    StorageLinkBound = "storage-link-bound",
    /// Results came from the page cache (no O_DIRECT).
    StoragePageCache = "storage-page-cache",
    /// The NVMe's PCIe link trained below its capability.
    StoragePcieDowngraded = "storage-pcie-downgraded",
    /// The tested path is in RAM (tmpfs, ramfs, devtmpfs).
    StorageRamFilesystem = "storage-ram-filesystem",
    /// The SATA link negotiated below its capability.
    StorageSataDowngraded = "storage-sata-downgraded",
    /// The SD card runs without a UHS bus mode.
    StorageSdNoUhs = "storage-sd-no-uhs",
    /// The USB disk runs below the speed it supports.
    StorageUsbDowngraded = "storage-usb-downgraded",
    /// The USB disk uses usb-storage, not UAS.
    StorageUsbNoUas = "storage-usb-no-uas",
    /// The USB disk shares a hub with other devices.
    StorageUsbSharedHub = "storage-usb-shared-hub",
    /// Swap lives on an SD card.
    SwapOnSdCard = "swap-on-sd-card",
    /// The system swapped during the run.
    Swapping = "swapping",
    /// The system swapped to zram during the run.
    SwappingZram = "swapping-zram",
    /// cpufreq time-in-state shows throttling during the run.
    Throttling = "throttling",
    /// zswap is enabled on top of zram.
    ZswapOnZram = "zswap-on-zram",
    /// A `--quick` run: shortened benchmarks, comparable with no full run.
    QuickRun = "quick-run",
    /// Throttling could not be judged: no cpufreq, or no `stats/time_in_state`, and no
    /// other source (Raspberry Pi firmware) to ask.
    ThrottlingNotJudged = "throttling-not-judged",
    /// CPUs were killed (hot-unplugged) during the run and came back before its end.
    CpusKilledMidRun = "cpus-killed-mid-run",
    /// A PCIe link trained below the device's speed or width (`(downgraded)`).
    PcieLinkDowngraded = "pcie-link-downgraded",
    /// A PCIe function's MaxPayload is below what it and its ports support.
    PcieMaxPayloadBelowCapability = "pcie-max-payload-below-capability",
    /// A PCIe function's MaxReadReq is below the payload its path supports.
    PcieMaxReadReqBelowPayload = "pcie-max-read-req-below-payload",
    /// One core serves every interrupt of a fast NIC and RPS hands nothing on.
    IrqNicOneCore = "irq-nic-one-core",
    /// A cpufreq governor that keeps clocks low while the CPU waits for I/O.
    GovernorCpufreqIo = "governor-cpufreq-io",
    /// A DRAM controller (dmc) devfreq governor that clocks memory down under I/O.
    GovernorDmcIo = "governor-dmc-io",
    /// `-M`: AES-256 on a cluster ran slower after minutes of all-core load than before.
    AesSlowerAfterLoad = "aes-slower-after-load",
    /// A big.LITTLE device tree without `capacity-dmips-mhz` on every CPU node.
    CapacityDmipsMhzMissing = "capacity-dmips-mhz-missing",
    /// `schedutil` without (or with a partial) energy model in the device tree.
    EnergyModelMissing = "energy-model-missing",
    /// Intel RAPL power capping present (it may limit clocks under load).
    PowercapPresent = "powercap-present",
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for FindingCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One diagnosis: a stable machine code, a severity and a sentence for humans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier (`throttling`, `clock-below-advertised`, `net-irq-bound-core`…).
    pub code: FindingCode,
    /// How much it matters.
    pub severity: Severity,
    /// The sentence shown to the user.
    pub message: String,
}

impl Finding {
    /// Build a finding.
    pub fn new(code: FindingCode, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            code,
            severity,
            message: message.into(),
        }
    }

    /// A passed check.
    pub fn ok(code: FindingCode, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Ok, message)
    }
}

/// Do these findings say the results cannot be trusted?
pub fn any_invalid(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_the_strings_json_consumers_read() {
        for c in FindingCode::ALL {
            let json = serde_json::to_string(c).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
            let back: FindingCode = serde_json::from_str(&json).unwrap_or(FindingCode::Throttling);
            assert_eq!(back, *c);
        }
        assert_eq!(FindingCode::SevenZipVersion.as_str(), "7zip-version");
        assert_eq!(FindingCode::ALL.len(), 64);
    }

    #[test]
    fn codes_are_kebab_case_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for c in FindingCode::ALL {
            let s = c.as_str();
            assert!(
                s.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                "{s}"
            );
            assert!(seen.insert(s), "duplicate {s}");
        }
    }
}
