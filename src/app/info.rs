//! `sbc-bench info`.

use crate::app::Ctx;
use crate::cli::InfoArgs;
use crate::report;
use crate::sys::cpu;

/// Print what we know about the machine.
pub fn run(ctx: &Ctx, args: &InfoArgs) -> anyhow::Result<i32> {
    let (policies, topo) = cpu::read(&ctx.root);
    if args.json {
        let doc = serde_json::json!({ "topology": topo, "cpufreq": policies });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", report::topology::render(&topo));
    }
    Ok(0)
}
