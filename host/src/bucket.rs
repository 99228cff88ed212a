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

    /// The file `src` written as the object `key`, streamed from disk, within `deadline`.
    pub async fn put(
        &self,
        net: &Net,
        key: &str,
        src: &Path,
        content_type: &str,
        deadline: Duration,
    ) -> Result<(), NetError> {
        let url = self.object_url(key);
        let file = tokio::fs::File::open(src)
            .await
            .map_err(|e| NetError::Transport(e.to_string()))?;
        let len = file
            .metadata()
            .await
            .map_err(|e| NetError::Transport(e.to_string()))?
            .len();
        let mut headers = self.signed_headers("PUT", &url, SignableBody::UnsignedPayload);
        headers.push(("content-length".into(), len.to_string()));
        headers.push(("content-type".into(), content_type.to_string()));
        let body = reqwest::Body::wrap_stream(tokio_util::io::ReaderStream::new(file));
        net.put_signed(&url, &headers, body, deadline).await
    }
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
}
