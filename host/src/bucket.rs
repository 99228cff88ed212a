//! A tenant's own S3-compatible bucket (`credentials.rs` keeps where it is and its keys): objects
//! read into a file and files written as objects, each request signed with SigV4 here and sent
//! by the one outbound client (`net.rs`), so every connection obeys its address rules (https
//! unless allowed, no private or loopback address unless allowed, checked on each connection),
//! bodies stream from and to disk, and a redirect is never followed with the signature.
//! Requests are path-style (`<endpoint>/<bucket>/<key>`), which every S3-compatible server
//! takes.

use std::path::Path;
use std::time::{Duration, SystemTime};

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use url::Url;

use crate::net::{Net, NetError};

/// What S3 leaves unescaped in a key's path segment (RFC 3986's unreserved characters).
const KEY_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// An opened bucket: where it is and the keys to sign with. Never printed with its secret.
pub struct Bucket {
    pub credential: String,
    pub endpoint: Url,
    pub region: String,
    pub bucket: String,
    pub access_key_id: String,
    secret: String,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucket")
            .field("credential", &self.credential)
            .field("endpoint", &self.endpoint.as_str())
            .field("bucket", &self.bucket)
            .finish_non_exhaustive()
    }
}

/// Why an object key is refused: it would not name one object plainly.
pub fn check_key(key: &str) -> Result<(), String> {
    if key.is_empty() || key.len() > 1024 {
        return Err("an object key is 1 to 1024 bytes".into());
    }
    if key.starts_with('/') || key.chars().any(char::is_control) {
        return Err("an object key may not start with '/' or hold control characters".into());
    }
    if key.split('/').any(|s| s == "." || s == "..") {
        return Err("an object key may not have '.' or '..' segments".into());
    }
    Ok(())
}

impl Bucket {
    pub fn new(
        credential: &str,
        endpoint: Url,
        region: &str,
        bucket: &str,
        access_key_id: &str,
        secret: String,
    ) -> Bucket {
        Bucket {
            credential: credential.to_string(),
            endpoint,
            region: region.to_string(),
            bucket: bucket.to_string(),
            access_key_id: access_key_id.to_string(),
            secret,
        }
    }

    /// `s3://<credential>/<key>`, as responses and errors name an object.
    pub fn shown(&self, key: &str) -> String {
        format!("s3://{}/{key}", self.credential)
    }

    fn object_url(&self, key: &str) -> Url {
        let mut path = self.endpoint.path().trim_end_matches('/').to_string();
        path.push('/');
        path.extend(utf8_percent_encode(&self.bucket, KEY_SEGMENT));
        for segment in key.split('/') {
            path.push('/');
            path.extend(utf8_percent_encode(segment, KEY_SEGMENT));
        }
        let mut url = self.endpoint.clone();
        url.set_path(&path);
        url.set_query(None);
        url
    }

