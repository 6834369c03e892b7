//! Netio network power sockets (NETIO 4All, PowerCable 101x, PowerBOX…) through their XML
//! API: `GET http://HOST/netio.xml` (read-only access without a password, as sbc-bench
//! expects it). The answer holds `<Agent>` (`<Model>`, `<Version>`, `<XmlVer>`,
//! `<DeviceName>`, `<NumOutputs>`), `<GlobalMeasure>` (`<Voltage>` V, `<Frequency>` Hz)
//! and one `<Output>` per socket with `<Current>` in mA, `<PowerFactor>` and `<Energy>` in
//! Wh. Power is V × mA × PF, as sbc-bench's `GetAverageConsumption` computes it.
//!
//! The HTTP exchange is plain `std::net`: name resolution, connect and every read have a
//! deadline and the answer a size bound, so a dead or hostile host is a clear error within
//! seconds, never a hang.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{MeterError, PowerMeter, PowerReading};

/// Connecting may take this long (sbc-bench gives curl one second; a busy Wi-Fi Netio
/// answers in a few hundred milliseconds).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The whole exchange, resolution to last byte, may take this long.
pub const DEADLINE: Duration = Duration::from_secs(3);
/// A NETIO 4All's netio.xml is under 2 KiB; anything past this is not a Netio.
pub const MAX_RESPONSE: usize = 64 * 1024;

/// What netio.xml says about the device and one socket.
#[derive(Debug, Clone, PartialEq)]
pub struct NetioStatus {
    /// `<Model>` (`NETIO 4All`).
    pub model: Option<String>,
    /// `<DeviceName>`.
    pub name: Option<String>,
    /// `<Version>`: firmware.
    pub firmware: Option<String>,
    /// `<XmlVer>`.
    pub xml_version: Option<String>,
    /// `<NumOutputs>`.
    pub num_outputs: Option<u32>,
    /// `<Voltage>`, volts.
    pub volts: Option<f64>,
    /// `<Frequency>`, Hz.
    pub frequency_hz: Option<f64>,
    /// One entry per `<Output>`, in document order.
    pub outputs: Vec<NetioOutput>,
}

/// One socket's measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetioOutput {
    /// `<ID>`, from 1 (document order when missing).
    pub id: u32,
    /// `<Current>`, milliamperes.
    pub current_ma: Option<f64>,
    /// `<PowerFactor>`, 0..1.
    pub power_factor: Option<f64>,
    /// `<Energy>`, watt-hours since the counter was reset.
    pub energy_wh: Option<f64>,
}

impl NetioStatus {
    /// The socket numbered `socket` (its `<ID>`).
    pub fn output(&self, socket: u32) -> Option<&NetioOutput> {
        self.outputs.iter().find(|o| o.id == socket)
    }

    /// One reading of `socket`: V × mA × PF milliwatts, with its energy counter. `None`
    /// when the device does not meter (a NETIO 4 without "All" has no `<Current>`).
    pub fn reading(&self, socket: u32) -> Option<PowerReading> {
        let o = self.output(socket)?;
        let (v, ma, pf) = (self.volts?, o.current_ma?, o.power_factor?);
        Some(PowerReading {
            mw: v * ma * pf,
            energy_mwh: o.energy_wh.map(|wh| wh * 1000.0),
            volts: Some(v),
            amps: Some(ma / 1000.0),
        })
    }
}

/// The text of the first `<tag>…</tag>` in `xml`, trimmed.
fn tag<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = xml.find(&open)? + open.len();
    let len = xml[start..].find(&close)?;
    Some(xml[start..start + len].trim())
}

