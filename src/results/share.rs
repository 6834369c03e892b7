//! `sbc-bench share`: upload a redacted log to a paste service the way 0x0.st-style
//! services take files (`curl -F file=@log https://0x0.st`): one HTTP multipart POST with
//! a `file` part; the answer's body is the URL. Only when the user asks, bounded in time
//! and size, and an answer that is not one URL is an error, never printed as one. Sent
//! through the system's `curl` or `wget` ([`HttpClient`]), as the bash sbc-bench sends.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where `share` uploads unless `--to` says otherwise.
pub const DEFAULT_SERVICE: &str = "https://0x0.st";

/// The longest answer read: a URL, not a page.
const MAX_ANSWER: u64 = 64 * 1024;

/// Why an upload failed.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    #[error("not an http:// or https:// URL: {0}")]
    BadUrl(String),
    #[error("upload to {url} failed: {msg}")]
    Upload { url: String, msg: String },
    #[error("{url} answered, but not with a URL: {answer:?}")]
    Answer { url: String, answer: String },
    #[error(
        "{url} redirected the upload to {location} (another host): not followed, nothing was sent there"
    )]
    Redirect { url: String, location: String },
}

/// How many redirects within the service's own origin an upload follows.
const MAX_REDIRECTS: usize = 3;

/// `scheme://host:port` of an http(s) URL, lower-case, the port always written.
pub fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let (host, port) = if let Some(rest) = host_port.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        (h, after.strip_prefix(':'))
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    let port = match port {
        None | Some("") => default_port,
        Some(p) => p.parse::<u16>().ok()?,
    };
    if host.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{}:{port}", host.to_ascii_lowercase()))
}

/// Where a redirect from `from` leads: an absolute URL, or a path on the same origin.
fn resolve_location(from: &str, location: &str) -> Option<String> {
    let l = location.trim();
    if l.starts_with("http://") || l.starts_with("https://") {
        return Some(l.to_string());
    }
    if l.starts_with('/') && !l.starts_with("//") {
        let (scheme, rest) = from.split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next()?;
        return Some(format!("{scheme}://{authority}{l}"));
    }
    None
}

/// A multipart/form-data body with one `file` part (RFC 7578) and its content type. The
/// boundary is derived from the content's hash, so it cannot occur in it.
pub fn multipart(filename: &str, content: &[u8]) -> (String, Vec<u8>) {
    let mut boundary = format!(
        "sbc-bench-{}",
        &crate::results::store::sha256_hex(content)[..32]
    );
    while content
        .windows(boundary.len())
        .any(|w| w == boundary.as_bytes())
    {
        boundary.push('x');
    }
    let safe_name: String = filename
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c))
        .collect();
    let mut body = Vec::with_capacity(content.len() + 256);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{safe_name}\"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(content);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The URL in a paste service's answer: one line, http(s), no blanks or control
/// characters.
pub fn answer_url(answer: &str) -> Option<&str> {
    let t = answer.trim();
    let ok = (t.starts_with("https://") || t.starts_with("http://"))
        && t.len() < 2048
        && !t.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then_some(t)
}

/// The program that sends the upload: the system's `curl`, else its `wget` (GNU or
/// BusyBox), as the bash sbc-bench uploads. No TLS stack of our own: it was about 1.2 MB of
/// the binary (issue 29), and the system's client knows the system's certificates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpClient {
    /// `curl`.
    Curl(PathBuf),
    /// `wget`.
    Wget(PathBuf),
}

impl HttpClient {
    /// `curl`, else `wget`, from `$PATH`.
    pub fn find() -> Option<Self> {
        crate::bench::external::find(&["curl"])
            .map(Self::Curl)
            .or_else(|| crate::bench::external::find(&["wget"]).map(Self::Wget))
    }
}

/// How long an upload may take, all in all (the client's own limits are a little shorter).
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(75);

/// Upload `content` to `service` with the system's `curl` or `wget`; the URL it answers
/// with.
pub fn upload(service: &str, filename: &str, content: &[u8]) -> Result<String, ShareError> {
    check_url(service)?;
    let client = HttpClient::find().ok_or_else(|| ShareError::Upload {
        url: service.to_string(),
        msg: "neither curl nor wget is installed (apt install curl); `share --dry-run` \
              prints what would be sent"
            .to_string(),
    })?;
    upload_with(&client, service, filename, content)
}

