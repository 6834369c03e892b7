//! `sbc-bench net info`, and the interface names every net command checks.

use crate::output::Outcome;
use crate::report::text::net::render_info;
use crate::sys::net;
use crate::sys::root::SysRoot;

use super::{error, out};

/// Interface names that are not valid or that this system does not have, as the error
/// `net info` and `--iface` print; `Ok` when all exist.
pub(super) fn check_ifaces(root: &SysRoot, names: &[String]) -> Result<(), (String, Outcome)> {
    if let Some(n) = names.iter().find(|n| !net::valid_name(n)) {
        return Err((format!("'{n}' is not an interface name"), Outcome::Usage));
    }
    let have = net::list_interfaces(root);
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !have.contains(n))
        .map(|n| &n[..])
        .collect();
    match missing.is_empty() {
        true => Ok(()),
        false => Err((
            format!("no such interface: {}", missing.join(", ")),
            Outcome::Failed,
        )),
    }
}

pub(super) fn info(root: &SysRoot, json: bool, only: &[String]) -> anyhow::Result<Outcome> {
    if let Err((e, outcome)) = check_ifaces(root, only) {
        error(&e);
        return Ok(outcome);
    }
    let mut all = net::read_all(root);
    if !only.is_empty() {
        all.retain(|i| only.contains(&i.name));
    }
    if json {
        // An object, not the bare array it was before the JSON contract: an array has no
        // place for `schema` (docs/RUN-JSON.md, deprecations).
        let interfaces = serde_json::json!({ "interfaces": all });
        let doc = crate::output::schema::stamp(crate::output::schema::NET_INFO, &interfaces);
        out(&format!("{}\n", serde_json::to_string_pretty(&doc)?));
    } else {
        out(&render_info(&all));
    }
    Ok(Outcome::Ok)
}