    /// The headers that sign `method` on `url` (SigV4 for S3: the path escaped once, no
    /// normalisation, the payload hash in `x-amz-content-sha256`).
    fn signed_headers(
        &self,
        method: &str,
        url: &Url,
        body: SignableBody<'_>,
    ) -> Vec<(String, String)> {
        let identity: Identity = aws_credential_types::Credentials::new(
            &self.access_key_id,
            &self.secret,
            None,
            None,
            "tenant-bucket",
        )
        .into();
        let mut settings = SigningSettings::default();
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("s3")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .expect("every signing parameter is set")
            .into();
        let request = SignableRequest::new(method, url.as_str(), std::iter::empty(), body)
            .expect("a parsed URL is a valid request URI");
        let (instructions, _) = sign(request, &params)
            .expect("signing with set parameters")
            .into_parts();
        instructions
            .headers()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// The object `key` into `dest`, at most `limit` bytes, within `deadline`.
    pub async fn get(
        &self,
        net: &Net,
        key: &str,
        dest: &Path,
        limit: u64,
        deadline: Duration,
    ) -> Result<u64, NetError> {
        let url = self.object_url(key);
        let headers = self.signed_headers("GET", &url, SignableBody::Bytes(&[]));
        net.download_signed(&url, &headers, dest, limit, deadline)
            .await
    }

    /// The file `src` written as the object `key`, streamed from disk: one PUT, or above
    /// `MULTIPART_ABOVE` a multipart upload (S3 takes at most 5 GB in one PUT). Each request
    /// must finish within `deadline`.
    pub async fn put(
        &self,
        net: &Net,
        key: &str,
        src: &Path,
        content_type: &str,
        deadline: Duration,
    ) -> Result<(), NetError> {
        let len = tokio::fs::metadata(src).await.map_err(transport)?.len();
        let (above, part) = multipart_sizes();
        if len > above {
            let part = part_size(len, part);
            return self
                .put_multipart(net, key, src, len, part, content_type, deadline)
                .await;
        }
        let url = self.object_url(key);
        let mut headers = self.signed_headers("PUT", &url, SignableBody::UnsignedPayload);
        headers.push(("content-length".into(), len.to_string()));
        headers.push(("content-type".into(), content_type.to_string()));
        let body = file_part(src, 0, len).await?;
        net.send_signed(reqwest::Method::PUT, &url, &headers, body, deadline)
            .await?;
        Ok(())
    }

    /// A signed request with `query` on the object `key`'s URL.
    async fn call(
        &self,
        net: &Net,
        method: reqwest::Method,
        key: &str,
        query: &str,
        extra: Vec<(String, String)>,
        body: reqwest::Body,
        deadline: Duration,
    ) -> Result<crate::net::SignedReply, NetError> {
        let mut url = self.object_url(key);
        url.set_query(Some(query));
        let mut headers = self.signed_headers(method.as_str(), &url, SignableBody::UnsignedPayload);
        headers.extend(extra);
        net.send_signed(method, &url, &headers, body, deadline)
            .await
    }

    /// The file as a multipart upload of `part`-byte parts, each read from disk as it is sent
    /// (memory stays bounded); on any failure the upload is aborted, so neither an object nor
    /// its parts remain.
    #[allow(clippy::too_many_arguments)]
    async fn put_multipart(
        &self,
        net: &Net,
        key: &str,
        src: &Path,
        len: u64,
        part: u64,
        content_type: &str,
        deadline: Duration,
    ) -> Result<(), NetError> {
        let created = self
            .call(
                net,
                reqwest::Method::POST,
                key,
                "uploads",
                vec![("content-type".into(), content_type.to_string())],
                reqwest::Body::from(Vec::new()),
                deadline,
            )
            .await?;
        let upload_id = xml_text(&created.body, "UploadId").ok_or_else(|| {
            NetError::Transport("the bucket answered no UploadId to a multipart upload".into())
        })?;
        let sent = self
            .put_parts(net, key, src, len, part, &upload_id, deadline)
            .await;
        if sent.is_err() {
            // Parts of an abandoned upload are kept (and billed) until aborted.
            let query = format!("uploadId={}", query_value(&upload_id));
            let body = reqwest::Body::from(Vec::new());
            let aborted = self
                .call(
                    net,
                    reqwest::Method::DELETE,
                    key,
                    &query,
                    vec![],
                    body,
                    deadline,
                )
                .await;
            if let Err(e) = aborted {
                tracing::warn!(object = %self.shown(key), "export's multipart upload not aborted: {e}");
            }
        }
        sent
    }

    #[allow(clippy::too_many_arguments)]
    async fn put_parts(
        &self,
        net: &Net,
        key: &str,
        src: &Path,
        len: u64,
        part: u64,
        upload_id: &str,
        deadline: Duration,
    ) -> Result<(), NetError> {
        let id = query_value(upload_id);
        let mut done = String::from("<CompleteMultipartUpload>");
        let (mut offset, mut number) = (0, 1);
        while offset < len {
            let size = part.min(len - offset);
            let sent = self
                .call(
                    net,
                    reqwest::Method::PUT,
                    key,
                    &format!("partNumber={number}&uploadId={id}"),
                    vec![("content-length".into(), size.to_string())],
                    file_part(src, offset, size).await?,
                    deadline,
                )
                .await?;
            let etag = sent.etag.ok_or_else(|| {
                NetError::Transport(format!("the bucket answered no ETag to part {number}"))
            })?;
            done.push_str(&format!(
                "<Part><PartNumber>{number}</PartNumber><ETag>{}</ETag></Part>",
                xml_escape(&etag)
            ));
            offset += size;
            number += 1;
        }
        done.push_str("</CompleteMultipartUpload>");
        let completed = self
            .call(
                net,
                reqwest::Method::POST,
                key,
                &format!("uploadId={id}"),
                vec![("content-type".into(), "application/xml".into())],
                reqwest::Body::from(done),
                deadline,
            )
            .await?;
        // S3 may answer 200 and still fail the completion, with an <Error> body.
        if let Some(code) = xml_text(&completed.body, "Code")
            .filter(|_| completed.body.windows(7).any(|w| w == b"<Error>"))
        {
            return Err(NetError::Transport(format!(
                "the bucket did not complete the multipart upload: {code}"
            )));
        }
        Ok(())
    }
}

/// Exports above this size go as a multipart upload of `PART_BYTES` parts (10,000 parts at
/// most, so parts grow past 625 GiB). Both drop to `MEDIAFORGE_TEST_EXPORT_PART_BYTES` (at
/// least S3's 5 MiB part) for the black-box tests, which cannot write gigabytes.
const MULTIPART_ABOVE: u64 = 1024 * 1024 * 1024;
const PART_BYTES: u64 = 64 * 1024 * 1024;

fn multipart_sizes() -> (u64, u64) {
    std::env::var("MEDIAFORGE_TEST_EXPORT_PART_BYTES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|n| n.max(crate::storage::MIN_PART))
        .map_or((MULTIPART_ABOVE, PART_BYTES), |n| (n, n))
}

/// `len` bytes of `src` from `offset`, streamed as a request body.
async fn file_part(src: &Path, offset: u64, len: u64) -> Result<reqwest::Body, NetError> {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    let mut file = tokio::fs::File::open(src).await.map_err(transport)?;
    file.seek(std::io::SeekFrom::Start(offset))
        .await
        .map_err(transport)?;
    let reader = tokio_util::io::ReaderStream::with_capacity(file.take(len), 256 * 1024);
    Ok(reqwest::Body::wrap_stream(reader))
}

/// The grown part size for `len` bytes, so no upload needs more than S3's 10,000 parts.
fn part_size(len: u64, part: u64) -> u64 {
    let least = len.div_ceil(crate::storage::MAX_PARTS);
    part.max(least.div_ceil(1024 * 1024) * 1024 * 1024)
}

fn transport(e: std::io::Error) -> NetError {
    NetError::Transport(e.to_string())
}

/// The text of the first `<tag>` element of an S3 XML answer, unescaped.
fn xml_text(body: &[u8], tag: &str) -> Option<String> {
    let body = std::str::from_utf8(body).ok()?;
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let start = body.find(&open)? + open.len();
    let end = start + body[start..].find(&close)?;
    Some(
        body[start..end]
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A query value as SigV4 and S3 expect it (RFC 3986 unreserved left as is).
fn query_value(value: &str) -> String {
    utf8_percent_encode(value, KEY_SEGMENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_escaped_per_segment_and_odd_keys_refused() {
        let b = Bucket::new(
            "mine",
            Url::parse("https://s3.example.com").unwrap(),
            "us-east-1",
            "media",
            "AK",
            "SECRET".into(),
        );
        assert_eq!(
            b.object_url("in/a b+c?.mp4").as_str(),
            "https://s3.example.com/media/in/a%20b%2Bc%3F.mp4"
        );
        assert!(!format!("{b:?}").contains("SECRET"));
        for bad in ["", "/abs", "a/../b", "./a", "a\nb"] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
        assert!(check_key("out/2026/clip.mp4").is_ok());
    }

    #[test]
    fn multipart_answers_and_part_sizes() {
        let created = b"<?xml version=\"1.0\"?><InitiateMultipartUploadResult><Bucket>b</Bucket>\
            <UploadId>a&amp;b~1</UploadId></InitiateMultipartUploadResult>";
        assert_eq!(xml_text(created, "UploadId").as_deref(), Some("a&b~1"));
        assert_eq!(xml_text(created, "Key"), None);
        assert_eq!(query_value("a&b~1/+"), "a%26b~1%2F%2B");
        // 64 MiB parts up to 625 GiB; past it, parts grow so 10,000 still hold the file.
        assert_eq!(part_size(5 << 30, PART_BYTES), PART_BYTES);
        let huge = 1u64 << 40;
        let part = part_size(huge, PART_BYTES);
        assert!(part > PART_BYTES && huge.div_ceil(part) <= crate::storage::MAX_PARTS);
    }
}