fn number(xml: &str, name: &str) -> Option<f64> {
    tag(xml, name)?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Parse netio.xml (lines may end in CR LF, as the devices send them). Garbage when it is
/// not a Netio's answer at all.
pub fn parse(xml: &str) -> Result<NetioStatus, MeterError> {
    if !xml.contains("<Agent>") && !xml.contains("<Outputs>") {
        return Err(MeterError::Garbage(
            "no <Agent> or <Outputs> in the answer: not a Netio's netio.xml".into(),
        ));
    }
    let text = |n: &str| tag(xml, n).filter(|s| !s.is_empty()).map(str::to_string);
    let global = tag(xml, "GlobalMeasure").unwrap_or(xml);
    let mut outputs = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find("<Output>") {
        let body_start = i + "<Output>".len();
        let Some(len) = rest[body_start..].find("</Output>") else {
            break;
        };
        let body = &rest[body_start..body_start + len];
        let n = outputs.len() as u32 + 1;
        outputs.push(NetioOutput {
            id: tag(body, "ID").and_then(|s| s.parse().ok()).unwrap_or(n),
            current_ma: number(body, "Current"),
            power_factor: number(body, "PowerFactor"),
            energy_wh: number(body, "Energy"),
        });
        rest = &rest[body_start + len..];
    }
    Ok(NetioStatus {
        model: text("Model"),
        name: text("DeviceName"),
        firmware: text("Version"),
        xml_version: text("XmlVer"),
        num_outputs: tag(xml, "NumOutputs").and_then(|s| s.parse().ok()),
        volts: number(global, "Voltage"),
        frequency_hz: number(global, "Frequency"),
        outputs,
    })
}

/// Split an HTTP/1.x answer into status and body; anything but 200 is an error that
/// says the status (401: the XML API wants a password).
pub fn http_body(answer: &[u8]) -> Result<&[u8], MeterError> {
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Err(MeterError::Garbage("no complete HTTP answer".into()));
    };
    let head = String::from_utf8_lossy(&answer[..end]);
    let status_line = head.lines().next().unwrap_or_default();
    let mut parts = status_line.split_whitespace();
    let (proto, code) = (parts.next().unwrap_or_default(), parts.next());
    if !proto.starts_with("HTTP/") {
        return Err(MeterError::Garbage(format!(
            "not an HTTP answer: {status_line:.60}"
        )));
    }
    match code {
        Some("200") => Ok(&answer[end + 4..]),
        Some("401") => Err(MeterError::Unavailable(
            "the Netio wants a password for netio.xml: allow read-only XML API access without \
             one (M2M API protocols, XML API)"
                .into(),
        )),
        _ => Err(MeterError::Unavailable(format!(
            "the Netio answered {}",
            status_line.trim()
        ))),
    }
}

