//! A second look at the SoC a result log names. sbc-bench's `SoC guess:` line is a guess
//! from what the script knew when it ran; some are wrong (v0.9.42 called a Spreadtrum
//! UMS9620 board, 4×Cortex-A55 r2p0 + 4×Cortex-A76 r4p0, `Rockchip RK3588/RK3588s`: the
//! core composition is the same), while the log's own `DT compat:` lines name the chip.
//! We guess again from what the log holds, by the rules `info` uses on a live board
//! ([`crate::sys::soc::guess`]), and keep the log's guess wherever it does not contradict
//! ours: it may know more (a chip ID read from the OTP, the RK3582 bin of an RK3588).

use crate::sys::soc::{SocInputs, guess};

/// The `DT compat:` lines of a log (sbc-bench v0.9.x, `info`): the first after the
/// label, the rest indented beneath it, most specific first.
pub fn dt_compat(lines: &[String]) -> Vec<String> {
    let Some(start) = lines.iter().position(|l| l.starts_with("DT compat:")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(first) = lines[start].strip_prefix("DT compat:") {
        let first = first.trim();
        if !first.is_empty() {
            out.push(first.to_string());
        }
    }
    for l in &lines[start + 1..] {
        // Continuation lines are indented and hold one `vendor,model` each; the next
        // label (` Compiler:`) has a colon and ends the list.
        let t = l.trim();
        let indented = l.starts_with(' ') || l.starts_with('\t');
        if !indented || t.is_empty() || t.contains(':') || !t.contains(',') {
            break;
        }
        out.push(t.to_string());
    }
    out
}

/// The model a guess names, upper case (`Rockchip RK3588/RK3588s (35880000)` → `RK3588`).
fn model(guess: &str) -> Option<String> {
    guess
        .split(|c: char| c.is_whitespace() || "/,()".contains(c))
        .find(|w| {
            w.len() >= 4
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic())
        })
        .map(str::to_ascii_uppercase)
}

/// The SoC to believe: ours from the device tree where the log's guess is missing or
/// contradicts it (neither names the other's model and ours is another vendor's chip),
/// else the log's. `None` when neither says anything.
pub fn soc_guess(
    log_guess: Option<&str>,
    compat: &[String],
    core_types: &[String],
) -> Option<String> {
    let inputs = SocInputs {
        compatible: compat.to_vec(),
        core_types: core_types.iter().map(|t| (t.clone(), 0)).collect(),
        ..Default::default()
    };
    // Only with a device tree: a guess from the core types alone is the kind of guess
    // that was wrong.
    let ours = (!compat.is_empty()).then(|| guess(&inputs).guess).flatten();
    let Some(ours) = ours else {
        return log_guess.map(str::to_string);
    };
    let Some(theirs) = log_guess else {
        return Some(ours);
    };
    let upper = |s: &str| s.to_ascii_uppercase();
    let names = |guess: &str, other: &str| model(other).is_some_and(|m| upper(guess).contains(&m));
    let vendor = ours.split_whitespace().next().unwrap_or_default();
    let same_vendor = !vendor.is_empty() && upper(theirs).contains(&upper(vendor));
    if names(theirs, &ours) || names(&ours, theirs) || same_vendor {
        Some(theirs.to_string())
    } else {
        Some(ours)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    /// Corpus log 4yFl.txt (sbc-bench v0.9.42 on a Spreadtrum UMS9620 board): `SoC
    /// guess: Rockchip RK3588/RK3588s` beside `DT compat: sprd,ums9620`.
    #[test]
    fn ums9620_guessed_as_rk3588_is_guessed_again_from_its_dt_compat() {
        let log = lines(
            "SoC guess: Rockchip RK3588/RK3588s\nDT compat: sprd,ums9620\n Compiler: /usr/bin/gcc (Ubuntu/Linaro 7.5.0-3ubuntu1~18.04) 7.5.0 / aarch64-linux-gnu\n",
        );
        let compat = dt_compat(&log);
        assert_eq!(compat, ["sprd,ums9620"]);
        let types = ["Cortex-A55".to_string(), "Cortex-A76".to_string()];
        assert_eq!(
            soc_guess(Some("Rockchip RK3588/RK3588s"), &compat, &types).as_deref(),
            Some("Unisoc UMS9620")
        );
    }

    /// The log's guess stays where it agrees with the device tree or knows more: a chip
    /// ID (corpus: `Rockchip RK3588 (35880000)`), the RK3582 bin of an `rockchip,rk3588`
    /// tree, a Raspberry Pi guess without a vendor name.
    #[test]
    fn a_guess_the_device_tree_does_not_contradict_is_kept() {
        let rk = lines("DT compat: turing,rk1\n           rockchip,rk3588\n Compiler: gcc\n");
        let compat = dt_compat(&rk);
        assert_eq!(compat, ["turing,rk1", "rockchip,rk3588"]);
        for kept in [
            "Rockchip RK3588 (35880000)",
            "Rockchip RK3582 (35821000 / 35 82 12 fe 21 41  32 47 41 31 00 00 00 00)",
            "Rockchip RK3588s (35880000 / 35 88 12 fe 33 41  32 38 4b 44 00 00 00 00)",
        ] {
            assert_eq!(soc_guess(Some(kept), &compat, &[]).as_deref(), Some(kept));
        }
        let pi = dt_compat(&lines(
            "DT compat: raspberrypi,5-model-b\n           brcm,bcm2712\n",
        ));
        assert_eq!(
            soc_guess(Some("BCM2712"), &pi, &[]).as_deref(),
            Some("BCM2712")
        );
        // No guess in the log: the device tree's.
        assert_eq!(
            soc_guess(None, &compat, &[]).as_deref(),
            Some("Rockchip RK3588/RK3588S")
        );
        // Nothing to guess from: the log's guess as it was.
        assert_eq!(
            soc_guess(Some("Allwinner H3/H2+"), &[], &[]).as_deref(),
            Some("Allwinner H3/H2+")
        );
        assert_eq!(soc_guess(None, &[], &[]), None);
    }
}
