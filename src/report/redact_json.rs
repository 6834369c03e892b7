//! `-z/--redact` for the JSON documents (inxi's convention; issue 29, item 7): `info
//! --json`, `storage --json`, `run --json` and the other modes' JSON carry the hostname,
//! serial numbers, the full chip ID and MAC addresses, and they are what people paste into
//! forum threads. Every string goes through the rules of [`crate::report::redact`]
//! (docs/PRIVACY.md) — the same as the Markdown review — and the values of keys that are
//! identifiers by name (`serial`, `uuid`…) become `<serial>`, since no text rule can see
//! a bare value's meaning. The rules themselves stay in `redact.rs`.

use serde_json::Value;

use crate::report::redact::{self, Known};
use crate::sys::discover::SystemInfo;

/// Keys whose string values identify one machine whatever they look like.
const IDENTIFIER_KEYS: &[&str] = &[
    "serial",
    "serial_number",
    "serialno",
    "uuid",
    "product_uuid",
    "board_serial",
    "chassis_serial",
    "machine_id",
    "cid",
    "wwn",
    "eui64",
    "nguid",
];

/// Redact every string of `v` in place.
pub fn redact_json(v: &mut Value, known: &Known) {
    match v {
        Value::String(t) => *t = redact::redact(t, known),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_json(x, known)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                let key = k.to_ascii_lowercase();
                match x {
                    Value::String(s)
                        if IDENTIFIER_KEYS.contains(&key.as_str()) && !s.is_empty() =>
                    {
                        *s = "<serial>".to_string();
                    }
                    _ => redact_json(x, known),
                }
            }
        }
        _ => {}
    }
}

/// `v` serialised, redacted, pretty-printed with a final newline.
pub fn redacted_pretty<T: serde::Serialize>(v: &T, known: &Known) -> serde_json::Result<String> {
    let mut value = serde_json::to_value(v)?;
    redact_json(&mut value, known);
    let mut s = serde_json::to_string_pretty(&value)?;
    s.push('\n');
    Ok(s)
}

/// What a machine's description knows it contains: its hostname and the hardware's names
/// (a hostname that names the board, `rock-5b` on Armbian, stays).
pub fn known_of_info(i: &SystemInfo) -> Known {
    let mut hardware = i.dt_compatible.clone();
    hardware.extend(i.device.name.clone());
    Known {
        hostname: i.hostname.clone(),
        hardware,
    }
}

/// The console's word on a document that keeps identifiers, for a terminal only.
pub const HINT: &str = "note: this output carries the hostname, serial numbers, the chip ID \
and MAC addresses; -z (--redact) hides them for pasting (docs/PRIVACY.md)";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `info --json` and `run --json` carried the hostname, serials and MACs with no way
    /// to hide them (issue 29, item 7).
    #[test]
    fn json_redaction_hides_identifiers_and_keeps_the_hardware() {
        let mut v = json!({
            "hostname": "alice-desk",
            "device": {"name": "Radxa ROCK 5B", "serial": "f3a9c2d1"},
            "net": [{"name": "eth0", "mac": "8a:3b:2c:1d:0e:ff", "ipv4": "192.168.1.41"}],
            "cmdline": "console=ttyS2 bcm2709.serial=0x1234abcd root=/dev/mmcblk0p2",
            "disks": [{"model": "Samsung SSD 980", "uuid": "85d76a1a-02", "size": 1000}],
            "log": "/home/alice/sbc-bench.log on alice-desk",
        });
        let known = Known {
            hostname: Some("alice-desk".into()),
            hardware: vec!["Radxa ROCK 5B".into()],
        };
        redact_json(&mut v, &known);
        let text = v.to_string();
        for gone in [
            "alice",
            "f3a9c2d1",
            "8a:3b:2c",
            "192.168.1.41",
            "0x1234abcd",
            "85d76a1a",
        ] {
            assert!(!text.contains(gone), "{gone} left in {text}");
        }
        assert_eq!(v["device"]["name"], "Radxa ROCK 5B");
        assert_eq!(v["device"]["serial"], "<serial>");
        assert_eq!(v["disks"][0]["model"], "Samsung SSD 980");
        assert_eq!(v["disks"][0]["size"], 1000);
        assert_eq!(v["net"][0]["name"], "eth0");
    }
}
