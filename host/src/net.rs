//! The one outbound HTTP client (URL inputs, probes of URLs, webhooks, model endpoints).
//!
//! https only; IP literals checked on the parsed URL (the WHATWG parser already turns `127.1`,
//! `2130706433` and `0x7f000001` into 127.0.0.1); names resolved by us and refused whole when any
//! address is special-purpose, and the connection made only to the checked addresses; every
//! redirect hop checked again (and never from https down to http); no proxy from the
//! environment; connect and read timeouts; a cap on body size.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use tokio::io::AsyncWriteExt;
use url::{Host, Url};

use crate::config;

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The URL or where it leads is not allowed (tenant's fault: 400).
    #[error("{0}")]
    Refused(String),
    /// The body is larger than allowed; carries the size seen so far or announced.
    #[error("response body exceeds {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    /// The remote answered with a non-success status.
    #[error("remote server answered HTTP {0}")]
    Status(u16),
    /// Connecting, TLS, timeouts, I/O.
    #[error("{0}")]
    Transport(String),
    /// The whole transfer did not finish within its deadline (a slow peer).
    #[error("no complete answer within {0} s")]
    TimedOut(u64),
    /// The body came slower than `min_bytes_per_s` on average after `grace_s`.
    #[error("the body arrived slower than {min_bytes_per_s} bytes/s after the first {grace_s} s")]
    TooSlow { min_bytes_per_s: u64, grace_s: u64 },
}

#[derive(Clone)]
pub struct Net {
    client: reqwest::Client,
    allow_private: bool,
    allow_http: bool,
    max_redirects: usize,
    min_bytes_per_s: u64,
    slow_grace: Duration,
}

/// What a bucket answered a signed request (`Net::send_signed`).
pub struct SignedReply {
    pub etag: Option<String>,
    pub body: Vec<u8>,
}

pub struct Reply {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub body: Vec<u8>,
}

