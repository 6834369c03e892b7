//! Redaction of shareable outputs (the Markdown review today; HTML, `share` and exports as
//! they come), as inxi `-z` does: what identifies a machine or a person is replaced, what
//! describes the hardware stays. The local log and JSON keep everything. Every rule is
//! listed, with an example, in `docs/PRIVACY.md`.

use std::sync::LazyLock;

use regex_lite::{Captures, Regex};

/// What the text being redacted knows it contains (read from the run), so these are
/// removed wherever they appear, in any wording.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// `/etc/hostname`.
    pub hostname: Option<String>,
    /// Names of the hardware that the hardware itself states — the device tree (`model`,
    /// `compatible`) or DMI — never a name derived from the hostname: a hostname that is
    /// one of them (`rock-5b` on Armbian) provably names the board, not the machine, and
    /// stays. (On a machine without DMI the device name *is* the hostname: it is not
    /// listed here, so the hostname is redacted.)
    pub hardware: Vec<String>,
}

/// One rule: its name (as in docs/PRIVACY.md) and what it does to the text.
struct Rule {
    name: &'static str,
    apply: fn(&str) -> String,
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this file, tested below: a bad one fails every test.
    #[allow(clippy::expect_used)]
    Regex::new(pattern).expect("redaction pattern")
}

static MAC: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b|\b[0-9a-f]{2}(?:-[0-9a-f]{2}){5}\b")
});
static IPV4: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b"));
static IPV6: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7}\b|(?:\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})?::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6}\b)?)",
    )
});
static SERIAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?im)^(\s*(?:[*-]\s+)?(?:Serial(?:[ _]?Number)?|serial|UUID|Product UUID|Chassis Serial|Board Serial|Unique ID|CID)\s*[:=]\s*)\S.*$",
    )
});
// A serial number handed over on the kernel command line: the Raspberry Pi firmware's
// `bcm2709.serial=0x…`, Android bootloaders' `androidboot.serialno=…`.
static CMDLINE_SERIAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(\b[\w.-]*serial(?:no|_?number)?=)[^\s<]+"));
static CHIP_ID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b([0-9a-f]{2} [0-9a-f]{2})((?: +[0-9a-f]{2}){4,})\b"));
static HOME: LazyLock<Regex> = LazyLock::new(|| re(r"/home/[^/\s]+"));
// A partition's or filesystem's UUID on the kernel command line or in fstab
// (`root=PARTUUID=2a7e…-02`, `UUID=ABCD-1234`): it identifies one SD card.
static PARTUUID: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)\b((?:PART)?UUID="?)[0-9a-f][0-9a-f-]{6,}[0-9a-f]\b"#));
// The hostname a log states itself: sysstat's header line `Linux 6.1.0 (host) 11/10/25
// _aarch64_ (8 CPU)` (iostat, mpstat), and hostnamectl's `Static hostname: host`.
static LOG_HOSTNAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^Linux \S+ \(([^()\s]+)\)[ \t]|^\s*Static hostname:\s*(\S+)\s*$"));

fn is_ipv4(c: &Captures<'_>) -> bool {
    (1..=4).all(|i| c[i].parse::<u16>().is_ok_and(|o| o <= 255))
}

const RULES: &[Rule] = &[
    Rule {
        name: "mac",
        apply: |t| MAC.replace_all(t, "<mac>").into_owned(),
    },
    Rule {
        name: "ipv4",
        apply: |t| {
            IPV4.replace_all(t, |c: &Captures<'_>| {
                if is_ipv4(c) {
                    "<ip>".to_string()
                } else {
                    c[0].to_string()
                }
            })
            .into_owned()
        },
    },
    Rule {
        name: "ipv6",
        apply: |t| {
            IPV6.replace_all(t, |c: &Captures<'_>| {
                let m = &c[0];
                // A time of day (`14:55:09`) or a lone `::` is not an address.
                let groups = m.split(':').filter(|g| !g.is_empty()).count();
                if (m.contains("::") && groups >= 1) || groups == 8 {
                    "<ip>".to_string()
                } else {
                    m.to_string()
                }
            })
            .into_owned()
        },
    },
    Rule {
        name: "serial",
        apply: |t| SERIAL.replace_all(t, "${1}<serial>").into_owned(),
    },
    Rule {
        name: "cmdline-serial",
        apply: |t| CMDLINE_SERIAL.replace_all(t, "${1}<serial>").into_owned(),
    },
    Rule {
        name: "chip-id",
        apply: |t| CHIP_ID.replace_all(t, "${1} …").into_owned(),
    },
    Rule {
        name: "home",
        apply: |t| HOME.replace_all(t, "~").into_owned(),
    },
    Rule {
        name: "partuuid",
        apply: |t| PARTUUID.replace_all(t, "${1}<uuid>").into_owned(),
    },
];

