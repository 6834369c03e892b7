//! Device-tree OPP tables: the frequency/voltage pairs the board's device tree offers for
//! CPU clusters, DRAM controller, GPU and NPU, as sbc-bench lists them near the end of its
//! log (`   cpu0-opp-table:` then `      1992 MHz   1150.0 mV`). Read from the top-level
//! nodes of `/proc/device-tree` whose name contains `opp-table` or `opp_table`, and of
//! each node only `opp-hz` and `opp-microvolt` (big-endian cells, as the kernel exposes
//! device-tree properties).

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// One OPP table of the device tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OppTable {
    /// Node name (`cpu0-opp-table`, `opp-table-0`, `dmc-opp-table`).
    pub name: String,
    /// Operating points, ascending by frequency.
    #[serde(default)]
    pub opps: Vec<Opp>,
}

/// One operating point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opp {
    /// `opp-hz` (the first clock's rate when a node lists several).
    pub hz: u64,
    /// `opp-microvolt`: the target voltage (first cell; `null` when the node has none).
    pub microvolt: Option<u32>,
}

/// Is this top-level device-tree node an OPP table?
fn is_opp_table(name: &str) -> bool {
    name.contains("opp-table") || name.contains("opp_table")
}

/// `opp-hz`: one or more 64-bit big-endian rates (two cells each); some old trees use a
/// single 32-bit cell. The first rate counts.
pub fn parse_hz(b: &[u8]) -> Option<u64> {
    match b.len() {
        4 => Some(u64::from(u32::from_be_bytes(b.try_into().ok()?))),
        n if n >= 8 && n % 8 == 0 => Some(u64::from_be_bytes(b[..8].try_into().ok()?)),
        _ => None,
    }
}

/// `opp-microvolt`: one cell (target) or three (target, min, max), per supply; the first
/// cell is the target voltage of the first supply.
pub fn parse_microvolt(b: &[u8]) -> Option<u32> {
    if b.len() < 4 || b.len() % 4 != 0 {
        return None;
    }
    Some(u32::from_be_bytes(b[..4].try_into().ok()?))
}

/// Every OPP table of the device tree, by node name; tables without a readable `opp-hz`
/// are left out. Empty without a device tree.
pub fn read(root: &SysRoot) -> Vec<OppTable> {
    let mut out = Vec::new();
    for name in root.list("/proc/device-tree") {
        if !is_opp_table(&name) {
            continue;
        }
        let dir = format!("/proc/device-tree/{name}");
        let mut opps: Vec<Opp> = root
            .list(&dir)
            .into_iter()
            .filter_map(|node| {
                let node = format!("{dir}/{node}");
                let hz = parse_hz(&root.read_bytes(format!("{node}/opp-hz")).ok()?)?;
                let microvolt = root
                    .read_bytes(format!("{node}/opp-microvolt"))
                    .ok()
                    .and_then(|b| parse_microvolt(&b));
                Some(Opp { hz, microvolt })
            })
            .filter(|o| o.hz > 0)
            .collect();
        opps.sort_by_key(|o| o.hz);
        opps.dedup_by_key(|o| o.hz);
        if !opps.is_empty() {
            out.push(OppTable { name, opps });
        }
    }
    out
}

/// The tables as sbc-bench's log prints them: the node name indented by three, then one
/// line per OPP (`      1992 MHz   1150.0 mV`), a blank line between tables. MHz are
/// rounded, as the S922X logs show its GPU's 124999998 and 285714285 Hz (`125`, `286`).
pub fn render(tables: &[OppTable]) -> String {
    let mut s = String::new();
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&format!("   {}:\n", t.name));
        for o in &t.opps {
            let mhz = (o.hz as f64 / 1e6).round() as u64;
            match o.microvolt {
                Some(uv) => s.push_str(&format!(
                    "{mhz:>10} MHz {:>8.1} mV\n",
                    f64::from(uv) / 1000.0
                )),
                None => s.push_str(&format!("{mhz:>10} MHz\n")),
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn cells() {
        assert_eq!(
            parse_hz(&1_992_000_000u64.to_be_bytes()),
            Some(1_992_000_000)
        );
        assert_eq!(parse_hz(&600_000_000u32.to_be_bytes()), Some(600_000_000));
        let mut two = 1_800_000_000u64.to_be_bytes().to_vec();
        two.extend(400_000_000u64.to_be_bytes());
        assert_eq!(parse_hz(&two), Some(1_800_000_000));
        assert_eq!(parse_hz(b"abc"), None);
        assert_eq!(parse_hz(b""), None);
        let mut three = Vec::new();
        for v in [850_000u32, 850_000, 1_150_000] {
            three.extend(v.to_be_bytes());
        }
        assert_eq!(parse_microvolt(&three), Some(850_000));
        assert_eq!(parse_microvolt(b"12345"), None);
    }

    #[test]
    fn renders_like_the_nanopi_r5s_log() {
        // Lines of corpus log 4L4u (NanoPi R5S), byte for byte.
        let t = [
            OppTable {
                name: "cpu0-opp-table".into(),
                opps: vec![
                    Opp {
                        hz: 408_000_000,
                        microvolt: Some(850_000),
                    },
                    Opp {
                        hz: 1_992_000_000,
                        microvolt: Some(1_150_000),
                    },
                ],
            },
            OppTable {
                name: "dmc-opp-table".into(),
                opps: vec![Opp {
                    hz: 1_560_000_000,
                    microvolt: Some(900_000),
                }],
            },
        ];
        assert_eq!(
            render(&t),
            "   cpu0-opp-table:\n       408 MHz    850.0 mV\n      1992 MHz   1150.0 mV\n\n   dmc-opp-table:\n      1560 MHz    900.0 mV\n"
        );
        // The S922X GPU's rates are a hair below whole MHz; the log shows them rounded.
        let g = [OppTable {
            name: "opp-table-gpu".into(),
            opps: vec![Opp {
                hz: 124_999_998,
                microvolt: None,
            }],
        }];
        assert_eq!(render(&g), "   opp-table-gpu:\n       125 MHz\n");
    }

    #[test]
    fn reads_only_opp_tables_and_survives_garbage() {
        let d = tempfile::tempdir().unwrap();
        let dt = d.path().join("proc/device-tree");
        let node = |table: &str, opp: &str, hz: &[u8], uv: Option<&[u8]>| {
            let p = dt.join(table).join(opp);
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("opp-hz"), hz).unwrap();
            if let Some(uv) = uv {
                fs::write(p.join("opp-microvolt"), uv).unwrap();
            }
        };
        node(
            "opp-table-0",
            "opp-1800000000",
            &1_800_000_000u64.to_be_bytes(),
            Some(&1_000_000u32.to_be_bytes()),
        );
        node(
            "opp-table-0",
            "opp-408000000",
            &408_000_000u64.to_be_bytes(),
            Some(&850_000u32.to_be_bytes()),
        );
        node("opp-table-0", "opp-bad", b"garbage", None);
        node("gpu-opp-table", "opp-0", b"", None);
        node("not-a-table", "opp-1", &1u64.to_be_bytes(), None);
        fs::write(dt.join("model"), "Board\0").unwrap();
        let t = read(&SysRoot::new(d.path()));
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].name, "opp-table-0");
        assert_eq!(
            t[0].opps.iter().map(|o| o.hz).collect::<Vec<_>>(),
            [408_000_000, 1_800_000_000]
        );
        assert!(read(&SysRoot::new(d.path().join("nothing"))).is_empty());
    }
}
