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
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .user_agent(concat!("sbc-bench/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let fail = |msg: String| ShareError::Upload {
        url: service.to_string(),
        msg,
    };
    let mut resp = agent
        .post(service)
        .header("Content-Type", &content_type)
        .send(&body[..])
        .map_err(|e| fail(e.to_string()))?;
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
    fn a_bad_service_url_is_refused_before_connecting() {
        assert!(matches!(
            upload("ftp://example.org", "x", b"x"),
            Err(ShareError::BadUrl(_))
        ));
    }
}