/// Every hostname `text` states itself (a log from another machine names that machine's
/// in its sysstat header), each once.
pub fn stated_hostnames(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in LOG_HOSTNAME.captures_iter(text) {
        if let Some(h) = c.get(1).or_else(|| c.get(2)) {
            let h = h.as_str().to_string();
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    out
}

/// Does `host` provably name the board: one of the names the hardware states?
fn names_the_board(host: &str, known: &Known) -> bool {
    let h = host.to_ascii_lowercase();
    known
        .hardware
        .iter()
        .any(|w| w.to_ascii_lowercase().contains(&h))
}

/// `host` replaced by `<hostname>` wherever it appears as a whole word.
fn redact_host(text: &str, host: &str, known: &Known) -> String {
    let h = host.trim();
    // A one- or two-letter hostname would eat ordinary words; such names identify
    // nothing anyway.
    if h.len() < 3 || names_the_board(h, known) {
        return text.to_string();
    }
    let word = re(&format!(r"(?i)\b{}\b", regex_lite::escape(h)));
    word.replace_all(text, "<hostname>").into_owned()
}

/// The names of the rules, in the order they apply (docs/PRIVACY.md lists each).
pub fn rule_names() -> Vec<&'static str> {
    let mut v = vec!["hostname", "log-hostname"];
    v.extend(RULES.iter().map(|r| r.name));
    v
}

/// Redact `text`: the known hostname and every hostname the text states itself first,
/// then every pattern rule.
pub fn redact(text: &str, known: &Known) -> String {
    let mut t = text.to_string();
    if let Some(h) = known.hostname.as_deref() {
        t = redact_host(&t, h, known);
    }
    for h in stated_hostnames(text) {
        t = redact_host(&t, &h, known);
    }
    for r in RULES {
        t = (r.apply)(&t);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(t: &str) -> String {
        redact(t, &Known::default())
    }

    #[test]
    fn hostname_is_replaced_wherever_it_appears() {
        let k = Known {
            hostname: Some("mini-localhost\n".into()),
            ..Known::default()
        };
        assert_eq!(
            redact(
                "Linux 6.6.10 (mini-localhost) 11/10/25, user@mini-localhost",
                &k
            ),
            "Linux 6.6.10 (<hostname>) 11/10/25, user@<hostname>"
        );
        let short = Known {
            hostname: Some("pi".into()),
            ..Known::default()
        };
        assert_eq!(redact("Raspberry pi 4", &short), "Raspberry pi 4");
    }

    /// regex-lite's word boundary is ASCII: a hostname beside a non-ASCII letter counts as a
    /// word of its own and is redacted (with `regex`'s Unicode boundary it stayed).
    #[test]
    fn a_hostname_beside_a_non_ascii_letter_is_redacted() {
        let k = Known {
            hostname: Some("nas-keller".into()),
            ..Known::default()
        };
        assert_eq!(redact("Grüßnas-kellerö", &k), "Grüß<hostname>ö");
    }

    #[test]
    fn a_hostname_that_names_the_board_stays() {
        let k = Known {
            hostname: Some("rock-5b".into()),
            hardware: vec!["radxa,rock-5b".into(), "Radxa ROCK 5B".into()],
        };
        assert_eq!(
            redact("DT compat: radxa,rock-5b", &k),
            "DT compat: radxa,rock-5b"
        );
    }

    /// Issue 28: the redacted kernel command line kept the filesystem UUIDs
    /// (`root=UUID=…`), which name one machine's disks (the `partuuid` rule, issue 27).
    #[test]
    fn filesystem_uuids_on_the_kernel_command_line_are_replaced() {
        assert_eq!(
            r(
                "Kernel cmdline: root=UUID=3f1c2a9e-5b7d-4e21-9c3a-0d8f6b2e7a11 rootwait console=ttyS2,1500000 resume=UUID=1234-ABCD"
            ),
            "Kernel cmdline: root=UUID=<uuid> rootwait console=ttyS2,1500000 resume=UUID=<uuid>"
        );
        assert_eq!(r("root=PARTUUID=6c586e13-02 ro"), "root=PARTUUID=<uuid> ro");
        // What is not a UUID stays.
        assert_eq!(
            r("root=/dev/mmcblk0p2 rootfstype=ext4"),
            "root=/dev/mmcblk0p2 rootfstype=ext4"
        );
    }

    // Issue 27, item 9: on a machine without DMI the device name is the hostname; the
    // exemption "a hostname that names the board" kept it in every shared output. Only
    // what the hardware states (device tree, DMI) proves that.
    #[test]
    fn a_hostname_that_is_only_the_derived_device_name_is_redacted() {
        let k = Known {
            hostname: Some("mini-localhost".into()),
            hardware: Vec::new(),
        };
        assert_eq!(
            redact("# mini-localhost\n| Hostname | mini-localhost |", &k),
            "# <hostname>\n| Hostname | <hostname> |"
        );
    }

    #[test]
    fn partuuids_on_the_command_line_are_replaced() {
        assert_eq!(
            r(
                "root=PARTUUID=2a7e3b1c-02 rootfstype=ext4 resume=UUID=0f3a9b2e-5c1d-4e6f-8a7b-9c0d1e2f3a4b"
            ),
            "root=PARTUUID=<uuid> rootfstype=ext4 resume=UUID=<uuid>"
        );
        assert_eq!(
            r("/dev/mmcblk0p1: UUID=\"ABCD-1234\" TYPE=\"vfat\""),
            "/dev/mmcblk0p1: UUID=\"<uuid>\" TYPE=\"vfat\""
        );
        assert_eq!(r("PARTUUID=ok"), "PARTUUID=ok", "not a UUID");
    }

    // Issue 27, item 9: a log shared from another machine kept that machine's hostname
    // in its `Linux … (HOSTNAME)` line: the hostnames a log states are redacted too.
    #[test]
    fn the_hostname_a_log_states_is_redacted_wherever_it_appears() {
        let log = "Linux 6.6.10-cix (orion-o6) \t11/10/25 \t_aarch64_\t(12 CPU)\n\
                   user@orion-o6:~$ uptime\n";
        let out = redact(log, &Known::default());
        assert!(!out.contains("orion-o6"), "{out}");
        assert!(out.starts_with("Linux 6.6.10-cix (<hostname>) "), "{out}");
        assert_eq!(
            stated_hostnames("  Static hostname: pi-kitchen\n"),
            ["pi-kitchen"]
        );
        // …unless the hardware states it (Armbian's `rock-5b`).
        let k = Known {
            hostname: None,
            hardware: vec!["radxa,rock-5b".into()],
        };
        let log = "Linux 6.1.0 (rock-5b) \t01/02/25 \t_aarch64_\t(8 CPU)\n";
        assert_eq!(redact(log, &k), log);
    }

    #[test]
    fn mac_addresses_are_replaced() {
        assert_eq!(
            r("eth0 link/ether 2e:1a:c3:4f:00:9b brd"),
            "eth0 link/ether <mac> brd"
        );
        assert_eq!(r("MAC 2E-1A-C3-4F-00-9B"), "MAC <mac>");
    }

    #[test]
    fn ip_addresses_are_replaced_but_versions_and_times_are_not() {
        assert_eq!(r("inet 192.168.1.23/24"), "inet <ip>/24");
        assert_eq!(
            r("kernel 5.10.160 at 14:55:09"),
            "kernel 5.10.160 at 14:55:09"
        );
        assert_eq!(r("999.1.1.1 stays"), "999.1.1.1 stays");
        assert_eq!(r("inet6 fe80::1c2a:3bff:fe4f:9b/64"), "inet6 <ip>/64");
        assert_eq!(r("2001:0db8:85a3:0000:0000:8a2e:0370:7334"), "<ip>");
    }

    #[test]
    fn serial_numbers_and_uuids_are_replaced() {
        assert_eq!(r("Serial\t\t: 10000000a1b2c3d4"), "Serial\t\t: <serial>");
        assert_eq!(
            r("  * Serial Number: S4EVNF0M123456"),
            "  * Serial Number: <serial>"
        );
        assert_eq!(r("\tUUID: 4c4c4544-0031"), "\tUUID: <serial>");
        assert_eq!(r("serial_number=ABC"), "serial_number=<serial>");
    }

    #[test]
    fn serials_on_the_kernel_command_line_are_replaced() {
        assert_eq!(
            r("console=tty1 bcm2709.serial=0xa1b2c3d4 androidboot.serialno=R58M1234 quiet"),
            "console=tty1 bcm2709.serial=<serial> androidboot.serialno=<serial> quiet"
        );
        // A switch that only names serial consoles is no serial number.
        assert_eq!(
            r("plymouth.ignore-serial-consoles console=ttyS0,115200"),
            "plymouth.ignore-serial-consoles console=ttyS0,115200"
        );
    }

    #[test]
    fn chip_id_keeps_the_chip_type_bytes() {
        assert_eq!(
            r("Rockchip RK3588 / 35 88 12 fe 21 41  32 38 4b 44 00 00 00 00"),
            "Rockchip RK3588 / 35 88 …"
        );
        assert_eq!(r("35 88 only"), "35 88 only");
    }

    #[test]
    fn home_paths_lose_the_user_name() {
        assert_eq!(r("/home/alice/sbc-bench.log"), "~/sbc-bench.log");
    }

    #[test]
    fn every_rule_is_in_privacy_md() {
        let doc = include_str!("../../docs/PRIVACY.md");
        for name in rule_names() {
            assert!(
                doc.contains(&format!("`{name}`")),
                "{name} missing from PRIVACY.md"
            );
        }
    }
}
