//! Review mode's before/after comparison, pure: the lines describing PCIe links, storage
//! devices, USB speeds and NIC link states when the review began, against the same lines
//! when it stopped, as a `diff` of the two (sbc-bench pipes `CheckPCIe` and `CheckStorage`
//! through `diff`, whose normal format this keeps: `2c2`, `< old`, `---`, `> new`); and
//! the kernel messages since the review's mark, minus what sbc-bench knows as noise.

pub use crate::record::mode::review::{Changed, Noise};

impl Changed {
    /// From the two diffs; `None` when nothing changed.
    pub fn of(pcie_diff: &[String], storage_diff: &[String]) -> Option<Self> {
        match (pcie_diff.is_empty(), storage_diff.is_empty()) {
            (false, false) => Some(Changed::PcieAndStorage),
            (true, false) => Some(Changed::Storage),
            (false, true) => Some(Changed::Pcie),
            (true, true) => None,
        }
    }

    /// sbc-bench's wording after `ATTENTION:`.
    pub fn heading(self) -> &'static str {
        match self {
            Changed::PcieAndStorage => "status of PCIe and storage devices has changed:",
            Changed::Storage => "status of storage devices has changed:",
            Changed::Pcie => "status of PCIe devices has changed:",
        }
    }
}

/// `diff`'s normal output between two lists of lines (empty when equal), from a longest
/// common subsequence.
pub fn diff(before: &[String], after: &[String]) -> Vec<String> {
    let (n, m) = (before.len(), after.len());
    // lcs[i][j]: length of the LCS of before[i..] and after[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if before[i] == after[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && before[i] == after[j] {
            i += 1;
            j += 1;
            continue;
        }
        // A hunk: every line removed or added until the next common one.
        let (i0, j0) = (i, j);
        while (i < n || j < m) && !(i < n && j < m && before[i] == after[j]) {
            if j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
                i += 1;
            } else {
                j += 1;
            }
        }
        hunk(&mut out, before, after, (i0, i), (j0, j));
    }
    out
}

/// `a,b` or `a` (1-based) as diff names a range.
fn range(from: usize, to: usize) -> String {
    if to - from <= 1 {
        format!("{}", from + 1)
    } else {
        format!("{},{}", from + 1, to)
    }
}

fn hunk(
    out: &mut Vec<String>,
    before: &[String],
    after: &[String],
    (i0, i1): (usize, usize),
    (j0, j1): (usize, usize),
) {
    let head = match (i1 > i0, j1 > j0) {
        (true, true) => format!("{}c{}", range(i0, i1), range(j0, j1)),
        (true, false) => format!("{}d{}", range(i0, i1), j0),
        (false, true) => format!("{}a{}", i0, range(j0, j1)),
        (false, false) => return,
    };
    out.push(head);
    out.extend(before[i0..i1].iter().map(|l| format!("< {l}")));
    if i1 > i0 && j1 > j0 {
        out.push("---".to_string());
    }
    out.extend(after[j0..j1].iter().map(|l| format!("> {l}")));
}

/// A storage line as compared: sbc-bench cuts `, drive temp: …` off, so a drive that
/// warmed up is no change (only an unhealthy temperature, worded elsewhere, is).
pub fn without_drive_temp(line: &str) -> &str {
    line.split_once(", drive temp: ").map_or(line, |(a, _)| a)
}

/// The message review mode writes to the kernel log where the waiting phase begins.
pub const MARK: &str = "sbc-bench review mode started";

/// Kernel messages sbc-bench does not count as noise: its own mark, executables with an
/// executable stack, firewall log lines, EDID chatter of a monitor.
pub fn is_known_noise(message: &str) -> bool {
    [MARK, "started with executable stack", "UFW BLOCK", " EDID "]
        .iter()
        .any(|n| message.contains(n))
}

impl Noise {
    /// sbc-bench: more than 20 lines is "lots", more than one "some".
    pub fn of(messages: usize) -> Option<Self> {
        match messages {
            n if n > 20 => Some(Noise::Lots),
            n if n > 1 => Some(Noise::Some),
            _ => None,
        }
    }

    /// The sentence after `ATTENTION:`.
    pub fn sentence(self) -> &'static str {
        match self {
            Noise::Lots => "lots of noise in kernel ring buffer since start of monitoring:",
            Noise::Some => "some noise in kernel ring buffer since start of monitoring:",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn equal_lists_have_no_diff() {
        let a = v(&["x", "y"]);
        assert!(diff(&a, &a).is_empty());
        assert!(diff(&[], &[]).is_empty());
    }

    #[test]
    fn a_downgraded_link_is_a_change_in_diff_format() {
        let before = v(&[
            "  * 1b21:1164: Speed 8GT/s (ok), Width x2 (ok)",
            "  * 10ec:8125: Speed 5GT/s (ok), Width x1 (ok)",
        ]);
        let after = v(&[
            "  * 1b21:1164: Speed 8GT/s (ok), Width x1 (downgraded)",
            "  * 10ec:8125: Speed 5GT/s (ok), Width x1 (ok)",
        ]);
        assert_eq!(
            diff(&before, &after),
            v(&[
                "1c1",
                "<   * 1b21:1164: Speed 8GT/s (ok), Width x2 (ok)",
                "---",
                ">   * 1b21:1164: Speed 8GT/s (ok), Width x1 (downgraded)",
            ])
        );
    }

    #[test]
    fn a_vanished_and_an_added_device() {
        assert_eq!(
            diff(&v(&["a", "b", "c"]), &v(&["a", "c"])),
            v(&["2d1", "< b"])
        );
        assert_eq!(
            diff(&v(&["a"]), &v(&["a", "b", "c"])),
            v(&["1a2,3", "> b", "> c"])
        );
    }

    #[test]
    fn headings_as_sbc_bench() {
        let some = v(&["1c1"]);
        assert_eq!(
            Changed::of(&some, &some).map(Changed::heading),
            Some("status of PCIe and storage devices has changed:")
        );
        assert_eq!(Changed::of(&[], &some), Some(Changed::Storage));
        assert_eq!(Changed::of(&some, &[]), Some(Changed::Pcie));
        assert_eq!(Changed::of(&[], &[]), None);
    }

    #[test]
    fn drive_temperature_is_no_change() {
        assert_eq!(
            without_drive_temp("  * 111.8GB SSD as /dev/sda: Driver=uas, drive temp: 24°C"),
            "  * 111.8GB SSD as /dev/sda: Driver=uas"
        );
        assert_eq!(without_drive_temp("x"), "x");
    }

    #[test]
    fn noise_levels_and_known_noise() {
        assert_eq!(Noise::of(0), None);
        assert_eq!(Noise::of(1), None);
        assert_eq!(Noise::of(2), Some(Noise::Some));
        assert_eq!(Noise::of(21), Some(Noise::Lots));
        assert!(is_known_noise("[UFW BLOCK] IN=eth0"));
        assert!(is_known_noise(MARK));
        assert!(!is_known_noise(
            "nvme nvme0: I/O 12 QID 3 timeout, aborting"
        ));
    }
}