/// Refuse what is not an http:// or https:// URL before anything runs.
fn check_url(service: &str) -> Result<(), ShareError> {
    if !(service.starts_with("https://") || service.starts_with("http://"))
        || service.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(ShareError::BadUrl(service.to_string()));
    }
    Ok(())
}

/// [`upload`] through `client`: the multipart body ([`multipart`]: one `file` part, the
/// wire format the paste services and `sbc-bench-hub` take) written to a private temporary
/// file, posted as it is, removed afterwards. Redirects are ours to judge (the clients
/// follow none): one to another origin is refused, since it would take the upload and
/// its answer would be stored as the receipt; within the service only those that keep the
/// POST (307, 308) are followed, at most three.
pub fn upload_with(
    client: &HttpClient,
    service: &str,
    filename: &str,
    content: &[u8],
) -> Result<String, ShareError> {
    check_url(service)?;
    let fail = |msg: String| ShareError::Upload {
        url: service.to_string(),
        msg,
    };
    let (content_type, body) = multipart(filename, content);
    let file = BodyFile::write(&body).map_err(|e| fail(format!("temporary file: {e}")))?;
    let mut url = service.to_string();
    let mut hops = 0;
    let answer = loop {
        let sent = post_once(client, &url, &content_type, &file.0).map_err(fail)?;
        if !(300..400).contains(&sent.status) {
            break sent;
        }
        let code = sent.status;
        let location = sent.location.clone().unwrap_or_default();
        let next = resolve_location(&url, &location).ok_or_else(|| {
            fail(format!(
                "HTTP {code}: a redirect to {location:?}, not followed"
            ))
        })?;
        if origin(&next).is_none() || origin(&next) != origin(service) {
            return Err(ShareError::Redirect {
                url: service.to_string(),
                location: next,
            });
        }
        hops += 1;
        if !matches!(code, 307 | 308) || hops > MAX_REDIRECTS {
            return Err(fail(format!(
                "HTTP {code}: a redirect to {next} instead of a URL"
            )));
        }
        url = next;
    };
    drop(file);
    let Sent {
        status,
        answer,
        reason,
        ..
    } = answer;
    if !(200..300).contains(&status) {
        let first = answer.lines().next().unwrap_or_default();
        let first = if first.trim().is_empty() {
            reason
        } else {
            first.trim().to_string()
        };
        return Err(fail(
            format!("HTTP {status} {first}").trim_end().to_string(),
        ));
    }
    answer_url(&answer)
        .map(str::to_string)
        .ok_or_else(|| ShareError::Answer {
            url: service.to_string(),
            answer: answer.chars().take(200).collect(),
        })
}

/// What one POST got back.
struct Sent {
    /// The HTTP status (non-zero).
    status: u16,
    /// The body, at most [`MAX_ANSWER`] characters.
    answer: String,
    /// The status line's reason phrase, where the client shows it.
    reason: String,
    /// A redirect's `Location`.
    location: Option<String>,
}

/// POST the body in `body_file` to `url` once, following no redirect.
fn post_once(
    client: &HttpClient,
    url: &str,
    content_type: &str,
    body_file: &Path,
) -> Result<Sent, String> {
    let agent = concat!("sbc-bench/", env!("CARGO_PKG_VERSION"));
    let (program, args): (&Path, Vec<String>) = match client {
        HttpClient::Curl(p) => (
            p,
            vec![
                "--silent".into(),
                "--show-error".into(),
                "--connect-timeout".into(),
                "10".into(),
                "--max-time".into(),
                "60".into(),
                "--proto".into(),
                "=http,https".into(),
                "--user-agent".into(),
                agent.into(),
                "--header".into(),
                format!("Content-Type: {content_type}"),
                "--data-binary".into(),
                format!("@{}", body_file.display()),
                "--write-out".into(),
                "\n%{redirect_url}\n%{http_code}".into(),
                "--url".into(),
                url.into(),
            ],
        ),
        HttpClient::Wget(p) => (
            p,
            vec![
                "-q".into(),
                "-S".into(),
                "-O".into(),
                "-".into(),
                "-T".into(),
                "20".into(),
                "--max-redirect=0".into(),
                "-U".into(),
                agent.into(),
                format!("--header=Content-Type: {content_type}"),
                format!("--post-file={}", body_file.display()),
                url.into(),
            ],
        ),
    };
    let cancel = crate::shutdown::token();
    let out = crate::bench::external::run_bounded(program, &args, UPLOAD_TIMEOUT, cancel)
        .map_err(|e| e.to_string())?;
    let (status, answer, location, reason) = match client {
        HttpClient::Curl(_) => {
            let (rest, code) = out.stdout.rsplit_once('\n').unwrap_or(("", &out.stdout));
            let (answer, location) = rest.rsplit_once('\n').unwrap_or(("", rest));
            let location = Some(location.trim().to_string()).filter(|l| !l.is_empty());
            let status = code.trim().parse::<u16>().unwrap_or(0);
            (status, answer.to_string(), location, String::new())
        }
        HttpClient::Wget(_) => (
            wget_status(&out.stderr),
            out.stdout.clone(),
            wget_location(&out.stderr),
            wget_reason(&out.stderr),
        ),
    };
    if status == 0 {
        let why = out.stderr.lines().map(str::trim).find(|l| !l.is_empty());
        return Err(why.unwrap_or("no answer").to_string());
    }
    Ok(Sent {
        status,
        answer: answer.chars().take(MAX_ANSWER as usize).collect(),
        reason,
        location,
    })
}