impl Net {
    pub fn new(cfg: &config::Net) -> anyhow::Result<Net> {
        let resolver = CheckedResolver {
            allow_private: cfg.allow_private_addresses,
        };
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config(&cfg.extra_ca_file)?)
            .dns_resolver(Arc::new(resolver))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(cfg.connect_timeout_s))
            .read_timeout(Duration::from_secs(cfg.read_timeout_s))
            .user_agent(concat!("mediaforge/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Net {
            client,
            allow_private: cfg.allow_private_addresses,
            allow_http: cfg.allow_http,
            max_redirects: cfg.max_redirects,
            min_bytes_per_s: cfg.min_bytes_per_s,
            slow_grace: Duration::from_secs(cfg.slow_grace_s),
        })
    }

    /// Parses and checks a URL a tenant gave, resolving its name now so that a bad URL is
    /// refused when the request is made rather than later in a job.
    pub async fn check(&self, raw: &str) -> Result<Url, NetError> {
        let url = self.check_syntax(raw, None)?;
        if let Some(Host::Domain(name)) = url.host() {
            let port = url.port_or_known_default().unwrap_or(443);
            resolve_checked(name, port, self.allow_private).await?;
        }
        Ok(url)
    }

    fn check_syntax(&self, raw: &str, from: Option<&Url>) -> Result<Url, NetError> {
        let url = match from {
            Some(base) => base.join(raw),
            None => Url::parse(raw),
        }
        .map_err(|_| NetError::Refused(format!("Invalid URL '{}'", clip(raw))))?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_http && from.is_none_or(|b| b.scheme() == "http") => {}
            "http" if from.is_some() => {
                return Err(NetError::Refused(
                    "Redirect from https to http refused".into(),
                ));
            }
            _ => return Err(NetError::Refused("URL must use https".into())),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(NetError::Refused(
                "URLs with credentials are not allowed".into(),
            ));
        }
        let private = match url.host() {
            None => return Err(NetError::Refused("URL has no host".into())),
            Some(Host::Ipv4(ip)) => is_special(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => is_special(IpAddr::V6(ip)),
            Some(Host::Domain(d)) => {
                let d = d.trim_end_matches('.').to_ascii_lowercase();
                d == "localhost" || d.ends_with(".localhost")
            }
        };
        if private && !self.allow_private {
            return Err(NetError::Refused(
                "URL points to a local or private address, which is not allowed".into(),
            ));
        }
        Ok(url)
    }

    /// GET `url` (following checked redirects) into `dest`, at most `max_bytes`, all within
    /// `deadline` (the read timeout alone lets a peer dripping a byte at a time go on forever).
    pub async fn download(
        &self,
        url: &Url,
        dest: &Path,
        max_bytes: u64,
        deadline: Duration,
    ) -> Result<u64, NetError> {
        let get = self.get_following(url.clone(), None);
        let result = within(deadline, self.fetch(get, dest, max_bytes, max_bytes)).await;
        if result.is_err() {
            let _ = tokio::fs::remove_file(dest).await;
        }
        result
    }

    /// GET `url` into `dest`, keeping at most the first `keep` bytes (a probe reads no further;
    /// only those are asked for, with a Range header), all within `deadline`. A file larger than
    /// `limit` (by its Content-Length, the total of its Content-Range, or the bytes seen) is
    /// `TooLarge`, so a probe obeys the plan's file size without fetching the whole file.
    pub async fn download_prefix(
        &self,
        url: &Url,
        dest: &Path,
        keep: u64,
        limit: u64,
        deadline: Duration,
    ) -> Result<u64, NetError> {
        let keep = keep.min(limit);
        // One byte past the cap when the cap is the plan's, to tell "exactly at" from "over".
        let last = if keep == limit {
            keep
        } else {
            keep.saturating_sub(1)
        };
        let get = self.get_following(url.clone(), Some(last));
        within(deadline, self.fetch(get, dest, keep, limit)).await
    }

    /// A signed GET (a tenant's bucket, `bucket.rs`) into `dest`, at most `limit` bytes, within
    /// `deadline`. No redirect is followed: the signature and its headers belong to this URL.
    pub async fn download_signed(
        &self,
        url: &Url,
        headers: &[(String, String)],
        dest: &Path,
        limit: u64,
        deadline: Duration,
    ) -> Result<u64, NetError> {
        let get = async {
            let url = self.check_syntax(url.as_str(), None)?;
            let response = with_headers(self.client.get(url), headers)
                .send()
                .await
                .map_err(transport)?;
            if !response.status().is_success() {
                return Err(NetError::Status(response.status().as_u16()));
            }
            Ok(response)
        };
        let result = within(deadline, self.fetch(get, dest, limit, limit)).await;
        if result.is_err() {
            let _ = tokio::fs::remove_file(dest).await;
        }
        result
    }

    /// A signed request to a tenant's bucket (`bucket.rs`: an export's PUT, the calls of a
    /// multipart upload), its body streamed, following no redirect, within `deadline`: the
    /// answer's ETag and the first 64 KiB of its body (S3's XML answers are small).
    pub async fn send_signed(
        &self,
        method: reqwest::Method,
        url: &Url,
        headers: &[(String, String)],
        body: reqwest::Body,
        deadline: Duration,
    ) -> Result<SignedReply, NetError> {
        let send = async {
            let url = self.check_syntax(url.as_str(), None)?;
            let response = with_headers(self.client.request(method, url).body(body), headers)
                .send()
                .await
                .map_err(transport)?;
            if !response.status().is_success() {
                return Err(NetError::Status(response.status().as_u16()));
            }
            let etag = response
                .headers()
                .get(reqwest::header::ETAG)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body = read_capped(response, 64 * 1024).await;
            Ok(SignedReply { etag, body })
        };
        within(deadline, send).await
    }

    /// The body of the GET `get` answers into `dest`: the first `keep` bytes are written; more than `limit`
    /// (announced or seen) is refused.
    async fn fetch(
        &self,
        get: impl Future<Output = Result<reqwest::Response, NetError>>,
        dest: &Path,
        keep: u64,
        limit: u64,
    ) -> Result<u64, NetError> {
        let response = get.await?;
        if let Some(size) = announced_size(&response).filter(|&n| n > limit) {
            return Err(NetError::TooLarge { size, limit });
        }
        let mut file = tokio::fs::File::create(dest).await.map_err(transport)?;
        let (mut written, mut seen) = (0u64, 0u64);
        let mut body = response.bytes_stream();
        let started = tokio::time::Instant::now();
        loop {
            // The next bytes must come before the average falls under the minimum rate.
            let due = started + self.slow_grace + self.rate_time(seen);
            let next = tokio::time::timeout_at(due, body.next()).await;
            let Ok(next) = next else {
                return Err(NetError::TooSlow {
                    min_bytes_per_s: self.min_bytes_per_s,
                    grace_s: self.slow_grace.as_secs(),
                });
            };
            let Some(chunk) = next else { break };
            let chunk = chunk.map_err(transport)?;
            seen += chunk.len() as u64;
            if seen > limit {
                drop(file);
                let _ = tokio::fs::remove_file(dest).await;
                return Err(NetError::TooLarge { size: seen, limit });
            }
            let room = (keep - written).min(chunk.len() as u64) as usize;
            file.write_all(&chunk[..room]).await.map_err(transport)?;
            written += room as u64;
            if written >= keep && keep < limit {
                break;
            }
        }
        file.flush().await.map_err(transport)?;
        Ok(written)
    }

    /// How long `bytes` may take at the minimum rate (beyond the grace); no bound without one.
    fn rate_time(&self, bytes: u64) -> Duration {
        match self.min_bytes_per_s {
            0 => Duration::from_secs(365 * 24 * 3600),
            rate => Duration::from_secs_f64((bytes + 1) as f64 / rate as f64),
        }
    }

    /// A GET whose status is 2xx after at most `max_redirects` checked hops.
    /// `range_last`: ask for bytes `0..=range_last` only (a server may still send them all).
    async fn get_following(
        &self,
        mut url: Url,
        range_last: Option<u64>,
    ) -> Result<reqwest::Response, NetError> {
        for _ in 0..=self.max_redirects {
            let mut request = self.client.get(url.clone());
            if let Some(last) = range_last {
                request = request.header(reqwest::header::RANGE, format!("bytes=0-{last}"));
            }
            let response = request.send().await.map_err(transport)?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or(NetError::Status(status.as_u16()))?;
                url = self.check_syntax(location, Some(&url))?;
                continue;
            }
            if !status.is_success() {
                return Err(NetError::Status(status.as_u16()));
            }
            return Ok(response);
        }
        Err(NetError::Refused("Too many redirects".into()))
    }

    /// A POST that follows no redirect (webhooks), reading at most 64 KiB of the answer.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<Reply, NetError> {
        let url = self.check_syntax(url, None)?;
        let response = with_headers(self.client.post(url).timeout(timeout).body(body), headers)
            .send()
            .await
            .map_err(transport)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = read_capped(response, 64 * 1024).await;
        Ok(Reply {
            status,
            retry_after,
            body,
        })
    }

    /// A JSON POST to an operator-configured endpoint (language models). Same checks.
    pub async fn post_json(
        &self,
        url: &str,
        bearer: Option<&str>,
        body: &serde_json::Value,
        timeout: Duration,
        max_bytes: usize,
    ) -> Result<serde_json::Value, NetError> {
        let url = self.check_syntax(url, None)?;
        let mut request = self.client.post(url).timeout(timeout).json(body);
        if let Some(key) = bearer {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(transport)?;
        let status = response.status();
        let bytes = read_capped(response, max_bytes).await;
        if !status.is_success() {
            return Err(NetError::Status(status.as_u16()));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| NetError::Transport(format!("invalid JSON: {e}")))
    }
}

