//! Connections: the accept loop, HTTP/1.1 by hyper with a bounded and timed request head
//! (a slowloris that sends its head a byte at a time is cut off), a cap on connections in
//! all and per client address, and a graceful stop (SIGTERM, Ctrl-C): no new connections,
//! the requests under way finish — an upload answered with a URL was committed before the
//! answer left.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// The limits of the connection side.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The longest a client may take to send a request's head (also the idle time of a
    /// kept-alive connection before its next request).
    pub header_timeout: Duration,
    /// The largest request head, bytes (hyper's buffer; larger is answered 431).
    pub max_head: usize,
    /// Connections at once, in all.
    pub max_connections: usize,
    /// Connections at once from one address (0: no limit; behind a reverse proxy every
    /// connection comes from the proxy).
    pub max_per_address: usize,
    /// How long a stop waits for requests under way.
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            max_head: 16 * 1024,
            max_connections: 1024,
            max_per_address: 64,
            grace: Duration::from_secs(20),
        }
    }
}

/// Counts connections per address; a slot is given back when its guard drops.
#[derive(Debug, Default)]
struct PerAddress {
    open: Mutex<HashMap<IpAddr, usize>>,
}

struct Slot {
    map: Arc<PerAddress>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut m) = self.map.open.lock() {
            if let Some(n) = m.get_mut(&self.ip) {
                *n -= 1;
                if *n == 0 {
                    m.remove(&self.ip);
                }
            }
        }
    }
}

impl PerAddress {
    fn take(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Slot> {
        let mut m = self.open.lock().ok()?;
        let n = m.entry(ip).or_insert(0);
        if max > 0 && *n >= max {
            return None;
        }
        *n += 1;
        Some(Slot {
            map: self.clone(),
            ip,
        })
    }
}

/// A refusal written straight to the socket when a connection is over the limits.
async fn refuse(mut s: TcpStream) {
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        s.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\nRetry-After: 5\r\nContent-Length: 34\r\n\r\ntoo many connections; try again.\n",
        ),
    )
    .await;
}

/// Serve `app` on `listener` until `stop` resolves, then let the connections under way
/// finish (at most `limits.grace`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let all = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let per = Arc::new(PerAddress::default());
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    eprintln!("sbc-bench-hub: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = all.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let Some(slot) = per.take(peer.ip(), limits.max_per_address) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            app.clone().oneshot(req.map(axum::body::Body::new))
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_buf_size(limits.max_head.max(8192))
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop((permit, slot));
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.grace, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "sbc-bench-hub: stopped with requests still under way after {:?}",
            limits.grace
        );
    }
    Ok(())
}

/// SIGTERM or Ctrl-C.
pub async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        () = term => {},
    }
}
