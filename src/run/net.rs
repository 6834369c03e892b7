//! What either end of `sbc-bench net` prints while its tests run (iperf3's lines as they
//! come) and samples for the diagnosis, and the results and findings when a test ends.

use crate::bench::net::engine::StreamThread;
use crate::bench::net::report::{self, Iperf3Layout};
use crate::bench::net::sampler::NetSampler;
use crate::bench::net::{NetError, NetEvent, Role, TestReport};
use crate::diagnose::net::{diagnose, observe_test};
use crate::output;
use crate::report::text::net::{cpu_line, render_findings, result_json};
use crate::sys::root::SysRoot;

/// Print an error of a net command the way iperf3 does (`iperf3: error - …`), so every
/// net error reads alike, whether an option was wrong or the test failed. (Not a
/// `UsageError`: its `error: ` prefix would change what users see.)
pub fn error(msg: &str) {
    eprintln!("sbc-bench net: error - {msg}");
}

/// Write to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub fn out(text: &str) {
    // A test in progress goes on when nobody reads its output any more (a closed pipe, a
    // full disk): the peer is mid-test, and the exit status still tells the outcome.
    let _ = output::print_or_closed(text);
}

/// How either end prints: JSON or iperf3's text, with the diagnosis or not, sampling
/// which interface (`--iface`).
#[derive(Debug, Clone, Default)]
pub struct NetOutput {
    /// `--iface`.
    pub iface: Option<String>,
    /// `--json`.
    pub json: bool,
    /// Not `--no-diagnose`.
    pub diagnose: bool,
}

/// What either end prints and samples while its tests run.
pub struct NetWatch<'a> {
    root: &'a SysRoot,
    iface: Option<String>,
    role: Role,
    json: bool,
    diag: bool,
    /// Set when data starts to flow.
    layout: Option<Iperf3Layout>,
    sampler: Option<NetSampler>,
}

impl<'a> NetWatch<'a> {
    /// Watch the tests of one end (`role`), printing as `how` says.
    pub fn new(root: &'a SysRoot, how: &NetOutput, role: Role) -> Self {
        Self {
            root,
            iface: how.iface.clone(),
            role,
            json: how.json,
            diag: how.diagnose,
            layout: None,
            sampler: None,
        }
    }

    /// Progress: iperf3's lines as they come (not with `-J`), a sample per interval.
    pub fn on(&mut self, ev: NetEvent<'_>) {
        let text = !self.json;
        match ev {
            NetEvent::Listening { port, test_number } if text => {
                out(&report::listening_text(port, test_number))
            }
            NetEvent::Connecting {
                host,
                port,
                reverse,
            } if text => out(&report::connecting_text(host, port, reverse)),
            NetEvent::Accepted { host, port } if text => out(&report::accepted_text(&host, port)),
            NetEvent::StreamConnected(i) if text => out(&report::connected_text(i)),
            NetEvent::Started {
                params,
                streams,
                threads,
            } => {
                self.layout = Some(Iperf3Layout {
                    role: self.role,
                    protocol: params.protocol,
                    direction: params.direction(),
                    parallel: params.parallel,
                });
                if self.diag {
                    let iface = self.iface.as_deref();
                    self.sampler =
                        Some(NetSampler::for_streams(self.root, iface, streams, threads));
                }
            }
            NetEvent::Ending { threads } => self.sample(threads),
            NetEvent::Interval {
                interval,
                threads,
                sender_has_retransmits,
                first,
            } => {
                if let Some(l) = self.layout.as_ref().filter(|_| text) {
                    out(&report::interval_text(
                        l,
                        interval,
                        first,
                        sender_has_retransmits,
                    ));
                }
                self.sample(threads);
            }
            NetEvent::Warning(w) if text => output::warn(w),
            _ => {}
        }
    }

    fn sample(&mut self, threads: &[StreamThread]) {
        if let Some(s) = self.sampler.as_mut() {
            s.sample(threads);
        }
    }

    /// A test ended: its results and diagnosis, or its error. `false` when it failed.
    pub fn finished(&mut self, r: Result<&TestReport, &NetError>) -> bool {
        let sampler = self.sampler.take();
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                if self.json {
                    out(&format!("{}\n", report::json_error(&e.to_string())));
                }
                error(&e.to_string());
                return false;
            }
        };
        let obs = sampler
            .filter(|_| self.diag)
            .map(|s| observe_test(&s.finish(), r));
        let findings = obs.as_ref().map(diagnose).unwrap_or_default();
        if self.json {
            let doc = result_json(r, self.diag, &findings, obs.as_ref());
            out(&format!("{doc}\n"));
            return true;
        }
        // The server prints its summary before it has the client's results, as iperf3
        // does; the results still feed the diagnosis and the JSON.
        let peer = r.peer.as_ref().filter(|_| self.role == Role::Client);
        let s = report::summarize(&r.streams, &r.totals, peer, r.sender_has_retransmits);
        out(&report::summary_text(&Iperf3Layout::of(r), &s));
        if self.role == Role::Client {
            if let Some(t) = peer.and_then(|p| p.server_output_text.as_ref()) {
                out(&report::server_output_block(t));
            }
            out(report::DONE);
        }
        if self.diag {
            out(&render_findings(cpu_line(r).as_deref(), &findings));
        }
        true
    }
}