/// The whole file's size as the answer announces it: the total of a `Content-Range` (an
/// answer to a Range request), else the `Content-Length` of a whole answer.
fn announced_size(response: &reqwest::Response) -> Option<u64> {
    if response.status() == reqwest::StatusCode::PARTIAL_CONTENT {
        return response
            .headers()
            .get(reqwest::header::CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit_once('/'))
            .and_then(|(_, total)| total.trim().parse().ok());
    }
    response.content_length()
}

async fn within<T>(
    deadline: Duration,
    transfer: impl Future<Output = Result<T, NetError>>,
) -> Result<T, NetError> {
    tokio::time::timeout(deadline, transfer)
        .await
        .unwrap_or(Err(NetError::TimedOut(deadline.as_secs())))
}

async fn read_capped(response: reqwest::Response, cap: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        let room = cap.saturating_sub(out.len());
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if out.len() >= cap {
            break;
        }
    }
    out
}

fn with_headers(
    mut request: reqwest::RequestBuilder,
    headers: &[(String, String)],
) -> reqwest::RequestBuilder {
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    request
}

fn transport(e: impl std::fmt::Display) -> NetError {
    // reqwest's errors name the URL; keep the message short and free of our internals.
    NetError::Transport(clip(&e.to_string()).to_string())
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(200) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The outbound TLS configuration: the system roots and `extra_ca_file`, with ring.
pub fn tls_config(extra_ca_file: &str) -> anyhow::Result<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if !extra_ca_file.is_empty() {
        let pem = std::fs::read(extra_ca_file)
            .map_err(|e| anyhow::anyhow!("config key `net.extra_ca_file`: {extra_ca_file}: {e}"))?;
        for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
            roots.add(cert?)?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Resolves names itself and hands reqwest only addresses that passed the check.
struct CheckedResolver {
    allow_private: bool,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs = resolve_checked(&host, 0, allow_private).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

async fn resolve_checked(
    host: &str,
    port: u16,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, NetError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|_| NetError::Refused(format!("Cannot resolve host '{}'", clip(host))))?
        .collect();
    if addrs.is_empty() {
        return Err(NetError::Refused(format!(
            "Cannot resolve host '{}'",
            clip(host)
        )));
    }
    // One bad address condemns the whole name: a resolver may answer differently next time.
    if !allow_private && addrs.iter().any(|a| is_special(a.ip())) {
        return Err(NetError::Refused(
            "URL points to a local or private address, which is not allowed".into(),
        ));
    }
    Ok(addrs)
}

/// Addresses of the IANA IPv4 and IPv6 special-purpose registries, and everything that embeds an
/// IPv4 address (mapped, compatible, NAT64, 6to4, Teredo).
pub fn is_special(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_special_v4(v4),
        IpAddr::V6(v6) => is_special_v6(v6),
    }
}

fn is_special_v4(ip: Ipv4Addr) -> bool {
    let n = u32::from(ip);
    const RANGES: &[(u32, u8)] = &[
        (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
        (0x0A00_0000, 8),  // 10/8
        (0x6440_0000, 10), // 100.64/10 CGNAT
        (0x7F00_0000, 8),  // loopback
        (0xA9FE_0000, 16), // link-local, incl. 169.254.169.254
        (0xAC10_0000, 12), // 172.16/12
        (0xC000_0000, 24), // 192.0.0/24 IETF protocol assignments
        (0xC000_0200, 24), // TEST-NET-1
        (0xC058_6300, 24), // 6to4 relay anycast
        (0xC0A8_0000, 16), // 192.168/16
        (0xC612_0000, 15), // 198.18/15 benchmarking
        (0xC633_6400, 24), // TEST-NET-2
        (0xCB00_7100, 24), // TEST-NET-3
        (0xE000_0000, 4),  // multicast
        (0xF000_0000, 4),  // reserved, incl. broadcast
    ];
    RANGES
        .iter()
        .any(|&(base, len)| n >> (32 - len) == base >> (32 - len))
}

fn is_special_v6(ip: Ipv6Addr) -> bool {
    let n = u128::from(ip);
    const RANGES: &[(u128, u8)] = &[
        (0, 96),                                         // ::/96: unspecified, loopback, compatible
        (0xffff_0000_0000, 96),                          // ::ffff:0:0/96 IPv4-mapped
        (0x0064_ff9b_0000_0000_0000_0000_0000_0000, 96), // NAT64
        (0x0064_ff9b_0001_0000_0000_0000_0000_0000, 48), // local-use NAT64
        (0x0100_0000_0000_0000_0000_0000_0000_0000, 64), // discard
        (0x2001_0000_0000_0000_0000_0000_0000_0000, 23), // IETF protocol assignments, incl. Teredo
        (0x2001_0db8_0000_0000_0000_0000_0000_0000, 32), // documentation
        (0x2002_0000_0000_0000_0000_0000_0000_0000, 16), // 6to4
        (0x3fff_0000_0000_0000_0000_0000_0000_0000, 20), // documentation
        (0x5f00_0000_0000_0000_0000_0000_0000_0000, 16), // SRv6 SIDs
        (0xfc00_0000_0000_0000_0000_0000_0000_0000, 7),  // ULA, incl. fd00:ec2::254
        (0xfe80_0000_0000_0000_0000_0000_0000_0000, 10), // link-local
        (0xfec0_0000_0000_0000_0000_0000_0000_0000, 10), // site-local (deprecated)
        (0xff00_0000_0000_0000_0000_0000_0000_0000, 8),  // multicast
    ];
    RANGES
        .iter()
        .any(|&(base, len)| n >> (128 - len) == base >> (128 - len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(allow_private: bool) -> Net {
        let cfg = config::Net {
            allow_private_addresses: allow_private,
            ..Default::default()
        };
        Net::new(&cfg).unwrap()
    }

    #[test]
    fn special_addresses() {
        for bad in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "198.18.0.1",
            "192.0.2.1",
            "::1",
            "::",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
            "2001::1",
            "2001:db8::1",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
        ] {
            assert!(is_special(bad.parse().unwrap()), "{bad} should be special");
        }
        for good in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "2a00:1450::1",
        ] {
            assert!(
                !is_special(good.parse().unwrap()),
                "{good} should be public"
            );
        }
    }

    #[tokio::test]
    async fn url_spellings_of_private_hosts_are_refused() {
        let n = net(false);
        for bad in [
            "https://127.0.0.1/x",
            "https://127.1/x",
            "https://2130706433/x",
            "https://0x7f000001/x",
            "https://0177.0.0.1/x",
            "https://[::1]/x",
            "https://[::ffff:127.0.0.1]/x",
            "https://localhost/x",
            "https://LOCALHOST./x",
            "https://a.localhost/x",
            "https://169.254.169.254/latest/meta-data",
            "https://[fd00:ec2::254]/x",
            "http://example.com/x",
            "file:///etc/passwd",
            "ftp://example.com/x",
            "https://user:pw@example.com/x",
            "gopher://127.0.0.1:6379/_x",
        ] {
            assert!(
                matches!(n.check(bad).await, Err(NetError::Refused(_))),
                "{bad} should be refused"
            );
        }
    }

    #[tokio::test]
    async fn allow_private_relaxes_only_addresses() {
        let n = net(true);
        assert!(n.check("https://127.0.0.1:9/x").await.is_ok());
        assert!(n.check("http://127.0.0.1:9/x").await.is_err());
    }
}