/// The `Location:` header of the last response `wget -S` printed.
fn wget_location(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let (k, v) = l.trim().split_once(':')?;
            k.eq_ignore_ascii_case("location")
                .then(|| v.trim().to_string())
        })
        .next_back()
}

/// The last HTTP status `wget -S` printed (`  HTTP/1.1 201 Created`); 0 when none.
fn wget_status(stderr: &str) -> u16 {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("HTTP/"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .next_back()
        .unwrap_or(0)
}

/// The reason phrase of that status line (`Internal Server Error`).
fn wget_reason(stderr: &str) -> String {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("HTTP/"))
        .next_back()
        .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The request body in a temporary file of our own (created new, mode 0600), removed when
/// dropped.
struct BodyFile(PathBuf);

impl BodyFile {
    fn write(body: &[u8]) -> std::io::Result<Self> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!(
            "sbc-bench-share-{}-{stamp}.body",
            std::process::id()
        ));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        let me = Self(path);
        f.write_all(body)?;
        f.sync_all()?;
        Ok(me)
    }
}

impl Drop for BodyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipart_body_holds_the_file_between_boundaries() {
        let (ct, body) = multipart("sbc-bench.log", b"line 1\nline 2\n");
        let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
        let text = String::from_utf8(body).unwrap();
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains(
            "Content-Disposition: form-data; name=\"file\"; filename=\"sbc-bench.log\"\r\n"
        ));
        assert!(text.contains("\r\n\r\nline 1\nline 2\n\r\n"));
        assert!(text.ends_with(&format!("\r\n--{boundary}--\r\n")));
        // A hostile file name cannot break the header.
        let (_, body) = multipart("a\"\r\nX: y.txt", b"x");
        assert!(
            String::from_utf8(body)
                .unwrap()
                .contains("filename=\"aXy.txt\"")
        );
    }

    #[test]
    fn only_a_lone_url_is_an_answer() {
        assert_eq!(
            answer_url("https://0x0.st/abc.txt\n"),
            Some("https://0x0.st/abc.txt")
        );
        assert_eq!(answer_url("<html>error</html>"), None);
        assert_eq!(answer_url("https://x/ y"), None);
        assert_eq!(answer_url("https://x/\x1b[31m"), None);
        assert_eq!(answer_url(""), None);
    }

    /// A one-request HTTP server on 127.0.0.1 answering `status` with `answer`; the request
    /// it got comes back through the channel.
    fn server(
        status: &'static str,
        answer: &'static str,
    ) -> (String, std::sync::mpsc::Receiver<Vec<u8>>) {
        use std::io::{Read, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", l.local_addr().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                let n = c.read(&mut chunk).unwrap_or(0);
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len: usize = text[..end]
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse().ok())?
                        })
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let _ = write!(
                c,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
            let _ = tx.send(buf);
        });
        (url, rx)
    }

    /// The same multipart body goes out whether curl or wget sends it (the wire format
    /// `sbc-bench-hub` takes: one `file` part), and both read the URL, an error status and
    /// an answer that is not a URL alike. Skipped for a client this machine lacks.
    #[test]
    fn curl_and_wget_send_the_same_multipart_file_part() {
        let clients: Vec<HttpClient> = [
            crate::bench::external::find(&["curl"]).map(HttpClient::Curl),
            crate::bench::external::find(&["wget"]).map(HttpClient::Wget),
        ]
        .into_iter()
        .flatten()
        .collect();
        if clients.is_empty() {
            eprintln!("skipped: neither curl nor wget installed");
            return;
        }
        for client in &clients {
            let (url, rx) = server("201 Created", "http://127.0.0.1/x.txt\n");
            let got = upload_with(client, &url, "sbc-bench.txt", b"line 1\nline 2\n");
            assert_eq!(got.unwrap(), "http://127.0.0.1/x.txt", "{client:?}");
            let req = String::from_utf8(rx.recv().unwrap()).unwrap();
            let (ct, body) = multipart("sbc-bench.txt", b"line 1\nline 2\n");
            assert!(req.starts_with("POST / HTTP/1."), "{client:?}: {req}");
            assert!(
                req.contains(&format!("Content-Type: {ct}\r\n")),
                "{client:?}: {req}"
            );
            assert!(
                req.ends_with(std::str::from_utf8(&body).unwrap()),
                "{client:?}: {req}"
            );
            assert!(
                req.contains("sbc-bench/"),
                "{client:?}: no User-Agent: {req}"
            );

            let (url, _rx) = server("500 Internal Server Error", "boom\n");
            let e = upload_with(client, &url, "x", b"x")
                .unwrap_err()
                .to_string();
            assert!(e.contains("failed: HTTP 500"), "{client:?}: {e}");
            let (url, _rx) = server("200 OK", "<html>moved</html>");
            let e = upload_with(client, &url, "x", b"x").unwrap_err();
            assert!(matches!(e, ShareError::Answer { .. }), "{client:?}: {e}");
        }
        // Nobody listening: the client's own words.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = upload_with(&clients[0], &format!("http://127.0.0.1:{port}/"), "x", b"x")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("upload to http://127.0.0.1:"), "{e}");
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        assert_eq!(origin("https://0x0.st"), Some("https://0x0.st:443".into()));
        assert_eq!(origin("https://0x0.st/"), origin("HTTPS://0X0.ST:443/x?y"));
        assert_ne!(
            origin("http://127.0.0.1:80/"),
            origin("http://127.0.0.1:81/")
        );
        assert_ne!(origin("http://a.example/"), origin("https://a.example/"));
        assert_eq!(
            origin("http://u:p@[::1]:8080/x"),
            Some("http://::1:8080".into())
        );
        assert_eq!(origin("ftp://x"), None);
        assert_eq!(
            resolve_location("http://a.example:81/up", "/x"),
            Some("http://a.example:81/x".into())
        );
        assert_eq!(resolve_location("http://a/", "//evil/x"), None);
    }

    /// A one-request HTTP server on loopback answering `answer`; the number of requests
    /// it got, once joined.
    fn one_shot(answer: String) -> (String, std::thread::JoinHandle<usize>) {
        use std::io::{Read, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", l.local_addr().unwrap());
        l.set_nonblocking(true).unwrap();
        let h = std::thread::spawn(move || {
            let until = std::time::Instant::now() + Duration::from_secs(5);
            let mut served = 0;
            while std::time::Instant::now() < until && served == 0 {
                match l.accept() {
                    Ok((mut c, _)) => {
                        c.set_nonblocking(false).unwrap();
                        c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
                        let mut buf = vec![0u8; 1 << 16];
                        let _ = c.read(&mut buf);
                        c.write_all(answer.as_bytes()).unwrap();
                        served += 1;
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            served
        });
        (url, h)
    }

    // Issue 27, item 13: `share` followed a 302 to another host and stored that host's
    // answer as the receipt.
    #[test]
    fn share_does_not_follow_a_redirect_to_another_host() {
        let (evil, evil_h) =
            one_shot("HTTP/1.1 200 OK\r\nContent-Length: 22\r\n\r\nhttps://evil.example/x".into());
        let (svc, svc_h) = one_shot(format!(
            "HTTP/1.1 302 Found\r\nLocation: {evil}\r\nContent-Length: 0\r\n\r\n"
        ));
        let e = upload(&svc, "sbc-bench.log", b"log").unwrap_err();
        assert!(matches!(e, ShareError::Redirect { .. }), "{e}");
        assert!(e.to_string().contains("not followed"), "{e}");
        assert_eq!(svc_h.join().unwrap(), 1);
        assert_eq!(
            evil_h.join().unwrap(),
            0,
            "nothing was sent to the other host"
        );
    }

    #[test]
    fn a_bad_service_url_is_refused_before_connecting() {
        assert!(matches!(
            upload("ftp://example.org", "x", b"x"),
            Err(ShareError::BadUrl(_))
        ));
    }
}
