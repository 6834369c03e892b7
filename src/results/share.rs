//! `sbc-bench share`: upload a redacted log to a paste service the way 0x0.st-style
//! services take files (`curl -F file=@log https://0x0.st`): one HTTP multipart POST with
//! a `file` part; the answer's body is the URL. Only when the user asks, bounded in time
//! and size, and an answer that is not one URL is an error, never printed as one.

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

/// Upload `content` to `service`; the URL it answers with.
pub fn upload(service: &str, filename: &str, content: &[u8]) -> Result<String, ShareError> {
    if !(service.starts_with("https://") || service.starts_with("http://"))
        || service.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(ShareError::BadUrl(service.to_string()));
    }
    let (content_type, body) = multipart(filename, content);
    // Redirects are ours to judge: one to another host would take the upload (and
    // its answer would be stored as the receipt).
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("sbc-bench/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let fail = |msg: String| ShareError::Upload {
        url: service.to_string(),
        msg,
    };
    let mut url = service.to_string();
    let mut hops = 0;
    let mut resp = loop {
        let resp = agent
            .post(&url)
            .header("Content-Type", &content_type)
            .send(&body[..])
            .map_err(|e| fail(e.to_string()))?;
        if !resp.status().is_redirection() {
            break resp;
        }
        let code = resp.status().as_u16();
        let location = resp
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
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
        // Within the service: only the redirects that keep the POST (307, 308).
        hops += 1;
        if !matches!(code, 307 | 308) || hops > MAX_REDIRECTS {
            return Err(fail(format!(
                "HTTP {code}: a redirect to {next} instead of a URL"
            )));
        }
        url = next;
    };
    let status = resp.status();
    let answer = resp
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER)
        .read_to_string()
        .map_err(|e| fail(e.to_string()))?;
    if !status.is_success() {
        let first = answer.lines().next().unwrap_or_default();
        return Err(fail(format!("HTTP {} {}", status.as_u16(), first.trim())));
    }
    answer_url(&answer)
        .map(str::to_string)
        .ok_or_else(|| ShareError::Answer {
            url: service.to_string(),
            answer: answer.chars().take(200).collect(),
        })
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