/// Resolve `host` (`name` or `name:port`, port 80 by default) within `limit`: a dead DNS
/// server must not stall the run (the resolver thread is left behind if it hangs).
fn resolve(host: &str, limit: Duration) -> Result<Vec<SocketAddr>, MeterError> {
    let with_port = if host
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        && !host.ends_with(']')
    {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    let (tx, rx) = mpsc::channel();
    let target = with_port.clone();
    std::thread::spawn(move || {
        let _ = tx.send(target.to_socket_addrs().map(|a| a.collect::<Vec<_>>()));
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(a)) if !a.is_empty() => Ok(a),
        Ok(Ok(_)) => Err(MeterError::Unavailable(format!(
            "{host}: the name has no address"
        ))),
        Ok(Err(e)) => Err(MeterError::Unavailable(format!("{host}: {e}"))),
        Err(_) => Err(MeterError::Unavailable(format!(
            "{host}: the name did not resolve within {} s",
            limit.as_secs()
        ))),
    }
}

/// `GET http://host/netio.xml`, bounded in time and size, and its body as text.
pub fn fetch(host: &str) -> Result<String, MeterError> {
    let url = format!("http://{host}/netio.xml");
    let unreachable =
        |why: String| MeterError::Unavailable(format!("not able to fetch \"{url}\": {why}"));
    let start = Instant::now();
    let addrs = resolve(host, DEADLINE).map_err(|e| unreachable(e.to_string()))?;
    let mut last = String::new();
    let mut stream = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = format!("{a}: {e}"),
        }
    }
    let mut s = stream.ok_or_else(|| unreachable(last))?;
    let left = |start: Instant| {
        DEADLINE
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(10))
    };
    let io = |e: std::io::Error| unreachable(e.to_string());
    s.set_write_timeout(Some(left(start))).map_err(io)?;
    // HTTP/1.0: the answer ends when the device closes, and is never chunked.
    let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
    s.write_all(
        format!("GET /netio.xml HTTP/1.0\r\nHost: {name}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .map_err(io)?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if start.elapsed() >= DEADLINE {
            return Err(unreachable(format!(
                "no complete answer within {} s",
                DEADLINE.as_secs()
            )));
        }
        s.set_read_timeout(Some(left(start))).map_err(io)?;
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                if answer.len() > MAX_RESPONSE {
                    return Err(MeterError::Garbage(format!(
                        "\"{url}\" sent more than {} KiB: not a Netio",
                        MAX_RESPONSE / 1024
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(unreachable(format!(
                    "no complete answer within {} s",
                    DEADLINE.as_secs()
                )));
            }
            Err(e) => return Err(io(e)),
        }
    }
    let body = http_body(&answer)?;
    Ok(String::from_utf8_lossy(body).into_owned())
}

/// sbc-bench's line about the meter: `Power monitoring on socket 2 of powerbox-1 (Netio
/// NETIO 4All, FW v3.1.0, XML API v2.1, 235.2V @ 50.0Hz)`.
pub fn banner(status: &NetioStatus, socket: u32) -> String {
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    let n = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_default();
    format!(
        "Power monitoring on socket {socket} of {} (Netio {}, FW v{}, XML API v{}, {}V @ {}Hz)",
        s(&status.name),
        s(&status.model),
        s(&status.firmware),
        s(&status.xml_version),
        n(status.volts),
        n(status.frequency_hz)
    )
}

/// A Netio socket as a meter.
#[derive(Debug)]
pub struct Netio {
    host: String,
    socket: u32,
    first: NetioStatus,
}

impl Netio {
    /// Ask the device once: it must answer, meter, and have the socket.
    pub fn open(host: &str, socket: u32) -> Result<Self, MeterError> {
        let status = parse(&fetch(host)?)?;
        if let Some(n) = status.num_outputs.filter(|n| socket > *n) {
            return Err(MeterError::Unavailable(format!(
                "Power monitoring on socket {socket} of {} not possible since {} has only {n} \
                 port",
                status.name.clone().unwrap_or_else(|| host.to_string()),
                status.model.clone().unwrap_or_else(|| "the Netio".into())
            )));
        }
        if status.reading(socket).is_none() {
            return Err(MeterError::Unavailable(format!(
                "the Netio at {host} reports no current on socket {socket} (a model without \
                 metering?)"
            )));
        }
        Ok(Netio {
            host: host.to_string(),
            socket,
            first: status,
        })
    }
}

impl PowerMeter for Netio {
    fn describe(&self) -> String {
        format!(
            "Netio {}, socket {}",
            self.first.model.as_deref().unwrap_or("(unknown model)"),
            self.socket
        )
    }

    fn read(&mut self) -> Result<PowerReading, MeterError> {
        let status = parse(&fetch(&self.host)?)?;
        status.reading(self.socket).ok_or_else(|| {
            MeterError::Garbage(format!(
                "no <Current>/<PowerFactor> for socket {}",
                self.socket
            ))
        })
    }

    fn banner(&self) -> Option<String> {
        Some(banner(&self.first, self.socket))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NETIO 4All's netio.xml, CR LF line ends as the devices send them. The values are
    /// those of NETIO's public "NETIO 4ALL Demo" device as documented for its API, with a
    /// load on socket 2 (a board drawing 0.9 W at PF 0.52).
    pub const NETIO_4ALL: &str = include_str!("../../../tests/fixtures/power/netio-4all.xml");

    #[test]
    fn netio_4all_socket_2_is_v_times_ma_times_pf() {
        let s = parse(NETIO_4ALL).unwrap();
        assert_eq!(s.model.as_deref(), Some("NETIO 4All"));
        assert_eq!(s.num_outputs, Some(4));
        assert_eq!(s.outputs.len(), 4);
        let r = s.reading(2).unwrap();
        assert!((r.mw - 239.1 * 7.0 * 0.52).abs() < 1e-9, "{r:?}");
        assert_eq!(r.energy_mwh, Some(172_000.0));
        assert_eq!(
            banner(&s, 2),
            "Power monitoring on socket 2 of NETIO 4ALL Demo (Netio NETIO 4All, FW v3.1.0, \
             XML API v2.1, 239.1V @ 50.1Hz)"
        );
    }

    #[test]
    fn netio_4_without_metering_has_no_reading_and_html_is_garbage() {
        // A NETIO 4 (no "All") lists its outputs without measurements.
        let xml = "<Root><Agent><Model>NETIO 4</Model><NumOutputs>4</NumOutputs></Agent>\
                   <Outputs><Output><ID>1</ID><Name>output_1</Name><State>1</State><Action />\
                   </Output></Outputs></Root>";
        assert_eq!(parse(xml).unwrap().reading(1), None);
        assert!(matches!(
            parse("<html><body>router login</body></html>"),
            Err(MeterError::Garbage(_))
        ));
    }

    #[test]
    fn http_status_other_than_200_is_said() {
        let e = http_body(b"HTTP/1.1 401 Unauthorized\r\n\r\n").unwrap_err();
        assert!(e.to_string().contains("password"), "{e}");
        let e = http_body(b"HTTP/1.1 404 Not Found\r\nX: y\r\n\r\nnope").unwrap_err();
        assert_eq!(e.to_string(), "the Netio answered HTTP/1.1 404 Not Found");
        assert_eq!(http_body(b"HTTP/1.0 200 OK\r\n\r\n<x>").unwrap(), b"<x>");
        assert!(http_body(b"SSH-2.0-OpenSSH\r\n").is_err());
    }
}
